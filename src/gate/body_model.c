/* Replaces the top-level "model" of a JSON request body (see engine.h's users: model maps and pins),
 * keeping every other byte of the host's body as it was. */
#include <stdlib.h>
#include <string.h>

#include "util/json_walk.h"
#include "gate/body_model.h"

/* The index just after the JSON value starting at s[i] (string, number, literal, object or array), or 0.
 * A number or literal ends at a comma, a closing bracket or whitespace (or at the end of the text); a
 * quote or an opening bracket inside one starts a string or a container that ends it. */
LG_JSON_INLINE size_t value_end(const char *s, size_t n, size_t i)
{
    size_t j = i;
    while (j < n && s[j] != '"' && s[j] != '{' && s[j] != '[' && s[j] != '}' && s[j] != ']' && s[j] != ',' &&
           s[j] != ' ' && s[j] != '\t' && s[j] != '\r' && s[j] != '\n')
        j++;
    if (j >= n)
        return n > i ? n : 0;
    if (s[j] == '"')
        return lg_json_string_end(s, n, j);
    if (s[j] == '{' || s[j] == '[')
        return lg_json_value_end(s, n, j);
    return j;
}

/* The value of the first top-level "model" member, when it is a string: its bounds, quotes excluded. */
typedef struct {
    size_t start, end;
    bool found;
} model_value;

/* Stops at the first "model" member (found when its value is a string), skips any other member's value. */
static size_t on_member(const char *key, size_t key_len, const char *s, size_t n, size_t at, void *ctx)
{
    if (key_len != 5 || memcmp(key, "model", 5))
        return value_end(s, n, at);
    model_value *m = ctx;
    size_t end = at < n && s[at] == '"' ? lg_json_string_end(s, n, at) : 0;
    if (end) {
        m->start = at + 1;
        m->end = end - 1;
        m->found = true;
    }
    return 0;
}

bool lg_body_model_span(const char *s, size_t n, size_t *start, size_t *end)
{
    model_value m = {0, 0, false};
    size_t i = lg_json_skip_ws(s, n, 0), object_end;
    if (i >= n || s[i] != '{')
        return false;
    lg_json_walk_object(s, n, i, on_member, &m, &object_end);
    if (m.found)
        *start = m.start, *end = m.end;
    return m.found;
}

char *lg_body_with_model(const char *s, size_t n, const char *model, size_t *out_len)
{
    size_t a, b;
    if (!lg_body_model_span(s, n, &a, &b))
        return NULL;
    size_t ml = 0;
    for (const char *m = model; *m; m++)
        ml += (*m == '"' || *m == '\\') ? 2 : ((unsigned char)*m < 0x20 ? 0 : 1);
    char *out = malloc(n - (b - a) + ml + 1);
    if (!out)
        return NULL;
    memcpy(out, s, a);
    size_t o = a;
    for (const char *m = model; *m; m++) {
        if ((unsigned char)*m < 0x20)
            continue; /* a control character cannot be in a model name */
        if (*m == '"' || *m == '\\')
            out[o++] = '\\';
        out[o++] = *m;
    }
    memcpy(out + o, s + b, n - b);
    o += n - b;
    out[o] = '\0';
    *out_len = o;
    return out;
}
