/* Walking one level of JSON text: the members of an object, the elements of an array, each handed to a
 * caller's function that reads (or skips, with util/json_scan.h) the value and says where it ends. The one
 * walker of the lazy success reader (src/classify/lazy.c), the token estimate (src/limiter/estimate.c) and
 * the model reader (src/gate/body_model.c): they accept the same texts, so they must walk them alike. The
 * walker is inline, so that each caller's function is known where it is called and inlined there (these
 * run on every request and response). It skims, not checks: what a value holds is the caller's business. */
#ifndef LLMGATE_UTIL_JSON_WALK_H
#define LLMGATE_UTIL_JSON_WALK_H

#include "util/json_scan.h"

/* Reads the value at s[at] (at may be n) of the member whose raw key (quotes stripped, escapes kept) is
 * key[0..key_len): returns the end (exclusive) of the value, or 0 to stop the walk. */
typedef size_t (*lg_json_member_fn)(const char *key, size_t key_len, const char *s, size_t n, size_t at, void *ctx);

/* Reads the array element at s[at] (at may be n): returns its end (exclusive), or 0 to stop the walk. */
typedef size_t (*lg_json_element_fn)(const char *s, size_t n, size_t at, void *ctx);

/* The index of the first byte at or after i that is not JSON whitespace (space, tab, CR, LF). Out of line:
 * compact JSON has none, and lg_json_next_token checks a byte first. */
static __attribute__((noinline, unused)) size_t lg_json_skip_ws(const char *s, size_t n, size_t i)
{
    while (i < n && (unsigned char)s[i] <= ' ' && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n'))
        i++;
    return i;
}

/* lg_json_skip_ws, for where compact JSON has no whitespace. */
LG_JSON_INLINE size_t lg_json_next_token(const char *s, size_t n, size_t i)
{
    return __builtin_expect(i < n && (unsigned char)s[i] > ' ', 1) ? i : lg_json_skip_ws(s, n, i);
}

/* The index after ch at s[i], or after ch behind the whitespace at i; 0 when ch is not there. */
LG_JSON_INLINE size_t lg_json_after(const char *s, size_t n, size_t i, char ch)
{
    if (__builtin_expect(i < n && s[i] == ch, 1))
        return i + 1;
    i = lg_json_skip_ws(s, n, i);
    return i < n && s[i] == ch ? i + 1 : 0;
}

/* What follows a member or an element, looked for at *i: a comma (returns 1, *i set to the next token
 * after it), the closing bracket close (returns 0, *end set after it: the walk is done), or neither (-1). */
LG_JSON_INLINE int lg_json_separator(const char *s, size_t n, size_t *i, char close, size_t *end)
{
    size_t at = lg_json_next_token(s, n, *i);
    if (at < n && s[at] == close) {
        *end = at + 1;
        return 0;
    }
    if (at >= n || s[at] != ',')
        return -1;
    *i = lg_json_next_token(s, n, at + 1);
    return 1;
}

/* Calls fn for each member of the object at s[i] == '{' (i < n), with its raw key and where its value
 * starts (after the colon and any whitespace); sets *end to the end of the object. False when the object
 * is malformed or truncated (a member that does not start with a quote, an unterminated key, no colon, no
 * comma or closing brace after a value, a comma before the brace), or when fn returns 0. */
LG_JSON_INLINE bool lg_json_walk_object(const char *s, size_t n, size_t i, lg_json_member_fn fn, void *ctx,
                                        size_t *end)
{
    i = lg_json_next_token(s, n, i + 1);
    if (i < n && s[i] == '}') {
        *end = i + 1;
        return true;
    }
    while (i < n && s[i] == '"') {
        size_t key_end = lg_json_string_end(s, n, i);
        size_t at = key_end ? lg_json_after(s, n, key_end, ':') : 0;
        if (!at)
            return false;
        at = lg_json_next_token(s, n, at);
        i = fn(s + i + 1, key_end - i - 2, s, n, at, ctx);
        if (!i)
            return false;
        int more = lg_json_separator(s, n, &i, '}', end);
        if (more <= 0)
            return more == 0;
    }
    return false;
}

/* Calls fn for each element of the array at s[i] == '[' (i < n), with where the element starts; sets *end
 * to the end of the array. False when no comma or closing bracket follows an element, or when fn returns
 * 0 (fn is handed what follows a trailing comma too, and the end of a truncated text, and says). */
LG_JSON_INLINE bool lg_json_walk_array(const char *s, size_t n, size_t i, lg_json_element_fn fn, void *ctx,
                                       size_t *end)
{
    i = lg_json_next_token(s, n, i + 1);
    if (i < n && s[i] == ']') {
        *end = i + 1;
        return true;
    }
    for (;;) {
        i = fn(s, n, i, ctx);
        if (!i)
            return false;
        int more = lg_json_separator(s, n, &i, ']', end);
        if (more <= 0)
            return more == 0;
    }
}

#endif
