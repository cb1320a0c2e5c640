/* Reading one HTTP/1.1 response from a transport with libhttp-parser into an lg_capture (header lines
 * rebuilt with CRLF, interim 1xx responses skipped) and through an lg_relay (the de-chunked body). */
#ifndef LLMGATE_FRONT_H1_RESPONSE_H
#define LLMGATE_FRONT_H1_RESPONSE_H

#include <http_parser.h>
#include <stdbool.h>

#include "front/h1_conn.h"
#include "front/stream_relay.h"

typedef enum {
    LG_H1R_MORE = 0, /* read and parsed one piece; the message goes on */
    LG_H1R_DONE,     /* the message is complete */
    LG_H1R_STOPPED,  /* the relay stopped the body (an error at a stream's start, or the host refused) */
    LG_H1R_EOF,      /* the connection ended before the message did */
    LG_H1R_FAILED,   /* the transport failed, or the bytes are not an HTTP/1.x response */
    LG_H1R_AGAIN,    /* nothing to read yet (a transport that never blocks): nothing was parsed */
    LG_H1R_INTR,     /* a signal the host takes interrupted the blocking read: nothing was parsed */
} lg_h1r_step;

typedef struct {
    http_parser p;
    lg_capture *cap;
    lg_relay *relay;
    char *line;      /* the header line being gathered (its buffer is kept for the next response) */
    size_t line_len, line_cap;
    bool in_field, in_value, status_sent, interim, done, stop, got_any;
    bool head;       /* it answers a HEAD request: no body */
    bool chunked;    /* the body came chunked */
    bool keep_alive; /* the connection can carry another request after this response */
    const struct lg_h1_head *plain; /* while its framing is parsed: the plain head read a line at a time */
    const char *plain_at;           /* and its bytes */
} lg_h1_resp;

/* Starts reading a response into cap and relay (both already reset); head: it answers a HEAD request. r is
 * zeroed or was started before. */
void lg_h1_resp_start(lg_h1_resp *r, lg_capture *cap, lg_relay *relay, bool head);
void lg_h1_resp_free(lg_h1_resp *r);
/* Reads once from io and parses what came. */
lg_h1r_step lg_h1_resp_step(lg_h1_resp *r, const lg_h1_io *io, void *ioctx);

#endif
