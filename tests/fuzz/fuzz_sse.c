/* libFuzzer harness: the SSE splitter, the complete-event and UTF-8 prefixes, and the stream cut points
 * of every boundary mode fed in pieces: what comes out is exactly what went in. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "classify/dialects.h"
#include "llmgate/boundary.h"

typedef struct {
    const uint8_t *want;
    size_t off, len;
} sink;

static bool emit(void *ctx, const char *p, size_t len)
{
    sink *s = ctx;
    if (len > s->len - s->off || memcmp(s->want + s->off, p, len))
        abort(); /* bytes out of order, invented, or duplicated */
    s->off += len;
    return true;
}

static bool count_event(const lg_sse_event *ev, void *ctx)
{
    if (ev->data[ev->data_len] != '\0' || ev->data_len > ((size_t *)ctx)[1])
        abort(); /* NUL-terminated, and no longer than the input */
    ((size_t *)ctx)[0]++;
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    size_t piece = data[0] % 32 + 1;
    const uint8_t *p = data + 1;
    size_t n = size - 1;
    char *s = malloc(n ? n : 1);
    if (!s)
        return 0;
    memcpy(s, p, n);
    size_t events[2] = {0, n}; /* count, input length */
    lg_sse_each(s, n, count_event, events);
    if (lg_sse_complete_prefix(s, n) > n || lg_utf8_complete_prefix(s, n) > n)
        abort();
    for (int mode = LG_BOUNDARY_UTF8; mode <= LG_BOUNDARY_NONE; mode++) {
        lg_boundary b;
        lg_boundary_init(&b, (lg_stream_boundary)mode);
        sink k = {p, 0, n};
        for (size_t off = 0; off < n; off += piece)
            lg_boundary_feed(&b, s + off, n - off < piece ? n - off : piece, emit, &k);
        lg_boundary_flush(&b, emit, &k);
        if (k.off != n)
            abort(); /* bytes lost */
        lg_boundary_free(&b);
    }
    free(s);
    return 0;
}
