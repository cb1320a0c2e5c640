/* libFuzzer harness: the config loader (parse and validate any text), rendering and host matching. */
#include <stdint.h>
#include <stdlib.h>

#include "llmgate/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    lg_errors e = {0};
    lg_config *c = lg_config_parse((const char *)data, size, "fuzz.json", size & 1, &e);
    if (c) {
        free(lg_config_render(c));
        lg_config_match_host(c, "api.openai.com");
        lg_config_match_host(c, "x.openai.azure.com.");
        lg_config_free(c);
    } else if (e.n == 0) {
        abort(); /* a refused config always says why */
    }
    lg_errors_free(&e);
    return 0;
}
