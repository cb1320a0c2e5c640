/* What one attempt received, captured by our write and header trampolines instead of the host's. */
#ifndef LLMGATE_HOOK_CURL_CAPTURE_H
#define LLMGATE_HOOK_CURL_CAPTURE_H

#include <stddef.h>

#include "llmgate/http.h"

typedef struct {
    char *body;
    size_t body_len, body_cap;
    char **lines;       /* raw header lines of the last header block, each with its CRLF */
    size_t n_lines, cap_lines;
    lg_header *hdrs;    /* parsed view of lines (name/value copies in names) */
    size_t n_hdrs, cap_hdrs;
    char *names;        /* the view's names and values, NUL-terminated, one after the other */
    size_t cap_names;
    int status;         /* from the block's status line */
    int oom;            /* an allocation failed: the capture is incomplete */
} lg_capture;

/* Empties the capture for a new attempt (keeps buffers: an attempt after the first allocates nothing for
 * its view). */
void lg_capture_reset(lg_capture *c);
void lg_capture_free(lg_capture *c);
/* libcurl write callback: appends to the body. userdata is the lg_capture. */
size_t lg_capture_write(char *ptr, size_t size, size_t nmemb, void *userdata);
/* libcurl header callback: keeps the lines of the last block (a status line starts a new block). */
size_t lg_capture_header(char *ptr, size_t size, size_t nmemb, void *userdata);
/* Fills a response view of the captured response (parses the headers). */
void lg_capture_view(lg_capture *c, lg_response_view *v);

#endif
