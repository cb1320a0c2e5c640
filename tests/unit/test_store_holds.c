/* Unit tests of the owners of the shm store's reservations (src/store/holds.c, owner.c) with a fake clock
 * and a fake liveness (issue 33, item 3): a waiter that died holding a reserved place (rpm 1 per 2 s, the
 * place one window ahead) gives it back at the next admission, which then goes when the dead one would
 * have; a live owner keeps it; this process is never asked about; an owner seen alive is not asked again
 * within LG_HOLD_CHECK_MS; records follow their tickets; the real liveness tells a dead or reused pid. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "store/holds.h"
#include "store/owner.h"

#define T0 INT64_C(1700000000000)
#define WIN 2000

static const lg_window_limits LIM = {.limit = {1, 0}, .window_ms = WIN, .margin_ms = 40};

/* The fake liveness: the pids listed dead are dead; counts the questions. */
typedef struct {
    int32_t dead[4];
    int asked;
} fake;

static bool fake_alive(const lg_store_owner *o, void *ctx)
{
    fake *f = ctx;
    f->asked++;
    for (int i = 0; i < 4; i++)
        if (f->dead[i] == o->pid)
            return false;
    return true;
}

static lg_window *win0(lg_store_layout *m) { return &m->accounts[7].slot.window; }

/* Reserves (1, 10 tokens) on account entry 7 at the earliest time from now for owner o; returns the time
 * and records the owner. */
static int64_t reserve(lg_store_layout *m, const lg_store_owner *o, int64_t now)
{
    int64_t retry;
    int64_t at = lg_window_earliest(win0(m), &LIM, 10, now, 0, &retry);
    assert_int_equal(retry, 0);
    lg_hold_note none = {0};
    lg_hold_note held = {.held = true, .entry = 7, .bucket = lg_window_reserve(win0(m), &LIM, 10, at), .tokens = 10};
    lg_holds_apply(m, o, &none, &held, now);
    return at;
}

static int64_t earliest(lg_store_layout *m, int64_t now)
{
    int64_t retry;
    int64_t at = lg_window_earliest(win0(m), &LIM, 10, now, 0, &retry);
    assert_int_equal(retry, 0);
    return at;
}

static void test_dead_waiter_gives_its_place_back(void **state)
{
    lg_store_layout *m = calloc(1, sizeof *m);
    assert_non_null(m);
    lg_store_owner a = {100, 1}, b = {101, 2}, me = {102, 3};
    int64_t r;
    lg_window_reserve(win0(m), &LIM, 10, T0); /* a request of a that went: no record */
    int64_t b_at = reserve(m, &b, T0 + 10);    /* b waits for the next window */
    assert_true(b_at >= T0 + WIN);
    assert_int_equal(m->holds.used, 1);
    int64_t later = earliest(m, T0 + 100);
    assert_true(later >= b_at + WIN); /* behind b's place */

    fake f = {.dead = {101}};
    assert_int_equal(lg_holds_reap(m, &me, T0 + 100, fake_alive, &f), 1); /* b was killed */
    assert_int_equal(m->holds.used, 0);
    assert_int_equal(earliest(m, T0 + 100), b_at); /* the next one goes when b would have */
    lg_window_usage(win0(m), b_at, NULL, NULL, &r);
    assert_int_equal(r, 0);
    (void)a;
    free(m);
}

static void test_live_owner_keeps_it_and_is_not_asked_too_often(void **state)
{
    lg_store_layout *m = calloc(1, sizeof *m);
    assert_non_null(m);
    lg_store_owner b = {101, 2}, me = {102, 3};
    lg_window_reserve(win0(m), &LIM, 10, T0);
    int64_t b_at = reserve(m, &b, T0);
    int64_t mine = reserve(m, &me, T0); /* this process's own: never asked about */
    fake f = {0};
    assert_int_equal(lg_holds_reap(m, &me, T0 + 1, fake_alive, &f), 0);
    assert_int_equal(f.asked, 0); /* b's record is younger than LG_HOLD_CHECK_MS */
    assert_int_equal(lg_holds_reap(m, &me, T0 + LG_HOLD_CHECK_MS, fake_alive, &f), 0);
    assert_int_equal(f.asked, 1);
    assert_int_equal(lg_holds_reap(m, &me, T0 + LG_HOLD_CHECK_MS + 1, fake_alive, &f), 0);
    assert_int_equal(f.asked, 1); /* seen alive just now */
    assert_true(earliest(m, T0 + 100) > mine);
    assert_true(mine > b_at);
    /* a reused pid: same pid, another start time, is another process (the fake says dead by pid only) */
    f.dead[0] = 101;
    assert_int_equal(lg_holds_reap(m, &me, T0 + 1000, fake_alive, &f), 1);
    assert_int_equal(m->holds.used, 1); /* mine stays */
    free(m);
}

static void test_records_follow_their_tickets(void **state)
{
    lg_store_layout *m = calloc(1, sizeof *m);
    assert_non_null(m);
    lg_store_owner me = {102, 3}, other = {103, 4};
    lg_hold_note none = {0}, x = {.held = true, .entry = 7, .bucket = 5, .tokens = 10},
                 y = {.held = true, .entry = 9, .bucket = 6, .tokens = 20};
    lg_holds_apply(m, &other, &none, &x, T0); /* another process's record of the same place */
    lg_holds_apply(m, &me, &none, &x, T0);
    assert_int_equal(m->holds.used, 2);
    lg_holds_apply(m, &me, &x, &y, T0); /* moved */
    assert_int_equal(m->holds.used, 2);
    assert_int_equal(m->holds.rec[0].pid, 103); /* the other's untouched */
    assert_int_equal(m->holds.rec[1].entry, 9);
    lg_holds_apply(m, &me, &y, &none, T0); /* let go (sent, released, recorded) */
    assert_int_equal(m->holds.used, 1);
    assert_int_equal(m->holds.rec[0].pid, 103);
    lg_holds_apply(m, &me, &none, &none, T0);
    assert_int_equal(m->holds.used, 1);
    /* a full table: the newest goes without a record */
    for (int i = 1; i < LG_STORE_HOLDS; i++)
        lg_holds_apply(m, &me, &none, &y, T0);
    assert_int_equal(m->holds.used, LG_STORE_HOLDS);
    lg_holds_apply(m, &me, &none, &x, T0);
    assert_int_equal(m->holds.used, LG_STORE_HOLDS);
    free(m);
}

static void test_real_liveness(void **state)
{
    const lg_store_owner *me = lg_owner_self();
    assert_int_equal(me->pid, getpid());
    assert_true(me->start > 0);
    assert_true(lg_owner_alive(me, NULL));
    lg_store_owner reused = {me->pid, me->start + 1};
    assert_false(lg_owner_alive(&reused, NULL));
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t child = fork();
    if (child == 0) {
        lg_store_owner c = *lg_owner_self(); /* its own, not the parent's cached one */
        (void)!write(fds[1], &c, sizeof c);
        alarm(5); /* never outlives a failed test */
        pause();
        _exit(0);
    }
    lg_store_owner c = {0};
    assert_int_equal(read(fds[0], &c, sizeof c), sizeof c);
    assert_int_equal(c.pid, child);
    assert_true(c.start >= me->start);
    assert_true(lg_owner_alive(&c, NULL));
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    assert_false(lg_owner_alive(&c, NULL));
    close(fds[0]);
    close(fds[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dead_waiter_gives_its_place_back),
        cmocka_unit_test(test_live_owner_keeps_it_and_is_not_asked_too_often),
        cmocka_unit_test(test_records_follow_their_tickets),
        cmocka_unit_test(test_real_liveness),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
