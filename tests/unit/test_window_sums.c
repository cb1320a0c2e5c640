/* The window's running sums (src/limiter/window.c) against the scan they replace, with a fake clock:
 * lg_window_earliest (running sums, the scan only when a request does not plainly fit) must answer exactly
 * as lg_window_earliest_scan on random sequences of admissions, reservations ahead (at their bucket's first
 * ms: buckets marked as holding such places only, which both forms skip where no window can hold them),
 * releases and reconciliations, provider caps, limit and span changes, buckets set from another store, clock
 * jumps forward and backward and the ring's rollover; and the sums must equal their run summed afresh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "llmgate/limiter.h"

#define T0 INT64_C(1700000000000)
#define B LG_WINDOW_BUCKETS
#define SEEDS 300
#define STEPS 1500

/* A small deterministic generator (xorshift64*), so that a failure names its seed. */
static uint64_t rng;
static uint64_t next(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * UINT64_C(2685821657736338717);
}
static int64_t below(int64_t n) { return n > 0 ? (int64_t)(next() % (uint64_t)n) : 0; }

/* The bucket of epoch e as the ring holds it, or NULL. */
static const lg_bucket *held(const lg_window *w, int64_t e)
{
    const lg_bucket *b = &w->ring[((e % LG_WINDOW_RING) + LG_WINDOW_RING) % LG_WINDOW_RING];
    return b->epoch == e ? b : NULL;
}

/* The running sums equal their run [run_end - B, run_end] summed afresh; no bucket after top holds
 * anything. */
static void assert_sums_kept(const lg_window *w, int seed, int step)
{
    int64_t r = 0, t = 0;
    for (int64_t e = w->run_end - B; e <= w->run_end; e++) {
        const lg_bucket *b = held(w, e);
        if (b) {
            r += b->requests;
            t += b->tokens;
        }
    }
    if (r != w->run_sum[0] || t != w->run_sum[1])
        fail_msg("seed %d step %d: running sums %lld/%lld, the run holds %lld/%lld", seed, step,
                 (long long)w->run_sum[0], (long long)w->run_sum[1], (long long)r, (long long)t);
    for (int i = 0; i < LG_WINDOW_RING; i++) {
        const lg_bucket *b = &w->ring[i];
        if ((b->requests || b->tokens) && b->epoch > w->top)
            fail_msg("seed %d step %d: bucket %lld holds something after top %lld", seed, step,
                     (long long)b->epoch, (long long)w->top);
    }
}

/* Random limits: sometimes only one dimension, spans from a few ms (buckets of 0-1 ms) to seconds. */
static lg_window_limits random_limits(void)
{
    lg_window_limits l = {.limit = {1 + below(40), 50 + below(5000)}, .window_ms = 5 + below(3000),
                          .margin_ms = below(4) ? below(60) : 0};
    if (below(6) == 0)
        l.limit[below(2)] = 0;
    return l;
}

typedef struct {
    int64_t ticket, tokens;
} held_ticket;

static void one_sequence(int seed, long *fast_fits, long *asked)
{
    rng = UINT64_C(0x9e3779b97f4a7c15) * (uint64_t)(seed + 1);
    lg_window *w = calloc(1, sizeof *w);
    assert_non_null(w);
    lg_window_limits l = random_limits();
    int64_t now = T0 + below(100000);
    held_ticket tickets[64];
    int nt = 0;
    for (int step = 0; step < STEPS; step++) {
        int64_t span = lg_window_span_ms(&l);
        int op = (int)below(100);
        if (op < 35) { /* time passes: mostly a little, sometimes far ahead or back */
            int k = (int)below(20);
            now += k == 0 ? below(4 * span) : k == 1 ? -below(2 * span) : k == 2 ? below(400 * span)
                 : k == 3 ? -below(5) : below(span / 16 + 2);
        } else if (op < 80) { /* an admission, now or after a not-before; reserved when it can be */
            int64_t tokens = below(8) == 0 ? below(20000) : below(300);
            int64_t nb = below(5) == 0 ? now + below(3 * span) : below(3) == 0 ? now - below(span) : 0;
            int64_t r1 = -1, r2 = -1;
            int64_t a1 = lg_window_earliest(w, &l, tokens, now, nb, &r1);
            int64_t a2 = lg_window_earliest_scan(w, &l, tokens, now, nb, &r2);
            if (a1 != a2 || r1 != r2)
                fail_msg("seed %d step %d: running sums say %lld (retry %lld), the scan %lld (retry %lld)", seed,
                         step, (long long)(a1 - now), (long long)r1, (long long)(a2 - now), (long long)r2);
            (*asked)++;
            if (r1 == 0 && a1 == (nb > now ? nb : now))
                (*fast_fits)++;
            if (r1 == 0 && (a1 <= now || below(3) == 0)) {
                int64_t tk = lg_window_reserve(w, &l, tokens, a1);
                if (nt < 64)
                    tickets[nt++] = (held_ticket){tk, tokens};
                else
                    tickets[below(64)] = (held_ticket){tk, tokens};
            }
        } else if (op < 92 && nt > 0) { /* a release or a reconciliation of an earlier ticket */
            int i = (int)below(nt);
            if (below(2))
                lg_window_adjust(w, tickets[i].ticket, -1, -tickets[i].tokens);
            else
                lg_window_adjust(w, tickets[i].ticket, below(3) - 1, below(2000) - 1000);
            tickets[i] = tickets[--nt];
        } else if (op < 95) { /* the provider's report: caps until a reset */
            lg_ratelimit_info info = {.limit = {-1, -1}, .remaining = {below(5), below(3) ? -1 : below(3000)},
                                      .reset_ms = {1 + below(2 * span), 1 + below(span)}};
            lg_window_learn(w, &info, now);
        } else if (op < 97) { /* a bucket as another store holds it (the redis backend's status) */
            int64_t e = (now * B) / span + below(2 * B) - B;
            lg_window_set_bucket(w, e, (int)below(2), below(30));
        } else if (op < 99) { /* other limits, the same span */
            l.limit[0] = below(5) ? 1 + below(40) : 0;
            l.limit[1] = below(5) ? 50 + below(5000) : 0;
        } else { /* another span: the ring starts afresh at the next reservation */
            l = random_limits();
        }
        assert_sums_kept(w, seed, step);
    }
    free(w);
}

/* Many seeds; the running sums decide most admissions (so the comparison is not only of the scan with
 * itself): the fits at the start are counted. */
static void test_running_sums_decide_as_the_scan(void **state)
{
    (void)state;
    long fast = 0, asked = 0;
    for (int seed = 0; seed < SEEDS; seed++)
        one_sequence(seed, &fast, &asked);
    print_message("# %ld admissions compared, %ld fit at their start\n", asked, fast);
    assert_true(asked > SEEDS * STEPS / 3);
    assert_true(fast > asked / 4);
    assert_true(fast < asked);
}

/* A steady stream within the limits: every admission fits at once and the sums follow bucket by bucket;
 * a full window then waits exactly as the scan says. */
static void test_steady_stream_and_full_window(void **state)
{
    (void)state;
    lg_window *w = calloc(1, sizeof *w);
    assert_non_null(w);
    lg_window_limits l = {.limit = {100, 10000}, .window_ms = 6400, .margin_ms = 0}; /* 100 ms buckets */
    int64_t now = T0, retry;
    for (int i = 0; i < 5000; i++, now += 70) {
        int64_t at = lg_window_earliest(w, &l, 50, now, 0, &retry);
        assert_int_equal(at, now);
        assert_int_equal(lg_window_earliest_scan(w, &l, 50, now, 0, &retry), now);
        lg_window_reserve(w, &l, 50, at);
        assert_sums_kept(w, -1, i);
    }
    for (int i = 0; i < 300; i++) { /* 300 at once: the limit of 100 per run makes them wait */
        int64_t r1, r2;
        int64_t a1 = lg_window_earliest(w, &l, 50, now, 0, &r1);
        int64_t a2 = lg_window_earliest_scan(w, &l, 50, now, 0, &r2);
        assert_int_equal(a1, a2);
        assert_int_equal(r1, r2);
        if (r1 == 0)
            lg_window_reserve(w, &l, 50, a1);
        assert_sums_kept(w, -2, i);
    }
    free(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_running_sums_decide_as_the_scan),
        cmocka_unit_test(test_steady_stream_and_full_window),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
