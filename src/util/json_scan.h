/* Skimming JSON text without parsing it: where a string or a value ends, shared by the lazy success
 * reader (src/classify/lazy.c), the token estimate and the model rewrite (src/gate). They run on every
 * request, so they are inline and read the text 16 bytes at a time: a block classifier marks the bytes
 * that matter (quotes, backslashes, brackets) as bits, and the helpers walk the bits. The classifier is
 * SSE2 on x86-64 and, elsewhere (or with LG_JSON_PORTABLE defined), two 64-bit words compared a byte
 * lane at a time; both give the marks of the byte loop lg_json_marks_bytes. Gathering a word's lanes into
 * bits costs more than SSE2's movemask, so the portable build ends strings and values by finding the first
 * quote, backslash or bracket of each 8-byte word instead (lg_json_first8), and finds a 'u' the same way;
 * these three helpers and the classifier are the only code with two versions. */
#ifndef LLMGATE_UTIL_JSON_SCAN_H
#define LLMGATE_UTIL_JSON_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__SSE2__) && !defined(LG_JSON_PORTABLE)
#include <emmintrin.h>
#define LG_JSON_SSE2 1
#endif

#define LG_JSON_BLOCK 16

/* The per-byte helpers below are inlined wherever they are used (GCC and clang would otherwise keep
 * some of them as calls, which costs more than the scan itself on short strings). */
#define LG_JSON_INLINE static inline __attribute__((always_inline))

/* The bytes of one block that matter to the skimmers: bit k stands for byte k. */
typedef struct {
    uint32_t quote;  /* '"' */
    uint32_t bslash; /* '\\' */
    uint32_t open;   /* '{' or '[' */
    uint32_t close;  /* '}' or ']' */
    uint32_t u;      /* 'u' (a "usage" key starts with one) */
    uint32_t e;      /* 'e' (an "error" key or value starts with one) */
} lg_json_marks;

/* The marks of the len (at most 16) bytes at p, a byte at a time: for the last bytes of a text shorter
 * than a block (out of line and cold: texts that short are rare), and the reference the block classifiers
 * are tested against. */
static __attribute__((cold, noinline, unused)) lg_json_marks lg_json_marks_bytes(const char *p, size_t len)
{
    lg_json_marks m = {0, 0, 0, 0, 0, 0};
    for (size_t k = 0; k < len; k++) {
        uint32_t bit = 1u << k;
        switch (p[k]) {
        case '"': m.quote |= bit; break;
        case '\\': m.bslash |= bit; break;
        case '{': case '[': m.open |= bit; break;
        case '}': case ']': m.close |= bit; break;
        case 'u': m.u |= bit; break;
        case 'e': m.e |= bit; break;
        default: break;
        }
    }
    return m;
}

#ifndef LG_JSON_SSE2
/* 0x80 in each byte of x that equals c, 0 in the others (exact: no borrow crosses a byte). */
LG_JSON_INLINE uint64_t lg_json_eq8(uint64_t x, unsigned char c)
{
    const uint64_t low7 = 0x7f7f7f7f7f7f7f7full;
    uint64_t y = x ^ (0x0101010101010101ull * c);
    return ~(((y & low7) + low7) | y | low7);
}

/* The 0x80 bits of m as 8 bits, byte k to bit k: the multiplication moves byte k's bit to bit 56 + k,
 * and no two of its partial products meet. */
LG_JSON_INLINE uint32_t lg_json_bits8(uint64_t m)
{
    return (uint32_t)(((m >> 7) * 0x0102040810204080ull) >> 56);
}

/* The 8 bytes at p as a word, byte k of the text in bits 8k..8k+7. */
LG_JSON_INLINE uint64_t lg_json_word(const char *p)
{
    uint64_t x;
    memcpy(&x, p, sizeof x);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    x = __builtin_bswap64(x);
#endif
    return x;
}

/* 0x80 in the first byte of x that equals c, and maybe in bytes after it (a borrow runs only upward
 * from a byte that equals c); 0 when none does. Cheaper than lg_json_eq8 where only the first counts. */
LG_JSON_INLINE uint64_t lg_json_first8(uint64_t x, unsigned char c)
{
    uint64_t y = x ^ (0x0101010101010101ull * c);
    return (y - 0x0101010101010101ull) & ~y & 0x8080808080808080ull;
}

/* The marks of the 8 bytes at p, a word at a time. */
LG_JSON_INLINE lg_json_marks lg_json_marks8(const char *p)
{
    uint64_t x = lg_json_word(p);
    uint64_t folded = x | 0x2020202020202020ull; /* '[' and '{' meet, so do ']' and '}' */
    lg_json_marks m = {
        lg_json_bits8(lg_json_eq8(x, '"')),      lg_json_bits8(lg_json_eq8(x, '\\')),
        lg_json_bits8(lg_json_eq8(folded, '{')), lg_json_bits8(lg_json_eq8(folded, '}')),
        lg_json_bits8(lg_json_eq8(x, 'u')),      lg_json_bits8(lg_json_eq8(x, 'e')),
    };
    return m;
}
#endif

/* The marks of the 16 bytes at p (all readable): SSE2 compares, or two words of the portable kind. */
LG_JSON_INLINE lg_json_marks lg_json_marks16(const char *p)
{
#ifdef LG_JSON_SSE2
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i folded = _mm_or_si128(v, _mm_set1_epi8(0x20)); /* '[' and '{' meet, so do ']' and '}' */
    lg_json_marks m = {
        (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('"'))),
        (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
        (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(folded, _mm_set1_epi8('{'))),
        (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(folded, _mm_set1_epi8('}'))),
        (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('u'))),
        (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('e'))),
    };
    return m;
#else
    lg_json_marks a = lg_json_marks8(p), b = lg_json_marks8(p + 8);
    lg_json_marks m = {a.quote | b.quote << 8, a.bslash | b.bslash << 8, a.open | b.open << 8,
                       a.close | b.close << 8, a.u | b.u << 8, a.e | b.e << 8};
    return m;
#endif
}

/* The marks of s[i .. min(i + 16, n)) (i < n); bits past n are clear. Near the end of a text of 16 bytes
 * or more, the last 16 bytes are classified and shifted, so nothing past n is read. */
LG_JSON_INLINE lg_json_marks lg_json_marks_at(const char *s, size_t n, size_t i)
{
    if (__builtin_expect(n - i >= LG_JSON_BLOCK, 1))
        return lg_json_marks16(s + i);
    if (n < LG_JSON_BLOCK)
        return lg_json_marks_bytes(s + i, n - i);
    lg_json_marks m = lg_json_marks16(s + n - LG_JSON_BLOCK);
    unsigned shift = (unsigned)(i - (n - LG_JSON_BLOCK));
    m.quote >>= shift, m.bslash >>= shift, m.open >>= shift, m.close >>= shift, m.u >>= shift, m.e >>= shift;
    return m;
}

/* The index of the first 'u' in s[i..n), or a value >= n when there is none: SSE2 blocks, or the portable
 * build's first 'u' of each 8-byte word. */
LG_JSON_INLINE size_t lg_json_next_u(const char *s, size_t n, size_t i)
{
#ifdef LG_JSON_SSE2
    for (; i < n; i += LG_JSON_BLOCK) {
        uint32_t u = lg_json_marks_at(s, n, i).u;
        if (u)
            return i + (size_t)__builtin_ctz(u);
    }
#else
    for (; i + 8 <= n; i += 8) {
        uint64_t hit = lg_json_first8(lg_json_word(s + i), 'u');
        if (hit)
            return i + ((size_t)__builtin_ctzll(hit) >> 3);
    }
    while (i < n && s[i] != 'u')
        i++;
#endif
    return i;
}

/* The bytes of a block escaped by a backslash: each one right after an odd run of backslashes (what is
 * marked at a backslash is left unspecified: only quotes are asked about). *carry is
 * 1 when the block's first byte is escaped by the previous block's last backslash (0 for the first block
 * of a string), and is set for the next block. Runs are told apart by adding their first bit: the carry
 * lands on the byte after the run, whose parity against the run's start says whether the run is odd. */
LG_JSON_INLINE uint32_t lg_json_escaped(uint32_t bslash, uint32_t *carry)
{
    uint32_t in = *carry;
    if (!bslash) {
        *carry = 0;
        return in;
    }
    const uint32_t even = 0x55555555u, odd = 0xAAAAAAAAu;
    uint32_t b = bslash & ~in; /* an escaped backslash escapes nothing */
    uint32_t starts = b & ~(b << 1);
    uint32_t after_even = (b + (starts & even)) & ~b, after_odd = (b + (starts & odd)) & ~b;
    uint32_t escaped = (after_even & odd) | (after_odd & even) | in;
    *carry = escaped >> LG_JSON_BLOCK & 1u;
    return escaped & ((1u << LG_JSON_BLOCK) - 1);
}

/* End (exclusive) of the string whose text starts at at, block by block; 0 when unterminated. One copy
 * per file, called (not inlined): only strings past their first block come here. */
static __attribute__((noinline, unused)) size_t lg_json_string_rest(const char *s, size_t n, size_t at)
{
    uint32_t carry = 0;
    for (; at < n; at += LG_JSON_BLOCK) {
        lg_json_marks m = lg_json_marks_at(s, n, at);
        uint32_t quote = m.quote & ~lg_json_escaped(m.bslash, &carry);
        if (quote)
            return at + (size_t)__builtin_ctz(quote) + 1;
    }
    return 0;
}

/* The end of a string found in marks m of the block at at (bits from at on): when a quote is there with
 * no backslash before it, the index just after that quote, else 0. */
LG_JSON_INLINE size_t lg_json_quote_in(uint32_t quote, uint32_t bslash, size_t at)
{
    return quote && !(bslash & (quote ^ (quote - 1))) ? at + (size_t)__builtin_ctz(quote) + 1 : 0;
}

/* End (exclusive) of the string starting at s[i] == '"' (i < n); 0 when unterminated. The first quote
 * not escaped by a backslash ends it. A string of up to 15 bytes without backslashes costs one block
 * (SSE2); the portable build reads it 8 bytes at a time instead, by the word's first quote or backslash
 * (lg_json_first8: no masks to gather), a backslash skipping the byte it escapes. */
LG_JSON_INLINE size_t lg_json_string_end(const char *s, size_t n, size_t i)
{
    size_t at = i + 1;
#ifndef LG_JSON_SSE2
    while (at + 8 <= n) {
        uint64_t x = lg_json_word(s + at), hit = lg_json_first8(x, '"') | lg_json_first8(x, '\\');
        if (!hit) {
            at += 8;
            continue;
        }
        at += (size_t)__builtin_ctzll(hit) >> 3;
        if (s[at] == '"')
            return at + 1;
        at += 2; /* a backslash and the byte it escapes */
    }
    for (; at < n; at++) {
        if (s[at] == '"')
            return at + 1;
        at += s[at] == '\\';
    }
    return 0;
#else
    if (n - at >= LG_JSON_BLOCK) {
        lg_json_marks m = lg_json_marks16(s + at);
        size_t end = lg_json_quote_in(m.quote, m.bslash, at);
        if (end)
            return end;
        if (!m.quote && !m.bslash)
            at += LG_JSON_BLOCK;
    }
    return lg_json_string_rest(s, n, at);
#endif
}

/* Bit k set when an odd number of the bits 0..k of x are: the bytes from an opening quote up to its
 * closing one, when x marks the quotes of a block. */
LG_JSON_INLINE uint32_t lg_json_prefix_xor(uint32_t x)
{
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    return x;
}

#ifndef LG_JSON_SSE2
/* End (exclusive) of the object or array starting at s[i], counting brackets outside strings (of either
 * kind: the text is skimmed, not checked); 0 when the text ends first. Iterative: no recursion on deep
 * nesting. The portable build reads it a token at a time, finding the next quote or bracket 8 bytes at a
 * time by lg_json_first8 (fewer steps than the block masks of the SSE2 reading below, which gathering
 * the portable masks would make dearer). */
LG_JSON_INLINE size_t lg_json_value_end(const char *s, size_t n, size_t i)
{
    size_t depth = 0;
    while (i < n) {
        if (i + 8 <= n) {
            uint64_t x = lg_json_word(s + i), folded = x | 0x2020202020202020ull; /* [ to {, ] to } */
            uint64_t hit = lg_json_first8(x, '"') | lg_json_first8(folded, '{') | lg_json_first8(folded, '}');
            if (!hit) {
                i += 8;
                continue;
            }
            i += (size_t)__builtin_ctzll(hit) >> 3;
        }
        unsigned char ch = (unsigned char)s[i];
        if (ch == '"') {
            i = lg_json_string_end(s, n, i);
            if (!i)
                return 0;
        } else if ((ch | 0x20) == '{') {
            depth++;
            i++;
        } else if ((ch | 0x20) == '}' && (depth == 0 || --depth == 0)) {
            return i + 1;
        } else {
            i++;
        }
    }
    return 0;
}
#else
/* End (exclusive) of the object or array starting at s[i], counting brackets outside strings (of either
 * kind: the text is skimmed, not checked); 0 when the text ends first. Iterative: no recursion on deep
 * nesting. A block without backslashes is read whole: its quotes tell which bytes are inside strings,
 * and only the brackets outside them are counted. A block with a backslash is read a token at a time
 * (a backslash outside a string is no escape). */
LG_JSON_INLINE size_t lg_json_value_end(const char *s, size_t n, size_t i)
{
    size_t depth = 0;
    uint32_t in_string = 0; /* all ones while a string goes on from the previous block */
    while (i < n) {
        lg_json_marks m = lg_json_marks_at(s, n, i);
        if (!m.bslash) {
            uint32_t inside = lg_json_prefix_xor(m.quote) ^ in_string;
            uint32_t open = m.open & ~inside;
            for (uint32_t b = open | (m.close & ~inside); b; b &= b - 1) {
                if (open & b & -b)
                    depth++;
                else if (depth == 0 || --depth == 0)
                    return i + (size_t)__builtin_ctz(b) + 1;
            }
            in_string = (uint32_t)0 - (inside >> (LG_JSON_BLOCK - 1) & 1u);
            i += LG_JSON_BLOCK;
        } else if (in_string) { /* the string ends after a backslash run the previous block did not see */
            i = lg_json_string_rest(s, n, i);
            if (!i)
                return 0;
            in_string = 0;
        } else {
            uint32_t bits = m.quote | m.open | m.close;
            if (!bits) {
                i += LG_JSON_BLOCK;
                continue;
            }
            i += (size_t)__builtin_ctz(bits);
            char ch = s[i];
            if (ch == '"') {
                i = lg_json_string_end(s, n, i);
                if (!i)
                    return 0;
            } else if (ch == '{' || ch == '[') {
                depth++;
                i++;
            } else if (depth == 0 || --depth == 0) {
                return i + 1;
            } else {
                i++;
            }
        }
    }
    return 0;
}
#endif

/* True at a character that ends a number or literal (a NUL too: such text is malformed): one of , } ]
 * space \t \r \n \0. Below 64 a bit of a mask says; above, only ] and } (which | 0x20 turns into }). */
LG_JSON_INLINE bool lg_json_scalar_stop(char ch)
{
    const uint64_t low = 1ull << ',' | 1ull << ' ' | 1ull << '\t' | 1ull << '\r' | 1ull << '\n' | 1ull << 0;
    unsigned char c = (unsigned char)ch;
    return c < 64 ? (low >> c) & 1u : (c | 0x20) == '}';
}

#endif
