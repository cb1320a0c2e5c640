/* Unit tests of the exchange engine's state machine (src/gate/exchange.c) on a fake clock: every path of
 * the old attempt loop, step by step. Without a store each exchange has process-local account slots; the
 * paths that involve several exchanges (a refusal before the first attempt, a quota lock seen by the next
 * request, a reservation given back) use a shared store in a temporary directory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cmocka.h>

#include "llmgate/engine.h"
#include "llmgate/log.h"
#include "llmgate/store.h"
#include "store_fixture.h"

#define T0 1800000000000LL /* the fake clock's start, wall-clock ms */
#define OK_BODY "{\"id\":\"x\",\"choices\":[{\"message\":{\"content\":\"hi\"}}],\"usage\":{\"total_tokens\":5}}"
/* A per-day quota, locked by the quota steps (60 s first); not an account out of credit, which is set aside
 * for backoff.billing_ms (test_billing). */
#define QUOTA_BODY "{\"error\":{\"message\":\"Rate limit reached for gpt-4o-mini on requests per day (RPD): Limit 200, Used 200, Requested 1.\",\"type\":\"requests\",\"code\":\"rate_limit_exceeded\"}}"
#define RATE_BODY "{\"error\":{\"message\":\"Rate limit reached\",\"type\":\"requests\",\"code\":\"rate_limit_exceeded\"}}"
#define SERVER_BODY "{\"error\":{\"message\":\"The server had an error\",\"type\":\"server_error\"}}"

static int setup(void **state) { return fixture_setup(state, "exchange"); }

static int teardown(void **state) { return fixture_teardown(state); }

static lg_store *store(fixture *f)
{
    assert_non_null(fixture_store(f));
    return f->store;
}

/* The openai provider with accounts a (key sk-a) and b (sk-b), or only a when one, and `extra` config. */
static const lg_provider *openai(fixture *f, bool one, const char *limits, const char *extra)
{
    char json[1024];
    snprintf(json, sizeof json,
             "{\"providers\": {\"openai\": {\"accounts\": [{\"name\": \"a\", \"key\": \"sk-a\"}%s]%s%s}}%s%s}",
             one ? "" : ", {\"name\": \"b\", \"key\": \"sk-b\"}", limits ? ", \"limits\": " : "", limits ? limits : "",
             extra ? ", " : "", extra ? extra : "");
    fixture_config(f, json);
    return fixture_provider(f, "openai");
}

static lg_gate_request request(fixture *f, const lg_provider *p)
{
    return (lg_gate_request){.cfg = f->cfg, .prov = p, .store = f->store, .host_key = "sk-host", .replayable = true,
                             .body = "{\"model\":\"gpt-4o\",\"max_tokens\":16}", .body_len = 34};
}

/* Feeds a response of status/body (with an optional Retry-After in seconds) to x. */
static void respond(lg_exchange *x, int status, const char *body, const char *retry_after, int64_t now, lg_step *s)
{
    lg_header h[2] = {{"content-type", "application/json"}, {"retry-after", retry_after}};
    lg_response_view v = {.status = status, .headers = h, .n_headers = retry_after ? 2 : 1, .body = body,
                          .body_len = strlen(body)};
    lg_exchange_on_response(x, &v, now, s);
}

static void assert_send(const lg_step *s, size_t account, const char *key, bool resend)
{
    assert_int_equal(s->kind, LG_STEP_SEND);
    assert_int_equal(s->account, account);
    assert_string_equal(s->key, key);
    assert_int_equal(s->resend, resend);
}

static void immediate_admission_and_success(void **state)
{
    fixture *f = *state;
    lg_gate_request req = request(f, openai(f, false, NULL, NULL));
    lg_step s;
    lg_exchange *x = lg_exchange_begin(&req, T0, &s);
    assert_non_null(x);
    assert_send(&s, 0, "sk-a", false);
    respond(x, 200, OK_BODY, NULL, T0 + 50, &s);
    assert_int_equal(s.kind, LG_STEP_DONE);
    assert_int_equal(s.result.verdict, LG_GATE_DELIVER);
    assert_int_equal(s.result.status, 200);
    assert_int_equal(s.result.outcome.state, LG_STATE_SUCCESS);
    assert_false(s.result.normalized);
    assert_int_equal(s.result.attempts, 1);
    lg_exchange_free(x);
}

/* A full window makes the retry wait for admission; a timer that fires early gets the same WAIT back. */
static void waiting_admission_and_early_timer(void **state)
{
    fixture *f = *state;
    lg_gate_request req = request(f, openai(f, true, "{\"rpm\": 1, \"window_ms\": 1000}",
                                            "\"backoff\": {\"single_account_base_ms\": 100, \"single_account_max_ms\": 100}"));
    lg_step s;
    lg_exchange *x = lg_exchange_begin(&req, T0, &s);
    assert_send(&s, 0, "sk-a", false);
    respond(x, 500, SERVER_BODY, NULL, T0 + 10, &s);
    assert_int_equal(s.kind, LG_STEP_WAIT); /* the backoff */
    assert_int_equal(s.at_ms, T0 + 110);
    lg_exchange_on_timer(x, T0 + 110, &s);
    assert_int_equal(s.kind, LG_STEP_WAIT); /* now admission: the one request of the window is spent */
    int64_t at = s.at_ms;
    assert_true(at >= T0 + 1000 && at <= T0 + 1100);
    lg_exchange_on_timer(x, at - 1, &s);
    assert_int_equal(s.kind, LG_STEP_WAIT);
    assert_int_equal(s.at_ms, at);
    lg_exchange_on_timer(x, at, &s);
    assert_send(&s, 0, "sk-a", true);
    respond(x, 200, OK_BODY, NULL, at + 20, &s);
    assert_int_equal(s.kind, LG_STEP_DONE);
    assert_int_equal(s.result.status, 200);
    assert_int_equal(s.result.attempts, 2);
    lg_exchange_free(x);
}

/* A dead key (quota) rotates at once to the next; the lock is in the shared state, so the next request
 * starts on the live key; when every key is locked past the deadline, a new request is refused locally. */
static void rotation_quota_lock_and_refusal(void **state)
{
    fixture *f = *state;
    store(f);
    lg_gate_request req = request(f, openai(f, false, NULL, "\"retry\": {\"max_rate_limit_wait_seconds\": 5}"));
    lg_step s;
    lg_exchange *x = lg_exchange_begin(&req, T0, &s);
    assert_send(&s, 0, "sk-a", false);
    respond(x, 429, QUOTA_BODY, NULL, T0 + 10, &s);
    assert_send(&s, 1, "sk-b", true);
    respond(x, 200, OK_BODY, NULL, T0 + 20, &s);
    assert_int_equal(s.kind, LG_STEP_DONE);
    assert_int_equal(s.result.account, 1);
    assert_int_equal(s.result.attempts, 2);
    lg_exchange_free(x);

    lg_exchange *y = lg_exchange_begin(&req, T0 + 1000, &s); /* a locked for 60 s: starts on b */
    assert_send(&s, 1, "sk-b", false);
    respond(y, 429, QUOTA_BODY, NULL, T0 + 1010, &s); /* b dies too: nothing can go within 5 s */
    assert_int_equal(s.kind, LG_STEP_DONE);
    assert_int_equal(s.result.verdict, LG_GATE_DELIVER);
    assert_true(s.result.normalized);
    assert_int_equal(s.result.status, 429);
    assert_int_equal(s.result.outcome.reason, LG_REASON_QUOTA_EXHAUSTED);
    assert_true(s.result.retry_after_ms > 55000 && s.result.retry_after_ms <= 60000);
    lg_exchange_free(y);

    lg_exchange *z = lg_exchange_begin(&req, T0 + 2000, &s);
    assert_int_equal(s.kind, LG_STEP_DONE); /* refused before any attempt */
    assert_int_equal(s.result.verdict, LG_GATE_REFUSED);
    assert_int_equal(s.result.status, 429);
    assert_int_equal(s.result.attempts, 0);
    assert_true(s.result.normalized);
    assert_true(s.result.retry_after_ms > 55000 && s.result.retry_after_ms <= 60000);
    lg_exchange_free(z);
}

/* Server errors retry the same key max_server_retries times with backoff (its cooldown is shorter than the
 * backoff here), then switch. */
static void server_errors_then_switch(void **state)
{
    fixture *f = *state;
    lg_gate_request req = request(f, openai(f, false, NULL,
                                            "\"retry\": {\"max_server_retries\": 2, \"switch_delay_ms\": 30}, "
                                            "\"backoff\": {\"single_account_base_ms\": 100, \"single_account_max_ms\": 400, "
                                            "\"server_error_ms\": 50}"));
    lg_step s;
    int64_t now = T0;
    lg_exchange *x = lg_exchange_begin(&req, now, &s);
    for (int i = 0; i < 2; i++) {
        assert_send(&s, 0, "sk-a", i > 0);
        respond(x, 500, SERVER_BODY, NULL, now, &s);
        assert_int_equal(s.kind, LG_STEP_WAIT);
        assert_true(s.at_ms > now);
        now = s.at_ms;
        lg_exchange_on_timer(x, now, &s);
    }
    assert_send(&s, 0, "sk-a", true);
    respond(x, 500, SERVER_BODY, NULL, now, &s);
    assert_int_equal(s.kind, LG_STEP_WAIT);
    assert_int_equal(s.at_ms, now + 30); /* switch_delay_ms */
    lg_exchange_on_timer(x, s.at_ms, &s);
    assert_send(&s, 1, "sk-b", true);
    respond(x, 200, OK_BODY, NULL, now + 40, &s);
    assert_int_equal(s.kind, LG_STEP_DONE);
    assert_int_equal(s.result.attempts, 4);
    assert_int_equal(s.result.account, 1);
    lg_exchange_free(x);
}

/* A reset connection is retried on the same key after a growing backoff, a bounded number of times; then
 * the host sees the transport's own error. A timeout is shown at once. */
static void transport_retry_backoff_and_give_up(void **state)
{
    fixture *f = *state;
    lg_gate_request req = request(f, openai(f, false, NULL,
                                            "\"retry\": {\"max_server_retries\": 2}, "
                                            "\"backoff\": {\"single_account_base_ms\": 100, \"single_account_max_ms\": 400}"));
    lg_step s;
    int64_t now = T0, last_delay = 0;
    lg_exchange *x = lg_exchange_begin(&req, now, &s);
    for (int i = 0; i < 2; i++) {
        assert_send(&s, 0, "sk-a", i > 0);
        lg_exchange_on_transport_error(x, LG_ATTEMPT_RETRYABLE, now, &s);
        assert_int_equal(s.kind, LG_STEP_WAIT);
        assert_true(s.at_ms - now > last_delay);
        last_delay = s.at_ms - now;
        now = s.at_ms;
        lg_exchange_on_timer(x, now, &s);
    }
    assert_send(&s, 0, "sk-a", true);
    lg_exchange_on_transport_error(x, LG_ATTEMPT_RETRYABLE, now, &s);
    assert_int_equal(s.kind, LG_STEP_DONE);
    assert_int_equal(s.result.verdict, LG_GATE_TRANSPORT);
    assert_int_equal(s.result.attempts, 3);
    lg_exchange_free(x);

    lg_exchange *y = lg_exchange_begin(&req, now, &s);
    lg_exchange_on_transport_error(y, LG_ATTEMPT_FATAL, now, &s);
    assert_int_equal(s.kind, LG_STEP_DONE);
    assert_int_equal(s.result.verdict, LG_GATE_TRANSPORT);
    assert_int_equal(s.result.attempts, 1);
    lg_exchange_free(y);
}

/* A kept-alive connection found closed before any answer is sent again at once on the same key, not as
 * a server retry (the two that max_server_retries allows are still there afterwards), and within
 * max_attempts: the attempt that would pass it gives up with the transport's error. */
static void stale_connection_sent_again_at_once(void **state)
{
    fixture *f = *state;
    lg_gate_request req = request(f, openai(f, false, NULL,
                                            "\"retry\": {\"max_server_retries\": 2, \"max_attempts\": 5}, "
                                            "\"backoff\": {\"single_account_base_ms\": 100}"));
    lg_step s;
    int64_t now = T0;
    lg_exchange *x = lg_exchange_begin(&req, now, &s);
    for (int i = 0; i < 2; i++) {
        assert_send(&s, 0, "sk-a", i > 0);
        lg_exchange_on_transport_error(x, LG_ATTEMPT_STALE, now, &s);
    }
    for (int i = 0; i < 2; i++) {
        assert_send(&s, 0, "sk-a", true);
        lg_exchange_on_transport_error(x, LG_ATTEMPT_RETRYABLE, now, &s);
        assert_int_equal(s.kind, LG_STEP_WAIT);
        now = s.at_ms;
        lg_exchange_on_timer(x, now, &s);
    }
    assert_send(&s, 0, "sk-a", true);
    lg_exchange_on_transport_error(x, LG_ATTEMPT_STALE, now, &s);
    assert_int_equal(s.kind, LG_STEP_DONE);
    assert_int_equal(s.result.verdict, LG_GATE_TRANSPORT);
    assert_int_equal(s.result.attempts, 5);
    lg_exchange_free(x);
}

/* A body the front end cannot rewind: the retry becomes the delivery of the last response, normalized. A
 * request known not to be replayable is never retried. */
static void not_replayable(void **state)
{
    fixture *f = *state;
    lg_gate_request req = request(f, openai(f, false, NULL, "\"retry\": {\"switch_delay_ms\": 0}"));
    lg_step s;
    lg_exchange *x = lg_exchange_begin(&req, T0, &s);
    respond(x, 429, RATE_BODY, "7", T0 + 10, &s);
    assert_send(&s, 1, "sk-b", true);
    lg_exchange_cannot_resend(x, T0 + 10, &s);
    assert_int_equal(s.kind, LG_STEP_DONE);
    assert_int_equal(s.result.verdict, LG_GATE_DELIVER);
    assert_int_equal(s.result.status, 429);
    assert_true(s.result.normalized);
    assert_int_equal(s.result.retry_after_ms, 7000);
    assert_int_equal(s.result.attempts, 1);
    lg_exchange_free(x);

    req.replayable = false;
    lg_exchange *y = lg_exchange_begin(&req, T0, &s);
    respond(y, 429, RATE_BODY, "7", T0 + 10, &s);
    assert_int_equal(s.kind, LG_STEP_DONE);
    assert_int_equal(s.result.status, 429);
    assert_int_equal(s.result.attempts, 1);
    lg_exchange_free(y);
}

/* One key whose server asks for longer than the request may wait: given up at once, normalized with the
 * server's hint. */
static void deadline_give_up_normalized(void **state)
{
    fixture *f = *state;
    lg_gate_request req = request(f, openai(f, true, NULL, "\"retry\": {\"max_rate_limit_wait_seconds\": 2}"));
    lg_step s;
    lg_exchange *x = lg_exchange_begin(&req, T0, &s);
    respond(x, 429, RATE_BODY, "30", T0 + 10, &s);
    assert_int_equal(s.kind, LG_STEP_DONE);
    assert_int_equal(s.result.verdict, LG_GATE_DELIVER);
    assert_true(s.result.normalized);
    assert_int_equal(s.result.status, 429);
    assert_int_equal(s.result.retry_after_ms, 30000);
    assert_int_equal(s.result.outcome.state, LG_STATE_RETRYABLE_RATE_LIMIT);
    lg_exchange_free(x);
}

/* A stream the front end already committed to the host is final, whatever it turned out to be. */
static void committed_stream_is_final(void **state)
{
    fixture *f = *state;
    lg_gate_request req = request(f, openai(f, false, NULL, NULL));
    lg_step s;
    lg_exchange *x = lg_exchange_begin(&req, T0, &s);
    const char *sse = "data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\n"
                      "data: {\"error\":{\"message\":\"overloaded\",\"type\":\"server_error\"}}\n\n";
    lg_header h = {"content-type", "text/event-stream"};
    lg_response_view v = {.status = 200, .headers = &h, .n_headers = 1, .body = sse, .body_len = strlen(sse),
                          .stream = true, .delivered = true};
    lg_exchange_on_response(x, &v, T0 + 10, &s);
    assert_int_equal(s.kind, LG_STEP_DONE);
    assert_int_equal(s.result.verdict, LG_GATE_DELIVERED);
    assert_int_equal(s.result.attempts, 1);
    lg_exchange_free(x);
}

/* A plain host rule: admission only, then the host's own request. */
static void plain_host_rule_passes(void **state)
{
    fixture *f = *state;
    const char *json = "{\"providers\": {\"hook\": {\"hosts\": [\"hooks.example\"], \"limits\": {\"rpm\": 5}}}}";
    fixture_config(f, json);
    const lg_provider *p = fixture_provider(f, "hook");
    lg_gate_request req = {.cfg = f->cfg, .prov = p};
    lg_step s;
    lg_exchange *x = lg_exchange_begin(&req, T0, &s);
    assert_int_equal(s.kind, LG_STEP_DONE);
    assert_int_equal(s.result.verdict, LG_GATE_PASS);
    lg_exchange_free(x);
}

/* An exchange freed while it waits gives its reserved place back: the next request gets that place
 * instead of the one after it. */
static void free_mid_wait_gives_back_the_reservation(void **state)
{
    fixture *f = *state;
    store(f);
    lg_gate_request req = request(f, openai(f, true, "{\"rpm\": 1, \"window_ms\": 1000}", NULL));
    lg_step s;
    lg_exchange *x = lg_exchange_begin(&req, T0, &s);
    assert_send(&s, 0, "sk-a", false);
    respond(x, 200, OK_BODY, NULL, T0 + 10, &s);
    lg_exchange_free(x);
    lg_exchange *y = lg_exchange_begin(&req, T0 + 20, &s);
    assert_int_equal(s.kind, LG_STEP_WAIT);
    int64_t place = s.at_ms;
    lg_exchange *z = lg_exchange_begin(&req, T0 + 30, &s);
    assert_int_equal(s.kind, LG_STEP_WAIT);
    assert_true(s.at_ms >= place + 900); /* behind y */
    lg_exchange_free(z);
    lg_exchange_free(y);
    lg_exchange *w = lg_exchange_begin(&req, T0 + 40, &s);
    assert_int_equal(s.kind, LG_STEP_WAIT);
    assert_int_equal(s.at_ms, place); /* y's place, given back */
    lg_exchange_free(w);
}

/* has_header of a request that carries exactly the header named by ctx. */
static bool has_deny(const void *ctx, const char *name) { return !strcasecmp(ctx, name); }

/* The openai provider (account a, sk-a) falling back to anthropic (account c, sk-c; gpt-4o sent as claude-x),
 * waiting at most 5 s for an account (a quota lock sends it on at once), with `routes` (a JSON array) when set. */
static const lg_provider *cross_config(fixture *f, const char *routes)
{
    char json[1024];
    snprintf(json, sizeof json,
             "{\"providers\": {\"openai\": {\"accounts\": [{\"name\": \"a\", \"key\": \"sk-a\"}], \"fallback\": [\"anthropic\"]},"
             " \"anthropic\": {\"accounts\": [{\"name\": \"c\", \"key\": \"sk-c\"}], \"models\": {\"gpt-4o\": \"claude-x\"}}},"
             " \"retry\": {\"max_rate_limit_wait_seconds\": 5}%s%s}",
             routes ? ", \"routes\": " : "", routes ? routes : "");
    fixture_config(f, json);
    return fixture_provider(f, "openai");
}

#define CHAT_BODY "{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"
#define HOT_BODY "{\"model\":\"gpt-4o\",\"temperature\":1.7,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"
#define CLAUDE_OK "{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-x\"," \
                  "\"content\":[{\"type\":\"text\",\"text\":\"hi\"}],\"stop_reason\":\"end_turn\"," \
                  "\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}"

/* A fallback of another dialect gets the request translated (body, path, extra header, its own key) and
 * its answer is classified in its own dialect; a request it cannot take faithfully skips it, and the host
 * gets the primary's failure. */
static void cross_dialect_fallback(void **state)
{
    fixture *f = *state;
    const lg_provider *p = cross_config(f, NULL);
    lg_gate_request req = {.cfg = f->cfg, .prov = p, .host_key = "sk-host", .replayable = true, .reroutes = true,
                           .body = CHAT_BODY, .body_len = strlen(CHAT_BODY)};
    lg_step s;
    lg_exchange *x = lg_exchange_begin(&req, T0, &s);
    assert_send(&s, 0, "sk-a", false);
    assert_null(s.tr);
    respond(x, 429, QUOTA_BODY, NULL, T0 + 10, &s);
    assert_int_equal(s.kind, LG_STEP_SEND);
    assert_string_equal(s.prov->name, "anthropic");
    assert_string_equal(s.key, "sk-c");
    assert_non_null(s.tr);
    assert_string_equal(s.tr->path, "/v1/messages");
    assert_string_equal(s.tr->header, "anthropic-version: 2023-06-01");
    assert_non_null(s.body);
    assert_non_null(strstr(s.body, "\"model\":\"claude-x\""));
    assert_non_null(strstr(s.body, "\"max_tokens\":4096"));
    respond(x, 200, CLAUDE_OK, NULL, T0 + 20, &s);
    assert_int_equal(s.kind, LG_STEP_DONE);
    assert_int_equal(s.result.verdict, LG_GATE_DELIVER);
    assert_int_equal(s.result.outcome.state, LG_STATE_SUCCESS);
    assert_string_equal(s.result.prov->name, "anthropic");
    lg_exchange_free(x);

    req.body = HOT_BODY; /* temperature above 1: Anthropic cannot take it */
    req.body_len = strlen(HOT_BODY);
    x = lg_exchange_begin(&req, T0 + 100, &s);
    assert_send(&s, 0, "sk-a", false);
    respond(x, 429, QUOTA_BODY, NULL, T0 + 110, &s);
    assert_int_equal(s.kind, LG_STEP_DONE);
    assert_int_equal(s.result.verdict, LG_GATE_DELIVER);
    assert_int_equal(s.result.status, 429);
    assert_string_equal(s.result.prov->name, "openai");
    lg_exchange_free(x);
}

/* openai (account a, sk-a) with a same-dialect fallback "backup" (account s, sk-s) and retry.fallback_after_ms
 * after_ms (a minute's wait allowed). */
static const lg_provider *fallback_after_config(fixture *f, int after_ms)
{
    char json[1024];
    snprintf(json, sizeof json,
             "{\"providers\": {\"openai\": {\"accounts\": [{\"name\": \"a\", \"key\": \"sk-a\"}], \"fallback\": [\"backup\"]},"
             " \"backup\": {\"dialect\": \"openai\", \"upstream\": \"http://127.0.0.1:9/\","
             " \"accounts\": [{\"name\": \"s\", \"key\": \"sk-s\"}]}},"
             " \"retry\": {\"max_rate_limit_wait_seconds\": 60, \"fallback_after_ms\": %d}}",
             after_ms);
    fixture_config(f, json);
    return fixture_provider(f, "openai");
}

/* retry.fallback_after_ms on the fake clock: a 429 with Retry-After 2 s on the primary's only key goes to
 * the fallback at once when the bound is 500 ms, and so does the next request while the key cools down
 * (an admission wait); it is waited for when the bound is 5 s. */
static void fallback_after_ms_bounds_the_wait(void **state)
{
    fixture *f = *state;
    store(f);
    lg_gate_request req = request(f, fallback_after_config(f, 500));
    req.reroutes = true;
    lg_step s;
    lg_exchange *x = lg_exchange_begin(&req, T0, &s);
    assert_send(&s, 0, "sk-a", false);
    respond(x, 429, RATE_BODY, "2", T0 + 10, &s);
    assert_int_equal(s.kind, LG_STEP_SEND); /* no wait on the primary */
    assert_string_equal(s.prov->name, "backup");
    assert_string_equal(s.key, "sk-s");
    respond(x, 200, OK_BODY, NULL, T0 + 20, &s);
    assert_int_equal(s.kind, LG_STEP_DONE);
    assert_string_equal(s.result.prov->name, "backup");
    lg_exchange_free(x);

    x = lg_exchange_begin(&req, T0 + 100, &s); /* a cools down until T0 + 2010: the fallback at once */
    assert_int_equal(s.kind, LG_STEP_SEND);
    assert_string_equal(s.prov->name, "backup");
    lg_exchange_free(x);

    req = request(f, fallback_after_config(f, 5000));
    req.reroutes = true;
    x = lg_exchange_begin(&req, T0 + 200, &s); /* the same cooldown, within 5 s: waited for */
    assert_int_equal(s.kind, LG_STEP_WAIT);
    assert_true(s.at_ms >= T0 + 2010 && s.at_ms <= T0 + 2010 + 1000);
    lg_exchange_on_timer(x, s.at_ms, &s);
    assert_send(&s, 0, "sk-a", false);
    assert_string_equal(s.prov->name, "openai");
    lg_exchange_free(x);
}

/* Routes: a refuse rule ends the exchange at once (nothing sent); a "to" rule sends the request translated
 * to that provider alone; a rule's "to" that cannot take the request is a local 400. */
static void routes_refuse_and_send(void **state)
{
    fixture *f = *state;
    const lg_provider *p = cross_config(f, "[{\"match\": {\"header\": \"X-Deny\"}, \"refuse\": \"no\"},"
                                           " {\"match\": {\"model\": \"gpt-4*\"}, \"to\": \"anthropic\"}]");
    static const char deny[] = "x-deny";
    lg_gate_request req = {.cfg = f->cfg, .prov = p, .host_key = "sk-host", .replayable = true, .reroutes = true,
                           .body = CHAT_BODY, .body_len = strlen(CHAT_BODY), .has_header = NULL};
    lg_step s;
    lg_exchange *x = lg_exchange_begin(&req, T0, &s);
    assert_int_equal(s.kind, LG_STEP_SEND);
    assert_string_equal(s.prov->name, "anthropic");
    assert_string_equal(s.key, "sk-c");
    assert_non_null(s.tr);
    lg_exchange_free(x);

    req.has_header = has_deny;
    req.header_ctx = deny;
    x = lg_exchange_begin(&req, T0, &s);
    assert_int_equal(s.kind, LG_STEP_DONE);
    assert_int_equal(s.result.verdict, LG_GATE_REFUSED);
    assert_int_equal(s.result.status, 403);
    assert_int_equal(s.result.outcome.state, LG_STATE_NON_RETRYABLE);
    assert_string_equal(s.result.outcome.message, "llmgate: refused by routes[0]: no");
    assert_int_equal(s.result.attempts, 0);
    lg_exchange_free(x);

    req.has_header = NULL;
    req.body = HOT_BODY;
    req.body_len = strlen(HOT_BODY);
    x = lg_exchange_begin(&req, T0, &s);
    assert_int_equal(s.kind, LG_STEP_DONE);
    assert_int_equal(s.result.verdict, LG_GATE_REFUSED);
    assert_int_equal(s.result.status, 400);
    assert_non_null(strstr(s.result.outcome.message, "cannot be sent to anthropic"));
    lg_exchange_free(x);
}

/* The lines of the debug log at path that hold tag, each from tag on, joined by "\n" into out. */
static void log_lines(const char *path, const char *tag, char *out, size_t cap)
{
    FILE *fp = fopen(path, "r");
    assert_non_null(fp);
    char line[1024];
    size_t len = 0;
    out[0] = '\0';
    while (fgets(line, sizeof line, fp)) {
        const char *at = strstr(line, tag);
        if (at)
            len += (size_t)snprintf(out + len, cap - len, "%s%.*s", len ? "\n" : "", (int)strcspn(at, "\n"), at);
        assert_true(len < cap);
    }
    fclose(fp);
}

/* The phase changes in the debug log at path, as "FROM->TO (why)" joined by ", " into out. */
static void phase_trace(const char *path, char *out, size_t cap)
{
    char lines[4096], *save;
    log_lines(path, "[Phase] ", lines, sizeof lines);
    size_t len = 0;
    out[0] = '\0';
    for (char *line = strtok_r(lines, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        const char *from = strstr(line, ": ");
        if (!from)
            continue;
        char a[16], b[16], why[256];
        assert_int_equal(sscanf(from + 2, "%15s -> %15s (%255[^)])", a, b, why), 3);
        len += (size_t)snprintf(out + len, cap - len, "%s%s->%s (%s)", len ? ", " : "", a, b, why);
        assert_true(len < cap);
    }
}

/* Each phase change goes through one place that traces it at debug level: an attempt, its backoff, a
 * reserved place confirmed at its timer, the retry, the answer; a timer that fires early changes nothing.
 * Not a line with the log at info level. */
static void phase_changes_traced_at_debug_level(void **state)
{
    fixture *f = *state;
    char path[128], trace[1024];
    snprintf(path, sizeof path, "%s/debug.log", f->dir);
    setenv("LLMGATE_LOG", path, 1);
    for (int debug = 1; debug >= 0; debug--) {
        char extra[256];
        snprintf(extra, sizeof extra,
                 "\"log\": {\"level\": \"%s\"}, "
                 "\"backoff\": {\"single_account_base_ms\": 100, \"single_account_max_ms\": 100}",
                 debug ? "debug" : "info");
        lg_gate_request req = request(f, openai(f, true, "{\"rpm\": 1, \"window_ms\": 1000}", extra));
        lg_log_init(f->cfg);
        assert_int_equal(lg_log_debugging, debug);
        lg_step s;
        int64_t t = T0 + (debug ? 0 : 10000); /* the second exchange starts in a fresh window */
        lg_exchange *x = lg_exchange_begin(&req, t, &s);
        respond(x, 500, SERVER_BODY, NULL, t + 10, &s);
        lg_exchange_on_timer(x, s.at_ms, &s);
        assert_int_equal(s.kind, LG_STEP_WAIT);
        lg_exchange_on_timer(x, s.at_ms - 1, &s);
        lg_exchange_on_timer(x, s.at_ms, &s);
        assert_send(&s, 0, "sk-a", true);
        respond(x, 200, OK_BODY, NULL, s.at_ms + 20, &s);
        assert_int_equal(s.kind, LG_STEP_DONE);
        lg_exchange_free(x);
    }
    unsetenv("LLMGATE_LOG");
    lg_log_init(NULL);
    phase_trace(path, trace, sizeof trace);
    assert_string_equal(trace, "ADMIT->SENT (admitted), SENT->BACKOFF (server error, backing off), "
                               "BACKOFF->CONFIRM (rate limit window full), CONFIRM->SENT (admitted), "
                               "SENT->DONE (finished)");
}

/* At debug level every exchange ends in exactly one request line (provider, account name, status, outcome,
 * attempts, time waited), whatever its end: an immediate success, a success after a backoff, an exchange
 * freed while its attempt was out, one withdrawn while it waited. Never a key. */
static void one_request_line_per_exchange(void **state)
{
    fixture *f = *state;
    char path[128], lines[1024], want[1024];
    snprintf(path, sizeof path, "%s/request.log", f->dir);
    setenv("LLMGATE_LOG", path, 1);
    lg_gate_request req = request(f, openai(f, true, NULL, "\"log\": {\"level\": \"debug\"}, "
                                            "\"backoff\": {\"single_account_base_ms\": 100, \"single_account_max_ms\": 100}"));
    lg_log_init(f->cfg);
    lg_step s;
    lg_exchange *x = lg_exchange_begin(&req, T0, &s);
    respond(x, 200, OK_BODY, NULL, T0 + 50, &s);
    lg_exchange_free(x);

    x = lg_exchange_begin(&req, T0 + 1000, &s);
    respond(x, 500, SERVER_BODY, NULL, T0 + 1010, &s);
    assert_int_equal(s.kind, LG_STEP_WAIT);
    int64_t woke = s.at_ms + 5;
    lg_exchange_on_timer(x, woke, &s);
    assert_send(&s, 0, "sk-a", true);
    respond(x, 200, OK_BODY, NULL, woke + 30, &s);
    lg_exchange_free(x);

    x = lg_exchange_begin(&req, T0 + 2000, &s);
    lg_exchange_free(x);

    x = lg_exchange_begin(&req, T0 + 3000, &s);
    respond(x, 500, SERVER_BODY, NULL, T0 + 3010, &s);
    assert_int_equal(s.kind, LG_STEP_WAIT);
    lg_exchange_withdraw(x, &s);
    assert_int_equal(s.kind, LG_STEP_DONE);
    lg_exchange_free(x);
    unsetenv("LLMGATE_LOG");
    lg_log_init(NULL);

    log_lines(path, "[Request] ", lines, sizeof lines);
    snprintf(want, sizeof want,
             "[Request] openai account=a status=200 outcome=SUCCESS attempts=1 waited_ms=0\n"
             "[Request] openai account=a status=200 outcome=SUCCESS attempts=2 waited_ms=%lld\n"
             "[Request] openai account=a status=0 outcome=CANCELLED attempts=1 waited_ms=0\n"
             "[Request] openai account=a status=0 outcome=WITHDRAWN attempts=1 waited_ms=0",
             (long long)(woke - (T0 + 1010)));
    assert_string_equal(lines, want);
    assert_null(strstr(lines, "sk-"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(immediate_admission_and_success, setup, teardown),
        cmocka_unit_test_setup_teardown(waiting_admission_and_early_timer, setup, teardown),
        cmocka_unit_test_setup_teardown(rotation_quota_lock_and_refusal, setup, teardown),
        cmocka_unit_test_setup_teardown(server_errors_then_switch, setup, teardown),
        cmocka_unit_test_setup_teardown(stale_connection_sent_again_at_once, setup, teardown),
        cmocka_unit_test_setup_teardown(transport_retry_backoff_and_give_up, setup, teardown),
        cmocka_unit_test_setup_teardown(not_replayable, setup, teardown),
        cmocka_unit_test_setup_teardown(deadline_give_up_normalized, setup, teardown),
        cmocka_unit_test_setup_teardown(committed_stream_is_final, setup, teardown),
        cmocka_unit_test_setup_teardown(plain_host_rule_passes, setup, teardown),
        cmocka_unit_test_setup_teardown(free_mid_wait_gives_back_the_reservation, setup, teardown),
        cmocka_unit_test_setup_teardown(cross_dialect_fallback, setup, teardown),
        cmocka_unit_test_setup_teardown(fallback_after_ms_bounds_the_wait, setup, teardown),
        cmocka_unit_test_setup_teardown(routes_refuse_and_send, setup, teardown),
        cmocka_unit_test_setup_teardown(phase_changes_traced_at_debug_level, setup, teardown),
        cmocka_unit_test_setup_teardown(one_request_line_per_exchange, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
