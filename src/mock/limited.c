/* Rate-limit headers and over-the-limit answers (see limited.h). */
#include <stdio.h>
#include <time.h>

#include "llmgate/clock.h"
#include "mock/errors.h"
#include "mock/limited.h"

/* RFC 3339 UTC time of now + ms (second precision, rounded up). */
static void rfc3339_after(char *buf, size_t n, int64_t ms)
{
    time_t t = (time_t)((lg_now_ms() + ms + 999) / 1000);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Adds one dimension's headers: "requests" or "tokens". */
static void dimension(mock_reply *r, mock_dialect d, const char *what, int64_t limit, int64_t remaining,
                      int64_t reset_ms)
{
    char name[64], when[40];
    if (limit <= 0)
        return;
    if (d == MOCK_OPENAI) {
        mock_fmt_go_duration(when, sizeof when, reset_ms);
        snprintf(name, sizeof name, "x-ratelimit-limit-%s", what);
        mock_reply_header(r, name, "%lld", (long long)limit);
        snprintf(name, sizeof name, "x-ratelimit-remaining-%s", what);
        mock_reply_header(r, name, "%lld", (long long)remaining);
        snprintf(name, sizeof name, "x-ratelimit-reset-%s", what);
        mock_reply_header(r, name, "%s", when);
    } else if (d == MOCK_ANTHROPIC) {
        rfc3339_after(when, sizeof when, reset_ms);
        snprintf(name, sizeof name, "anthropic-ratelimit-%s-limit", what);
        mock_reply_header(r, name, "%lld", (long long)limit);
        snprintf(name, sizeof name, "anthropic-ratelimit-%s-remaining", what);
        mock_reply_header(r, name, "%lld", (long long)remaining);
        snprintf(name, sizeof name, "anthropic-ratelimit-%s-reset", what);
        mock_reply_header(r, name, "%s", when);
    }
}

static bool defaults_on = true;

void mock_ratelimit_defaults(bool on) { defaults_on = on; }

/* What is left of limit once used is taken, never negative. */
static int64_t left(int64_t limit, int64_t used) { return used < limit ? limit - used : 0; }

void mock_ratelimit_headers(mock_reply *r, const mock_request *q, const mock_limits *lim, const mock_verdict *v)
{
    bool in = v->kind == MOCK_ADMITTED; /* the request is in the window the verdict's counts left out */
    int64_t rpm = lim->rpm > 0 ? lim->rpm : defaults_on ? MOCK_DEFAULT_RPM : 0;
    int64_t tpm = lim->tpm > 0 ? lim->tpm : defaults_on ? MOCK_DEFAULT_TPM : 0;
    int64_t rem_req = lim->rpm > 0 ? v->remaining_requests : left(rpm, v->used_requests + in);
    int64_t rem_tok = lim->tpm > 0 ? v->remaining_tokens : left(tpm, v->used_tokens + (in ? v->requested_tokens : 0));
    dimension(r, q->dialect, "requests", rpm, rem_req, v->reset_requests_ms);
    dimension(r, q->dialect, "tokens", tpm, rem_tok, v->reset_tokens_ms);
}

void mock_limited(mock_reply *r, const mock_request *q, const mock_limits *lim, const mock_verdict *v,
                  int64_t serial)
{
    mock_limit_info li = {
        .tokens = v->kind != MOCK_OVER_REQUESTS,
        .too_large = v->kind == MOCK_TOO_LARGE,
        .limit = v->kind == MOCK_OVER_REQUESTS ? lim->rpm : lim->tpm,
        .used = v->kind == MOCK_OVER_REQUESTS ? v->used_requests : v->used_tokens,
        .requested = v->kind == MOCK_OVER_REQUESTS ? 1 : v->requested_tokens,
    };
    mock_error(r, q, MOCK_ERR_RATE_LIMIT, v->retry_after_ms, &li, serial);
    mock_ratelimit_headers(r, q, lim, v);
}
