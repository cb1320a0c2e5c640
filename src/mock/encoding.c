/* gzip content coding of the mock's answers (see encoding.h). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <zlib.h>

#include "mock/encoding.h"

/* True when the coding token of len bytes at t, with its parameters at p (up to the next comma), is
 * accepted: gzip, x-gzip or *, without q=0. */
static bool accepted(const char *t, size_t len, const char *p, size_t plen)
{
    bool named = (len == 4 && !strncasecmp(t, "gzip", 4)) || (len == 6 && !strncasecmp(t, "x-gzip", 6)) ||
                 (len == 1 && *t == '*');
    if (!named)
        return false;
    for (size_t i = 0; i + 1 < plen; i++) /* "q=0", "q=0.0", "q=0.000": refused */
        if ((p[i] == 'q' || p[i] == 'Q') && p[i + 1] == '=') {
            const char *v = p + i + 2;
            size_t n = plen - i - 2;
            while (n && (*v == '0' || *v == '.'))
                v++, n--;
            return n && *v >= '1' && *v <= '9';
        }
    return true;
}

bool mock_accepts_gzip(const mock_request *q)
{
    for (size_t i = 0; i < q->n_headers; i++) {
        if (strcasecmp(q->headers[i].name, "accept-encoding"))
            continue;
        for (const char *s = q->headers[i].value; *s;) {
            s += strspn(s, " \t,");
            size_t item = strcspn(s, ","), len = strcspn(s, " \t;,");
            if (item && accepted(s, len, s + len, item - len))
                return true;
            s += item;
        }
    }
    return false;
}

void mock_reply_gzip(mock_reply *r)
{
    if (r->status == 0 || r->stream || r->chunk || r->truncate >= 0 || !r->body || !r->body_len)
        return;
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return; /* 15 + 16: a gzip wrapper */
    uLong cap = deflateBound(&z, (uLong)r->body_len);
    unsigned char *out = malloc(cap + 1);
    z.next_in = (unsigned char *)r->body;
    z.avail_in = (uInt)r->body_len;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    int rc = out ? deflate(&z, Z_FINISH) : Z_MEM_ERROR;
    size_t len = z.total_out;
    deflateEnd(&z);
    if (rc != Z_STREAM_END) {
        free(out);
        return;
    }
    free(r->body);
    r->body = (char *)out;
    r->body_len = len;
    mock_reply_header(r, "Content-Encoding", "gzip");
    mock_reply_header(r, "Vary", "Accept-Encoding");
}
