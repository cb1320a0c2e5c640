/* HTTP/1.1 request parsing and rendering (see h1_request.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "front/auth_key.h"
#include "front/h1_head.h"
#include "front/h1_request.h"
#include "front/h1_text.h"
#include "util/word.h"
#include "llmgate/url.h"

#define KEEP_MAX 65536 /* buffers up to this size are kept for the connection's next request */

/* Makes room for n more bytes and a NUL after *len bytes of *buf (cold: the buffers are kept between
 * requests and the rendering makes its room at once). */
static __attribute__((cold, noinline)) bool grow_for(char **buf, size_t len, size_t *cap, size_t n)
{
    return lg_h1_grow(buf, cap, len + n + 1);
}

/* Appends the n bytes at p to *buf (*len bytes of *cap) and a NUL after them; false on allocation failure.
 * Inline: most calls append a few bytes, known at compile time, to a buffer with room. */
static inline __attribute__((always_inline)) bool grow_append(char **buf, size_t *len, size_t *cap, const char *p,
                                                              size_t n)
{
    if (__builtin_expect(*len + n >= *cap, 0) && !grow_for(buf, *len, cap, n))
        return false;
    memcpy(*buf + *len, p, n);
    *len += n;
    (*buf)[*len] = '\0';
    return true;
}

static int on_url(http_parser *p, const char *at, size_t n)
{
    lg_h1_req *r = p->data;
    return grow_append(&r->url, &r->url_len, &r->url_cap, at, n) ? 0 : (r->oom = true, 1);
}

/* Appends to the header text; false (oom set) when memory ran out. */
static bool text_put(lg_h1_req *r, const char *p, size_t n)
{
    return grow_append(&r->text, &r->text_len, &r->text_cap, p, n) || (r->oom = true, false);
}

/* Ends the field being collected: its line "Name: value" (an empty value when none came) and a NUL. */
static bool close_field(lg_h1_req *r)
{
    if (!r->field_open)
        return true;
    r->field_open = false;
    if (!r->in_value && !text_put(r, ": ", 2))
        return false;
    lg_h1_field *f = &r->fields[r->n_fields - 1];
    f->len = r->text_len - f->off;
    if (!text_put(r, "", 1))
        return false;
    const char *line = r->text + f->off, *v = lg_auth_value_named(line, f->name_len);
    f->key = v ? (size_t)(v - line) : 0;
    return true;
}

static int on_field(http_parser *p, const char *at, size_t n)
{
    lg_h1_req *r = p->data;
    if (r->in_value || !r->field_open) {
        if (!close_field(r))
            return 1;
        if (r->n_fields == r->cap_fields) {
            size_t c = r->cap_fields ? r->cap_fields * 2 : 16;
            lg_h1_field *f = realloc(r->fields, c * sizeof *f);
            if (!f)
                return r->oom = true, 1;
            r->fields = f;
            r->cap_fields = c;
        }
        r->fields[r->n_fields++] = (lg_h1_field){.off = r->text_len};
        r->field_open = true;
        r->in_value = false;
    }
    r->fields[r->n_fields - 1].name_len += n;
    return text_put(r, at, n) ? 0 : 1;
}

static int on_value(http_parser *p, const char *at, size_t n)
{
    lg_h1_req *r = p->data;
    if (!r->in_value && !text_put(r, ": ", 2))
        return 1;
    r->in_value = true;
    return text_put(r, at, n) ? 0 : 1;
}

static int on_headers_complete(http_parser *p)
{
    lg_h1_req *r = p->data;
    if (!close_field(r))
        return -1;
    const char *expect = lg_h1_req_header(r, "expect");
    r->expect_continue = expect && !strcasecmp(expect, "100-continue");
    r->headers_done = true;
    return p->method == HTTP_CONNECT || (expect && !r->expect_continue) || lg_h1_req_header(r, "upgrade") ? -1 : 0;
}

static int on_body(http_parser *p, const char *at, size_t n)
{
    lg_h1_req *r = p->data;
    return grow_append(&r->body, &r->body_len, &r->body_cap, at, n) ? 0 : (r->oom = true, 1);
}

static int on_complete(http_parser *p)
{
    lg_h1_req *r = p->data;
    if (!close_field(r)) /* the last trailer of a chunked body */
        return 1;
    r->complete = true;
    http_parser_pause(p, 1);
    return 0;
}

static const http_parser_settings settings = {
    .on_url = on_url,
    .on_header_field = on_field,
    .on_header_value = on_value,
    .on_headers_complete = on_headers_complete,
    .on_body = on_body,
    .on_message_complete = on_complete,
};

/* A plain head's request line and framing go through the parser without its fields (taken whole). */
static const http_parser_settings plain_settings = {
    .on_url = on_url,
    .on_headers_complete = on_headers_complete,
    .on_body = on_body,
    .on_message_complete = on_complete,
};

/* The fields of the plain head h at p, as the parser's callbacks would have made them (each "Name: value"
 * without CRLF, with its NUL and key offset); false (oom set) when memory ran out. */
static bool plain_fields(lg_h1_req *r, const char *p, const lg_h1_head *h)
{
    for (size_t i = 0; i < h->n; i++) {
        const lg_h1_hline *l = &h->lines[i];
        const char *line = p + l->off;
        if (r->n_fields == r->cap_fields) {
            size_t c = r->cap_fields ? r->cap_fields * 2 : 16;
            lg_h1_field *f = realloc(r->fields, c * sizeof *f);
            if (!f)
                return r->oom = true, false;
            r->fields = f;
            r->cap_fields = c;
        }
        lg_h1_field *f = &r->fields[r->n_fields++];
        *f = (lg_h1_field){.off = r->text_len, .name_len = l->name_len};
        bool ok = lg_h1_head_canonical(p, l)
                      ? text_put(r, line, l->len - 2)
                      : text_put(r, line, l->name_len) && text_put(r, ": ", 2) &&
                            text_put(r, line + l->value_off, l->len - 2 - l->value_off);
        f->len = r->text_len - f->off;
        if (!ok || !text_put(r, "", 1))
            return false;
        const char *v = lg_auth_value_named(r->text + f->off, f->name_len);
        f->key = v ? (size_t)(v - (r->text + f->off)) : 0;
    }
    return true;
}

/* True while the parser can take more bytes of the request. */
static bool parsing(const lg_h1_req *r) { return !r->complete && !r->oom && HTTP_PARSER_ERRNO(&r->p) == HPE_OK; }

/* Parses the len bytes at p; the bytes of p it took. A request's first bytes holding a plain head
 * (lg_h1_head_split) are read a line at a time: its fields taken whole, libhttp-parser reading its request
 * line and the lines it takes for framing (the same bytes, in their order), then the blank line and what
 * follows as usual. Anything else is libhttp-parser's alone. */
static size_t parse(lg_h1_req *r, const char *p, size_t len)
{
    lg_h1_head h;
    if (r->raw_len > 0 || !lg_h1_head_split(p, len, &h))
        return http_parser_execute(&r->p, &settings, p, len);
    if (!plain_fields(r, p, &h))
        return 0;
    lg_h1_head_feed(&r->p, &plain_settings, p, &h);
    if (!parsing(r) || len == h.len)
        return h.len;
    return h.len + http_parser_execute(&r->p, &settings, p + h.len, len - h.len);
}

void lg_h1_req_init(lg_h1_req *r)
{
    memset(r, 0, sizeof *r);
    http_parser_init(&r->p, HTTP_REQUEST);
    r->p.data = r;
}

/* Wipes what may hold a key: the header lines, the raw bytes, the request-target. */
static void wipe(lg_h1_req *r)
{
    if (r->text)
        explicit_bzero(r->text, r->text_len);
    if (r->raw)
        explicit_bzero(r->raw, r->raw_len);
    if (r->url)
        explicit_bzero(r->url, r->url_len);
}

void lg_h1_req_free(lg_h1_req *r)
{
    wipe(r);
    free(r->text);
    free(r->fields);
    free(r->raw);
    free(r->url);
    free(r->body);
    memset(r, 0, sizeof *r);
}

/* Frees *buf when its capacity went past KEEP_MAX (the next request starts it again). */
static void shrink(void *buf, size_t *cap, size_t elem)
{
    if (*cap * elem > KEEP_MAX) {
        free(*(void **)buf);
        *(void **)buf = NULL;
        *cap = 0;
    }
}

void lg_h1_req_reset(lg_h1_req *r)
{
    wipe(r);
    lg_h1_req kept = {.raw = r->raw, .raw_cap = r->raw_cap, .url = r->url, .url_cap = r->url_cap,
                      .text = r->text, .text_cap = r->text_cap, .fields = r->fields,
                      .cap_fields = r->cap_fields, .body = r->body, .body_cap = r->body_cap};
    shrink(&kept.raw, &kept.raw_cap, 1);
    shrink(&kept.url, &kept.url_cap, 1);
    shrink(&kept.text, &kept.text_cap, 1);
    shrink(&kept.body, &kept.body_cap, 1);
    shrink(&kept.fields, &kept.cap_fields, sizeof *kept.fields);
    *r = kept;
    http_parser_init(&r->p, HTTP_REQUEST);
    r->p.data = r;
}

lg_h1_state lg_h1_req_feed(lg_h1_req *r, const char *p, size_t len, size_t max, size_t *used)
{
    *used = 0;
    size_t n = parse(r, p, len);
    enum http_errno e = HTTP_PARSER_ERRNO(&r->p);
    if ((e != HPE_OK && !(e == HPE_PAUSED && r->complete)) || r->p.upgrade || r->oom)
        return LG_H1_INVALID;
    if ((r->too_large = r->raw_len + n > max))
        return LG_H1_INVALID;
    if (!grow_append(&r->raw, &r->raw_len, &r->raw_cap, p, n))
        return r->oom = true, LG_H1_INVALID;
    *used = n;
    return r->complete ? LG_H1_COMPLETE : LG_H1_MORE;
}

/* The line "Name: value" of field f. */
static const char *line_of(const lg_h1_req *r, const lg_h1_field *f) { return r->text + f->off; }

/* True when field f is named name (n bytes, any case). */
static bool named(const lg_h1_req *r, const lg_h1_field *f, const char *name, size_t n)
{
    return f->name_len == n && !strncasecmp(line_of(r, f), name, n);
}

const char *lg_h1_req_header(const lg_h1_req *r, const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0; i < r->n_fields; i++)
        if (named(r, &r->fields[i], name, n))
            return line_of(r, &r->fields[i]) + n + 2;
    return NULL;
}

bool lg_h1_req_find_key(const lg_h1_req *r, char *buf, size_t size)
{
    for (size_t i = 0; i < r->n_fields; i++) {
        const lg_h1_field *f = &r->fields[i];
        const char *v = f->key ? line_of(r, f) + f->key : NULL;
        size_t klen = v ? lg_auth_key_len(v) : 0;
        if (klen > 0 && klen < size) {
            memcpy(buf, v, klen);
            buf[klen] = '\0';
            return true;
        }
    }
    return r->url && lg_url_query_get(r->url, "key", buf, size);
}

/* Framing headers we re-create or drop. A name that merely starts with one of them is dropped too:
 * libhttp-parser (and perhaps a provider's parser) takes "Transfer-Encodingg" for the real thing, which
 * beside our Content-Length would make the request unreadable (found by fuzz_h1_request). The pin header
 * is llmgate's and is never forwarded. Accept-Encoding goes too: the provider then answers uncompressed,
 * which every host must take, and llmgate can read the answer it classifies (a gzip'ed error in a 200
 * would pass as a success). */
static bool dropped(const lg_h1_req *r, const lg_h1_field *f)
{
    const char *name = line_of(r, f);
    size_t n = f->name_len;
    return lg_word_begins(name, n, "content-length", 14) || lg_word_begins(name, n, "transfer-encoding", 17) ||
           named(r, f, "expect", 6) || (n == 13 && lg_word_begins(name, n, "x-llmgate-pin", 13)) ||
           (n == 15 && lg_word_begins(name, n, "accept-encoding", 15));
}

/* The rendering being built. */
typedef struct {
    char *p;
    size_t len, cap;
    bool ok;
} out_buf;

static inline void put(out_buf *o, const char *p, size_t n)
{
    o->ok = o->ok && grow_append(&o->p, &o->len, &o->cap, p, n);
}
static void put_str(out_buf *o, const char *s) { put(o, s, strlen(s)); }

/* Field f as it goes out under o (nothing when dropped); *carried when it carries the key. */
static void field_out(out_buf *out, const lg_h1_req *r, const lg_h1_field *f, const lg_h1_render *o, bool *carried)
{
    const char *line = line_of(r, f);
    if (dropped(r, f))
        return;
    if (o->host && named(r, f, "host", 4)) {
        put(out, line, f->name_len + 2);
        put_str(out, o->host);
        put(out, "\r\n", 2);
        return;
    }
    const char *v = f->key ? line + f->key : NULL;
    if (v && o->restyle) /* the host's credentials never go to another provider */
        return;
    if (v && o->key) { /* the line's own name and scheme, then the key: anything after the old key goes */
        put(out, line, (size_t)(v - line));
        put_str(out, o->key);
    } else {
        put(out, line, f->len);
    }
    put(out, "\r\n", 2);
    *carried |= v != NULL;
}

/* Appends a malloc'd line (wiped and freed) and CRLF; fails the rendering when line is NULL. */
static void put_line(out_buf *out, char *line)
{
    out->ok = out->ok && line;
    if (!line)
        return;
    put_str(out, line);
    put(out, "\r\n", 2);
    explicit_bzero(line, strlen(line));
    free(line);
}

/* Appends " HTTP/major.minor\r\n" of the request. */
static void put_version(out_buf *out, const lg_h1_req *r)
{
    char v[2 * LG_H1_DEC_MAX + 16] = " HTTP/";
    size_t n = 6;
    n += lg_h1_dec(v + n, r->p.http_major);
    v[n++] = '.';
    n += lg_h1_dec(v + n, r->p.http_minor);
    v[n++] = '\r';
    v[n++] = '\n';
    put(out, v, n);
}

char *lg_h1_req_render(const lg_h1_req *r, const lg_h1_render *o, size_t *len)
{
    const char *body = o->body ? o->body : r->body;
    size_t body_len = o->body ? o->body_len : r->body_len;
    out_buf out = {.ok = true};
    /* room for the usual rendering at once: the host's request with a key of up to 256 bytes */
    out.ok = lg_h1_grow(&out.p, &out.cap, r->url_len + r->text_len + body_len + 512);
    const char *target = o->target ? o->target : r->url;
    char *url = o->key && target ? lg_url_query_set(target, "key", o->key) : NULL; /* NULL: no ?key= */
    bool carried = url != NULL;
    put_str(&out, http_method_str(r->p.method));
    put(&out, " ", 1);
    put_str(&out, url ? url : target ? target : "");
    put_version(&out, r);
    if (url) {
        explicit_bzero(url, strlen(url));
        free(url);
    }
    for (size_t i = 0; out.ok && i < r->n_fields; i++)
        field_out(&out, r, &r->fields[i], o, &carried);
    if (o->key && !carried)
        put_line(&out, lg_auth_style_line(o->style, o->key));
    if (o->extra) {
        put_str(&out, o->extra);
        put(&out, "\r\n", 2);
    }
    if (o->json && !lg_h1_req_header(r, "content-type"))
        put_str(&out, "Content-Type: application/json\r\n");
    bool has_body = body_len > 0 || r->p.method == HTTP_POST || r->p.method == HTTP_PUT || r->p.method == HTTP_PATCH;
    if (has_body) {
        char cl[LG_H1_DEC_MAX + 32] = "Content-Length: ";
        size_t n = 16 + lg_h1_dec(cl + 16, body_len);
        put(&out, cl, n);
        put(&out, "\r\n", 2);
    }
    put(&out, "\r\n", 2);
    if (body_len > 0)
        put(&out, body, body_len);
    if (!out.ok) {
        if (out.p)
            explicit_bzero(out.p, out.len);
        free(out.p);
        return NULL;
    }
    *len = out.len;
    return out.p;
}
