/* The host's epoll registrations as the readiness hooks keep, hide and put back (src/hook/fd_watch.c),
 * against the kernel's epoll: a waiting descriptor is held without EPOLLIN and put back as the host made
 * it; our readiness is reported with the host's data, once per edge with EPOLLET, and a one-shot
 * registration is disarmed. And with two threads on one instance, as multi-threaded event loops have them:
 * the host changes or removes a registration from one thread while the hooks, in another thread's
 * epoll_wait, are hiding it or putting it back. The hooks' epoll_ctl is paused right inside (up to 200 ms)
 * for the host's call to land there unless the two are serialized: the kernel must end up with what the
 * host asked for last. */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "hook/fd_watch.h"
#include "hook/runtime.h"
#include "hook/sock_real.h"

static pthread_mutex_t gate = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t moved = PTHREAD_COND_INITIALIZER;
static pthread_t hooks_thread; /* the thread whose epoll_ctl calls are paused */
static bool pause_next, inside, host_done;

/* The real epoll_ctl under fd_watch.c; the hooks thread's next call, while pause_next, first says it is
 * inside and waits (up to 200 ms) for the host's thread to have made its own call. */
static int paused_ctl(int ep, int op, int fd, struct epoll_event *ev)
{
    pthread_mutex_lock(&gate);
    if (pause_next && pthread_equal(pthread_self(), hooks_thread)) {
        pause_next = false;
        inside = true;
        pthread_cond_broadcast(&moved);
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 200 * 1000000L;
        if (until.tv_nsec >= 1000000000L)
            until.tv_sec++, until.tv_nsec -= 1000000000L;
        while (!host_done && pthread_cond_timedwait(&moved, &gate, &until) == 0)
            ;
    }
    pthread_mutex_unlock(&gate);
    return epoll_ctl(ep, op, fd, ev);
}

/* What the library's own files provide, here for fd_watch.c alone. */
lg_sock_real lg_sock_real_table = {.epoll_ctl = paused_ctl};
int lg_sock_real_ready = 1;
const lg_sock_real *lg_sock_real_resolve(void) { return &lg_sock_real_table; }
void lg_runtime_on_fork_child(void (*fn)(void)) { (void)fn; }

typedef struct {
    int ep, op, fd;
    struct epoll_event ev;
} host_call;

/* The host's thread: once the hooks are inside their epoll_ctl, its own epoll_ctl through the hook. */
static void *host_thread(void *arg)
{
    host_call *h = arg;
    pthread_mutex_lock(&gate);
    while (!inside)
        pthread_cond_wait(&moved, &gate);
    pthread_mutex_unlock(&gate);
    int r = lg_fd_epoll_ctl(h->ep, h->op, h->fd, h->op == EPOLL_CTL_DEL ? NULL : &h->ev);
    pthread_mutex_lock(&gate);
    host_done = true;
    pthread_cond_broadcast(&moved);
    pthread_mutex_unlock(&gate);
    return (void *)(intptr_t)r;
}

/* Applies state to fd in ep on this thread while the host's thread makes call h inside our epoll_ctl. */
static void apply_during(int fd, int ep, lg_h1_readiness state, host_call *h)
{
    pthread_t t;
    struct epoll_event out;
    hooks_thread = pthread_self();
    pause_next = true, inside = false, host_done = false;
    assert_int_equal(pthread_create(&t, NULL, host_thread, h), 0);
    lg_fd_epoll_apply(fd, ep, state, true, &out);
    void *r;
    assert_int_equal(pthread_join(t, &r), 0);
    assert_int_equal((intptr_t)r, 0);
}

/* The events the kernel reports on ep now (at most 4). */
static int kernel_events(int ep, struct epoll_event *ev) { return epoll_wait(ep, ev, 4, 0); }

static void test_hide_and_report(void **state)
{
    int ep = epoll_create1(EPOLL_CLOEXEC), p[2];
    assert_true(ep >= 0 && pipe(p) == 0);
    assert_int_equal(write(p[1], "x", 1), 1); /* readable in the kernel throughout */
    struct epoll_event ev = {.events = EPOLLIN | EPOLLET, .data.u64 = 7}, got[4], out;
    assert_int_equal(lg_fd_epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev), 0);
    epoll_data_t data;
    assert_true(lg_fd_epoll_reads(p[0], ep, &data));
    assert_int_equal(data.u64, 7);
    assert_false(lg_fd_epoll_reads(p[0], ep + 1, &data));

    /* waiting: hidden from the kernel; put back once idle */
    assert_false(lg_fd_epoll_apply(p[0], ep, LG_H1_WAITING, true, &out));
    assert_int_equal(kernel_events(ep, got), 0);
    assert_false(lg_fd_epoll_apply(p[0], ep, LG_H1_IDLE, true, &out));
    assert_int_equal(kernel_events(ep, got), 1);
    assert_int_equal(got[0].data.u64, 7);

    /* ready: reported with the host's data, once per edge; again after a change of state */
    assert_true(lg_fd_epoll_apply(p[0], ep, LG_H1_READY, true, &out));
    assert_int_equal(out.events, EPOLLIN);
    assert_int_equal(out.data.u64, 7);
    assert_false(lg_fd_epoll_apply(p[0], ep, LG_H1_READY, true, &out));
    assert_false(lg_fd_epoll_apply(p[0], ep, LG_H1_IDLE, true, &out));
    assert_false(lg_fd_epoll_apply(p[0], ep, LG_H1_READY, false, &out)); /* no room: not reported */
    assert_true(lg_fd_epoll_apply(p[0], ep, LG_H1_READY, true, &out));

    /* one-shot: disarmed once reported, until the host arms it again */
    ev.events = EPOLLIN | EPOLLONESHOT;
    assert_int_equal(lg_fd_epoll_ctl(ep, EPOLL_CTL_MOD, p[0], &ev), 0);
    assert_true(lg_fd_epoll_apply(p[0], ep, LG_H1_READY, true, &out));
    assert_false(lg_fd_epoll_reads(p[0], ep, &data));
    assert_false(lg_fd_epoll_apply(p[0], ep, LG_H1_READY, true, &out));

    /* a descriptor no longer watched gets its registration back from lg_fd_unwatch */
    ev.events = EPOLLIN;
    assert_int_equal(lg_fd_epoll_ctl(ep, EPOLL_CTL_MOD, p[0], &ev), 0);
    int dummy;
    lg_fd_watch(p[0], (lg_h1_conn *)&dummy);
    assert_false(lg_fd_epoll_apply(p[0], ep, LG_H1_WAITING, true, &out));
    assert_int_equal(kernel_events(ep, got), 0);
    lg_fd_unwatch(p[0], NULL);
    assert_int_equal(kernel_events(ep, got), 1);

    /* the host's DEL, and close, forget the registration */
    assert_int_equal(lg_fd_epoll_ctl(ep, EPOLL_CTL_DEL, p[0], NULL), 0);
    assert_false(lg_fd_epoll_reads(p[0], ep, &data));
    assert_int_equal(lg_fd_epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev), 0);
    lg_fd_epoll_forget(p[0]);
    assert_false(lg_fd_epoll_reads(p[0], ep, &data));
    close(p[0]), close(p[1]), close(ep);
}

/* The host deletes the registration while the hooks hide it: it stays deleted (was: re-added with the
 * host's old data, which the host may have freed, its events reported for a descriptor it left). */
static void test_delete_while_hiding(void **state)
{
    int ep = epoll_create1(EPOLL_CLOEXEC), p[2];
    assert_true(ep >= 0 && pipe(p) == 0);
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = 1};
    assert_int_equal(lg_fd_epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev), 0);
    host_call del = {.ep = ep, .op = EPOLL_CTL_DEL, .fd = p[0]};
    apply_during(p[0], ep, LG_H1_WAITING, &del);
    errno = 0;
    assert_int_equal(epoll_ctl(ep, EPOLL_CTL_MOD, p[0], &ev), -1);
    assert_int_equal(errno, ENOENT);
    epoll_data_t data;
    assert_false(lg_fd_epoll_reads(p[0], ep, &data));
    close(p[0]), close(p[1]), close(ep);
}

/* The host changes the registration (new data) while the hooks put it back: the kernel keeps the host's
 * new one (was: the old one restored, events reported with data the host replaced). */
static void test_modify_while_putting_back(void **state)
{
    int ep = epoll_create1(EPOLL_CLOEXEC), p[2];
    assert_true(ep >= 0 && pipe(p) == 0);
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = 1}, got[4], out;
    assert_int_equal(lg_fd_epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev), 0);
    assert_false(lg_fd_epoll_apply(p[0], ep, LG_H1_WAITING, true, &out)); /* hidden */
    host_call mod = {.ep = ep, .op = EPOLL_CTL_MOD, .fd = p[0], .ev = {.events = EPOLLIN, .data.u64 = 2}};
    apply_during(p[0], ep, LG_H1_IDLE, &mod);
    assert_int_equal(write(p[1], "x", 1), 1);
    assert_int_equal(kernel_events(ep, got), 1);
    assert_int_equal(got[0].data.u64, 2);
    epoll_data_t data;
    assert_true(lg_fd_epoll_reads(p[0], ep, &data));
    assert_int_equal(data.u64, 2);
    close(p[0]), close(p[1]), close(ep);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hide_and_report),
        cmocka_unit_test(test_delete_while_hiding),
        cmocka_unit_test(test_modify_while_putting_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
