/* Header blocks of final responses (see resp_lines.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "front/resp_lines.h"

bool lg_lines_add(lg_lines *l, const char *fmt, ...)
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

void lg_lines_free(lg_lines *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->lines[i]);
    free(l->lines);
    l->lines = NULL;
    l->n = 0;
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

long lg_retry_after_s(int64_t ms) { return ms <= 0 ? 0 : (long)((ms + 999) / 1000); }

bool lg_lines_normalized(lg_lines *out, char *const *lines, size_t n, int status, const lg_gate_result *res)
{
    for (size_t i = 0; i < n; i++) {
        const char *line = lines[i];
        bool last = !strcmp(line, "\r\n") || !strcmp(line, "\n");
        if (res->normalized && last) {
            if ((res->retry_after_ms >= 0 &&
                 !lg_lines_add(out, "Retry-After: %ld\r\n", lg_retry_after_s(res->retry_after_ms))) ||
                !lg_lines_add(out, "X-Llmgate-Reason: %s\r\n", lg_gate_reason(res)))
                return false;
        }
        if (res->normalized && i == 0 && status != res->status) {
            const char *sp = strchr(line, ' ');
            int vlen = sp ? (int)(sp - line) : 8;
            if (!lg_lines_add(out, "%.*s %d %s\r\n", vlen, line, res->status, reason_phrase(res->status)))
                return false;
            continue;
        }
        if (res->normalized && (is_header(line, "retry-after") || is_header(line, "x-llmgate-reason")))
            continue;
        if (!lg_lines_add(out, "%s", line))
            return false;
    }
    return true;
}

bool lg_lines_synthesized(const lg_gate_result *res, bool event_stream)
{
    return res->verdict == LG_GATE_REFUSED || (res->normalized && event_stream);
}

bool lg_lines_refused(lg_lines *out, const lg_gate_result *res, size_t body_len)
{
    return lg_lines_add(out, "HTTP/1.1 %d %s\r\n", res->status, reason_phrase(res->status)) &&
           lg_lines_add(out, "Content-Type: application/json\r\n") &&
           lg_lines_add(out, "Content-Length: %zu\r\n", body_len) &&
           (res->retry_after_ms < 0 || /* a refusal for good: nothing to wait for */
            lg_lines_add(out, "Retry-After: %ld\r\n", lg_retry_after_s(res->retry_after_ms))) &&
           lg_lines_add(out, "X-Llmgate-Reason: %s\r\n", lg_gate_reason(res)) &&
           (!res->why || strcmp(res->why, "budget") || /* the official SDKs do not retry it */
            lg_lines_add(out, "x-should-retry: false\r\n")) &&
           lg_lines_add(out, "\r\n");
}
