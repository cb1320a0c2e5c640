/* getaddrinfo interposer and the table of provider addresses (see sock_names.h). */
#include <errno.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hook/guard.h"
#include "hook/h1_target.h"
#include "hook/runtime.h"
#include "hook/sock_names.h"
#include "hook/sock_real.h"
#include "llmgate/url.h"

#define EXPORT __attribute__((visibility("default")))
#define SLOTS 64

typedef struct {
    struct sockaddr_storage addr;
    socklen_t len;
    const lg_provider *prov;
    bool any_port;  /* resolved without a service: any port matches */
    uint16_t port;  /* then: the upstream's port to connect to instead (network order), or 0 */
} slot;

static slot table[SLOTS];
static size_t next_slot;
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

static void after_fork(void) { pthread_mutex_init(&table_lock, NULL); }
static void setup_fork(void) { lg_runtime_on_fork_child(after_fork); }

/* The port of an inet address (network order; 0 for other families). */
static uint16_t *port_of(struct sockaddr_storage *a)
{
    static uint16_t none;
    none = 0;
    if (a->ss_family == AF_INET)
        return &((struct sockaddr_in *)a)->sin_port;
    if (a->ss_family == AF_INET6)
        return &((struct sockaddr_in6 *)a)->sin6_port;
    return &none;
}

/* Remembers the addresses of res as the provider's; any_port with the port to use (or 0). */
static void remember(const struct addrinfo *res, const lg_provider *prov, bool any_port, uint16_t port)
{
    pthread_mutex_lock(&table_lock);
    for (const struct addrinfo *a = res; a; a = a->ai_next) {
        if (!a->ai_addr || a->ai_addrlen > sizeof(struct sockaddr_storage) || a->ai_socktype == SOCK_DGRAM)
            continue;
        slot *s = &table[next_slot++ % SLOTS];
        memcpy(&s->addr, a->ai_addr, a->ai_addrlen);
        s->len = a->ai_addrlen;
        s->prov = prov;
        s->any_port = any_port;
        s->port = port;
    }
    pthread_mutex_unlock(&table_lock);
}

/* Same family and address, and same port unless the slot takes any. */
static bool same(slot *s, const struct sockaddr_storage *a, socklen_t len)
{
    if (s->len != len || s->addr.ss_family != a->ss_family)
        return false;
    struct sockaddr_storage b = *a;
    if (s->any_port)
        *port_of(&b) = *port_of(&s->addr);
    return !memcmp(&s->addr, &b, len);
}

const lg_provider *lg_sock_names_lookup(const struct sockaddr *addr, socklen_t len, struct sockaddr_storage *to)
{
    const lg_provider *found = NULL;
    if (len > sizeof *to)
        return NULL;
    memset(to, 0, sizeof *to);
    memcpy(to, addr, len);
    pthread_mutex_lock(&table_lock);
    for (size_t i = 0; i < SLOTS && !found; i++)
        if (table[i].prov && same(&table[i], to, len)) {
            found = table[i].prov;
            if (table[i].any_port && table[i].port)
                *port_of(to) = table[i].port;
        }
    pthread_mutex_unlock(&table_lock);
    return found;
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
    int rc;
    bool up = prov->upstream && lg_h1_upstream_split(prov->upstream, host, sizeof host, port, sizeof port);
    if (up)
        rc = real->getaddrinfo(host, service ? port : NULL, hints, res);
    else
        rc = real->getaddrinfo(node, service, hints, res);
    if (rc == 0)
        remember(*res, prov, !service, up && !service ? htons((uint16_t)atoi(port)) : 0);
    return rc;
}
