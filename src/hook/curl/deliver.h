/* Hands the final response to the host exactly as libcurl would have: header lines to the header callback
 * (or the write function with HEADERDATA), headers into the body with CURLOPT_HEADER, the body to the
 * write callback (or fwrite to WRITEDATA/stdout) in chunks of at most CURL_MAX_WRITE_SIZE, and
 * CURLOPT_FAILONERROR's CURLE_HTTP_RETURNED_ERROR with its error-buffer text. */
#ifndef LLMGATE_HOOK_CURL_DELIVER_H
#define LLMGATE_HOOK_CURL_DELIVER_H

#include "front/capture.h"
#include "hook/curl/records.h"
#include "llmgate/gate.h"

/* Delivers the response the gate settled on (the captured one, normalized when res says so, or a
 * synthesized 429 when it refused). Also sets the record's getinfo overrides (status, the header and body
 * bytes handed over) and, unless res is the last attempt's transport error, clears the error buffer text of
 * an attempt llmgate ended itself. Returns the CURLcode the host's curl_easy_perform must return. A request
 * the host gave up while llmgate waited (LG_GATE_WITHDRAWN) gets nothing but libcurl's own answer to an abort
 * from its progress callback: CURLE_ABORTED_BY_CALLBACK, "Callback aborted", no response (code 0). */
CURLcode lg_curl_deliver(lg_curl_rec *r, lg_capture *cap, const lg_gate_result *res);

/* True when the host takes the header lines (CURLOPT_HEADER, a header function or header data). */
static inline bool lg_curl_takes_headers(const lg_curl_rec *r) { return r->header_opt || r->headerfn || r->headerdata; }

/* Header lines to where libcurl sends them (callback, HEADERDATA, body with CURLOPT_HEADER); false when
 * the host refused one. */
bool lg_curl_deliver_headers(lg_curl_rec *r, char *const *lines, size_t n);
/* Body bytes to the host's write callback (or fwrite), in chunks of at most CURL_MAX_WRITE_SIZE; rec is
 * the lg_curl_rec (an lg_emit_fn). False when the host refused them. */
bool lg_curl_emit_body(void *rec, const char *p, size_t len);
/* In a multi, a final answer whose delivery the host's write callback paused keeps its rest in r->rest
 * (lg_curl_deliver returned CURLE_OK with it set), and so does a stream it paused (lg_relay_write). Delivers that rest once the host unpaused: CURLE_AGAIN
 * while it is paused (still, or again: r->rest kept), CURLE_OK when all of it went, CURLE_WRITE_ERROR
 * when the host refused it. */
CURLcode lg_curl_emit_rest(lg_curl_rec *r);
/* Forgets a kept rest (the transfer removed, reset or cleaned up, or given up), unpaused. */
void lg_curl_drop_rest(lg_curl_rec *r);

#endif
