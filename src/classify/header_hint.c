/* Wait hints in response headers: retry-after-ms (Azure's spelling x-ms-retry-after-ms too), retry-after
 * (delta-seconds or HTTP-date), and the reset of the rate-limit header family that ran out (families and
 * value formats: ratelimit_headers.c): the dimension the error names, else the exhausted families, else (for
 * windows, not quotas) the furthest reset. */
#include <string.h>

#include "classify/dialects.h"
#include "llmgate/duration.h"

bool lg_header_retry_after(const lg_response_view *r, int64_t *ms, int64_t *at_ms)
{
    *ms = *at_ms = LG_NO_HINT;
    const char *v = lg_header_get(r->headers, r->n_headers, "retry-after-ms");
    if (!v)
        v = lg_header_get(r->headers, r->n_headers, "x-ms-retry-after-ms");
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

/* Keeps the later of two resets; relative and absolute ones only compare among themselves. */
static void keep_max(const lg_rl_family **best, const lg_rl_family *f)
{
    if (!f->has_reset)
        return;
    const lg_rl_family *b = *best;
    if (!b || (f->reset_ms != LG_NO_HINT && (b->reset_ms == LG_NO_HINT || f->reset_ms > b->reset_ms)) ||
        (f->reset_at_ms != LG_NO_HINT && b->reset_ms == LG_NO_HINT && f->reset_at_ms > b->reset_at_ms))
        *best = f;
}

/* The family of dimension d with a reset, an exhausted one first. */
static const lg_rl_family *of_dim(const lg_rl_family *f, size_t n, lg_dim d)
{
    const lg_rl_family *any = NULL;
    for (size_t i = 0; d != LG_DIM_NONE && i < n; i++)
        if (f[i].dim == d && f[i].has_reset) {
            if (f[i].exhausted)
                return &f[i];
            if (!any)
                any = &f[i];
        }
    return any;
}

bool lg_header_reset(const lg_rl_family *f, size_t n, lg_dim named, bool need_exhausted, int64_t *ms,
                     int64_t *at_ms)
{
    const lg_rl_family *best = NULL;
    if (!need_exhausted && named != LG_DIM_NONE) {
        /* The named dimension, falling back to the combined token bucket for input/output tokens. */
        lg_dim order[3] = {named, named == LG_DIM_INPUT_TOKENS || named == LG_DIM_OUTPUT_TOKENS ? LG_DIM_TOKENS : LG_DIM_NONE,
                           LG_DIM_NONE};
        if (named == LG_DIM_TOKENS)
            order[1] = LG_DIM_INPUT_TOKENS, order[2] = LG_DIM_OUTPUT_TOKENS;
        for (int k = 0; k < 3 && !best; k++)
            best = of_dim(f, n, order[k]);
    }
    for (size_t i = 0; !best && i < n; i++) /* the families that ran out */
        if (f[i].exhausted)
            keep_max(&best, &f[i]);
    for (size_t i = 0; !best && !need_exhausted && i < n; i++) /* otherwise the furthest reset */
        keep_max(&best, &f[i]);
    *ms = best ? best->reset_ms : LG_NO_HINT;
    *at_ms = best ? best->reset_at_ms : LG_NO_HINT;
    return best != NULL;
}
