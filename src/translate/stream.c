/* The incremental stream translator: holds the target's bytes until an SSE event is complete (the
 * classifier's splitter reads it), translates it, and emits the host's events whole. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classify/dialects.h"
#include "llmgate/boundary.h"
#include "translate/stream.h"

/* A single event longer than this without an end is refused as malformed. */
#define TR_STREAM_HOLD_MAX (4u << 20)

struct lg_tr_stream {
    lg_tr_dialect target, host;
    lg_tr_stream_opts opts;
    char *buf;
    size_t len, cap;
    tr_parse_state ps;
    tr_emit_state es;
    bool ended, broken;
    char error[LG_TR_REASON_MAX];
    lg_tr_emit_fn emit;
    void *ctx;
};

lg_tr_stream *lg_tr_stream_new(lg_tr_dialect target, lg_tr_dialect host, const lg_tr_stream_opts *opts)
{
    lg_tr_stream *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->target = target;
    s->host = host;
    if (opts)
        s->opts = *opts;
    s->es.block = -1;
    return s;
}

void lg_tr_stream_free(lg_tr_stream *s)
{
    if (!s)
        return;
    cJSON_Delete(s->es.calls);
    free(s->buf);
    free(s);
}

const char *lg_tr_stream_error(const lg_tr_stream *s)
{
    return s->error;
}

static bool fail(lg_tr_stream *s, const char *why)
{
    if (!s->broken)
        snprintf(s->error, sizeof s->error, "%s", why);
    s->broken = true;
    return false;
}

bool tr_stream_send(lg_tr_stream *s, const char *name, cJSON *json, const char *raw)
{
    char *data = json ? cJSON_PrintUnformatted(json) : NULL;
    cJSON_Delete(json);
    if (!data && !raw)
        return fail(s, "out of memory");
    const char *d = data ? data : raw;
    size_t nl = name ? strlen(name) : 0, dl = strlen(d);
    char *out = malloc(nl + dl + 20);
    bool ok = false;
    if (out) {
        int n = name ? sprintf(out, "event: %s\ndata: %s\n\n", name, d) : sprintf(out, "data: %s\n\n", d);
        ok = s->emit(s->ctx, out, (size_t)n);
        if (!ok)
            fail(s, "the host refused the stream");
    } else {
        fail(s, "out of memory");
    }
    free(out);
    free(data);
    return ok;
}

bool tr_emit_remember(tr_emit_state *es, const tr_ev *ev)
{
    if (ev->kind == TR_EV_FINISH)
        es->finish = ev->finish;
    else if (ev->kind == TR_EV_USAGE)
        es->usage = ev->usage;
    return true;
}

static bool emit_ev(lg_tr_stream *s, const tr_ev *ev)
{
    if (s->ended)
        return true; /* nothing follows the end (Gemini's trailing chunks, keep-alives) */
    if (ev->kind == TR_EV_END || ev->kind == TR_EV_ERROR)
        s->ended = true;
    if (s->host == LG_TR_ANTHROPIC)
        return tr_emit_anthropic(s, &s->es, ev);
    if (s->host == LG_TR_GEMINI)
        return tr_emit_gemini(s, &s->es, ev);
    return tr_emit_openai(s, &s->es, &s->opts, ev);
}

static bool on_event(const lg_sse_event *ev, void *ctx)
{
    lg_tr_stream *s = ctx;
    if (ev->data_len == 0)
        return true; /* a comment, keep-alive or data-less event */
    if (!tr_parse_event(s->target, &s->ps, ev->data, s, emit_ev))
        return s->broken ? false : fail(s, "a stream event is not JSON of the target's dialect");
    return true;
}

bool lg_tr_stream_feed(lg_tr_stream *s, const char *p, size_t len, lg_tr_emit_fn emit, void *ctx)
{
    if (s->broken)
        return false;
    if (s->len + len > s->cap) {
        size_t cap = s->cap ? s->cap : 1024;
        while (cap < s->len + len)
            cap *= 2;
        char *b = cap <= TR_STREAM_HOLD_MAX * 2 ? realloc(s->buf, cap) : NULL;
        if (!b)
            return fail(s, "a stream event is too long");
        s->buf = b;
        s->cap = cap;
    }
    memcpy(s->buf + s->len, p, len);
    s->len += len;
    size_t done = lg_sse_complete_prefix(s->buf, s->len);
    s->emit = emit;
    s->ctx = ctx;
    if (done)
        lg_sse_each(s->buf, done, on_event, s);
    memmove(s->buf, s->buf + done, s->len - done);
    s->len -= done;
    if (s->len > TR_STREAM_HOLD_MAX)
        return fail(s, "a stream event is too long");
    return !s->broken;
}

bool lg_tr_stream_finish(lg_tr_stream *s, lg_tr_emit_fn emit, void *ctx)
{
    if (s->broken)
        return false;
    s->emit = emit;
    s->ctx = ctx;
    if (s->len)
        lg_sse_each(s->buf, s->len, on_event, s);
    s->len = 0;
    if (!s->broken && !s->ended)
        fail(s, "the target's stream ended before its last event");
    return !s->broken;
}
