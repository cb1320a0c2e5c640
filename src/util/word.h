/* Eight bytes of text as one word, for comparing short names a word at a time (ASCII case folded by
 * or-ing 0x20 into the letters' lanes). */
#ifndef LLMGATE_UTIL_WORD_H
#define LLMGATE_UTIL_WORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The 8 bytes at p (any alignment), in memory order. */
static inline uint64_t lg_load8(const char *p)
{
    uint64_t w;
    memcpy(&w, p, sizeof w);
    return w;
}

#define LG_WORD_ONES 0x0101010101010101ull /* 0x01 in every lane */
#define LG_WORD_HIGH 0x8080808080808080ull /* each lane's high bit */

/* The high bit of the lanes of w (a word of bytes below 0x80 or not) holding the byte c: the lowest flagged
 * lane is the first c exactly (a borrow may flag lanes above it, never below); 0 when none holds c. */
static inline uint64_t lg_word_first_eq(uint64_t w, unsigned char c)
{
    w ^= LG_WORD_ONES * c;
    return (w - LG_WORD_ONES) & ~w & LG_WORD_HIGH;
}

/* The lanes of the 8 bytes at w (lowercase letters and '-') that hold a letter: 0x20 there, 0 elsewhere. */
static inline uint64_t lg_word_letters(const char *w) { return (lg_load8(w) & 0x4040404040404040ull) >> 1; }

/* Whether the 8 bytes at s differ from those at w (lowercase letters and '-') in more than the case of a
 * letter: 0x20 or-ed into the letters' lanes only (a byte with 0x20 set is a lowercase letter exactly when
 * it is that letter; a '-' must be one). */
static inline uint64_t lg_word_differs(const char *s, const char *w)
{
    return (lg_load8(s) | lg_word_letters(w)) ^ lg_load8(w);
}

/* True when the len bytes at name begin with word (n bytes, 8 <= n <= 24, of lowercase letters and '-'), in
 * any case: compared in 8-byte pieces, the last one overlapping; nothing past name's len bytes is read. */
static inline bool lg_word_begins(const char *name, size_t len, const char *word, size_t n)
{
    return len >= n && !(lg_word_differs(name, word) | lg_word_differs(name + n - 8, word + n - 8) |
                         (n > 16 ? lg_word_differs(name + 8, word + 8) : 0));
}

#endif
