/* The body's estimate is made once per exchange: lg_exchange_read_body scans it (the model and the estimate
 * in one pass) and lg_accounts_init takes that estimate when it is set up for the same body. Never across
 * exchanges: a host that sends the same buffer again with other bytes (same address, same length) is
 * charged by the new bytes, after an exchange that took the estimate, and after one refused before any
 * account was set up (the estimate left untaken), whether or not the next exchange reads its body. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cmocka.h>

#include "gate/exchange_internal.h"
#include "llmgate/engine.h"
#include "store_fixture.h"

#define T0 1800000000000LL

static int setup(void **state) { return fixture_setup(state, "estimate-handoff"); }

static int teardown(void **state) { return fixture_teardown(state); }

static bool has_deny(const void *ctx, const char *name) { return !strcasecmp(ctx, name); }

/* The body the host sends, always from this buffer: model and max_tokens (4 digits) in place. */
static char buf[128];

static size_t write_body(const char *model, int max_tokens)
{
    return (size_t)snprintf(buf, sizeof buf, "{\"model\":\"%s\",\"max_tokens\":%04d,\"messages\":[]}", model,
                            max_tokens);
}

/* An exchange of the body in buf: admitted at once, its tokens (envelope + max_tokens) and model as
 * written, answered and freed (the exchange is kept for the next one). */
static void exchange_of(lg_gate_request *req, const char *model, int max_tokens)
{
    req->body_len = write_body(model, max_tokens);
    lg_step s;
    lg_exchange *x = lg_exchange_begin(req, T0, &s);
    assert_non_null(x);
    assert_int_equal(s.kind, LG_STEP_SEND);
    assert_int_equal(x->a.tokens, (int64_t)(req->body_len + 3) / 4 + max_tokens);
    assert_string_equal(x->a.est.model, model);
    assert_null(x->a.est.body); /* taken */
    if (req->reroutes)
        assert_string_equal(x->model, model);
    lg_header h = {"content-type", "application/json"};
    lg_response_view v = {.status = 200, .headers = &h, .n_headers = 1, .body = "{}", .body_len = 2};
    lg_exchange_on_response(x, &v, T0 + 10, &s);
    assert_int_equal(s.kind, LG_STEP_DONE);
    lg_exchange_free(x);
}

/* Without routes the exchange reads the host's buffer itself (no copy): the estimate names that buffer. */
static void same_buffer_other_bytes(void **state)
{
    fixture *f = *state;
    fixture_config(f, "{\"providers\": {\"openai\": {\"accounts\": [{\"name\": \"a\", \"key\": \"sk-a\"}]}}}");
    lg_gate_request req = {.cfg = f->cfg, .prov = fixture_provider(f, "openai"), .host_key = "sk-host",
                           .replayable = true, .reroutes = true, .body = buf};
    exchange_of(&req, "gpt-4o", 16);
    exchange_of(&req, "gpt-4a", 99); /* same address and length, other bytes */
    req.reroutes = false;            /* the body is not read before the accounts: they scan it themselves */
    exchange_of(&req, "gpt-4c", 7);
    req.reroutes = true;
    exchange_of(&req, "gpt-4d", 1234);
}

/* With routes the exchange keeps a copy of the body, which the estimate then names; a refusal by the
 * routes ends the exchange before any account is set up (the estimate is not taken). */
static void refused_then_same_buffer(void **state)
{
    fixture *f = *state;
    fixture_config(f, "{\"providers\": {\"openai\": {\"accounts\": [{\"name\": \"a\", \"key\": \"sk-a\"}]}}, "
                      "\"routes\": [{\"match\": {\"header\": \"X-Deny\"}, \"refuse\": \"no\"}]}");
    static const char deny[] = "x-deny";
    lg_gate_request req = {.cfg = f->cfg, .prov = fixture_provider(f, "openai"), .host_key = "sk-host",
                           .replayable = true, .reroutes = true, .body = buf};
    exchange_of(&req, "gpt-4o", 16);
    req.has_header = has_deny;
    req.header_ctx = deny;
    req.body_len = write_body("gpt-4b", 500);
    lg_step s;
    lg_exchange *x = lg_exchange_begin(&req, T0, &s);
    assert_int_equal(s.kind, LG_STEP_DONE);
    assert_int_equal(s.result.verdict, LG_GATE_REFUSED);
    lg_exchange_free(x);
    req.has_header = NULL;
    exchange_of(&req, "gpt-4a", 99);
    req.reroutes = false;
    exchange_of(&req, "gpt-4c", 7);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(same_buffer_other_bytes, setup, teardown),
        cmocka_unit_test_setup_teardown(refused_then_same_buffer, setup, teardown),
    };
    return cmocka_run_group_tests_name("estimate_handoff", tests, NULL, NULL);
}
