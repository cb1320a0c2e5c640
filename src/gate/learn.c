/* The provider's own rate-limit headers (see limiter.h): limits, what remains, and when room comes back. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llmgate/duration.h"
#include "llmgate/limiter.h"

/* A non-negative integer header value, or -1. */
static int64_t count_of(const lg_header *h, size_t n, const char *name)
{
    const char *v = lg_header_get(h, n, name);
    if (!v || *v < '0' || *v > '9')
        return -1;
    char *end;
    long long x = strtoll(v, &end, 10);
    while (*end == ' ')
        end++;
    return *end == '\0' && x >= 0 ? (int64_t)x : -1;
}

/* A reset value relative to now: a Go duration ("6m0s", "1.5s", "20ms"), plain seconds, or an RFC 3339
 * time; -1 when absent or malformed. */
static int64_t reset_of(const lg_header *h, size_t n, const char *name, int64_t now_ms)
{
    const char *v = lg_header_get(h, n, name);
    if (!v)
        return -1;
    size_t len = strlen(v);
    int64_t ms;
    if (lg_parse_go_duration(v, len, &ms) || lg_parse_delta_seconds(v, len, &ms))
        return ms;
    if (lg_parse_rfc3339(v, len, &ms))
        return ms > now_ms ? ms - now_ms : 0;
    return -1;
}

/* One dimension from the headers named by fmt ("x-ratelimit-%s-requests" style with %s = limit,
 * remaining, reset). True when any of the three was present. */
static bool read_dim(const lg_header *h, size_t n, const char *fmt, int64_t now_ms, int64_t *limit,
                     int64_t *remaining, int64_t *reset)
{
    char name[96];
    snprintf(name, sizeof name, fmt, "limit");
    *limit = count_of(h, n, name);
    snprintf(name, sizeof name, fmt, "remaining");
    *remaining = count_of(h, n, name);
    snprintf(name, sizeof name, fmt, "reset");
    *reset = reset_of(h, n, name, now_ms);
    return *limit >= 0 || *remaining >= 0 || *reset >= 0;
}

/* Anthropic's tokens: the combined "tokens" family, else input + output summed (a figure is known only
 * when both halves are), the reset being the later of the two. */
static bool anthropic_tokens(const lg_header *h, size_t n, int64_t now_ms, int64_t *l, int64_t *r, int64_t *t)
{
    if (read_dim(h, n, "anthropic-ratelimit-tokens-%s", now_ms, l, r, t))
        return true;
    int64_t li, ri, ti, lo, ro, to;
    bool in = read_dim(h, n, "anthropic-ratelimit-input-tokens-%s", now_ms, &li, &ri, &ti);
    bool out = read_dim(h, n, "anthropic-ratelimit-output-tokens-%s", now_ms, &lo, &ro, &to);
    if (in && out) {
        *l = li >= 0 && lo >= 0 ? li + lo : -1;
        *r = ri >= 0 && ro >= 0 ? ri + ro : -1;
        *t = ti > to ? ti : to;
    } else if (in) {
        *l = li, *r = ri, *t = ti;
    } else if (out) {
        *l = lo, *r = ro, *t = to;
    }
    return in || out;
}

/* True when s starts with prefix (lower-case ASCII) in any case: a plain loop, which stops at the first
 * letter that differs (where most header names do) without strncasecmp's set-up. */
static bool starts_with_ci(const char *s, const char *prefix)
{
    for (; *prefix; s++, prefix++)
        if ((*s >= 'A' && *s <= 'Z' ? *s + ('a' - 'A') : *s) != *prefix)
            return false;
    return true;
}

/* True when some header name starts with "x-ratelimit-" or "anthropic-ratelimit-" (any case): most
 * responses carry none, and one pass over the names tells, each compared with the prefix its first letter
 * may begin. */
static bool any_ratelimit_header(const lg_header *h, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const char *s = h[i].name;
        char first = s ? (char)(*s | 0x20) : '\0'; /* x or a for X, x, A and a only */
        const char *prefix = first == 'x' ? "x-ratelimit-" : first == 'a' ? "anthropic-ratelimit-" : NULL;
        if (prefix && starts_with_ci(s + 1, prefix + 1))
            return true;
    }
    return false;
}

bool lg_ratelimit_parse(const lg_header *h, size_t n, int64_t now_ms, lg_ratelimit_info *out)
{
    for (int d = 0; d < 2; d++)
        out->limit[d] = out->remaining[d] = out->reset_ms[d] = -1;
    out->exact = false;
    if (!any_ratelimit_header(h, n))
        return false;
    bool any = false;
    static const char *const openai[2] = {"x-ratelimit-%s-requests", "x-ratelimit-%s-tokens"};
    for (int d = 0; d < 2; d++)
        any |= read_dim(h, n, openai[d], now_ms, &out->limit[d], &out->remaining[d], &out->reset_ms[d]);
    if (any)
        return out->exact = true;
    any = read_dim(h, n, "anthropic-ratelimit-requests-%s", now_ms, &out->limit[0], &out->remaining[0],
                   &out->reset_ms[0]);
    any |= anthropic_tokens(h, n, now_ms, &out->limit[1], &out->remaining[1], &out->reset_ms[1]);
    return any;
}

int64_t lg_window_learn_charge(lg_window *w, const lg_ratelimit_info *info, int64_t now_ms)
{
    const int64_t *r = info->remaining, *l = info->limit, *t = info->reset_ms;
    if (!info->exact || r[0] < 0 || r[1] < 0) {
        w->seen_until_ms = 0;
        return -1;
    }
    int64_t charge = -1;
    if (w->seen_until_ms > now_ms && w->seen_remaining[0] == r[0] + 1 && w->seen_remaining[1] >= r[1])
        charge = w->seen_remaining[1] - r[1]; /* one admission since the previous response: this one */
    else if (l[0] > 0 && l[1] > 0 && r[0] == l[0] - 1 && r[1] <= l[1])
        charge = l[1] - r[1]; /* this request is the only one in the provider's window */
    int64_t due = t[0] > 0 && t[1] > 0 ? (t[0] < t[1] ? t[0] : t[1]) : 0;
    int64_t margin = lg_window_margin_ms(w->window_ms > 0 ? w->window_ms : 60000);
    w->seen_remaining[0] = r[0];
    w->seen_remaining[1] = r[1];
    w->seen_until_ms = due > margin ? now_ms + due - margin : 0;
    return charge;
}
