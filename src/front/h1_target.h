/* Where the socket/TLS front end sends an attempt that goes to another provider than the host's own (a
 * fallback, a pin, a route): the provider's upstream (scheme, host, port, path prefix), else its first
 * host over https:443. Also splits an upstream URL for the getaddrinfo hook. A target over plain http is
 * reached over a TCP connection of llmgate's own, through the program's plain transport (host.h),
 * whatever the host's own transport is; one over https through the host's TLS transport (its reopen),
 * which has the trust. Pure: no I/O. */
#ifndef LLMGATE_FRONT_H1_TARGET_H
#define LLMGATE_FRONT_H1_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "llmgate/config.h"

typedef struct lg_h1_target {
    char host[256];  /* name or address literal (no brackets): DNS, SNI, the verified name */
    char port[16];
    bool tls;        /* https */
    char authority[300]; /* the Host header: host, bracketed when IPv6, ":port" unless the scheme's own */
    bool ip;         /* host is an address literal (no SNI; verified as an IP address) */
} lg_h1_target;

/* Splits an upstream URL's authority into host and port (the scheme's default when absent). */
bool lg_h1_upstream_split(const char *up, char *host, size_t hsize, char *port, size_t psize);
/* The target of provider p; false when it has neither an upstream nor a host. */
bool lg_h1_target_of(const lg_provider *p, lg_h1_target *t);
/* The request-target on p for the host's path and query (or a translated path): p's upstream path prefix
 * put before it. Caller frees; NULL on allocation failure. */
char *lg_h1_target_path(const lg_provider *p, const char *path);
#endif
