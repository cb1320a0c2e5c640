/* libFuzzer harness: every duration and date parser on any bytes (length-bounded, never past len). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "llmgate/duration.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size ? size : 1); /* exactly size bytes, no NUL: reading past it is an ASan error */
    if (!s)
        return 0;
    memcpy(s, data, size);
    bool (*const parsers[])(const char *, size_t, int64_t *) = {lg_parse_go_duration, lg_parse_proto_duration,
                                                                lg_parse_delta_seconds, lg_parse_http_date,
                                                                lg_parse_rfc3339};
    for (size_t i = 0; i < sizeof parsers / sizeof parsers[0]; i++) {
        int64_t v = -12345;
        if (parsers[i](s, size, &v)) {
            if (i < 3 && v < 0)
                abort(); /* a duration is never negative */
            int64_t c = lg_hint_clamp(v, 86400000);
            if (c > 86400000 || c < -1)
                abort();
        } else if (v != -12345) {
            abort(); /* a failed parse leaves the output alone */
        }
    }
    free(s);
    return 0;
}
