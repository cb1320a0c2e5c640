/* Unit tests of the sliding-window math (src/limiter/window.c) with a fake clock: never an over-admission in
 * any window (checked by brute force over every window), at most one sub-bucket of delay against the exact
 * sliding window, reservations in arrival order, release and reconciliation, provider caps, the horizon. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "llmgate/limiter.h"

#define T0 INT64_C(1700000000000) /* a wall-clock-like start */
#define MAX_EVENTS 400

typedef struct {
    int64_t at[MAX_EVENTS];
    int64_t tokens[MAX_EVENTS];
    int n;
} events;

static lg_window *new_window(void)
{
    lg_window *w = calloc(1, sizeof *w);
    assert_non_null(w);
    return w;
}

/* Admits (1, tokens) at the earliest time from now; records it; returns the time. */
static int64_t admit(lg_window *w, const lg_window_limits *l, int64_t tokens, int64_t now, events *ev)
{
    int64_t retry = -1;
    int64_t at = lg_window_earliest(w, l, tokens, now, 0, &retry);
    assert_int_equal(retry, 0);
    assert_true(at >= now);
    lg_window_reserve(w, l, tokens, at);
    if (ev) {
        assert_true(ev->n < MAX_EVENTS);
        ev->at[ev->n] = at;
        ev->tokens[ev->n] = tokens;
        ev->n++;
    }
    return at;
}

/* Requests and tokens of ev inside [s, s + len). */
static void count_in(const events *ev, int64_t s, int64_t len, int64_t *req, int64_t *tok)
{
    *req = *tok = 0;
    for (int i = 0; i < ev->n; i++)
        if (ev->at[i] >= s && ev->at[i] < s + len) {
            (*req)++;
            *tok += ev->tokens[i];
        }
}

/* Brute force: every window of length len that starts at an event holds at most the limits (the fullest
 * windows start at an event). */
static void assert_never_over(const events *ev, int64_t len, int64_t rpm, int64_t tpm)
{
    for (int i = 0; i < ev->n; i++) {
        int64_t r, t;
        count_in(ev, ev->at[i], len, &r, &t);
        if (rpm > 0 && r > rpm)
            fail_msg("window at +%lld holds %lld requests > %lld", (long long)(ev->at[i] - T0), (long long)r,
                     (long long)rpm);
        if (tpm > 0 && t > tpm)
            fail_msg("window at +%lld holds %lld tokens > %lld", (long long)(ev->at[i] - T0), (long long)t,
                     (long long)tpm);
    }
}

/* True when one more event (1, tokens) at t keeps every window of length len containing t within limits. */
static bool exact_fits(const events *ev, int64_t t, int64_t tokens, int64_t len, int64_t rpm, int64_t tpm)
{
    /* Windows [s, s+len) containing t: s in (t-len, t]; the count changes only where an event enters or
     * leaves, so the starts worth checking are t-len+1, and e+1, e-len+1 for each event e in range. */
    int64_t starts[2 * MAX_EVENTS + 1];
    int n = 0;
    starts[n++] = t - len + 1;
    for (int i = 0; i < ev->n; i++) {
        int64_t c[2] = {ev->at[i] + 1, ev->at[i] - len + 1};
        for (int k = 0; k < 2; k++)
            if (c[k] > t - len && c[k] <= t)
                starts[n++] = c[k];
    }
    for (int i = 0; i < n; i++) {
        int64_t r, tk;
        count_in(ev, starts[i], len, &r, &tk);
        if ((rpm > 0 && r + 1 > rpm) || (tpm > 0 && tk + tokens > tpm))
            return false;
    }
    return true;
}

/* The exact sliding window's earliest time >= a for (1, tokens), given the events: a, or the moment an
 * event leaves the window (e + len). */
static int64_t exact_earliest(const events *ev, int64_t a, int64_t tokens, int64_t len, int64_t rpm, int64_t tpm)
{
    int64_t best = -1;
    if (exact_fits(ev, a, tokens, len, rpm, tpm))
        return a;
    for (int i = 0; i < ev->n; i++) {
        int64_t c = ev->at[i] + len;
        if (c > a && (best < 0 || c < best) && exact_fits(ev, c, tokens, len, rpm, tpm))
            best = c;
    }
    return best;
}

/* Random bursty arrivals from one client at a time (each request waits for the previous admission) against
 * random limits: never over a limit in any window, and never more than one bucket later than the exact
 * sliding window over the same history would have admitted the request. */
static void test_random_arrivals_never_over_and_one_bucket_of_delay(void **state)
{
    (void)state;
    srand(12345);
    for (int round = 0; round < 60; round++) {
        lg_window *w = new_window();
        lg_window_limits l = {.limit = {1 + rand() % 8, (rand() % 2) ? 0 : 200 + rand() % 400},
                              .window_ms = 200 + rand() % 1000, .margin_ms = 0};
        int64_t width = (lg_window_span_ms(&l) + LG_WINDOW_BUCKETS - 1) / LG_WINDOW_BUCKETS;
        events ev = {.n = 0};
        int64_t now = T0 + rand() % 1000;
        int n = 30 + rand() % 40;
        for (int i = 0; i < n; i++) {
            int r = rand() % 10;
            now += r < 5 ? 0 : r < 8 ? rand() % 50 : rand() % (2 * l.window_ms); /* bursts and gaps */
            int64_t tokens = l.limit[1] ? 1 + rand() % (l.limit[1] / 3) : 1 + rand() % 100;
            int64_t exact = exact_earliest(&ev, now, tokens, l.window_ms, l.limit[0], l.limit[1]);
            assert_true(exact >= now);
            int64_t at = admit(w, &l, tokens, now, &ev);
            if (at > exact + width)
                fail_msg("round %d request %d: admitted %lld ms after the exact window would (bucket %lld ms)",
                         round, i, (long long)(at - exact), (long long)width);
            now = at;
        }
        assert_never_over(&ev, l.window_ms, l.limit[0], l.limit[1]);
        free(w);
    }
}

/* Many clients at once: requests arriving while earlier ones hold reservations ahead. Never over a limit in
 * any window, and equal requests are admitted in arrival order. */
static void test_concurrent_arrivals_never_over_and_fifo(void **state)
{
    (void)state;
    srand(4242);
    for (int round = 0; round < 60; round++) {
        lg_window *w = new_window();
        lg_window_limits l = {.limit = {2 + rand() % 8, (rand() % 2) ? 0 : 300 + rand() % 400},
                              .window_ms = 200 + rand() % 1000, .margin_ms = rand() % 30};
        bool equal = rand() % 2;
        events ev = {.n = 0};
        int64_t now = T0, last = 0;
        int64_t per_window = l.limit[1] && l.limit[1] / 150 < l.limit[0] ? l.limit[1] / 150 : l.limit[0];
        for (int i = 0; i < 4 * per_window; i++) { /* within the reservable horizon */
            now += rand() % 4 ? rand() % 20 : rand() % l.window_ms;
            int64_t tokens = equal ? 50 : 1 + rand() % 150;
            int64_t at = admit(w, &l, tokens, now, &ev);
            if (equal && at < last)
                fail_msg("round %d request %d overtook an earlier one", round, i);
            last = at > last ? at : last;
        }
        assert_never_over(&ev, l.window_ms + l.margin_ms, l.limit[0], l.limit[1]);
        free(w);
    }
}

/* Many clients at once, some giving up their places ahead (releases) or settling their tokens: the
 * buckets then hold places at their first ms (marked) beside gaps and admissions made now. Never over a
 * limit in any window of window + margin ms, whatever was given back. */
static void test_places_given_back_never_over(void **state)
{
    (void)state;
    srand(777);
    for (int round = 0; round < 200; round++) {
        lg_window *w = new_window();
        lg_window_limits l = {.limit = {1 + rand() % 6, (rand() % 2) ? 0 : 300 + rand() % 400},
                              .window_ms = 200 + rand() % 1000, .margin_ms = rand() % 2 ? 0 : rand() % 30};
        int64_t span = lg_window_span_ms(&l);
        events ev = {.n = 0};
        int64_t ticket[MAX_EVENTS], now = T0 + rand() % 1000;
        for (int i = 0; i < 120 && ev.n < MAX_EVENTS - 1; i++) {
            int r = rand() % 10;
            now += r < 4 ? rand() % 5 : r < 8 ? rand() % (span / 8 + 1) : rand() % span;
            if (rand() % 4 == 0 && ev.n > 0) { /* a place given back, or its tokens settled lower */
                int k = rand() % ev.n;
                if (ev.at[k] > now || rand() % 2) {
                    lg_window_adjust(w, ticket[k], -1, -ev.tokens[k]);
                    ev.n--;
                    ev.at[k] = ev.at[ev.n];
                    ev.tokens[k] = ev.tokens[ev.n];
                    ticket[k] = ticket[ev.n];
                } else {
                    int64_t d = rand() % (ev.tokens[k] + 1);
                    lg_window_adjust(w, ticket[k], 0, -d);
                    ev.tokens[k] -= d;
                }
                continue;
            }
            int64_t tokens = 1 + rand() % 150, retry;
            int64_t at = lg_window_earliest(w, &l, tokens, now, 0, &retry);
            if (retry != 0)
                continue;
            ticket[ev.n] = lg_window_reserve(w, &l, tokens, at);
            ev.at[ev.n] = at;
            ev.tokens[ev.n] = tokens;
            ev.n++;
        }
        assert_never_over(&ev, span, l.limit[0], l.limit[1]);
        free(w);
    }
}

/* The margin widens the protected window: no window of window+margin ms ever holds more than the limit. */
static void test_margin_protects_the_longer_window(void **state)
{
    (void)state;
    srand(777);
    for (int round = 0; round < 30; round++) {
        lg_window *w = new_window();
        lg_window_limits l = {.limit = {1 + rand() % 6, 0}, .window_ms = 300 + rand() % 700};
        l.margin_ms = lg_window_margin_ms(l.window_ms);
        events ev = {.n = 0};
        int64_t now = T0;
        for (int i = 0; i < 5 * l.limit[0]; i++) {
            now += rand() % 3 ? 0 : rand() % 400;
            admit(w, &l, 1, now, &ev);
        }
        assert_never_over(&ev, l.window_ms + l.margin_ms, l.limit[0], 0);
        free(w);
    }
}

/* Reservations keep arrival order for equal requests, and the steady state runs at the limit's rate. */
static void test_reservations_are_fifo_at_full_rate(void **state)
{
    (void)state;
    lg_window *w = new_window();
    lg_window_limits l = {.limit = {5, 0}, .window_ms = 1000, .margin_ms = 0};
    events ev = {.n = 0};
    int64_t last = 0;
    for (int i = 0; i < 25; i++) {
        int64_t at = admit(w, &l, 1, T0 + i, &ev); /* 25 requests arrive within 25 ms */
        assert_true(at >= last);
        last = at;
    }
    assert_never_over(&ev, l.window_ms, 5, 0);
    /* 25 requests at 5 per window: the last one goes in the 5th window, one bucket late in all: the first
     * five, admitted now anywhere in their bucket, make the next five wait for its end; those are placed at
     * their bucket's first ms, so the ones after them wait exactly a window each. */
    int64_t width = (lg_window_span_ms(&l) + LG_WINDOW_BUCKETS - 1) / LG_WINDOW_BUCKETS;
    assert_true(last >= T0 + 4 * 1000);
    assert_true(last <= T0 + 4 * 1000 + width);
    free(w);
}

/* A later small request does not overtake an earlier reservation's turn forever: each reservation is fixed. */
static void test_a_reservation_is_not_starved(void **state)
{
    (void)state;
    lg_window *w = new_window();
    lg_window_limits l = {.limit = {0, 100}, .window_ms = 1000, .margin_ms = 0};
    int64_t first = admit(w, &l, 90, T0, NULL);
    assert_int_equal(first, T0);
    int64_t big = admit(w, &l, 60, T0 + 1, NULL); /* must wait for the first to leave */
    assert_int_equal(big, T0 + 1000); /* no sooner, and no later: the first is at its bucket's first ms */
    for (int i = 0; i < 50; i++) { /* a stream of small requests afterwards */
        int64_t retry;
        int64_t at = lg_window_earliest(w, &l, 5, T0 + 2 + i, 0, &retry);
        assert_int_equal(retry, 0);
        lg_window_reserve(w, &l, 5, at);
    }
    /* the big reservation still stands where it was put */
    int64_t used, tok;
    lg_window_usage(w, big, &used, &tok, NULL);
    assert_true(tok >= 60);
    free(w);
}

/* Releasing a reservation (the provider refused it) frees its room at once; reconciliation corrects tokens. */
static void test_release_and_reconcile(void **state)
{
    (void)state;
    lg_window *w = new_window();
    lg_window_limits l = {.limit = {2, 1000}, .window_ms = 1000, .margin_ms = 0};
    int64_t retry;
    int64_t a1 = lg_window_earliest(w, &l, 600, T0, 0, &retry);
    int64_t t1 = lg_window_reserve(w, &l, 600, a1);
    assert_int_equal(a1, T0);
    assert_true(lg_window_earliest(w, &l, 600, T0 + 10, 0, &retry) > T0 + 10); /* tokens full */
    lg_window_adjust(w, t1, 0, 20 - 600);                                      /* real usage: 20 tokens */
    assert_int_equal(lg_window_earliest(w, &l, 600, T0 + 10, 0, &retry), T0 + 10);
    int64_t t2 = lg_window_reserve(w, &l, 600, T0 + 10);
    assert_true(lg_window_earliest(w, &l, 1, T0 + 20, 0, &retry) > T0 + 20); /* requests full */
    lg_window_adjust(w, t2, -1, -600);                                        /* refused by the provider */
    assert_int_equal(lg_window_earliest(w, &l, 1, T0 + 20, 0, &retry), T0 + 20);
    int64_t req, tok, ahead;
    lg_window_usage(w, T0 + 20, &req, &tok, &ahead);
    assert_int_equal(req, 1);
    assert_int_equal(tok, 20);
    assert_int_equal(ahead, 0);
    lg_window_usage(w, T0 + 5000, &req, &tok, NULL); /* the window moved on */
    assert_int_equal(req, 0);
    assert_int_equal(tok, 0);
    int64_t t3 = lg_window_reserve(w, &l, 7, T0 + 6000);
    lg_window_adjust(w, t3, -5, -5000); /* never below zero */
    lg_window_usage(w, T0 + 6000, &req, &tok, NULL);
    assert_int_equal(req, 0);
    assert_int_equal(tok, 0);
    free(w);
}

/* The provider's reported remaining capacity caps admissions until its reset; its limits are remembered. */
static void test_provider_caps_and_learned_limits(void **state)
{
    (void)state;
    lg_window *w = new_window();
    lg_window_limits l = {.limit = {100, 0}, .window_ms = 1000, .margin_ms = 0};
    lg_ratelimit_info info = {.limit = {60, 1000}, .remaining = {1, -1}, .reset_ms = {700, -1}};
    lg_window_learn(w, &info, T0);
    assert_int_equal(w->learned_limit[0], 60);
    assert_int_equal(w->learned_limit[1], 1000);
    int64_t retry;
    assert_int_equal(lg_window_earliest(w, &l, 1, T0, 0, &retry), T0); /* one left */
    lg_window_reserve(w, &l, 1, T0);
    int64_t at = lg_window_earliest(w, &l, 1, T0 + 1, 0, &retry); /* none left until the reset */
    assert_int_equal(retry, 0);
    assert_int_equal(at, T0 + 700);
    /* a higher remaining than our own belief never loosens the window */
    lg_window_limits tight = {.limit = {1, 0}, .window_ms = 1000, .margin_ms = 0};
    lg_ratelimit_info lots = {.limit = {-1, -1}, .remaining = {50, -1}, .reset_ms = {100, -1}};
    lg_window_learn(w, &lots, T0 + 2);
    assert_int_equal(lg_window_earliest(w, &tight, 1, T0 + 3, 0, &retry), T0 + 1000); /* the first leaves */
    free(w);
}

/* not_before (a cooldown) is honoured; a time past the horizon cannot be reserved and says when to ask. */
static void test_not_before_and_horizon(void **state)
{
    (void)state;
    lg_window *w = new_window();
    lg_window_limits l = {.limit = {3, 0}, .window_ms = 1000, .margin_ms = 0};
    int64_t retry;
    assert_int_equal(lg_window_earliest(w, &l, 1, T0, T0 + 250, &retry), T0 + 250);
    assert_int_equal(retry, 0);
    int64_t far = lg_window_earliest(w, &l, 1, T0, T0 + 3600000, &retry);
    assert_true(retry > 0);
    assert_int_equal(far, T0 + 3600000);
    /* fill the reservable horizon: then the answer is a lower bound past it and a retry in one bucket */
    for (int i = 0; i < 1000; i++) {
        int64_t at = lg_window_earliest(w, &l, 1, T0, 0, &retry);
        if (retry > 0) {
            assert_true(at > T0 + 2 * 1000);
            assert_int_equal(retry, (lg_window_span_ms(&l) + LG_WINDOW_BUCKETS - 1) / LG_WINDOW_BUCKETS);
            free(w);
            return;
        }
        lg_window_reserve(w, &l, 1, at);
    }
    fail_msg("the horizon never ended");
}

/* Unlimited dimensions never delay, but are counted for status; a request above the token limit still fits
 * an empty window (the provider refuses it, it must not wait forever). */
static void test_unlimited_and_oversized(void **state)
{
    (void)state;
    lg_window *w = new_window();
    lg_window_limits none = {.limit = {0, 0}, .window_ms = 1000, .margin_ms = 10};
    int64_t retry;
    for (int i = 0; i < 100; i++) {
        assert_int_equal(lg_window_earliest(w, &none, 50, T0, 0, &retry), T0);
        lg_window_reserve(w, &none, 50, T0);
    }
    int64_t req, tok;
    lg_window_usage(w, T0, &req, &tok, NULL);
    assert_int_equal(req, 100);
    assert_int_equal(tok, 5000);
    lg_window *v = new_window();
    lg_window_limits small = {.limit = {0, 100}, .window_ms = 1000, .margin_ms = 0};
    assert_int_equal(lg_window_earliest(v, &small, 100000, T0, 0, &retry), T0);
    free(v);
    free(w);
}

/* A window filled with another width (the limits changed) starts afresh. */
static void test_width_change_resets(void **state)
{
    (void)state;
    lg_window *w = new_window();
    lg_window_limits a = {.limit = {1, 0}, .window_ms = 1000, .margin_ms = 0};
    lg_window_limits b = {.limit = {1, 0}, .window_ms = 5000, .margin_ms = 0};
    int64_t retry;
    lg_window_reserve(w, &a, 1, T0);
    assert_true(lg_window_earliest(w, &a, 1, T0 + 1, 0, &retry) > T0 + 1);
    assert_int_equal(lg_window_earliest(w, &b, 1, T0 + 1, 0, &retry), T0 + 1);
    free(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_arrivals_never_over_and_one_bucket_of_delay),
        cmocka_unit_test(test_concurrent_arrivals_never_over_and_fifo),
        cmocka_unit_test(test_places_given_back_never_over),
        cmocka_unit_test(test_margin_protects_the_longer_window),
        cmocka_unit_test(test_reservations_are_fifo_at_full_rate),
        cmocka_unit_test(test_a_reservation_is_not_starved),
        cmocka_unit_test(test_release_and_reconcile),
        cmocka_unit_test(test_provider_caps_and_learned_limits),
        cmocka_unit_test(test_not_before_and_horizon),
        cmocka_unit_test(test_unlimited_and_oversized),
        cmocka_unit_test(test_width_change_resets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
