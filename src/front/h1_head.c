/* A plain HTTP/1.1 header block read a line at a time (see h1_head.h). */
#include <string.h>

#include "front/h1_head.h"
#include "util/word.h"

#if defined(__SSE2__) && !defined(LG_H1_HEAD_PORTABLE)
#include <emmintrin.h>
#define LG_H1_HEAD_SSE2 1
#endif

/* The word scans below take a word's first byte in memory order as its lowest lane. */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "h1_head.c reads words little-endian");

/* The lanes of word w holding a byte below 0x20 or 0x7f: the lowest flagged lane is the first such byte
 * exactly (a borrow may flag lanes above it, never below). */
static inline uint64_t special(uint64_t w)
{
    uint64_t del = w ^ (LG_WORD_ONES * 0x7f);
    return ((w - LG_WORD_ONES * 0x20) & ~w & LG_WORD_HIGH) | ((del - LG_WORD_ONES) & ~del & LG_WORD_HIGH);
}

const char *lg_h1_first_special_words(const char *q, const char *end)
{
    for (; end - q >= 8; q += 8) {
        uint64_t m = special(lg_load8(q));
        if (m)
            return q + (__builtin_ctzll(m) >> 3);
    }
    while (q < end && (unsigned char)*q >= 0x20 && *q != 0x7f)
        q++;
    return q;
}

/* A name byte this reader takes: an ASCII letter, a digit, '-' or '_'. */
static inline bool name_byte(unsigned char c)
{
    return (unsigned)((c | 0x20) - 'a') < 26 || (unsigned)(c - '0') < 10 || c == '-' || c == '_';
}

/* The high bits of the lanes of w holding a byte at most n (n and the lanes below 0x80: no borrow). */
static inline uint64_t at_most(uint64_t w, unsigned n) { return (LG_WORD_ONES * (0x80 | n) - w) & LG_WORD_HIGH; }

/* The high bits of the lanes of w holding a byte name_byte does not take: the lowest flagged lane is the
 * first such byte exactly (a lane of 0x80 or above is flagged; what it borrows spoils only lanes above). */
static inline uint64_t not_name(uint64_t w)
{
    uint64_t low = w | (LG_WORD_ONES * 0x20); /* letters to lowercase */
    uint64_t name = (at_most(low, 'z') & ~at_most(low, 'a' - 1)) | (at_most(w, '9') & ~at_most(w, '0' - 1)) |
                    at_most(w ^ (LG_WORD_ONES * '-'), 0) | at_most(w ^ (LG_WORD_ONES * '_'), 0);
    return (~name & LG_WORD_HIGH) | (w & LG_WORD_HIGH);
}

const char *lg_h1_name_end_words(const char *q, const char *end)
{
    for (; end - q >= 8; q += 8) {
        uint64_t m = not_name(lg_load8(q));
        if (m)
            return q + (__builtin_ctzll(m) >> 3);
    }
    while (q < end && name_byte((unsigned char)*q))
        q++;
    return q;
}

#ifdef LG_H1_HEAD_SSE2
/* The bits of the 16 bytes at q below 0x20 or 0x7f (bit k: byte k). */
static inline unsigned special16(const char *q)
{
    __m128i x = _mm_loadu_si128((const __m128i *)(const void *)q);
    __m128i low = _mm_cmpeq_epi8(_mm_max_epu8(x, _mm_set1_epi8(0x1f)), _mm_set1_epi8(0x1f)); /* x <= 0x1f */
    return (unsigned)_mm_movemask_epi8(_mm_or_si128(low, _mm_cmpeq_epi8(x, _mm_set1_epi8(0x7f))));
}

/* The bits of the 16 bytes at q that name_byte does not take: not a letter (x | 0x20 in 'a'..'z'), a digit,
 * '-' or '_' (unsigned compares: t <= n as min(t, n) == t). */
static inline unsigned not_name16(const char *q)
{
    __m128i x = _mm_loadu_si128((const __m128i *)(const void *)q);
    __m128i t = _mm_sub_epi8(_mm_or_si128(x, _mm_set1_epi8(0x20)), _mm_set1_epi8('a'));
    __m128i d = _mm_sub_epi8(x, _mm_set1_epi8('0'));
    __m128i ok = _mm_or_si128(_mm_cmpeq_epi8(_mm_min_epu8(t, _mm_set1_epi8(25)), t),
                              _mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8(9)), d));
    ok = _mm_or_si128(ok, _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('-')), _mm_cmpeq_epi8(x, _mm_set1_epi8('_'))));
    return ~(unsigned)_mm_movemask_epi8(ok) & 0xffff;
}
#endif

const char *lg_h1_first_special(const char *q, const char *end)
{
#ifdef LG_H1_HEAD_SSE2
    for (; end - q >= 16; q += 16) {
        unsigned m = special16(q);
        if (m)
            return q + __builtin_ctz(m);
    }
#endif
    return lg_h1_first_special_words(q, end);
}

const char *lg_h1_name_end(const char *q, const char *end)
{
#ifdef LG_H1_HEAD_SSE2
    for (; end - q >= 16; q += 16) {
        unsigned m = not_name16(q);
        if (m)
            return q + __builtin_ctz(m);
    }
#endif
    return lg_h1_name_end_words(q, end);
}

bool lg_h1_head_split(const char *p, size_t n, lg_h1_head *h)
{
    const char *end = p + n, *lf = memchr(p, '\n', n);
    /* the start line's only control bytes its CRLF: libhttp-parser ends a status line at its first CR and
     * takes the byte after it for the LF, whatever it is; never empty: the parser skips an empty first line
     * and reads the next as the start line */
    if (!lf || lf - p < 2 || lg_h1_first_special(p, lf) != lf - 1 || lf[-1] != '\r')
        return false;
    const char *q = lf + 1;
    h->start_len = (size_t)(q - p);
    h->n = 0;
    for (;;) {
        if (end - q < 2)
            return false;
        if (q[0] == '\r' && q[1] == '\n')
            break;
        const char *s = q;
        q = lg_h1_name_end(q, end);
        if (q == s || q == end || *q != ':' || h->n == LG_H1_HEAD_LINES)
            return false;
        size_t name_len = (size_t)(q - s);
        for (q++; q < end && *q == ' '; q++)
            ;
        const char *v = q;
        q = lg_h1_first_special(q, end);
        if (end - q < 2 || q[0] != '\r' || q[1] != '\n')
            return false;
        q += 2;
        h->lines[h->n++] = (lg_h1_hline){.off = (uint32_t)(s - p), .len = (uint32_t)(q - s),
                                         .name_len = (uint32_t)name_len, .value_off = (uint32_t)(v - s)};
    }
    h->len = (size_t)(q + 2 - p);
    return h->len <= UINT32_MAX;
}

/* Whether the 4 bytes at s differ from the 4 lowercase letters at w in more than case. */
static inline uint32_t differs4(const char *s, const char *w)
{
    uint32_t a, b;
    memcpy(&a, s, 4);
    memcpy(&b, w, 4);
    return (a | 0x20202020u) ^ b;
}

bool lg_h1_head_framing(const char *name, size_t len)
{
    switch (name[0] | 0x20) {
    case 'c': return lg_word_begins(name, len, "connection", 10) || lg_word_begins(name, len, "content-length", 14);
    case 'p': return lg_word_begins(name, len, "proxy-connection", 16);
    case 't': return lg_word_begins(name, len, "transfer-encoding", 17);
    case 'u': return len >= 7 && !(differs4(name, "upgr") | differs4(name + 3, "rade"));
    default: return false;
    }
}

void lg_h1_head_feed(http_parser *hp, const http_parser_settings *s, const char *p, const lg_h1_head *h)
{
    http_parser_execute(hp, s, p, h->start_len);
    for (size_t i = 0; i < h->n && HTTP_PARSER_ERRNO(hp) == HPE_OK; i++)
        if (lg_h1_head_framing(p + h->lines[i].off, h->lines[i].name_len))
            http_parser_execute(hp, s, p + h->lines[i].off, h->lines[i].len);
    if (HTTP_PARSER_ERRNO(hp) == HPE_OK)
        http_parser_execute(hp, s, p + h->len - 2, 2);
}

bool lg_h1_head_canonical(const char *p, const lg_h1_hline *l)
{
    return l->value_off == l->name_len + 2 && p[l->off + l->name_len + 1] == ' ';
}
