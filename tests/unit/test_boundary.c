/* Stream cut points: every split of a multi-byte text, in every mode, delivers the identical bytes, and
 * each piece ends where the mode says. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "llmgate/boundary.h"

static const char text[] = "data: {\"t\":\"héllo 你好，世界 — 🙂 ok\"}\n\n"
                           ": keep-alive\n\n"
                           "data: {\"t\":\"ñ 日本語 😀😀 end\"}\n\n"
                           "data: [DONE]\n\n";

typedef struct {
    char out[4096];
    size_t len;
    int pieces;
    int bad_utf8;  /* pieces that end inside a character */
    int bad_event; /* pieces that do not end after a blank line */
    int refuse_after; /* refuse the n-th piece (0 = never) */
} sink;

static bool collect(void *ctx, const char *p, size_t len)
{
    sink *s = ctx;
    s->pieces++;
    if (s->refuse_after && s->pieces >= s->refuse_after)
        return false;
    assert_true(s->len + len <= sizeof s->out);
    memcpy(s->out + s->len, p, len);
    s->len += len;
    s->bad_utf8 += lg_utf8_complete_prefix(p, len) != len;
    s->bad_event += !(len >= 2 && p[len - 1] == '\n' && p[len - 2] == '\n');
    return true;
}

/* Feeds text cut at a and b, then flushes. */
static void run(lg_stream_boundary mode, size_t a, size_t b, sink *s)
{
    lg_boundary bd;
    lg_boundary_init(&bd, mode);
    size_t n = sizeof text - 1;
    memset(s, 0, sizeof *s);
    assert_true(lg_boundary_feed(&bd, text, a, collect, s));
    assert_true(lg_boundary_feed(&bd, text + a, b - a, collect, s));
    assert_true(lg_boundary_feed(&bd, text + b, n - b, collect, s));
    assert_true(lg_boundary_flush(&bd, collect, s));
    lg_boundary_free(&bd);
    assert_int_equal(s->len, n);
    assert_memory_equal(s->out, text, n);
}

static void test_utf8_every_split(void **state)
{
    (void)state;
    size_t n = sizeof text - 1;
    for (size_t a = 0; a <= n; a++)
        for (size_t b = a; b <= n; b += 3) {
            sink s;
            run(LG_BOUNDARY_UTF8, a, b, &s);
            assert_int_equal(s.bad_utf8, 0);
        }
}

static void test_event_every_split(void **state)
{
    (void)state;
    size_t n = sizeof text - 1;
    for (size_t a = 0; a <= n; a++)
        for (size_t b = a; b <= n; b += 5) {
            sink s;
            run(LG_BOUNDARY_EVENT, a, b, &s);
            assert_int_equal(s.bad_event, 0);
            assert_int_equal(s.bad_utf8, 0);
        }
}

static void test_none_passes_chunks_as_they_came(void **state)
{
    (void)state;
    sink s;
    run(LG_BOUNDARY_NONE, 7, 8, &s);
    assert_int_equal(s.pieces, 3);
    run(LG_BOUNDARY_NONE, 14, 18, &s); /* 14 is inside "é" (bytes 13-14): the first piece ends mid-character */
    assert_int_equal(s.pieces, 3);
    assert_int_equal(s.bad_utf8, 1);
}

static void test_stream_ending_inside_a_character_delivers_the_rest(void **state)
{
    (void)state;
    const char *cut = "abc\xe4\xbd"; /* "你" without its last byte */
    lg_boundary bd;
    lg_boundary_init(&bd, LG_BOUNDARY_UTF8);
    sink s;
    memset(&s, 0, sizeof s);
    assert_true(lg_boundary_feed(&bd, cut, 5, collect, &s));
    assert_int_equal(s.len, 3);
    assert_true(lg_boundary_flush(&bd, collect, &s));
    assert_int_equal(s.len, 5);
    assert_memory_equal(s.out, cut, 5);
    lg_boundary_free(&bd);
}

static void test_invalid_bytes_are_not_held_forever(void **state)
{
    (void)state;
    const char bad[] = "x\x80\x80\x80\x80\x80y\xff";
    assert_int_equal(lg_utf8_complete_prefix(bad, sizeof bad - 1), sizeof bad - 1);
    assert_int_equal(lg_utf8_complete_prefix("\xf0\x9f\x99", 3), 0);
    assert_int_equal(lg_utf8_complete_prefix("a\xf0\x9f\x99\x82", 5), 5);
    assert_int_equal(lg_utf8_complete_prefix("", 0), 0);
}

static void test_refusal_stops_the_stream(void **state)
{
    (void)state;
    lg_boundary bd;
    lg_boundary_init(&bd, LG_BOUNDARY_UTF8);
    sink s;
    memset(&s, 0, sizeof s);
    s.refuse_after = 1;
    assert_false(lg_boundary_feed(&bd, "hello", 5, collect, &s));
    lg_boundary_free(&bd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_utf8_every_split),
        cmocka_unit_test(test_event_every_split),
        cmocka_unit_test(test_none_passes_chunks_as_they_came),
        cmocka_unit_test(test_stream_ending_inside_a_character_delivers_the_rest),
        cmocka_unit_test(test_invalid_bytes_are_not_held_forever),
        cmocka_unit_test(test_refusal_stops_the_stream),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
