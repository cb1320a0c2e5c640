/* HTTP/1.1 response reading (see h1_response.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "front/h1_head.h"
#include "front/h1_response.h"
#include "front/h1_text.h"

#define READ_SIZE 16384

/* Hands a rebuilt header line to the capture; false on allocation failure. */
static bool put_line(lg_h1_resp *r, const char *line, size_t n)
{
    return lg_capture_header((char *)line, 1, n, r->cap) == n;
}

static bool status_line(lg_h1_resp *r)
{
    if (r->status_sent)
        return true;
    r->status_sent = true;
    const char *reason = http_status_str((enum http_status)r->p.status_code);
    size_t rlen = strlen(reason);
    char line[3 * LG_H1_DEC_MAX + 64];
    size_t n = 5;
    memcpy(line, "HTTP/", 5);
    n += lg_h1_dec(line + n, r->p.http_major);
    line[n++] = '.';
    n += lg_h1_dec(line + n, r->p.http_minor);
    line[n++] = ' ';
    n += lg_h1_dec(line + n, r->p.status_code);
    line[n++] = ' ';
    if (rlen > sizeof line - n - 2)
        rlen = sizeof line - n - 2;
    memcpy(line + n, reason, rlen);
    n += rlen;
    line[n++] = '\r';
    line[n++] = '\n';
    return put_line(r, line, n);
}

/* Appends to the header line being gathered; false on allocation failure. */
static bool append(lg_h1_resp *r, const char *at, size_t n)
{
    if (!lg_h1_grow(&r->line, &r->line_cap, r->line_len + n))
        return false;
    memcpy(r->line + r->line_len, at, n);
    r->line_len += n;
    return true;
}

/* Emits the header gathered so far as one line "Name: value" with its CRLF. */
static bool flush_field(lg_h1_resp *r)
{
    if (!r->in_field)
        return true;
    bool ok = (r->in_value || append(r, ": ", 2)) && append(r, "\r\n", 2) && put_line(r, r->line, r->line_len);
    r->line_len = 0;
    r->in_field = r->in_value = false;
    return ok;
}

static int on_field(http_parser *p, const char *at, size_t n)
{
    lg_h1_resp *r = p->data;
    if (!status_line(r) || (r->in_value && !flush_field(r)))
        return 1;
    r->in_field = true;
    return append(r, at, n) ? 0 : 1;
}

static int on_value(http_parser *p, const char *at, size_t n)
{
    lg_h1_resp *r = p->data;
    if (!r->in_value && !append(r, ": ", 2))
        return 1;
    r->in_value = true;
    return append(r, at, n) ? 0 : 1;
}

/* The header lines of a plain head (r->plain, at r->plain_at) to the capture: each as it came when it reads
 * as the parser's fields rebuild it, else rebuilt the same way ("Name: value" with CRLF). */
static bool plain_lines(lg_h1_resp *r)
{
    const lg_h1_head *h = r->plain;
    for (size_t i = 0; i < h->n; i++) {
        const lg_h1_hline *l = &h->lines[i];
        const char *line = r->plain_at + l->off;
        if (lg_h1_head_canonical(r->plain_at, l)) {
            if (lg_capture_line(r->cap, line, l->len, l->name_len, l->value_off) != l->len)
                return false;
            continue;
        }
        r->line_len = 0;
        if (!append(r, line, l->name_len) || !append(r, ": ", 2) ||
            !append(r, line + l->value_off, l->len - l->value_off) ||
            lg_capture_line(r->cap, r->line, r->line_len, l->name_len, l->name_len + 2) != r->line_len)
            return false;
    }
    return true;
}

static int on_headers_complete(http_parser *p)
{
    lg_h1_resp *r = p->data;
    if (!status_line(r) || (r->plain ? !plain_lines(r) : !flush_field(r)) || !put_line(r, "\r\n", 2))
        return -1;
    r->interim = p->status_code < 200;
    r->chunked = (p->flags & F_CHUNKED) != 0;
    return r->head ? 1 : 0;
}

static int on_body(http_parser *p, const char *at, size_t n)
{
    lg_h1_resp *r = p->data;
    if (r->interim || lg_relay_feed(r->relay, at, n))
        return 0;
    r->stop = true;
    return 1;
}

static int on_complete(http_parser *p)
{
    lg_h1_resp *r = p->data;
    if (r->interim) { /* 100 Continue and friends: the real response follows */
        r->status_sent = r->interim = false;
        return 0;
    }
    r->done = true;
    r->keep_alive = http_should_keep_alive(p) != 0;
    http_parser_pause(p, 1);
    return 0;
}

static const http_parser_settings settings = {
    .on_header_field = on_field,
    .on_header_value = on_value,
    .on_headers_complete = on_headers_complete,
    .on_body = on_body,
    .on_message_complete = on_complete,
};

/* A plain head's framing goes through the parser without its fields: its lines are captured whole. */
static const http_parser_settings plain_settings = {
    .on_headers_complete = on_headers_complete,
    .on_body = on_body,
    .on_message_complete = on_complete,
};

/* True while the parser can take more bytes of the message. */
static bool parsing(const lg_h1_resp *r) { return !r->done && !r->stop && HTTP_PARSER_ERRNO(&r->p) == HPE_OK; }

/* Parses the n bytes at buf, whose start is a response's. A plain head (lg_h1_head_split) all there is read
 * a line at a time: libhttp-parser reads its status line and the lines it takes for framing (the same
 * bytes, in their order), then the blank line, while the lines themselves go to the capture whole; the
 * bytes after the head are parsed as usual. Anything else is libhttp-parser's alone. */
static void parse_first(lg_h1_resp *r, const char *buf, size_t n)
{
    lg_h1_head h;
    if (!lg_h1_head_split(buf, n, &h)) {
        http_parser_execute(&r->p, &settings, buf, n);
        return;
    }
    r->plain = &h;
    r->plain_at = buf;
    lg_h1_head_feed(&r->p, &plain_settings, buf, &h);
    r->plain = NULL;
    r->plain_at = NULL;
    if (n > h.len && parsing(r))
        http_parser_execute(&r->p, &settings, buf + h.len, n - h.len);
}

void lg_h1_resp_start(lg_h1_resp *r, lg_capture *cap, lg_relay *relay, bool head)
{
    char *line = r->line; /* kept: the next response's lines are gathered in it */
    size_t line_cap = r->line_cap;
    memset(r, 0, sizeof *r);
    r->line = line;
    r->line_cap = line_cap;
    http_parser_init(&r->p, HTTP_RESPONSE);
    r->p.data = r;
    r->cap = cap;
    r->relay = relay;
    r->head = head;
}

void lg_h1_resp_free(lg_h1_resp *r)
{
    free(r->line);
    r->line = NULL;
    r->line_len = r->line_cap = 0;
}

lg_h1r_step lg_h1_resp_step(lg_h1_resp *r, const lg_h1_io *io, void *ioctx)
{
    char buf[READ_SIZE];
    ssize_t n = io->recv(ioctx, buf, sizeof buf);
    if (n == LG_IO_AGAIN)
        return LG_H1R_AGAIN;
    if (n == LG_IO_INTR)
        return LG_H1R_INTR;
    if (n < 0)
        return LG_H1R_FAILED;
    if (n == 0) {
        http_parser_execute(&r->p, &settings, NULL, 0); /* a body that ends with the connection */
        if (r->done)
            r->keep_alive = false;
        return r->done ? LG_H1R_DONE : r->stop ? LG_H1R_STOPPED : LG_H1R_EOF;
    }
    if (r->got_any)
        http_parser_execute(&r->p, &settings, buf, (size_t)n);
    else
        parse_first(r, buf, (size_t)n);
    r->got_any = true;
    if (r->stop)
        return LG_H1R_STOPPED;
    if (r->done)
        return LG_H1R_DONE; /* bytes after the response (a server pipelining) are dropped */
    return HTTP_PARSER_ERRNO(&r->p) == HPE_OK ? LG_H1R_MORE : LG_H1R_FAILED;
}
