/* Wait hints in response headers: retry-after-ms, retry-after (delta-seconds or HTTP-date), and the
 * reset headers of the rate-limit dimension that ran out: x-ratelimit-reset-{requests,tokens} (Go
 * durations, OpenAI/Groq), x-rate-limit-reset-tokens (plain seconds, Azure),
 * anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-reset (RFC 3339), and for Anthropic
 * subscription credentials anthropic-ratelimit-unified-reset (Unix seconds). */
#include <stdio.h>
#include <string.h>

#include "classify/dialects.h"
#include "llmgate/duration.h"

bool lg_header_retry_after(const lg_response_view *r, int64_t *ms, int64_t *at_ms)
{
    *ms = *at_ms = LG_NO_HINT;
    const char *v = lg_header_get(r->headers, r->n_headers, "retry-after-ms");
    int64_t x;
    if (v && lg_parse_delta_seconds(v, strlen(v), &x)) {
        *ms = x / 1000 + (x % 1000 != 0); /* the value is in ms: parsed as seconds, scale back */
        return true;
    }
    v = lg_header_get(r->headers, r->n_headers, "retry-after");
    if (v && lg_parse_delta_seconds(v, strlen(v), &x)) {
        *ms = x;
        return true;
    }
    if (v && lg_parse_http_date(v, strlen(v), &x)) {
        *at_ms = x;
        return true;
    }
    return false;
}

typedef struct {
    bool present;
    int64_t remaining; /* -1 = unknown */
    int64_t ms, at_ms; /* one of them is set */
} reset_hint;

static const char *const dim_names[] = {"", "requests", "tokens", "input-tokens", "output-tokens"};
#define N_DIMS 5

/* A reset value: a duration ("6m0s", "7.66s"), plain seconds ("20"), or an RFC 3339 time. */
static bool parse_reset(const char *v, int64_t *ms, int64_t *at_ms)
{
    *ms = *at_ms = LG_NO_HINT;
    size_t n = strlen(v);
    return lg_parse_go_duration(v, n, ms) || lg_parse_delta_seconds(v, n, ms) || lg_parse_rfc3339(v, n, at_ms);
}

static reset_hint find_dim(const lg_response_view *r, int d)
{
    static const char *const families[][2] = {{"x-ratelimit-reset-%s", "x-ratelimit-remaining-%s"},
                                              {"x-rate-limit-reset-%s", "x-rate-limit-remaining-%s"},
                                              {"anthropic-ratelimit-%s-reset", "anthropic-ratelimit-%s-remaining"}};
    reset_hint h = {false, -1, LG_NO_HINT, LG_NO_HINT};
    for (size_t f = 0; f < sizeof families / sizeof families[0]; f++) {
        char name[64];
        snprintf(name, sizeof name, families[f][0], dim_names[d]);
        const char *v = lg_header_get(r->headers, r->n_headers, name);
        if (!v || !parse_reset(v, &h.ms, &h.at_ms))
            continue;
        h.present = true;
        snprintf(name, sizeof name, families[f][1], dim_names[d]);
        const char *rem = lg_header_get(r->headers, r->n_headers, name);
        int64_t x;
        if (rem && lg_parse_delta_seconds(rem, strlen(rem), &x))
            h.remaining = x / 1000;
        return h;
    }
    return h;
}

/* anthropic-ratelimit-unified-reset: Unix seconds (or RFC 3339) when the unified limit frees again. */
static reset_hint unified_reset(const lg_response_view *r)
{
    reset_hint h = {false, -1, LG_NO_HINT, LG_NO_HINT};
    const char *v = lg_header_get(r->headers, r->n_headers, "anthropic-ratelimit-unified-reset");
    int64_t x;
    if (v && lg_parse_delta_seconds(v, strlen(v), &x) && x >= 1000000000000LL) {
        h.present = true;
        h.at_ms = x / 1000 >= 1000000000000LL ? x / 1000 : x; /* already ms when that large */
    } else if (v && lg_parse_rfc3339(v, strlen(v), &x)) {
        h.present = true;
        h.at_ms = x;
    }
    return h;
}

/* Keeps the later of two hints; relative and absolute ones only compare among themselves. */
static void keep_max(reset_hint *best, const reset_hint *h)
{
    if (!h->present)
        return;
    if (!best->present || (h->ms != LG_NO_HINT && (best->ms == LG_NO_HINT || h->ms > best->ms)) ||
        (h->at_ms != LG_NO_HINT && best->ms == LG_NO_HINT && h->at_ms > best->at_ms))
        *best = *h;
}

bool lg_header_reset(const lg_response_view *r, lg_dim named, bool need_exhausted, int64_t *ms, int64_t *at_ms)
{
    reset_hint hints[N_DIMS];
    for (int d = 1; d < N_DIMS; d++)
        hints[d] = find_dim(r, d);
    reset_hint best = {false, -1, LG_NO_HINT, LG_NO_HINT};
    if (!need_exhausted && named != LG_DIM_NONE) {
        /* The named dimension, falling back to the combined token bucket for input/output tokens. */
        int order[3] = {(int)named, named == LG_DIM_INPUT_TOKENS || named == LG_DIM_OUTPUT_TOKENS ? LG_DIM_TOKENS : 0, 0};
        if (named == LG_DIM_TOKENS)
            order[1] = LG_DIM_INPUT_TOKENS, order[2] = LG_DIM_OUTPUT_TOKENS;
        for (int k = 0; k < 3 && !best.present; k++)
            if (order[k])
                best = hints[order[k]];
    }
    if (!best.present) /* the dimensions that ran out */
        for (int d = 1; d < N_DIMS; d++)
            if (hints[d].remaining == 0)
                keep_max(&best, &hints[d]);
    if (!best.present && !need_exhausted)
        for (int d = 1; d < N_DIMS; d++)
            keep_max(&best, &hints[d]);
    if (!best.present) /* Anthropic subscription windows: one reset for the rejected unified limit */
        best = unified_reset(r);
    *ms = best.ms;
    *at_ms = best.at_ms;
    return best.present;
}
