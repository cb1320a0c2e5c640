/* A response the mock provider is about to send, built by the dialect modules and sent by the server. */
#ifndef MOCK_REPLY_H
#define MOCK_REPLY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

typedef struct {
    char *name;
    char *value;
} mock_hdr;

typedef struct {
    int status;             /* HTTP status; 0 closes the connection without any response */
    mock_hdr *headers;
    size_t n_headers, cap_headers;
    char *body;             /* owned, malloc'ed */
    size_t body_len;
    bool stream;            /* send with chunked transfer encoding (text/event-stream bodies) */
    size_t chunk;           /* > 0: send the body in pieces of this many bytes ... */
    int64_t chunk_delay_ms; /* ... this far apart */
    int64_t body_delay_ms;  /* > 0: send the head, then wait this long before the body's first byte */
    long truncate;          /* >= 0: announce the full length but send only this many bytes, then close */
    int64_t delay_ms;       /* wait this long before answering */
} mock_reply;

/* Resets r to an empty 200 reply with no headers, body or send modifiers. */
void mock_reply_init(mock_reply *r);
/* Releases everything r owns and leaves it empty. */
void mock_reply_free(mock_reply *r);
/* Appends a header (value formatted like printf). */
void mock_reply_header(mock_reply *r, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Replaces the body with a copy of len bytes of body. */
void mock_reply_body(mock_reply *r, const char *body, size_t len);
/* Replaces the body with the string s, which r now owns (s may be NULL: empty body). */
void mock_reply_take_body(mock_reply *r, char *s);
/* Sets status, an application/json content type and the body printed from obj (compact when
 * indent is 0, else pretty with indent spaces and a trailing newline). Deletes obj. */
void mock_reply_json(mock_reply *r, int status, cJSON *obj, int indent);
/* Prints obj as JSON: compact when indent is 0, else pretty with that many spaces per level and a
 * trailing newline. Returns a malloc'ed string (never NULL unless out of memory). */
char *mock_json_print(const cJSON *obj, int indent);

#endif
