/* What one attempt received, captured by our write and header trampolines instead of the host's. */
#ifndef LLMGATE_FRONT_CAPTURE_H
#define LLMGATE_FRONT_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>

#include "llmgate/http.h"

typedef struct {
    char *body;
    size_t body_len, body_cap;
    char **lines;       /* raw header lines of the last header block, each with its CRLF (in text); none
                         * when skip_lines */
    size_t n_lines, cap_lines;
    lg_header *hdrs;    /* the block's headers, split as they arrive (names and values in text) */
    size_t n_hdrs, cap_hdrs;
    char *text;         /* the block's lines, names and values, NUL-terminated, one after the other */
    size_t text_len, text_cap;
    bool event_stream;  /* the block's Content-Type names text/event-stream */
    bool aws_frames;    /* ... or application/vnd.amazon.eventstream (AWS's binary frames) */
    int status;         /* from the block's status line */
    bool status_plain;  /* it was three digits right after the line's first space (libcurl reads the same) */
    int oom;            /* an allocation failed: the capture is incomplete */
    bool skip_lines;    /* set by the owner: nobody takes the raw lines (the host takes no headers), so
                         * they are not kept (n_lines stays 0); the view is the same */
    size_t lines_seen;  /* header lines (of any block, status lines too) that arrived since the reset: the
                         * answer's progress before its body (the attempt watch) */
} lg_capture;

/* Whether the captured answer is an event stream: text/event-stream or AWS's binary event-stream frames. */
static inline bool lg_capture_is_stream(const lg_capture *c) { return c->event_stream || c->aws_frames; }

/* Empties the capture for a new attempt (keeps its buffers: a response no larger than an earlier one
 * allocates nothing; skip_lines stays as the owner set it). */
void lg_capture_reset(lg_capture *c);
void lg_capture_free(lg_capture *c);
/* Frees the body and the header text when larger than keep bytes (emptying what they held): a kept
 * capture does not hold on to the largest response it ever saw. */
void lg_capture_shrink(lg_capture *c, size_t keep);
/* libcurl write callback: appends to the body. userdata is the lg_capture. */
size_t lg_capture_write(char *ptr, size_t size, size_t nmemb, void *userdata);
/* libcurl header callback: keeps the lines of the last block (a status line starts a new block), each
 * split into name and value as it arrives. */
size_t lg_capture_header(char *ptr, size_t size, size_t nmemb, void *userdata);
/* A header line of len bytes at line already split: a name of name_len bytes (at least one, no colon in
 * it) then its colon, its value from value_off (the spaces after the colon skipped) to its CRLF, with no
 * tab, CR or LF before it (as lg_h1_head_split splits a plain head). Captured as lg_capture_header captures
 * the same line, without looking for the colon; returns len, 0 when out of memory. */
size_t lg_capture_line(lg_capture *c, const char *line, size_t len, size_t name_len, size_t value_off);
/* Replaces header line i of the block with a copy of line (its view is left as it was); false when out
 * of memory. */
bool lg_capture_set_line(lg_capture *c, size_t i, const char *line);
/* Fills a response view of the captured response. */
void lg_capture_view(const lg_capture *c, lg_response_view *v);

#endif
