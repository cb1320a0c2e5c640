/* Final delivery to the host (see curl_deliver.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hook/curl_deliver.h"
#include "llmgate/synth.h"

typedef struct {
    char **lines;
    size_t n;
} line_list;

/* Adds a formatted line to the list; false on allocation failure. */
static bool add_line(line_list *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool add_line(line_list *l, const char *fmt, ...)
{
    char **grown = realloc(l->lines, (l->n + 1) * sizeof *grown);
    if (!grown)
        return false;
    l->lines = grown;
    va_list ap;
    va_start(ap, fmt);
    int rc = vasprintf(&l->lines[l->n], fmt, ap);
    va_end(ap);
    if (rc < 0)
        return false;
    l->n++;
    return true;
}

static void free_lines(line_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->lines[i]);
    free(l->lines);
}

static const char *reason_phrase(int status)
{
    switch (status) {
    case 429: return "Too Many Requests";
    case 500: return "Internal Server Error";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    default: return "";
    }
}

static bool is_header(const char *line, const char *name)
{
    size_t n = strlen(name);
    return !strncasecmp(line, name, n) && line[n] == ':';
}

static long retry_after_s(int64_t ms) { return ms <= 0 ? 0 : (long)((ms + 999) / 1000); }

/* The captured header block, with the status line and wait headers rewritten when normalized. */
static bool normalized_lines(line_list *out, const lg_capture *cap, const lg_gate_result *res)
{
    for (size_t i = 0; i < cap->n_lines; i++) {
        const char *line = cap->lines[i];
        bool last = !strcmp(line, "\r\n") || !strcmp(line, "\n");
        if (res->normalized && last) {
            if ((res->retry_after_ms >= 0 && !add_line(out, "Retry-After: %ld\r\n", retry_after_s(res->retry_after_ms))) ||
                !add_line(out, "X-Llmgate-Reason: %s\r\n", lg_gate_reason(res)))
                return false;
        }
        if (res->normalized && i == 0 && cap->status != res->status) {
            const char *sp = strchr(line, ' ');
            int vlen = sp ? (int)(sp - line) : 8;
            if (!add_line(out, "%.*s %d %s\r\n", vlen, line, res->status, reason_phrase(res->status)))
                return false;
            continue;
        }
        if (res->normalized && (is_header(line, "retry-after") || is_header(line, "x-llmgate-reason")))
            continue;
        if (!add_line(out, "%s", line))
            return false;
    }
    return true;
}

/* The header block of a 429 llmgate answers itself. */
static bool refused_lines(line_list *out, const lg_gate_result *res, size_t body_len)
{
    return add_line(out, "HTTP/1.1 %d %s\r\n", res->status, reason_phrase(res->status)) &&
           add_line(out, "Content-Type: application/json\r\n") &&
           add_line(out, "Content-Length: %zu\r\n", body_len) &&
           add_line(out, "Retry-After: %ld\r\n", retry_after_s(res->retry_after_ms)) &&
           add_line(out, "X-Llmgate-Reason: %s\r\n", lg_gate_reason(res)) && add_line(out, "\r\n");
}

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

static void set_error(lg_curl_rec *r, const char *msg)
{
    if (r->errorbuffer)
        snprintf(r->errorbuffer, CURL_ERROR_SIZE, "%s", msg);
}

bool lg_curl_deliver_headers(lg_curl_rec *r, char *const *lines, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!deliver_header(r, lines[i])) {
            set_error(r, "Failed writing header");
            return false;
        }
    return true;
}

bool lg_curl_emit_body(void *rec, const char *p, size_t len)
{
    lg_curl_rec *r = rec;
    for (size_t off = 0; off < len;) {
        size_t n = len - off < CURL_MAX_WRITE_SIZE ? len - off : CURL_MAX_WRITE_SIZE;
        if (body_sink(r, (char *)p + off, n, r->writedata) != n) {
            set_error(r, "Failure writing output to destination");
            return false;
        }
        off += n;
    }
    return true;
}

static CURLcode deliver(lg_curl_rec *r, line_list *lines, char *body, size_t body_len, int status)
{
    if (!lg_curl_deliver_headers(r, lines->lines, lines->n))
        return CURLE_WRITE_ERROR;
    if (r->failonerror && status >= 400) {
        char msg[64];
        snprintf(msg, sizeof msg, "The requested URL returned error: %d", status);
        set_error(r, msg);
        return CURLE_HTTP_RETURNED_ERROR;
    }
    return lg_curl_emit_body(r, body, body_len) ? CURLE_OK : CURLE_WRITE_ERROR;
}

CURLcode lg_curl_deliver(lg_curl_rec *r, lg_capture *cap, const lg_gate_result *res)
{
    line_list lines = {0};
    char *synth = NULL;
    char *body = cap->body;
    size_t body_len = cap->body_len;
    bool ok;
    if (res->verdict == LG_GATE_REFUSED) {
        synth = lg_synth_error_body(r->prov->dialect, res->status, &res->outcome, res->retry_after_ms);
        body = synth ? synth : "";
        body_len = strlen(body);
        ok = refused_lines(&lines, res, body_len);
        lg_rec_set_str(&r->info_content_type, "application/json");
    } else if (res->normalized) {
        ok = normalized_lines(&lines, cap, res);
    } else {
        lines.lines = cap->lines; /* delivered as captured: no copy */
        lines.n = cap->n_lines;
        ok = true;
    }
    r->info_override = true;
    r->info_status = res->status;
    r->info_retry_after_s = res->normalized ? retry_after_s(res->retry_after_ms) : -1;
    CURLcode rc = ok ? deliver(r, &lines, body, body_len, res->status) : CURLE_OUT_OF_MEMORY;
    if (lines.lines != cap->lines)
        free_lines(&lines);
    free(synth);
    return rc;
}
