/* Small pieces of the text the socket front end builds (requests, header lines, what the host reads):
 * a growing buffer and decimal numbers without printf. */
#ifndef LLMGATE_FRONT_H1_TEXT_H
#define LLMGATE_FRONT_H1_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

#define LG_H1_DEC_MAX 20 /* the digits of the largest unsigned long long */

/* Makes *cap at least need, doubling from 256 (*buf reallocated); false on allocation failure. */
static inline bool lg_h1_grow(char **buf, size_t *cap, size_t need)
{
    if (need <= *cap)
        return true;
    size_t c = *cap ? *cap : 256;
    while (c < need)
        c *= 2;
    char *b = realloc(*buf, c);
    if (!b)
        return false;
    *buf = b;
    *cap = c;
    return true;
}

/* Writes v in decimal at dst (room for LG_H1_DEC_MAX bytes, no NUL); returns the number of digits. */
static inline size_t lg_h1_dec(char *dst, unsigned long long v)
{
    char tmp[LG_H1_DEC_MAX];
    size_t n = 0;
    do
        tmp[n++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    for (size_t i = 0; i < n; i++)
        dst[i] = tmp[n - 1 - i];
    return n;
}

#endif
