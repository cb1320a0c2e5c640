/* Lazy reading of success documents: most responses are successes whose only interesting part is the
 * usage object, so instead of building the whole cJSON tree, one pass walks the top-level members
 * (skipping each value by its brackets), and only the usage object's members are read, as integers,
 * without allocating. Anything that could be an error, or could hold usage below the top level, or is
 * malformed, is left to the full parse. */
#include <string.h>

#include "classify/dialects.h"

/* Longest count accepted, in digits (the full parse accepts up to 10^15 too). */
#define COUNT_DIGITS_MAX 15

typedef bool (*member_fn)(const char *key, size_t key_len, const char *v, size_t v_len, void *ctx);

static inline size_t skip_ws(const char *s, size_t n, size_t i)
{
    while (i < n && (unsigned char)s[i] <= ' ' && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n'))
        i++;
    return i;
}

/* The index after ch at s[i] or after the whitespace that follows i; 0 when ch is not there. Compact
 * JSON has ch right at i. */
LG_JSON_INLINE size_t after(const char *s, size_t n, size_t i, char ch)
{
    if (i < n && s[i] == ch)
        return i + 1;
    i = skip_ws(s, n, i);
    return i < n && s[i] == ch ? i + 1 : 0;
}

/* skip_ws where compact JSON has no whitespace. */
LG_JSON_INLINE size_t next_token(const char *s, size_t n, size_t i)
{
    return i < n && (unsigned char)s[i] > ' ' ? i : skip_ws(s, n, i);
}

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

/* Calls fn for each member of the object at s[i] == '{' with the raw key (quotes stripped, escapes kept)
 * and the raw value. Returns false when the object is malformed or truncated, or when fn returns false.
 * Inlined into each caller, with its fn. */
LG_JSON_INLINE bool each_member(const char *s, size_t n, size_t i, member_fn fn, void *ctx)
{
    i = next_token(s, n, i + 1);
    if (i < n && s[i] == '}')
        return true;
    while (i < n && s[i] == '"') {
        size_t key_end = lg_json_string_end(s, n, i);
        size_t j = key_end ? after(s, n, key_end, ':') : 0;
        if (!j)
            return false;
        j = next_token(s, n, j);
        size_t v_end = value_end(s, n, j);
        if (!v_end || !fn(s + i + 1, key_end - i - 2, s + j, v_end - j, ctx))
            return false;
        i = next_token(s, n, v_end);
        if (i < n && s[i] == '}')
            return true;
        if (i >= n || s[i] != ',')
            return false;
        i = next_token(s, n, i + 1);
    }
    return false;
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

/* Records a count; a number this reader does not take ("1e3", "12.5") goes to the full parse. */
static bool on_count(const char *k, size_t kl, const char *v, size_t vl, void *ctx)
{
    int64_t x;
    if (int_value(v, vl, &x))
        lg_usage_field(ctx, k, kl, x);
    else if (v[0] == '-' || (v[0] >= '0' && v[0] <= '9'))
        return false;
    return true;
}

/* True when the text holds a quote followed by usage (any quote, escaped ones too): each 'u' the block
 * classifier marks is checked, as 'u' is rarer than quotes in JSON. */
static bool mentions_usage(const char *v, size_t n)
{
    for (size_t i = 1; i + 5 <= n; i += LG_JSON_BLOCK)
        for (uint32_t u = lg_json_marks_at(v, n, i).u; u; u &= u - 1) {
            size_t at = i + (size_t)__builtin_ctz(u);
            if (at + 5 <= n && v[at - 1] == '"' && !memcmp(v + at, "usage", 5))
                return true;
        }
    return false;
}

typedef struct {
    const char *usage, *meta; /* raw top-level usage / usageMetadata objects */
    size_t usage_len, meta_len;
} top_level;

/* Stops (false) at anything a scanner could read as an error, and at nested objects that mention usage. */
static bool on_top(const char *k, size_t kl, const char *v, size_t vl, void *ctx)
{
    top_level *t = ctx;
    bool object = v[0] == '{';
    switch (kl) {
    case 4:  /* code, type */
    case 5:  /* error, usage */
    case 6:  /* errors, object */
    case 10: /* error_code */
        if (KEY_IS(k, kl, "error") || KEY_IS(k, kl, "errors") || KEY_IS(k, kl, "error_code") ||
            KEY_IS(k, kl, "code") ||
            ((KEY_IS(k, kl, "type") || KEY_IS(k, kl, "object")) && vl == 7 && !memcmp(v, "\"error\"", 7)))
            return false;
        if (object && KEY_IS(k, kl, "usage")) {
            t->usage = v, t->usage_len = vl;
            return true;
        }
        break;
    case 13:
        if (object && KEY_IS(k, kl, "usageMetadata")) {
            t->meta = v, t->meta_len = vl;
            return true;
        }
        break;
    default:
        break;
    }
    return !((object || v[0] == '[') && mentions_usage(v, vl));
}

bool lg_lazy_success(lg_cls *c, const char *s, size_t n)
{
    size_t i = skip_ws(s, n, 0);
    top_level t = {NULL, NULL, 0, 0};
    if (i >= n || s[i] != '{' || !each_member(s, n, i, on_top, &t))
        return false;
    lg_usage_fields f;
    memset(&f, 0, sizeof f);
    if (t.meta) {
        if (!each_member(t.meta, t.meta_len, 0, on_count, &f))
            return false;
        lg_google_usage_apply(c, &f);
    } else if (t.usage) {
        if (!each_member(t.usage, t.usage_len, 0, on_count, &f))
            return false;
        lg_usage_apply(c, &f);
    }
    return true;
}
