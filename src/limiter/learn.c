/* The provider's own rate-limit headers (see limiter.h): limits, what remains, and when room comes back. Names
 * and values are read by the one reading of rate-limit headers (src/classify/rl_header.c), which the classifier
 * shares. */
#include <string.h>

#include "classify/rl_header.h"
#include "llmgate/limiter.h"

/* The header values read: index [family][kind], the family an lg_rlh_exact (its name: rl_header.h). */
enum { LIMIT, REMAINING, RESET, KINDS };
typedef const char *rl_values[LG_RLH_EXACT_END][KINDS]; /* each header's value (the first of its name), or NULL */

/* A count (v may be NULL: absent) as the limiter takes it (see rl_header.c): non-negative and starting with a
 * digit, else -1. */
static int64_t count_of(const char *v)
{
    int64_t x;
    return v && *v >= '0' && *v <= '9' && lg_rlh_count(v, &x) && x >= 0 ? x : -1;
}

/* A reset value relative to now: a Go duration ("6m0s", "1.5s", "20ms"), plain seconds (a Unix time in
 * seconds or ms made relative), or an RFC 3339 time; -1 when absent (NULL), malformed or an HTTP date. */
static int64_t reset_of(const char *v, int64_t now_ms)
{
    int64_t x;
    switch (v ? lg_rlh_reset(v, &x) : LG_RLH_BAD) {
    case LG_RLH_SECONDS: /* Unix seconds (10^12 ms and more) or ms (10^15), as the classifier reads them */
        if (x >= 1000000000000LL) {
            int64_t at = x >= 1000000000000000LL ? x / 1000 : x;
            return at > now_ms ? at - now_ms : 0;
        }
        return x;
    case LG_RLH_DURATION:
        return x;
    case LG_RLH_RFC3339:
        return x > now_ms ? x - now_ms : 0;
    default:
        return -1;
    }
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
    if (read_dim(v[LG_RLH_ANTHROPIC_TOKENS], now_ms, l, r, t))
        return true;
    int64_t li, ri, ti, lo, ro, to;
    bool in = read_dim(v[LG_RLH_ANTHROPIC_INPUT], now_ms, &li, &ri, &ti);
    bool out = read_dim(v[LG_RLH_ANTHROPIC_OUTPUT], now_ms, &lo, &ro, &to);
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

bool lg_ratelimit_parse(const lg_header *h, size_t n, int64_t now_ms, lg_ratelimit_info *out)
{
    for (int d = 0; d < 2; d++)
        out->limit[d] = out->remaining[d] = out->reset_ms[d] = -1;
    out->exact = false;
    /* One pass over the names, each recognised by the one reading of rate-limit names, which rejects all but
     * the exact families by their first letters (most responses carry none of these headers); the first of
     * each name kept. */
    rl_values v;
    bool seen = false;
    for (size_t i = 0; h && i < n; i++) {
        const char *name = h[i].name;
        if (!name || !lg_rlh_may_be_exact(name))
            continue;
        /* OpenAI's six names (what every OpenAI answer carries) by lg_rlh_openai_slot, inline; the rest as
         * the name reader reads them */
        int os = (*name | 0x20) == 'x' ? lg_rlh_openai_slot(name, strlen(name)) : 0;
        lg_rlh_name nm;
        if (os) {
            nm.exact = LG_RLH_OPENAI_REQUESTS + ((os - 1) >> 2);
            nm.kind = LG_RLH_LIMIT + ((os - 1) & 3);
        } else if (!lg_rlh_name_of(name, true, &nm)) {
            continue;
        }
        if (!seen)
            memset(v, 0, sizeof v);
        seen = true;
        const char **slot = &v[nm.exact][nm.kind - LG_RLH_LIMIT];
        if (!*slot)
            *slot = h[i].value ? h[i].value : "";
    }
    if (!seen)
        return false;
    bool any = false;
    for (int d = 0; d < 2; d++)
        any |= read_dim(v[LG_RLH_OPENAI_REQUESTS + d], now_ms, &out->limit[d], &out->remaining[d], &out->reset_ms[d]);
    if (any)
        return out->exact = true;
    any = read_dim(v[LG_RLH_ANTHROPIC_REQUESTS], now_ms, &out->limit[0], &out->remaining[0], &out->reset_ms[0]);
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
