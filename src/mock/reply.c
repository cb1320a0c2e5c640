/* Building mock_reply values: headers, bodies, JSON printing in each provider's whitespace style. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mock/reply.h"

void mock_reply_init(mock_reply *r)
{
    memset(r, 0, sizeof *r);
    r->status = 200;
    r->truncate = -1;
}

void mock_reply_free(mock_reply *r)
{
    for (size_t i = 0; i < r->n_headers; i++) {
        free(r->headers[i].name);
        free(r->headers[i].value);
    }
    free(r->headers);
    free(r->body);
    mock_reply_init(r);
}

void mock_reply_header(mock_reply *r, const char *name, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (r->n_headers == r->cap_headers) {
        size_t cap = r->cap_headers ? r->cap_headers * 2 : 16;
        mock_hdr *h = realloc(r->headers, cap * sizeof *h);
        if (!h)
            return;
        r->headers = h;
        r->cap_headers = cap;
    }
    mock_hdr *h = &r->headers[r->n_headers];
    h->name = strdup(name);
    h->value = strdup(buf);
    if (!h->name || !h->value) {
        free(h->name);
        free(h->value);
        return;
    }
    r->n_headers++;
}

void mock_reply_body(mock_reply *r, const char *body, size_t len)
{
    char *copy = malloc(len + 1);
    if (!copy)
        return;
    if (len)
        memcpy(copy, body, len);
    copy[len] = '\0';
    free(r->body);
    r->body = copy;
    r->body_len = len;
}

void mock_reply_take_body(mock_reply *r, char *s)
{
    free(r->body);
    r->body = s;
    r->body_len = s ? strlen(s) : 0;
}

char *mock_json_print(const cJSON *obj, int indent)
{
    if (indent <= 0)
        return cJSON_PrintUnformatted(obj);
    char *tabbed = cJSON_Print(obj);
    if (!tabbed)
        return NULL;
    /* cJSON indents with tabs and separates keys from values with ":\t"; a literal tab never occurs
     * inside a printed string (it is escaped), so every tab is formatting. */
    size_t tabs = 0;
    for (const char *p = tabbed; *p; p++)
        tabs += *p == '\t';
    char *out = malloc(strlen(tabbed) + tabs * (size_t)indent + 2);
    if (!out) {
        free(tabbed);
        return NULL;
    }
    char *o = out;
    for (const char *p = tabbed; *p; p++) {
        if (*p != '\t') {
            *o++ = *p;
        } else if (p > tabbed && p[-1] == ':') {
            *o++ = ' ';
        } else {
            memset(o, ' ', (size_t)indent);
            o += indent;
        }
    }
    *o++ = '\n';
    *o = '\0';
    free(tabbed);
    return out;
}

void mock_reply_json(mock_reply *r, int status, cJSON *obj, int indent)
{
    r->status = status;
    mock_reply_header(r, "Content-Type", "application/json; charset=utf-8");
    mock_reply_take_body(r, mock_json_print(obj, indent));
    cJSON_Delete(obj);
}
