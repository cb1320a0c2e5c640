/* What an error message says: quota, rate window, capacity, a request that can never fit, and which
 * rate-limit dimension it names. Phrases are matched by lg_text_find (text_match.c). */
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "classify/dialects.h"

static int is_alnum(unsigned char ch)
{
    return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}

/* Like lg_text_find for short acronyms ("rpm"): the match must not touch letters or digits. */
static long find_word(const char *text, size_t len, const char *word)
{
    size_t m = strlen(word);
    for (long at = lg_text_find(text, len, word); at >= 0; at = lg_text_find_from(text, len, (size_t)at + 1, word)) {
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
        if (find_word(t, n, list[i]) >= 0)
            return true;
    return false;
}

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* One vocabulary per reason. Credit phrases: the balance or credit is insufficient, whatever the status
 * (a link to billing documentation is not one: see weak_quota_phrases). */
static const char *const credit_phrases[] = {
    "insufficient balance", "insufficient account balance", "balance is insufficient", "balance is not enough",
    "balance is too low", "insufficient credit", "credit balance", "out of credits", "not enough credits",
    "more credits", "available credits", "have any credits" /* xAI: "team doesn't have any credits yet" */,
    "can only afford", "credit limit exceeded", "insufficient funds", "spending limit", "spend limit",
    "overdue", "arrearage", "in arrears", "payment required", "\xe4\xbd\x99\xe9\xa2\x9d\xe4\xb8\x8d\xe8\xb6\xb3" /* 余额不足 */,
    "\xe6\xac\xa0\xe8\xb4\xb9" /* 欠费 */,
    /* a paid plan that lapsed, or a free one that asks for payment to go on: nothing comes back by waiting */
    "plan has expired", "plan expired", "subscription has expired", "subscription expired",
    "\xe5\xa5\x97\xe9\xa4\x90\xe5\xb7\xb2\xe5\x88\xb0\xe6\x9c\x9f" /* 套餐已到期 (Zhipu 1309) */, "\xe5\xa5\x97\xe9\xa4\x90\xe5\xb7\xb2\xe8\xbf\x87\xe6\x9c\x9f" /* 套餐已过期 */,
    "payment information", /* DashScope FreeTierOnly: "please complete your payment information" */
    "payment is past due", /* Ollama Cloud: "your subscription payment is past due" */
};

bool lg_text_says_credit(const char *t, size_t n)
{
    return any_phrase(t, n, credit_phrases, COUNT(credit_phrases));
}

/* A period of an hour or longer named in a limit: it decides between a quota and a rate whatever code
 * comes with it (lg_text_info.period). */
static const char *const period_phrases[] = {
    "per hour", "hourly", "per day", "daily", "per month", "monthly", "per week", "weekly", "perhour", "perday",
    "permonth", "perweek", "byhour", "byday", "byweek", "bymonth", "\xe5\xb0\x8f\xe6\x97\xb6" /* 小时 */,
    "\xe6\xaf\x8f\xe5\xa4\xa9" /* 每天 */, "\xe6\xaf\x8f\xe6\x97\xa5" /* 每日 */, "\xe5\xbd\x93\xe6\x97\xa5" /* 当日 */,
    "\xe6\xaf\x8f\xe6\x9c\x88" /* 每月 */, "\xe5\xa4\xa9\xe5\x86\x85" /* 天内 */, "\xe4\xbb\x8a\xe6\x97\xa5" /* 今日 */,
    "\xe6\x9c\xac\xe6\x97\xa5" /* 本日 */, "\xe6\x9c\xac\xe6\x9c\x88" /* 本月 */, "\xe6\xaf\x8f\xe5\x91\xa8" /* 每周 */,
    "\xe6\x9c\xac\xe5\x91\xa8" /* 本周 */,
};
static const char *const period_words[] = {"tpd", "rpd", "tph", "rph"};

/* Other strong quota phrases: out of something that does not come back within minutes (spend caps, usage
 * allowances, suspended accounts, free tiers, packages, exhausted quotas). */
static const char *const quota_phrases[] = {
    "spend limit", "spending limit", "usage limit", "extra usage", "billing hard limit", "hard limit",
    "account is not active", "account has been suspended", "is suspended", "good standing", "free allocated quota",
    "free tier of the model", "free quota", "resource package",
    "\xe4\xbd\xbf\xe7\x94\xa8\xe4\xb8\x8a\xe9\x99\x90" /* 使用上限 */, "budget has been exceeded", "budget exceeded",
    "exceeded budget", "exceeded the budget", "exceeded your budget", "crossed budget", "over budget",
    "quota is not enough", "quota not enough", "not enough quota", "quota exhausted", "quota is exhausted",
    "quota has been exhausted", "quota used up", "\xe9\xa2\x9d\xe5\xba\xa6\xe4\xb8\x8d\xe8\xb6\xb3" /* 额度不足 */,
    "\xe9\xa2\x9d\xe5\xba\xa6\xe5\xb7\xb2\xe7\x94\xa8\xe5\xb0\xbd" /* 额度已用尽 */, "\xe9\xa2\x9d\xe5\xba\xa6\xe7\x94\xa8\xe5\xb0\xbd" /* 额度用尽 */,
    "\xe9\x85\x8d\xe9\xa2\x9d\xe4\xb8\x8d\xe8\xb6\xb3" /* 配额不足 */, "\xe9\x85\x8d\xe9\xa2\x9d\xe5\xb7\xb2\xe7\x94\xa8\xe5\xb0\xbd" /* 配额已用尽 */,
};


/* Quotas without a period: they decide unless a per-second or per-minute window is named ("out of the
 * per-minute quota" is a window). A lifetime cap ("Key limit exceeded (total limit)", Baidu's "total request
 * limit"); "out of ... quota" is out_of_quota. */
static const char *const unperiodic_quota_phrases[] = {"total limit"};

/* Weak quota phrases: they decide only when no window is named. "exceeded your current quota" and
 * "billing" also appear in per-minute refusals (Gemini, Together, Groq's upgrade links). */
static const char *const weak_quota_phrases[] = {"exceeded your current quota", "billing"};

static const char *const capacity_phrases[] = {
    "overloaded", "over capacity", "capacity exceeded", "no capacity", "at capacity", "insufficient capacity",
    "out of capacity", "capacity temporarily", "currently unable to handle", "high demand",
    "experiencing high traffic", "too busy", "server is busy", "model busy", "model is busy", "models are busy",
    "system busy", "system is busy", "service busy", "service is busy",
    "server busy", /* Ollama: "server busy, please try again.  maximum pending requests exceeded" */
    "no slots available", "no slot available", /* a model server whose every slot is taken */
    "capacity limit", /* Qwen: "throttled due to system capacity limits" */
    "\xe7\xb9\x81\xe5\xbf\x99" /* 繁忙 */, "\xe8\xae\xbf\xe9\x97\xae\xe9\x87\x8f\xe8\xbf\x87\xe5\xa4\xa7" /* 访问量过大 */,
    "\xe8\xb4\x9f\xe8\xbd\xbd\xe8\xbf\x87\xe9\xab\x98" /* 负载过高 */,
    "\xe8\xb4\x9f\xe8\xbd\xbd\xe8\xbe\x83\xe9\xab\x98" /* 负载较高 */, "saturated", "\xe9\xa5\xb1\xe5\x92\x8c" /* 饱和 */,
};

/* A provider shedding load refuses for its own capacity, whatever limit words its controller's metrics carry
 * (Grok: "Admission denied by perf_based_admission_controller: load_shed_probability=0.848480,
 * soft_limit_metric=prefill_queued_to_running, hard_limit_metric=none"). */
static const char *const shed_phrases[] = {"load shed"};

/* A per-second or per-minute window, or concurrency. */
static const char *const window_phrases[] = {
    "per minute", "per min", "per second", "per sec", "perminute", "persecond", "byminute", "bysecond",
    "concurren", "\xe5\xb9\xb6\xe5\x8f\x91" /* 并发 */, "parallel request" /* LiteLLM's max_parallel_requests */,
    "stream cap", /* codex-lb's account_stream_cap: open streams per account */
    "\xe6\xaf\x8f\xe7\xa7\x92" /* 每秒 */, "\xe6\xaf\x8f\xe5\x88\x86\xe9\x92\x9f" /* 每分钟 */,
    "\xe5\x88\x86\xe9\x92\x9f\xe5\x86\x85" /* 分钟内 */, "\xe7\xa7\x92\xe5\x86\x85" /* 秒内 */,
};
static const char *const window_words[] = {"rpm", "tpm", "rps", "tps", "qps", "ipm", "itpm", "otpm"};

/* Throttling without a named window. */
static const char *const rate_phrases[] = {
    "rate limit", "ratelimit", "rate limited", "too many requests", "too many tokens", "throttl",
    "requests rate", "call rate", "request frequency", "\xe9\x80\x9f\xe7\x8e\x87\xe9\x99\x90\xe5\x88\xb6" /* 速率限制 */,
    "\xe8\xaf\xb7\xe6\xb1\x82\xe9\xa2\x91\xe7\x8e\x87" /* 请求频率 */, "\xe9\x99\x90\xe6\xb5\x81" /* 限流 */,
    "\xe9\xa2\x91\xe7\x8e\x87\xe8\xbf\x87\xe9\xab\x98" /* 频率过高 */,
    "\xe9\xa2\x91\xe7\x8e\x87\xe8\xbf\x87\xe5\xbf\xab" /* 频率过快 */,
    "\xe8\xaf\xb7\xe6\xb1\x82\xe8\xbf\x87\xe5\xa4\x9a" /* 请求过多 */,
    "\xe8\xbf\x87\xe4\xba\x8e\xe9\xa2\x91\xe7\xb9\x81" /* 过于频繁 */,
    "time frame", "timeframe", "time window", /* "tokens allowed within a given time frame" */
    "token bucket", /* Databricks: "RPC token bucket limit has been exceeded" */
};

static const char *const never_fit_phrases[] = {
    "request too large", "too large for", "context length", "maximum context", "context window",
    "prompt is too long", "input is too long", "reduce the length of the messages", "exceeds the maximum number of tokens",
    "context size", /* llama.cpp: "Context size has been exceeded.", "exceeds the available context size" */
    "tokens in the prompt", /* Cohere: "total number of tokens in the prompt cannot exceed 4081" */
    "maximum model length", /* vLLM: "The decoder prompt (length 66501) is longer than the maximum model length" */
};

/* A quota reset that is an hour or more away ("Your quota will reset after 12h34m16s."). */
#define LONG_RESET_MS 3600000

static bool is_letter(char ch)
{
    return (ch | 0x20) >= 'a' && (ch | 0x20) <= 'z';
}

/* Milliseconds of the time unit word at t[i] (ending at a byte that is no letter), 0 when none: s, sec,
 * second(s), m, min, minute(s), h, hr, hour(s), d, day(s), week(s), month(s). */
static int64_t unit_at(const char *t, size_t n, size_t i)
{
    static const struct {
        const char *w;
        int64_t ms;
    } units[] = {{"s", 1000},        {"sec", 1000},     {"second", 1000},     {"seconds", 1000}, {"m", 60000},
                 {"min", 60000},     {"minute", 60000}, {"minutes", 60000},   {"h", 3600000},    {"hr", 3600000},
                 {"hour", 3600000},  {"hours", 3600000}, {"d", 86400000},     {"day", 86400000}, {"days", 86400000},
                 {"week", 604800000}, {"weeks", 604800000}, {"month", 2592000000}, {"months", 2592000000}};
    size_t e = i;
    while (e < n && is_letter(t[e]))
        e++;
    for (size_t k = 0; k < COUNT(units); k++)
        if (strlen(units[k].w) == e - i && e > i && !strncasecmp(t + i, units[k].w, e - i))
            return units[k].ms;
    return 0;
}

/* True when the '/' at t[i] belongs to a URL or a path: the word it ends holds ':' or '.' ("https://x.y/"). */
static bool in_url(const char *t, size_t i)
{
    for (size_t k = i; k > 0 && t[k - 1] != ' ' && t[k - 1] != '\n' && t[k - 1] != '('; k--)
        if (t[k - 1] == ':' || t[k - 1] == '.' || t[k - 1] == '/')
            return true;
    return false;
}

/* True when the word before t[i] counts what a window limits ("too many requests in 1 hour"). */
static bool counted_before(const char *t, size_t i)
{
    static const char *const nouns[] = {"requests", "request", "messages", "calls", "tokens"};
    return lg_text_word_before(t, i, nouns, COUNT(nouns));
}

/* The longest window written as a rate: "1000 calls / month", "60/min", "8 per 86400s", "5 per 10 seconds",
 * or as a count in a span: "too many requests in 1 hour", "requests in the last day"; 0 when none. */
static int64_t rate_span(const char *t, size_t n)
{
    int64_t best = 0;
    for (size_t i = 0; i < n; i++) {
        size_t j = i + 1, count = 1;
        if (t[i] == '/') {
            if (in_url(t, i))
                continue;
            while (j < n && t[j] == ' ')
                j++;
            if (j + 3 > n || !is_letter(t[j]) || !is_letter(t[j + 1]) || !is_letter(t[j + 2]))
                continue; /* a unit of three letters or more after a slash ("/min", "/ month"), not "/d" */
        } else if (i + 4 <= n && !strncasecmp(t + i, "per ", 4) && (i == 0 || !is_alnum((unsigned char)t[i - 1]))) {
            for (j = i + 4, count = 0; j < n && t[j] >= '0' && t[j] <= '9' && count < 100000000; j++)
                count = count * 10 + (size_t)(t[j] - '0');
            if (j == i + 4)
                continue; /* "per minute" is a phrase of window_phrases */
            while (j < n && t[j] == ' ')
                j++;
        } else if (i + 3 <= n && !strncasecmp(t + i, "in ", 3) && counted_before(t, i)) {
            j = i + 3;
            bool last = j + 9 <= n && (!strncasecmp(t + j, "the last ", 9) || !strncasecmp(t + j, "the past ", 9));
            j += last ? 9 : 0;
            for (count = 0; j < n && t[j] >= '0' && t[j] <= '9' && count < 100000000; j++)
                count = count * 10 + (size_t)(t[j] - '0');
            if (!count && j + 3 <= n && !strncasecmp(t + j, "an ", 3))
                j += 3, count = 1;
            else if (!count && j + 2 <= n && !strncasecmp(t + j, "a ", 2))
                j += 2, count = 1;
            else if (!count && last) /* "in the last hour" */
                count = 1;
            while (j < n && t[j] == ' ')
                j++;
        } else {
            continue;
        }
        int64_t ms = unit_at(t, n, j) * (int64_t)count;
        best = ms > best ? ms : best;
    }
    return best;
}

/* "limit: 0" (Gemini): a limit of zero, not 0.5 or 05. */
static bool zero_limit(const char *t, size_t n)
{
    for (long at = lg_text_find(t, n, "limit: 0"); at >= 0; at = lg_text_find_from(t, n, (size_t)at + 1, "limit: 0")) {
        size_t end = (size_t)at + 8;
        if (end >= n || !(is_alnum((unsigned char)t[end]) || t[end] == '.'))
            return true;
    }
    return false;
}

/* True when lead is followed within 40 bytes of the same clause (no punctuation between) by noun: "Out of
 * call volume quota" (Azure API Management), "reached its usage limit". */
static bool lead_then_noun(const char *t, size_t n, const char *lead, const char *noun)
{
    size_t m = strlen(lead);
    for (long at = lg_text_find(t, n, lead); at >= 0; at = lg_text_find_from(t, n, (size_t)at + 1, lead)) {
        size_t from = (size_t)at + m, end = from + 40 < n ? from + 40 : n;
        long q = lg_text_find_from(t, end, from, noun);
        size_t k = from;
        while (q >= 0 && k < (size_t)q && !strchr(".,;:!?\n", t[k]))
            k++;
        if (q >= 0 && k == (size_t)q)
            return true;
    }
    return false;
}

/* Out of a quota named a few words later: "Out of call volume quota". */
static bool out_of_quota(const char *t, size_t n)
{
    return lead_then_noun(t, n, "out of ", "quota");
}

/* A usage cap said to be reached: "API key reached its usage limit" (LLMGateway: the key's configured cap
 * spent), "you have reached your session usage limit" (Ollama Cloud), "You've reached your usage limit for
 * this billing cycle" (Kimi Code), "usage limit reached" (Claude, Codex). */
static bool usage_cap_reached(const char *t, size_t n)
{
    return lead_then_noun(t, n, "reached ", "usage limit") || lg_text_find(t, n, "usage limit reached") >= 0;
}

/* The first number after an occurrence of keyword ("Limit 30000", "Requested: 36,821"). */
static bool number_after(const char *t, size_t n, const char *keyword, int64_t *v)
{
    size_t m = strlen(keyword);
    for (long at = lg_text_find(t, n, keyword); at >= 0; at = lg_text_find_from(t, n, (size_t)at + 1, keyword)) {
        size_t i = (size_t)at + m;
        while (i < n && (t[i] == ' ' || t[i] == ':' || t[i] == '~'))
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

/* A count asked beside the bound it exceeds: "Limit 30000, Requested 36821" (OpenAI, Groq), "Max is 16384
 * got 17555" (Mistral's batches): the request alone is over the bound. */
static bool over_bound(const char *t, size_t n)
{
    static const struct {
        const char *bound, *asked;
    } pairs[] = {{"limit", "requested"}, {"max is", "got"}};
    int64_t bound, asked;
    for (size_t i = 0; i < COUNT(pairs); i++)
        if (number_after(t, n, pairs[i].bound, &bound) && number_after(t, n, pairs[i].asked, &asked) && asked > bound)
            return true;
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
        long at = pats[i].word ? find_word(t, n, pats[i].p) : lg_text_find(t, n, pats[i].p);
        if (at >= 0 && (best < 0 || at < best)) {
            best = at;
            dim = pats[i].d;
        }
    }
    return dim;
}

lg_text_info lg_text_signal(const char *t, size_t n)
{
    lg_text_info r = {LG_SIG_NONE, false, false, false, LG_DIM_NONE, LG_SIG_NONE, false, false};
    if (!t || !n)
        return r;
    int64_t reset;
    r.never_fit = any_phrase(t, n, never_fit_phrases, COUNT(never_fit_phrases)) || over_bound(t, n);
    r.dim = text_dimension(t, n);
    int64_t span = rate_span(t, n);
    r.window_named = any_phrase(t, n, window_phrases, COUNT(window_phrases)) ||
                     any_word(t, n, window_words, COUNT(window_words)) || (span > 0 && span < LONG_RESET_MS);
    bool long_period = span >= LONG_RESET_MS || any_phrase(t, n, period_phrases, COUNT(period_phrases)) ||
                       any_word(t, n, period_words, COUNT(period_words));
    /* The period named decides when only one kind is named. A limit of zero is no window that passes, whatever
     * its period ("Limit: 0/1min"). */
    bool zero = zero_limit(t, n);
    r.period = zero || (long_period && !r.window_named) ? LG_SIG_QUOTA
               : r.window_named && !long_period        ? LG_SIG_RATE
                                                       : LG_SIG_NONE;
    r.credit = lg_text_says_credit(t, n);
    r.cap_reached = usage_cap_reached(t, n);
    if (any_phrase(t, n, shed_phrases, COUNT(shed_phrases)))
        r.sig = LG_SIG_CAPACITY;
    else if (zero || long_period || r.credit || any_phrase(t, n, quota_phrases, COUNT(quota_phrases)) ||
        (lg_prose_reset_wait(t, n, &reset) && reset >= LONG_RESET_MS) ||
        (!r.window_named &&
         (out_of_quota(t, n) || any_phrase(t, n, unperiodic_quota_phrases, COUNT(unperiodic_quota_phrases)))))
        r.sig = LG_SIG_QUOTA;
    else if (any_phrase(t, n, capacity_phrases, COUNT(capacity_phrases)))
        r.sig = LG_SIG_CAPACITY;
    /* Scaleway words every rate limit as "INSUFFICIENT QUOTA" (upper case). */
    else if (r.window_named || memmem(t, n, "INSUFFICIENT QUOTA", 18))
        r.sig = LG_SIG_RATE;
    else if (any_phrase(t, n, rate_phrases, COUNT(rate_phrases)))
        r.sig = LG_SIG_RATE, r.vague = true;
    else if (any_phrase(t, n, weak_quota_phrases, COUNT(weak_quota_phrases)))
        r.sig = LG_SIG_QUOTA;
    return r;
}
