/* The admission limiter: requests and tokens per window, per account, as an exact-or-stricter sliding
 * window of sub-buckets that lives in the shared store; token estimates; limits learned from the
 * provider's rate-limit headers; OpenAI tier presets. Everything here is pure (the clock is a parameter). */
#ifndef LLMGATE_LIMITER_H
#define LLMGATE_LIMITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "llmgate/http.h"
#include "llmgate/preset.h"

#define LG_WINDOW_BUCKETS 64 /* sub-buckets per window (+ margin) */
#define LG_WINDOW_RING 512   /* buckets kept: the window behind now and reservations ahead of it */
#define LG_DIM_REQUESTS 0
#define LG_DIM_TOKENS 1

/* One sub-bucket: what was admitted (or reserved) during its share of the span (see lg_window_span_ms). */
typedef struct {
    int64_t epoch;    /* absolute bucket number; a slot whose epoch is not the one asked for is empty */
    int64_t requests;
    int64_t tokens;
} lg_bucket;

/* One account's window, in the shared store. Zeroed = empty. */
typedef struct {
    int64_t span_ms;                 /* window + margin the ring was filled with; 0 = empty */
    lg_bucket ring[LG_WINDOW_RING];
    int64_t cap_left[2];             /* provider-reported remaining requests / tokens ... */
    int64_t cap_until_ms[2];         /* ... valid for admissions before this time (0 = no cap) */
    int64_t learned_limit[2];        /* limits the provider reported (0 = none) */
    int64_t limit[2];                /* the limits last enforced (for status; 0 = unlimited) */
    int64_t window_ms;               /* the window length last enforced (for status) */
} lg_window;

/* The limits one admission is checked against. */
typedef struct {
    int64_t limit[2];  /* requests and tokens per window; 0 = unlimited */
    int64_t window_ms; /* the provider's window */
    int64_t margin_ms; /* added to the window: slack for the delay between admission and arrival */
} lg_window_limits;

/* The margin the gate uses for a window: a fiftieth of it, at least 10 ms, at most 1 s. */
int64_t lg_window_margin_ms(int64_t window_ms);

/* The span the buckets divide: window + margin, at least 1 ms. LG_WINDOW_BUCKETS buckets make exactly one
 * span (a bucket is span/LG_WINDOW_BUCKETS ms, boundaries rounded up to whole ms), so any window of span ms
 * touches at most LG_WINDOW_BUCKETS + 1 consecutive buckets ("a run"). */
int64_t lg_window_span_ms(const lg_window_limits *l);

/* Earliest time >= max(now_ms, not_before_ms) at which an admission of (1 request, tokens) fits: every run
 * of LG_WINDOW_BUCKETS + 1 buckets containing its bucket stays within the limits (counting reservations
 * already made in later buckets), and provider-reported caps allow it. tokens above the token limit count as
 * the limit (such a request can only be refused by the provider, it must not block forever). *retry_ms is 0
 * when the time returned can be reserved; when it lies beyond the reservable horizon (about two windows
 * ahead) the return value is only a lower bound and *retry_ms > 0 says when to ask again. A window built
 * for another span is treated as empty. */
int64_t lg_window_earliest(const lg_window *w, const lg_window_limits *l, int64_t tokens, int64_t now_ms,
                           int64_t not_before_ms, int64_t *retry_ms);

/* Records an admission of (1 request, tokens) at at_ms (from lg_window_earliest), consuming provider caps;
 * returns its ticket (the bucket epoch) for lg_window_adjust. Resets a ring of another span first. */
int64_t lg_window_reserve(lg_window *w, const lg_window_limits *l, int64_t tokens, int64_t at_ms);

/* Adds d_requests / d_tokens to the bucket of ticket (release: -1 / -tokens; reconcile: real - estimate),
 * never below zero; nothing when that bucket has left the ring. */
void lg_window_adjust(lg_window *w, int64_t ticket, int64_t d_requests, int64_t d_tokens);

/* Requests and tokens admitted in the window ending at now_ms (the run of buckets up to now's bucket),
 * and reserved ahead of it. Any of the outputs may be NULL. */
void lg_window_usage(const lg_window *w, int64_t now_ms, int64_t *requests, int64_t *tokens,
                     int64_t *reserved_requests);

/* What a response's rate-limit headers say; -1 for what they do not. */
typedef struct {
    int64_t limit[2];
    int64_t remaining[2];
    int64_t reset_ms[2]; /* time until the provider frees room, relative to the response */
} lg_ratelimit_info;

/* Reads x-ratelimit-{limit,remaining,reset}-{requests,tokens} (OpenAI and compatibles; Go-duration or
 * seconds resets) and anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-{limit,remaining,
 * reset} (RFC 3339 resets, made relative to now_ms; "tokens" first, else input + output summed).
 * False when none is present. */
bool lg_ratelimit_parse(const lg_header *h, size_t n, int64_t now_ms, lg_ratelimit_info *out);

/* Folds what the provider reported at now_ms into the window: reported limits are remembered, and a
 * reported remaining count caps admissions until its reset. */
void lg_window_learn(lg_window *w, const lg_ratelimit_info *info, int64_t now_ms);

#define LG_ESTIMATE_DEFAULT_OUTPUT 1024 /* output tokens assumed when the request names no limit */
#define LG_MODEL_MAX 64

/* The token estimate of a request body in dialect d: ceil(body bytes / 4) for the prompt plus the requested
 * output limit (max_tokens, max_completion_tokens, max_output_tokens, generationConfig.maxOutputTokens,
 * request.generationConfig.maxOutputTokens, parameters.max_tokens), else LG_ESTIMATE_DEFAULT_OUTPUT
 * (LG_DIALECT_NONE: the prompt part only). The body's "model" is copied into model ("" when absent). */
int64_t lg_estimate_tokens(lg_dialect d, const char *body, size_t len, char model[LG_MODEL_MAX]);

/* OpenAI's published usage-tier limits per minute ("free", "tier-1" … "tier-5"; "tier1", "tier_1" and any
 * case accepted) for the model's family: o1/o3/o4 reasoning models, else the gpt-4o row. False for an
 * unknown tier. */
bool lg_tier_limits(const char *tier, const char *model, int64_t *rpm, int64_t *tpm);
/* True when tier names a preset lg_tier_limits knows. */
bool lg_tier_known(const char *tier);

#endif
