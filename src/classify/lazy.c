/* Lazy reading of success documents: most responses are successes whose only interesting part is the
 * usage object, so instead of building the whole cJSON tree, one pass walks the top-level members
 * (skipping each value by its brackets), and only the usage object's members are read, as integers,
 * without allocating. Anything that could be an error (a top-level string quoting a JSON object too), or
 * could hold usage below the top level, or is malformed, is left to the full parse. */
#include <string.h>

#include "classify/dialects.h"
#include "llmgate/config.h"
#include "util/json_walk.h"

/* Longest count accepted, in digits (the full parse accepts up to 10^15 too). */
#define COUNT_DIGITS_MAX 15

/* End (exclusive) of the value starting at s[i]; 0 when malformed or truncated. A number or literal ends
 * at the first character lg_json_scalar_stop names. */
LG_JSON_INLINE size_t value_end(const char *s, size_t n, size_t i)
{
    if (i >= n)
        return 0;
    if (s[i] == '"')
        return lg_json_string_end(s, n, i);
    if (s[i] == '{' || s[i] == '[')
        return lg_json_value_end(s, n, i);
    size_t j = i;
    while (j < n && !lg_json_scalar_stop(s[j]))
        j++;
    return j < n ? j : 0;
}

/* Key comparison, length first (name is a literal: sizeof gives its length). */
#define KEY_IS(k, kl, name) ((kl) == sizeof name - 1 && !memcmp(k, name, sizeof name - 1))

/* An integral number, or a string holding one, as JSON text ("12", "-3", "12.0", "\"12\""). */
static bool int_value(const char *v, size_t n, int64_t *out)
{
    if (n >= 2 && v[0] == '"' && v[n - 1] == '"')
        v++, n -= 2;
    size_t i = v && n && v[0] == '-' ? 1 : 0, digits = 0;
    int64_t x = 0;
    for (; i < n && v[i] >= '0' && v[i] <= '9'; i++, digits++) {
        if (digits == COUNT_DIGITS_MAX)
            return false;
        x = x * 10 + (v[i] - '0');
    }
    if (i < n && v[i] == '.')
        for (i++; i < n && v[i] == '0'; i++)
            ;
    if (!digits || i != n)
        return false;
    *out = n && v[0] == '-' ? -x : x;
    return true;
}

/* The counts of one usage object, and whether each of its numbers and literals is free of quotes and
 * opening brackets (then the object ends where lg_json_value_end says: see on_top). */
typedef struct {
    lg_usage_fields f;
    bool clean;
} counts;

/* Records a count; a number this reader does not take ("1e3", "12.5") goes to the full parse. */
static size_t on_count(const char *k, size_t kl, const char *s, size_t n, size_t j, void *ctx)
{
    counts *c = ctx;
    size_t end = value_end(s, n, j);
    if (!end)
        return 0;
    const char *v = s + j;
    size_t vl = end - j;
    int64_t x;
    if (int_value(v, vl, &x))
        lg_usage_field(&c->f, k, kl, x);
    else if (v[0] == '-' || (v[0] >= '0' && v[0] <= '9'))
        return 0;
    if (v[0] != '"' && v[0] != '{' && v[0] != '[')
        for (size_t i = 1; i < vl; i++)
            c->clean &= v[i] != '"' && v[i] != '{' && v[i] != '[';
    return end;
}

/* The counts of the usage object at s[i] == '{' (i < n), bounded by n; *end is set to its end. Only
 * has is cleared: a count is read only when its bit says it was set. */
static bool read_counts(const char *s, size_t n, size_t i, counts *c, size_t *end)
{
    c->f.has = 0;
    c->clean = true;
    return lg_json_walk_object(s, n, i, on_count, c, end);
}

/* True when the text holds a quote followed by usage (any quote, escaped ones too), or the string "error"
 * (a key or a value: OpenRouter ends a completion that failed during generation with finish_reason "error"
 * and the error object inside its choice). One pass over the blocks' marks: each 'u', and each quote
 * followed by an 'e' (or ending the block), is checked. */
static bool mentions_usage_or_error(const char *v, size_t n)
{
    for (size_t i = 0; i < n; i += LG_JSON_BLOCK) {
        lg_json_marks m = lg_json_marks_at(v, n, i);
        for (uint32_t u = m.u; u; u &= u - 1) {
            size_t at = i + (size_t)__builtin_ctz(u);
            if (at >= 1 && at + 5 <= n && v[at - 1] == '"' && !memcmp(v + at, "usage", 5))
                return true;
        }
        for (uint32_t q = m.quote & (m.e >> 1 | 1u << (LG_JSON_BLOCK - 1)); q; q &= q - 1) { /* '"' then 'e' */
            size_t at = i + (size_t)__builtin_ctz(q);
            if (at + 7 <= n && v[at + 1] == 'e' && !memcmp(v + at + 1, "error\"", 6))
                return true;
        }
    }
    return false;
}

/* A top-level usage or usageMetadata object: the last one found, and its counts when they were read while
 * walking the top level. */
typedef struct {
    const char *v; /* NULL when there is none */
    size_t len;
    bool read;
    counts c;
} usage_object;

typedef struct {
    usage_object usage, meta;
} top_level;

/* The end of the usage object at s[j] == '{' by its brackets, when its counts could not be read on the way
 * (cold: a usage object of plain counts is read on the way). */
__attribute__((cold, noinline)) static size_t usage_end(const char *s, size_t n, size_t j)
{
    return lg_json_value_end(s, n, j);
}

/* The usage object at s[j] == '{': its counts are read on the way when its members are well formed and
 * its numbers and literals hold no quote or opening bracket, since the object then ends where
 * lg_json_value_end says (the text between its tokens is whitespace, strings and containers end the same
 * way for both readers). Otherwise it is skipped by its brackets and read afterwards within those bounds,
 * as before. Returns the end of the object, or 0. */
static size_t take_usage(usage_object *u, const char *s, size_t n, size_t j)
{
    size_t end;
    u->v = s + j;
    u->read = read_counts(s, n, j, &u->c, &end) && u->c.clean;
    if (!u->read)
        end = usage_end(s, n, j);
    u->len = end - j;
    return end;
}

/* Stops (0) at anything a scanner could read as an error, and at nested objects that mention usage or an
 * error. */
static size_t on_top(const char *k, size_t kl, const char *s, size_t n, size_t j, void *ctx)
{
    top_level *t = ctx;
    if (j >= n)
        return 0;
    const char *v = s + j;
    bool object = v[0] == '{';
    if (object && KEY_IS(k, kl, "usage"))
        return take_usage(&t->usage, s, n, j);
    if (object && KEY_IS(k, kl, "usageMetadata"))
        return take_usage(&t->meta, s, n, j);
    /* Counts outside a usage object (Cohere v1's meta; the top-level counts and LM Studio's stats, below) are
     * the full reading's (usage.c). */
    if (object && KEY_IS(k, kl, "meta"))
        return 0;
    size_t end = value_end(s, n, j), vl = end - j;
    if (!end)
        return 0;
    switch (kl) {
    case 16: /* tokens_evaluated (llama.cpp's /completion) */
    case 17: /* prompt_eval_count (Ollama's native API) */
        if (KEY_IS(k, kl, "tokens_evaluated") || KEY_IS(k, kl, "prompt_eval_count"))
            return 0;
        break;
    case 5: /* error; stats (LM Studio's native API) */
    case 6: /* errors, object, header (Spark); result (LM Studio's chat.end event) */
        if (object && (KEY_IS(k, kl, "stats") || KEY_IS(k, kl, "result")))
            return 0;
        /* fall through */
    case 4:  /* code, type */
    case 8:  /* Response (Tencent Cloud) */
    case 9:  /* base_resp (MiniMax) */
    case 10: /* error_code */
        if (KEY_IS(k, kl, "error") || KEY_IS(k, kl, "errors") || KEY_IS(k, kl, "error_code") ||
            KEY_IS(k, kl, "code") || (object && (KEY_IS(k, kl, "header") || KEY_IS(k, kl, "Response") ||
                                                 KEY_IS(k, kl, "base_resp"))) ||
            ((KEY_IS(k, kl, "type") || KEY_IS(k, kl, "object")) && vl == 7 && !memcmp(v, "\"error\"", 7)) ||
            (KEY_IS(k, kl, "type") && vl == 17 && !memcmp(v, "\"response.failed\"", 17)))
            return 0;
        break;
    default:
        break;
    }
    /* A string that is a quoted JSON object (a relay's {"content": "{\"header\":{\"code\":11200,...}}"}) may
     * be the upstream's error: the full reading reads it (classify.c). */
    if (v[0] == '"' && v[1] == '{')
        return 0;
    return (object || v[0] == '[') && mentions_usage_or_error(v, vl) ? 0 : end;
}

/* The counts of a usage object: those read on the way, or read now into *scratch within its bounds; NULL
 * when they cannot be read. */
static const counts *counts_of(const usage_object *u, counts *scratch)
{
    if (LG_LIKELY(u->read))
        return &u->c;
    size_t end;
    return read_counts(u->v, u->len, 0, scratch, &end) ? scratch : NULL;
}

bool lg_lazy_success(lg_cls *c, const char *s, size_t n)
{
    size_t i = lg_json_skip_ws(s, n, 0), end;
    top_level t;
    t.usage.v = t.meta.v = NULL;
    if (i >= n || s[i] != '{' || !lg_json_walk_object(s, n, i, on_top, &t, &end) ||
        lg_json_next_token(s, n, end) < n)
        return false; /* not one document: another after it (NDJSON lines) goes to the full reading */
    const usage_object *u = t.meta.v ? &t.meta : t.usage.v ? &t.usage : NULL; /* usageMetadata first */
    if (!u)
        return true;
    counts scratch;
    const counts *f = counts_of(u, &scratch);
    /* A usage object without a count at its top nests them (Cohere's tokens and billed_units). */
    if (!f || (u == &t.usage && !f->f.has) || !lg_usage_adds_up(&f->f))
        return false;
    if (u == &t.meta)
        lg_usage_metadata_apply(c, &f->f);
    else
        lg_usage_apply(c, &f->f);
    return true;
}
