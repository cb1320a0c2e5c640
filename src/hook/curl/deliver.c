/* Final delivery to the host (see deliver.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hook/curl/deliver.h"
#include "hook/curl/progress.h"
#include "llmgate/clock.h"
#include "front/resp_lines.h"
#include "llmgate/synth.h"

/* The write function libcurl would use for the body. */
static size_t body_sink(lg_curl_rec *r, char *p, size_t len, void *data)
{
    if (r->writefn)
        return r->writefn(p, 1, len, data);
    return fwrite(p, 1, len, data ? (FILE *)data : stdout);
}

/* One header line to the places libcurl sends it; false when a callback refused it. */
static bool deliver_header(lg_curl_rec *r, char *line)
{
    size_t len = strlen(line);
    if (r->header_opt && body_sink(r, line, len, r->writedata) != len)
        return false;
    if (r->headerfn)
        return r->headerfn(line, 1, len, r->headerdata) == len;
    if (r->headerdata)
        return body_sink(r, line, len, r->headerdata) == len;
    return true;
}

/* Puts msg in the host's error buffer, if it set one (cold: a callback refused what we delivered). */
__attribute__((cold)) static void set_error(lg_curl_rec *r, const char *msg)
{
    if (r->errorbuffer)
        snprintf(r->errorbuffer, CURL_ERROR_SIZE, "%s", msg);
}

bool lg_curl_deliver_headers(lg_curl_rec *r, char *const *lines, size_t n)
{
    if (!lg_curl_takes_headers(r))
        return true; /* nobody takes the headers */
    for (size_t i = 0; i < n; i++)
        if (!deliver_header(r, lines[i])) {
            set_error(r, "Failed writing header");
            return false;
        }
    return true;
}

#define PAUSE_SLICE_MS 50 /* how often a paused delivery looks for its unpause (and asks the progress callback) */

/* Waits until the host unpauses r's delivery (curl_easy_pause from its progress callback, asked here as
 * libcurl asks it while a transfer is paused, or from another thread); false when the callback aborts. Only
 * in curl_easy_perform: in a multi the host's loop, which would unpause, is ours to return to (emit keeps
 * the rest there) (cold). */
__attribute__((cold)) static bool wait_unpaused(lg_curl_rec *r)
{
    if (r->multi_xfer)
        return false;
    __atomic_store_n(&r->delivery_paused, true, __ATOMIC_RELEASE);
    while (__atomic_load_n(&r->delivery_paused, __ATOMIC_ACQUIRE)) {
        if (lg_curl_progress_watched(r) && lg_curl_progress_aborts(r)) {
            __atomic_store_n(&r->delivery_paused, false, __ATOMIC_RELEASE);
            return false;
        }
        if (__atomic_load_n(&r->delivery_paused, __ATOMIC_ACQUIRE))
            lg_sleep_ms(PAUSE_SLICE_MS);
    }
    return true;
}

/* Keeps the len bytes at p the host's write callback paused in a multi, after what r->rest already holds,
 * for lg_curl_emit_rest once it unpauses; false without memory (cold). */
__attribute__((cold)) static bool keep_rest(lg_curl_rec *r, const char *p, size_t len)
{
    char *copy = realloc(r->rest, r->rest_len + len);
    if (!copy)
        return false;
    memcpy(copy + r->rest_len, p, len);
    r->rest = copy;
    r->rest_len += len;
    __atomic_store_n(&r->delivery_paused, true, __ATOMIC_RELEASE);
    return true;
}

/* Body bytes to the host (lg_curl_emit_body); a pause waits in curl_easy_perform, and in a multi keeps the
 * rest for later (the final answer, or a stream's bytes: lg_relay_write then pauses libcurl's transfer), as
 * it keeps whatever follows while a rest is kept. */
static bool emit(lg_curl_rec *r, const char *p, size_t len)
{
    if (LG_UNLIKELY(r->rest))
        return keep_rest(r, p, len);
    for (size_t off = 0; off < len;) {
        size_t n = len - off < CURL_MAX_WRITE_SIZE ? len - off : CURL_MAX_WRITE_SIZE;
        size_t w = body_sink(r, (char *)p + off, n, r->writedata);
        if (LG_UNLIKELY(w == CURL_WRITEFUNC_PAUSE) && wait_unpaused(r))
            continue; /* the same bytes again, as libcurl delivers them after a pause */
        if (LG_UNLIKELY(w == CURL_WRITEFUNC_PAUSE) && r->multi_xfer && keep_rest(r, p + off, len - off))
            return true; /* the host's loop goes on; the same bytes again once it unpauses */
        if (w != n) {
            set_error(r, "Failure writing output to destination");
            return false;
        }
        off += n;
    }
    return true;
}

bool lg_curl_emit_body(void *rec, const char *p, size_t len) { return emit(rec, p, len); }

CURLcode lg_curl_emit_rest(lg_curl_rec *r)
{
    if (__atomic_load_n(&r->delivery_paused, __ATOMIC_ACQUIRE))
        return CURLE_AGAIN;
    char *rest = r->rest;
    size_t len = r->rest_len;
    r->rest = NULL;
    r->rest_len = 0;
    bool ok = emit(r, rest, len);
    free(rest);
    return !ok ? CURLE_WRITE_ERROR : r->rest ? CURLE_AGAIN : CURLE_OK;
}

void lg_curl_drop_rest(lg_curl_rec *r)
{
    free(r->rest);
    r->rest = NULL;
    r->rest_len = 0;
    r->stream_skip = 0;
    __atomic_store_n(&r->delivery_paused, false, __ATOMIC_RELEASE);
}

/* The bytes of a header block (lines with their CRLF). */
static long block_size(const lg_lines *lines)
{
    size_t n = 0;
    for (size_t i = 0; i < lines->n; i++)
        n += strlen(lines->lines[i]);
    return (long)n;
}

static CURLcode deliver(lg_curl_rec *r, lg_lines *lines, char *body, size_t body_len, int status)
{
    r->info_header_size = lines->n ? block_size(lines) : -1;
    r->info_body_len = 0;
    if (!lg_curl_deliver_headers(r, lines->lines, lines->n))
        return CURLE_WRITE_ERROR;
    if (r->failonerror && status >= 400) {
        char msg[64];
        snprintf(msg, sizeof msg, "The requested URL returned error: %d", status);
        set_error(r, msg);
        return CURLE_HTTP_RETURNED_ERROR;
    }
    r->info_body_len = (curl_off_t)body_len;
    return emit(r, body, body_len) ? CURLE_OK : CURLE_WRITE_ERROR;
}

/* The getinfo answers of what lg_curl_deliver hands over (sizes are set by deliver). An answer llmgate
 * gives (anything but the last attempt's own transport error) also clears the error buffer text of
 * attempts llmgate ended itself (a stream stopped on an error reads "Failure writing output ..."). */
static void set_info(lg_curl_rec *r, const lg_gate_result *res, bool synthesized, size_t synth_len)
{
    r->info_override = true;
    r->info_synth = synthesized;
    r->info_none = false;
    r->info_unsent = res->attempts == 0;
    r->info_status = res->status;
    r->info_retry_after_s = res->normalized ? lg_retry_after_s(res->retry_after_ms) : -1;
    r->info_content_length = (curl_off_t)synth_len;
    if (res->verdict != LG_GATE_TRANSPORT && r->errorbuffer)
        r->errorbuffer[0] = '\0';
}

/* A request the host gave up while llmgate waited: nothing delivered, getinfo tells of no response (cold). */
__attribute__((cold)) static CURLcode withdrawn(lg_curl_rec *r, const lg_gate_result *res)
{
    set_info(r, res, false, 0);
    r->info_none = true;
    r->info_header_size = 0;
    r->info_body_len = 0;
    set_error(r, "Callback aborted");
    return CURLE_ABORTED_BY_CALLBACK;
}

CURLcode lg_curl_deliver(lg_curl_rec *r, lg_capture *cap, const lg_gate_result *res)
{
    if (LG_UNLIKELY(res->verdict == LG_GATE_WITHDRAWN))
        return withdrawn(r, res);
    lg_lines lines = {0};
    char *synth = NULL;
    char *body = cap->body;
    size_t body_len = cap->body_len;
    bool ok;
    bool synthesized = lg_lines_synthesized(res, lg_capture_is_stream(cap));
    if (synthesized) {
        synth = lg_synth_error_body(r->prov->dialect, res->status, &res->outcome, res->retry_after_ms);
        body = synth ? synth : "";
        body_len = strlen(body);
        ok = lg_lines_refused(&lines, res, body_len);
    } else if (res->normalized) {
        ok = lg_lines_normalized(&lines, cap->lines, cap->n_lines, cap->status, res);
    } else {
        lines.lines = cap->lines; /* delivered as captured: no copy */
        lines.n = cap->n_lines;
        ok = true;
    }
    set_info(r, res, synthesized, body_len);
    CURLcode rc = ok ? deliver(r, &lines, body, body_len, res->status) : CURLE_OUT_OF_MEMORY;
    if (lines.lines != cap->lines)
        lg_lines_free(&lines);
    free(synth);
    return rc;
}
