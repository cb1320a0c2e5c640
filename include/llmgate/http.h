/* Transport-agnostic views of an HTTP exchange, shared by the hooks, the classifier and the mock. */
#ifndef LLMGATE_HTTP_H
#define LLMGATE_HTTP_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    const char *name;  /* any case */
    const char *value; /* without surrounding whitespace */
} lg_header;

/* A response as the classifier sees it. Nothing here is owned by the view. */
typedef struct {
    int status;                /* HTTP status; 0 when the transport failed before one arrived */
    const lg_header *headers;
    size_t n_headers;
    const char *body;          /* raw bytes, not NUL-terminated necessarily */
    size_t body_len;
    bool stream;               /* body is text/event-stream */
    bool aws_frames;           /* body is application/vnd.amazon.eventstream (binary frames: aws_frames.h) */
    bool delivered;            /* the transport already handed (part of) it to the host: no retry possible */
} lg_response_view;

/* Case-insensitive lookup of the first header with that name; NULL when absent. */
const char *lg_header_get(const lg_header *h, size_t n, const char *name);

/* True when the Content-Type value ct (NULL: none) names text/event-stream (any case, anywhere in it). */
bool lg_is_event_stream(const char *ct);
/* True when the Content-Type value ct (NULL: none) names application/vnd.amazon.eventstream (any case). */
bool lg_is_aws_eventstream(const char *ct);

#endif
