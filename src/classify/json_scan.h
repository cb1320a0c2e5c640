/* Skimming JSON text without parsing it: where a string or a value ends, shared by the lazy success
 * reader (src/classify/lazy.c), the token estimate and the model rewrite (src/gate). The string helpers
 * are inline: they run once per string on every request. */
#ifndef LLMGATE_CLASSIFY_JSON_SCAN_H
#define LLMGATE_CLASSIFY_JSON_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* Index of the first '"' in s[i, n), or n when there is none (also when i >= n). */
static inline size_t lg_json_quote(const char *s, size_t n, size_t i)
{
    const char *q = i < n ? memchr(s + i, '"', n - i) : NULL;
    return q ? (size_t)(q - s) : n;
}

/* End (exclusive) of the string starting at s[i] == '"'; 0 when unterminated. A quote ends the string
 * when an even run of backslashes precedes it (each pair is an escaped backslash). */
static inline size_t lg_json_string_end(const char *s, size_t n, size_t i)
{
    size_t start = i + 1;
    for (i = lg_json_quote(s, n, start); i < n; i = lg_json_quote(s, n, i + 1)) {
        size_t bs = 0;
        while (i - bs > start && s[i - bs - 1] == '\\')
            bs++;
        if (bs % 2 == 0)
            return i + 1;
    }
    return 0;
}

/* True at a character that ends a number or literal (a NUL too: such text is malformed). */
static inline bool lg_json_scalar_stop(char ch)
{
    switch (ch) {
    case ',': case '}': case ']': case ' ': case '\t': case '\r': case '\n': case '\0': return true;
    default: return false;
    }
}

/* End (exclusive) of the object or array starting at s[i], counting brackets outside strings; 0 when the
 * text ends first. */
size_t lg_json_value_end(const char *s, size_t n, size_t i);

#endif
