/* The write trampoline of a libcurl attempt (see curl_stream.h). */
#include "hook/curl_deliver.h"
#include "hook/curl_stream.h"
#include "hook/runtime.h"

static bool deliver_headers(void *rec, char *const *lines, size_t n)
{
    return lg_curl_deliver_headers(rec, lines, n);
}

void lg_relay_reset(lg_relay *x, lg_curl_rec *rec, lg_capture *cap, lg_dialect d, lg_stream_boundary mode)
{
    lg_relay_sink sink = {.headers = deliver_headers, .body = lg_curl_emit_body, .ctx = rec};
    lg_relay_start(x, cap, d, mode, &sink);
    const lg_config *cfg = lg_runtime_get()->cfg;
    if (cfg)
        x->pass_over = (size_t)cfg->max_held_body;
}

size_t lg_relay_write(char *p, size_t size, size_t nmemb, void *userdata)
{
    size_t len = size * nmemb;
    return lg_relay_feed(userdata, p, len) ? len : 0;
}
