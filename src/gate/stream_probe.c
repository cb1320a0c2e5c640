/* The decision at the start of an event stream (see stream_probe.h). */
#include <string.h>

#include "llmgate/boundary.h"
#include "llmgate/classify.h"
#include "llmgate/stream_probe.h"

/* True when the event [p, end) has a data line with something in it other than a ping. */
static bool event_has_content(const char *p, const char *end)
{
    bool data = false, ping = false;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *eol = nl ? nl : end;
        size_t n = (size_t)(eol - p);
        if (n > 0 && p[n - 1] == '\r')
            n--;
        if (n >= 5 && !memcmp(p, "data:", 5)) {
            const char *v = p + 5;
            size_t vn = n - 5;
            while (vn > 0 && *v == ' ')
                v++, vn--;
            data |= vn > 0;
            ping |= vn >= 15 && memmem(v, vn, "\"type\":\"ping\"", 13) != NULL;
            ping |= memmem(v, vn, "\"type\": \"ping\"", 14) != NULL;
        } else if (n >= 6 && !memcmp(p, "event:", 6)) {
            const char *v = p + 6;
            size_t vn = n - 6;
            while (vn > 0 && *v == ' ')
                v++, vn--;
            ping |= vn == 4 && !memcmp(v, "ping", 4);
        }
        p = nl ? nl + 1 : end;
    }
    return data && !ping;
}

/* True when some complete event in body[0..len) has content. */
static bool any_content(const char *body, size_t len)
{
    const char *p = body, *end = body + len;
    while (p < end) {
        size_t rest = (size_t)(end - p);
        size_t ev = 0;
        for (size_t i = 1; i < rest; i++)
            if (p[i] == '\n' && (p[i - 1] == '\n' || (i >= 2 && p[i - 1] == '\r' && p[i - 2] == '\n'))) {
                ev = i + 1;
                break;
            }
        if (ev == 0)
            ev = rest;
        if (event_has_content(p, p + ev))
            return true;
        p += ev;
    }
    return false;
}

lg_probe lg_stream_probe(lg_dialect d, const lg_response_view *r)
{
    size_t complete = lg_sse_complete_prefix(r->body, r->body_len);
    if (complete == 0)
        return LG_PROBE_MORE;
    lg_response_view prefix = *r;
    prefix.body_len = complete;
    prefix.stream = true;
    lg_outcome o;
    lg_classify(d, &prefix, &o);
    if (o.state != LG_STATE_SUCCESS)
        return LG_PROBE_ERROR;
    return any_content(r->body, complete) ? LG_PROBE_COMMIT : LG_PROBE_MORE;
}
