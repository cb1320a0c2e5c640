/* The lease bookkeeping (src/limiter/lease.c) on a fake clock: grant, use, give back, settle, expiry, an
 * asker that dies, Redis gone in the middle of a lease, the takers whose last one gives the lease back at exit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "llmgate/lease.h"
#include "llmgate/limiter.h"

#define SPAN 6400 /* 64 buckets of 100 ms */
#define T0 1000000 /* a bucket boundary on the machine's clock */

/* A lease of n buckets of `req` requests and req * 10 tokens from the bucket at T0 (Redis 500 ms ahead). */
static void grant(lg_lease *l, int64_t now, int n, int64_t req)
{
    int64_t q[LG_LEASE_BUCKETS], k[LG_LEASE_BUCKETS];
    for (int j = 0; j < LG_LEASE_BUCKETS; j++)
        q[j] = req, k[j] = req * 10;
    lg_lease_grant(l, now, 500, 0, SPAN, (T0 + 500) * 64 / SPAN, n, q, k, true);
}

static void test_grant_and_use(void **state)
{
    lg_lease l = {0};
    int64_t at;
    int b;
    assert_int_equal(lg_lease_take(&l, 10, T0, T0, &at, &b), LG_LEASE_EMPTY); /* none yet */
    grant(&l, T0, 4, 2);
    assert_int_equal(l.id, 1);
    assert_int_equal(lg_lease_bucket_start(&l, 0), T0);
    assert_int_equal(lg_lease_bucket_start(&l, 4), T0 + 400);
    /* two now, then the next bucket's two wait for its start */
    for (int i = 0; i < 2; i++) {
        assert_int_equal(lg_lease_take(&l, 10, T0 + 5, T0 + 5000, &at, &b), LG_LEASE_TAKEN);
        assert_int_equal(at, T0 + 5);
        assert_int_equal(b, 0);
    }
    assert_int_equal(lg_lease_take(&l, 10, T0 + 5, T0 + 5000, &at, &b), LG_LEASE_TAKEN);
    assert_int_equal(at, T0 + 100);
    assert_int_equal(b, 1);
    /* a deadline before the next place: late, nothing taken */
    assert_int_equal(lg_lease_take(&l, 10, T0 + 5, T0 + 50, &at, &b), LG_LEASE_LATE);
    assert_int_equal(l.requests[1], 1);
    /* tokens bind: a request larger than a bucket's tokens skips to none */
    assert_int_equal(lg_lease_take(&l, 25, T0 + 5, T0 + 5000, &at, &b), LG_LEASE_EMPTY);
    assert_int_equal(l.used, 3);
}

static void test_give_back_and_settle(void **state)
{
    lg_lease l = {0};
    int64_t at;
    int b;
    grant(&l, T0, 2, 1);
    assert_int_equal(lg_lease_take(&l, 10, T0, T0 + 5000, &at, &b), LG_LEASE_TAKEN);
    lg_lease_give_back(&l, l.id, b, 10);
    assert_int_equal(l.requests[0], 1);
    assert_int_equal(l.tokens[0], 10);
    assert_int_equal(lg_lease_take(&l, 10, T0, T0 + 5000, &at, &b), LG_LEASE_TAKEN);
    lg_lease_settle(&l, l.id, b, -4); /* the provider counted 6 */
    assert_int_equal(l.tokens[0], 4);
    /* a ticket of an older lease changes nothing in the new one */
    int64_t old = l.id;
    grant(&l, T0 + 200, 2, 1);
    lg_lease_give_back(&l, old, 0, 10);
    lg_lease_settle(&l, old, 0, -4);
    assert_int_equal(l.requests[0], 1);
    assert_int_equal(l.tokens[0], 10);
}

static void test_expiry(void **state)
{
    lg_lease l = {0};
    int64_t at;
    int b;
    grant(&l, T0, 3, 5);
    /* the first two buckets passed: their places are gone, the third's are left */
    assert_int_equal(lg_lease_take(&l, 10, T0 + 250, T0 + 5000, &at, &b), LG_LEASE_TAKEN);
    assert_int_equal(b, 2);
    /* past the lease's end: nothing, a new grant is needed */
    assert_int_equal(lg_lease_take(&l, 10, T0 + 300, T0 + 5000, &at, &b), LG_LEASE_EMPTY);
    assert_int_equal(l.requests[2], 4);
}

static void test_ask_turn_and_return(void **state)
{
    lg_lease l = {0};
    lg_lease_return ret, other;
    int64_t at;
    int b;
    grant(&l, T0, 4, 3);
    assert_int_equal(lg_lease_take(&l, 10, T0, T0 + 5000, &at, &b), LG_LEASE_TAKEN);
    l.pending[0] = 1;
    assert_true(lg_lease_begin_ask(&l, T0 + 10, &ret));
    /* what is left moved to the return (nobody takes it meanwhile), the counters with it */
    assert_int_equal(ret.n, 4);
    assert_int_equal(ret.requests[0], 2);
    assert_int_equal(ret.requests[3], 3);
    assert_int_equal(ret.tokens[0], 20);
    assert_int_equal(ret.counters[0], 1);
    assert_int_equal(l.pending[0], 0);
    assert_int_equal(lg_lease_take(&l, 10, T0 + 10, T0 + 5000, &at, &b), LG_LEASE_EMPTY);
    /* another process waits for the asker's turn */
    assert_false(lg_lease_begin_ask(&l, T0 + 20, &other));
    /* the grant ends the turn */
    grant(&l, T0 + 30, 4, 3);
    assert_int_equal(l.id, 2);
    assert_true(lg_lease_begin_ask(&l, T0 + 40, &other));
}

static void test_dead_asker(void **state)
{
    lg_lease l = {0};
    lg_lease_return ret, next;
    grant(&l, T0, 4, 3);
    assert_true(lg_lease_begin_ask(&l, T0, &ret)); /* then it is killed */
    assert_false(lg_lease_begin_ask(&l, T0 + LG_LEASE_ASK_MS - 1, &next));
    assert_true(lg_lease_begin_ask(&l, T0 + LG_LEASE_ASK_MS, &next)); /* its turn expired */
    assert_int_equal(next.requests[0], 0); /* what it carried stays counted in Redis */
}

static void test_redis_gone(void **state)
{
    lg_lease l = {0};
    lg_lease_return ret;
    int64_t at;
    int b;
    grant(&l, T0, 2, 2);
    l.tokens[1] = 5; /* the second bucket too small for a request of 10 tokens */
    assert_int_equal(lg_lease_take(&l, 10, T0, T0 + 5000, &at, &b), LG_LEASE_TAKEN);
    assert_int_equal(lg_lease_take(&l, 10, T0, T0 + 5000, &at, &b), LG_LEASE_TAKEN);
    assert_int_equal(lg_lease_take(&l, 10, T0, T0 + 5000, &at, &b), LG_LEASE_EMPTY);
    l.pending[2] = 2;
    assert_true(lg_lease_begin_ask(&l, T0 + 1, &ret));
    lg_lease_ask_failed(&l, &ret); /* Redis down: the lease is kept as it was, the counters too */
    assert_int_equal(l.requests[1], 2);
    assert_int_equal(l.tokens[1], 5);
    assert_int_equal(l.pending[2], 2);
    assert_int_equal(l.id, 1);
    /* a smaller request still goes from what the machine holds, then nothing: the caller falls back */
    assert_int_equal(lg_lease_take(&l, 5, T0 + 150, T0 + 5000, &at, &b), LG_LEASE_TAKEN);
    assert_int_equal(at, T0 + 150);
    assert_int_equal(lg_lease_take(&l, 5, T0 + 150, T0 + 5000, &at, &b), LG_LEASE_EMPTY);
    assert_true(lg_lease_begin_ask(&l, T0 + 151, &ret)); /* the turn is free again */
}

static void test_ask_size_follows_what_the_lease_served(void **state)
{
    lg_lease l = {0};
    int64_t at;
    int b;
    assert_int_equal(lg_lease_ask_size(&l, 40), 40); /* nothing known: the cap */
    grant(&l, T0, 16, 10);
    assert_int_equal(lg_lease_ask_size(&l, 40), 1); /* a lease that served nothing: one */
    for (int i = 0; i < 8; i++) /* 8 requests in the first 2 buckets */
        assert_int_equal(lg_lease_take(&l, 1, T0 + (i < 4 ? 10 : 110), T0 + 5000, &at, &b), LG_LEASE_TAKEN);
    assert_int_equal(lg_lease_ask_size(&l, 40), 16); /* twice what it served */
    assert_int_equal(lg_lease_ask_size(&l, 10), 10); /* at most the cap */
    lg_lease_give_back(&l, l.id, b, 1);
    assert_int_equal(lg_lease_ask_size(&l, 40), 14); /* a place given back was not served */
}

/* lg_lease_room: the requests left in buckets not ended and when the first could go; a request it counts is
 * one lg_lease_take gives. */
static void test_room(void **state)
{
    lg_lease l = {0};
    int64_t at = -1;
    int b;
    assert_int_equal(lg_lease_room(&l, 10, T0, &at), 0); /* no lease */
    grant(&l, T0, 3, 2);
    assert_int_equal(lg_lease_room(&l, 10, T0 + 5, &at), 6);
    assert_int_equal(at, T0 + 5);
    for (int i = 0; i < 2; i++)
        assert_int_equal(lg_lease_take(&l, 10, T0 + 5, T0 + 5000, &at, &b), LG_LEASE_TAKEN);
    /* bucket 0 used up: the rest from bucket 1's start */
    assert_int_equal(lg_lease_room(&l, 10, T0 + 5, &at), 4);
    assert_int_equal(at, T0 + 100);
    /* bucket 1 ended: only bucket 2's, at once */
    assert_int_equal(lg_lease_room(&l, 10, T0 + 250, &at), 2);
    assert_int_equal(at, T0 + 250);
    /* a request larger than a bucket's tokens: none */
    assert_int_equal(lg_lease_room(&l, 25, T0 + 250, &at), 0);
    /* every bucket ended */
    assert_int_equal(lg_lease_room(&l, 10, T0 + 300, &at), 0);
}

/* An account Redis granted nothing: its turn ends, and nobody asks for it again before the time given. */
static void test_given_back_not_before(void **state)
{
    lg_lease l = {0};
    lg_lease_return ret;
    grant(&l, T0, 2, 1);
    l.requests[0] = 0; /* used up */
    assert_true(lg_lease_begin_ask(&l, T0 + 250, &ret));
    lg_lease_ask_given_back(&l, T0 + 250 + 400);
    assert_int_equal(l.requests[1], 0); /* what it carried went to Redis */
    assert_false(lg_lease_begin_ask(&l, T0 + 649, &ret));
    assert_true(lg_lease_begin_ask(&l, T0 + 650, &ret));
}

/* A grant whose call was slow measures the skew badly: the machine keeps the better measure it had (its error
 * grown by a ms a second begun), and a request goes only where its bucket runs whatever the skew within the
 * error; a fresher measure wins once the kept one has aged past it. */
static void test_skew_best_measure_and_error(void **state)
{
    lg_lease l = {0};
    int64_t at, q[LG_LEASE_BUCKETS], k[LG_LEASE_BUCKETS];
    int b;
    for (int j = 0; j < LG_LEASE_BUCKETS; j++)
        q[j] = 1, k[j] = 10;
    grant(&l, T0, 2, 1); /* skew 500, measured exactly */
    /* 100 ms later, a call of 60 ms round trip says 520 (within its 31 ms): 500 kept, 1 ms off by now */
    lg_lease_grant(&l, T0 + 100, 520, 31, SPAN, (T0 + 500) * 64 / SPAN, 2, q, k, true);
    assert_int_equal(l.skew_ms, 500);
    assert_int_equal(l.skew_err_ms, 1);
    /* bucket 0 runs from T0 to T0 + 100 on the machine's clock, +-1: its place goes at T0 + 1 at the earliest */
    assert_int_equal(lg_lease_room(&l, 10, T0, &at), 2);
    assert_int_equal(at, T0 + 1);
    assert_int_equal(lg_lease_take(&l, 10, T0, T0 + 5000, &at, &b), LG_LEASE_TAKEN);
    assert_int_equal(at, T0 + 1);
    assert_int_equal(b, 0);
    /* at T0 + 99 bucket 0 may already be over: bucket 1's place, from T0 + 101 */
    lg_lease_give_back(&l, l.id, 0, 10);
    assert_int_equal(lg_lease_take(&l, 10, T0 + 99, T0 + 5000, &at, &b), LG_LEASE_TAKEN);
    assert_int_equal(b, 1);
    assert_int_equal(at, T0 + 101);
    /* a minute later the kept measure is 61 ms off: the new one (30 ms) wins and the buckets narrow by it */
    lg_lease_grant(&l, T0 + 60100, 520, 30, SPAN, (T0 + 500) * 64 / SPAN, 2, q, k, true);
    assert_int_equal(l.skew_ms, 520);
    assert_int_equal(l.skew_err_ms, 30);
    assert_int_equal(lg_lease_room(&l, 10, T0, &at), 2);
    assert_int_equal(at, T0 - 20 + 30);
    assert_int_equal(lg_lease_take(&l, 10, T0 + 50, T0 + 5000, &at, &b), LG_LEASE_TAKEN);
    assert_int_equal(b, 1); /* bucket 0 closed at T0 + 100 - 20 - 30 */
    /* an error of half a bucket or more leaves no time to any bucket */
    lg_lease_grant(&l, T0 + 120100, 520, 50, SPAN, (T0 + 500) * 64 / SPAN, 2, q, k, true);
    assert_int_equal(lg_lease_take(&l, 10, T0, T0 + 5000, &at, &b), LG_LEASE_EMPTY);
}

/* A fake process table: pids 100..199 run, each started at tick pid * 10; every other pid is gone, and a
 * process of a live pid with another start time is an earlier one whose pid was reused. */
static bool fake_alive(const lg_store_owner *o, void *ctx)
{
    (void)ctx;
    return o->pid >= 100 && o->pid < 200 && o->start == (uint64_t)o->pid * 10;
}

/* The process of pid as the fake table has it. */
static const lg_store_owner *proc(int32_t pid)
{
    static lg_store_owner o[8];
    static int next;
    lg_store_owner *p = &o[next++ % 8];
    *p = (lg_store_owner){pid, (uint64_t)pid * 10};
    return p;
}

/* The takers of an account's leases: each process noted once, kept across grants, a gone one's entry reused
 * when the table is full; at exit the last live taker is told so, a process that took nothing never is. */
static void test_takers_and_the_last_one(void **state)
{
    lg_lease l = {0};
    grant(&l, T0, 4, 2);
    assert_true(lg_lease_note_taker(&l, proc(101), fake_alive, NULL));
    assert_false(lg_lease_note_taker(&l, proc(101), fake_alive, NULL)); /* once */
    assert_true(lg_lease_note_taker(&l, proc(102), fake_alive, NULL));
    grant(&l, T0 + 400, 4, 2); /* a new grant keeps them */
    assert_false(lg_lease_note_taker(&l, proc(102), fake_alive, NULL));
    assert_false(lg_lease_last_taker(&l, proc(150), fake_alive, NULL)); /* took nothing: gives nothing back */
    assert_false(lg_lease_last_taker(&l, proc(101), fake_alive, NULL)); /* 102 still uses it */
    assert_true(lg_lease_last_taker(&l, proc(102), fake_alive, NULL));  /* the last one */
    assert_false(lg_lease_last_taker(&l, proc(102), fake_alive, NULL)); /* and only once */
    /* a taker that died (pid 5) does not keep the lease from going back */
    assert_true(lg_lease_note_taker(&l, proc(5), fake_alive, NULL));
    assert_true(lg_lease_note_taker(&l, proc(103), fake_alive, NULL));
    assert_true(lg_lease_last_taker(&l, proc(103), fake_alive, NULL));
    /* a full table: a gone process's entry is taken; full of live ones, the newcomer is not noted */
    memset(l.takers, 0, sizeof l.takers);
    for (int32_t i = 0; i < LG_LEASE_TAKERS; i++)
        assert_true(lg_lease_note_taker(&l, proc(i == 3 ? 7 : 110 + i), fake_alive, NULL));
    assert_true(lg_lease_note_taker(&l, proc(120), fake_alive, NULL));
    assert_int_equal(l.takers[3].pid, 120);
    assert_false(lg_lease_note_taker(&l, proc(121), fake_alive, NULL));
    assert_false(lg_lease_last_taker(&l, proc(121), fake_alive, NULL));
}

/* A taker whose pid a later process got (the taker died, the pid came round again): the earlier one is seen
 * gone, not as the later one, so it neither keeps the lease from going back at the last live taker's exit
 * nor stands for the later process (which is noted as a taker of its own, and whose exit is the last). */
static void test_taker_of_a_reused_pid_is_gone(void **state)
{
    lg_lease l = {0};
    grant(&l, T0, 4, 2);
    lg_store_owner earlier = {104, 1}; /* pid 104 in the table now started at 1040: this one is gone */
    assert_true(lg_lease_note_taker(&l, &earlier, fake_alive, NULL));
    assert_true(lg_lease_note_taker(&l, proc(104), fake_alive, NULL)); /* the pid's process now: another taker */
    assert_true(lg_lease_note_taker(&l, proc(105), fake_alive, NULL));
    assert_false(lg_lease_last_taker(&l, proc(105), fake_alive, NULL)); /* 104 (now) still uses it */
    assert_true(lg_lease_last_taker(&l, proc(104), fake_alive, NULL)); /* the earlier 104 keeps nothing back */
    /* a full table whose only gone entry is a reused pid's: the newcomer takes that one */
    memset(l.takers, 0, sizeof l.takers);
    for (int32_t i = 0; i < LG_LEASE_TAKERS; i++) {
        lg_store_owner o = {130 + i, i == 5 ? 7 : (uint64_t)(130 + i) * 10};
        assert_true(lg_lease_note_taker(&l, &o, fake_alive, NULL));
    }
    assert_true(lg_lease_note_taker(&l, proc(140), fake_alive, NULL));
    assert_int_equal(l.takers[5].pid, 140);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grant_and_use),        cmocka_unit_test(test_give_back_and_settle),
        cmocka_unit_test(test_expiry),               cmocka_unit_test(test_ask_turn_and_return),
        cmocka_unit_test(test_dead_asker),           cmocka_unit_test(test_redis_gone),
        cmocka_unit_test(test_ask_size_follows_what_the_lease_served), cmocka_unit_test(test_room),
        cmocka_unit_test(test_given_back_not_before), cmocka_unit_test(test_skew_best_measure_and_error),
        cmocka_unit_test(test_takers_and_the_last_one), cmocka_unit_test(test_taker_of_a_reused_pid_is_gone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
