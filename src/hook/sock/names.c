/* getaddrinfo interposer and the table of provider addresses (see names.h). */
#include <errno.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hook/base/export.h"
#include "hook/base/guard.h"
#include "front/h1_target.h"
#include "hook/base/runtime.h"
#include "hook/sock/names.h"
#include "hook/base/libc_real.h"
#include "llmgate/url.h"

#define SLOTS 64

typedef struct {
    struct sockaddr_storage addr; /* as handed out, its port 0 */
    socklen_t len;
    const lg_provider *prov;
    uint16_t asked; /* the port the caller asked for (network order), or 0 (no service): any port matches */
    uint16_t port;  /* the upstream's port to connect to instead (network order; it matches too), or 0 */
} slot;

static slot table[SLOTS];
static size_t next_slot;
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

static void after_fork(void) { pthread_mutex_init(&table_lock, NULL); }
static void setup_fork(void) { lg_runtime_on_fork_child(after_fork); }

/* The port of an inet socket address a (network order; 0 for other families). */
static uint16_t *port_of(void *a)
{
    static uint16_t none;
    none = 0;
    sa_family_t family = ((struct sockaddr *)a)->sa_family;
    if (family == AF_INET)
        return &((struct sockaddr_in *)a)->sin_port;
    if (family == AF_INET6)
        return &((struct sockaddr_in6 *)a)->sin6_port;
    return &none;
}

/* Remembers the stream addresses of res as prov's, each with the port it was asked for; with an upstream
 * port (up, network order) and a service, puts up in every address handed out as the port to connect to. */
static void hand_out(struct addrinfo *res, const lg_provider *prov, bool service, uint16_t up)
{
    pthread_mutex_lock(&table_lock);
    for (struct addrinfo *a = res; a; a = a->ai_next) {
        if (!a->ai_addr || a->ai_addrlen > sizeof(struct sockaddr_storage))
            continue;
        uint16_t asked = *port_of(a->ai_addr);
        if (up && service)
            *port_of(a->ai_addr) = up;
        if (a->ai_socktype == SOCK_DGRAM)
            continue;
        slot *s = &table[next_slot++ % SLOTS];
        memcpy(&s->addr, a->ai_addr, a->ai_addrlen);
        s->len = a->ai_addrlen;
        s->prov = prov;
        s->asked = asked;
        s->port = up;
        *port_of(&s->addr) = 0;
    }
    pthread_mutex_unlock(&table_lock);
}

/* Same family and address, and a port the slot takes: any, the one asked for, or the upstream's. */
static bool same(slot *s, const struct sockaddr_storage *a, socklen_t len)
{
    if (s->len != len || s->addr.ss_family != a->ss_family)
        return false;
    struct sockaddr_storage b = *a;
    uint16_t p = *port_of(&b);
    *port_of(&b) = 0;
    return !memcmp(&s->addr, &b, len) && (!s->asked || p == s->asked || (s->port && p == s->port));
}

/* The address a connect gives, as getaddrinfo handed it out: an IPv4-mapped IPv6 address (a dual-stack
 * socket's connect to an IPv4 address, as Java makes) as the IPv4 one. Its length. */
static socklen_t unmapped(const struct sockaddr_storage *a, socklen_t len, struct sockaddr_storage *out)
{
    const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)a;
    if (a->ss_family != AF_INET6 || len < sizeof *v6 || !IN6_IS_ADDR_V4MAPPED(&v6->sin6_addr)) {
        memcpy(out, a, len);
        return len;
    }
    struct sockaddr_in v4 = {.sin_family = AF_INET, .sin_port = v6->sin6_port};
    memcpy(&v4.sin_addr, &v6->sin6_addr.s6_addr[12], 4);
    memset(out, 0, sizeof *out);
    memcpy(out, &v4, sizeof v4);
    return sizeof v4;
}

size_t lg_sock_names_lookup(const struct sockaddr *addr, socklen_t len, struct sockaddr_storage *to,
                            const lg_provider **provs, size_t max, uint16_t *asked_out)
{
    size_t n = 0;
    if (len > sizeof *to)
        return 0;
    memset(to, 0, sizeof *to);
    memcpy(to, addr, len);
    struct sockaddr_storage key;
    socklen_t klen = unmapped(to, len, &key);
    uint16_t asked = *port_of(to), dest = asked;
    pthread_mutex_lock(&table_lock);
    for (size_t i = 0; i < SLOTS; i++) {
        slot *s = &table[i];
        uint16_t port = s->port ? s->port : asked;
        if (!s->prov || !same(s, &key, klen) || (n && port != dest))
            continue;
        dest = port;
        if (asked_out && !n)
            *asked_out = s->asked ? s->asked : asked;
        size_t k = 0;
        while (k < n && provs[k] != s->prov)
            k++;
        if (k == n && n < max)
            provs[n++] = s->prov;
    }
    pthread_mutex_unlock(&table_lock);
    *port_of(to) = dest;
    return n;
}

EXPORT int getaddrinfo(const char *node, const char *service, const struct addrinfo *hints, struct addrinfo **res)
{
    const lg_sock_real *real = lg_sock_real_get();
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    if (!node || lg_guard_active())
        return real->getaddrinfo(node, service, hints, res);
    int saved = errno;
    const lg_runtime *rt = lg_runtime_get();
    const lg_provider *prov = rt->cfg ? lg_config_match_host(rt->cfg, node) : NULL;
    errno = saved;
    if (!prov)
        return real->getaddrinfo(node, service, hints, res);
    pthread_once(&once, setup_fork);
    char host[256], port[16];
    bool up = prov->upstream && lg_h1_upstream_split(prov->upstream, host, sizeof host, port, sizeof port);
    int rc = real->getaddrinfo(up ? host : node, service, hints, res);
    if (rc == 0)
        hand_out(*res, prov, service != NULL, up ? htons((uint16_t)atoi(port)) : 0);
    return rc;
}
