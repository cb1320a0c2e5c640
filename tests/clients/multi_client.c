/* An event-loop libcurl host for the integration tests: N provider transfers and optionally one plain
 * transfer in one multi handle, driven either by curl_multi_perform + curl_multi_poll (-m poll) or by
 * curl_multi_socket_action with an epoll loop, a socket callback and a timer callback (-m socket). It
 * measures how long each libcurl call takes, so a test can check that the loop is never blocked.
 *
 * usage: multi_client [-m poll|socket] [-n N] [-H "Header: v"]... [-d BODY] [-P PLAIN_URL] [-T TIMEOUT_MS]
 *                     [-X CANCEL_MS] [-R RESET_MS] [-A ABORT_MS] URL
 * -X: after CANCEL_MS, removes every provider transfer not yet finished (and counts body bytes that still
 * arrive for them: "cancelled=N late_bytes=N").
 * -R: after RESET_MS, calls curl_easy_reset on every provider transfer not yet finished, leaving it in the
 * multi ("reset=N"; such a transfer's DONE is awaited as any other and counts as expected); and every
 * finished transfer's handle is reset in the multi before it is removed.
 * -A: the provider transfers have a progress callback (CURLOPT_XFERINFOFUNCTION) that asks to abort once
 * ABORT_MS have passed; a transfer that ends so (CURLE_ABORTED_BY_CALLBACK) counts as expected.
 * Prints one line per finished transfer: "xfer=I kind=provider|plain result=CURLcode status=HTTP bytes=N done_ms=T"
 * then "transfers=N ok=N max_call_ms=X wait_overrun_ms=Y elapsed_ms=Z" (max_call_ms: the longest perform,
 * socket_action or info_read; wait_overrun_ms: how far a poll/epoll_wait overran the timeout it was given).
 * Exit status 0 when every transfer ended with CURLE_OK and status 200. */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>

#define MAX_XFERS 64

typedef struct {
    CURL *h;
    int idx, plain, done, cancelled, reset;
    size_t bytes;
} xfer;

static xfer xfers[MAX_XFERS];
static int n_xfers, epfd = -1;
static long timeout_ms = 5000, cancel_ms = -1, reset_ms = -1, abort_ms = -1;
static size_t late_bytes;
static int n_cancelled, n_reset, reset_mode;
static double t0, max_call, max_overrun, deadline = -1;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Records how long a call that must not block took (since `since`). */
static void call_took(double since)
{
    double d = now_ms() - since;
    if (d > max_call)
        max_call = d;
}

static void wait_took(double since, long asked)
{
    double over = now_ms() - since - (double)asked;
    if (over > max_overrun)
        max_overrun = over;
}

static size_t on_write(char *p, size_t size, size_t n, void *ud)
{
    (void)p;
    ((xfer *)ud)->bytes += size * n;
    if (((xfer *)ud)->cancelled)
        late_bytes += size * n;
    return size * n;
}

/* -A: asks libcurl to abort the transfer once ABORT_MS have passed. */
static int on_progress(void *ud, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow)
{
    (void)ud, (void)dltotal, (void)dlnow, (void)ultotal, (void)ulnow;
    return now_ms() - t0 >= (double)abort_ms;
}

static int on_socket(CURL *e, curl_socket_t s, int what, void *ud, void *socketp)
{
    (void)e;
    struct epoll_event ev = {.data.fd = s};
    if (what == CURL_POLL_REMOVE) {
        epoll_ctl(epfd, EPOLL_CTL_DEL, s, NULL);
        curl_multi_assign(ud, s, NULL);
        return 0;
    }
    ev.events = (what & CURL_POLL_IN ? EPOLLIN : 0) | (what & CURL_POLL_OUT ? EPOLLOUT : 0);
    if (epoll_ctl(epfd, socketp ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, s, &ev) != 0)
        epoll_ctl(epfd, EPOLL_CTL_MOD, s, &ev);
    curl_multi_assign(ud, s, &xfers[0]);
    return 0;
}

static int on_timer(CURLM *m, long ms, void *ud)
{
    (void)m;
    (void)ud;
    deadline = ms < 0 ? -1 : now_ms() + (double)ms;
    return 0;
}

/* -X: removes the unfinished provider transfers once CANCEL_MS have passed; returns how many. */
static int cancel_due(CURLM *m)
{
    if (cancel_ms < 0 || now_ms() - t0 < (double)cancel_ms)
        return 0;
    cancel_ms = -1;
    int n = 0;
    for (int i = 0; i < n_xfers; i++)
        if (!xfers[i].plain && !xfers[i].done) {
            curl_multi_remove_handle(m, xfers[i].h);
            xfers[i].cancelled = 1;
            n++;
        }
    n_cancelled = n;
    return n;
}

/* -R: resets the unfinished provider transfers once RESET_MS have passed (they stay in the multi). */
static void reset_due(void)
{
    if (reset_ms < 0 || now_ms() - t0 < (double)reset_ms)
        return;
    reset_ms = -1;
    for (int i = 0; i < n_xfers; i++)
        if (!xfers[i].plain && !xfers[i].done) {
            curl_easy_reset(xfers[i].h);
            xfers[i].reset = 1;
            n_reset++;
        }
}

/* The transfer of easy handle h (CURLINFO_PRIVATE is gone once a handle is reset). */
static xfer *find(CURL *h)
{
    for (int i = 0; i < n_xfers; i++)
        if (xfers[i].h == h)
            return &xfers[i];
    return NULL;
}

/* Reads finished transfers; returns how many. */
static int reap(CURLM *m)
{
    int n = 0, left;
    CURLMsg *msg;
    for (;;) {
        double c = now_ms();
        msg = curl_multi_info_read(m, &left);
        call_took(c);
        if (!msg)
            break;
        if (msg->msg != CURLMSG_DONE)
            continue;
        xfer *x = find(msg->easy_handle);
        long status = 0;
        curl_easy_getinfo(msg->easy_handle, CURLINFO_RESPONSE_CODE, &status);
        printf("xfer=%d kind=%s result=%d status=%ld bytes=%zu done_ms=%.0f\n", x->idx, x->plain ? "plain" : "provider",
               (int)msg->data.result, status, x->bytes, now_ms() - t0);
        x->done = msg->data.result == CURLE_OK && status == 200 ? 1
                  : x->reset || (abort_ms >= 0 && msg->data.result == CURLE_ABORTED_BY_CALLBACK) ? 2 : -1;
        if (reset_mode)
            curl_easy_reset(msg->easy_handle);
        curl_multi_remove_handle(m, msg->easy_handle);
        n++;
    }
    return n;
}

static void loop_poll(CURLM *m)
{
    int running = 1;
    while (running) {
        double c = now_ms();
        curl_multi_perform(m, &running);
        call_took(c);
        reap(m);
        cancel_due(m);
        reset_due();
        if (!running)
            break;
        c = now_ms();
        curl_multi_poll(m, NULL, 0, (int)timeout_ms, NULL);
        wait_took(c, timeout_ms);
    }
}

static void loop_socket(CURLM *m)
{
    int running = 1, finished = 0;
    double c = now_ms();
    curl_multi_socket_action(m, CURL_SOCKET_TIMEOUT, 0, &running);
    call_took(c);
    finished += reap(m);
    while (finished < n_xfers) {
        long wait = timeout_ms;
        if (deadline >= 0) {
            double left = deadline - now_ms();
            wait = left <= 0 ? 0 : left < (double)timeout_ms ? (long)left + 1 : timeout_ms;
        }
        struct epoll_event evs[16];
        c = now_ms();
        int n = epoll_wait(epfd, evs, 16, (int)wait);
        wait_took(c, wait);
        for (int i = 0; i < n; i++) {
            int flags = (evs[i].events & EPOLLIN ? CURL_CSELECT_IN : 0) | (evs[i].events & EPOLLOUT ? CURL_CSELECT_OUT : 0) |
                        (evs[i].events & (EPOLLERR | EPOLLHUP) ? CURL_CSELECT_ERR : 0);
            c = now_ms();
            curl_multi_socket_action(m, evs[i].data.fd, flags, &running);
            call_took(c);
        }
        if (deadline >= 0 && now_ms() >= deadline) {
            deadline = -1;
            c = now_ms();
            curl_multi_socket_action(m, CURL_SOCKET_TIMEOUT, 0, &running);
            call_took(c);
        }
        reset_due();
        finished += reap(m) + cancel_due(m);
    }
}

int main(int argc, char **argv)
{
    const char *mode = "poll", *body = NULL, *plain = NULL, *url = NULL;
    struct curl_slist *hdrs = NULL;
    int n = 4;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-m") && i + 1 < argc) mode = argv[++i];
        else if (!strcmp(argv[i], "-n") && i + 1 < argc) n = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-H") && i + 1 < argc) hdrs = curl_slist_append(hdrs, argv[++i]);
        else if (!strcmp(argv[i], "-d") && i + 1 < argc) body = argv[++i];
        else if (!strcmp(argv[i], "-P") && i + 1 < argc) plain = argv[++i];
        else if (!strcmp(argv[i], "-T") && i + 1 < argc) timeout_ms = atol(argv[++i]);
        else if (!strcmp(argv[i], "-X") && i + 1 < argc) cancel_ms = atol(argv[++i]);
        else if (!strcmp(argv[i], "-R") && i + 1 < argc) reset_mode = 1, reset_ms = atol(argv[++i]);
        else if (!strcmp(argv[i], "-A") && i + 1 < argc) abort_ms = atol(argv[++i]);
        else url = argv[i];
    }
    if (!url || n < 0 || n + 1 > MAX_XFERS) {
        fprintf(stderr, "usage: multi_client [-m poll|socket] [-n N] [-H H]... [-d BODY] [-P PLAIN_URL] [-T MS] URL\n");
        return 2;
    }
    curl_global_init(CURL_GLOBAL_DEFAULT);
    CURLM *m = curl_multi_init();
    if (!strcmp(mode, "socket")) {
        epfd = epoll_create1(EPOLL_CLOEXEC);
        curl_multi_setopt(m, CURLMOPT_SOCKETFUNCTION, on_socket);
        curl_multi_setopt(m, CURLMOPT_SOCKETDATA, m);
        curl_multi_setopt(m, CURLMOPT_TIMERFUNCTION, on_timer);
        curl_multi_setopt(m, CURLMOPT_TIMERDATA, NULL);
    }
    t0 = now_ms();
    for (int i = 0; i < n + (plain ? 1 : 0); i++) {
        xfer *x = &xfers[n_xfers++];
        x->idx = i;
        x->plain = i == n;
        x->h = curl_easy_init();
        curl_easy_setopt(x->h, CURLOPT_URL, x->plain ? plain : url);
        curl_easy_setopt(x->h, CURLOPT_PRIVATE, x);
        curl_easy_setopt(x->h, CURLOPT_WRITEFUNCTION, on_write);
        curl_easy_setopt(x->h, CURLOPT_WRITEDATA, x);
        if (!x->plain) {
            curl_easy_setopt(x->h, CURLOPT_HTTPHEADER, hdrs);
            if (body)
                curl_easy_setopt(x->h, CURLOPT_POSTFIELDS, body);
            if (abort_ms >= 0) {
                curl_easy_setopt(x->h, CURLOPT_XFERINFOFUNCTION, on_progress);
                curl_easy_setopt(x->h, CURLOPT_NOPROGRESS, 0L);
            }
        }
        curl_multi_add_handle(m, x->h);
    }
    if (epfd >= 0)
        loop_socket(m);
    else
        loop_poll(m);
    int ok = 0, reset_done = 0;
    for (int i = 0; i < n_xfers; i++) {
        ok += xfers[i].done == 1;
        reset_done += xfers[i].done == 2;
        curl_easy_cleanup(xfers[i].h);
    }
    printf("transfers=%d ok=%d max_call_ms=%.0f wait_overrun_ms=%.0f elapsed_ms=%.0f cancelled=%d late_bytes=%zu reset=%d\n",
           n_xfers, ok, max_call, max_overrun, now_ms() - t0, n_cancelled, late_bytes, n_reset);
    curl_multi_cleanup(m);
    curl_slist_free_all(hdrs);
    curl_global_cleanup();
    return ok + n_cancelled + reset_done == n_xfers ? 0 : 1;
}
