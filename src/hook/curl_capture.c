/* Capture of one attempt's response (see curl_capture.h). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hook/curl_capture.h"

static void free_lines(lg_capture *c)
{
    for (size_t i = 0; i < c->n_lines; i++)
        free(c->lines[i]);
    c->n_lines = 0;
}

void lg_capture_reset(lg_capture *c)
{
    free_lines(c);
    c->n_hdrs = 0;
    c->body_len = 0;
    c->status = 0;
    c->oom = 0;
}

void lg_capture_free(lg_capture *c)
{
    lg_capture_reset(c);
    free(c->lines);
    free(c->body);
    free(c->hdrs);
    free(c->names);
    memset(c, 0, sizeof *c);
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

size_t lg_capture_header(char *ptr, size_t size, size_t nmemb, void *userdata)
{
    lg_capture *c = userdata;
    size_t len = size * nmemb;
    if (len >= 5 && !strncasecmp(ptr, "HTTP/", 5)) {
        free_lines(c);
        const char *sp = memchr(ptr, ' ', len);
        c->status = sp ? atoi(sp + 1) : 0;
    }
    if (c->n_lines == c->cap_lines) {
        size_t cap = c->cap_lines ? c->cap_lines * 2 : 16;
        char **l = realloc(c->lines, cap * sizeof *l);
        if (!l) {
            c->oom = 1;
            return 0;
        }
        c->lines = l;
        c->cap_lines = cap;
    }
    char *line = malloc(len + 1);
    if (!line) {
        c->oom = 1;
        return 0;
    }
    memcpy(line, ptr, len);
    line[len] = '\0';
    c->lines[c->n_lines++] = line;
    return len;
}

/* Splits "Name: value\r\n" into trimmed copies placed at *at (advanced past them); false for lines that
 * are not headers. At most strlen(line) + 2 bytes are written. */
static bool split_header(const char *line, lg_header *h, char **at)
{
    const char *colon = strchr(line, ':');
    if (!colon || colon == line)
        return false;
    const char *v = colon + 1;
    while (*v == ' ' || *v == '\t')
        v++;
    size_t vlen = strcspn(v, "\r\n");
    while (vlen > 0 && (v[vlen - 1] == ' ' || v[vlen - 1] == '\t'))
        vlen--;
    size_t nlen = (size_t)(colon - line);
    char *p = *at;
    memcpy(p, line, nlen);
    p[nlen] = '\0';
    h->name = p;
    p += nlen + 1;
    memcpy(p, v, vlen);
    p[vlen] = '\0';
    h->value = p;
    *at = p + vlen + 1;
    return true;
}

void lg_capture_view(lg_capture *c, lg_response_view *v)
{
    c->n_hdrs = 0;
    size_t room = 1;
    for (size_t i = 0; i < c->n_lines; i++)
        room += strlen(c->lines[i]) + 2;
    size_t want = c->n_lines ? c->n_lines : 1;
    lg_header *h = want > c->cap_hdrs ? realloc(c->hdrs, want * sizeof *h) : c->hdrs;
    if (h && want > c->cap_hdrs) {
        c->hdrs = h;
        c->cap_hdrs = want;
    }
    char *b = room > c->cap_names ? realloc(c->names, room) : c->names;
    if (b && room > c->cap_names) {
        c->names = b;
        c->cap_names = room;
    }
    if (h && b) { /* the buffers only grow: an attempt after the first allocates nothing here */
        char *at = c->names;
        for (size_t i = 0; i < c->n_lines; i++)
            c->n_hdrs += split_header(c->lines[i], &c->hdrs[c->n_hdrs], &at);
    }
    memset(v, 0, sizeof *v);
    v->status = c->status;
    v->headers = c->hdrs;
    v->n_headers = c->n_hdrs;
    v->body = c->body ? c->body : "";
    v->body_len = c->body_len;
    const char *ct = lg_header_get(c->hdrs, c->n_hdrs, "content-type");
    v->stream = lg_is_event_stream(ct);
}
