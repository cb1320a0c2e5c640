/* Who is at the other end of a loopback TCP connection (see relay.h): the kernel's tables of TCP sockets
 * (/proc/net/tcp, /proc/net/tcp6) list every socket of this network namespace with its owner's uid; the
 * peer's socket is the row whose local address is the connection's remote one and whose remote address is
 * its local one. (SO_PEERCRED answers for unix sockets only; a relay's clients come over TCP.) */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "relay/relay.h"

#define ADDR_MAX 48 /* 32 hex digits, a colon, 4 hex digits, NUL */

long lg_relay_tcp_line_uid(const char *line, const char *local, const char *remote)
{
    char l[ADDR_MAX + 8], r[ADDR_MAX + 8];
    unsigned long uid;
    /* "  SL: LOCAL REMOTE ST TX:RX TR:WHEN RETRANSMITS UID ..." */
    if (sscanf(line, " %*[0-9]: %55s %55s %*x %*x:%*x %*x:%*x %*x %lu", l, r, &uid) != 3)
        return -1;
    return !strcasecmp(l, local) && !strcasecmp(r, remote) ? (long)uid : -1;
}

/* The address ss as the tables print it ("HHHHHHHH:PPPP", an IPv4-mapped one as IPv4) into out; true for
 * an IPv6 one (table tcp6). */
static bool table_addr(const struct sockaddr_storage *ss, char out[ADDR_MAX])
{
    const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)ss;
    if (ss->ss_family == AF_INET6 && !IN6_IS_ADDR_V4MAPPED(&v6->sin6_addr)) {
        uint32_t w[4];
        memcpy(w, &v6->sin6_addr, sizeof w);
        snprintf(out, ADDR_MAX, "%08X%08X%08X%08X:%04X", w[0], w[1], w[2], w[3], ntohs(v6->sin6_port));
        return true;
    }
    uint32_t a;
    uint16_t port;
    if (ss->ss_family == AF_INET6) {
        memcpy(&a, &v6->sin6_addr.s6_addr[12], 4);
        port = v6->sin6_port;
    } else {
        a = ((const struct sockaddr_in *)ss)->sin_addr.s_addr;
        port = ((const struct sockaddr_in *)ss)->sin_port;
    }
    snprintf(out, ADDR_MAX, "%08X:%04X", a, ntohs(port));
    return false;
}

long lg_relay_peer_uid(int fd)
{
    struct sockaddr_storage me, peer;
    socklen_t ml = sizeof me, pl = sizeof peer;
    char mine[ADDR_MAX], theirs[ADDR_MAX];
    if (getsockname(fd, (struct sockaddr *)&me, &ml) != 0 || getpeername(fd, (struct sockaddr *)&peer, &pl) != 0 ||
        (me.ss_family != AF_INET && me.ss_family != AF_INET6))
        return -1;
    table_addr(&me, mine);
    FILE *f = fopen(table_addr(&peer, theirs) ? "/proc/net/tcp6" : "/proc/net/tcp", "re");
    long uid = -1;
    char line[512];
    while (f && uid < 0 && fgets(line, sizeof line, f))
        uid = lg_relay_tcp_line_uid(line, theirs, mine);
    if (f)
        fclose(f);
    return uid;
}
