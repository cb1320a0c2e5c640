/* Targets of rerouted attempts on the socket/TLS front end (see h1_target.h). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "front/h1_target.h"
#include "llmgate/url.h"

bool lg_h1_upstream_split(const char *up, char *host, size_t hsize, char *port, size_t psize)
{
    if (!lg_url_host(up, host, hsize))
        return false;
    const char *auth = strstr(up, "://");
    auth = auth ? auth + 3 : up;
    const char *end = auth + strcspn(auth, "/?#");
    const char *colon = NULL;
    for (const char *p = auth; p < end; p++)
        if (*p == ':')
            colon = p;
    if (colon && (colon[-1] == ']' || !memchr(auth, '[', (size_t)(end - auth))) && end - colon - 1 > 0 &&
        (size_t)(end - colon) <= psize) {
        memcpy(port, colon + 1, (size_t)(end - colon - 1));
        port[end - colon - 1] = '\0';
    } else {
        snprintf(port, psize, "%s", !strncasecmp(up, "https:", 6) ? "443" : "80");
    }
    return true;
}

bool lg_h1_target_of(const lg_provider *p, lg_h1_target *t)
{
    memset(t, 0, sizeof *t);
    if (p->upstream) {
        if (!lg_h1_upstream_split(p->upstream, t->host, sizeof t->host, t->port, sizeof t->port))
            return false;
        t->tls = !strncasecmp(p->upstream, "https:", 6);
    } else {
        if (!p->n_hosts || snprintf(t->host, sizeof t->host, "%s", p->hosts[0]) >= (int)sizeof t->host)
            return false;
        strcpy(t->port, "443");
        t->tls = true;
    }
    unsigned char a[sizeof(struct in6_addr)];
    bool v6 = inet_pton(AF_INET6, t->host, a) == 1;
    t->ip = v6 || inet_pton(AF_INET, t->host, a) == 1;
    bool dflt = !strcmp(t->port, t->tls ? "443" : "80");
    int n = snprintf(t->authority, sizeof t->authority, "%s%s%s%s%s", v6 ? "[" : "", t->host, v6 ? "]" : "",
                     dflt ? "" : ":", dflt ? "" : t->port);
    return n > 0 && (size_t)n < sizeof t->authority;
}

char *lg_h1_target_path(const lg_provider *p, const char *path)
{
    if (!p->upstream)
        return strdup(path);
    char *full = lg_url_rebase(p->upstream, path);
    char *out = full ? strdup(lg_url_path(full)) : NULL;
    free(full);
    return out;
}
