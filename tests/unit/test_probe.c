/* Unit tests of what requests do when a shared cooldown ends (src/limiter/policy.c lg_policy_ready_at and
 * lg_policy_claim_probe, through the engine and a real shared store, with a fake clock): wake-ups are
 * spread, and the first request probes the key alone while the others wait for its outcome. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "llmgate/engine.h"
#include "llmgate/store.h"
#include "store_fixture.h"

#define T0 INT64_C(1700000000000)
#define N 8

static int setup(void **state)
{
    if (fixture_setup(state, "probe") != 0 || !fixture_store(*state))
        return -1;
    fixture *f = *state;
    fixture_config(f, "{\"providers\": {\"openai\": {\"upstream\": \"http://127.0.0.1:9\", "
                      "\"accounts\": [{\"name\": \"only\", \"key\": \"sk-probe-test-key-0001\"}]}}}");
    f->req = (lg_gate_request){.cfg = f->cfg, .prov = fixture_provider(f, "openai"), .store = f->store,
                               .replayable = true};
    return 0;
}

static int teardown(void **state) { return fixture_teardown(state); }

static const lg_header h429[] = {{"Retry-After", "2"}, {"Content-Type", "application/json"}};
static const char b429[] = "{\"error\": {\"message\": \"Rate limit reached for requests\", "
                           "\"type\": \"requests\", \"code\": \"rate_limit_exceeded\"}}";
static const lg_header h200[] = {{"Content-Type", "application/json"}};
static const char b200[] = "{\"id\": \"x\", \"choices\": [], \"usage\": {\"prompt_tokens\": 3, "
                           "\"completion_tokens\": 4, \"total_tokens\": 7}}";

static void respond(lg_exchange *x, int status, int64_t now, lg_step *step)
{
    lg_response_view v = {.status = status,
                          .headers = status == 429 ? h429 : h200,
                          .n_headers = status == 429 ? 2 : 1,
                          .body = status == 429 ? b429 : b200,
                          .body_len = status == 429 ? sizeof b429 - 1 : sizeof b200 - 1};
    lg_exchange_on_response(x, &v, now, step);
}

/* The key got a 429 with Retry-After: 2 at T0; N requests then wait for it. */
static void start_storm(fixture *f, lg_exchange **x, lg_step *st)
{
    x[0] = lg_exchange_begin(&f->req, T0, &st[0]);
    assert_int_equal(st[0].kind, LG_STEP_SEND);
    respond(x[0], 429, T0, &st[0]);
    assert_int_equal(st[0].kind, LG_STEP_WAIT);
    for (int i = 1; i < N; i++) {
        x[i] = lg_exchange_begin(&f->req, T0 + 100, &st[i]);
        assert_non_null(x[i]);
        assert_int_equal(st[i].kind, LG_STEP_WAIT);
        assert_true(st[i].at_ms >= T0 + 2000);
    }
}

/* Fires every due timer at `now` in order; returns how many requests were sent. */
static int fire(lg_exchange **x, lg_step *st, int64_t now)
{
    int sent = 0;
    for (int i = 0; i < N; i++) {
        if (st[i].kind == LG_STEP_WAIT && st[i].at_ms <= now)
            lg_exchange_on_timer(x[i], now, &st[i]);
        sent += st[i].kind == LG_STEP_SEND;
    }
    return sent;
}

/* The index of the one request whose step is a SEND (the probe). */
static int the_one_sent(const lg_step *st)
{
    int found = -1;
    for (int i = 0; i < N; i++)
        if (st[i].kind == LG_STEP_SEND) {
            assert_int_equal(found, -1);
            found = i;
        }
    assert_true(found >= 0);
    return found;
}

static void free_all(lg_exchange **x)
{
    for (int i = 0; i < N; i++)
        lg_exchange_free(x[i]);
}

static void wake_ups_after_a_cooldown_are_spread(void **state)
{
    fixture *f = *state;
    lg_exchange *x[N];
    lg_step st[N];
    start_storm(f, x, st);
    int distinct = 0;
    for (int i = 1; i < N; i++) {
        assert_true(st[i].at_ms < T0 + 2000 + 200); /* a tenth of the 2 s cooldown at most */
        bool seen = false;
        for (int k = 1; k < i; k++)
            seen |= st[k].at_ms == st[i].at_ms;
        distinct += !seen;
    }
    assert_true(distinct >= 3);
    free_all(x);
}

static void the_first_waiter_probes_alone(void **state)
{
    fixture *f = *state;
    lg_exchange *x[N];
    lg_step st[N];
    start_storm(f, x, st);
    assert_int_equal(fire(x, st, T0 + 2300), 1); /* every timer is due: one request goes */
    int probe = the_one_sent(st);
    for (int i = 0; i < N; i++) /* the others look again soon */
        if (i != probe)
            assert_true(st[i].kind == LG_STEP_WAIT && st[i].at_ms <= T0 + 2300 + LG_PROBE_POLL_MS);
    assert_int_equal(fire(x, st, T0 + 2300 + LG_PROBE_POLL_MS), 1); /* still out: still alone */
    respond(x[probe], 200, T0 + 2600, &st[probe]);
    assert_int_equal(st[probe].kind, LG_STEP_DONE);
    assert_int_equal(fire(x, st, T0 + 2300 + 2 * LG_PROBE_POLL_MS), N - 1); /* it worked: all go */
    free_all(x);
}

static void a_failed_probe_keeps_the_others_waiting(void **state)
{
    fixture *f = *state;
    lg_exchange *x[N];
    lg_step st[N];
    start_storm(f, x, st);
    assert_int_equal(fire(x, st, T0 + 2300), 1);
    int probe = the_one_sent(st);
    respond(x[probe], 429, T0 + 2400, &st[probe]); /* a new 2 s cooldown */
    assert_int_equal(st[probe].kind, LG_STEP_WAIT);
    assert_int_equal(fire(x, st, T0 + 2300 + LG_PROBE_POLL_MS), 0);
    for (int i = 0; i < N; i++)
        assert_true(st[i].kind == LG_STEP_WAIT && st[i].at_ms >= T0 + 4400);
    free_all(x);
}

static void a_probe_that_never_answers_frees_the_key_after_its_lease(void **state)
{
    fixture *f = *state;
    lg_exchange *x[N];
    lg_step st[N];
    start_storm(f, x, st);
    assert_int_equal(fire(x, st, T0 + 2300), 1);
    int64_t t = T0 + 2300;
    int sent = 1;
    while (t < T0 + 2300 + LG_PROBE_LEASE_MS - LG_PROBE_POLL_MS) {
        t += LG_PROBE_POLL_MS;
        sent = fire(x, st, t);
        assert_int_equal(sent, 1);
    }
    t += 2 * LG_PROBE_POLL_MS;
    assert_int_equal(fire(x, st, t), 2); /* the lease ran out: one more probe, still not all */
    free_all(x);
}

static void a_probe_that_fails_in_the_transport_frees_the_key(void **state)
{
    fixture *f = *state;
    lg_exchange *x[N];
    lg_step st[N];
    start_storm(f, x, st);
    assert_int_equal(fire(x, st, T0 + 2300), 1);
    int probe = the_one_sent(st);
    lg_exchange_on_transport_error(x[probe], LG_ATTEMPT_RETRYABLE, T0 + 2310, &st[probe]);
    assert_int_equal(st[probe].kind, LG_STEP_WAIT); /* its own retry backs off */
    assert_int_equal(fire(x, st, T0 + 2300 + LG_PROBE_POLL_MS), 1); /* another one probes now */
    free_all(x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(wake_ups_after_a_cooldown_are_spread, setup, teardown),
        cmocka_unit_test_setup_teardown(the_first_waiter_probes_alone, setup, teardown),
        cmocka_unit_test_setup_teardown(a_failed_probe_keeps_the_others_waiting, setup, teardown),
        cmocka_unit_test_setup_teardown(a_probe_that_never_answers_frees_the_key_after_its_lease, setup, teardown),
        cmocka_unit_test_setup_teardown(a_probe_that_fails_in_the_transport_frees_the_key, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
