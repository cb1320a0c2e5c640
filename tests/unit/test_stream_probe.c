/* The decision at the start of an event stream: hold, commit, or a failed attempt. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "llmgate/http.h"
#include <string.h>

#include "llmgate/stream_probe.h"

static lg_probe probe(lg_dialect d, const char *body)
{
    lg_response_view v = {.status = 200, .body = body, .body_len = strlen(body), .stream = true};
    return lg_stream_probe(d, &v);
}

static void test_keepalives_and_pings_are_held(void **state)
{
    (void)state;
    assert_int_equal(probe(LG_DIALECT_OPENAI, ""), LG_PROBE_MORE);
    assert_int_equal(probe(LG_DIALECT_OPENAI, ": keep-alive\n\n: keep-alive\n\n"), LG_PROBE_MORE);
    assert_int_equal(probe(LG_DIALECT_OPENAI, ": OPENROUTER PROCESSING\n\n"), LG_PROBE_MORE);
    assert_int_equal(probe(LG_DIALECT_ANTHROPIC, "event: ping\ndata: {\"type\": \"ping\"}\n\n"), LG_PROBE_MORE);
}

static void test_unfinished_event_is_held(void **state)
{
    (void)state;
    assert_int_equal(probe(LG_DIALECT_OPENAI, "data: {\"choices\":[{\"delta\":{\"content\":\"Hel"), LG_PROBE_MORE);
    assert_int_equal(probe(LG_DIALECT_OPENAI, "data: {\"choices\":[]}\n"), LG_PROBE_MORE);
}

static void test_first_content_event_commits(void **state)
{
    (void)state;
    assert_int_equal(probe(LG_DIALECT_OPENAI, ": keep-alive\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\n"),
                     LG_PROBE_COMMIT);
    assert_int_equal(probe(LG_DIALECT_ANTHROPIC, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":"
                                                 "{\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}}\n\n"),
                     LG_PROBE_COMMIT);
    assert_int_equal(probe(LG_DIALECT_DASHSCOPE, "event:result\n:HTTP_STATUS/200\ndata:{\"output\":{}}\r\n\r\n"),
                     LG_PROBE_COMMIT);
}

static void test_errors_before_anything_reached_the_host(void **state)
{
    (void)state;
    assert_int_equal(probe(LG_DIALECT_ANTHROPIC, "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":"
                                                 "\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n"),
                     LG_PROBE_ERROR);
    assert_int_equal(probe(LG_DIALECT_OPENAI, "data: {\"error\":{\"code\":429,\"message\":\"Rate limit exceeded\"}}\n\n"),
                     LG_PROBE_ERROR);
    assert_int_equal(probe(LG_DIALECT_DASHSCOPE, "event:error\n:HTTP_STATUS/429\ndata:{\"code\":\"Throttling.RateQuota\","
                                                 "\"message\":\"Requests rate limit exceeded\"}\n\n"),
                     LG_PROBE_ERROR);
    /* content and an error in the same held prefix: nothing went out yet, so the attempt failed */
    assert_int_equal(probe(LG_DIALECT_DASHSCOPE, "event:result\ndata:{\"output\":{}}\n\nevent:error\n:HTTP_STATUS/429\n"
                                                 "data:{\"code\":\"Throttling.RateQuota\",\"message\":\"x\"}\n\n"),
                     LG_PROBE_ERROR);
}

/* Which Content-Type values make a response a stream (lg_is_event_stream). */
static void test_event_stream_content_types(void **state)
{
    (void)state;
    assert_true(lg_is_event_stream("text/event-stream"));
    assert_true(lg_is_event_stream("Text/Event-Stream; charset=utf-8"));
    assert_true(lg_is_event_stream(" text/event-stream"));
    assert_false(lg_is_event_stream("application/json"));
    assert_false(lg_is_event_stream("text/event-strea"));
    assert_false(lg_is_event_stream("text/plain; t"));
    assert_false(lg_is_event_stream(""));
    assert_false(lg_is_event_stream(NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keepalives_and_pings_are_held),
        cmocka_unit_test(test_unfinished_event_is_held),
        cmocka_unit_test(test_first_content_event_commits),
        cmocka_unit_test(test_errors_before_anything_reached_the_host),
        cmocka_unit_test(test_event_stream_content_types),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
