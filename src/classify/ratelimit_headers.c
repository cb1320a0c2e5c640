/* Rate-limit header families in every spelling providers use: x-ratelimit-remaining-tokens (OpenAI, Groq),
 * x-rate-limit-reset-tokens (Azure), anthropic-ratelimit-input-tokens-reset, x-ratelimit-reset-tokens-minute
 * and -requests-day (Cerebras), x-ratelimit-remaining-req-minute (Mistral), X-RateLimit-Remaining and
 * X-RateLimit-Reset (OpenRouter, gateways), x-ratelimit-minute-limit (window first). A name is split into
 * words; the word after "ratelimit" / "rate limit" that is limit, remaining, reset or status is the kind,
 * the other words name the family: its dimension (requests, tokens, input/output tokens) and its window. */
#include <stdlib.h>
#include <string.h>

#include "classify/dialects.h"
#include "llmgate/duration.h"

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

size_t lg_rl_families(const lg_response_view *r, lg_rl_family *out, size_t cap)
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

lg_sig lg_rl_window_signal(const lg_response_view *r)
{
    lg_rl_family f[LG_RL_FAMILIES_MAX];
    size_t n = lg_rl_families(r, f, LG_RL_FAMILIES_MAX);
    lg_sig s = LG_SIG_NONE;
    for (size_t i = 0; i < n; i++) {
        if (!f[i].exhausted || f[i].window == LG_WIN_NONE)
            continue;
        if (f[i].window >= LG_WIN_HOUR)
            return LG_SIG_QUOTA;
        s = LG_SIG_RATE;
    }
    return s;
}
