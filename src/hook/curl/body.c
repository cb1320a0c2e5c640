/* A provider request body read from the host's read callback, held to be sent again (see body.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hook/curl/body.h"

#define ASK_MAX 65536 /* bytes asked of the host's callback at a time: libcurl's default upload buffer */

bool lg_curl_body_is_read(const lg_curl_rec *r) { return !r->postfields && (r->post || r->upload) && !r->has_seekfn; }

/* One call of r's read callback, or of libcurl's default (fread from READDATA). */
static size_t host_read(const lg_curl_rec *r, char *buf, size_t size, size_t nmemb)
{
    return r->readfn ? r->readfn(buf, size, nmemb, r->readdata) : fread(buf, size, nmemb, r->readdata);
}

bool lg_curl_body_hold(lg_curl_body *b, const lg_curl_rec *r, int64_t max)
{
    lg_curl_body_release(b);
    b->rec = r;
    curl_off_t size = r->upload ? r->infilesize : r->postsize;
    if (!lg_curl_body_is_read(r) || size < 0 || size > max || !(b->held = malloc((size_t)size + 1)))
        return false;
    while (b->held_len < (size_t)size) {
        size_t ask = (size_t)size - b->held_len < ASK_MAX ? (size_t)size - b->held_len : ASK_MAX;
        size_t n = host_read(r, b->held + b->held_len, 1, ask);
        if (n == CURL_READFUNC_PAUSE)
            break;
        if (n == 0 || n > ask) { /* an early end, an abort, a bad count: libcurl's to see after the bytes */
            b->ended = true;
            b->end_rc = n;
            break;
        }
        b->held_len += n;
    }
    b->held[b->held_len] = '\0';
    b->whole = b->held_len == (size_t)size;
    lg_curl_body_send(b, NULL, 0);
    return true;
}

void lg_curl_body_send(lg_curl_body *b, const char *body, size_t len)
{
    b->src = body ? body : b->held;
    b->src_len = body ? len : b->held_len;
    b->off = 0;
}

size_t lg_curl_body_read(char *buf, size_t size, size_t nmemb, void *userdata)
{
    lg_curl_body *b = userdata;
    size_t want = size * nmemb;
    if (b->off < b->src_len) {
        size_t n = b->src_len - b->off < want ? b->src_len - b->off : want;
        memcpy(buf, b->src + b->off, n);
        b->off += n;
        return n;
    }
    if (b->whole || !b->rec || b->src != b->held) /* !rec: nothing held (after release) */
        return 0;
    return b->ended ? b->end_rc : host_read(b->rec, buf, size, nmemb);
}

int lg_curl_body_seek(void *userdata, curl_off_t offset, int origin)
{
    lg_curl_body *b = userdata;
    if (!b->whole || origin != SEEK_SET || offset < 0 || (size_t)offset > b->src_len)
        return CURL_SEEKFUNC_CANTSEEK;
    b->off = (size_t)offset;
    return CURL_SEEKFUNC_OK;
}

void lg_curl_body_release(lg_curl_body *b)
{
    free(b->held);
    bool on = b->on;
    *b = (lg_curl_body){.on = on};
}
