/* libFuzzer harness: an event stream as it arrives: the stream probe on every prefix (as the hook calls
 * it while holding), then the classifier on the whole stream. */
#include "llmgate/classify.h"
#include "llmgate/stream_probe.h"
#include "response.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_response r;
    if (!fuzz_response_decode(data, size, &r))
        return 0;
    r.view.stream = true;
    size_t total = r.view.body_len;
    size_t step = total / 16 + 1;
    for (size_t n = 0; n <= total; n += step) {
        lg_response_view prefix = r.view;
        prefix.body_len = n;
        lg_probe p = lg_stream_probe(r.dialect, &prefix);
        if (p != LG_PROBE_MORE && p != LG_PROBE_COMMIT && p != LG_PROBE_ERROR)
            abort();
    }
    lg_outcome o;
    lg_classify(r.dialect, &r.view, &o);
    fuzz_response_free(&r);
    return 0;
}
