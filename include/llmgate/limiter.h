/* The admission limiter: requests and tokens per window, per account, as an exact-or-stricter sliding
 * window of sub-buckets that lives in the shared store; token estimates; limits learned from the
 * provider's rate-limit headers; OpenAI tier presets. Everything here is pure (the clock is a parameter). */
#ifndef LLMGATE_LIMITER_H
#define LLMGATE_LIMITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "llmgate/http.h"
#include "llmgate/outcome.h"
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

#define LG_CALIB_MODELS 8 /* models whose prompt estimate is calibrated per account */

/* How the prompt estimate of one model compares with the prompt tokens the provider reports. */
typedef struct {
    uint32_t model;       /* lg_model_hash of the model name; 0 = free entry */
    uint32_t samples;     /* usage reports folded in (saturating) */
    int64_t ratio_milli;  /* real prompt tokens per 1000 estimated (LG_CALIB_MIN ... LG_CALIB_MAX) */
} lg_calibration;

#define LG_CALIB_MIN 62    /* 1/16 */
#define LG_CALIB_MAX 64000 /* 64 x */

/* One account's window, in the shared store. Zeroed = empty. */
typedef struct {
    int64_t span_ms;                 /* window + margin the ring was filled with; 0 = empty */
    lg_bucket ring[LG_WINDOW_RING];
    int64_t cap_left[2];             /* provider-reported remaining requests / tokens ... */
    int64_t cap_until_ms[2];         /* ... valid for admissions before this time (0 = no cap) */
    int64_t learned_limit[2];        /* limits the provider reported (0 = none) */
    int64_t limit[2];                /* the limits last enforced (for status; 0 = unlimited) */
    int64_t window_ms;               /* the window length last enforced (for status) */
    lg_calibration calib[LG_CALIB_MODELS]; /* prompt estimate calibration per model (lg_charge_calibrate) */
    int64_t seen_remaining[2];       /* remaining requests / tokens the last exact headers reported ... */
    int64_t seen_until_ms;           /* ... valid until the provider could free room (0 = none) */
    /* Running sums, so that an admission that fits is decided without a scan (lg_window_earliest): */
    int64_t run_end;                 /* the last bucket of the run they cover, [run_end - B, run_end] ... */
    int64_t run_sum[2];              /* ... its requests and tokens, as the ring holds them */
    int64_t top;                     /* no bucket after this epoch holds anything */
    /* Bit i: every place in ring slot i (as its epoch says) is at its bucket's first ms (lg_window_earliest) */
    uint64_t at_start[LG_WINDOW_RING / 64];
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

/* The first ms of bucket k of a span of span_ms: ceil(k * span_ms / LG_WINDOW_BUCKETS). */
int64_t lg_window_bucket_start(int64_t k, int64_t span_ms);

/* Earliest time >= max(now_ms, not_before_ms) at which an admission of (1 request, tokens) fits: every run
 * of LG_WINDOW_BUCKETS + 1 buckets containing its bucket stays within the limits (counting reservations
 * already made in later buckets), and provider-reported caps allow it; except two runs no window through
 * the admission's time can fill: the run that starts B buckets before when every place in its first bucket
 * is at that bucket's start (a span before the admission's bucket's start), and the run that starts at
 * the admission's bucket when the admission is at its start (its last bucket begins a span later). tokens above the token limit count as
 * the limit (such a request can only be refused by the provider, it must not block forever). *retry_ms is 0
 * when the time returned can be reserved; when it lies beyond the reservable horizon (about two windows
 * ahead) the return value is only a lower bound and *retry_ms > 0 says when to ask again. A window built
 * for another span is treated as empty. */
int64_t lg_window_earliest(const lg_window *w, const lg_window_limits *l, int64_t tokens, int64_t now_ms,
                           int64_t not_before_ms, int64_t *retry_ms);

/* lg_window_earliest without the running sums: the same answer by sliding over every run from the start's
 * bucket (its slow path, and the unit test's reference for the fast one). */
int64_t lg_window_earliest_scan(const lg_window *w, const lg_window_limits *l, int64_t tokens, int64_t now_ms,
                                int64_t not_before_ms, int64_t *retry_ms);

/* Records an admission of (1 request, tokens) at at_ms (from lg_window_earliest), consuming provider caps;
 * returns its ticket (the bucket epoch) for lg_window_adjust. Resets a ring of another span first. */
int64_t lg_window_reserve(lg_window *w, const lg_window_limits *l, int64_t tokens, int64_t at_ms);

/* Adds d_requests / d_tokens to the bucket of ticket (release: -1 / -tokens; reconcile: real - estimate),
 * never below zero; nothing when that bucket has left the ring. */
void lg_window_adjust(lg_window *w, int64_t ticket, int64_t d_requests, int64_t d_tokens);

/* Sets the requests (dim LG_DIM_REQUESTS) or tokens of bucket epoch to v, as another store holds it (the
 * redis backend's status), keeping the running sums; nothing when a newer non-empty bucket holds its place. */
void lg_window_set_bucket(lg_window *w, int64_t epoch, int dim, int64_t v);

/* Requests and tokens admitted in the window ending at now_ms (the run of buckets up to now's bucket),
 * and reserved ahead of it. Any of the outputs may be NULL. */
void lg_window_usage(const lg_window *w, int64_t now_ms, int64_t *requests, int64_t *tokens,
                     int64_t *reserved_requests);

/* What a response's rate-limit headers say; -1 for what they do not. */
typedef struct {
    int64_t limit[2];
    int64_t remaining[2];
    int64_t reset_ms[2]; /* time until the provider frees room, relative to the response */
    bool exact;          /* x-ratelimit-* counts (Anthropic rounds its remaining tokens to thousands) */
} lg_ratelimit_info;

/* Reads x-ratelimit-{limit,remaining,reset}-{requests,tokens} (OpenAI and compatibles; Go-duration or
 * seconds resets) and anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-{limit,remaining,
 * reset} (RFC 3339 resets, made relative to now_ms; "tokens" first, else input + output summed).
 * False when none is present. */
bool lg_ratelimit_parse(const lg_header *h, size_t n, int64_t now_ms, lg_ratelimit_info *out);

/* Folds what the provider reported at now_ms into the window: reported limits are remembered, and a
 * reported remaining count caps admissions until its reset. */
void lg_window_learn(lg_window *w, const lg_ratelimit_info *info, int64_t now_ms);

/* The tokens the provider charged the request whose response reported info at now_ms, from its exact
 * remaining counts: the previous exact response on w, or an empty window, left exactly one more request
 * (so the request in between was this one) and nothing could leave the provider's window since (that
 * response's resets were not due, with a margin). -1 when unknown. Remembers info for the next response. */
int64_t lg_window_learn_charge(lg_window *w, const lg_ratelimit_info *info, int64_t now_ms);

#define LG_ESTIMATE_DEFAULT_OUTPUT 1024 /* output tokens assumed when the request names no limit */
#define LG_MODEL_MAX 64

/* What one scan of a request body says about its cost. */
typedef struct {
    int64_t text;     /* prompt tokens of the text the provider tokenizes (see lg_estimate_scan) */
    int64_t envelope; /* ceil(body bytes / 4): the conservative prompt estimate before any calibration */
    int64_t output;   /* the requested output limit, times the number of choices (n, candidateCount);
                         -1 when the request names none */
    char model[LG_MODEL_MAX]; /* the body's "model" ("" when absent or too long) */
    /* The body's first top-level "model" member as lg_body_model_span (src/gate/body_model.h) reads it, so
     * that one pass gives both: 1 when it is a string (its raw bytes [span_start, span_end)), 0 when
     * lg_body_model_span finds none, -1 when this scan cannot tell (call lg_body_model_span). */
    int model_span;
    size_t span_start, span_end;
    const char *body; /* the body scanned, and how (lg_accounts_init takes an estimate the exchange made of */
    size_t body_len;  /* the same body earlier, and clears body when it does) */
    lg_dialect dialect;
} lg_estimate;

/* Scans a request body once, without building a tree. text: 3 + for every string the provider tokenizes
 * (message contents, system prompts, inputs, tool names, descriptions and whole tool schemas with their
 * keys) ceil(bytes / 4) + 1; the envelope (model, role, type, ids, flags, base64 data) is not counted.
 * output: the first of max_completion_tokens, max_tokens, max_output_tokens (top level),
 * generationConfig.maxOutputTokens, request.generationConfig.maxOutputTokens, parameters.max_tokens.
 * A body that is not a JSON object: text = envelope, no output. LG_DIALECT_NONE: envelope only. */
void lg_estimate_scan(lg_dialect d, const char *body, size_t len, lg_estimate *out);

/* FNV-1a of a model name, never 0. */
uint32_t lg_model_hash(const char *model);

/* How a provider dialect counts a request against its token limit (see docs/ARCHITECTURE.md for sources). */
typedef struct {
    bool output_reserved;        /* a named output limit is counted at admission and never refunded */
    bool output_counted;         /* output tokens count against the token limit at all */
    bool refused_request_counts; /* a request refused as rate limited (not for quota) still counts */
    bool error_tokens_count;     /* a request that failed otherwise keeps its token charge */
} lg_charge_model;

const lg_charge_model *lg_charge_model_of(lg_dialect d);

/* The tokens to reserve at admission on window w: the prompt (text x the model's calibration on w, or the
 * envelope while the model has none) plus, when the dialect counts output, the requested output limit
 * (LG_ESTIMATE_DEFAULT_OUTPUT when none is named). LG_DIALECT_NONE: the envelope. */
int64_t lg_charge_admit(lg_dialect d, const lg_estimate *e, const lg_window *w);
/* lg_charge_admit with e->model's lg_model_hash already known (model_hash; 0: hashed here). */
int64_t lg_charge_admit_as(lg_dialect d, const lg_estimate *e, uint32_t model_hash, const lg_window *w);

/* What the provider counted for an attempt that reserved `reserved` tokens, given its outcome (per the
 * dialect's charge model: the real usage, with a named output limit kept where it is never refunded) and
 * learned (the charge read from the rate-limit headers, lg_window_learn_charge; -1 unknown), which can only
 * raise it. *keep_request: whether the request stays in the window. */
int64_t lg_charge_settle(lg_dialect d, const lg_estimate *e, int64_t reserved, const lg_outcome *o,
                         int64_t learned, bool *keep_request);

/* Folds a usage report (real prompt tokens of a request estimated as e) into w's calibration of e's model:
 * the ratio real / e->text, bounded, averaged over reports; the least used entry makes room. */
void lg_charge_calibrate(lg_window *w, const lg_estimate *e, int64_t real_prompt);
/* lg_charge_calibrate with e->model's lg_model_hash already known (model_hash; 0: hashed here). */
void lg_charge_calibrate_as(lg_window *w, const lg_estimate *e, uint32_t model_hash, int64_t real_prompt);

/* OpenAI's published usage-tier limits per minute ("free", "tier-1" … "tier-5"; "tier1", "tier_1" and any
 * case accepted) for the model's family: o1/o3/o4 reasoning models, else the gpt-4o row. False for an
 * unknown tier. */
bool lg_tier_limits(const char *tier, const char *model, int64_t *rpm, int64_t *tpm);
/* True when tier names a preset lg_tier_limits knows. */
bool lg_tier_known(const char *tier);

#endif
