/* AWS event-stream frames (see aws_frames.h). Header value types and sizes as in aws-c-event-stream and
 * botocore's eventstream.py: 0 true, 1 false (no bytes), 2 byte (1), 3 short (2), 4 integer (4), 5 long (8),
 * 6 byte array and 7 string (a u16 BE length, then the bytes), 8 timestamp (8), 9 UUID (16). */
#include <string.h>

#include "llmgate/aws_frames.h"

#define PRELUDE 12u
#define TYPE_STRING 7

static size_t be32(const unsigned char *p) { return (size_t)p[0] << 24 | (size_t)p[1] << 16 | (size_t)p[2] << 8 | p[3]; }

/* The size of a header's value of type t at p (avail bytes there), or (size_t)-1 when t is unknown or the
 * value does not fit. *off receives where the value's bytes begin (after a length prefix). */
static size_t value_size(unsigned t, const unsigned char *p, size_t avail, size_t *off)
{
    static const unsigned char fixed[] = {0, 0, 1, 2, 4, 8, 0, 0, 8, 16};
    size_t len;
    *off = 0;
    if (t == 6 || t == TYPE_STRING) {
        if (avail < 2)
            return (size_t)-1;
        *off = 2;
        len = 2 + ((size_t)p[0] << 8 | p[1]);
    } else if (t < sizeof fixed) {
        len = fixed[t];
    } else {
        return (size_t)-1;
    }
    return len <= avail ? len : (size_t)-1;
}

/* A header looked for by name, and what was found. */
typedef struct {
    const char *want;
    size_t want_len;
    const unsigned char *v;
    size_t vlen;
    unsigned type;
    bool found;
} header_query;

/* Walks the n bytes of headers at h, checking each; stops at the header q names (q may be NULL: check only).
 * False when a header is malformed. */
static bool walk_headers(const unsigned char *h, size_t n, header_query *q)
{
    size_t i = 0;
    while (i < n) {
        size_t name_len = h[i];
        if (name_len == 0 || name_len > n - i - 1 || n - i - 1 - name_len < 1)
            return false;
        const unsigned char *name = h + i + 1;
        unsigned t = h[i + 1 + name_len];
        size_t at = i + 2 + name_len, off;
        size_t size = value_size(t, h + at, n - at, &off);
        if (size == (size_t)-1)
            return false;
        if (q && name_len == q->want_len && !memcmp(name, q->want, name_len)) {
            q->v = h + at + off;
            q->vlen = size - off;
            q->type = t;
            q->found = true;
            return true;
        }
        i = at + size;
    }
    return true;
}

lg_aws_status lg_aws_frame_read(const char *b, size_t n, lg_aws_frame *f)
{
    const unsigned char *u = (const unsigned char *)b;
    if (n < PRELUDE)
        return LG_AWS_FRAME_SHORT;
    size_t total = be32(u), hl = be32(u + 4);
    if (total < LG_AWS_FRAME_MIN || total > LG_AWS_FRAME_MAX || hl > total - LG_AWS_FRAME_MIN)
        return LG_AWS_FRAME_BAD;
    if (n < total)
        return LG_AWS_FRAME_SHORT;
    f->total = total;
    f->headers = u + PRELUDE;
    f->headers_len = hl;
    f->payload = b + PRELUDE + hl;
    f->payload_len = total - LG_AWS_FRAME_MIN - hl;
    return walk_headers(f->headers, hl, NULL) ? LG_AWS_FRAME_OK : LG_AWS_FRAME_BAD;
}

bool lg_aws_frame_header(const lg_aws_frame *f, const char *name, const char **v, size_t *len)
{
    header_query q = {.want = name, .want_len = strlen(name)};
    if (!walk_headers(f->headers, f->headers_len, &q) || !q.found || q.type != TYPE_STRING)
        return false;
    *v = (const char *)q.v;
    *len = q.vlen;
    return true;
}

size_t lg_aws_frames_span(const char *b, size_t n, size_t stop, bool *bad)
{
    size_t at = 0;
    lg_aws_frame f;
    lg_aws_status st = LG_AWS_FRAME_OK;
    while (at < n && at < stop && (st = lg_aws_frame_read(b + at, n - at, &f)) == LG_AWS_FRAME_OK)
        at += f.total;
    if (bad)
        *bad = st == LG_AWS_FRAME_BAD;
    return at;
}
