/* Unit tests of the one reading of rate-limit headers (src/classify/rl_header.c): the classifier's families
 * (lg_rl_families) against the reading they replaced (kept below), the limiter's exact families against the
 * classifier's reading of the same names, and the value readers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "classify/dialects.h"
#include "classify/rl_header.h"
#include "llmgate/duration.h"
#include "rng.h"

/* The classifier's reading before rl_header.c (src/classify/ratelimit_headers.c at 3f5fd00), the reference of
 * the differential test below. */
#define WORDS_MAX 8
#define WORD_LEN 16

typedef enum { KIND_NONE = 0, KIND_LIMIT, KIND_REMAINING, KIND_RESET, KIND_STATUS } kind;

typedef struct {
    char w[WORDS_MAX][WORD_LEN];
    size_t n;
} words;

/* Lower-cased words of a header name split at '-', '_' and ' '; false when a word is too long. */
static bool split(const char *name, words *out)
{
    out->n = 0;
    size_t len = 0;
    for (const char *p = name;; p++) {
        bool sep = !*p || *p == '-' || *p == '_' || *p == ' ';
        if (sep) {
            if (len) {
                out->w[out->n][len] = '\0';
                if (++out->n == WORDS_MAX && *p)
                    return false;
            }
            len = 0;
            if (!*p)
                return true;
            continue;
        }
        if (len + 1 >= WORD_LEN)
            return false;
        char ch = *p;
        out->w[out->n][len++] = (char)(ch >= 'A' && ch <= 'Z' ? ch + 32 : ch);
    }
}

static kind kind_of(const char *w)
{
    static const struct {
        const char *w;
        kind k;
    } kinds[] = {{"limit", KIND_LIMIT}, {"remaining", KIND_REMAINING}, {"reset", KIND_RESET}, {"status", KIND_STATUS}};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (!strcmp(w, kinds[i].w))
            return kinds[i].k;
    return KIND_NONE;
}

/* A window word: "minute", "min", "day", or a span such as "5h" or "7d". */
static lg_window window_of(const char *w)
{
    static const struct {
        const char *w;
        lg_window win;
    } names[] = {{"second", LG_WIN_SECOND}, {"sec", LG_WIN_SECOND}, {"minute", LG_WIN_MINUTE}, {"min", LG_WIN_MINUTE},
                 {"hour", LG_WIN_HOUR},     {"hourly", LG_WIN_HOUR}, {"day", LG_WIN_DAY},       {"daily", LG_WIN_DAY},
                 {"week", LG_WIN_WEEK},     {"weekly", LG_WIN_WEEK}, {"month", LG_WIN_MONTH},   {"monthly", LG_WIN_MONTH}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(w, names[i].w))
            return names[i].win;
    size_t n = strlen(w), d = strspn(w, "0123456789");
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

static lg_dim dim_of(const words *ws, size_t from)
{
    lg_dim d = LG_DIM_NONE;
    for (size_t i = from; i < ws->n; i++) {
        const char *w = ws->w[i];
        if (!strcmp(w, "requests") || !strcmp(w, "request") || !strcmp(w, "req"))
            d = LG_DIM_REQUESTS;
        else if (!strcmp(w, "tokens") || !strcmp(w, "token"))
            d = i > from && !strcmp(ws->w[i - 1], "input")    ? LG_DIM_INPUT_TOKENS
                : i > from && !strcmp(ws->w[i - 1], "output") ? LG_DIM_OUTPUT_TOKENS
                                                              : LG_DIM_TOKENS;
    }
    return d;
}

/* Index of the first word after "ratelimit" or "rate" "limit", or 0 when the name has neither. */
static size_t after_ratelimit(const words *ws)
{
    for (size_t i = 0; i < ws->n; i++) {
        if (!strcmp(ws->w[i], "ratelimit"))
            return i + 1;
        if (!strcmp(ws->w[i], "rate") && i + 1 < ws->n && !strcmp(ws->w[i + 1], "limit"))
            return i + 2;
    }
    return 0;
}

static bool parse_int(const char *v, int64_t *out)
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

/* A reset value: a duration ("6m0s", "7.66s"), seconds ("20", "11.38"), Unix seconds or ms, or an
 * RFC 3339 / HTTP date. */
static bool parse_reset(const char *v, lg_rl_family *f)
{
    size_t n = strlen(v);
    int64_t x;
    f->reset_ms = f->reset_at_ms = LG_NO_HINT;
    if (lg_parse_go_duration(v, n, &x)) {
        f->reset_ms = x;
    } else if (lg_parse_delta_seconds(v, n, &x)) {
        if (x >= 1000000000000000LL) /* Unix ms */
            f->reset_at_ms = x / 1000;
        else if (x >= 1000000000000LL) /* Unix seconds */
            f->reset_at_ms = x;
        else
            f->reset_ms = x;
    } else if (parse_int(v, &x) && x >= 1000000000000LL && x < INT64_MAX / 1000) {
        f->reset_at_ms = x; /* a Unix time in ms too large to read as seconds (13 digits and more) */
    } else if (!lg_parse_rfc3339(v, n, &f->reset_at_ms) && !lg_parse_http_date(v, n, &f->reset_at_ms)) {
        return false;
    }
    return true;
}

typedef struct {
    lg_rl_family f;
    bool unknown; /* a value of -1: the provider reports no limit for this family */
    bool any;
} slot;

static slot *find_slot(slot *s, size_t *n, size_t cap, const char *key)
{
    for (size_t i = 0; i < *n; i++)
        if (!strcmp(s[i].f.key, key))
            return &s[i];
    if (*n == cap)
        return NULL;
    slot *x = &s[(*n)++];
    memset(x, 0, sizeof *x);
    strcpy(x->f.key, key);
    return x;
}

static void add_header(slot *s, size_t *n, size_t cap, const lg_header *h)
{
    words ws;
    size_t from;
    if (!h->name || !h->value || !split(h->name, &ws) || !(from = after_ratelimit(&ws)))
        return;
    kind k = KIND_NONE;
    char key[sizeof s->f.key] = "";
    lg_window win = LG_WIN_NONE;
    for (size_t i = from; i < ws.n; i++) {
        kind ki = kind_of(ws.w[i]);
        if (ki != KIND_NONE && k == KIND_NONE) {
            k = ki;
            continue;
        }
        if (window_of(ws.w[i]) != LG_WIN_NONE)
            win = window_of(ws.w[i]);
        if (strlen(key) + strlen(ws.w[i]) + 2 > sizeof key)
            return;
        if (*key)
            strcat(key, "-");
        strcat(key, ws.w[i]);
    }
    slot *x = k != KIND_NONE ? find_slot(s, n, cap, key) : NULL;
    if (!x)
        return;
    x->f.dim = dim_of(&ws, from);
    x->f.window = win;
    int64_t v;
    if ((k == KIND_LIMIT || k == KIND_REMAINING) && parse_int(h->value, &v)) {
        x->unknown = x->unknown || v < 0;
        x->f.exhausted = x->f.exhausted || (k == KIND_REMAINING && v == 0);
        x->any = true;
    } else if (k == KIND_RESET && parse_reset(h->value, &x->f)) {
        x->f.has_reset = x->any = true;
    } else if (k == KIND_STATUS) {
        x->f.exhausted = x->f.exhausted || !strcmp(h->value, "rejected");
        x->any = true;
    }
}

static size_t ref_families(const lg_response_view *r, lg_rl_family *out, size_t cap)
{
    slot s[LG_RL_FAMILIES_MAX];
    size_t n = 0, m = 0;
    for (size_t i = 0; r && r->headers && i < r->n_headers; i++)
        add_header(s, &n, LG_RL_FAMILIES_MAX, &r->headers[i]);
    for (size_t i = 0; i < n && m < cap; i++)
        if (s[i].any && !s[i].unknown)
            out[m++] = s[i].f;
    return m;
}


/* Names built from the words providers use and words that only look like them, joined by every separator
 * (and doubled ones), in mixed case, sometimes with a word too long or too many words; values of every
 * form. lg_rl_families gives what the old reading gave on 60 000 such header sets. */
static void families_match_the_old_reading(void **state)
{
    (void)state;
    static const char *const vocab[] = {
        "x", "anthropic", "ratelimit", "rate", "limit", "remaining", "reset", "status", "requests", "request",
        "req", "tokens", "token", "input", "output", "minute", "min", "day", "daily", "hour", "week", "monthly",
        "second", "sec", "5h", "7d", "10s", "1m", "2w", "3x", "unified", "abcdefghijklmnop", "ratelimits",
        "rat", "limits", "", "rATE", "RateLimit", "ratelimit-", "Rate_Limit", "x-ratelimit", "anthropic-ratelimit"};
    static const char *const seps[] = {"-", "-", "-", "_", " ", "--", "-_"};
    static const char *const values[] = {
        "0", "5000", "-1", " 7", "7 ", "", " ", "12ms", "6m0s", "1.5s", "20", "11.38", "1711483230",
        "1741305600000", "1741305600000000", "2024-03-26T20:00:01.5Z", "Tue, 26 Mar 2024 20:00:00 GMT",
        "rejected", "allowed", "abc", "9999999999", "3x", "-", "+4", "9223372036854775807", NULL};
    srand(4242);
    char names[8][160];
    for (int round = 0; round < 60000; round++) {
        lg_header h[8];
        size_t n = (size_t)(rand() % 9);
        for (size_t i = 0; i < n; i++) {
            char *s = names[i];
            size_t len = 0, nw = 1 + (size_t)(rand() % 10);
            s[0] = '\0';
            if (rand() % 8 == 0)
                len += (size_t)snprintf(s + len, sizeof names[i] - len, "%s", seps[rand() % 7]);
            for (size_t k = 0; k < nw && len < sizeof names[i] - 40; k++) {
                /* mostly a prefix, ratelimit and family words, so that many names are read */
                int pick = rand() % (int)(sizeof vocab / sizeof *vocab);
                const char *w = k == 1 && rand() % 2 ? "ratelimit" : vocab[pick];
                len += (size_t)snprintf(s + len, sizeof names[i] - len, "%s%s", k ? seps[rand() % 7] : "", w);
            }
            if (rand() % 8 == 0)
                snprintf(s + len, sizeof names[i] - len, "%s", seps[rand() % 7]);
            for (char *c = s; *c; c++)
                if (rand() % 3 == 0 && *c >= 'a' && *c <= 'z')
                    *c = (char)(*c - 32);
            h[i].name = rand() % 50 ? s : NULL;
            h[i].value = values[rand() % (int)(sizeof values / sizeof *values)];
        }
        lg_response_view r = {.status = 429, .headers = h, .n_headers = n};
        lg_rl_family got[LG_RL_FAMILIES_MAX], want[LG_RL_FAMILIES_MAX];
        memset(got, 0x5a, sizeof got);
        memset(want, 0x5a, sizeof want);
        size_t g = lg_rl_families(&r, got, LG_RL_FAMILIES_MAX), w = ref_families(&r, want, LG_RL_FAMILIES_MAX);
        if (g != w)
            fail_msg("round %d: %zu families, want %zu (first name %s)", round, g, w, n ? names[0] : "-");
        for (size_t i = 0; i < g; i++)
            if (strcmp(got[i].key, want[i].key) || got[i].dim != want[i].dim || got[i].window != want[i].window ||
                got[i].exhausted != want[i].exhausted || got[i].has_reset != want[i].has_reset ||
                got[i].reset_ms != want[i].reset_ms || got[i].reset_at_ms != want[i].reset_at_ms)
                fail_msg("round %d family %zu: \"%s\" dim %d win %d ex %d reset %d %lld %lld, want \"%s\" dim %d "
                         "win %d ex %d reset %d %lld %lld", round, i, got[i].key, got[i].dim, got[i].window,
                         got[i].exhausted, got[i].has_reset, (long long)got[i].reset_ms,
                         (long long)got[i].reset_at_ms, want[i].key, want[i].dim, want[i].window, want[i].exhausted,
                         want[i].has_reset, (long long)want[i].reset_ms, (long long)want[i].reset_at_ms);
    }
}

/* The limiter's exact families are the classifier's reading of the same names: each name read with
 * exact_only gives the family and kind the full reading gives (with its key and dimension), in any case. */
static void exact_families_read_alike(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        lg_rlh_exact exact;
        lg_rlh_kind kind;
        const char *key;
        lg_dim dim;
    } cases[] = {
        {"x-ratelimit-limit-requests", LG_RLH_OPENAI_REQUESTS, LG_RLH_LIMIT, "requests", LG_DIM_REQUESTS},
        {"X-RateLimit-Remaining-Tokens", LG_RLH_OPENAI_TOKENS, LG_RLH_REMAINING, "tokens", LG_DIM_TOKENS},
        {"x-ratelimit-reset-tokens", LG_RLH_OPENAI_TOKENS, LG_RLH_RESET, "tokens", LG_DIM_TOKENS},
        {"anthropic-ratelimit-requests-reset", LG_RLH_ANTHROPIC_REQUESTS, LG_RLH_RESET, "requests", LG_DIM_REQUESTS},
        {"Anthropic-RateLimit-Tokens-Limit", LG_RLH_ANTHROPIC_TOKENS, LG_RLH_LIMIT, "tokens", LG_DIM_TOKENS},
        {"anthropic-ratelimit-input-tokens-remaining", LG_RLH_ANTHROPIC_INPUT, LG_RLH_REMAINING, "input-tokens",
         LG_DIM_INPUT_TOKENS},
        {"ANTHROPIC-RATELIMIT-OUTPUT-TOKENS-RESET", LG_RLH_ANTHROPIC_OUTPUT, LG_RLH_RESET, "output-tokens",
         LG_DIM_OUTPUT_TOKENS},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        lg_rlh_name exact, full;
        assert_true(lg_rlh_name_of(cases[i].name, true, &exact));
        assert_true(lg_rlh_name_of(cases[i].name, false, &full));
        assert_int_equal(exact.exact, cases[i].exact);
        assert_int_equal(full.exact, cases[i].exact);
        assert_int_equal(exact.kind, cases[i].kind);
        assert_int_equal(full.kind, cases[i].kind);
        assert_string_equal(exact.key, "");
        assert_string_equal(full.key, cases[i].key);
        assert_int_equal(full.dim, cases[i].dim);
        assert_int_equal(full.window, LG_WIN_NONE);
    }
}

/* Spellings only the classifier reads: other separators, "rate-limit", windows, other prefixes, the kind
 * elsewhere, a status. Read in full, never as an exact family. */
static void other_spellings_are_not_exact(void **state)
{
    (void)state;
    static const struct {
        const char *name, *key;
        lg_rlh_kind kind;
        lg_window window;
    } cases[] = {
        {"x-rate-limit-remaining-tokens", "tokens", LG_RLH_REMAINING, LG_WIN_NONE},
        {"x_ratelimit_remaining_tokens", "tokens", LG_RLH_REMAINING, LG_WIN_NONE},
        {"x-ratelimit-remaining-tokens-minute", "tokens-minute", LG_RLH_REMAINING, LG_WIN_MINUTE},
        {"x-ratelimit-requests-limit", "requests", LG_RLH_LIMIT, LG_WIN_NONE},
        {"x--ratelimit-limit-requests", "requests", LG_RLH_LIMIT, LG_WIN_NONE},
        {"x-ratelimit-limit-requests-", "requests", LG_RLH_LIMIT, LG_WIN_NONE},
        {"ratelimit-limit-requests", "requests", LG_RLH_LIMIT, LG_WIN_NONE},
        {"xx-ratelimit-limit-tokens", "tokens", LG_RLH_LIMIT, LG_WIN_NONE},
        {"anthropic-ratelimit-limit-requests", "requests", LG_RLH_LIMIT, LG_WIN_NONE},
        {"anthropic-ratelimit-unified-status", "unified", LG_RLH_STATUS, LG_WIN_NONE},
        {"anthropic-ratelimit-unified-5h-reset", "unified-5h", LG_RLH_RESET, LG_WIN_HOUR},
        {"X-RateLimit-Minute-Remaining", "minute", LG_RLH_REMAINING, LG_WIN_MINUTE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        lg_rlh_name nm;
        assert_false(lg_rlh_name_of(cases[i].name, true, &nm));
        assert_true(lg_rlh_name_of(cases[i].name, false, &nm));
        assert_int_equal(nm.exact, LG_RLH_INEXACT);
        assert_int_equal(nm.kind, cases[i].kind);
        assert_string_equal(nm.key, cases[i].key);
        assert_int_equal(nm.window, cases[i].window);
    }
    static const char *const none[] = {"content-type", "x-request-id", "x-ratelimit", "ratelimit",
                                       "x-rate-limit", "x-ratelimits-remaining", "x-ratelimit-tokens",
                                       "x-ratelimit-abcdefghijklmnop-reset", "a-b-c-d-e-f-ratelimit-reset-", "",
                                       "rate", "r", "ra", "rat"};
    for (size_t i = 0; i < sizeof none / sizeof *none; i++) {
        lg_rlh_name nm;
        assert_false(lg_rlh_name_of(none[i], false, &nm));
        assert_false(lg_rlh_name_of(none[i], true, &nm));
    }
    lg_rlh_name nm;
    assert_false(lg_rlh_name_of(NULL, false, &nm));
}

/* The value readers: counts as strtoll reads them, resets in their four forms. */
static void values_read_by_form(void **state)
{
    (void)state;
    int64_t x;
    assert_true(lg_rlh_count("5000", &x));
    assert_int_equal(x, 5000);
    assert_true(lg_rlh_count("-1", &x));
    assert_int_equal(x, -1);
    assert_true(lg_rlh_count(" 7 ", &x));
    assert_int_equal(x, 7);
    assert_false(lg_rlh_count("12abc", &x));
    assert_false(lg_rlh_count("", &x));
    /* digits only, read without strtoll up to 18 of them: the same as strtoll at every length, saturating */
    char digits[24];
    for (int len = 1; len < 23; len++)
        for (int d = 1; d <= 9; d += 4) {
            memset(digits, '0' + d, (size_t)len);
            digits[len] = '\0';
            assert_true(lg_rlh_count(digits, &x));
            assert_int_equal(x, strtoll(digits, NULL, 10));
        }
    assert_int_equal(lg_rlh_reset("6m0s", &x), LG_RLH_DURATION);
    assert_int_equal(x, 360000);
    assert_int_equal(lg_rlh_reset("11.38", &x), LG_RLH_SECONDS);
    assert_int_equal(x, 11380);
    assert_int_equal(lg_rlh_reset("2024-03-26T20:00:01.5Z", &x), LG_RLH_RFC3339);
    assert_int_equal(x, 1711483201500LL);
    assert_int_equal(lg_rlh_reset("Tue, 26 Mar 2024 20:00:00 GMT", &x), LG_RLH_HTTP_DATE);
    assert_int_equal(x, 1711483200000LL);
    assert_int_equal(lg_rlh_reset("tomorrow", &x), LG_RLH_BAD);
}

/* The reading of reset values before the usual Go duration's shape was read on its own (lg_rlh_reset in
 * src/classify/rl_header.c at 533dbce), the reference of the differential test below: the general readers in
 * order. */
static lg_rlh_reset_form old_reset(const char *v, int64_t *x)
{
    size_t n = strlen(v);
    if (lg_parse_go_duration(v, n, x))
        return LG_RLH_DURATION;
    int64_t whole;
    if (lg_parse_delta_seconds(v, n, x))
        return LG_RLH_SECONDS;
    if (lg_rlh_count(v, &whole) && whole >= 1000000000000LL && whole < INT64_MAX / 1000) {
        *x = whole * 1000;
        return LG_RLH_SECONDS;
    }
    if (lg_parse_rfc3339(v, n, x))
        return LG_RLH_RFC3339;
    if (lg_parse_http_date(v, n, x))
        return LG_RLH_HTTP_DATE;
    return LG_RLH_BAD;
}

/* lg_rlh_count before its digits were read to their end (src/classify/rl_header.c at 533dbce), the reference
 * of the differential test below. */
static bool old_count(const char *v, int64_t *out)
{
    int64_t d = 0;
    const char *p = v;
    while (*p >= '0' && *p <= '9' && p - v < 18)
        d = d * 10 + (*p++ - '0');
    if (p > v && !*p) {
        *out = d;
        return true;
    }
    return parse_int(v, out); /* strtoll's reading, as the old classifier's above */
}

/* A byte put in place of another: its other case, one a bit away, or an odd one (a blank, a byte of 0x80 and
 * above, a NUL that cuts the value). */
static char stand_in(char c)
{
    static const char odd[] = {'\r', '@', '[', '`', '{', '_', ' ', '\x80', '\xcc', '\xe1', '\xc1', 'M', 'K', '\0'};
    switch (rnd(4)) {
    case 0: return (char)(c ^ 0x20);
    case 1: return (char)(c ^ (1 << rnd(8)));
    default: return odd[rnd(sizeof odd)];
    }
}

/* Reset values read as before on 400 000 values over 40 seeds: Go durations of one to five parts (0 to 7
 * digits, fractions of 0 to 8 digits, every unit and some that are none), with a sign, blanks, a byte
 * changed or the value cut, among plain seconds, Unix times and dates. */
static void resets_match_the_old_reading(void **state)
{
    (void)state;
    static const char *const units[] = {"ms", "s", "m", "h", "us", "ns", "\xc2\xb5s", "", "S", "M", "x", "mss", "."};
    static const char *const others[] = {"2024-03-26T20:00:01.5Z", "Tue, 26 Mar 2024 20:00:00 GMT", "1741305600000",
                                         "1711483230", "0", "+0", "", " ", "-1s", "1e3s"};
    for (uint64_t seed = 1; seed <= 40; seed++) {
        test_rng_seed(seed);
        for (int round = 0; round < 10000; round++) {
            char v[128];
            size_t len = 0;
            if (rnd(10) == 0) {
                len = (size_t)snprintf(v, sizeof v, "%s", others[rnd(sizeof others / sizeof *others)]);
            } else {
                if (rnd(12) == 0)
                    v[len++] = rnd(2) ? '+' : ' ';
                for (uint32_t part = 0, parts = 1 + rnd(5); part < parts; part++) {
                    for (uint32_t i = 0, n = rnd(8); i < n; i++)
                        v[len++] = (char)('0' + (rnd(3) ? rnd(10) : 9));
                    if (rnd(2)) {
                        v[len++] = '.';
                        for (uint32_t i = 0, n = rnd(9); i < n; i++)
                            v[len++] = (char)('0' + rnd(10));
                    }
                    len += (size_t)snprintf(v + len, sizeof v - len, "%s",
                                            units[rnd(3) ? rnd(4) : rnd(sizeof units / sizeof *units)]);
                }
                if (rnd(12) == 0)
                    v[len++] = ' ';
                v[len] = '\0';
            }
            if (len && rnd(8) == 0)
                v[rnd((uint32_t)len)] = stand_in('1');
            else if (len && rnd(8) == 0)
                v[rnd((uint32_t)len)] = '\0';
            int64_t got = 0x5a5a, want = 0x5a5a;
            lg_rlh_reset_form g = lg_rlh_reset(v, &got), w = old_reset(v, &want);
            if (g != w || (g != LG_RLH_BAD && got != want))
                fail_msg("seed %llu round %d \"%s\": form %d %lld, want %d %lld", (unsigned long long)seed, round, v,
                         g, (long long)got, w, (long long)want);
        }
    }
}

/* Counts read as before on 400 000 values over 40 seeds: 0 to 24 digits (long runs of 9s among them), with a
 * sign or blanks before, spaces or a stray byte after, a byte changed or the value cut. */
static void counts_match_the_old_reading(void **state)
{
    (void)state;
    static const char *const heads[] = {"", "", "", "-", "+", " ", "\t", "0", "00"};
    static const char *const tails[] = {"", "", "", " ", "  ", "x", ".5", "\r"};
    for (uint64_t seed = 1; seed <= 40; seed++) {
        test_rng_seed(seed);
        for (int round = 0; round < 10000; round++) {
            char v[64];
            size_t len = (size_t)snprintf(v, sizeof v, "%s", heads[rnd(sizeof heads / sizeof *heads)]);
            for (uint32_t i = 0, n = rnd(25); i < n; i++)
                v[len++] = (char)('0' + (rnd(2) ? rnd(10) : 9));
            len += (size_t)snprintf(v + len, sizeof v - len, "%s", tails[rnd(sizeof tails / sizeof *tails)]);
            if (len && rnd(10) == 0)
                v[rnd((uint32_t)len)] = stand_in('5');
            int64_t got = 0x5a5a, want = 0x5a5a;
            bool g = lg_rlh_count(v, &got), w = old_count(v, &want);
            if (g != w || (g && got != want))
                fail_msg("seed %llu round %d \"%s\": %d %lld, want %d %lld", (unsigned long long)seed, round, v, g,
                         (long long)got, w, (long long)want);
        }
    }
}

/* OpenAI's six names as lg_rlh_name_of read them before they were compared a word at a time
 * (src/classify/rl_header.c at 1733cfc: "x-ratelimit-", then the kind, then the dimension, a letter at a
 * time, case folded but for the '-'): the reference of the test below. */
static const char *old_past(const char *s, const char *lit)
{
    for (; *lit; s++, lit++)
        if (*lit == '-' ? *s != '-' : (*s | 0x20) != *lit)
            return NULL;
    return s;
}

static bool old_openai_name(const char *name, lg_rlh_name *out)
{
    const char *p = (*name | 0x20) == 'x' ? old_past(name + 1, "-ratelimit-") : NULL, *q, *e;
    if (!p)
        return false;
    lg_rlh_kind k;
    if ((q = old_past(p, "limit-")))
        k = LG_RLH_LIMIT;
    else if ((q = old_past(p, "remaining-")))
        k = LG_RLH_REMAINING;
    else if ((q = old_past(p, "reset-")))
        k = LG_RLH_RESET;
    else
        return false;
    bool tokens = (e = old_past(q, "tokens")) != NULL;
    if ((!tokens && !(e = old_past(q, "requests"))) || *e)
        return false;
    out->kind = k;
    out->exact = tokens ? LG_RLH_OPENAI_TOKENS : LG_RLH_OPENAI_REQUESTS;
    out->dim = tokens ? LG_DIM_TOKENS : LG_DIM_REQUESTS;
    return true;
}

/* Names near OpenAI's six (their letters' case flipped at random, then up to three bytes changed, added or
 * cut, a word added, the name cut short), 400 000 over 40 seeds: the limiter's reading (exact_only) takes
 * each of the six exactly when the old letter-at-a-time reading did, into the same kind, family and
 * dimension, and so does lg_rlh_openai_slot (the learning's own reading of the six); and it reads every name
 * as the general reader does (the same answer, kind, family, dimension
 * and window). */
static void openai_names_match_the_old_reading(void **state)
{
    (void)state;
    static const char *const bases[] = {"x-ratelimit-limit-tokens", "x-ratelimit-reset-tokens",
                                        "x-ratelimit-limit-requests", "x-ratelimit-reset-requests",
                                        "x-ratelimit-remaining-tokens", "x-ratelimit-remaining-requests",
                                        "x-ratelimit-limit-tokens-minute", "anthropic-ratelimit-tokens-limit",
                                        "x-ratelimit-remaining", "x-rate-limit-reset-tokens"};
    static const char bytes[] = "-_ aeilmnqrstuxkRT:0\x80";
    for (uint64_t seed = 1; seed <= 40; seed++) {
        test_rng_seed(seed);
        for (int round = 0; round < 10000; round++) {
            char v[64];
            const char *b = bases[rnd(sizeof bases / sizeof *bases)];
            size_t len = strlen(b);
            memcpy(v, b, len + 1);
            for (size_t i = 0; i < len; i++)
                if (rnd(4) == 0)
                    v[i] = (char)(v[i] >= 'a' && v[i] <= 'z' ? v[i] - 32 : v[i]);
            for (uint32_t m = rnd(4); m > 0 && len > 0; m--) {
                uint32_t at = rnd((uint32_t)len);
                switch (rnd(5)) {
                case 0: v[at] = bytes[rnd(sizeof bytes - 1)]; break;
                case 1:
                    if (len < sizeof v - 2) {
                        memmove(v + at + 1, v + at, len - at + 1);
                        v[at] = bytes[rnd(sizeof bytes - 1)];
                        len++;
                    }
                    break;
                case 2: memmove(v + at, v + at + 1, len - at), len--; break;
                case 3: v[len = at] = '\0'; break;
                default:
                    if (len + 5 < sizeof v)
                        len += (size_t)snprintf(v + len, sizeof v - len, "-%s", rnd(2) ? "day" : "x");
                }
            }
            lg_rlh_name got, old, full;
            memset(&got, 0x5a, sizeof got);
            bool g = lg_rlh_name_of(v, true, &got), o = old_openai_name(v, &old);
            if (o && (!g || got.kind != old.kind || got.exact != old.exact || got.dim != old.dim))
                fail_msg("seed %llu round %d \"%s\": %d %d %d %d, the old reading %d %d %d", (unsigned long long)seed,
                         round, v, g, got.kind, got.exact, got.dim, old.kind, old.exact, old.dim);
            int os = lg_rlh_openai_slot(v, strlen(v)); /* the learning's inline reading (learn.c) */
            if (!os != !o || (os && (!g || got.exact != (lg_rlh_exact)(LG_RLH_OPENAI_REQUESTS + (os - 1) / 4) ||
                                     got.kind != (lg_rlh_kind)(LG_RLH_LIMIT + (os - 1) % 4))))
                fail_msg("seed %llu round %d \"%s\": slot %d, the old reading %d", (unsigned long long)seed, round, v,
                         os, o);
            bool f = lg_rlh_name_of(v, false, &full) && full.exact != LG_RLH_INEXACT;
            if (g != f || (g && (got.kind != full.kind || got.exact != full.exact || got.dim != full.dim ||
                                 got.window != full.window || got.key[0])))
                fail_msg("seed %llu round %d \"%s\": %d, the general reader %d", (unsigned long long)seed, round, v,
                         g, f);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(families_match_the_old_reading),
        cmocka_unit_test(exact_families_read_alike),
        cmocka_unit_test(other_spellings_are_not_exact),
        cmocka_unit_test(values_read_by_form),
        cmocka_unit_test(resets_match_the_old_reading),
        cmocka_unit_test(counts_match_the_old_reading),
        cmocka_unit_test(openai_names_match_the_old_reading),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
