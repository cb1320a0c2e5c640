/* The capture of an attempt's response (src/hook/curl_capture.c): header lines kept as they came, each
 * split into a trimmed name and value as it arrives, a second status line starting a new block, the
 * event-stream content type noted, lines replaced, and buffers kept between responses unless large. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hook/curl_capture.h"

/* Hands each line to the header callback as libcurl does (not NUL-terminated: a copy without the NUL). */
static void headers(lg_capture *c, const char *const *lines)
{
    for (; *lines; lines++) {
        size_t len = strlen(*lines);
        char *copy = malloc(len);
        assert_non_null(copy);
        memcpy(copy, *lines, len);
        assert_int_equal(lg_capture_header(copy, 1, len, c), len);
        free(copy);
    }
}

static void lines_split_as_they_arrive(void **state)
{
    (void)state;
    lg_capture c = {0};
    const char *block[] = {"HTTP/1.1 200 OK\r\n", "Content-Type:  text/event-stream; charset=utf-8 \r\n",
                           "x-ratelimit-remaining-requests:\t42\r\n", "X-Empty:\r\n", "\r\n", NULL};
    headers(&c, block);
    lg_response_view v;
    lg_capture_view(&c, &v);
    assert_int_equal(v.status, 200);
    assert_true(v.stream);
    assert_int_equal(c.n_lines, 5);
    assert_string_equal(c.lines[1], "Content-Type:  text/event-stream; charset=utf-8 \r\n");
    assert_int_equal(v.n_headers, 3);
    assert_string_equal(v.headers[0].name, "Content-Type");
    assert_string_equal(v.headers[0].value, "text/event-stream; charset=utf-8");
    assert_string_equal(lg_header_get(v.headers, v.n_headers, "X-RATELIMIT-REMAINING-REQUESTS"), "42");
    assert_string_equal(lg_header_get(v.headers, v.n_headers, "x-empty"), "");
    lg_capture_free(&c);
}

static void a_second_block_replaces_the_first(void **state)
{
    (void)state;
    lg_capture c = {0};
    const char *first[] = {"HTTP/1.1 100 Continue\r\n", "Content-Type: text/event-stream\r\n", "\r\n", NULL};
    const char *second[] = {"HTTP/1.1 429 Too Many: Requests\r\n", "Retry-After: 7\r\n", "\r\n", NULL};
    headers(&c, first);
    headers(&c, second);
    lg_response_view v;
    lg_capture_view(&c, &v);
    assert_int_equal(v.status, 429);
    assert_false(v.stream);
    assert_int_equal(c.n_lines, 3);
    assert_int_equal(v.n_headers, 1); /* the status line is no header, whatever its reason says */
    assert_string_equal(v.headers[0].value, "7");
    lg_capture_free(&c);
}

static void many_lines_move_the_text_safely(void **state)
{
    (void)state;
    lg_capture c = {0};
    char line[600];
    const char *status[] = {"HTTP/2 200\r\n", NULL};
    headers(&c, status);
    for (int i = 0; i < 200; i++) { /* far past the first buffer: the text moves, every pointer with it */
        int n = snprintf(line, sizeof line, "X-Name-%d: %0*d\r\n", i, 300, i);
        assert_int_equal(lg_capture_header(line, 1, (size_t)n, &c), (size_t)n);
    }
    assert_int_equal(c.n_hdrs, 200);
    for (int i = 0; i < 200; i += 37) {
        char name[32];
        snprintf(name, sizeof name, "x-name-%d", i);
        const char *v = lg_header_get(c.hdrs, c.n_hdrs, name);
        assert_non_null(v);
        assert_int_equal(strlen(v), 300);
        assert_int_equal(atoi(v), i);
        assert_int_equal(memcmp(c.lines[i + 1], "X-Name-", 7), 0);
    }
    for (size_t i = 0; i < c.n_lines; i++) /* every line and header lies in the text as it is now */
        assert_true(c.lines[i] >= c.text && c.lines[i] < c.text + c.text_len);
    for (size_t i = 0; i < c.n_hdrs; i++)
        assert_true(c.hdrs[i].name >= c.text && c.hdrs[i].value < c.text + c.text_len);
    assert_true(lg_capture_set_line(&c, 1, "Content-Length: 5\r\n"));
    assert_string_equal(c.lines[1], "Content-Length: 5\r\n");
    lg_capture_free(&c);
}

static void large_buffers_are_not_kept(void **state)
{
    (void)state;
    lg_capture c = {0};
    const char *block[] = {"HTTP/1.1 200 OK\r\n", "A: b\r\n", "\r\n", NULL};
    headers(&c, block);
    char chunk[4096];
    memset(chunk, 'x', sizeof chunk);
    assert_int_equal(lg_capture_write(chunk, 1, sizeof chunk, &c), sizeof chunk);
    lg_capture_shrink(&c, 64 * 1024);
    assert_non_null(c.body); /* a usual response's buffers stay for the next one */
    assert_non_null(c.text);
    for (int i = 0; i < 40; i++)
        assert_int_equal(lg_capture_write(chunk, 1, sizeof chunk, &c), sizeof chunk);
    assert_true(c.body_cap > 64 * 1024);
    lg_capture_shrink(&c, 64 * 1024);
    assert_null(c.body);
    assert_int_equal(c.body_cap, 0);
    assert_non_null(c.text);
    lg_response_view v;
    lg_capture_view(&c, &v);
    assert_int_equal(v.body_len, 0);
    lg_capture_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lines_split_as_they_arrive),
        cmocka_unit_test(a_second_block_replaces_the_first),
        cmocka_unit_test(many_lines_move_the_text_safely),
        cmocka_unit_test(large_buffers_are_not_kept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
