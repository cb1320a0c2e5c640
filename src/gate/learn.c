/* The provider's own rate-limit headers (see limiter.h): limits, what remains, and when room comes back. */
#include <stdlib.h>
#include <string.h>

#include "llmgate/duration.h"
#include "llmgate/limiter.h"

/* The header families read: index [family][kind]. */
enum { OPENAI_REQUESTS, OPENAI_TOKENS, ANTHROPIC_REQUESTS, ANTHROPIC_TOKENS, ANTHROPIC_INPUT, ANTHROPIC_OUTPUT,
       FAMILIES };
enum { LIMIT, REMAINING, RESET, KINDS };
typedef const char *rl_values[FAMILIES][KINDS]; /* each header's value (the first of its name), or NULL */

/* A non-negative integer header value (v may be NULL: absent), or -1. */
static int64_t count_of(const char *v)
{
    if (!v || *v < '0' || *v > '9')
        return -1;
    char *end;
    long long x = strtoll(v, &end, 10);
    while (*end == ' ')
        end++;
    return *end == '\0' && x >= 0 ? (int64_t)x : -1;
}

/* A reset value relative to now: a Go duration ("6m0s", "1.5s", "20ms"), plain seconds, or an RFC 3339
 * time; -1 when absent (NULL) or malformed. */
static int64_t reset_of(const char *v, int64_t now_ms)
{
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

/* One family's limit, remaining count and reset. True when any of the three was present. */
static bool read_dim(const char *const v[KINDS], int64_t now_ms, int64_t *limit, int64_t *remaining,
                     int64_t *reset)
{
    *limit = count_of(v[LIMIT]);
    *remaining = count_of(v[REMAINING]);
    *reset = reset_of(v[RESET], now_ms);
    return *limit >= 0 || *remaining >= 0 || *reset >= 0;
}

/* a + b for two counts (-1: unknown): unknown when either is, INT64_MAX when the sum would not fit (a
 * header may say 9223372036854775807). */
static int64_t count_sum(int64_t a, int64_t b)
{
    if (a < 0 || b < 0)
        return -1;
    return a > INT64_MAX - b ? INT64_MAX : a + b;
}

/* Anthropic's tokens: the combined "tokens" family, else input + output summed (a figure is known only
 * when both halves are), the reset being the later of the two. */
static bool anthropic_tokens(rl_values v, int64_t now_ms, int64_t *l, int64_t *r, int64_t *t)
{
    if (read_dim(v[ANTHROPIC_TOKENS], now_ms, l, r, t))
        return true;
    int64_t li, ri, ti, lo, ro, to;
    bool in = read_dim(v[ANTHROPIC_INPUT], now_ms, &li, &ri, &ti);
    bool out = read_dim(v[ANTHROPIC_OUTPUT], now_ms, &lo, &ro, &to);
    if (in && out) {
        *l = count_sum(li, lo);
        *r = count_sum(ri, ro);
        *t = ti > to ? ti : to;
    } else if (in) {
        *l = li, *r = ri, *t = ti;
    } else if (out) {
        *l = lo, *r = ro, *t = to;
    }
    return in || out;
}

/* s past word (lower-case ASCII) when s starts with it in any case, else NULL: a plain loop, which stops at
 * the first letter that differs (where most header names do) without strncasecmp's set-up. */
static const char *past(const char *s, const char *word)
{
    for (; *word; s++, word++)
        if ((*s >= 'A' && *s <= 'Z' ? *s + ('a' - 'A') : *s) != *word)
            return NULL;
    return s;
}

/* The kind ("limit", "remaining", "reset") that s is, up to its end; -1 when none. */
static int kind_of(const char *s)
{
    static const char *const words[KINDS] = {"limit", "remaining", "reset"};
    for (int k = 0; k < KINDS; k++) {
        const char *e = past(s, words[k]);
        if (e && !*e)
            return k;
    }
    return -1;
}

/* Where the header called name (any case) goes in v: *family and *kind; false when it is not one read. */
static bool slot_of(const char *name, int *family, int *kind)
{
    char first = (char)(*name | 0x20); /* x or a for X, x, A and a only */
    const char *s;
    if (first == 'x' && (s = past(name + 1, "-ratelimit-"))) { /* x-ratelimit-KIND-{requests,tokens} */
        static const char *const kinds[KINDS] = {"limit-", "remaining-", "reset-"};
        for (int k = 0; k < KINDS; k++) {
            const char *d = past(s, kinds[k]), *e;
            if (!d)
                continue;
            if ((e = past(d, "requests")) && !*e)
                return *family = OPENAI_REQUESTS, *kind = k, true;
            if ((e = past(d, "tokens")) && !*e)
                return *family = OPENAI_TOKENS, *kind = k, true;
            return false;
        }
        return false;
    }
    if (first == 'a' && (s = past(name + 1, "nthropic-ratelimit-"))) { /* ...-{requests,tokens,...}-KIND */
        static const char *const dims[] = {"requests-", "tokens-", "input-tokens-", "output-tokens-"};
        for (int f = 0; f < 4; f++) {
            const char *d = past(s, dims[f]);
            if (d && (*kind = kind_of(d)) >= 0)
                return *family = ANTHROPIC_REQUESTS + f, true;
        }
    }
    return false;
}

bool lg_ratelimit_parse(const lg_header *h, size_t n, int64_t now_ms, lg_ratelimit_info *out)
{
    for (int d = 0; d < 2; d++)
        out->limit[d] = out->remaining[d] = out->reset_ms[d] = -1;
    out->exact = false;
    /* One pass over the names, each compared with the prefix its first letter may begin (most responses
     * carry none of these headers), the first of each name kept. */
    rl_values v;
    bool seen = false;
    for (size_t i = 0; h && i < n; i++) {
        int f, k;
        if (h[i].name && slot_of(h[i].name, &f, &k)) {
            if (!seen)
                memset(v, 0, sizeof v);
            seen = true;
            if (!v[f][k])
                v[f][k] = h[i].value ? h[i].value : "";
        }
    }
    if (!seen)
        return false;
    bool any = false;
    for (int d = 0; d < 2; d++)
        any |= read_dim(v[OPENAI_REQUESTS + d], now_ms, &out->limit[d], &out->remaining[d], &out->reset_ms[d]);
    if (any)
        return out->exact = true;
    any = read_dim(v[ANTHROPIC_REQUESTS], now_ms, &out->limit[0], &out->remaining[0], &out->reset_ms[0]);
    any |= anthropic_tokens(v, now_ms, &out->limit[1], &out->remaining[1], &out->reset_ms[1]);
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
