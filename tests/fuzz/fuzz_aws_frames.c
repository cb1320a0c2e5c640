/* libFuzzer harness: the AWS event-stream frame reader (every frame it accepts lies inside the input, its
 * headers and payload inside the frame), the header lookup, and the classifier and stream probe on such a
 * stream. The first byte picks the dialect. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "llmgate/aws_frames.h"
#include "llmgate/classify.h"
#include "llmgate/stream_probe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    lg_dialect d = (lg_dialect)(data[0] % 6);
    size_t n = size - 1;
    char *b = malloc(n ? n : 1); /* its own allocation: ASan sees a read past the input's end */
    if (!b)
        return 0;
    memcpy(b, data + 1, n);
    bool bad;
    size_t complete = lg_aws_frames_span(b, n, n, &bad);
    if (complete > n)
        abort();
    lg_aws_frame f;
    for (size_t at = 0; at < complete; at += f.total) {
        if (lg_aws_frame_read(b + at, n - at, &f) != LG_AWS_FRAME_OK || f.total > n - at ||
            (const char *)f.headers + f.headers_len > f.payload || f.payload + f.payload_len > b + at + f.total)
            abort(); /* the prefix's frames are whole, their parts inside them */
        const char *v;
        size_t vl;
        static const char *const names[] = {":message-type", ":event-type", ":exception-type", ":content-type"};
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
            if (lg_aws_frame_header(&f, names[i], &v, &vl) &&
                ((const unsigned char *)v < f.headers || (const unsigned char *)v + vl > f.headers + f.headers_len))
                abort();
    }
    lg_response_view r = {.status = 200, .body = b, .body_len = n, .stream = true, .aws_frames = true};
    lg_outcome o;
    lg_classify(d, &r, &o);
    lg_stream_probe(d, &r);
    free(b);
    return 0;
}
