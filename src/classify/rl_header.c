/* One reading of a rate-limit header, for the limiter (learn.c) and the classifier (ratelimit_headers.c).
 *
 * Names. Providers spell them x-ratelimit-remaining-tokens (OpenAI, Groq), x-rate-limit-reset-tokens
 * (Azure), anthropic-ratelimit-input-tokens-reset, x-ratelimit-reset-tokens-minute and -requests-day
 * (Cerebras), x-ratelimit-remaining-req-minute (Mistral), X-RateLimit-Remaining and X-RateLimit-Reset
 * (OpenRouter, gateways), x-ratelimit-minute-limit (window first). A name is split into words at '-', '_'
 * and ' ' (ASCII lower-cased; a name with a word of 16 letters or more, or with more than 8 words, is none).
 * After the first word "ratelimit" (or the words "rate" "limit"), the first word that is limit, remaining,
 * reset, status or type is the kind; the other words, joined by '-', are the family key, of which "requests" /
 * "request" / "req" and "tokens" / "token" (after "input" or "output": input or output tokens; the last such
 * word counts) name the dimension, and second…monthly or a span such as "5h" / "7d" the window (the last
 * counts). A key of more than LG_RLH_KEY - 2 letters makes the name none. A name with no word beginning
 * "rate" is rejected by one pass that compares only each word's first letters; with exact_only (the
 * limiter's families, read on every response), by its first four letters (lg_rlh_may_be_exact, inline) or
 * the compare with x-ratelimit- / anthropic-ratelimit-, which stops at the first letter that differs.
 *
 * Counts. lg_rlh_count is strtoll's reading: blanks and a sign may lead, spaces may follow, nothing else (up
 * to 18 bare digits, the usual value, are read without strtoll).
 * The classifier takes every such value (-1: the provider reports no limit for the family); the limiter
 * (learn.c) only a non-negative one that starts with a digit.
 *
 * Resets. A Go duration ("6m0s", "7.66s", "20ms"), else plain seconds ("20", "11.38"; a whole number of 13
 * digits or more, a Unix time in ms, is read as seconds too, scaled alike), else an RFC 3339 time, else an
 * HTTP date, in that order (a duration of the usual shape, "999ms" or "6m0s", is read on its own first, as the
 * general reader reads it: usual_duration). Both take seconds of 10^12 ms or more as a Unix time (seconds, or ms from
 * 10^15), other seconds and durations as ms from now; the limiter makes an RFC 3339 time relative to now (0
 * when past) and takes no HTTP date; the classifier takes both dates as absolute times. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "classify/dialects.h"
#include "classify/rl_header.h"
#include "llmgate/duration.h"

#define WORDS_MAX 8
#define WORD_LEN 16

/* s past lit (n lower-case letters and '-') when s begins with it in any case, else NULL: one compare a
 * letter, unrolled (lit is a constant), stopping at the first that differs (the NUL at the latest). */
static inline __attribute__((always_inline)) const char *past(const char *s, const char *lit, size_t n)
{
#pragma GCC unroll 24
    for (size_t i = 0; i < n; i++)
        if (lit[i] == '-' ? s[i] != '-' : (s[i] | 0x20) != lit[i])
            return NULL;
    return s + n;
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

/* Whether the n letters at w are lit (a constant: the compare is inline). */
#define IS(w, n, lit) ((n) == sizeof lit - 1 && !memcmp((w), lit, sizeof lit - 1))

/* The window a span such as "5h" or "7d" names; LG_WIN_NONE for any other word. */
static lg_window span_of(const char *w, size_t n)
{
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

/* What a word after the prefix says (each word says at most one kind, dimension or window). */
typedef struct {
    lg_rlh_kind kind; /* limit, remaining, reset, status */
    int dim;          /* LG_DIM_REQUESTS for requests / request / req, LG_DIM_TOKENS for tokens / token */
    int io;           /* 1: "input", 2: "output" */
    lg_window window; /* second … monthly, or a span */
    int exact;        /* the word is 1: "requests", 2: "tokens", 3: "input", 4: "output" (the exact families') */
} word_sense;

static word_sense sense_of(const char *w, size_t n)
{
    word_sense s = {LG_RLH_NO_KIND, LG_DIM_NONE, 0, LG_WIN_NONE, 0};
    switch (n) { /* the words by length: each word is compared with those of its length only */
    case 3:
        s.dim = IS(w, n, "req") ? LG_DIM_REQUESTS : LG_DIM_NONE;
        s.window = IS(w, n, "sec")   ? LG_WIN_SECOND
                   : IS(w, n, "min") ? LG_WIN_MINUTE
                   : IS(w, n, "day") ? LG_WIN_DAY
                                     : LG_WIN_NONE;
        break;
    case 4:
        s.kind = IS(w, n, "type") ? LG_RLH_TYPE : LG_RLH_NO_KIND;
        s.window = IS(w, n, "hour") ? LG_WIN_HOUR : IS(w, n, "week") ? LG_WIN_WEEK : LG_WIN_NONE;
        break;
    case 5:
        s.kind = IS(w, n, "limit") ? LG_RLH_LIMIT : IS(w, n, "reset") ? LG_RLH_RESET : LG_RLH_NO_KIND;
        s.dim = IS(w, n, "token") ? LG_DIM_TOKENS : LG_DIM_NONE;
        s.io = IS(w, n, "input");
        s.exact = s.io ? 3 : 0;
        s.window = IS(w, n, "daily") ? LG_WIN_DAY : IS(w, n, "month") ? LG_WIN_MONTH : LG_WIN_NONE;
        break;
    case 6:
        s.kind = IS(w, n, "status") ? LG_RLH_STATUS : LG_RLH_NO_KIND;
        s.dim = IS(w, n, "tokens") ? LG_DIM_TOKENS : LG_DIM_NONE;
        s.io = IS(w, n, "output") ? 2 : 0;
        s.exact = s.dim ? 2 : s.io ? 4 : 0;
        s.window = IS(w, n, "second")   ? LG_WIN_SECOND
                   : IS(w, n, "minute") ? LG_WIN_MINUTE
                   : IS(w, n, "hourly") ? LG_WIN_HOUR
                   : IS(w, n, "weekly") ? LG_WIN_WEEK
                                        : LG_WIN_NONE;
        break;
    case 7:
        s.dim = IS(w, n, "request") ? LG_DIM_REQUESTS : LG_DIM_NONE;
        s.window = IS(w, n, "monthly") ? LG_WIN_MONTH : LG_WIN_NONE;
        break;
    case 8:
        s.dim = IS(w, n, "requests") ? LG_DIM_REQUESTS : LG_DIM_NONE;
        s.exact = s.dim ? 1 : 0;
        break;
    case 9:
        s.kind = IS(w, n, "remaining") ? LG_RLH_REMAINING : LG_RLH_NO_KIND;
        break;
    }
    if (*w >= '0' && *w <= '9')
        s.window = span_of(w, n);
    return s;
}

/* The reading of one name, word by word. */
typedef struct {
    size_t n;         /* words so far */
    size_t from;      /* index of the first word after "ratelimit" / "rate" "limit"; 0: not met yet */
    size_t one_word;  /* index of that "ratelimit" word + 1 when it was one word */
    size_t kind_at;   /* index of the kind word */
    size_t klen;      /* letters in the key (written into out->key only when want_key) */
    bool want_key;    /* the key is wanted (not only an exact family) */
    size_t key_words; /* words in the key */
    int key_exact[2]; /* word_sense.exact of its first two words */
    bool after_rate;  /* the previous word was "rate" (before the prefix's end) */
    int io;           /* the previous word (after the prefix) was 1: "input", 2: "output" */
    int first;        /* the first word: 1 "x", 2 "anthropic", else 0 */
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
    word_sense s = sense_of(w, n);
    if (s.dim == LG_DIM_TOKENS) /* the last dimension word counts; tokens after input or output are those */
        out->dim = r->io == 1 ? LG_DIM_INPUT_TOKENS : r->io == 2 ? LG_DIM_OUTPUT_TOKENS : LG_DIM_TOKENS;
    else if (s.dim != LG_DIM_NONE)
        out->dim = s.dim;
    r->io = s.io;
    if (s.kind != LG_RLH_NO_KIND && out->kind == LG_RLH_NO_KIND) {
        out->kind = s.kind;
        r->kind_at = i;
        return true;
    }
    if (s.window != LG_WIN_NONE)
        out->window = s.window;
    if (r->klen + n + 2 > sizeof out->key)
        return false;
    if (r->key_words < 2)
        r->key_exact[r->key_words] = s.exact;
    r->key_words++;
    if (!r->want_key) {
        r->klen += n + (r->klen != 0);
        return true;
    }
    char *k = out->key + r->klen;
    if (r->klen)
        *k++ = '-';
    for (size_t j = 0; j < n; j++)
        k[j] = w[j];
    k[n] = '\0';
    r->klen = (size_t)(k + n - out->key);
    return true;
}

/* Which of the limiter's families a name read as r is: x-ratelimit-KIND-{requests,tokens} or
 * anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-KIND, words joined by single '-'. */
static lg_rlh_exact exact_of(const reading *r, bool plain, const lg_rlh_name *out)
{
    if (!plain || r->one_word != 2 || out->kind == LG_RLH_STATUS || out->kind == LG_RLH_TYPE)
        return LG_RLH_INEXACT;
    int k0 = r->key_exact[0], k1 = r->key_exact[1];
    bool one = r->key_words == 1 && (k0 == 1 || k0 == 2); /* requests or tokens */
    if (r->first == 1 && r->kind_at == 2)
        return one ? (lg_rlh_exact)(LG_RLH_OPENAI_REQUESTS + k0 - 1) : LG_RLH_INEXACT;
    if (r->first == 2 && r->kind_at == r->n - 1) {
        if (one)
            return (lg_rlh_exact)(LG_RLH_ANTHROPIC_REQUESTS + k0 - 1);
        if (r->key_words == 2 && (k0 == 3 || k0 == 4) && k1 == 2) /* input or output, then tokens */
            return k0 == 3 ? LG_RLH_ANTHROPIC_INPUT : LG_RLH_ANTHROPIC_OUTPUT;
    }
    return LG_RLH_INEXACT;
}

/* Reads the name from p on; see lg_rlh_name_of. With exact_only, the name's first two words (x or
 * anthropic: first 1 or 2, then ratelimit) end just before p. Out of line: the names rejected by their first
 * letters cost no more than that test. */
static __attribute__((noinline)) bool read_name(const char *p, int first, bool exact_only, lg_rlh_name *out)
{
    size_t done = exact_only ? 2 : 0;
    reading r = {.n = done, .from = done, .one_word = done, .first = first, .want_key = !exact_only};
    out->kind = LG_RLH_NO_KIND;
    out->dim = LG_DIM_NONE;
    out->window = LG_WIN_NONE;
    out->key[0] = '\0';
    bool plain = true; /* words joined by single '-', none before the first or after the last */
    char w[WORD_LEN];
    for (;;) {
        const char *ws = p, *lw = p; /* the word, and its letters lower-cased */
        while ((unsigned char)*p > '_') /* lower-case letters (never a separator): the usual word, read in place */
            p++;
        if (*p && !is_sep(*p)) { /* an upper-case letter, a digit or a sign: the word is copied lower-cased */
            while (*p && !is_sep(*p))
                p++;
            for (size_t j = 0; j < (size_t)(p - ws) && j < WORD_LEN; j++)
                w[j] = (char)(ws[j] >= 'A' && ws[j] <= 'Z' ? ws[j] + ('a' - 'A') : ws[j]);
            lw = w;
        }
        size_t len = (size_t)(p - ws);
        char c = *p;
        if (len >= WORD_LEN)
            return false;
        plain = plain && len && (!c || c == '-');
        if (len && (!word(&r, lw, len, out) || (r.n == WORDS_MAX && c)))
            return false;
        if (!c)
            break;
        p++;
    }
    if (!r.from || out->kind == LG_RLH_NO_KIND)
        return false;
    out->exact = exact_of(&r, plain, out);
    return !exact_only || out->exact != LG_RLH_INEXACT;
}

/* One of OpenAI's six names (lg_rlh_openai_slot), read as read_name reads it: what every OpenAI answer
 * carries six times. */
static bool openai_name(const char *name, lg_rlh_name *out)
{
    int slot = lg_rlh_openai_slot(name, strlen(name));
    if (!slot)
        return false;
    bool tokens = slot > 4;
    out->kind = (lg_rlh_kind)(LG_RLH_LIMIT + ((slot - 1) & 3));
    out->exact = tokens ? LG_RLH_OPENAI_TOKENS : LG_RLH_OPENAI_REQUESTS;
    out->dim = tokens ? LG_DIM_TOKENS : LG_DIM_REQUESTS;
    out->window = LG_WIN_NONE;
    out->key[0] = '\0';
    return true;
}

bool lg_rlh_name_of(const char *name, bool exact_only, lg_rlh_name *out)
{
    if (!name)
        return false;
    if (!exact_only)
        return rate_word(name) && read_name(name, 0, false, out);
    /* x-ratelimit- or anthropic-ratelimit-: the reading of those two words, done */
    if (!lg_rlh_may_be_exact(name))
        return false;
    bool x = (*name | 0x20) == 'x';
    if (x && openai_name(name, out))
        return true;
    const char *p = x ? past(name + 1, "-ratelimit-", 11) : past(name + 1, "nthropic-ratelimit-", 19);
    return p && read_name(p, x ? 1 : 2, true, out);
}

bool lg_rlh_count(const char *v, int64_t *out)
{
    uint64_t d = 0; /* the usual value, digits only (18 at most: no overflow), is read without strtoll; more
                     * digits wrap d (unsigned) and go to strtoll */
    const char *p = v;
    for (unsigned c; (c = (unsigned)(unsigned char)*p - '0') < 10; p++)
        d = d * 10 + c;
    if (p > v && !*p && p - v <= 18) {
        *out = (int64_t)d;
        return true;
    }
    char *end;
    long long x = strtoll(v, &end, 10);
    while (*end == ' ')
        end++;
    if (end == v || *end)
        return false;
    *out = x;
    return true;
}

/* A Go duration of the usual shape ("999ms", "8.64s", "6m0s", "1h2m3.5s"): at most four parts, each up to 5
 * digits, an optional fraction of 1 to 6 digits, then h, m, s or ms, and nothing after (no sign, no blank),
 * read into *ms as lg_parse_go_duration reads it (the ceiling of the sum in ns, which cannot overflow here).
 * False for any other value, which the general reader is left to (it reads these alike). */
static bool usual_duration(const char *v, int64_t *ms)
{
    int64_t ns = 0;
    for (int part = 0; part < 4; part++) {
        const char *d = v;
        int64_t whole = 0, micro = 0; /* the fraction in millionths of the unit */
        while ((unsigned)(*v - '0') < 10 && v - d < 5)
            whole = whole * 10 + (*v++ - '0');
        if (v == d || (unsigned)(*v - '0') < 10)
            return false;
        if (*v == '.') {
            const char *f = ++v;
            for (int64_t scale = 100000; (unsigned)(*v - '0') < 10 && v - f < 6; scale /= 10)
                micro += (*v++ - '0') * scale;
            if (v == f || (unsigned)(*v - '0') < 10)
                return false;
        }
        int64_t unit; /* in ns */
        if (v[0] == 'm' && v[1] == 's')
            unit = 1000000, v += 2;
        else if (*v == 'h' || *v == 'm' || *v == 's')
            unit = *v == 'h' ? 3600000000000LL : *v == 'm' ? 60000000000LL : 1000000000LL, v++;
        else
            return false;
        ns += whole * unit + micro * (unit / 1000000);
        if (!*v) {
            *ms = ns / 1000000 + (ns % 1000000 != 0);
            return true;
        }
    }
    return false;
}

lg_rlh_reset_form lg_rlh_reset(const char *v, int64_t *x)
{
    if (usual_duration(v, x))
        return LG_RLH_DURATION;
    size_t n = strlen(v);
    if (lg_parse_go_duration(v, n, x))
        return LG_RLH_DURATION;
    int64_t whole;
    if (lg_parse_delta_seconds(v, n, x))
        return LG_RLH_SECONDS;
    if (lg_rlh_count(v, &whole) && whole >= 1000000000000LL && whole < INT64_MAX / 1000) {
        *x = whole * 1000; /* Unix ms, too large for the reading in ns: as seconds, scaled as they would be */
        return LG_RLH_SECONDS;
    }
    if (lg_parse_rfc3339(v, n, x))
        return LG_RLH_RFC3339;
    if (lg_parse_http_date(v, n, x))
        return LG_RLH_HTTP_DATE;
    return LG_RLH_BAD;
}
