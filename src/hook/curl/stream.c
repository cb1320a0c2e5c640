/* The write trampoline of a libcurl attempt (see stream.h). */
#include "hook/curl/deliver.h"
#include "hook/curl/stream.h"
#include "hook/base/runtime.h"
#include "llmgate/log.h"

static bool deliver_headers(void *ctx, char *const *lines, size_t n)
{
    return lg_curl_deliver_headers(((lg_curl_sink *)ctx)->rec, lines, n);
}

/* Body bytes of the target, to the host: as they are, or as the host dialect's events. */
static bool deliver_body(void *ctx, const char *p, size_t len)
{
    lg_curl_sink *s = ctx;
    if (!s->tr)
        return lg_curl_emit_body(s->rec, p, len);
    return lg_tr_stream_feed(s->tr, p, len, lg_curl_emit_body, s->rec);
}

void lg_relay_reset(lg_relay *x, lg_curl_sink *sink, lg_capture *cap, lg_dialect d, lg_stream_boundary mode)
{
    lg_relay_sink rs = {.headers = deliver_headers, .body = deliver_body, .ctx = sink};
    lg_relay_start(x, cap, d, mode, &rs);
    const lg_config *cfg = lg_runtime_get()->cfg;
    if (cfg)
        x->pass_over = (size_t)cfg->max_held_body;
}

size_t lg_relay_write(char *p, size_t size, size_t nmemb, void *userdata)
{
    size_t len = size * nmemb;
    return lg_relay_feed(userdata, p, len) ? len : 0;
}

bool lg_curl_sink_finish(lg_curl_sink *sink)
{
    if (!sink->tr || lg_tr_stream_finish(sink->tr, lg_curl_emit_body, sink->rec))
        return true;
    lg_log(LG_LOG_INFO, "[Translate] the translated stream ended incomplete: %s", lg_tr_stream_error(sink->tr));
    return false;
}
