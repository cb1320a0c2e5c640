/* The write trampoline and stream relay of an attempt (see curl_stream.h). */
#include <string.h>
#include <strings.h>

#include "hook/curl_deliver.h"
#include "hook/curl_stream.h"
#include "llmgate/clock.h"
#include "llmgate/stream_probe.h"

#define HOLD_MAX_BYTES (64 * 1024) /* the start of a stream is never held longer than this ... */
#define HOLD_MAX_MS 2000           /* ... or this */

void lg_relay_reset(lg_relay *x, lg_curl_rec *rec, lg_capture *cap, lg_dialect d, lg_stream_boundary mode)
{
    lg_boundary_free(&x->boundary);
    memset(x, 0, sizeof *x);
    x->rec = rec;
    x->cap = cap;
    x->dialect = d;
    lg_boundary_init(&x->boundary, mode);
}

void lg_relay_free(lg_relay *x) { lg_boundary_free(&x->boundary); }

bool lg_relay_committed(const lg_relay *x) { return x->phase == LG_RELAY_PASS; }

/* A 2xx event stream is relayed; anything else is buffered whole for the gate. */
static lg_relay_phase first_phase(const lg_capture *cap)
{
    const char *ct = NULL;
    for (size_t i = 0; i < cap->n_lines; i++)
        if (!strncasecmp(cap->lines[i], "content-type:", 13))
            ct = cap->lines[i] + 13;
    bool sse = ct && strcasestr(ct, "text/event-stream");
    return sse && cap->status >= 200 && cap->status < 300 ? LG_RELAY_HOLD : LG_RELAY_BUFFER;
}

/* Lets the stream through: the header block, then everything held so far. */
static bool commit(lg_relay *x)
{
    x->phase = LG_RELAY_PASS;
    return lg_curl_deliver_headers(x->rec, x->cap->lines, x->cap->n_lines) &&
           lg_boundary_feed(&x->boundary, x->cap->body, x->cap->body_len, lg_curl_emit_body, x->rec);
}

/* Decides, while holding, whether to keep holding, commit or stop. Returns false to stop the transfer. */
static bool hold_step(lg_relay *x)
{
    lg_header none = {0};
    lg_response_view v = {.status = x->cap->status, .headers = &none, .n_headers = 0,
                          .body = x->cap->body, .body_len = x->cap->body_len, .stream = true};
    lg_probe p = lg_stream_probe(x->dialect, &v);
    if (p == LG_PROBE_ERROR) {
        x->stopped_on_error = true;
        return false;
    }
    bool too_long = x->cap->body_len > HOLD_MAX_BYTES || lg_mono_ms() - x->hold_started_ms > HOLD_MAX_MS;
    if (p == LG_PROBE_COMMIT || too_long) {
        if (!commit(x)) {
            x->host_refused = true;
            return false;
        }
    }
    return true;
}

size_t lg_relay_write(char *p, size_t size, size_t nmemb, void *userdata)
{
    lg_relay *x = userdata;
    size_t len = size * nmemb;
    if (lg_capture_write(p, 1, len, x->cap) != len)
        return 0;
    if (x->phase == LG_RELAY_UNDECIDED) {
        x->phase = first_phase(x->cap);
        x->hold_started_ms = lg_mono_ms();
    }
    switch (x->phase) {
    case LG_RELAY_HOLD:
        return hold_step(x) ? len : 0;
    case LG_RELAY_PASS:
        if (!lg_boundary_feed(&x->boundary, p, len, lg_curl_emit_body, x->rec)) {
            x->host_refused = true;
            return 0;
        }
        return len;
    default:
        return len;
    }
}

bool lg_relay_finish(lg_relay *x)
{
    return x->phase != LG_RELAY_PASS || lg_boundary_flush(&x->boundary, lg_curl_emit_body, x->rec);
}
