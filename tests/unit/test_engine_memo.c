/* Unit tests of what the engine's per-request work keeps or skips (issue 12, part 3): the model hash a
 * scope carries is the one of the request it was set up for (a reused lg_accounts never charges by the
 * previous request's model), and the admission's shortcut for a provider with one account (no pool
 * filtering) is taken for one account only. Fake clock: every time is a parameter. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gate/accounts.h"
#include "llmgate/limiter.h"
#include "store_fixture.h"

#define T0 INT64_C(1700000000000)

static int setup(void **state) { return fixture_setup(state, "engine-memo"); }

/* A request of model (the same 16 bytes of text whatever the model). */
static lg_gate_request request_of(fixture *f, const char *model, char *body, size_t cap)
{
    snprintf(body, cap, "{\"model\":\"%s\",\"max_tokens\":10,\"messages\":[{\"role\":\"user\",\"content\":"
                        "\"0123456789abcdef\"}]}", model);
    return (lg_gate_request){.cfg = f->cfg, .prov = fixture_provider(f, "openai"), .store = f->store,
                             .replayable = true, .body = body, .body_len = strlen(body)};
}

/* Sets a up for req (a reused lg_accounts), admits it and returns the tokens reserved. */
static int64_t admit_tokens(lg_accounts *a, const lg_gate_request *req, int64_t now)
{
    assert_true(lg_accounts_init(a, req));
    assert_int_equal(a->scope.model_hash, lg_model_hash(a->est.model));
    lg_admission ad = lg_accounts_admit(a, LG_PREFER_CURRENT, now, now + 1000, NULL);
    assert_true(ad.reserved);
    return a->tokens;
}

/* A usage report calibrates gpt-4o; the same lg_accounts then set up for another model charges that
 * model's envelope (its own hash, no calibration), and set up for gpt-4o again the calibrated text. */
static void model_hash_follows_the_request(void **state)
{
    fixture *f = *state;
    fixture_config(f, "{\"providers\": {\"openai\": {\"limits\": {\"tpm\": 100000, \"window_ms\": 60000}, "
                      "\"accounts\": [{\"name\": \"a\", \"key\": \"sk-unit-a-123\"}]}}}");
    assert_non_null(fixture_store(f));
    char body_a[256], body_b[256];
    lg_gate_request ra = request_of(f, "gpt-4o", body_a, sizeof body_a);
    lg_gate_request rb = request_of(f, "gpt-4o-mini", body_b, sizeof body_b);
    lg_accounts a;
    memset(&a, 0, sizeof a);
    int64_t envelope_a = (int64_t)(strlen(body_a) + 3) / 4 + 10;
    assert_int_equal(admit_tokens(&a, &ra, T0), envelope_a); /* nothing calibrated yet */
    lg_outcome o = {.state = LG_STATE_SUCCESS, .has_usage = true, .prompt_tokens = 16, .completion_tokens = 3,
                    .retry_after_ms = LG_NO_HINT, .retry_at_ms = LG_NO_HINT};
    lg_accounts_record(&a, 0, &o, NULL, 0, T0); /* text 8, real 16: gpt-4o's ratio is 2 */
    lg_accounts_free(&a);
    assert_int_equal(admit_tokens(&a, &rb, T0 + 1), (int64_t)(strlen(body_b) + 3) / 4 + 10);
    lg_accounts_release(&a);
    lg_accounts_free(&a);
    assert_int_equal(admit_tokens(&a, &ra, T0 + 2), 16 + 10);
    lg_accounts_release(&a);
    lg_accounts_free(&a);
}

/* A scope without a model hash (0) charges and calibrates as one with the hash of its model. */
static void unset_model_hash_is_hashed(void **state)
{
    (void)state;
    lg_estimate e = {.text = 8, .envelope = 30, .output = 10};
    snprintf(e.model, sizeof e.model, "gpt-4o");
    lg_window w1, w2;
    memset(&w1, 0, sizeof w1);
    memset(&w2, 0, sizeof w2);
    lg_charge_calibrate_as(&w1, &e, 0, 16);
    lg_charge_calibrate_as(&w2, &e, lg_model_hash("gpt-4o"), 16);
    assert_memory_equal(&w1.calib, &w2.calib, sizeof w1.calib);
    assert_int_equal(lg_charge_admit_as(LG_DIALECT_OPENAI, &e, 0, &w1), 16 + 10);
    assert_int_equal(lg_charge_admit_as(LG_DIALECT_OPENAI, &e, lg_model_hash("gpt-4o"), &w1), 16 + 10);
    assert_int_equal(lg_charge_admit_as(LG_DIALECT_OPENAI, &e, lg_model_hash("other"), &w1), 30 + 10);
}

/* Admission with the accounts of pools x and y (y pinned) on slots of the test's own: idx of the account
 * admitted. */
static size_t admitted_with_pools(size_t n, const char *pinned)
{
    lg_config *cfg = lg_config_defaults();
    assert_non_null(cfg);
    lg_account accts[2];
    memset(accts, 0, sizeof accts);
    snprintf(accts[0].pool, sizeof accts[0].pool, "x");
    snprintf(accts[1].pool, sizeof accts[1].pool, "y");
    lg_account_slot own[2], *ptrs[2] = {&own[0], &own[1]};
    memset(own, 0, sizeof own);
    lg_provider_slot prov;
    memset(&prov, 0, sizeof prov);
    lg_slots sl = {.prov = &prov, .accounts = ptrs, .owner = &prov};
    static lg_account_ref refs[2] = {{"a", ""}, {"b", ""}};
    lg_estimate e = {.text = 1, .envelope = 1, .output = 1};
    lg_store_scope sc = {.provider = "p", .refs = refs, .n = n, .accounts = accts, .dialect = LG_DIALECT_OPENAI,
                         .est = &e, .limits = {.window_ms = 60000}, .pool = pinned, .backoff = &cfg->backoff,
                         .retry = &cfg->retry};
    lg_store_ticket t;
    memset(&t, 0, sizeof t);
    lg_admission ad = lg_slots_admit(&sl, &sc, &t, LG_PREFER_CURRENT, T0, T0 + 1000, NULL);
    assert_true(ad.reserved);
    lg_config_free(cfg);
    return ad.idx;
}

/* One account goes even when pinned to a pool it is not in (as the filter says: no account of the pool,
 * all usable); with two, the pin chooses the pool's account. */
static void one_account_skips_the_pool_filter(void **state)
{
    (void)state;
    assert_int_equal(admitted_with_pools(1, "y"), 0);
    assert_int_equal(admitted_with_pools(2, "y"), 1);
    assert_int_equal(admitted_with_pools(2, "x"), 0);
    assert_int_equal(admitted_with_pools(2, "z"), 0); /* no account of the pool: all usable */
}

/* Requests counted as admitted at once on the account with this name and digest ("": any digest). */
struct seen {
    const char *name, *digest;
    uint64_t immediate;
};
static void seen_cb(const char *provider, const char *account, const char *digest, const lg_account_slot *slot,
                    void *ctx)
{
    struct seen *q = ctx;
    if (!strcmp(account, q->name) && (!q->digest[0] || !strcmp(digest, q->digest)))
        q->immediate += slot->counters.immediate;
}
static uint64_t immediate_on(fixture *f, const char *name, const char *digest)
{
    struct seen q = {.name = name, .digest = digest};
    assert_int_equal(lg_store_visit(f->store, seen_cb, &q), 0);
    return q.immediate;
}

/* One exchange of req, counted as admitted at once; whether it started from the thread's last memo. */
static bool exchange_once(lg_accounts *a, const lg_gate_request *req, int64_t now)
{
    assert_true(lg_accounts_init(a, req));
    bool recalled = a->memo.map != NULL;
    lg_admit_opts opts = {.count = true, .ev = LG_EV_IMMEDIATE};
    assert_true(lg_accounts_admit(a, LG_PREFER_CURRENT, now, now + 1000, &opts).reserved);
    lg_accounts_release(a);
    lg_accounts_free(a);
    return recalled;
}

/* The store's memo of the thread's last exchange serves the next one of the same config, provider and
 * keys; not another config in the same memory (a config freed and another parsed where it was: another
 * generation), nor the same keyless account under another host key (another digest). */
static void memo_follows_config_and_key(void **state)
{
    fixture *f = *state;
    fixture_config(f, "{\"providers\": {\"openai\": {\"accounts\": [{\"name\": \"a\", \"key\": \"sk-unit-a-123\"}]}, "
                      "\"anthropic\": {\"accounts\": [{\"name\": \"h\", \"key\": \"host\"}]}}}");
    assert_non_null(fixture_store(f));
    char body[256];
    lg_gate_request req = request_of(f, "gpt-4o", body, sizeof body);
    lg_accounts a;
    memset(&a, 0, sizeof a);
    exchange_once(&a, &req, T0);
    assert_true(exchange_once(&a, &req, T0 + 1)); /* the same accounts: recalled */
    assert_int_equal(immediate_on(f, "a", ""), 2);

    /* Another config where this one was: its provider, generation and accounts in the same memory (the same
     * key, another account name: only the generation tells). */
    lg_errors errs = {0};
    const char *json2 = "{\"providers\": {\"openai\": {\"accounts\": [{\"name\": \"b\", \"key\": \"sk-unit-a-123\"}]}}}";
    lg_config *cfg2 = lg_config_parse(json2, strlen(json2), "test", false, &errs);
    assert_non_null(cfg2);
    lg_provider *prov = (lg_provider *)req.prov, saved = *prov;
    uint64_t generation = f->cfg->generation;
    assert_true(cfg2->generation != generation);
    *prov = cfg2->providers[0];
    f->cfg->generation = cfg2->generation;
    assert_false(exchange_once(&a, &req, T0 + 2));
    assert_int_equal(immediate_on(f, "b", ""), 1);
    assert_int_equal(immediate_on(f, "a", ""), 2);
    *prov = saved;
    f->cfg->generation = generation;
    lg_config_free(cfg2);

    /* A keyless account: the host's key decides its entry. */
    lg_gate_request host = req;
    host.prov = fixture_provider(f, "anthropic");
    char d1[LG_DIGEST_HEX], d2[LG_DIGEST_HEX];
    lg_key_digest("sk-host-one", d1);
    lg_key_digest("sk-host-two", d2);
    host.host_key = "sk-host-one";
    exchange_once(&a, &host, T0 + 3);
    assert_true(exchange_once(&a, &host, T0 + 4));
    host.host_key = "sk-host-two";
    assert_false(exchange_once(&a, &host, T0 + 5));
    assert_int_equal(immediate_on(f, "h", d1), 2);
    assert_int_equal(immediate_on(f, "h", d2), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(model_hash_follows_the_request, setup, fixture_teardown),
        cmocka_unit_test(unset_model_hash_is_hashed),
        cmocka_unit_test(one_account_skips_the_pool_filter),
        cmocka_unit_test_setup_teardown(memo_follows_config_and_key, setup, fixture_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
