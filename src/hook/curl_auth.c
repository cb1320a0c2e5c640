/* API key discovery and replacement in a libcurl request (see curl_auth.h). Lists are built with our own
 * allocations, so no libcurl function is needed and the host's list is never touched. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hook/curl_auth.h"
#include "llmgate/url.h"

static const char *const key_headers[] = {"x-api-key", "x-goog-api-key", "api-key"};

/* If line is an auth header, returns the start of its key (after "Bearer " for Authorization). */
static const char *auth_value(const char *line)
{
    const char *colon = strchr(line, ':');
    if (!colon)
        return NULL;
    size_t nlen = (size_t)(colon - line);
    const char *v = colon + 1;
    while (*v == ' ' || *v == '\t')
        v++;
    if (nlen == 13 && !strncasecmp(line, "authorization", 13)) {
        if (strncasecmp(v, "bearer ", 7) != 0)
            return NULL;
        v += 7;
        while (*v == ' ')
            v++;
        return v;
    }
    for (size_t i = 0; i < sizeof key_headers / sizeof *key_headers; i++)
        if (nlen == strlen(key_headers[i]) && !strncasecmp(line, key_headers[i], nlen))
            return v;
    return NULL;
}

bool lg_curl_find_key(const lg_curl_rec *r, char *buf, size_t size)
{
    for (const struct curl_slist *l = r->headers; l; l = l->next) {
        const char *v = l->data ? auth_value(l->data) : NULL;
        if (v && *v) {
            size_t len = strcspn(v, " \t\r\n");
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

/* "Name: <prefix>key" built from the auth line's own name and scheme. */
static char *replaced(const char *line, const char *value_start, const char *key)
{
    size_t head = (size_t)(value_start - line);
    size_t klen = strlen(key);
    char *out = malloc(head + klen + 1);
    if (out) {
        memcpy(out, line, head);
        memcpy(out + head, key, klen + 1);
    }
    return out;
}

static char *style_header(lg_auth_style style, const char *key)
{
    static const char *const fmt[] = {
        [LG_AUTH_BEARER] = "Authorization: Bearer %s",
        [LG_AUTH_X_API_KEY] = "x-api-key: %s",
        [LG_AUTH_X_GOOG_API_KEY] = "x-goog-api-key: %s",
        [LG_AUTH_API_KEY] = "api-key: %s",
        [LG_AUTH_QUERY_KEY] = "x-goog-api-key: %s",
    };
    char *out = NULL;
    return asprintf(&out, fmt[style], key) < 0 ? NULL : out;
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

struct curl_slist *lg_slist_with_key(const struct curl_slist *host, const char *key, lg_auth_style style,
                                     bool key_elsewhere, bool restyle)
{
    struct curl_slist *head = NULL, *tail = NULL;
    bool carried = key_elsewhere || !key;
    for (const struct curl_slist *l = host; l; l = l->next) {
        if (!l->data || is_pin_header(l->data))
            continue;
        const char *v = auth_value(l->data);
        if (v && key && restyle)
            continue; /* another provider's: its own auth header follows */
        char *copy = v && key ? replaced(l->data, v, key) : strdup(l->data);
        carried |= v != NULL && !restyle;
        if (!append(&head, &tail, copy)) {
            lg_slist_free(head);
            return NULL;
        }
    }
    if (!carried && !append(&head, &tail, style_header(style, key))) {
        lg_slist_free(head);
        return NULL;
    }
    return head;
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
