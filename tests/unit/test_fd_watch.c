/* The host's epoll registrations as the readiness hooks keep, hide, arm and put back (src/hook/sock/fd_watch.c),
 * against the kernel's epoll: a waiting descriptor is held without EPOLLIN and put back as the host made
 * it; the descriptor an attempt in flight reads is armed after the hide, the host's own one included (a
 * plain connection: the hide must not overwrite the arm, or the wait sleeps through the provider's answer);
 * our readiness is reported with the host's data, once per edge with EPOLLET, and a one-shot registration
 * is disarmed; a retry's dup3 onto the host's descriptor makes its registration again. And with two threads
 * on one instance, as multi-threaded event loops have them: the host changes or removes a registration from
 * one thread while the hooks, in another thread, are hiding it, putting it back, arming it or putting a new
 * connection on its number. The hooks' N-th epoll_ctl is paused right inside (up to 200 ms) for the host's
 * call to land there unless the two are serialized: the kernel must end up with what the host asked for
 * last, and the host's own calls must succeed. */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "hook/sock/fd_watch.h"
#include "hook/base/runtime.h"
#include "hook/base/libc_real.h"

#define TAG 0x4c47415445000000ull /* a data value of ours, as epoll.c arms with */

static pthread_mutex_t gate = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t moved = PTHREAD_COND_INITIALIZER;
static pthread_t hooks_thread; /* the thread whose epoll_ctl calls are counted and paused */
static int pause_at;           /* which of its calls to pause (1: the next); 0: none */
static bool paused, inside, host_done; /* the pause was reached; the host's thread may go; it made its call */

/* The real epoll_ctl under fd_watch.c; the hooks thread's pause_at-th call first says it is inside and
 * waits (up to 200 ms) for the host's thread to have made its own call. */
static int paused_ctl(int ep, int op, int fd, struct epoll_event *ev)
{
    pthread_mutex_lock(&gate);
    if (pause_at > 0 && pthread_equal(pthread_self(), hooks_thread) && --pause_at == 0) {
        paused = inside = true;
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

/* What the hooks do on this thread meanwhile. */
typedef struct {
    int fd, ep, fresh; /* fresh >= 0: put it on fd's number (lg_fd_epoll_dup3); else apply state */
    lg_h1_readiness state;
    const lg_fd_wake *wake;
} hooks_step;

/* Runs step on this thread while the host's thread makes call h inside the hooks' at-th epoll_ctl; the
 * host's call must succeed. */
static void during(const hooks_step *step, int at, host_call *h)
{
    pthread_t t;
    struct epoll_event out;
    hooks_thread = pthread_self();
    pause_at = at, paused = inside = host_done = false;
    assert_int_equal(pthread_create(&t, NULL, host_thread, h), 0);
    int r = step->fresh >= 0 ? lg_fd_epoll_dup3(step->fresh, step->fd, 0) : 0;
    if (step->fresh < 0)
        lg_fd_epoll_apply(step->fd, step->ep, step->state, step->wake, true, &out);
    pthread_mutex_lock(&gate);
    inside = true; /* the host's thread goes on when the pause was never reached */
    pthread_cond_broadcast(&moved);
    pthread_mutex_unlock(&gate);
    void *host_r;
    assert_int_equal(pthread_join(t, &host_r), 0);
    assert_true(paused); /* the host's call landed inside the hooks' at-th epoll_ctl, or after it */
    assert_int_equal(r, step->fresh >= 0 ? step->fd : 0);
    assert_int_equal((intptr_t)host_r, 0);
}

/* The events the kernel reports on ep now (at most 4). */
static int kernel_events(int ep, struct epoll_event *ev) { return epoll_wait(ep, ev, 4, 0); }

/* The kernel holds fd's registration in ep with data (fd readable and writable: any form of it reports). */
static void assert_kernel_data(int ep, uint64_t data)
{
    struct epoll_event got[4];
    assert_int_equal(kernel_events(ep, got), 1);
    assert_int_equal(got[0].data.u64, data);
}

/* fd has no registration in ep, in the kernel nor in the record: the host may add it again. */
static void assert_deleted(int ep, int fd)
{
    struct epoll_event ev = {.events = EPOLLIN};
    epoll_data_t data;
    errno = 0;
    assert_int_equal(epoll_ctl(ep, EPOLL_CTL_MOD, fd, &ev), -1);
    assert_int_equal(errno, ENOENT);
    assert_false(lg_fd_epoll_reads(fd, ep, &data));
}

/* An instance and a connected pair: s[0] registered by the host for in and out with data 1, readable (a
 * byte from s[1]) and writable, so that every form of its registration reports at once. */
static int readable_pair(int s[2])
{
    int ep = epoll_create1(EPOLL_CLOEXEC);
    assert_true(ep >= 0 && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, s) == 0);
    assert_int_equal(write(s[1], "x", 1), 1);
    struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT, .data.u64 = 1};
    assert_int_equal(lg_fd_epoll_ctl(ep, EPOLL_CTL_ADD, s[0], &ev), 0);
    return ep;
}

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
    assert_false(lg_fd_epoll_apply(p[0], ep, LG_H1_WAITING, NULL, true, &out));
    assert_int_equal(kernel_events(ep, got), 0);
    assert_false(lg_fd_epoll_apply(p[0], ep, LG_H1_IDLE, NULL, true, &out));
    assert_int_equal(kernel_events(ep, got), 1);
    assert_int_equal(got[0].data.u64, 7);

    /* ready: reported with the host's data, once per edge; again after a change of state */
    assert_true(lg_fd_epoll_apply(p[0], ep, LG_H1_READY, NULL, true, &out));
    assert_int_equal(out.events, EPOLLIN);
    assert_int_equal(out.data.u64, 7);
    assert_false(lg_fd_epoll_apply(p[0], ep, LG_H1_READY, NULL, true, &out));
    assert_false(lg_fd_epoll_apply(p[0], ep, LG_H1_IDLE, NULL, true, &out));
    assert_false(lg_fd_epoll_apply(p[0], ep, LG_H1_READY, NULL, false, &out)); /* no room: not reported */
    assert_true(lg_fd_epoll_apply(p[0], ep, LG_H1_READY, NULL, true, &out));

    /* one-shot: disarmed once reported, until the host arms it again */
    ev.events = EPOLLIN | EPOLLONESHOT;
    assert_int_equal(lg_fd_epoll_ctl(ep, EPOLL_CTL_MOD, p[0], &ev), 0);
    assert_true(lg_fd_epoll_apply(p[0], ep, LG_H1_READY, NULL, true, &out));
    assert_false(lg_fd_epoll_reads(p[0], ep, &data));
    assert_false(lg_fd_epoll_apply(p[0], ep, LG_H1_READY, NULL, true, &out));

    /* a descriptor no longer watched gets its registration back from lg_fd_unwatch */
    ev.events = EPOLLIN;
    assert_int_equal(lg_fd_epoll_ctl(ep, EPOLL_CTL_MOD, p[0], &ev), 0);
    int dummy;
    lg_fd_watch(p[0], (lg_h1_conn *)&dummy);
    assert_false(lg_fd_epoll_apply(p[0], ep, LG_H1_WAITING, NULL, true, &out));
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

/* The attempt in flight reads the host's own descriptor (a plain connection): armed with our data after the
 * hide, at every wait (one-shot), so the provider's answer ends the wait; put back when ready. Was: armed
 * first, then the hide's MOD replaced the arm with the host's registration without EPOLLIN, and a loop with
 * no timer of its own (aiohttp) slept through the answer. llmgate's own descriptor is added the first
 * time. */
static void test_arm_after_hide(void **state)
{
    int ep = epoll_create1(EPOLL_CLOEXEC), p[2], q[2];
    assert_true(ep >= 0 && pipe(p) == 0 && pipe(q) == 0);
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = 7}, got[4], out;
    assert_int_equal(lg_fd_epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev), 0);
    lg_fd_wake wake = {.fd = p[0], .ev = {.events = EPOLLIN | EPOLLONESHOT, .data.u64 = TAG | (unsigned)p[0]}};
    assert_false(lg_fd_epoll_apply(p[0], ep, LG_H1_WAITING, &wake, true, &out));
    assert_int_equal(kernel_events(ep, got), 0);
    assert_int_equal(write(p[1], "x", 1), 1); /* the provider answers */
    assert_kernel_data(ep, wake.ev.data.u64);
    assert_int_equal(kernel_events(ep, got), 0); /* one-shot */
    assert_false(lg_fd_epoll_apply(p[0], ep, LG_H1_WAITING, &wake, true, &out));
    assert_kernel_data(ep, wake.ev.data.u64);

    assert_true(lg_fd_epoll_apply(p[0], ep, LG_H1_READY, &wake, true, &out));
    assert_int_equal(out.data.u64, 7);
    assert_kernel_data(ep, 7); /* the host's own registration again */

    lg_fd_wake own = {.fd = q[0], .ev = {.events = EPOLLIN | EPOLLONESHOT, .data.u64 = TAG | (unsigned)q[0]}};
    assert_false(lg_fd_epoll_apply(p[0], ep, LG_H1_WAITING, &own, true, &out));
    assert_int_equal(write(q[1], "x", 1), 1);
    assert_kernel_data(ep, own.ev.data.u64);
    close(p[0]), close(p[1]), close(q[0]), close(q[1]), close(ep);
}

/* A retry's new connection put on the host's number: its registration is made again, hidden while the
 * exchange waits, and the put-back finds it. */
static void test_dup3_registers_again(void **state)
{
    int s[2], t[2], ep = readable_pair(s);
    struct epoll_event out, got[4];
    assert_false(lg_fd_epoll_apply(s[0], ep, LG_H1_WAITING, NULL, true, &out));
    assert_true(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, t) == 0);
    assert_int_equal(lg_fd_epoll_dup3(t[0], s[0], 0), s[0]);
    assert_int_equal(kernel_events(ep, got), 1);
    assert_int_equal(got[0].events, EPOLLOUT); /* hidden: no EPOLLIN (and the new one has nothing to read) */
    assert_int_equal(got[0].data.u64, 1);
    assert_int_equal(write(t[1], "y", 1), 1);
    assert_false(lg_fd_epoll_apply(s[0], ep, LG_H1_IDLE, NULL, true, &out));
    assert_int_equal(kernel_events(ep, got), 1);
    assert_int_equal(got[0].events, EPOLLIN | EPOLLOUT);
    close(s[0]), close(s[1]), close(t[0]), close(t[1]), close(ep);
}

/* The host changes the registration (new data) while the hooks hide it, put it back or arm it (the host's
 * own descriptor): the kernel keeps the host's new one (was: the old one written over it, or our armed
 * event, and no put-back to come, the host's data lost or replaced by data it may have freed). */
static void test_modify_while_hiding_putting_back_arming(void **state)
{
    static const char *const what[] = {"hiding", "putting back", "arming"};
    struct epoll_event out;
    for (int c = 0; c < 3; c++) {
        print_message("the host's MOD while %s\n", what[c]);
        int s[2], ep = readable_pair(s);
        lg_fd_wake wake = {.fd = s[0], .ev = {.events = EPOLLIN | EPOLLONESHOT, .data.u64 = TAG}};
        hooks_step step = {.fd = s[0], .ep = ep, .fresh = -1, .state = LG_H1_WAITING, .wake = &wake};
        if (c == 1) { /* putting back: hidden first */
            assert_false(lg_fd_epoll_apply(s[0], ep, LG_H1_WAITING, NULL, true, &out));
            step.state = LG_H1_IDLE;
        }
        host_call mod = {.ep = ep, .op = EPOLL_CTL_MOD, .fd = s[0], .ev = {.events = EPOLLIN | EPOLLOUT, .data.u64 = 2}};
        during(&step, c == 2 ? 2 : 1, &mod); /* arming: the hooks' second call, after the hide */
        assert_kernel_data(ep, 2);
        epoll_data_t data;
        assert_true(lg_fd_epoll_reads(s[0], ep, &data));
        assert_int_equal(data.u64, 2);
        close(s[0]), close(s[1]), close(ep);
    }
}

/* The host deletes the registration while the hooks hide or arm it: it stays deleted (was: re-added with
 * the host's old data, which the host may have freed, or with our armed event, and the host's own ADD of
 * it again failed with EEXIST). */
static void test_delete_while_hiding_arming(void **state)
{
    for (int c = 0; c < 2; c++) {
        print_message("the host's DEL while %s\n", c ? "arming" : "hiding");
        int s[2], ep = readable_pair(s);
        lg_fd_wake wake = {.fd = s[0], .ev = {.events = EPOLLIN | EPOLLONESHOT, .data.u64 = TAG}};
        hooks_step step = {.fd = s[0], .ep = ep, .fresh = -1, .state = LG_H1_WAITING, .wake = &wake};
        host_call del = {.ep = ep, .op = EPOLL_CTL_DEL, .fd = s[0]};
        during(&step, c + 1, &del);
        assert_deleted(ep, s[0]);
        close(s[0]), close(s[1]), close(ep);
    }
}

/* The host deletes or changes the registration while a retry's new connection is put on its number: its
 * call succeeds (was: ENOENT, the kernel having dropped the registration with the old connection) and the
 * kernel ends with what it asked for (was: the old registration made again after its DEL). */
static void test_host_call_during_dup3(void **state)
{
    for (int c = 0; c < 2; c++) {
        print_message("the host's %s during dup3\n", c ? "MOD" : "DEL");
        int s[2], t[2], ep = readable_pair(s);
        assert_true(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, t) == 0);
        assert_int_equal(write(t[1], "y", 1), 1);
        hooks_step step = {.fd = s[0], .ep = ep, .fresh = t[0]};
        host_call h = {.ep = ep, .op = c ? EPOLL_CTL_MOD : EPOLL_CTL_DEL, .fd = s[0],
                       .ev = {.events = EPOLLIN | EPOLLOUT, .data.u64 = 2}};
        during(&step, 1, &h);
        if (c)
            assert_kernel_data(ep, 2);
        else
            assert_deleted(ep, s[0]);
        close(s[0]), close(s[1]), close(t[0]), close(t[1]), close(ep);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hide_and_report),
        cmocka_unit_test(test_arm_after_hide),
        cmocka_unit_test(test_dup3_registers_again),
        cmocka_unit_test(test_modify_while_hiding_putting_back_arming),
        cmocka_unit_test(test_delete_while_hiding_arming),
        cmocka_unit_test(test_host_call_during_dup3),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
