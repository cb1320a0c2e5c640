/* One reading of a rate-limit header, for the limiter (learn.c) and the classifier (ratelimit_headers.c).
 *
 * Names. Providers spell them x-ratelimit-remaining-tokens (OpenAI, Groq), x-rate-limit-reset-tokens
 * (Azure), anthropic-ratelimit-input-tokens-reset, x-ratelimit-reset-tokens-minute and -requests-day
 * (Cerebras), x-ratelimit-remaining-req-minute (Mistral), X-RateLimit-Remaining and X-RateLimit-Reset
 * (OpenRouter, gateways), x-ratelimit-minute-limit (window first). A name is split into words at '-', '_'
 * and ' ' (ASCII lower-cased; a name with a word of 16 letters or more, or with more than 8 words, is none).
 * After the first word "ratelimit" (or the words "rate" "limit"), the first word that is limit, remaining,
 * reset or status is the kind; the other words, joined by '-', are the family key, of which "requests" /
 * "request" / "req" and "tokens" / "token" (after "input" or "output": input or output tokens; the last such
 * word counts) name the dimension, and second…monthly or a span such as "5h" / "7d" the window (the last
 * counts). A key of more than LG_RLH_KEY - 2 letters makes the name none. A name with no word beginning
 * "rate" is rejected by one look at each word's first letters; with exact_only (the limiter's families,
 * read on every response), by its first letters alone.
 *
 * Counts. lg_rlh_count is strtoll's reading: blanks and a sign may lead, spaces may follow, nothing else.
 * The classifier takes every such value (-1: the provider reports no limit for the family); the limiter
 * (learn.c) only a non-negative one that starts with a digit.
 *
 * Resets. A Go duration ("6m0s", "7.66s", "20ms"), else plain seconds ("20", "11.38"), else an RFC 3339 time,
 * else an HTTP date, in that order. The limiter takes a duration or seconds as ms from now, an RFC 3339 time
 * made relative to now (0 when past), and no HTTP date; the classifier takes seconds of 10^12 ms or more as a
 * Unix time (seconds, or ms from 10^15), and both dates as absolute times. */
#include <stdlib.h>
#include <string.h>

#include "classify/dialects.h"
#include "classify/rl_header.h"
#include "llmgate/duration.h"

#define WORDS_MAX 8
#define WORD_LEN 16

/* s past word (lower-case ASCII) when s starts with it in any case, else NULL; stops at the first letter
 * that differs. */
static const char *past(const char *s, const char *word)
{
    for (; *word; s++, word++)
        if ((*s >= 'A' && *s <= 'Z' ? *s + ('a' - 'A') : *s) != *word)
            return NULL;
    return s;
}

/* Whether name can be one of the limiter's exact families: it begins x-ratelimit- or anthropic-ratelimit-. */
static bool exact_prefix(const char *name)
{
    char first = (char)(*name | 0x20); /* x or a for X, x, A and a only */
    return (first == 'x' && past(name + 1, "-ratelimit-")) ||
           (first == 'a' && past(name + 1, "nthropic-ratelimit-"));
}

static bool is_sep(char c)
{
    return c == '-' || c == '_' || c == ' ';
}

/* Whether a word of name begins with "rate" in any case (a name without one is none). */
static bool rate_word(const char *p)
{
    for (;;) {
        if ((p[0] | 0x20) == 'r' && (p[1] | 0x20) == 'a' && (p[2] | 0x20) == 't' && (p[3] | 0x20) == 'e')
            return true;
        for (; !is_sep(*p); p++)
            if (!*p)
                return false;
        p++;
    }
}

/* Whether the n letters at w are lit. */
#define IS(w, n, lit) ((n) == sizeof lit - 1 && !memcmp((w), lit, sizeof lit - 1))

static lg_rlh_kind kind_of(const char *w, size_t n)
{
    return IS(w, n, "limit")       ? LG_RLH_LIMIT
           : IS(w, n, "remaining") ? LG_RLH_REMAINING
           : IS(w, n, "reset")     ? LG_RLH_RESET
           : IS(w, n, "status")    ? LG_RLH_STATUS
                                   : LG_RLH_NO_KIND;
}

/* A window word: "minute", "min", "day", or a span such as "5h" or "7d". */
static lg_window window_of(const char *w, size_t n)
{
    static const struct {
        const char *w;
        size_t n;
        lg_window win;
    } names[] = {{"second", 6, LG_WIN_SECOND}, {"sec", 3, LG_WIN_SECOND},    {"minute", 6, LG_WIN_MINUTE},
                 {"min", 3, LG_WIN_MINUTE},    {"hour", 4, LG_WIN_HOUR},      {"hourly", 6, LG_WIN_HOUR},
                 {"day", 3, LG_WIN_DAY},       {"daily", 5, LG_WIN_DAY},      {"week", 4, LG_WIN_WEEK},
                 {"weekly", 6, LG_WIN_WEEK},   {"month", 5, LG_WIN_MONTH},    {"monthly", 7, LG_WIN_MONTH}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (n == names[i].n && !memcmp(w, names[i].w, n))
            return names[i].win;
    size_t d = 0;
    while (d < n && w[d] >= '0' && w[d] <= '9')
        d++;
    if (d && d + 1 == n)
        switch (w[d]) {
        case 's':
            return LG_WIN_SECOND;
        case 'm':
            return LG_WIN_MINUTE;
        case 'h':
            return LG_WIN_HOUR;
        case 'd':
            return LG_WIN_DAY;
        case 'w':
            return LG_WIN_WEEK;
        }
    return LG_WIN_NONE;
}

/* The reading of one name, word by word. */
typedef struct {
    size_t n;          /* words so far */
    size_t from;       /* index of the first word after "ratelimit" / "rate" "limit"; 0: not met yet */
    size_t one_word;   /* index of that "ratelimit" word + 1 when it was one word */
    size_t kind_at;    /* index of the kind word */
    size_t klen;       /* letters in out->key */
    bool after_rate;   /* the previous word was "rate" (before the prefix's end) */
    int io;            /* the previous word (after the prefix) was 1: "input", 2: "output" */
    int first;         /* the first word: 1 "x", 2 "anthropic", else 0 */
} reading;

/* Takes the word w of n letters; false when the name is none after all (its key too long). */
static bool word(reading *r, const char *w, size_t n, lg_rlh_name *out)
{
    size_t i = r->n++;
    if (!r->from) {
        if (i == 0)
            r->first = IS(w, n, "x") ? 1 : IS(w, n, "anthropic") ? 2 : 0;
        if (IS(w, n, "ratelimit"))
            r->from = r->one_word = i + 1;
        else if (r->after_rate && IS(w, n, "limit"))
            r->from = i + 1;
        r->after_rate = IS(w, n, "rate");
        return true;
    }
    if (IS(w, n, "requests") || IS(w, n, "request") || IS(w, n, "req"))
        out->dim = LG_DIM_REQUESTS;
    else if (IS(w, n, "tokens") || IS(w, n, "token"))
        out->dim = r->io == 1 ? LG_DIM_INPUT_TOKENS : r->io == 2 ? LG_DIM_OUTPUT_TOKENS : LG_DIM_TOKENS;
    r->io = IS(w, n, "input") ? 1 : IS(w, n, "output") ? 2 : 0;
    lg_rlh_kind k = out->kind == LG_RLH_NO_KIND ? kind_of(w, n) : LG_RLH_NO_KIND;
    if (k != LG_RLH_NO_KIND) {
        out->kind = k;
        r->kind_at = i;
        return true;
    }
    lg_window win = window_of(w, n);
    if (win != LG_WIN_NONE)
        out->window = win;
    if (r->klen + n + 2 > sizeof out->key)
        return false;
    if (r->klen)
        out->key[r->klen++] = '-';
    memcpy(out->key + r->klen, w, n);
    out->key[r->klen += n] = '\0';
    return true;
}

/* Which of the limiter's families a name read as r is: x-ratelimit-KIND-{requests,tokens} or
 * anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-KIND, words joined by single '-'. */
static lg_rlh_exact exact_of(const reading *r, bool plain, const lg_rlh_name *out)
{
    if (!plain || r->one_word != 2 || out->kind == LG_RLH_STATUS)
        return LG_RLH_INEXACT;
    const char *k = out->key;
    if (r->first == 1 && r->kind_at == 2)
        return !strcmp(k, "requests") ? LG_RLH_OPENAI_REQUESTS
               : !strcmp(k, "tokens") ? LG_RLH_OPENAI_TOKENS
                                      : LG_RLH_INEXACT;
    if (r->first == 2 && r->kind_at == r->n - 1)
        return !strcmp(k, "requests")        ? LG_RLH_ANTHROPIC_REQUESTS
               : !strcmp(k, "tokens")        ? LG_RLH_ANTHROPIC_TOKENS
               : !strcmp(k, "input-tokens")  ? LG_RLH_ANTHROPIC_INPUT
               : !strcmp(k, "output-tokens") ? LG_RLH_ANTHROPIC_OUTPUT
                                             : LG_RLH_INEXACT;
    return LG_RLH_INEXACT;
}

bool lg_rlh_name_of(const char *name, bool exact_only, lg_rlh_name *out)
{
    if (!name || !(exact_only ? exact_prefix(name) : rate_word(name)))
        return false;
    out->kind = LG_RLH_NO_KIND;
    out->dim = LG_DIM_NONE;
    out->window = LG_WIN_NONE;
    out->key[0] = '\0';
    reading r = {0};
    bool plain = true; /* words joined by single '-', none before the first or after the last */
    char w[WORD_LEN];
    size_t len = 0;
    for (const char *p = name;; p++) {
        char c = *p;
        if (c && !is_sep(c)) {
            if (len + 1 >= WORD_LEN)
                return false;
            w[len++] = (char)(c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c);
            continue;
        }
        plain = plain && len && (!c || c == '-');
        if (len && (!word(&r, w, len, out) || (r.n == WORDS_MAX && c)))
            return false;
        if (!c)
            break;
        len = 0;
    }
    if (!r.from || out->kind == LG_RLH_NO_KIND)
        return false;
    out->exact = exact_of(&r, plain, out);
    return !exact_only || out->exact != LG_RLH_INEXACT;
}

bool lg_rlh_count(const char *v, int64_t *out)
{
    char *end;
    long long x = strtoll(v, &end, 10);
    while (*end == ' ')
        end++;
    if (end == v || *end)
        return false;
    *out = x;
    return true;
}

lg_rlh_reset_form lg_rlh_reset(const char *v, int64_t *x)
{
    size_t n = strlen(v);
    if (lg_parse_go_duration(v, n, x))
        return LG_RLH_DURATION;
    if (lg_parse_delta_seconds(v, n, x))
        return LG_RLH_SECONDS;
    if (lg_parse_rfc3339(v, n, x))
        return LG_RLH_RFC3339;
    if (lg_parse_http_date(v, n, x))
        return LG_RLH_HTTP_DATE;
    return LG_RLH_BAD;
}
