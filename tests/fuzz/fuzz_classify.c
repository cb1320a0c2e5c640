/* libFuzzer harness: the classifier on whole responses of any dialect, status, headers and body. */
#include "llmgate/classify.h"
#include "response.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_response r;
    if (!fuzz_response_decode(data, size, &r))
        return 0;
    lg_outcome o;
    lg_classify(r.dialect, &r.view, &o);
    if (o.message[LG_MESSAGE_MAX - 1] != '\0' || o.retry_after_ms < LG_NO_HINT)
        abort(); /* the message is NUL-terminated; a hint is a duration or none */
    fuzz_response_free(&r);
    return 0;
}
