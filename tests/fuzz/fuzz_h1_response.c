/* libFuzzer harness: the socket path's reading of a provider's HTTP/1.1 response (src/front/h1_response.c
 * with libhttp-parser) into the capture and the relay (src/front/stream_relay.c: a 2xx event stream held, then
 * committed through cut points; anything else buffered), on any bytes a server may send. Byte 0: the
 * size of each read (1-17 bytes; the same response is also read whole); byte 1: bit 0 a HEAD request,
 * bits 1-3 the dialect, bits 4-5 the stream boundary, bit 6 a small pass-over limit. Invariants: no
 * memory error, and the outcome does not depend on how the server's bytes were split: the same step
 * result, status, keep-alive, header lines, and the same bytes buffered for the gate or relayed to the
 * host (except whether an event stream stops on an error near its start, and how much of an incomplete
 * last event a stream cut by the end of the connection held back). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "front/h1_response.h"

#include "h1_reader.h"

typedef struct {
    lg_h1r_step step;
    int status;
    bool keep_alive, committed;
    lg_capture cap;
    host to_host;
} outcome;

/* Reads the whole response in reads of `step` bytes into o. */
static void read_response(const uint8_t *data, size_t size, size_t step, uint8_t flags, outcome *o)
{
    memset(o, 0, sizeof *o);
    o->to_host.out = malloc(MAX_OUT);
    if (!o->to_host.out)
        abort();
    server s = {.data = data, .size = size, .step = step};
    lg_h1_io io = {.recv = server_recv};
    lg_relay relay;
    memset(&relay, 0, sizeof relay);
    lg_relay_sink sink = {.headers = host_headers, .body = host_body, .ctx = &o->to_host};
    lg_dialect dialect = (lg_dialect)((flags >> 1 & 7) % (LG_DIALECT_BAIDU + 1));
    lg_relay_start(&relay, &o->cap, dialect, (lg_stream_boundary)((flags >> 4 & 3) % 3), &sink);
    if (flags & 0x40)
        relay.pass_over = 64;
    lg_h1_resp r;
    memset(&r, 0, sizeof r);
    lg_h1_resp_start(&r, &o->cap, &relay, flags & 1);
    lg_h1r_step st;
    do
        st = lg_h1_resp_step(&r, &io, &s);
    while (st == LG_H1R_MORE);
    if (st == LG_H1R_DONE && lg_relay_committed(&relay))
        lg_relay_finish(&relay);
    o->step = st;
    o->status = o->cap.status;
    o->keep_alive = r.keep_alive;
    o->committed = lg_relay_committed(&relay);
    lg_h1_resp_free(&r);
    lg_relay_free(&relay);
}

static void outcome_free(outcome *o)
{
    lg_capture_free(&o->cap);
    free(o->to_host.out);
}

static bool same_bytes(const char *a, size_t na, const char *b, size_t nb)
{
    return na == nb && (na == 0 || memcmp(a, b, na) == 0);
}

/* True when what one host received is the start of what the other did: a stream cut by the end of the
 * connection holds back its incomplete last event, which the reads may have made longer or shorter. */
static bool one_prefix(const host *a, const host *b)
{
    size_t n = a->len < b->len ? a->len : b->len;
    return n == 0 || memcmp(a->out, b->out, n) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    size_t step = (size_t)data[0] % 17 + 1;
    uint8_t flags = data[1];
    data += 2, size -= 2;
    outcome whole, split;
    read_response(data, size, size ? size : 1, flags, &whole);
    read_response(data, size, step, flags, &split);
    const char *what = NULL;
    /* Where a held stream commits depends on what each read brought: an error event read together with
     * the first content stops the stream (it is retried), read after it goes to the host. */
    bool stream_stop = whole.cap.event_stream && (whole.step == LG_H1R_STOPPED || split.step == LG_H1R_STOPPED);
    if (stream_stop)
        ;
    else if (whole.step != split.step)
        what = "step result";
    else if (whole.step == LG_H1R_FAILED)
        ; /* not a response: what was read of it before the parser gave up depends on the reads */
    else if (whole.status != split.status)
        what = "status";
    else if (whole.step == LG_H1R_DONE || whole.step == LG_H1R_EOF) {
        /* A stream stopped at its start may stop after more or fewer bytes: only whole reads compare. */
        if (whole.keep_alive != split.keep_alive)
            what = "keep-alive";
        else if (whole.cap.n_hdrs != split.cap.n_hdrs || !same_bytes(whole.cap.text, whole.cap.text_len, split.cap.text, split.cap.text_len))
            what = "header lines";
        else if (whole.committed != split.committed)
            what = "committed";
        else if (!same_bytes(whole.cap.body, whole.cap.body_len, split.cap.body, split.cap.body_len) && !whole.committed)
            what = "buffered body";
        else if (whole.to_host.overflow != split.to_host.overflow ||
                 (whole.step == LG_H1R_DONE ? !same_bytes(whole.to_host.out, whole.to_host.len, split.to_host.out, split.to_host.len)
                                            : !one_prefix(&whole.to_host, &split.to_host)))
            what = "bytes relayed to the host";
    }
    if (what) {
        fprintf(stderr, "whole and split (%zu) differ in the %s: step %d/%d status %d/%d body %zu/%zu host %zu/%zu\n",
                step, what, (int)whole.step, (int)split.step, whole.status, split.status, whole.cap.body_len,
                split.cap.body_len, whole.to_host.len, split.to_host.len);
        abort();
    }
    outcome_free(&whole);
    outcome_free(&split);
    return 0;
}
