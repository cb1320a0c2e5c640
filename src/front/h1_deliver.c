/* What the host of an HTTP/1.1 provider connection reads (see h1_conn_internal.h): the output queue, a
 * committed stream relayed as it came (re-chunked or translated), the final response re-framed. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "front/answer_translate.h"
#include "front/h1_conn_internal.h"
#include "front/h1_text.h"
#include "front/resp_lines.h"
#include "util/word.h"
#include "llmgate/log.h"
#include "llmgate/synth.h"

/* lg_h1_out_add, inlined into the loops over a header block's lines. */
static inline __attribute__((always_inline)) bool out_put(lg_h1_conn *c, const char *p, size_t n)
{
    if (c->out_off == c->out_len)
        c->out_off = c->out_len = 0;
    if (!lg_h1_grow(&c->out, &c->out_cap, c->out_len + n))
        return false;
    memcpy(c->out + c->out_len, p, n);
    c->out_len += n;
    return true;
}

bool lg_h1_out_add(lg_h1_conn *c, const char *p, size_t n) { return out_put(c, p, n); }

/* A header block as it came. */
static bool add_lines(lg_h1_conn *c, char *const *lines, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!out_put(c, lines[i], strlen(lines[i])))
            return false;
    return true;
}

static bool emit_out(void *ctx, const char *p, size_t n) { return lg_h1_out_add(ctx, p, n); }

/* Relay sink: a committed response's header block as it came (translated: framed as chunks). */
static bool sink_headers(void *ctx, char *const *lines, size_t n)
{
    lg_h1_conn *c = ctx;
    return c->tr.on ? lg_h1_tr_headers(lines, n, emit_out, c) : add_lines(c, lines, n);
}

/* True when what the host reads of a committed stream is framed as chunks. */
static bool chunked_out(const lg_h1_conn *c) { return c->resp.chunked || c->tr.on; }

/* Body bytes for the host, framed again as chunks when the provider sent chunks (or they are translated). */
static bool emit_body(void *ctx, const char *p, size_t n)
{
    lg_h1_conn *c = ctx;
    if (n == 0)
        return true;
    if (!chunked_out(c))
        return lg_h1_out_add(c, p, n);
    char head[32];
    int hl = snprintf(head, sizeof head, "%zx\r\n", n);
    return lg_h1_out_add(c, head, (size_t)hl) && lg_h1_out_add(c, p, n) && lg_h1_out_add(c, "\r\n", 2);
}

/* Relay sink: a committed body's bytes, through the translator when the attempt went to another dialect. */
static bool sink_body(void *ctx, const char *p, size_t n)
{
    lg_h1_conn *c = ctx;
    return c->tr.stream ? lg_tr_stream_feed(c->tr.stream, p, n, emit_body, c) : emit_body(c, p, n);
}

/* Adds a header block for the host with its framing headers dropped and a Content-Length before its
 * blank line. */
static bool add_reframed(lg_h1_conn *c, char *const *lines, size_t n, size_t body_len)
{
    for (size_t i = 0; i < n; i++) {
        const char *l = lines[i];
        size_t len = strlen(l);
        char first = (char)(l[0] | 0x20); /* most lines are told apart by their first letter */
        if ((first == 'c' && lg_word_begins(l, len, "content-length", 14) && l[14] == ':') ||
            (first == 't' && lg_word_begins(l, len, "transfer-encoding", 17) && l[17] == ':'))
            continue;
        if (i + 1 == n) {
            char cl[LG_H1_DEC_MAX + 32] = "Content-Length: ";
            size_t k = 16 + lg_h1_dec(cl + 16, body_len);
            memcpy(cl + k, "\r\n\r\n", 4);
            return lg_h1_out_add(c, cl, k + 4);
        }
        if (!out_put(c, l, len))
            return false;
    }
    return true;
}

void lg_h1_deliver(lg_h1_conn *c, const lg_gate_result *res)
{
    lg_lines block = {0};
    char *synth = NULL;
    const char *body = c->cap.body ? c->cap.body : "";
    size_t body_len = c->cap.body_len;
    bool ok;
    if (res->verdict == LG_GATE_DELIVERED)
        return;
    if (res->verdict == LG_GATE_TRANSPORT) {
        c->host_errno = ECONNRESET;
        return;
    }
    if (lg_lines_synthesized(res, lg_capture_is_stream(&c->cap))) {
        synth = lg_synth_error_body(c->prov->dialect, res->status, &res->outcome, res->retry_after_ms);
        body = synth ? synth : "";
        body_len = strlen(body);
        ok = lg_lines_refused(&block, res, body_len) && add_lines(c, block.lines, block.n);
    } else {
        if (res->verdict == LG_GATE_DELIVER && c->tr.on && lg_capture_translate(&c->cap, c->tr.target, c->tr.host)) {
            body = c->cap.body;
            body_len = c->cap.body_len;
        }
        /* the provider's block as it came unless normalized; a HEAD answer keeps its framing headers */
        char *const *lines = c->cap.lines;
        size_t n = c->cap.n_lines;
        ok = !res->normalized || lg_lines_normalized(&block, lines, n, c->cap.status, res);
        if (res->normalized) {
            lines = block.lines;
            n = block.n;
        }
        ok = ok && (c->head ? add_lines(c, lines, n) : add_reframed(c, lines, n, body_len));
    }
    ok = ok && (c->head || lg_h1_out_add(c, body, body_len)); /* a HEAD answer has no body */
    if (!ok)
        c->host_errno = ENOMEM;
    /* a request that does not keep the connection (HTTP/1.0, Connection: close) is answered as a server
     * would: the host reads its answer up to the end of the connection (PHP's http stream reads until it),
     * which llmgate makes when the provider side is still open (a local answer, a provider keeping it) */
    if (!http_should_keep_alive(&c->req.p) && !c->dead)
        c->dead = c->ended = true;
    lg_lines_free(&block);
    free(synth);
}

void lg_h1_stream_end(lg_h1_conn *c)
{
    if (!lg_relay_finish(&c->relay)) {
        c->host_errno = ENOMEM;
    } else if (c->tr.stream && !lg_tr_stream_finish(c->tr.stream, emit_body, c)) {
        lg_log(LG_LOG_INFO, "[Translate] the translated stream ended incomplete: %s", lg_tr_stream_error(c->tr.stream));
        c->host_errno = ECONNRESET; /* no last chunk: the host sees the stream cut short */
    } else if (chunked_out(c) && !lg_h1_out_add(c, "0\r\n\r\n", 5))
        c->host_errno = ENOMEM;
}

lg_relay_sink lg_h1_host_sink(lg_h1_conn *c)
{
    return (lg_relay_sink){.headers = sink_headers, .body = sink_body, .ctx = c};
}
