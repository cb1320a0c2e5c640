/* What an error message says: quota, rate window, capacity, a request that can never fit, and which
 * rate-limit dimension it names. Phrases are matched case-insensitively, with '-' and '_' equal to ' '. */
#include <stdint.h>
#include <string.h>

#include "classify/dialects.h"

static unsigned char fold(unsigned char ch)
{
    if (ch >= 'A' && ch <= 'Z')
        return (unsigned char)(ch + 32);
    if (ch == '-' || ch == '_')
        return ' ';
    return ch;
}

static int is_alnum(unsigned char ch)
{
    return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}

static long find_from(const char *t, size_t n, size_t from, const char *needle)
{
    size_t m = strlen(needle);
    if (!m || m > n)
        return -1;
    for (size_t i = from; i + m <= n; i++) {
        size_t j = 0;
        while (j < m && fold((unsigned char)t[i + j]) == fold((unsigned char)needle[j]))
            j++;
        if (j == m)
            return (long)i;
    }
    return -1;
}

long lg_text_find(const char *text, size_t len, const char *needle)
{
    return text ? find_from(text, len, 0, needle) : -1;
}

long lg_text_find_word(const char *text, size_t len, const char *word)
{
    size_t m = strlen(word);
    for (long at = lg_text_find(text, len, word); at >= 0; at = find_from(text, len, (size_t)at + 1, word)) {
        size_t end = (size_t)at + m;
        if ((at == 0 || !is_alnum((unsigned char)text[at - 1])) && (end >= len || !is_alnum((unsigned char)text[end])))
            return at;
    }
    return -1;
}

static bool any_phrase(const char *t, size_t n, const char *const *list, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (lg_text_find(t, n, list[i]) >= 0)
            return true;
    return false;
}

static bool any_word(const char *t, size_t n, const char *const *list, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (lg_text_find_word(t, n, list[i]) >= 0)
            return true;
    return false;
}

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Out of something that does not come back within minutes. "exceeded your current quota" is deliberately
 * absent: Gemini and Bailian use it for per-minute windows. */
static const char *const quota_phrases[] = {
    "insufficient balance", "insufficient account balance", "balance is insufficient", "balance is not enough",
    "insufficient credit", "credit balance", "out of credits", "not enough credits", "more credits",
    "can only afford", "spend limit", "spending limit", "usage limit", "extra usage", "billing hard limit",
    "hard limit", "per day", "daily limit", "daily quota", "daily request", "per month", "monthly limit",
    "monthly quota", "per week", "weekly limit", "perday", "permonth", "account is not active",
    "account has been suspended", "is suspended", "overdue", "arrearage", "in arrears", "payment required",
    "good standing", "free allocated quota", "free tier of the model", "free quota", "\xe4\xbd\x99\xe9\xa2\x9d\xe4\xb8\x8d\xe8\xb6\xb3" /* 余额不足 */,
    "\xe6\xac\xa0\xe8\xb4\xb9" /* 欠费 */,
};
static const char *const quota_words[] = {"tpd", "rpd"};

static const char *const capacity_phrases[] = {
    "overloaded", "over capacity", "capacity exceeded", "no capacity", "at capacity", "insufficient capacity",
    "currently unable to handle", "high demand", "experiencing high traffic", "too busy",
    "server is busy",
};

static const char *const rate_phrases[] = {
    "rate limit", "ratelimit", "rate limited", "too many requests", "per minute", "per min",
    "per second", "per sec", "perminute", "persecond", "concurren", "throttl", "requests rate", "call rate",
};
static const char *const rate_words[] = {"rpm", "tpm", "rps", "tps", "qps", "ipm", "itpm", "otpm"};

static const char *const never_fit_phrases[] = {
    "request too large", "too large for", "context length", "maximum context", "context window",
    "prompt is too long", "input is too long", "reduce the length of the messages", "exceeds the maximum number of tokens",
};

/* "limit: 0" (Gemini): a limit of zero, not 0.5 or 05. */
static bool zero_limit(const char *t, size_t n)
{
    for (long at = lg_text_find(t, n, "limit: 0"); at >= 0; at = find_from(t, n, (size_t)at + 1, "limit: 0")) {
        size_t end = (size_t)at + 8;
        if (end >= n || !(is_alnum((unsigned char)t[end]) || t[end] == '.'))
            return true;
    }
    return false;
}

/* The first number after an occurrence of keyword ("Limit 30000", "Requested: 36,821"). */
static bool number_after(const char *t, size_t n, const char *keyword, int64_t *v)
{
    size_t m = strlen(keyword);
    for (long at = lg_text_find(t, n, keyword); at >= 0; at = find_from(t, n, (size_t)at + 1, keyword)) {
        size_t i = (size_t)at + m;
        while (i < n && (t[i] == ' ' || t[i] == ':'))
            i++;
        if (i >= n || t[i] < '0' || t[i] > '9')
            continue;
        int64_t r = 0;
        for (; i < n && ((t[i] >= '0' && t[i] <= '9') || (t[i] == ',' && i + 1 < n && t[i + 1] >= '0' && t[i + 1] <= '9')); i++) {
            if (t[i] == ',')
                continue;
            if (r > INT64_MAX / 20)
                return false;
            r = r * 10 + (t[i] - '0');
        }
        *v = r;
        return true;
    }
    return false;
}

/* The dimension named earliest in the text. */
static lg_dim text_dimension(const char *t, size_t n)
{
    static const struct {
        const char *p;
        bool word;
        lg_dim d;
    } pats[] = {
        {"input tokens", false, LG_DIM_INPUT_TOKENS}, {"itpm", true, LG_DIM_INPUT_TOKENS},
        {"output tokens", false, LG_DIM_OUTPUT_TOKENS}, {"otpm", true, LG_DIM_OUTPUT_TOKENS},
        {"tokens per", false, LG_DIM_TOKENS},        {"token rate", false, LG_DIM_TOKENS},
        {"tpm", true, LG_DIM_TOKENS},                {"tpd", true, LG_DIM_TOKENS},
        {"requests per", false, LG_DIM_REQUESTS},    {"request rate", false, LG_DIM_REQUESTS},
        {"requests rate", false, LG_DIM_REQUESTS},   {"call rate", false, LG_DIM_REQUESTS},
        {"rpm", true, LG_DIM_REQUESTS},              {"rpd", true, LG_DIM_REQUESTS},
        {"qps", true, LG_DIM_REQUESTS},              {"rps", true, LG_DIM_REQUESTS},
    };
    long best = -1;
    lg_dim dim = LG_DIM_NONE;
    for (size_t i = 0; i < COUNT(pats); i++) {
        long at = pats[i].word ? lg_text_find_word(t, n, pats[i].p) : lg_text_find(t, n, pats[i].p);
        if (at >= 0 && (best < 0 || at < best)) {
            best = at;
            dim = pats[i].d;
        }
    }
    return dim;
}

lg_sig lg_text_signal(const char *t, size_t n, bool *never_fit, lg_dim *dim)
{
    *never_fit = false;
    *dim = LG_DIM_NONE;
    if (!t || !n)
        return LG_SIG_NONE;
    int64_t limit, requested;
    *never_fit = any_phrase(t, n, never_fit_phrases, COUNT(never_fit_phrases)) ||
                 (number_after(t, n, "limit", &limit) && number_after(t, n, "requested", &requested) &&
                  requested > limit);
    *dim = text_dimension(t, n);
    if (zero_limit(t, n) || any_phrase(t, n, quota_phrases, COUNT(quota_phrases)) ||
        any_word(t, n, quota_words, COUNT(quota_words)))
        return LG_SIG_QUOTA;
    if (any_phrase(t, n, capacity_phrases, COUNT(capacity_phrases)))
        return LG_SIG_CAPACITY;
    /* Scaleway words every rate limit as "INSUFFICIENT QUOTA" (upper case). */
    if (memmem(t, n, "INSUFFICIENT QUOTA", 18) || any_phrase(t, n, rate_phrases, COUNT(rate_phrases)) ||
        any_word(t, n, rate_words, COUNT(rate_words)))
        return LG_SIG_RATE;
    return LG_SIG_NONE;
}
