/* URL helpers (see url.h). */
#include <stdlib.h>
#include <string.h>

#include "llmgate/url.h"

/* Start of the authority (after "scheme://"), or url itself when there is no scheme. */
static const char *authority(const char *url)
{
    const char *s = strstr(url, "://");
    const char *q = strpbrk(url, "/?#");
    return s && (!q || s < q) ? s + 3 : url;
}

bool lg_url_host(const char *url, char *buf, size_t size)
{
    if (!url || size == 0)
        return false;
    const char *a = authority(url);
    size_t alen = strcspn(a, "/?#");
    const char *at = memchr(a, '@', alen);
    if (at) {
        alen -= (size_t)(at + 1 - a);
        a = at + 1;
    }
    const char *h = a;
    size_t hlen;
    if (*h == '[') {
        const char *close = memchr(h, ']', alen);
        if (!close)
            return false;
        h++;
        hlen = (size_t)(close - h);
    } else {
        const char *colon = memchr(h, ':', alen);
        hlen = colon ? (size_t)(colon - h) : alen;
    }
    if (hlen == 0 || hlen >= size)
        return false;
    memcpy(buf, h, hlen);
    buf[hlen] = '\0';
    return true;
}

const char *lg_url_path(const char *url)
{
    const char *a = authority(url);
    const char *p = a + strcspn(a, "/?#");
    return *p ? p : "/";
}

char *lg_url_rebase(const char *base, const char *url)
{
    size_t blen = strlen(base);
    while (blen > 0 && base[blen - 1] == '/')
        blen--;
    const char *path = lg_url_path(url);
    size_t plen = strcspn(path, "#");
    char *out = malloc(blen + plen + 2);
    if (!out)
        return NULL;
    memcpy(out, base, blen);
    size_t n = blen;
    if (*path != '/')
        out[n++] = '/';
    memcpy(out + n, path, plen);
    out[n + plen] = '\0';
    return out;
}

/* Finds "name=" as a whole parameter in the query of url; returns the start of its value or NULL. */
static const char *query_value(const char *url, const char *name)
{
    const char *q = strchr(url, '?');
    size_t nlen = strlen(name);
    while (q) {
        q++;
        if (!strncmp(q, name, nlen) && q[nlen] == '=')
            return q + nlen + 1;
        q = strchr(q, '&');
    }
    return NULL;
}

bool lg_url_query_get(const char *url, const char *name, char *buf, size_t size)
{
    const char *v = query_value(url, name);
    if (!v)
        return false;
    size_t len = strcspn(v, "&#");
    if (len >= size)
        return false;
    memcpy(buf, v, len);
    buf[len] = '\0';
    return true;
}

char *lg_url_query_set(const char *url, const char *name, const char *value)
{
    const char *v = query_value(url, name);
    if (!v)
        return NULL;
    size_t head = (size_t)(v - url), old = strcspn(v, "&#"), vlen = strlen(value);
    const char *tail = v + old;
    char *out = malloc(head + vlen + strlen(tail) + 1);
    if (!out)
        return NULL;
    memcpy(out, url, head);
    memcpy(out + head, value, vlen);
    strcpy(out + head + vlen, tail);
    return out;
}
