/* Replaces the top-level "model" of a JSON request body (see engine.h's users: model maps and pins),
 * keeping every other byte of the host's body as it was. */
#include <stdlib.h>
#include <string.h>

#include "util/json_scan.h"
#include "gate/body_model.h"

static inline size_t skip_ws(const char *s, size_t n, size_t i)
{
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n'))
        i++;
    return i;
}

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

bool lg_body_model_span(const char *s, size_t n, size_t *start, size_t *end)
{
    size_t i = skip_ws(s, n, 0);
    if (i >= n || s[i] != '{')
        return false;
    i = skip_ws(s, n, i + 1);
    while (i < n && s[i] == '"') {
        size_t kend = value_end(s, n, i);
        if (!kend)
            return false;
        bool is_model = kend - i == 7 && !memcmp(s + i, "\"model\"", 7);
        i = skip_ws(s, n, kend);
        if (i >= n || s[i] != ':')
            return false;
        i = skip_ws(s, n, i + 1);
        size_t vend = value_end(s, n, i);
        if (!vend)
            return false;
        if (is_model) {
            if (s[i] != '"')
                return false;
            *start = i + 1;
            *end = vend - 1;
            return true;
        }
        i = skip_ws(s, n, vend);
        if (i >= n || s[i] != ',')
            return false;
        i = skip_ws(s, n, i + 1);
    }
    return false;
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
