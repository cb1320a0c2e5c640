/* One HTTP/1.1 request as a host writes it on a connection, parsed with libhttp-parser: its raw bytes
 * (to be passed through untouched when llmgate cannot follow), its request line, headers and de-chunked
 * body, and a rendering of it with another API key in it. */
#ifndef LLMGATE_FRONT_H1_REQUEST_H
#define LLMGATE_FRONT_H1_REQUEST_H

#include <http_parser.h>
#include <stdbool.h>
#include <stddef.h>

#include "llmgate/preset.h"

/* One header field: the line "Name: value" at off in the request's header text, NUL-terminated. */
typedef struct {
    size_t off, name_len, len; /* len: the line's length without its NUL */
    size_t key;                /* where the API key starts in the line (lg_auth_value), 0: no key header */
} lg_h1_field;

typedef enum { LG_H1_MORE = 0, LG_H1_COMPLETE, LG_H1_INVALID } lg_h1_state;

typedef struct {
    http_parser p;
    char *raw;               /* every byte fed so far, as it came */
    size_t raw_len, raw_cap;
    char *url;
    size_t url_len, url_cap;
    char *text;              /* the header fields' lines, one after the other (lg_h1_field) */
    size_t text_len, text_cap;
    lg_h1_field *fields;
    size_t n_fields, cap_fields;
    bool field_open;         /* the last field's line is still being collected */
    bool in_value;
    char *body;
    size_t body_len, body_cap;
    bool headers_done;
    bool expect_continue; /* Expect: 100-continue: the host waits for an interim answer before the body */
    bool complete;
    bool oom;
    bool too_large;       /* the last INVALID was for more than max raw bytes */
} lg_h1_req;

/* Starts an empty request. */
void lg_h1_req_init(lg_h1_req *r);
void lg_h1_req_free(lg_h1_req *r);
/* Empties r for the connection's next request: what it held is wiped, its buffers are kept (a request no
 * larger than the previous one allocates nothing) unless they grew past 64 KiB. */
void lg_h1_req_reset(lg_h1_req *r);
/* Feeds bytes the host wrote. COMPLETE once the whole message is in (*used: how many of p it took; the
 * rest starts the next request); INVALID for anything that is not a plain HTTP/1.x request we can follow
 * (parse error, upgrade, CONNECT, an Expect other than 100-continue, more than max raw bytes: too_large set,
 * no memory: oom set). */
lg_h1_state lg_h1_req_feed(lg_h1_req *r, const char *p, size_t len, size_t max, size_t *used);
/* The value of the first header with that name (any case), or NULL. */
const char *lg_h1_req_header(const lg_h1_req *r, const char *name);
/* Copies the key the request carries (auth header, then ?key=) into buf; false when none. */
bool lg_h1_req_find_key(const lg_h1_req *r, char *buf, size_t size);
/* How an attempt is rendered (lg_h1_req_render). Zero: as the host sent it, re-framed. */
typedef struct {
    const char *key;      /* the account's key, or NULL: the host's own credentials */
    lg_auth_style style;  /* the header a key goes in when the request carries none where it could */
    bool restyle;         /* another provider: the host's auth headers are dropped, the key goes in style */
    const char *target;   /* the request-target instead of the host's (another provider's path), or NULL */
    const char *host;     /* the Host header's value instead of the host's, or NULL */
    const char *body;     /* the body instead of the host's (the engine's rewrite), or NULL */
    size_t body_len;
    const char *extra;    /* one more header line (no CRLF), or NULL */
    bool json;            /* add Content-Type: application/json when the request names no type */
} lg_h1_render;

/* The request rendered as o says: with a key, every auth header's value (restyle: none of them) and a
 * ?key= parameter of the request-target replaced, or one header in o->style added when it carries none
 * there; the body with a Content-Length; no Expect (the whole request goes at once), no X-Llmgate-Pin.
 * Caller frees (wiping it: it may hold a key). NULL on allocation failure. */
char *lg_h1_req_render(const lg_h1_req *r, const lg_h1_render *o, size_t *len);

#endif
