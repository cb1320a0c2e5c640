/* Unit tests of the folded store steps (store.h): one admission step (the circuit breaker, the choice and
 * reservation, the first admission's counter) and one record step (the outcome, the retry budget, the
 * breaker), each part shown to happen, on an exchange's own slots and through the shm backend. Fake clock:
 * every time is a parameter. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "llmgate/store.h"

#define T0 INT64_C(1700000000000)

/* Where the steps run: the shm store (store != NULL) or slots of the test's own. */
typedef struct {
    char dir[64];
    lg_store *store;
    lg_account_slot own[2];
    lg_account_slot *ptrs[2];
    lg_provider_slot own_prov;
    lg_slots sl;
    lg_config *cfg;
    lg_breaker_conf breaker;
    lg_store_scope sc;
    lg_store_ticket t;
    lg_account_state snap[2];
} side;

static lg_account_ref refs[2] = {{"a", "00aa"}, {"b", "00bb"}};
static lg_estimate est;

static side *make_side(bool shm)
{
    side *s = calloc(1, sizeof *s);
    assert_non_null(s);
    s->cfg = lg_config_defaults();
    assert_non_null(s->cfg);
    s->breaker = (lg_breaker_conf){.failure_ratio = 0.5, .min_requests = 10, .window_ms = 30000,
                                   .consecutive_failures = 2, .open_ms = 30000, .open_max_ms = 300000};
    s->sc = (lg_store_scope){.provider = "openai", .refs = refs, .n = 2, .dialect = LG_DIALECT_OPENAI, .est = &est,
                             .limits = {.window_ms = 60000}, .backoff = &s->cfg->backoff, .retry = &s->cfg->retry,
                             .breaker = &s->breaker};
    for (int i = 0; i < 2; i++)
        s->ptrs[i] = &s->own[i];
    s->sl = (lg_slots){.prov = &s->own_prov, .accounts = s->ptrs, .owner = s};
    if (shm) {
        snprintf(s->dir, sizeof s->dir, "/tmp/llmgate-fold-test.XXXXXX");
        assert_non_null(mkdtemp(s->dir));
        setenv("XDG_STATE_HOME", s->dir, 1); /* long cooldowns would be saved here, never in the real home */
        char path[128], err[256];
        snprintf(path, sizeof path, "%s/state.shm", s->dir);
        s->store = lg_store_open(path, err, sizeof err);
        assert_non_null(s->store);
    }
    return s;
}

static void free_side(side *s)
{
    if (s->store) {
        lg_store_close(s->store);
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", s->dir);
        assert_int_equal(system(cmd), 0);
    }
    lg_config_free(s->cfg);
    free(s);
}

static lg_admission admit(side *s, const lg_admit_opts *opts, int64_t now)
{
    lg_admission out;
    memset(&out, 0xff, sizeof out); /* every field the step answers is written */
    if (s->store)
        assert_int_equal(lg_store_admit(s->store, &s->sc, &s->t, LG_PREFER_CURRENT, now, now + 1000, opts, s->snap, &out), 0);
    else
        out = lg_slots_admit(&s->sl, &s->sc, &s->t, LG_PREFER_CURRENT, now, now + 1000, opts);
    return out;
}

/* Records an answer in state st on account idx, with the budget and breaker parts given. */
static void record(side *s, size_t idx, lg_state st, bool first, lg_breaker_note note, int64_t now)
{
    lg_outcome o = {.state = st, .retry_after_ms = LG_NO_HINT, .retry_at_ms = LG_NO_HINT};
    lg_store_attempt a = {.outcome = &o, .first = first, .breaker = note};
    if (s->store)
        assert_int_equal(lg_store_record(s->store, &s->sc, &s->t, idx, &a, now, s->snap), 0);
    else
        lg_slots_record(&s->sl, &s->sc, &s->t, idx, &a, now);
}

/* Copies of the provider's and the accounts' slots as the side holds them. */
static void prov_cb(const char *provider, const lg_provider_slot *slot, void *ctx)
{
    if (!strcmp(provider, "openai"))
        *(lg_provider_slot *)ctx = *slot;
}

static lg_provider_slot prov_of(side *s)
{
    lg_provider_slot p;
    memset(&p, 0, sizeof p);
    if (!s->store)
        return s->own_prov;
    assert_int_equal(lg_store_visit_providers(s->store, prov_cb, &p), 0);
    return p;
}

static void acct_cb(const char *provider, const char *account, const char *digest, const lg_account_slot *slot,
                    void *ctx)
{
    if (!strcmp(provider, "openai") && !strcmp(account, "a"))
        *(lg_account_slot *)ctx = *slot;
}

static lg_account_slot first_account(side *s)
{
    lg_account_slot a;
    memset(&a, 0, sizeof a);
    if (!s->store)
        return s->own[0];
    assert_int_equal(lg_store_visit(s->store, acct_cb, &a), 0);
    return a;
}

static uint32_t budget_requests(const lg_provider_slot *p)
{
    uint32_t n = 0;
    for (int i = 0; i < LG_BUDGET_BUCKETS; i++)
        n += p->budget.requests[i];
    return n;
}

static uint32_t breaker_total(const lg_provider_slot *p)
{
    uint32_t n = 0;
    for (int i = 0; i < LG_BREAKER_BUCKETS; i++)
        n += p->breaker.total[i];
    return n;
}

/* Admission: asked to, the breaker is consulted (a closed one allows); the first admission is counted
 * where the request goes; without opts neither happens. */
static void admission_counts_and_asks_the_breaker(side *s)
{
    lg_admit_opts opts = {.breaker = true, .count = true, .ev = LG_EV_IMMEDIATE};
    lg_admission ad = admit(s, &opts, T0);
    assert_int_equal(ad.breaker, LG_BREAKER_ALLOW);
    assert_true(ad.reserved);
    assert_int_equal(ad.idx, 0);
    assert_true(ad.at_ms <= T0);
    assert_true(s->t.held);
    assert_int_equal(first_account(s).counters.immediate, 1);
    assert_int_equal(first_account(s).counters.waited, 0);
    ad = admit(s, NULL, T0);
    assert_true(ad.reserved);
    assert_int_equal(first_account(s).counters.immediate, 1);
    opts.ev = LG_EV_WAITED;
    admit(s, &opts, T0);
    assert_int_equal(first_account(s).counters.waited, 1);
}

/* Record: the outcome, the budget (first attempt only) and the breaker (per the note) in one step; two
 * failures in a row open the breaker, and the next admission is refused by it without choosing, reserving
 * or counting anything. */
static void record_spends_budget_and_opens_the_breaker(side *s)
{
    admit(s, NULL, T0);
    record(s, 0, LG_STATE_SUCCESS, true, LG_BREAKER_NOTE_SUCCESS, T0);
    lg_provider_slot p = prov_of(s);
    assert_int_equal(budget_requests(&p), 1);
    assert_int_equal(breaker_total(&p), 1);
    assert_int_equal(first_account(s).counters.requests, 1);
    assert_false(s->t.held); /* the reservation settled */

    record(s, 1, LG_STATE_RETRYABLE_RATE_LIMIT, false, LG_BREAKER_NOTE_NONE, T0 + 1);
    p = prov_of(s);
    assert_int_equal(budget_requests(&p), 1); /* not a first attempt */
    assert_int_equal(breaker_total(&p), 1);   /* no note */

    record(s, 1, LG_STATE_PROVIDER_DOWN, true, LG_BREAKER_NOTE_FAILURE, T0 + 2);
    record(s, 1, LG_STATE_PROVIDER_DOWN, false, LG_BREAKER_NOTE_FAILURE, T0 + 3);
    p = prov_of(s);
    assert_int_equal(budget_requests(&p), 2);
    assert_int_equal(p.breaker.state, LG_BREAKER_OPEN);

    lg_account_slot before = first_account(s);
    s->t.held = false;
    lg_admit_opts opts = {.breaker = true, .count = true, .ev = LG_EV_IMMEDIATE};
    lg_admission ad = admit(s, &opts, T0 + 4);
    assert_int_equal(ad.breaker, LG_BREAKER_REJECT);
    assert_int_equal(ad.breaker_retry_ms, 30000 - 1);
    assert_false(ad.reserved);
    assert_false(s->t.held);
    lg_account_slot after = first_account(s);
    assert_int_equal(after.counters.immediate, before.counters.immediate);
    assert_memory_equal(&after.window, &before.window, sizeof before.window);

    ad = admit(s, NULL, T0 + 5); /* not asked: the breaker does not stand in the way (account a is free) */
    assert_int_equal(ad.breaker, LG_BREAKER_ALLOW);
    assert_true(ad.reserved);
    assert_int_equal(ad.idx, 0);
    ad = admit(s, &opts, T0 + 3 + 30000); /* the open period over: this request is the probe */
    assert_int_equal(ad.breaker, LG_BREAKER_PROBE);
}

/* Both scenarios, each on fresh slots (the shm store's, or the test's own). */
static void both_scenarios(bool shm)
{
    side *s = make_side(shm);
    admission_counts_and_asks_the_breaker(s);
    free_side(s);
    s = make_side(shm);
    record_spends_budget_and_opens_the_breaker(s);
    free_side(s);
}

static void on_own_slots(void **state) { both_scenarios(false); }

static void through_the_shm_store(void **state) { both_scenarios(true); }

/* The provider-wide part of a record on its own (the redis backend's local step, a transport failure's
 * breaker note). */
static void provider_attempt_op(void **state)
{
    side *s = make_side(true);
    lg_prov_op op = {.kind = LG_PROV_ATTEMPT, .now_ms = T0, .first = true, .note = LG_BREAKER_NOTE_FAILURE};
    assert_int_equal(lg_store_provider(s->store, &s->sc, &op), 0);
    op.first = false;
    op.now_ms = T0 + 1;
    assert_int_equal(lg_store_provider(s->store, &s->sc, &op), 0);
    lg_provider_slot p = prov_of(s);
    assert_int_equal(budget_requests(&p), 1);
    assert_int_equal(p.breaker.state, LG_BREAKER_OPEN);
    free_side(s);
}

/* An ungated pass-through: counted every time; due once per cause within the interval, again after it. */
static void provider_ungated_op(void **state)
{
    side *s = make_side(true);
    lg_prov_op op = {.kind = LG_PROV_UNGATED, .now_ms = T0, .interval_ms = 60000, .cause = LG_UNGATED_TOO_LARGE};
    assert_int_equal(lg_store_provider(s->store, &s->sc, &op), 0);
    assert_true(op.due);
    op.now_ms = T0 + 59999;
    assert_int_equal(lg_store_provider(s->store, &s->sc, &op), 0);
    assert_false(op.due);
    op.cause = LG_UNGATED_PIPELINED; /* another cause has its own time */
    assert_int_equal(lg_store_provider(s->store, &s->sc, &op), 0);
    assert_true(op.due);
    op.cause = LG_UNGATED_TOO_LARGE;
    op.now_ms = T0 + 60000;
    assert_int_equal(lg_store_provider(s->store, &s->sc, &op), 0);
    assert_true(op.due);
    lg_provider_slot p = prov_of(s);
    assert_int_equal(p.ungated, 4);
    free_side(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(on_own_slots),
        cmocka_unit_test(through_the_shm_store),
        cmocka_unit_test(provider_attempt_op),
        cmocka_unit_test(provider_ungated_op),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
