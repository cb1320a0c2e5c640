/* Skimming JSON text without parsing it: where a string or a value ends, shared by the lazy success
 * reader (src/classify/lazy.c), the token estimate and the model rewrite (src/gate). The string helpers
 * are inline: they run once per string on every request. */
#ifndef LLMGATE_CLASSIFY_JSON_SCAN_H
#define LLMGATE_CLASSIFY_JSON_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* End (exclusive) of the string starting at s[i] == '"' (i < n); 0 when unterminated. A quote found by
 * memchr ends the string when an even run of backslashes precedes it (each pair is an escaped one). */
static inline size_t lg_json_string_end(const char *s, size_t n, size_t i)
{
    const char *open = s + i + 1, *end = s + n, *q;
    for (const char *p = open; (q = memchr(p, '"', (size_t)(end - p))) != NULL; p = q + 1) {
        const char *b = q;
        while (b > open && b[-1] == '\\')
            b--;
        if ((q - b) % 2 == 0)
            return (size_t)(q - s) + 1;
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
