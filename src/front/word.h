/* Eight bytes of text as one word, for comparing short names a word at a time (ASCII case folded by
 * or-ing 0x20 into the letters' lanes). */
#ifndef LLMGATE_FRONT_WORD_H
#define LLMGATE_FRONT_WORD_H

#include <stdint.h>
#include <string.h>

/* The 8 bytes at p (any alignment), in memory order. */
static inline uint64_t lg_load8(const char *p)
{
    uint64_t w;
    memcpy(&w, p, sizeof w);
    return w;
}

#endif
