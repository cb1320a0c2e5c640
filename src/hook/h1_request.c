/* HTTP/1.1 request parsing and rendering (see h1_request.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hook/auth_key.h"
#include "hook/h1_request.h"
#include "llmgate/url.h"

/* Appends len bytes to a growing buffer; false on allocation failure. */
static bool grow_append(char **buf, size_t *len, size_t *cap, const char *p, size_t n)
{
    if (*len + n + 1 > *cap) {
        size_t c = *cap ? *cap : 256;
        while (c < *len + n + 1)
            c *= 2;
        char *b = realloc(*buf, c);
        if (!b)
            return false;
        *buf = b;
        *cap = c;
    }
    memcpy(*buf + *len, p, n);
    *len += n;
    (*buf)[*len] = '\0';
    return true;
}

/* Appends to a malloc'd string. */
static bool str_append(char **s, const char *p, size_t n)
{
    size_t len = *s ? strlen(*s) : 0, cap = *s ? len + 1 : 0;
    return grow_append(s, &len, &cap, p, n);
}

static int on_url(http_parser *p, const char *at, size_t n)
{
    lg_h1_req *r = p->data;
    size_t cap = r->url ? r->url_len + 1 : 0;
    return grow_append(&r->url, &r->url_len, &cap, at, n) ? 0 : (r->oom = true, 1);
}

static int on_field(http_parser *p, const char *at, size_t n)
{
    lg_h1_req *r = p->data;
    if (r->in_value || r->n_fields == 0) {
        if (r->n_fields == r->cap_fields) {
            size_t c = r->cap_fields ? r->cap_fields * 2 : 16;
            lg_h1_field *f = realloc(r->fields, c * sizeof *f);
            if (!f)
                return r->oom = true, 1;
            r->fields = f;
            r->cap_fields = c;
        }
        r->fields[r->n_fields++] = (lg_h1_field){0};
        r->in_value = false;
    }
    return str_append(&r->fields[r->n_fields - 1].name, at, n) ? 0 : (r->oom = true, 1);
}

static int on_value(http_parser *p, const char *at, size_t n)
{
    lg_h1_req *r = p->data;
    r->in_value = true;
    return str_append(&r->fields[r->n_fields - 1].value, at, n) ? 0 : (r->oom = true, 1);
}

static int on_headers_complete(http_parser *p)
{
    lg_h1_req *r = p->data;
    for (size_t i = 0; i < r->n_fields; i++)
        if (!r->fields[i].value && !(r->fields[i].value = strdup("")))
            return r->oom = true, -1;
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

void lg_h1_req_init(lg_h1_req *r)
{
    memset(r, 0, sizeof *r);
    http_parser_init(&r->p, HTTP_REQUEST);
    r->p.data = r;
}

void lg_h1_req_free(lg_h1_req *r)
{
    for (size_t i = 0; i < r->n_fields; i++) {
        if (r->fields[i].value)
            explicit_bzero(r->fields[i].value, strlen(r->fields[i].value));
        free(r->fields[i].name);
        free(r->fields[i].value);
    }
    if (r->raw)
        explicit_bzero(r->raw, r->raw_len);
    free(r->fields);
    free(r->raw);
    free(r->url);
    free(r->body);
    memset(r, 0, sizeof *r);
}

lg_h1_state lg_h1_req_feed(lg_h1_req *r, const char *p, size_t len, size_t max, size_t *used)
{
    *used = 0;
    size_t n = http_parser_execute(&r->p, &settings, p, len);
    enum http_errno e = HTTP_PARSER_ERRNO(&r->p);
    if ((e != HPE_OK && !(e == HPE_PAUSED && r->complete)) || r->p.upgrade || r->oom)
        return LG_H1_INVALID;
    if (r->raw_len + n > max || !grow_append(&r->raw, &r->raw_len, &r->raw_cap, p, n))
        return LG_H1_INVALID;
    *used = n;
    return r->complete ? LG_H1_COMPLETE : LG_H1_MORE;
}

const char *lg_h1_req_header(const lg_h1_req *r, const char *name)
{
    for (size_t i = 0; i < r->n_fields; i++)
        if (r->fields[i].name && !strcasecmp(r->fields[i].name, name))
            return r->fields[i].value;
    return NULL;
}

/* "Name: value" of field i (for lg_auth_value). Caller frees. */
static char *field_line(const lg_h1_field *f)
{
    char *line = NULL;
    return asprintf(&line, "%s: %s", f->name, f->value) < 0 ? NULL : line;
}

bool lg_h1_req_find_key(const lg_h1_req *r, char *buf, size_t size)
{
    for (size_t i = 0; i < r->n_fields; i++) {
        char *line = field_line(&r->fields[i]);
        const char *v = line ? lg_auth_value(line) : NULL;
        size_t klen = v ? lg_auth_key_len(v) : 0;
        bool found = klen > 0 && klen < size;
        if (found) {
            memcpy(buf, v, klen);
            buf[klen] = '\0';
        }
        if (line) {
            explicit_bzero(line, strlen(line));
            free(line);
        }
        if (found)
            return true;
    }
    return r->url && lg_url_query_get(r->url, "key", buf, size);
}

/* Framing headers we re-create or drop. A name that merely starts with one of them is dropped too:
 * libhttp-parser (and perhaps a provider's parser) takes "Transfer-Encodingg" for the real thing, which
 * beside our Content-Length would make the request unreadable (found by fuzz_h1_request). The pin header
 * is llmgate's and is never forwarded. */
static bool dropped(const char *name)
{
    return !strncasecmp(name, "content-length", 14) || !strncasecmp(name, "transfer-encoding", 17) ||
           !strcasecmp(name, "expect") || !strcasecmp(name, "x-llmgate-pin");
}

/* Appends a malloc'd line (wiped and freed) and CRLF; false when line is NULL or memory ran out. */
static bool add_line(char **out, size_t *olen, size_t *ocap, char *line)
{
    bool ok = line && grow_append(out, olen, ocap, line, strlen(line)) && grow_append(out, olen, ocap, "\r\n", 2);
    if (line) {
        explicit_bzero(line, strlen(line));
        free(line);
    }
    return ok;
}

/* Field f as it goes out under o: NULL when dropped (*ok stays true) or on allocation failure (*ok false). */
static char *field_out(const lg_h1_field *f, const lg_h1_render *o, bool *carried, bool *ok)
{
    char *fl = NULL;
    if (dropped(f->name))
        return NULL;
    if (o->host && !strcasecmp(f->name, "host")) {
        *ok = asprintf(&fl, "%s: %s", f->name, o->host) >= 0;
        return *ok ? fl : NULL;
    }
    fl = field_line(f);
    const char *v = fl ? lg_auth_value(fl) : NULL;
    char *nl = NULL;
    if (v && o->restyle) { /* the host's credentials never go to another provider */
        explicit_bzero(fl, strlen(fl));
        free(fl);
        return NULL;
    }
    if (v && o->key) {
        nl = lg_auth_line_with_key(fl, v, o->key);
        explicit_bzero(fl, strlen(fl));
        free(fl);
        fl = nl;
    }
    *carried |= v != NULL;
    *ok = fl != NULL;
    return fl;
}

char *lg_h1_req_render(const lg_h1_req *r, const lg_h1_render *o, size_t *len)
{
    char *out = NULL;
    size_t olen = 0, ocap = 0;
    const char *target = o->target ? o->target : r->url;
    char *url = o->key && target ? lg_url_query_set(target, "key", o->key) : NULL; /* NULL: no ?key= */
    char *line = NULL;
    bool carried = url != NULL, ok = true;
    int n = asprintf(&line, "%s %s HTTP/%u.%u", http_method_str(r->p.method), url ? url : target,
                     r->p.http_major, r->p.http_minor);
    ok = add_line(&out, &olen, &ocap, n >= 0 ? line : NULL);
    if (url) {
        explicit_bzero(url, strlen(url));
        free(url);
    }
    for (size_t i = 0; ok && i < r->n_fields; i++) {
        char *fl = field_out(&r->fields[i], o, &carried, &ok);
        if (fl)
            ok = add_line(&out, &olen, &ocap, fl);
    }
    if (ok && o->key && !carried)
        ok = add_line(&out, &olen, &ocap, lg_auth_style_line(o->style, o->key));
    if (ok && o->extra)
        ok = add_line(&out, &olen, &ocap, strdup(o->extra));
    if (ok && o->json && !lg_h1_req_header(r, "content-type"))
        ok = add_line(&out, &olen, &ocap, strdup("Content-Type: application/json"));
    const char *body = o->body ? o->body : r->body;
    size_t body_len = o->body ? o->body_len : r->body_len;
    bool has_body = body_len > 0 || r->p.method == HTTP_POST || r->p.method == HTTP_PUT || r->p.method == HTTP_PATCH;
    if (ok && has_body)
        ok = add_line(&out, &olen, &ocap, asprintf(&line, "Content-Length: %zu", body_len) >= 0 ? line : NULL);
    ok = ok && grow_append(&out, &olen, &ocap, "\r\n", 2) &&
         (body_len == 0 || grow_append(&out, &olen, &ocap, body, body_len));
    if (!ok) {
        if (out)
            explicit_bzero(out, olen);
        free(out);
        return NULL;
    }
    *len = olen;
    return out;
}
