/* Server-sent events: splits an event-stream text (complete or a prefix) into events. Tolerates "data:"
 * with or without a space, LF / CRLF / CR line ends, comments (keep-alives, DashScope ":HTTP_STATUS/429"),
 * and an unterminated last event. */
#include <stdlib.h>
#include <string.h>

#include "classify/dialects.h"

/* Largest data payload kept for one event; longer data is dropped (the event still counts). */
#define EVENT_DATA_MAX (1u << 20)
#define EVENT_NAME_MAX 64

typedef struct {
    char name[EVENT_NAME_MAX];
    char *data;
    size_t len, cap;
    bool has_data, overflow;
    int comment_status;
} pending;

static void append_data(pending *p, const char *v, size_t n)
{
    size_t need = p->len + (p->has_data ? 1 : 0) + n + 1;
    if (p->overflow || need > EVENT_DATA_MAX) {
        p->overflow = true;
        return;
    }
    if (need > p->cap) {
        size_t cap = p->cap ? p->cap : 256;
        while (cap < need)
            cap *= 2;
        char *d = realloc(p->data, cap);
        if (!d) {
            p->overflow = true;
            return;
        }
        p->data = d;
        p->cap = cap;
    }
    if (p->has_data)
        p->data[p->len++] = '\n';
    memcpy(p->data + p->len, v, n);
    p->len += n;
    p->data[p->len] = '\0';
    p->has_data = true;
}

/* Parses ":HTTP_STATUS/429" comments; other comments are ignored. */
static void comment(pending *p, const char *v, size_t n)
{
    static const char tag[] = "HTTP_STATUS/";
    size_t t = sizeof tag - 1;
    if (n >= t + 3 && !memcmp(v, tag, t)) {
        int st = 0;
        for (size_t i = t; i < t + 3; i++) {
            if (v[i] < '0' || v[i] > '9')
                return;
            st = st * 10 + (v[i] - '0');
        }
        p->comment_status = st;
    }
}

/* Dispatches the pending event, if it holds anything; returns fn's verdict. */
static bool dispatch(pending *p, bool (*fn)(const lg_sse_event *, void *), void *ctx)
{
    bool go_on = true;
    if (p->has_data || p->name[0] || p->comment_status) {
        lg_sse_event ev = {p->name, p->has_data && !p->overflow ? p->data : "", 0, p->comment_status};
        ev.data_len = p->has_data && !p->overflow ? p->len : 0;
        go_on = fn(&ev, ctx);
    }
    p->name[0] = '\0';
    p->len = 0;
    p->has_data = p->overflow = false;
    p->comment_status = 0;
    return go_on;
}

static void field(pending *p, const char *line, size_t n)
{
    const char *colon = memchr(line, ':', n);
    size_t fl = colon ? (size_t)(colon - line) : n;
    const char *v = colon ? colon + 1 : line + n;
    size_t vl = colon ? n - fl - 1 : 0;
    if (vl && *v == ' ')
        v++, vl--;
    if (fl == 4 && !memcmp(line, "data", 4)) {
        append_data(p, v, vl);
    } else if (fl == 5 && !memcmp(line, "event", 5)) {
        size_t k = vl < EVENT_NAME_MAX - 1 ? vl : EVENT_NAME_MAX - 1;
        memcpy(p->name, v, k);
        p->name[k] = '\0';
    }
}

void lg_sse_each(const char *s, size_t len, bool (*fn)(const lg_sse_event *ev, void *ctx), void *ctx)
{
    pending p = {0};
    size_t i = 0;
    bool go_on = true;
    while (go_on && s && i < len) {
        size_t j = i;
        while (j < len && s[j] != '\n' && s[j] != '\r')
            j++;
        const char *line = s + i;
        size_t n = j - i;
        if (j < len && s[j] == '\r' && j + 1 < len && s[j + 1] == '\n')
            j++;
        i = j + 1;
        if (n == 0)
            go_on = dispatch(&p, fn, ctx);
        else if (line[0] == ':')
            comment(&p, line + 1, n - 1);
        else
            field(&p, line, n);
    }
    if (go_on)
        dispatch(&p, fn, ctx);
    free(p.data);
}
