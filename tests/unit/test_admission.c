/* Unit tests of admission through the gate (src/gate/gate.c, accounts.c) with a real shared store and a
 * fake transport: plain host rules paced and refused (lg_gate_admit), the window reconciled with the real
 * usage, a refused attempt leaving the window, limits learned from headers, capacity choosing the account. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "llmgate/clock.h"
#include "llmgate/gate.h"
#include "llmgate/store.h"
#include "gate/accounts.h"
#include "store_fixture.h"

static int setup(void **state)
{
    return fixture_setup(state, "admission") == 0 && fixture_store(*state) ? 0 : -1;
}

static int teardown(void **state) { return fixture_teardown(state); }


/* Reads one account's slot. */
struct find {
    const char *provider, *account;
    lg_account_slot slot;
    int found;
};

static void find_cb(const char *provider, const char *account, const char *digest, const lg_account_slot *slot,
                    void *ctx)
{
    struct find *q = ctx;
    if (!strcmp(provider, q->provider) && !strcmp(account, q->account)) {
        q->slot = *slot;
        q->found++;
    }
}

static lg_account_slot *slot_of(fixture *f, const char *provider, const char *account)
{
    static struct find q;
    memset(&q, 0, sizeof q);
    q.provider = provider;
    q.account = account;
    assert_int_equal(lg_store_visit(f->store, find_cb, &q), 0);
    assert_int_equal(q.found, 1);
    return &q.slot;
}

static void plain_host_rule_is_paced(void **state)
{
    fixture *f = *state;
    lg_config *c = fixture_config(f, "{\"providers\": {\"hook\": {\"hosts\": [\"hooks.example\"], "
                             "\"limits\": {\"rpm\": 2, \"window_ms\": 300}}}, "
                             "\"retry\": {\"max_rate_limit_wait_seconds\": 5}}");
    const lg_provider *p = fixture_provider(f, "hook");
    assert_int_equal(p->dialect, LG_DIALECT_NONE);
    lg_gate_request req = {.cfg = c, .prov = p, .store = f->store, .body = "{\"text\":\"deploy done\"}", .body_len = 22};
    lg_gate_result res;
    int64_t t0 = lg_mono_ms();
    assert_true(lg_gate_admit(&req, &res));
    assert_true(lg_gate_admit(&req, &res));
    assert_true(lg_mono_ms() - t0 < 150);
    assert_true(lg_gate_admit(&req, &res)); /* the third waits for the window */
    assert_true(lg_mono_ms() - t0 >= 280);
    lg_account_slot *s = slot_of(f, "hook", "host");
    assert_int_equal(s->counters.requests, 3);
    assert_int_equal(s->counters.immediate, 2);
    assert_int_equal(s->counters.waited, 1);
    int64_t used;
    lg_window_usage(&s->window, lg_now_ms(), &used, NULL, NULL);
    assert_true(used >= 1);
}

static void plain_host_rule_refused_past_the_maximum(void **state)
{
    fixture *f = *state;
    lg_config *c = fixture_config(f, "{\"providers\": {\"hook\": {\"hosts\": [\"hooks.example\"], "
                             "\"limits\": {\"rpm\": 1, \"window_ms\": 60000}}}, "
                             "\"retry\": {\"max_rate_limit_wait_seconds\": 0.2}}");
    lg_gate_request req = {.cfg = c, .prov = fixture_provider(f, "hook"), .store = f->store};
    lg_gate_result res;
    assert_true(lg_gate_admit(&req, &res));
    int64_t t0 = lg_mono_ms();
    assert_false(lg_gate_admit(&req, &res));
    assert_true(lg_mono_ms() - t0 < 150);
    assert_int_equal(res.verdict, LG_GATE_REFUSED);
    assert_int_equal(res.status, 429);
    assert_true(res.retry_after_ms > 55000 && res.retry_after_ms < 63000);
    assert_int_equal(slot_of(f, "hook", "host")->counters.given_up, 1);
}

/* The fake provider: one canned response per attempt. */
typedef struct {
    int status[4]; /* < 0: the attempt fails in the transport, as -status (lg_transport_failure) says */
    const lg_header *headers;
    size_t n_headers;
    const char *body[4];
    const char *keys[4];
    int calls;
} fake;

static int fake_attempt(void *ctx, const lg_attempt *at, lg_response_view *resp)
{
    fake *x = ctx;
    int i = x->calls++;
    x->keys[i] = at->key;
    if (x->status[i] < 0)
        return -x->status[i];
    resp->status = x->status[i];
    resp->headers = x->headers;
    resp->n_headers = x->n_headers;
    resp->body = x->body[i];
    resp->body_len = strlen(x->body[i]);
    return 0;
}

#define OK_BODY "{\"id\":\"x\",\"choices\":[],\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":5,\"total_tokens\":12}}"
#define LIMITED_BODY "{\"error\":{\"message\":\"Rate limit reached\",\"type\":\"requests\",\"code\":\"rate_limit_exceeded\"}}"

static const char *openai_config(void)
{
    return "{\"providers\": {\"openai\": {\"limits\": {\"tpm\": 100000, \"window_ms\": 60000}, "
           "\"accounts\": [{\"name\": \"a\", \"key\": \"sk-unit-a-123\"}, {\"name\": \"b\", \"key\": \"sk-unit-b-456\"}]}}, "
           "\"retry\": {\"switch_delay_ms\": 1, \"max_rate_limit_wait_seconds\": 5}}";
}

static void window_holds_real_usage_and_learned_limits(void **state)
{
    fixture *f = *state;
    lg_config *c = fixture_config(f, openai_config());
    const char *body = "{\"model\":\"gpt-4o\",\"max_tokens\":500,\"messages\":[]}";
    lg_gate_request req = {.cfg = c, .prov = fixture_provider(f, "openai"), .store = f->store, .replayable = true,
                           .body = body, .body_len = strlen(body)};
    lg_header h[] = {{"x-ratelimit-limit-requests", "77"}, {"x-ratelimit-remaining-requests", "76"},
                     {"x-ratelimit-reset-requests", "1s"}};
    fake x = {.status = {200}, .headers = h, .n_headers = 3, .body = {OK_BODY}};
    lg_transport t = {.attempt = fake_attempt};
    lg_gate_result res = lg_gate_run(&req, &t, &x);
    assert_int_equal(res.verdict, LG_GATE_DELIVER);
    lg_account_slot *s = slot_of(f, "openai", "a");
    int64_t used, tokens;
    lg_window_usage(&s->window, lg_now_ms(), &used, &tokens, NULL);
    assert_int_equal(used, 1);
    /* OpenAI counts the named max_tokens at admission and never refunds it: the real prompt (7) + 500,
     * not the usage (12) */
    assert_int_equal(tokens, 7 + 500);
    assert_int_equal(s->window.learned_limit[0], 77);
    fake y = {.status = {200}, .headers = h, .n_headers = 3, .body = {OK_BODY}};
    lg_gate_run(&req, &t, &y);
    s = slot_of(f, "openai", "a");
    assert_int_equal(s->window.limit[0], 77); /* no configured rpm: the learned one is enforced */
    assert_int_equal(s->window.limit[1], 100000);
}

/* OpenAI says unsuccessful requests count against the per-minute limit: a refused attempt keeps its request
 * but not its tokens. */
static void refused_attempt_keeps_only_its_request_on_openai(void **state)
{
    fixture *f = *state;
    lg_config *c = fixture_config(f, openai_config());
    const char *body = "{\"max_tokens\":10}";
    lg_gate_request req = {.cfg = c, .prov = fixture_provider(f, "openai"), .store = f->store, .replayable = true,
                           .body = body, .body_len = strlen(body)};
    fake x = {.status = {429, 200}, .body = {LIMITED_BODY, OK_BODY}};
    lg_transport t = {.attempt = fake_attempt};
    lg_gate_result res = lg_gate_run(&req, &t, &x);
    assert_int_equal(res.status, 200);
    assert_int_equal(x.calls, 2);
    assert_string_equal(x.keys[0], "sk-unit-a-123");
    assert_string_equal(x.keys[1], "sk-unit-b-456");
    int64_t used_a, tok_a, used_b, tok_b;
    lg_window_usage(&slot_of(f, "openai", "a")->window, lg_now_ms(), &used_a, &tok_a, NULL);
    lg_window_usage(&slot_of(f, "openai", "b")->window, lg_now_ms(), &used_b, &tok_b, NULL);
    assert_int_equal(used_a, 1);
    assert_int_equal(tok_a, 0);
    assert_int_equal(used_b, 1);
    assert_int_equal(tok_b, 7 + 10);
}

#define ANT_OK "{\"type\":\"message\",\"content\":[],\"usage\":{\"input_tokens\":7,\"output_tokens\":5}}"
#define ANT_LIMITED "{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"slow down\"}}"

/* Anthropic counts input at admission adjusted to the real count and output as produced (max_tokens does not
 * count): the window holds the usage; a refused attempt leaves it altogether. */
static void anthropic_window_holds_the_usage_and_refusals_leave(void **state)
{
    fixture *f = *state;
    lg_config *c = fixture_config(f, "{\"providers\": {\"anthropic\": {\"limits\": {\"tpm\": 100000, \"window_ms\": 60000}, "
                             "\"accounts\": [{\"name\": \"a\", \"key\": \"sk-ant-unit-a\"}, "
                             "{\"name\": \"b\", \"key\": \"sk-ant-unit-b\"}]}}, "
                             "\"retry\": {\"switch_delay_ms\": 1, \"max_rate_limit_wait_seconds\": 5}}");
    const char *body = "{\"model\":\"claude-x\",\"max_tokens\":500,\"messages\":[]}";
    lg_gate_request req = {.cfg = c, .prov = fixture_provider(f, "anthropic"), .store = f->store, .replayable = true,
                           .body = body, .body_len = strlen(body)};
    fake x = {.status = {429, 200}, .body = {ANT_LIMITED, ANT_OK}};
    lg_transport t = {.attempt = fake_attempt};
    lg_gate_result res = lg_gate_run(&req, &t, &x);
    assert_int_equal(res.status, 200);
    assert_int_equal(x.calls, 2);
    int64_t used_a, tok_a, used_b, tok_b;
    lg_window_usage(&slot_of(f, "anthropic", "a")->window, lg_now_ms(), &used_a, &tok_a, NULL);
    lg_window_usage(&slot_of(f, "anthropic", "b")->window, lg_now_ms(), &used_b, &tok_b, NULL);
    assert_int_equal(used_a, 0);
    assert_int_equal(tok_a, 0);
    assert_int_equal(used_b, 1);
    assert_int_equal(tok_b, 12);
}

/* The usage calibrates the prompt estimate of the model on every account of the provider: the next
 * request of that model is charged its text times the ratio, not its whole body. */
static void usage_calibrates_the_next_estimate(void **state)
{
    fixture *f = *state;
    lg_config *c = fixture_config(f, openai_config());
    /* text: 3 + "0123456789abcdef" (16 bytes: 4 + 1) = 8; the envelope is about 23 */
    const char *body = "{\"model\":\"gpt-4o\",\"max_tokens\":10,\"messages\":[{\"role\":\"user\",\"content\":\"0123456789abcdef\"}]}";
    lg_gate_request req = {.cfg = c, .prov = fixture_provider(f, "openai"), .store = f->store, .replayable = true,
                           .body = body, .body_len = strlen(body)};
    lg_transport t = {.attempt = fake_attempt};
    lg_accounts a;
    assert_true(lg_accounts_init(&a, &req));
    assert_int_equal(a.tokens, (int64_t)(strlen(body) + 3) / 4 + 10); /* no usage seen yet: the envelope */
    fake x = {.status = {200}, .body = {"{\"usage\":{\"prompt_tokens\":16,\"completion_tokens\":3}}"}};
    lg_gate_run(&req, &t, &x);
    lg_admission ad = lg_accounts_admit(&a, LG_PREFER_CURRENT, lg_now_ms(), lg_now_ms() + 1000, NULL);
    assert_true(ad.reserved);
    assert_int_equal(a.tokens, 16 + 10); /* 8 x (16 / 8) + 10 */
    for (const char *acct = "a"; acct; acct = *acct == 'a' ? "b" : NULL)
        assert_int_equal(slot_of(f, "openai", acct)->window.calib[0].ratio_milli, 2000);
    lg_accounts_release(&a);
    lg_accounts_free(&a);
}

static void full_key_hands_over_to_one_with_room(void **state)
{
    fixture *f = *state;
    lg_config *c = fixture_config(f, "{\"providers\": {\"openai\": {\"limits\": {\"rpm\": 1, \"window_ms\": 60000}, "
                             "\"accounts\": [{\"name\": \"a\", \"key\": \"sk-unit-a-123\"}, "
                             "{\"name\": \"b\", \"key\": \"sk-unit-b-456\"}]}}, "
                             "\"retry\": {\"max_rate_limit_wait_seconds\": 0.5}}");
    lg_gate_request req = {.cfg = c, .prov = fixture_provider(f, "openai"), .store = f->store, .replayable = true};
    lg_transport t = {.attempt = fake_attempt};
    const char *keys[3];
    int64_t t0 = lg_mono_ms();
    for (int i = 0; i < 3; i++) {
        fake x = {.status = {200}, .body = {OK_BODY}};
        lg_gate_result res = lg_gate_run(&req, &t, &x);
        keys[i] = x.calls ? x.keys[0] : NULL;
        if (i < 2)
            assert_int_equal(res.verdict, LG_GATE_DELIVER);
        else
            assert_int_equal(res.verdict, LG_GATE_REFUSED); /* both full for a minute */
    }
    assert_true(lg_mono_ms() - t0 < 300);
    assert_string_equal(keys[0], "sk-unit-a-123");
    assert_string_equal(keys[1], "sk-unit-b-456");
    assert_null(keys[2]);
}

static void prov_cb(const char *provider, const lg_provider_slot *slot, void *ctx)
{
    if (!strcmp(provider, "openai"))
        *(lg_provider_slot *)ctx = *slot;
}

/* The provider's slot: the requests its retry budget counted, the outcomes its breaker was told. */
static void provider_counts(fixture *f, uint32_t *budget, uint32_t *told, uint32_t *failed)
{
    lg_provider_slot p;
    memset(&p, 0, sizeof p);
    assert_int_equal(lg_store_visit_providers(f->store, prov_cb, &p), 0);
    *budget = *told = *failed = 0;
    for (int i = 0; i < LG_BUDGET_BUCKETS; i++)
        *budget += p.budget.requests[i];
    for (int i = 0; i < LG_BREAKER_BUCKETS; i++) {
        *told += p.breaker.total[i];
        *failed += p.breaker.failed[i];
    }
}

/* The folded steps through the engine: a request counts once toward the retry budget however many
 * attempts it takes, the breaker hears of every answer but rate limits, the first admission is counted. */
static void a_request_counts_once_toward_budget_and_breaker(void **state)
{
    fixture *f = *state;
    lg_config *c = fixture_config(f, openai_config());
    lg_gate_request req = {.cfg = c, .prov = fixture_provider(f, "openai"), .store = f->store, .replayable = true};
    lg_transport t = {.attempt = fake_attempt};
    fake x = {.status = {429, 200}, .body = {LIMITED_BODY, OK_BODY}};
    lg_gate_result res = lg_gate_run(&req, &t, &x);
    assert_int_equal(res.status, 200);
    assert_int_equal(x.calls, 2);
    uint32_t budget, told, failed;
    provider_counts(f, &budget, &told, &failed);
    assert_int_equal(budget, 1);
    assert_int_equal(told, 1); /* the 200; the 429 is the limiter's */
    assert_int_equal(failed, 0);
    assert_int_equal(slot_of(f, "openai", "a")->counters.immediate, 1);
    assert_int_equal(slot_of(f, "openai", "a")->counters.requests, 1);
    assert_int_equal(slot_of(f, "openai", "b")->counters.requests, 1);

    fake y = {.status = {503}, .body = {"{\"error\":{\"message\":\"overloaded\",\"type\":\"server_error\"}}"}};
    res = lg_gate_run(&req, &t, &y);
    assert_int_equal(res.status, 503);
    provider_counts(f, &budget, &told, &failed);
    assert_int_equal(budget, 2);
    assert_int_equal(told, 1 + y.calls);
    assert_int_equal(failed, 1);
}

/* Transport failures in the same step: a stale kept-alive connection (sent again at once) says nothing of
 * the provider to its breaker; a transport that fails for good is a failure. */
static void transport_failures_and_the_breaker(void **state)
{
    fixture *f = *state;
    lg_config *c = fixture_config(f, openai_config());
    lg_gate_request req = {.cfg = c, .prov = fixture_provider(f, "openai"), .store = f->store, .replayable = true};
    lg_transport t = {.attempt = fake_attempt};
    fake z = {.status = {-LG_ATTEMPT_STALE, 200}, .body = {"", OK_BODY}};
    lg_gate_result res = lg_gate_run(&req, &t, &z);
    assert_int_equal(res.status, 200);
    assert_int_equal(z.calls, 2);
    assert_string_equal(z.keys[1], z.keys[0]); /* the same account, at once */
    uint32_t budget, told, failed;
    provider_counts(f, &budget, &told, &failed);
    assert_int_equal(budget, 1);
    assert_int_equal(told, 1);
    assert_int_equal(failed, 0);
    fake w = {.status = {-LG_ATTEMPT_FATAL}, .body = {""}};
    res = lg_gate_run(&req, &t, &w);
    assert_int_equal(res.verdict, LG_GATE_TRANSPORT);
    provider_counts(f, &budget, &told, &failed);
    assert_int_equal(budget, 2);
    assert_int_equal(told, 2);
    assert_int_equal(failed, 1);
}

/* A provider with more accounts than lg_accounts holds inline: its references are allocated (and freed:
 * the sanitizer's leak check), and the request goes out on its current account. */
static void many_accounts_are_allocated(void **state)
{
    fixture *f = *state;
    lg_config *c = fixture_config(f, "{\"providers\": {\"openai\": {\"accounts\": [{\"name\": \"a1\", \"key\": \"sk-unit-1\"}, "
                             "{\"name\": \"a2\", \"key\": \"sk-unit-2\"}, {\"name\": \"a3\", \"key\": \"sk-unit-3\"}, "
                             "{\"name\": \"a4\", \"key\": \"sk-unit-4\"}, {\"name\": \"a5\", \"key\": \"sk-unit-5\"}, "
                             "{\"name\": \"a6\", \"key\": \"sk-unit-6\"}]}}}");
    lg_gate_request req = {.cfg = c, .prov = fixture_provider(f, "openai"), .store = f->store, .replayable = true};
    assert_true(req.prov->n_accounts > LG_ACCOUNTS_INLINE);
    lg_transport t = {.attempt = fake_attempt};
    fake x = {.status = {429, 200}, .body = {LIMITED_BODY, OK_BODY}};
    lg_gate_result res = lg_gate_run(&req, &t, &x);
    assert_int_equal(res.status, 200);
    assert_string_equal(x.keys[0], "sk-unit-1");
    assert_string_equal(x.keys[1], "sk-unit-2");
    assert_int_equal(slot_of(f, "openai", "a6")->counters.requests, 0);
}

/* A host that gives its request up on the n-th time it is asked (a progress callback asking to abort). */
typedef struct {
    int asked, abort_at;
} quitter;

static bool quits(void *ctx)
{
    quitter *q = ctx;
    return ++q->asked >= q->abort_at;
}

/* A backoff of 3 s (the server's hint, one account) asks the host every LG_GATE_ASK_MS: the exchange ends at
 * the second asking, nothing more sent, with LG_GATE_WITHDRAWN; the host's next request still waits for the
 * account's cooldown (nothing was recorded of the withdrawn one). */
static void host_gives_up_during_a_backoff(void **state)
{
    fixture *f = *state;
    lg_config *c = fixture_config(f, "{\"providers\": {\"openai\": {\"accounts\": [{\"name\": \"a\", \"key\": \"sk-unit-a-123\"}]}}, "
                             "\"retry\": {\"max_rate_limit_wait_seconds\": 30}}");
    static const lg_header hint[] = {{"retry-after", "3"}};
    quitter q = {.abort_at = 2};
    lg_gate_request req = {.cfg = c, .prov = fixture_provider(f, "openai"), .store = f->store, .replayable = true,
                           .withdrawn = quits, .withdrawn_ctx = &q};
    fake x = {.status = {429, 200}, .headers = hint, .n_headers = 1, .body = {LIMITED_BODY, OK_BODY}};
    lg_transport t = {.attempt = fake_attempt};
    int64_t t0 = lg_mono_ms();
    lg_gate_result res = lg_gate_run(&req, &t, &x);
    int64_t ms = lg_mono_ms() - t0;
    assert_int_equal(res.verdict, LG_GATE_WITHDRAWN);
    assert_int_equal(x.calls, 1);
    assert_int_equal(q.asked, 2);
    assert_true(ms >= 2 * LG_GATE_ASK_MS - 50 && ms < 2 * LG_GATE_ASK_MS + 400);
    assert_int_equal(slot_of(f, "openai", "a")->counters.given_up, 0);
    /* a host that never gives up is asked all along and served after the hint */
    quitter patient = {.abort_at = 1000};
    req.withdrawn_ctx = &patient;
    fake y = {.status = {200}, .body = {OK_BODY}};
    t0 = lg_mono_ms();
    res = lg_gate_run(&req, &t, &y);
    assert_int_equal(res.status, 200);
    assert_true(lg_mono_ms() - t0 >= 2000);
    assert_true(patient.asked >= 3);
}

/* A plain host rule waiting for its window asks the host the same way; admission withdrawn is refused. */
static void host_gives_up_waiting_for_the_limiter(void **state)
{
    fixture *f = *state;
    lg_config *c = fixture_config(f, "{\"providers\": {\"hook\": {\"hosts\": [\"hooks.example\"], "
                             "\"limits\": {\"rpm\": 1, \"window_ms\": 4000}}}, "
                             "\"retry\": {\"max_rate_limit_wait_seconds\": 10}}");
    quitter q = {.abort_at = 1};
    lg_gate_request req = {.cfg = c, .prov = fixture_provider(f, "hook"), .store = f->store,
                           .withdrawn = quits, .withdrawn_ctx = &q};
    lg_gate_result res;
    assert_true(lg_gate_admit(&req, &res));
    assert_int_equal(q.asked, 0);
    int64_t t0 = lg_mono_ms();
    assert_false(lg_gate_admit(&req, &res));
    assert_true(lg_mono_ms() - t0 < LG_GATE_ASK_MS + 300);
    assert_int_equal(res.verdict, LG_GATE_WITHDRAWN);
    assert_int_equal(q.asked, 1);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(plain_host_rule_is_paced),
        T(plain_host_rule_refused_past_the_maximum),
        T(window_holds_real_usage_and_learned_limits),
        T(refused_attempt_keeps_only_its_request_on_openai),
        T(anthropic_window_holds_the_usage_and_refusals_leave),
        T(usage_calibrates_the_next_estimate),
        T(full_key_hands_over_to_one_with_room),
        T(a_request_counts_once_toward_budget_and_breaker),
        T(transport_failures_and_the_breaker),
        T(many_accounts_are_allocated),
        T(host_gives_up_during_a_backoff),
        T(host_gives_up_waiting_for_the_limiter),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
