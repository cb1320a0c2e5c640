/* The relay's listener (see relay.h): loopback TCP, one process per connection (the engine runs blocking,
 * each connection's memory its own and bounded by the front), a bounded number of them, and the exit
 * after an idle time. */
#include <errno.h>
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

/* Writes "PORT SECRET PID\n" to path (0600), after the CA's certificate beside it (PATH.ca.pem). */
static bool write_addr(const char *path, int port, const char *secret, const lg_relay_ca *ca)
{
    char line[128], cpath[4200];
    int n = snprintf(line, sizeof line, "%d %s %ld\n", port, secret, (long)getpid());
    snprintf(cpath, sizeof cpath, "%s.ca.pem", path);
    return lg_relay_ca_write_cert(ca, cpath) && lg_relay_write_file(path, line, (size_t)n, 0600);
}

int lg_relay_run(const lg_config *cfg, int port, const char *addr_file, int idle_s)
{
    char err[256] = "", secret[LG_RELAY_SECRET_HEX];
    lg_relay_ca ca;
    if (!lg_relay_ca_open(cfg, &ca, err, sizeof err)) {
        fprintf(stderr, "llmgate relay: %s\n", err);
        return 1;
    }
    if (!make_secret(secret)) {
        fprintf(stderr, "llmgate relay: no random bytes for its secret\n");
        return 1;
    }
    int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t alen = sizeof a;
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof a) != 0 || listen(lfd, 128) != 0 ||
        getsockname(lfd, (struct sockaddr *)&a, &alen) != 0) {
        fprintf(stderr, "llmgate relay: cannot listen on 127.0.0.1:%d: %s\n", port, strerror(errno));
        return 1;
    }
    port = ntohs(a.sin_port);
    if (addr_file && !write_addr(addr_file, port, secret, &ca)) {
        fprintf(stderr, "llmgate relay: cannot write %s: %s\n", addr_file, strerror(errno));
        return 1;
    }
    if (!addr_file)
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
            lg_relay_serve(fd, cfg, &ca, secret);
            _exit(0);
        }
        if (pid > 0)
            conns++;
        close(fd);
    }
    if (addr_file) {
        char cpath[4200];
        snprintf(cpath, sizeof cpath, "%s.ca.pem", addr_file);
        unlink(cpath);
        unlink(addr_file);
    }
    close(lfd);
    lg_relay_ca_free(&ca);
    return 0;
}
