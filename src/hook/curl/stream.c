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
    sink->rec->stream_skip = 0;
    const lg_config *cfg = lg_runtime_get()->cfg;
    if (cfg)
        x->pass_over = (size_t)cfg->max_held_body;
}

size_t lg_relay_write(char *p, size_t size, size_t nmemb, void *userdata)
{
    lg_relay *x = userdata;
    lg_curl_rec *r = ((lg_curl_sink *)x->sink.ctx)->rec;
    size_t len = size * nmemb;
    if (LG_UNLIKELY(r->rest)) { /* libcurl delivers its paused chunk again: what the host paused goes first */
        CURLcode rc = lg_curl_emit_rest(r);
        if (rc == CURLE_AGAIN)
            return CURL_WRITEFUNC_PAUSE; /* still (or again) paused: libcurl keeps the chunk */
        if (rc != CURLE_OK)
            return 0;
    }
    size_t skip = r->stream_skip < len ? r->stream_skip : len; /* the relay took these before the pause */
    r->stream_skip -= skip;
    if (!lg_relay_feed(x, p + skip, len - skip))
        return 0;
    if (LG_UNLIKELY(r->rest)) { /* the host paused (a multi): libcurl pauses too, and delivers p again */
        r->stream_skip = len;
        return CURL_WRITEFUNC_PAUSE;
    }
    return len;
}

bool lg_curl_sink_finish(lg_curl_sink *sink)
{
    if (!sink->tr || lg_tr_stream_finish(sink->tr, lg_curl_emit_body, sink->rec))
        return true;
    lg_log(LG_LOG_INFO, "[Translate] the translated stream ended incomplete: %s", lg_tr_stream_error(sink->tr));
    return false;
}
