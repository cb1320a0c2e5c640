/* How a provider tells its client about its rate-limit windows: headers on every answer, and the
 * answer to a request over the limit. */
#ifndef MOCK_LIMITED_H
#define MOCK_LIMITED_H

#include "mock/limits.h"
#include "mock/reply.h"
#include "mock/request.h"

/* The generous limits an unlimited dimension is described with, as a provider always states its limits. */
#define MOCK_DEFAULT_RPM 10000
#define MOCK_DEFAULT_TPM 2000000

/* Whether a dimension with no limit still gets headers (MOCK_DEFAULT_RPM / _TPM, what remains of them in the
 * key's window); on by default, off with --no-ratelimit-headers. */
void mock_ratelimit_defaults(bool on);
/* Adds the dialect's rate-limit headers (OpenAI x-ratelimit-*, Anthropic anthropic-ratelimit-*)
 * describing the window after verdict v; a dimension with no limit gets the default limit's headers (none
 * when mock_ratelimit_defaults is off). */
void mock_ratelimit_headers(mock_reply *r, const mock_request *q, const mock_limits *lim, const mock_verdict *v);
/* Fills r with the dialect's answer to a request the window rejected (v->kind != MOCK_ADMITTED):
 * 429 with the provider's body, retry-after and rate-limit headers; Baidu's HTTP 200 error_code. */
void mock_limited(mock_reply *r, const mock_request *q, const mock_limits *lim, const mock_verdict *v,
                  int64_t serial);

#endif
