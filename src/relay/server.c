/* The relay's listener (see relay.h): loopback TCP (the gateway: the address it is given), one process per connection (the engine runs blocking,
 * each connection's memory its own and bounded by the front), a bounded number of them, and the exit
 * after an idle time. */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "llmgate/clock.h"
#include "llmgate/log.h"
#include "relay/relay.h"

#define MAX_CONNS 64 /* connections served at once; more are closed at once */

static volatile sig_atomic_t stop;
static void on_term(int sig) { stop = 1; }

/* A fresh secret: 16 random bytes in hex. */
static bool make_secret(char out[LG_RELAY_SECRET_HEX])
{
    unsigned char r[16];
    if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r)
        return false;
    for (size_t i = 0; i < sizeof r; i++)
        snprintf(out + 2 * i, 3, "%02x", r[i]);
    return true;
}

/* Writes "PORT SECRET PID\n" to path (0600), after the CA's certificates beside it (PATH.ca.pem, and
 * PATH.webpki.pem for rustls programs). */
static bool write_addr(const char *path, int port, const char *secret, const lg_relay_ca *ca)
{
    char line[128], cpath[4200], wpath[4200];
    int n = snprintf(line, sizeof line, "%d %s %ld\n", port, secret, (long)getpid());
    snprintf(cpath, sizeof cpath, "%s.ca.pem", path);
    snprintf(wpath, sizeof wpath, "%s.webpki.pem", path);
    return lg_relay_ca_write_cert(ca, cpath) && lg_relay_ca_write_webpki(ca, wpath) &&
           lg_relay_write_file(path, line, (size_t)n, 0600);
}

/* Splits "ADDR:PORT" / "[V6]:PORT" into a bound listener's address; false when it is not one. */
static bool listen_addr(const char *spec, struct sockaddr_storage *ss, socklen_t *len)
{
    char host[256];
    const char *colon = strrchr(spec, ':');
    if (!colon || colon == spec || (size_t)(colon - spec) >= sizeof host || !colon[1] ||
        strspn(colon + 1, "0123456789") != strlen(colon + 1) || atoi(colon + 1) > 65535)
        return false;
    size_t hl = (size_t)(colon - spec);
    memcpy(host, spec, hl);
    host[hl] = '\0';
    if (host[0] == '[' && host[hl - 1] == ']')
        memmove(host, host + 1, hl - 2), host[hl - 2] = '\0';
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE | AI_NUMERICSERV}, *res = NULL;
    if (getaddrinfo(host, colon + 1, &hints, &res) != 0 || !res)
        return false;
    memcpy(ss, res->ai_addr, res->ai_addrlen);
    *len = res->ai_addrlen;
    freeaddrinfo(res);
    return true;
}

/* True for a loopback address (127/8, ::1, an IPv4-mapped 127/8). */
static bool is_loopback(const struct sockaddr_storage *ss)
{
    if (ss->ss_family == AF_INET)
        return (ntohl(((const struct sockaddr_in *)ss)->sin_addr.s_addr) >> 24) == 127;
    const struct in6_addr *a6 = &((const struct sockaddr_in6 *)ss)->sin6_addr;
    return ss->ss_family == AF_INET6 &&
           (IN6_IS_ADDR_LOOPBACK(a6) || (IN6_IS_ADDR_V4MAPPED(a6) && a6->s6_addr[12] == 127));
}

/* The listener on a (any port when 0), its bound address back into a; -1 with a message. */
static int open_listener(struct sockaddr_storage *a, socklen_t *alen)
{
    int lfd = socket(a->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
    if (lfd >= 0)
        setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (lfd < 0 || bind(lfd, (struct sockaddr *)a, *alen) != 0 || listen(lfd, 128) != 0 ||
        getsockname(lfd, (struct sockaddr *)a, alen) != 0) {
        fprintf(stderr, "llmgate relay: cannot listen: %s\n", strerror(errno));
        if (lfd >= 0)
            close(lfd);
        return -1;
    }
    return lfd;
}

int lg_relay_run(const lg_config *cfg, int port, const char *addr_file, int idle_s, const char *listen_on)
{
    char err[256] = "", secret[LG_RELAY_SECRET_HEX] = "";
    lg_relay_ca ca = {0};
    struct sockaddr_storage ss = {0};
    socklen_t alen = sizeof(struct sockaddr_in);
    struct sockaddr_in *a = (struct sockaddr_in *)&ss;
    if (listen_on) { /* the gateway: no CA, no secret; tokens off loopback */
        if (!listen_addr(listen_on, &ss, &alen)) {
            fprintf(stderr, "llmgate relay: --listen %s: expected ADDRESS:PORT\n", listen_on);
            return 2;
        }
        if (!is_loopback(&ss) && cfg->n_gateway_tokens == 0) {
            fprintf(stderr, "llmgate relay: --listen off loopback needs gateway.tokens in the configuration\n");
            return 2;
        }
    } else {
        if (!lg_relay_ca_open(cfg, &ca, err, sizeof err)) {
            fprintf(stderr, "llmgate relay: %s\n", err);
            return 1;
        }
        if (!make_secret(secret)) {
            fprintf(stderr, "llmgate relay: no random bytes for its secret\n");
            return 1;
        }
        a->sin_family = AF_INET;
        a->sin_port = htons((uint16_t)port);
        a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    }
    int lfd = open_listener(&ss, &alen);
    if (lfd < 0)
        return 1;
    if (listen_on) {
        char host[INET6_ADDRSTRLEN] = "";
        uint16_t p = ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port : a->sin_port;
        inet_ntop(ss.ss_family, ss.ss_family == AF_INET6 ? (void *)&((struct sockaddr_in6 *)&ss)->sin6_addr
                                                         : (void *)&a->sin_addr, host, sizeof host);
        printf("llmgate relay: gateway on %s%s%s:%d (base URL http://ADDRESS:%d/PROVIDER/...)%s\n",
               ss.ss_family == AF_INET6 ? "[" : "", host, ss.ss_family == AF_INET6 ? "]" : "", ntohs(p), ntohs(p),
               cfg->n_gateway_tokens ? ", a gateway token required"
                                     : "; no gateway.tokens: only local clients of this user are admitted");
    }
    port = ntohs(a->sin_port);
    if (!listen_on && addr_file && !write_addr(addr_file, port, secret, &ca)) {
        fprintf(stderr, "llmgate relay: cannot write %s: %s\n", addr_file, strerror(errno));
        return 1;
    }
    if (!listen_on && !addr_file)
        printf("llmgate relay: listening on 127.0.0.1:%d (proxy http://llmgate:%s@127.0.0.1:%d)\n", port, secret,
               port);
    fflush(stdout);
    struct sigaction sa = {.sa_handler = on_term};
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    int conns = 0;
    int64_t last = lg_mono_ms();
    while (!stop) {
        while (waitpid(-1, NULL, WNOHANG) > 0)
            conns--, last = lg_mono_ms();
        if (idle_s > 0 && conns == 0 && lg_mono_ms() - last >= (int64_t)idle_s * 1000)
            break;
        struct pollfd p = {.fd = lfd, .events = POLLIN};
        if (poll(&p, 1, 200) <= 0)
            continue;
        int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0)
            continue;
        last = lg_mono_ms();
        pid_t pid = conns < MAX_CONNS ? fork() : -1;
        if (pid == 0) {
            close(lfd);
            signal(SIGTERM, SIG_DFL);
            signal(SIGINT, SIG_DFL);
            lg_relay_host_use(cfg);
            if (listen_on)
                lg_relay_gateway_serve(fd, cfg, cfg->n_gateway_tokens > 0);
            else
                lg_relay_serve(fd, cfg, &ca, secret);
            _exit(0);
        }
        if (pid > 0)
            conns++;
        close(fd);
    }
    if (!listen_on && addr_file) {
        char cpath[4200];
        snprintf(cpath, sizeof cpath, "%s.ca.pem", addr_file);
        unlink(cpath);
        snprintf(cpath, sizeof cpath, "%s.webpki.pem", addr_file);
        unlink(cpath);
        unlink(addr_file);
    }
    close(lfd);
    lg_relay_ca_free(&ca);
    return 0;
}
