/* API key discovery and replacement in a libcurl request (see auth.h). Lists are built with our own
 * allocations, so no libcurl function is needed and the host's list is never touched. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "front/auth_key.h"
#include "hook/curl/auth.h"
#include "llmgate/url.h"

/* Copies the key at v into buf (lg_auth_key_len's bytes); its length + 1, 0 when it does not fit. */
static inline size_t copy_key(const char *v, char *buf, size_t size)
{
    size_t n = lg_auth_key_len(v);
    if (n >= size)
        return 0;
    memcpy(buf, v, n);
    buf[n] = '\0';
    return n + 1;
}

size_t lg_curl_find_key(const lg_curl_rec *r, char *buf, size_t size, lg_key_spot *spot)
{
    spot->node = NULL;
    for (const struct curl_slist *l = r->headers; l; l = l->next) {
        const char *v = l->data ? lg_auth_value(l->data) : NULL;
        if (v && *v) {
            size_t off = (size_t)(v - l->data);
            if (off < sizeof spot->prefix) {
                spot->node = l;
                spot->off = off;
                memcpy(spot->prefix, l->data, off);
                spot->prefix[off] = '\0';
            }
            return copy_key(v, buf, size);
        }
    }
    if (r->url && lg_url_query_get(r->url, "key", buf, size))
        return strlen(buf) + 1;
    if (r->xoauth2 && strlen(r->xoauth2) < size) {
        strcpy(buf, r->xoauth2);
        return strlen(buf) + 1;
    }
    return 0;
}

size_t lg_curl_key_again(const lg_curl_rec *r, char *buf, size_t size, lg_key_spot *spot)
{
    const struct curl_slist *l = spot->node;
    if (l && l->data && !strncmp(l->data, spot->prefix, spot->off)) {
        char c = l->data[spot->off];
        if (c != ' ' && c != '\t' && c != '\0') /* lg_auth_value would find its value where it did */
            return copy_key(l->data + spot->off, buf, size);
    }
    return lg_curl_find_key(r, buf, size, spot);
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

/* True for a line our lists never carry: the pin, and Accept-Encoding, so that the provider answers
 * uncompressed and llmgate reads what it classifies (libcurl decodes only what it asked for itself, with
 * CURLOPT_ACCEPT_ENCODING; without the host's line it then sends its own). */
static bool not_forwarded(const char *line)
{
    return is_pin_header(line) || !strncasecmp(line, "accept-encoding:", 16);
}

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
        if (l->data && !not_forwarded(l->data) && !lg_auth_value(l->data))
            return false;
    return true;
}

bool lg_slist_drops_lines(const struct curl_slist *host)
{
    for (const struct curl_slist *l = host; l; l = l->next)
        if (l->data && not_forwarded(l->data))
            return true;
    return false;
}

struct curl_slist *lg_slist_with_key(const struct curl_slist *host, const char *key, lg_auth_style style,
                                     bool key_elsewhere, bool restyle)
{
    struct curl_slist *head = NULL, *tail = NULL;
    bool carried = key_elsewhere || !key;
    for (const struct curl_slist *l = host; l; l = l->next) {
        if (!l->data || not_forwarded(l->data))
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
