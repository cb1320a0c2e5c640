/* An epoll host over plain HTTP/1.1 whose loop thread waits with no timeout of its own (an event loop with
 * nothing scheduled, as aiohttp's), and, with "churn", a second thread that keeps changing and removing
 * the registrations of the loop's connections while it waits (MOD with new data, DEL, ADD again), as event
 * loops whose other threads call epoll_ctl do.
 * Usage: epoll_threads_client HOST PORT PATH N [churn]
 * N requests (POST, a JSON body, "Authorization: Bearer sk-host", Connection: close), each on its own
 * non-blocking connection, all in flight at once, each registered level-triggered for EPOLLIN with the data
 * generation << 32 | request; every change the second thread makes moves the generation on. Prints per
 * request "STATUS BODY" in the order they finish; on stderr "stale=S ctl_errors=E changes=C wakeups=W":
 * events whose data is older than the registration at the start of that wait (a registration put back or
 * made again with data the host had replaced), the host's epoll_ctl calls that failed (a registration
 * missing, or there after the host removed it), the changes made, and epoll_wait's returns. Exits 0 when
 * every request got its whole response (to the end of the connection) and S and E are 0. */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAXREQ 16

typedef struct {
    int fd;
    bool done, registered;
    uint32_t gen;
    char in[65536];
    size_t len;
} conn;

static const char *BODY = "{\"model\":\"gpt-4o-mini\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
static conn conns[MAXREQ];
static int n, ep;
static pthread_mutex_t host_lock = PTHREAD_MUTEX_INITIALIZER; /* the host's own: its threads' bookkeeping */
static bool finished;
static int stale, ctl_errors, changes;

/* The epoll data of request i's registration as it is now. */
static uint64_t data_of(int i) { return (uint64_t)conns[i].gen << 32 | (uint32_t)i; }

/* The second thread: every millisecond, the registration of the next request not done changes (host_lock
 * held, never while the loop thread handles events): new data twice, removed, then added again. */
static void *churn(void *arg)
{
    for (unsigned step = 0;; step++) {
        pthread_mutex_lock(&host_lock);
        if (finished) {
            pthread_mutex_unlock(&host_lock);
            return NULL;
        }
        int i = (int)(step % (unsigned)n);
        conn *c = &conns[i];
        if (!c->done) {
            c->gen++;
            struct epoll_event ev = {.events = EPOLLIN, .data.u64 = data_of(i)};
            int op = !c->registered ? EPOLL_CTL_ADD : step / (unsigned)n % 3 == 2 ? EPOLL_CTL_DEL : EPOLL_CTL_MOD;
            if (epoll_ctl(ep, op, c->fd, &ev) != 0) {
                ctl_errors++;
                fprintf(stderr, "epoll_ctl op %d of request %d: %s\n", op, i, strerror(errno));
            }
            c->registered = op != EPOLL_CTL_DEL;
            changes++;
        }
        pthread_mutex_unlock(&host_lock);
        nanosleep(&(struct timespec){0, 1000000L}, NULL);
    }
}

/* Reads what c has; true when it failed. At the end of the connection, prints its answer and closes it. */
static bool take(conn *c)
{
    ssize_t r;
    while ((r = read(c->fd, c->in + c->len, sizeof c->in - 1 - c->len)) > 0)
        c->len += (size_t)r;
    if (r < 0)
        return errno != EAGAIN && errno != EWOULDBLOCK;
    c->in[c->len] = '\0';
    const char *body = strstr(c->in, "\r\n\r\n");
    printf("%d %s\n", c->len > 9 ? atoi(c->in + 9) : 0, body ? body + 4 : "");
    fflush(stdout);
    close(c->fd);
    c->done = true;
    return false;
}

int main(int argc, char **argv)
{
    if (argc < 5)
        return 2;
    const char *host = argv[1], *port = argv[2], *path = argv[3];
    n = atoi(argv[4]);
    bool churning = argc > 5 && !strcmp(argv[5], "churn");
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *ai;
    if (n < 1 || n > MAXREQ || getaddrinfo(host, port, &hints, &ai) != 0)
        return 2;
    ep = epoll_create1(EPOLL_CLOEXEC);
    for (int i = 0; i < n; i++) {
        conn *c = &conns[i];
        char req[1024];
        int len = snprintf(req, sizeof req,
                           "POST %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer sk-host\r\n"
                           "Content-Type: application/json\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n%s",
                           path, host, strlen(BODY), BODY);
        c->fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct epoll_event ev = {.events = EPOLLIN, .data.u64 = data_of(i)};
        if (c->fd < 0 || connect(c->fd, ai->ai_addr, ai->ai_addrlen) != 0 ||
            fcntl(c->fd, F_SETFL, fcntl(c->fd, F_GETFL) | O_NONBLOCK) != 0 || write(c->fd, req, (size_t)len) != len ||
            epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev) != 0)
            return 1;
        c->registered = true;
    }
    freeaddrinfo(ai);
    pthread_t t;
    if (churning && pthread_create(&t, NULL, churn, NULL) != 0)
        return 1;
    int left = n, wakeups = 0;
    bool failed = false;
    while (left > 0 && !failed) {
        uint32_t from[MAXREQ];
        pthread_mutex_lock(&host_lock);
        for (int i = 0; i < n; i++)
            from[i] = conns[i].gen;
        pthread_mutex_unlock(&host_lock);
        struct epoll_event evs[MAXREQ];
        int k = epoll_wait(ep, evs, MAXREQ, -1);
        if (k < 0 && errno != EINTR)
            break;
        wakeups++;
        pthread_mutex_lock(&host_lock);
        for (int j = 0; j < k && !failed; j++) {
            uint32_t i = (uint32_t)evs[j].data.u64, gen = (uint32_t)(evs[j].data.u64 >> 32);
            if (i >= (uint32_t)n || gen < from[i]) {
                stale++;
                fprintf(stderr, "stale event: request %u with the data of generation %u, registered as %u\n", i, gen,
                        i < (uint32_t)n ? from[i] : 0);
                continue;
            }
            if (conns[i].done)
                continue;
            failed = take(&conns[i]);
            left -= conns[i].done;
        }
        pthread_mutex_unlock(&host_lock);
    }
    pthread_mutex_lock(&host_lock);
    finished = true;
    pthread_mutex_unlock(&host_lock);
    if (churning)
        pthread_join(t, NULL);
    fprintf(stderr, "stale=%d ctl_errors=%d changes=%d wakeups=%d\n", stale, ctl_errors, changes, wakeups);
    close(ep);
    return left == 0 && !stale && !ctl_errors ? 0 : 1;
}
