/* AWS event-stream frames (application/vnd.amazon.eventstream): the pure frame reader, the classifier's
 * reading of Bedrock's frames (exceptions, usage) and the decision at the start of such a stream. Frames
 * are built here (their CRCs zero: the reader does not check them). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "llmgate/aws_frames.h"
#include "llmgate/classify.h"
#include "llmgate/http.h"
#include "llmgate/stream_probe.h"

static size_t put32(unsigned char *p, size_t v)
{
    p[0] = (unsigned char)(v >> 24), p[1] = (unsigned char)(v >> 16), p[2] = (unsigned char)(v >> 8), p[3] = (unsigned char)v;
    return 4;
}

/* Appends a string header (type 7) at h; returns its size. */
static size_t str_header(unsigned char *h, const char *name, const char *value)
{
    size_t n = strlen(name), v = strlen(value), at = 0;
    h[at++] = (unsigned char)n;
    memcpy(h + at, name, n), at += n;
    h[at++] = 7;
    h[at++] = (unsigned char)(v >> 8), h[at++] = (unsigned char)v;
    memcpy(h + at, value, v);
    return at + v;
}

/* Writes at out a frame of message type mt with :event-type or :exception-type et (NULL: none), extra raw
 * headers (xl bytes, before the typed ones) and payload; returns its length. */
static size_t frame_x(unsigned char *out, const char *mt, const char *et, const unsigned char *extra, size_t xl,
                      const char *payload)
{
    unsigned char h[512];
    size_t hl = 0;
    if (xl)
        memcpy(h, extra, xl), hl += xl;
    hl += str_header(h + hl, ":message-type", mt);
    if (et)
        hl += str_header(h + hl, !strcmp(mt, "exception") ? ":exception-type" : ":event-type", et);
    hl += str_header(h + hl, ":content-type", "application/json");
    size_t pl = strlen(payload), total = 16 + hl + pl;
    put32(out, total);
    put32(out + 4, hl);
    memset(out + 8, 0, 4);
    memcpy(out + 12, h, hl);
    memcpy(out + 12 + hl, payload, pl);
    memset(out + 12 + hl + pl, 0, 4);
    return total;
}

static size_t frame(unsigned char *out, const char *mt, const char *et, const char *payload)
{
    return frame_x(out, mt, et, NULL, 0, payload);
}

static void test_reader_reads_a_frame_and_its_headers(void **state)
{
    (void)state;
    unsigned char b[1024];
    size_t n = frame(b, "event", "contentBlockDelta", "{\"delta\":{\"text\":\"Hi\"}}");
    lg_aws_frame f;
    assert_int_equal(lg_aws_frame_read((char *)b, n, &f), LG_AWS_FRAME_OK);
    assert_int_equal(f.total, n);
    assert_int_equal(f.payload_len, strlen("{\"delta\":{\"text\":\"Hi\"}}"));
    assert_memory_equal(f.payload, "{\"delta\"", 8);
    const char *v;
    size_t vl;
    assert_true(lg_aws_frame_header(&f, ":event-type", &v, &vl));
    assert_int_equal(vl, 17);
    assert_memory_equal(v, "contentBlockDelta", 17);
    assert_false(lg_aws_frame_header(&f, ":exception-type", &v, &vl));
    /* headers of every fixed-size type, a byte array and a string: all skipped to reach the one asked for */
    unsigned char x[96] = {1, 'a', 0, 1, 'b', 1, 1, 'c', 2, 9, 1, 'd', 3, 0, 1, 1, 'e', 4, 0, 0, 0, 1,
                           1, 'f', 5, 0, 0, 0, 0, 0, 0, 0, 1, 1, 'g', 6, 0, 2, 'x', 'y', 1, 'h', 8, 0, 0, 0, 0, 0, 0, 0, 1,
                           1, 'i', 9};
    size_t xl = 54 + 16; /* the UUID's 16 bytes follow, zero */
    n = frame_x(b, "event", "chunk", x, xl, "{}");
    assert_int_equal(lg_aws_frame_read((char *)b, n, &f), LG_AWS_FRAME_OK);
    assert_true(lg_aws_frame_header(&f, ":event-type", &v, &vl));
    assert_memory_equal(v, "chunk", 5);
    assert_false(lg_aws_frame_header(&f, "g", &v, &vl)); /* a byte array is no string */
}

static void test_reader_refuses_truncated_and_lying_frames(void **state)
{
    (void)state;
    unsigned char b[1024];
    lg_aws_frame f;
    size_t n = frame(b, "event", "chunk", "{\"bytes\":\"e30=\"}");
    for (size_t cut = 0; cut < n; cut++)
        assert_int_equal(lg_aws_frame_read((char *)b, cut, &f), LG_AWS_FRAME_SHORT);
    unsigned char lie[1024];
    memcpy(lie, b, n);
    put32(lie, 15); /* shorter than a prelude and a CRC */
    assert_int_equal(lg_aws_frame_read((char *)lie, n, &f), LG_AWS_FRAME_BAD);
    put32(lie, LG_AWS_FRAME_MAX + 1);
    assert_int_equal(lg_aws_frame_read((char *)lie, n, &f), LG_AWS_FRAME_BAD);
    memcpy(lie, b, n);
    put32(lie + 4, n - 15); /* headers longer than the frame leaves them */
    assert_int_equal(lg_aws_frame_read((char *)lie, n, &f), LG_AWS_FRAME_BAD);
    memcpy(lie, b, n);
    put32(lie + 4, 20); /* headers end inside the first one's value */
    assert_int_equal(lg_aws_frame_read((char *)lie, n, &f), LG_AWS_FRAME_BAD);
    memcpy(lie, b, n);
    lie[12 + 1 + 13] = 10; /* the first header's value type: unknown */
    assert_int_equal(lg_aws_frame_read((char *)lie, n, &f), LG_AWS_FRAME_BAD);
    memcpy(lie, b, n);
    lie[12 + 1 + 13 + 1] = 0xff; /* the string's length runs past the headers */
    assert_int_equal(lg_aws_frame_read((char *)lie, n, &f), LG_AWS_FRAME_BAD);
    memcpy(lie, b, n);
    lie[12] = 0; /* a header name of no bytes */
    assert_int_equal(lg_aws_frame_read((char *)lie, n, &f), LG_AWS_FRAME_BAD);
    /* headers that run into the message CRC, where a header could be read: still longer than the frame */
    n = frame(lie, "event", "chunk", "");
    size_t hl = n - 16;
    lie[n - 4] = 1, lie[n - 3] = 'z', lie[n - 2] = 0;
    put32(lie + 4, hl + 3);
    assert_int_equal(lg_aws_frame_read((char *)lie, n, &f), LG_AWS_FRAME_BAD);
    /* a header of an unknown value type: its size unknown, the frame unreadable */
    const unsigned char unknown[] = {1, 'u', 10};
    n = frame_x(lie, "event", "chunk", unknown, sizeof unknown, "{}");
    assert_int_equal(lg_aws_frame_read((char *)lie, n, &f), LG_AWS_FRAME_BAD);
}

static void test_complete_prefix_over_frames_split_in_pieces(void **state)
{
    (void)state;
    unsigned char b[2048];
    size_t a = frame(b, "event", "messageStart", "{\"role\":\"assistant\"}");
    size_t c = a + frame(b + a, "event", "contentBlockDelta", "{\"delta\":{\"text\":\"Hi\"}}");
    size_t e = c + frame(b + c, "event", "messageStop", "{\"stopReason\":\"end_turn\"}");
    bool bad = true;
    for (size_t len = 0; len <= e; len++) {
        size_t want = len >= e ? e : len >= c ? c : len >= a ? a : 0;
        assert_int_equal(lg_aws_frames_span((char *)b, len, len, &bad), want);
        assert_false(bad);
    }
    /* with a stop: the first frame boundary at or past it (the relay's tail is cut there) */
    assert_int_equal(lg_aws_frames_span((char *)b, e, 0, &bad), 0);
    assert_int_equal(lg_aws_frames_span((char *)b, e, 1, &bad), a);
    assert_int_equal(lg_aws_frames_span((char *)b, e, a, &bad), a);
    assert_int_equal(lg_aws_frames_span((char *)b, e, a + 1, &bad), c);
    assert_int_equal(lg_aws_frames_span((char *)b, c + 5, c + 1, &bad), c); /* the next frame not all there */
    assert_false(bad);
    b[c + 3] = 3; /* the third frame's length lies */
    assert_int_equal(lg_aws_frames_span((char *)b, e, e, &bad), c);
    assert_true(bad);
}

static void classify(const unsigned char *b, size_t n, lg_outcome *o)
{
    lg_header ct = {"Content-Type", "application/vnd.amazon.eventstream"};
    lg_response_view v = {.status = 200, .headers = &ct, .n_headers = 1, .body = (const char *)b, .body_len = n,
                          .aws_frames = true};
    lg_classify(LG_DIALECT_OPENAI, &v, o);
}

/* The outcome of a stream of one exception frame of type et with Bedrock's error body. */
static void exception_outcome(const char *et, lg_outcome *o)
{
    unsigned char b[1024];
    size_t n = frame(b, "exception", et, "{\"message\":\"Something went wrong.\"}");
    classify(b, n, o);
}

static void test_exceptions_are_classified_by_their_type(void **state)
{
    (void)state;
    lg_outcome o;
    exception_outcome("throttlingException", &o);
    assert_int_equal(o.state, LG_STATE_RETRYABLE_RATE_LIMIT);
    assert_int_equal(o.reason, LG_REASON_RATE_LIMIT_EXCEEDED);
    assert_string_equal(o.message, "Something went wrong.");
    exception_outcome("serviceUnavailableException", &o);
    assert_int_equal(o.state, LG_STATE_PROVIDER_DOWN);
    assert_int_equal(o.reason, LG_REASON_SERVER_ERROR);
    exception_outcome("modelStreamErrorException", &o);
    assert_int_equal(o.state, LG_STATE_PROVIDER_DOWN);
    exception_outcome("internalServerException", &o);
    assert_int_equal(o.state, LG_STATE_PROVIDER_DOWN);
    exception_outcome("validationException", &o);
    assert_int_equal(o.state, LG_STATE_NON_RETRYABLE);
    /* an error frame names its code and message in headers */
    unsigned char b[1024], x[256];
    size_t xl = str_header(x, ":error-code", "ThrottlingException");
    xl += str_header(x + xl, ":error-message", "Rate exceeded");
    size_t n = frame_x(b, "error", NULL, x, xl, "");
    classify(b, n, &o);
    assert_int_equal(o.state, LG_STATE_RETRYABLE_RATE_LIMIT);
    assert_string_equal(o.message, "Rate exceeded");
}

/* The n bytes at b are a success whose usage is prompt and completion tokens. */
static void assert_success_with_usage(const unsigned char *b, size_t n, int64_t prompt, int64_t completion)
{
    lg_outcome o;
    classify(b, n, &o);
    assert_int_equal(o.state, LG_STATE_SUCCESS);
    assert_true(o.has_usage);
    assert_int_equal(o.prompt_tokens, prompt);
    assert_int_equal(o.completion_tokens, completion);
}

static void test_converse_stream_usage_from_metadata(void **state)
{
    (void)state;
    unsigned char b[2048];
    size_t n = frame(b, "event", "messageStart", "{\"role\":\"assistant\"}");
    n += frame(b + n, "event", "contentBlockDelta", "{\"contentBlockIndex\":0,\"delta\":{\"text\":\"Hi\"}}");
    n += frame(b + n, "event", "messageStop", "{\"stopReason\":\"end_turn\"}");
    n += frame(b + n, "event", "metadata", "{\"usage\":{\"inputTokens\":12,\"outputTokens\":7,\"totalTokens\":19},"
                                           "\"metrics\":{\"latencyMs\":300}}");
    assert_success_with_usage(b, n, 12, 7);
}

static void test_invoke_stream_usage_from_invocation_metrics(void **state)
{
    (void)state;
    unsigned char b[2048];
    /* base64 of {"type":"content_block_delta","delta":{"text":"Hi"}} and of
     * {"type":"message_stop","amazon-bedrock-invocationMetrics":{"inputTokenCount":21,"outputTokenCount":5}} */
    size_t n = frame(b, "event", "chunk", "{\"bytes\":\"eyJ0eXBlIjoiY29udGVudF9ibG9ja19kZWx0YSIsImRlbHRhIjp7InRleHQiOiJIaSJ9fQ==\"}");
    n += frame(b + n, "event", "chunk",
               "{\"bytes\":\"eyJ0eXBlIjoibWVzc2FnZV9zdG9wIiwiYW1hem9uLWJlZHJvY2staW52b2NhdGlvbk1ldHJpY3MiOnsiaW5wdXRU"
               "b2tlbkNvdW50IjoyMSwib3V0cHV0VG9rZW5Db3VudCI6NX19\"}");
    assert_success_with_usage(b, n, 21, 5);
}

static lg_probe probe(const unsigned char *b, size_t n)
{
    lg_response_view v = {.status = 200, .body = (const char *)b, .body_len = n, .stream = true, .aws_frames = true};
    return lg_stream_probe(LG_DIALECT_OPENAI, &v);
}

static void test_probe_decides_on_frames(void **state)
{
    (void)state;
    unsigned char b[2048];
    size_t t = frame(b, "exception", "throttlingException", "{\"message\":\"Too many requests, please wait.\"}");
    for (size_t len = 0; len < t; len++)
        assert_int_equal(probe(b, len), LG_PROBE_MORE); /* an unfinished frame is held */
    assert_int_equal(probe(b, t), LG_PROBE_ERROR);
    size_t s = frame(b, "event", "messageStart", "{\"role\":\"assistant\"}");
    assert_int_equal(probe(b, s), LG_PROBE_MORE); /* the role alone is no content */
    size_t e = s + frame(b + s, "exception", "serviceUnavailableException", "{\"message\":\"Service unavailable\"}");
    assert_int_equal(probe(b, e), LG_PROBE_ERROR);
    size_t c = s + frame(b + s, "event", "contentBlockDelta", "{\"contentBlockIndex\":0,\"delta\":{\"text\":\"Hi\"}}");
    assert_int_equal(probe(b, c), LG_PROBE_COMMIT);
    assert_int_equal(probe(b, c - 1), LG_PROBE_MORE);
    /* content first: the exception that follows is the committed stream's */
    frame(b + c, "exception", "throttlingException", "{\"message\":\"x\"}");
    assert_int_equal(probe(b, c + 60), LG_PROBE_COMMIT);
    /* frames that cannot be read are let through as they came */
    memcpy(b, "data: {\"x\":1}\n\n", 15);
    assert_int_equal(probe(b, 15), LG_PROBE_COMMIT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reader_reads_a_frame_and_its_headers),
        cmocka_unit_test(test_reader_refuses_truncated_and_lying_frames),
        cmocka_unit_test(test_complete_prefix_over_frames_split_in_pieces),
        cmocka_unit_test(test_exceptions_are_classified_by_their_type),
        cmocka_unit_test(test_converse_stream_usage_from_metadata),
        cmocka_unit_test(test_invoke_stream_usage_from_invocation_metrics),
        cmocka_unit_test(test_probe_decides_on_frames),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
