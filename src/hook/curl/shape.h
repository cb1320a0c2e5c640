/* The shaping of a gated libcurl transfer's handle (shape.c), private to the transfer (xfer.c):
 * our capture trampolines installed, an attempt's URL, header list with its key and body set, the host's
 * read callbacks swapped for our reader of a held body and back, and the host's own options restored.
 * What the handle already holds as an attempt needs it is not set again (lg_curl_xfer's set_* and hdrs_*
 * fields). */
#ifndef LLMGATE_HOOK_CURL_SHAPE_H
#define LLMGATE_HOOK_CURL_SHAPE_H

#include <stdbool.h>

#include "hook/curl/xfer.h"

/* Installs the URL, header list and body of attempt at (its provider, key, body, translation) on x's
 * handle; what is already on the handle as the attempt needs it is left as it is. False when out of memory
 * or when the attempt cannot go (a translated attempt without a key of its own): nothing is set on
 * the handle then. */
bool lg_shape_request(lg_curl_xfer *x, const lg_attempt *at);

/* Sets url on x's handle unless it is what we set last (libcurl copies it: only our copy is kept, to
 * compare; base_url set last is known without comparing). */
void lg_shape_put_url(lg_curl_xfer *x, const char *url);

/* Sets list (ours, or the host's when list is NULL and own is false) as the handle's header list; our
 * previous list is freed once off the handle. */
void lg_shape_put_headers(lg_curl_xfer *x, struct curl_slist *list, bool own);

/* Installs our trampolines (write, header, send count, verbose output) on x's handle; what we set of the
 * request before is forgotten (set again by the next attempt). */
void lg_shape_install_capture(lg_curl_xfer *x);

/* Our reader (and seek callback) of x's held body on its handle, in place of the host's. */
void lg_shape_put_reader(lg_curl_xfer *x);

/* The host's own read and seek callbacks and body size on handle h, in place of our reader of a held body. */
void lg_shape_put_host_reader(const lg_curl_real *real, CURL *h, const lg_curl_rec *r);

/* The host's own options back on x's handle, in place of everything we shaped; our URL and header list
 * freed. */
void lg_shape_restore_host(lg_curl_xfer *x);

#endif
