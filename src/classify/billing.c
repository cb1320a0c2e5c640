/* Out of credit: the case of QUOTA_EXHAUSTED whose account cannot recover by waiting minutes (detail
 * "billing"): an empty balance, used-up credits, a spend limit, a 402. Such an account is set aside for
 * backoff.billing_ms (src/limiter/policy.c). A mere link to billing documentation, which per-minute 429s
 * carry (Groq, Gemini, Together), says nothing here. */
#include <string.h>

#include "classify/dialects.h"

#define SCAN_MAX 16384 /* the part of a body looked at: error documents are short */

/* OpenAI's insufficient_quota code ("You exceeded your current quota, please check your plan and billing
 * details"), once the classifier found it a quota: some compatible APIs use the code for a per-minute
 * window, which the classifier reads as a rate. Not the message: Gemini words its per-day and per-minute
 * limits the same way. An account that is not active for billing stays so until someone pays: OpenAI's
 * billing_not_active ("Your account is not active, please check your billing details"), Moonshot's
 * exceeded_current_quota_error ("Your account ... is not active ... exceeded current quota"). */
static const char *const quota_billing[] = {
    "insufficient quota",
    "billing not active", /* OpenAI's type billing_not_active */
    "exceeded current quota", /* Moonshot's exceeded_current_quota_error: the balance is empty */
};

/* True when one of the n needles is in text[0..len). */
static bool says_any(const char *text, size_t len, const char *const *needles, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (lg_text_find(text, len, needles[i]) >= 0)
            return true;
    return false;
}

/* True when msg or the start of the body says any of the n needles. */
static bool answer_says(const lg_outcome *out, const lg_response_view *r, const char *const *needles, size_t n)
{
    size_t len = r->body_len < SCAN_MAX ? r->body_len : SCAN_MAX;
    return says_any(out->message, strlen(out->message), needles, n) || says_any(r->body, len, needles, n);
}

/* True when msg or the start of the body says the balance or credit is used up (lg_text_says_credit). */
static bool answer_says_credit(const lg_outcome *out, const lg_response_view *r)
{
    size_t len = r->body_len < SCAN_MAX ? r->body_len : SCAN_MAX;
    return lg_text_says_credit(out->message, strlen(out->message)) || (r->body && lg_text_says_credit(r->body, len));
}

void lg_cls_billing(lg_outcome *out, int status, const lg_response_view *r)
{
    if (out->state == LG_STATE_SUCCESS)
        return;
    bool quota = out->reason == LG_REASON_QUOTA_EXHAUSTED;
    if (status != 402 && !answer_says_credit(out, r) &&
        !(quota && answer_says(out, r, quota_billing, sizeof quota_billing / sizeof quota_billing[0])))
        return;
    if (out->state == LG_STATE_PROVIDER_DOWN) /* a 500 saying the balance is empty: no outage of the provider */
        out->state = LG_STATE_RETRYABLE_RATE_LIMIT;
    out->reason = LG_REASON_QUOTA_EXHAUSTED;
    out->detail = LG_DETAIL_BILLING;
    out->account_rejected = false; /* the key is good; its account is set aside until it has credit */
}
