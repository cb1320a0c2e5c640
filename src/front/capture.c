/* Capture of one attempt's response (see capture.h). */
#include <stdlib.h>
#include <string.h>

#include "front/capture.h"
#include "util/word.h"

#if defined(__SSE2__) && !defined(LG_CAPTURE_PORTABLE)
#include <emmintrin.h>
#define LG_CAPTURE_SSE2 1
#endif

/* The word scans below take a word's first byte in memory order as its lowest lane. */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "capture.c reads words little-endian");

/* The first ':' of the len bytes at p, NULL when none (memchr's answer): 16 bytes at a time (SSE2), 8 bytes
 * at a time for the rest and on other machines, the last block overlapping the one before (whose bytes hold
 * no ':'), bytes one by one only below 8; nothing outside the len bytes is read. */
static inline const char *find_colon(const char *p, size_t len)
{
    const char *q = p, *end = p + len;
#ifdef LG_CAPTURE_SSE2
    if (len >= 16) {
        const __m128i colon = _mm_set1_epi8(':');
        for (;; q += 16) {
            if (end - q < 16)
                q = end - 16;
            unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)q), colon));
            if (m)
                return q + __builtin_ctz(m);
            if (q + 16 == end)
                return NULL;
        }
    }
#endif
    if (len >= 8)
        for (;; q += 8) {
            if (end - q < 8)
                q = end - 8;
            uint64_t m = lg_word_first_eq(lg_load8(q), ':');
            if (m)
                return q + (__builtin_ctzll(m) >> 3);
            if (q + 8 == end)
                return NULL;
        }
    for (; q < end; q++)
        if (*q == ':')
            return q;
    return NULL;
}

/* memcpy of n bytes from s to d (apart), inline: 16 (SSE2) or 8 bytes at a time, the last piece overlapping
 * the one before; nothing outside the n bytes at either is read or written. */
static inline void copy_in(char *d, const char *s, size_t n)
{
    if (n >= 16) {
#ifdef LG_CAPTURE_SSE2
        for (size_t i = 0; i < n - 16; i += 16)
            _mm_storeu_si128((__m128i *)(void *)(d + i), _mm_loadu_si128((const __m128i *)(const void *)(s + i)));
        _mm_storeu_si128((__m128i *)(void *)(d + n - 16), _mm_loadu_si128((const __m128i *)(const void *)(s + n - 16)));
#else
        for (size_t i = 0; i < n - 8; i += 8) {
            uint64_t w = lg_load8(s + i);
            memcpy(d + i, &w, 8);
        }
        uint64_t last = lg_load8(s + n - 8);
        memcpy(d + n - 8, &last, 8);
#endif
    } else if (n >= 8) {
        uint64_t a = lg_load8(s), b = lg_load8(s + n - 8);
        memcpy(d, &a, 8);
        memcpy(d + n - 8, &b, 8);
    } else if (n >= 4) {
        uint32_t a, b;
        memcpy(&a, s, 4);
        memcpy(&b, s + n - 4, 4);
        memcpy(d, &a, 4);
        memcpy(d + n - 4, &b, 4);
    } else {
        for (size_t i = 0; i < n; i++)
            d[i] = s[i];
    }
}

void lg_capture_reset(lg_capture *c)
{
    c->n_lines = 0;
    c->n_hdrs = 0;
    c->text_len = 0;
    c->event_stream = c->aws_frames = false;
    c->body_len = 0;
    c->status = 0;
    c->status_plain = false;
    c->oom = 0;
    c->lines_seen = 0;
}

void lg_capture_free(lg_capture *c)
{
    free(c->lines);
    free(c->body);
    free(c->hdrs);
    free(c->text);
    memset(c, 0, sizeof *c);
}

void lg_capture_shrink(lg_capture *c, size_t keep)
{
    if (c->body_cap > keep) {
        free(c->body);
        c->body = NULL;
        c->body_cap = c->body_len = 0;
    }
    if (c->text_cap > keep) {
        free(c->text);
        c->text = NULL;
        c->text_cap = c->text_len = 0;
        c->n_lines = c->n_hdrs = 0;
    }
}

size_t lg_capture_write(char *ptr, size_t size, size_t nmemb, void *userdata)
{
    lg_capture *c = userdata;
    size_t len = size * nmemb;
    if (c->body_len + len + 1 > c->body_cap) {
        size_t cap = c->body_cap ? c->body_cap : 4096;
        while (cap < c->body_len + len + 1)
            cap *= 2;
        char *b = realloc(c->body, cap);
        if (!b) {
            c->oom = 1;
            return 0;
        }
        c->body = b;
        c->body_cap = cap;
    }
    memcpy(c->body + c->body_len, ptr, len);
    c->body_len += len;
    c->body[c->body_len] = '\0';
    return len;
}

/* Makes room for `more` bytes at the end of the text; when it moves, the lines and the view are pointed
 * into the new buffer (while the old one is still there to measure from). False when out of memory. */
static bool text_room(lg_capture *c, size_t more)
{
    if (c->text_len + more <= c->text_cap)
        return true;
    size_t cap = c->text_cap ? c->text_cap : 1024;
    while (cap < c->text_len + more)
        cap *= 2;
    char *t = malloc(cap), *old = c->text;
    if (!t)
        return false;
    if (c->text_len)
        memcpy(t, old, c->text_len);
    for (size_t i = 0; i < c->n_lines; i++)
        c->lines[i] = t + (c->lines[i] - old);
    for (size_t i = 0; i < c->n_hdrs; i++) {
        c->hdrs[i].name = t + (c->hdrs[i].name - old);
        c->hdrs[i].value = t + (c->hdrs[i].value - old);
    }
    free(old);
    c->text = t;
    c->text_cap = cap;
    return true;
}

/* Copies len bytes of s to the end of the text, NUL-terminated; the copy (room made beforehand). */
static inline char *text_put(lg_capture *c, const char *s, size_t len)
{
    char *p = c->text + c->text_len;
    memcpy(p, s, len);
    p[len] = '\0';
    c->text_len += len + 1;
    return p;
}

/* The array at p (n used of *cap elements of size sz), grown to hold one more when full; NULL when out of
 * memory (p is left as it was). */
static void *one_more(void *p, size_t n, size_t *cap, size_t sz)
{
    if (n < *cap)
        return p;
    size_t want = *cap ? *cap * 2 : 16;
    void *grown = realloc(p, want * sz);
    if (grown)
        *cap = want;
    return grown;
}

/* Room for one more line of len bytes: a slot in the lines and in the headers, and its two copies in the
 * text (the line, then its name and value). Taken only when a buffer must grow; false when out of memory. */
static __attribute__((cold, noinline)) bool make_room(lg_capture *c, size_t len)
{
    char **lines = one_more(c->lines, c->n_lines, &c->cap_lines, sizeof *c->lines);
    if (lines)
        c->lines = lines;
    lg_header *hdrs = lines ? one_more(c->hdrs, c->n_hdrs, &c->cap_hdrs, sizeof *c->hdrs) : NULL;
    if (hdrs)
        c->hdrs = hdrs;
    return hdrs && text_room(c, 2 * len + 2);
}

/* True when the 12 bytes at s spell "content-type" in any case: two overlapping word loads, 0x20 or-ed
 * into the letters only (a letter with 0x20 set is the lowercase one exactly when it is that letter). */
static inline bool is_content_type(const char *s)
{
    const char *head = "       \0", *tail = "   \0    "; /* spaces (0x20) over the letters of each word */
    return (lg_load8(s) | lg_load8(head)) == lg_load8("content-") && (lg_load8(s + 4) | lg_load8(tail)) == lg_load8("ent-type");
}

/* True when the len bytes at p begin a status line ("HTTP/", any case). */
static inline bool is_status_line(const char *p, size_t len)
{
    return len >= 5 && (p[0] | 0x20) == 'h' && (p[1] | 0x20) == 't' && (p[2] | 0x20) == 't' &&
           (p[3] | 0x20) == 'p' && p[4] == '/';
}

/* atoi of the n bytes at s (libcurl's line is not NUL-terminated: read from a copy of at most 63 bytes). */
static __attribute__((cold, noinline)) int atoi_of(const char *s, size_t n)
{
    char buf[64];
    n = n < sizeof buf - 1 ? n : sizeof buf - 1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    return atoi(buf);
}

/* Reads the status code of the status line of len bytes at p into c: atoi of what follows its first space
 * (0 without one); status_plain when it is three digits there and then no digit (read directly). */
static inline void read_status(lg_capture *c, const char *p, size_t len)
{
    const char *sp = memchr(p, ' ', len), *end = p + len;
    const unsigned char *d = (const unsigned char *)(sp ? sp + 1 : p);
    c->status_plain = sp && (size_t)(end - sp) > 4 && (unsigned)(d[0] - '0') < 10 && (unsigned)(d[1] - '0') < 10 &&
                      (unsigned)(d[2] - '0') < 10 && (unsigned)(d[3] - '0') >= 10;
    if (c->status_plain)
        c->status = (d[0] - '0') * 100 + (d[1] - '0') * 10 + (d[2] - '0');
    else
        c->status = sp ? atoi_of(sp + 1, (size_t)(end - sp - 1)) : 0;
}

/* A status line (len bytes at p) starts a new block: the lines and headers so far are dropped. */
static __attribute__((noinline)) size_t status_line(lg_capture *c, const char *p, size_t len)
{
    c->n_lines = c->n_hdrs = c->text_len = 0;
    c->event_stream = c->aws_frames = false;
    c->lines_seen++;
    read_status(c, p, len);
    if (c->skip_lines)
        return len;
    if ((c->n_lines >= c->cap_lines || c->n_hdrs >= c->cap_hdrs || len + 1 > c->text_cap) && !make_room(c, len)) {
        c->oom = 1;
        return 0;
    }
    c->lines[c->n_lines++] = text_put(c, p, len);
    return len;
}

/* Makes room for a header line of len bytes at ptr (two copies in the text) and keeps the line as it came
 * (unless skip_lines); *at: where the text goes on after it. False (oom set) when out of memory. */
static inline bool keep_line(lg_capture *c, const char *ptr, size_t len, size_t *at)
{
    if (__builtin_expect(c->n_lines >= c->cap_lines || c->n_hdrs >= c->cap_hdrs ||
                             c->text_len + 2 * len + 2 > c->text_cap, 0) &&
        !make_room(c, len)) {
        c->oom = 1;
        return false;
    }
    c->lines_seen++;
    *at = c->text_len;
    if (!c->skip_lines) {
        char *line = c->text + *at;
        copy_in(line, ptr, len);
        line[len] = '\0';
        *at += len + 1;
        c->lines[c->n_lines++] = line;
    }
    return true;
}

/* Adds the header of the line of len bytes at ptr, whose name is its first nlen bytes and whose value
 * begins at v: the line copied once more at *at up to its trimmed end, cut into name and value. */
static inline __attribute__((always_inline)) void add_header(lg_capture *c, size_t *at, const char *ptr, size_t len, size_t nlen, const char *v)
{
    const char *end = ptr + len;
    if (end - v >= 2 && end[-1] == '\n' && end[-2] == '\r')
        end -= 2; /* the usual end; whatever else is trimmed below */
    while (end > v && (unsigned char)end[-1] <= ' ' &&
           (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' ' || end[-1] == '\t'))
        end--;
    size_t keep = (size_t)(end - ptr);
    char *copy = c->text + *at;
    copy_in(copy, ptr, keep);
    copy[keep] = '\0';
    copy[nlen] = '\0';
    *at += keep + 1;
    lg_header *h = &c->hdrs[c->n_hdrs++];
    h->name = copy;
    h->value = copy + (v - ptr);
    if (nlen == 12 && is_content_type(copy)) {
        c->event_stream = end - v >= 17 && lg_is_event_stream(h->value); /* 17: "text/event-stream" */
        c->aws_frames = end - v >= 34 && lg_is_aws_eventstream(h->value); /* "application/vnd.amazon.eventstream" */
    }
}

/* Each other line is kept as it came (unless skip_lines) and, when it is a header ("Name: value\r\n"), copied once more up to
 * its trimmed end, cut into name and value (lines that are not headers, the blank end, add no header). */
size_t lg_capture_header(char *ptr, size_t size, size_t nmemb, void *userdata)
{
    lg_capture *c = userdata;
    size_t len = size * nmemb, at;
    if (is_status_line(ptr, len))
        return status_line(c, ptr, len);
    if (!keep_line(c, ptr, len, &at))
        return 0;
    const char *colon = find_colon(ptr, len);
    if (colon && colon != ptr) {
        const char *v = colon + 1, *end = ptr + len;
        while (v < end && (*v == ' ' || *v == '\t'))
            v++;
        add_header(c, &at, ptr, len, (size_t)(colon - ptr), v);
    }
    c->text_len = at;
    return len;
}

size_t lg_capture_line(lg_capture *c, const char *line, size_t len, size_t name_len, size_t value_off)
{
    size_t at;
    if (!keep_line(c, line, len, &at))
        return 0;
    add_header(c, &at, line, len, name_len, line + value_off);
    c->text_len = at;
    return len;
}

bool lg_capture_set_line(lg_capture *c, size_t i, const char *line)
{
    size_t len = strlen(line);
    if (!text_room(c, len + 1))
        return false;
    c->lines[i] = text_put(c, line, len);
    return true;
}

void lg_capture_view(const lg_capture *c, lg_response_view *v)
{
    memset(v, 0, sizeof *v);
    v->status = c->status;
    v->headers = c->hdrs;
    v->n_headers = c->n_hdrs;
    v->body = c->body ? c->body : "";
    v->body_len = c->body_len;
    v->stream = c->event_stream;
    v->aws_frames = c->aws_frames;
}
