/* The capture of an attempt's response (src/front/capture.c): header lines kept as they came, each
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
#include <strings.h>

#include "front/capture.h"

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

/* The capture's reading of one header block as it was before it was made cheaper (strncasecmp for the
 * status line, atoi after its first space, a byte loop trimming the value, strcasecmp for the content
 * type): the reference the capture is compared with. */
typedef struct {
    int status;
    bool stream;
    size_t n;
    char name[64][128], value[64][128];
} ref_block;

static void ref_line(ref_block *b, const char *line, size_t len)
{
    if (len >= 5 && !strncasecmp(line, "HTTP/", 5)) {
        char tmp[256];
        memcpy(tmp, line, len);
        tmp[len] = '\0';
        const char *sp = memchr(tmp, ' ', len);
        b->status = sp ? atoi(sp + 1) : 0;
        b->n = 0;
        b->stream = false;
        return;
    }
    const char *colon = memchr(line, ':', len);
    if (!colon || colon == line)
        return;
    const char *v = colon + 1, *end = line + len;
    while (v < end && (*v == ' ' || *v == '\t'))
        v++;
    while (end > v && (end[-1] == '\r' || end[-1] == '\n' || end[-1] == ' ' || end[-1] == '\t'))
        end--;
    size_t nlen = (size_t)(colon - line), vlen = (size_t)(end - v);
    memcpy(b->name[b->n], line, nlen);
    b->name[b->n][nlen] = '\0';
    memcpy(b->value[b->n], v, vlen);
    b->value[b->n][vlen] = '\0';
    if (nlen == 12 && !strcasecmp(b->name[b->n], "content-type"))
        b->stream = lg_is_event_stream(b->value[b->n]);
    b->n++;
}

/* Hands the len bytes at line to both captures as libcurl hands a header line: in a buffer of exactly len
 * bytes, not NUL-terminated (the sanitizer build sees any byte read past it). */
static void feed_both(lg_capture *c, lg_capture *skip, const char *line, size_t len)
{
    char *copy = malloc(len ? len : 1);
    assert_non_null(copy);
    memcpy(copy, line, len);
    assert_int_equal(lg_capture_header(copy, 1, len, c), len);
    assert_int_equal(lg_capture_header(copy, 1, len, skip), len);
    free(copy);
}

static unsigned rnd(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return (*seed >> 8) & 0xffffff;
}

/* Generated and mutated header blocks, fed to the capture and to the reference: the same status, headers
 * (names and trimmed values), event-stream flag and raw lines; where the capture says the status was
 * three plain digits, they are what follows the first space. A capture that keeps no raw lines
 * (skip_lines) gives the same view. */
static void differs_in_nothing_from_the_old_reading(void **state)
{
    (void)state;
    static const char *const bases[] = {
        "HTTP/1.1 200 OK\r\n", "http/1.1 429 Too Many\r\n", "HTTP/2 200 \r\n", "HTTP/1.1  503\r\n",
        "HTTP/1.1 +200 x\r\n", "HTTP/1.1 2000 x\r\n", "HTTP/1.1 20\r\n", "HTTP/1.1\r\n", "HTTP/1.0 404",
        "HTTPS/1 200\r\n", "HTTP/1.1 099 x\r\n", "HtTp/3 301 Moved\r\n",
        "Content-Type: text/event-stream\r\n", "content-TYPE:\ttext/event-stream; charset=utf-8 \r\n",
        "Content-Type: application/json\r\n", "Content-Typf: text/event-stream\r\n", "Retry-After: 7\r\n",
        "x-ratelimit-remaining-tokens:   99 \t\r\n", "X-Empty:\r\n", "X-Spaces:    \r\n", ": no name\r\n",
        "no colon at all\r\n", "\r\n", "\n", "A:b", "Trailing: lf only\n", "Odd: cr\r\r\n", "Tab:\tv\t\r\n",
    };
    static const char alphabet[] = " \t\r\n:/aZ09-HTtp+";
    size_t nb = sizeof bases / sizeof *bases;
    unsigned seed = 12345;
    for (int round = 0; round < 3000; round++) {
        lg_capture c = {0}, skip = {.skip_lines = true}; /* skip: the same lines, the raw ones not kept */
        ref_block *ref = calloc(1, sizeof *ref);
        assert_non_null(ref);
        char raw[40][160];
        size_t raw_len[40], n_raw = 0;
        int lines = 1 + (int)(rnd(&seed) % 12);
        for (int i = 0; i < lines; i++) {
            const char *base = bases[i == 0 ? rnd(&seed) % 12 : rnd(&seed) % nb];
            size_t len = strlen(base);
            char line[160];
            memcpy(line, base, len);
            for (int m = (int)(rnd(&seed) % 3); m > 0 && len > 0; m--) /* a byte changed, added or cut */
                switch (rnd(&seed) % 3) {
                case 0: line[rnd(&seed) % len] = alphabet[rnd(&seed) % (sizeof alphabet - 1)]; break;
                case 1:
                    if (len < sizeof line - 1)
                        line[len++] = alphabet[rnd(&seed) % (sizeof alphabet - 1)];
                    break;
                default: len--;
                }
            feed_both(&c, &skip, line, len);
            ref_line(ref, line, len);
            bool status_line = len >= 5 && !strncasecmp(line, "HTTP/", 5);
            if (status_line)
                n_raw = 0;
            memcpy(raw[n_raw], line, len);
            raw_len[n_raw++] = len;
            if (status_line && c.status_plain) {
                const char *sp = memchr(line, ' ', len);
                assert_non_null(sp);
                assert_true(sp + 4 < line + len);
                assert_int_equal(c.status, (sp[1] - '0') * 100 + (sp[2] - '0') * 10 + (sp[3] - '0'));
            }
        }
        lg_response_view v;
        lg_capture_view(&c, &v);
        assert_int_equal(v.status, ref->status);
        assert_int_equal(v.stream, ref->stream);
        assert_int_equal(v.n_headers, ref->n);
        for (size_t i = 0; i < ref->n; i++) {
            assert_string_equal(v.headers[i].name, ref->name[i]);
            assert_string_equal(v.headers[i].value, ref->value[i]);
        }
        lg_response_view sv;
        lg_capture_view(&skip, &sv);
        assert_int_equal(sv.status, v.status);
        assert_int_equal(sv.stream, v.stream);
        assert_int_equal(sv.n_headers, v.n_headers);
        for (size_t i = 0; i < v.n_headers; i++) {
            assert_string_equal(sv.headers[i].name, v.headers[i].name);
            assert_string_equal(sv.headers[i].value, v.headers[i].value);
        }
        assert_int_equal(skip.n_lines, 0);
        assert_int_equal(skip.lines_seen, (size_t)lines);
        assert_int_equal(c.lines_seen, (size_t)lines);
        lg_capture_free(&skip);
        assert_int_equal(c.n_lines, n_raw);
        for (size_t i = 0; i < n_raw; i++) {
            assert_int_equal(strlen(c.lines[i]), raw_len[i]);
            assert_memory_equal(c.lines[i], raw[i], raw_len[i]);
        }
        lg_capture_free(&c);
        free(ref);
    }
}

/* Plain header lines as lg_h1_head_split takes them (a name of letters, digits, '-' and '_', a colon, spaces,
 * a value of visible bytes, maybe with inner and trailing spaces, CRLF; often Content-Type with an event
 * stream or not), many to a block so that the text moves: each captured with lg_capture_line from the
 * offsets the generator knows and with lg_capture_header (its old reading, the reference), into a capture
 * that keeps the lines and one that does not: the same lines, headers, event-stream flag. */
static void split_lines_captured_as_whole_ones(void **state)
{
    (void)state;
    static const char name_bytes[] = "abcXYZ019-_", value_bytes[] = " a/;=Z9~\x80\xff\"", *const types[] = {
        "Content-Type", "content-type", "CONTENT-TYPE", "Content-Typf"};
    static const char *const type_values[] = {"text/event-stream", "text/event-stream; charset=utf-8",
                                              "application/json", "text/event-strea", "TEXT/EVENT-STREAM"};
    unsigned seed = 32;
    for (int round = 0; round < 3000; round++) {
        lg_capture whole[2] = {{0}, {.skip_lines = true}}, split[2] = {{0}, {.skip_lines = true}};
        int lines = 1 + (int)(rnd(&seed) % 40);
        for (int i = 0; i < lines; i++) {
            char line[200];
            size_t len = 0, name_len, value_off;
            if (rnd(&seed) % 4 == 0) {
                const char *t = types[rnd(&seed) % 4];
                memcpy(line, t, strlen(t));
                len = strlen(t);
            } else {
                for (unsigned k = 1 + rnd(&seed) % 30; k > 0; k--)
                    line[len++] = name_bytes[rnd(&seed) % (sizeof name_bytes - 1)];
            }
            name_len = len;
            line[len++] = ':';
            for (unsigned k = rnd(&seed) % 4; k > 0; k--)
                line[len++] = ' ';
            value_off = len;
            if (name_len == 12 && rnd(&seed) % 2) {
                const char *v = type_values[rnd(&seed) % 5];
                memcpy(line + len, v, strlen(v));
                len += strlen(v);
            } else {
                for (unsigned k = rnd(&seed) % 60; k > 0; k--) {
                    char b = value_bytes[rnd(&seed) % (sizeof value_bytes - 1)];
                    line[len] = b == ' ' && len == value_off ? 'v' : b; /* the spaces before it are skipped */
                    len++;
                }
            }
            bool empty = len == value_off;
            for (unsigned k = rnd(&seed) % 3; k > 0; k--)
                line[len++] = ' ';
            if (empty) /* the reader skips every space: the value begins at the line's end */
                value_off = len;
            line[len++] = '\r';
            line[len++] = '\n';
            char *copy = malloc(len); /* no NUL after it */
            assert_non_null(copy);
            memcpy(copy, line, len);
            for (int k = 0; k < 2; k++) {
                assert_int_equal(lg_capture_header(copy, 1, len, &whole[k]), len);
                assert_int_equal(lg_capture_line(&split[k], copy, len, name_len, value_off), len);
            }
            free(copy);
        }
        for (int k = 0; k < 2; k++) {
            assert_int_equal(split[k].n_lines, whole[k].n_lines);
            for (size_t i = 0; i < whole[k].n_lines; i++)
                assert_string_equal(split[k].lines[i], whole[k].lines[i]);
            lg_response_view a, b;
            lg_capture_view(&whole[k], &a);
            lg_capture_view(&split[k], &b);
            assert_int_equal(b.stream, a.stream);
            assert_int_equal(b.n_headers, a.n_headers);
            for (size_t i = 0; i < a.n_headers; i++) {
                assert_string_equal(b.headers[i].name, a.headers[i].name);
                assert_string_equal(b.headers[i].value, a.headers[i].value);
            }
            lg_capture_free(&whole[k]);
            lg_capture_free(&split[k]);
        }
    }
}

/* Lines of every length up to 126 bytes (the capture's 16- and 8-byte blocks, their overlapping last ones
 * and the bytes below 8), of bytes where ':' is rare, common or absent, at any place: each read into the
 * same name, value and raw line as the reference's memchr and memcpy read it, 40 seeds; every line is handed
 * over in a buffer of its exact size (the sanitizer build sees any byte read past it). */
static void lines_of_every_length_split_as_memchr_splits_them(void **state)
{
    (void)state;
    static const char alphabet[] = "ab:-Z \t\r\n9\x80\xff;";
    for (unsigned s = 1; s <= 40; s++) {
        unsigned seed = s * 7919u;
        for (int round = 0; round < 300; round++) {
            lg_capture c = {0}, skip = {.skip_lines = true};
            ref_block *ref = calloc(1, sizeof *ref);
            assert_non_null(ref);
            unsigned colon_odds = 1 + rnd(&seed) % 40; /* 1: every byte a ':'; 40: few */
            int lines = 1 + (int)(rnd(&seed) % 20);
            char raw[20][128];
            size_t raw_len[20];
            for (int i = 0; i < lines; i++) {
                size_t len = rnd(&seed) % 127;
                char line[128];
                for (size_t k = 0; k < len; k++)
                    line[k] = rnd(&seed) % colon_odds == 0 ? ':' : alphabet[rnd(&seed) % (sizeof alphabet - 1)];
                if (len >= 2 && rnd(&seed) % 2) {
                    line[len - 2] = '\r';
                    line[len - 1] = '\n';
                }
                feed_both(&c, &skip, line, len);
                ref_line(ref, line, len);
                memcpy(raw[i], line, len);
                raw_len[i] = len;
            }
            lg_response_view v, sv;
            lg_capture_view(&c, &v);
            lg_capture_view(&skip, &sv);
            assert_int_equal(v.n_headers, ref->n);
            assert_int_equal(sv.n_headers, ref->n);
            for (size_t i = 0; i < ref->n; i++) {
                assert_string_equal(v.headers[i].name, ref->name[i]);
                assert_string_equal(v.headers[i].value, ref->value[i]);
                assert_string_equal(sv.headers[i].name, ref->name[i]);
                assert_string_equal(sv.headers[i].value, ref->value[i]);
            }
            assert_int_equal(c.n_lines, (size_t)lines);
            for (int i = 0; i < lines; i++) {
                assert_int_equal(strlen(c.lines[i]), strnlen(raw[i], raw_len[i]));
                assert_memory_equal(c.lines[i], raw[i], strlen(c.lines[i]));
            }
            lg_capture_free(&c);
            lg_capture_free(&skip);
            free(ref);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lines_split_as_they_arrive),
        cmocka_unit_test(a_second_block_replaces_the_first),
        cmocka_unit_test(many_lines_move_the_text_safely),
        cmocka_unit_test(large_buffers_are_not_kept),
        cmocka_unit_test(differs_in_nothing_from_the_old_reading),
        cmocka_unit_test(lines_of_every_length_split_as_memchr_splits_them),
        cmocka_unit_test(split_lines_captured_as_whole_ones),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
