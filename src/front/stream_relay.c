/* The transport-neutral response relay (see stream_relay.h). */
#include <string.h>

#include "front/stream_relay.h"
#include "llmgate/aws_frames.h"
#include "llmgate/clock.h"
#include "llmgate/stream_probe.h"

#define HOLD_MAX_BYTES (64 * 1024) /* the start of a stream is never held longer than this ... */
#define HOLD_MAX_MS 2000           /* ... or this */

void lg_relay_start(lg_relay *x, lg_capture *cap, lg_dialect d, lg_stream_boundary mode, const lg_relay_sink *sink)
{
    lg_boundary_free(&x->boundary);
    memset(x, 0, sizeof *x);
    x->cap = cap;
    x->dialect = d;
    x->sink = *sink;
    x->pass_over = LG_RELAY_PASS_OVER;
    lg_boundary_init(&x->boundary, mode);
}

void lg_relay_free(lg_relay *x) { lg_boundary_free(&x->boundary); }

bool lg_relay_committed(const lg_relay *x) { return x->phase == LG_RELAY_PASS; }

/* A 2xx event stream (text or AWS frames) is relayed; anything else is buffered whole for the gate. */
static lg_relay_phase first_phase(const lg_capture *cap)
{
    return lg_capture_is_stream(cap) && cap->status >= 200 && cap->status < 300 ? LG_RELAY_HOLD : LG_RELAY_BUFFER;
}

/* Lets the response through: the header block, then everything captured so far. */
static bool commit(lg_relay *x)
{
    x->phase = LG_RELAY_PASS;
    bool ok = x->sink.headers(x->sink.ctx, x->cap->lines, x->cap->n_lines) &&
              lg_boundary_feed(&x->boundary, x->cap->body, x->cap->body_len, x->sink.body, x->sink.ctx);
    x->host_refused = !ok;
    return ok;
}

/* Decides, while holding, whether to keep holding, commit or stop. Returns false to stop the transfer. */
static bool hold_step(lg_relay *x)
{
    lg_header none = {0};
    lg_response_view v = {.status = x->cap->status, .headers = &none, .n_headers = 0,
                          .body = x->cap->body, .body_len = x->cap->body_len, .stream = true,
                          .aws_frames = x->cap->aws_frames};
    lg_probe p = lg_stream_probe(x->dialect, &v);
    if (p == LG_PROBE_ERROR) {
        x->stopped_on_error = true;
        return false;
    }
    bool too_long = x->cap->body_len > HOLD_MAX_BYTES || lg_mono_ms() - x->hold_started_ms > HOLD_MAX_MS;
    x->stream = true;
    return (p != LG_PROBE_COMMIT && !too_long) || commit(x);
}

/* After commit: keeps only the last LG_RELAY_TAIL bytes of the capture (from an event start for a stream),
 * trimming when twice that has gathered so the copying stays linear. */
static void keep_tail(lg_relay *x)
{
    lg_capture *c = x->cap;
    if (c->body_len <= 2 * LG_RELAY_TAIL)
        return;
    size_t from = c->body_len - LG_RELAY_TAIL;
    if (c->aws_frames) {
        /* the body starts at a frame: keep from the first frame that starts at or after from (a frame too
         * long or unreadable there leaves the cut where it is: memory stays bounded) */
        size_t at = lg_aws_frames_span(c->body, c->body_len, from, NULL);
        if (at >= from)
            from = at;
    } else if (x->stream) {
        const char *ev = memmem(c->body + from, c->body_len - from, "\n\n", 2);
        if (ev)
            from = (size_t)(ev + 2 - c->body);
    }
    memmove(c->body, c->body + from, c->body_len - from);
    c->body_len -= from;
    c->body[c->body_len] = '\0';
}

bool lg_relay_feed(lg_relay *x, const char *p, size_t len)
{
    if (lg_capture_write((char *)p, 1, len, x->cap) != len)
        return false;
    if (x->phase == LG_RELAY_UNDECIDED) {
        x->phase = first_phase(x->cap);
        if (x->phase == LG_RELAY_HOLD)
            x->hold_started_ms = lg_mono_ms();
        if (x->cap->aws_frames) { /* binary frames: no characters or events to cut at */
            lg_boundary_free(&x->boundary);
            lg_boundary_init(&x->boundary, LG_BOUNDARY_NONE);
        }
    }
    switch (x->phase) {
    case LG_RELAY_HOLD:
        return hold_step(x);
    case LG_RELAY_PASS:
        if (!lg_boundary_feed(&x->boundary, p, len, x->sink.body, x->sink.ctx)) {
            x->host_refused = true;
            return false;
        }
        keep_tail(x);
        return true;
    default:
        if (x->cap->body_len <= x->pass_over)
            return true;
        /* too long to hold: the host gets it as it comes, cut anywhere */
        lg_boundary_free(&x->boundary);
        lg_boundary_init(&x->boundary, LG_BOUNDARY_NONE);
        if (!commit(x))
            return false;
        keep_tail(x);
        return true;
    }
}

bool lg_relay_finish(lg_relay *x)
{
    return x->phase != LG_RELAY_PASS || lg_boundary_flush(&x->boundary, x->sink.body, x->sink.ctx);
}
