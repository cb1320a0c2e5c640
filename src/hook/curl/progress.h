/* The host's progress callback (CURLOPT_XFERINFOFUNCTION, or the older CURLOPT_PROGRESSFUNCTION, with
 * CURLOPT_NOPROGRESS 0): libcurl calls it about once a second while a transfer runs, and a host gives a
 * transfer up through it (PHP's connection_aborted() checks, a cancel button). While llmgate holds a provider
 * transfer between attempts (a backoff, the limiter) libcurl runs nothing of it: llmgate asks the callback
 * itself (lg_gate_request.withdrawn, the multi front end's timers). */
#ifndef LLMGATE_HOOK_CURL_PROGRESS_H
#define LLMGATE_HOOK_CURL_PROGRESS_H

#include <stdbool.h>

#include "hook/curl/records.h"

/* True when libcurl would call a progress callback of the host's for r's handle. */
static inline bool lg_curl_progress_watched(const lg_curl_rec *r)
{
    return !r->noprogress && (r->xferinfofn || r->progressfn);
}

/* Calls the host's progress callback of rec (an lg_curl_rec whose progress is watched) as libcurl does while
 * a request waits for its answer: nothing downloaded, the request body (when its size is known) uploaded.
 * True when it asks to abort (non-zero, other than CURL_PROGRESSFUNC_CONTINUE). An lg_gate_request.withdrawn. */
bool lg_curl_progress_aborts(void *rec);

#endif
