/* A request body read ahead from the host's read callback (src/hook/curl/body.c): held whole when its size is
 * known and fits, sent again from the start as often as asked (or the engine's rewrite in its place), and,
 * when the host's callback pauses, ends early or aborts, what it gave first followed by what libcurl would
 * have got from it; nothing held for a body of unknown or too large a size, or one a seek callback rewinds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "hook/curl/body.h"

/* A host's body source: text, given at most `step` bytes a call; after `stop_at` bytes it answers `stop`
 * (once, when pause: then it goes on). */
typedef struct {
    const char *text;
    size_t len, pos, step, stop_at, calls;
    size_t stop;
    bool stopped;
} source;

static size_t host_read(char *buf, size_t size, size_t nmemb, void *userdata)
{
    source *s = userdata;
    s->calls++;
    if (s->pos >= s->stop_at && !s->stopped) {
        s->stopped = s->stop == CURL_READFUNC_PAUSE ? true : s->stopped;
        return s->stop;
    }
    size_t n = size * nmemb;
    n = n < s->step ? n : s->step;
    n = n < s->len - s->pos ? n : s->len - s->pos;
    memcpy(buf, s->text + s->pos, n);
    s->pos += n;
    return n;
}

/* A record as curl_setopt leaves it for an upload (Guzzle: CURLOPT_UPLOAD, INFILESIZE, READFUNCTION). */
static lg_curl_rec upload_of(source *s, curl_off_t size)
{
    return (lg_curl_rec){.upload = true, .infilesize = size, .postsize = -1, .readfn = host_read, .readdata = s};
}

/* Everything an attempt reads through our callback, in reads of at most `chunk` bytes, into out. */
static size_t read_all(lg_curl_body *b, char *out, size_t cap, size_t chunk, size_t *last_rc)
{
    size_t got = 0, n;
    while ((n = lg_curl_body_read(out + got, 1, chunk < cap - got ? chunk : cap - got, b)) > 0 &&
           n <= chunk && got + n <= cap)
        got += n;
    *last_rc = n;
    return got;
}

static void a_known_size_is_held_whole_and_sent_again(void **state)
{
    (void)state;
    static char text[200000];
    for (size_t i = 0; i < sizeof text; i++)
        text[i] = (char)('a' + i % 26);
    source s = {.text = text, .len = sizeof text, .step = 7000, .stop_at = SIZE_MAX};
    lg_curl_rec r = upload_of(&s, sizeof text);
    lg_curl_body b = {0};
    assert_true(lg_curl_body_is_read(&r));
    assert_true(lg_curl_body_hold(&b, &r, 1 << 20));
    assert_true(b.whole);
    assert_int_equal(b.held_len, sizeof text);
    assert_memory_equal(b.held, text, sizeof text);
    static char out[sizeof text + 10];
    size_t rc;
    for (int attempt = 0; attempt < 3; attempt++) { /* each attempt from the first byte */
        assert_int_equal(lg_curl_body_seek(&b, 0, SEEK_SET), CURL_SEEKFUNC_OK);
        assert_int_equal(read_all(&b, out, sizeof out, 16384, &rc), sizeof text);
        assert_int_equal(rc, 0);
        assert_memory_equal(out, text, sizeof text);
    }
    size_t calls = s.calls;
    lg_curl_body_send(&b, "{\"model\":\"x\"}", 13); /* the engine's rewrite */
    assert_int_equal(read_all(&b, out, sizeof out, 5, &rc), 13);
    assert_memory_equal(out, "{\"model\":\"x\"}", 13);
    assert_int_equal(s.calls, calls); /* the host's callback is never asked again */
    assert_int_equal(lg_curl_body_seek(&b, 14, SEEK_SET), CURL_SEEKFUNC_CANTSEEK);
    lg_curl_body_release(&b);
}

static void a_post_body_of_postfieldsize(void **state)
{
    (void)state;
    source s = {.text = "{\"model\":\"gpt-4o\"}", .len = 18, .step = 4, .stop_at = SIZE_MAX};
    lg_curl_rec r = {.post = true, .postsize = 18, .infilesize = -1, .readfn = host_read, .readdata = &s};
    lg_curl_body b = {0};
    assert_true(lg_curl_body_hold(&b, &r, 100));
    assert_true(b.whole);
    assert_string_equal(b.held, "{\"model\":\"gpt-4o\"}");
    lg_curl_body_release(&b);
}

static void nothing_held_when_it_cannot_be(void **state)
{
    (void)state;
    source s = {.text = "abcdef", .len = 6, .step = 6, .stop_at = SIZE_MAX};
    lg_curl_body b = {0};
    lg_curl_rec unknown = upload_of(&s, -1); /* chunked: no size */
    assert_false(lg_curl_body_hold(&b, &unknown, 100));
    lg_curl_rec large = upload_of(&s, 6);
    assert_false(lg_curl_body_hold(&b, &large, 5)); /* over hold.max_body_bytes */
    lg_curl_rec seekable = upload_of(&s, 6);
    seekable.has_seekfn = true; /* the host's seek callback rewinds it */
    assert_false(lg_curl_body_is_read(&seekable));
    assert_false(lg_curl_body_hold(&b, &seekable, 100));
    lg_curl_rec fields = {.post = true, .postfields = "x", .postsize = 1, .infilesize = -1};
    assert_false(lg_curl_body_is_read(&fields));
    assert_int_equal(s.calls, 0);
    assert_false(b.on);
}

static void a_pause_gives_the_held_bytes_then_asks_the_host(void **state)
{
    (void)state;
    source s = {.text = "0123456789", .len = 10, .step = 3, .stop_at = 6, .stop = CURL_READFUNC_PAUSE};
    lg_curl_rec r = upload_of(&s, 10);
    lg_curl_body b = {0};
    assert_true(lg_curl_body_hold(&b, &r, 100));
    assert_false(b.whole);
    assert_int_equal(b.held_len, 6);
    assert_int_equal(lg_curl_body_seek(&b, 0, SEEK_SET), CURL_SEEKFUNC_CANTSEEK);
    char out[16];
    size_t rc;
    assert_int_equal(read_all(&b, out, sizeof out, 100, &rc), 10);
    assert_int_equal(rc, 0);
    assert_memory_equal(out, "0123456789", 10);
    lg_curl_body_release(&b);
}

static void an_abort_or_an_early_end_comes_after_the_held_bytes(void **state)
{
    (void)state;
    const size_t stops[] = {CURL_READFUNC_ABORT, 0};
    for (size_t i = 0; i < 2; i++) {
        source s = {.text = "0123456789", .len = 10, .step = 4, .stop_at = 4, .stop = stops[i]};
        lg_curl_rec r = upload_of(&s, 10);
        lg_curl_body b = {0};
        assert_true(lg_curl_body_hold(&b, &r, 100));
        assert_false(b.whole);
        size_t calls = s.calls;
        char out[16];
        assert_int_equal(lg_curl_body_read(out, 1, sizeof out, &b), 4);
        assert_memory_equal(out, "0123", 4);
        assert_int_equal(lg_curl_body_read(out, 1, sizeof out, &b), stops[i]);
        assert_int_equal(s.calls, calls); /* the host's callback said its last word already */
        lg_curl_body_release(&b);
    }
}

static void released_reads_nothing(void **state)
{
    (void)state;
    source s = {.text = "abc", .len = 3, .step = 3, .stop_at = 1, .stop = CURL_READFUNC_PAUSE};
    lg_curl_rec r = upload_of(&s, 3);
    lg_curl_body b = {0};
    assert_true(lg_curl_body_hold(&b, &r, 100));
    b.on = true;
    lg_curl_body_release(&b);
    assert_true(b.on); /* the handle's state is the caller's */
    char out[4];
    assert_int_equal(lg_curl_body_read(out, 1, sizeof out, &b), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_known_size_is_held_whole_and_sent_again),
        cmocka_unit_test(a_post_body_of_postfieldsize),
        cmocka_unit_test(nothing_held_when_it_cannot_be),
        cmocka_unit_test(a_pause_gives_the_held_bytes_then_asks_the_host),
        cmocka_unit_test(an_abort_or_an_early_end_comes_after_the_held_bytes),
        cmocka_unit_test(released_reads_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
