/* Phrase matching in provider texts, the primitive that every reader of messages, prose hints and code
 * names builds on: case-insensitive, with '-' and '_' in the text equal to ' ' in the needle. */
#include <string.h>
#include <strings.h>

#include "classify/dialects.h"

static unsigned char fold(unsigned char ch)
{
    if (ch >= 'A' && ch <= 'Z')
        return (unsigned char)(ch + 32);
    if (ch == '-' || ch == '_')
        return ' ';
    return ch;
}

long lg_text_find_from(const char *t, size_t n, size_t from, const char *needle)
{
    size_t m = strlen(needle);
    if (!m || m > n)
        return -1;
    for (size_t i = from; i + m <= n; i++) {
        size_t j = 0;
        while (j < m && fold((unsigned char)t[i + j]) == fold((unsigned char)needle[j]))
            j++;
        if (j == m)
            return (long)i;
    }
    return -1;
}

long lg_text_find(const char *text, size_t len, const char *needle)
{
    return text ? lg_text_find_from(text, len, 0, needle) : -1;
}

bool lg_text_word_before(const char *t, size_t i, const char *const *words, size_t n)
{
    size_t e = i;
    while (e > 0 && t[e - 1] == ' ')
        e--;
    size_t b = e;
    while (b > 0 && ((t[b - 1] | 0x20) >= 'a' && (t[b - 1] | 0x20) <= 'z'))
        b--;
    for (size_t k = 0; k < n; k++)
        if (e > b && e < i && strlen(words[k]) == e - b && !strncasecmp(t + b, words[k], e - b))
            return true;
    return false;
}
