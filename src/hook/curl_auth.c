/* API key discovery and replacement in a libcurl request (see curl_auth.h). Lists are built with our own
 * allocations, so no libcurl function is needed and the host's list is never touched. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hook/auth_key.h"
#include "hook/curl_auth.h"
#include "llmgate/url.h"

bool lg_curl_find_key(const lg_curl_rec *r, char *buf, size_t size)
{
    for (const struct curl_slist *l = r->headers; l; l = l->next) {
        const char *v = l->data ? lg_auth_value(l->data) : NULL;
        if (v && *v) {
            size_t len = lg_auth_key_len(v);
            if (len >= size)
                return false;
            memcpy(buf, v, len);
            buf[len] = '\0';
            return true;
        }
    }
    if (r->url && lg_url_query_get(r->url, "key", buf, size))
        return true;
    if (r->xoauth2 && strlen(r->xoauth2) < size) {
        strcpy(buf, r->xoauth2);
        return true;
    }
    return false;
}

/* Appends a node holding a copy of data; false on allocation failure. */
static bool append(struct curl_slist **head, struct curl_slist **tail, char *data)
{
    struct curl_slist *n = malloc(sizeof *n);
    if (!data || !n) {
        free(data);
        free(n);
        return false;
    }
    n->data = data;
    n->next = NULL;
    if (*tail)
        (*tail)->next = n;
    else
        *head = n;
    *tail = n;
    return true;
}

/* True for the request header that pins a request (X-Llmgate-Pin), which is never forwarded. */
static bool is_pin_header(const char *line) { return !strncasecmp(line, "x-llmgate-pin:", 14); }

bool lg_curl_find_pin(const lg_curl_rec *r, char *buf, size_t size)
{
    for (const struct curl_slist *l = r->headers; l; l = l->next) {
        if (!l->data || !is_pin_header(l->data))
            continue;
        const char *v = l->data + 14;
        v += strspn(v, " \t");
        size_t len = strcspn(v, " \t\r\n");
        if (!len || len >= size)
            return false;
        memcpy(buf, v, len);
        buf[len] = '\0';
        return true;
    }
    return false;
}

bool lg_slist_only_auth(const struct curl_slist *host)
{
    for (const struct curl_slist *l = host; l; l = l->next)
        if (l->data && !is_pin_header(l->data) && !lg_auth_value(l->data))
            return false;
    return true;
}

struct curl_slist *lg_slist_with_key(const struct curl_slist *host, const char *key, lg_auth_style style,
                                     bool key_elsewhere, bool restyle)
{
    struct curl_slist *head = NULL, *tail = NULL;
    bool carried = key_elsewhere || !key;
    for (const struct curl_slist *l = host; l; l = l->next) {
        if (!l->data || is_pin_header(l->data))
            continue;
        const char *v = lg_auth_value(l->data);
        if (v && restyle)
            continue; /* another provider's (its own auth header follows), or no key at all */
        char *copy = v && key ? lg_auth_line_with_key(l->data, v, key) : strdup(l->data);
        carried |= v != NULL && !restyle;
        if (!append(&head, &tail, copy)) {
            lg_slist_free(head);
            return NULL;
        }
    }
    if (!carried && !append(&head, &tail, lg_auth_style_line(style, key))) {
        lg_slist_free(head);
        return NULL;
    }
    return head;
}

bool lg_curl_has_header(const void *rec, const char *name)
{
    size_t n = strlen(name);
    for (const struct curl_slist *l = ((const lg_curl_rec *)rec)->headers; l; l = l->next)
        if (l->data && !strncasecmp(l->data, name, n) && l->data[n] == ':')
            return true;
    return false;
}

bool lg_slist_append_copy(struct curl_slist **l, const char *line)
{
    struct curl_slist *tail = *l;
    while (tail && tail->next)
        tail = tail->next;
    return append(l, &tail, strdup(line));
}

void lg_slist_free(struct curl_slist *l)
{
    while (l) {
        struct curl_slist *next = l->next;
        explicit_bzero(l->data, strlen(l->data));
        free(l->data);
        free(l);
        l = next;
    }
}
