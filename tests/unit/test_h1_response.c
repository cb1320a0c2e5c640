/* The socket path's reading of a provider's response (src/front/h1_response.c): a plain head all in one
 * read is read a line at a time (src/front/h1_head.c) with libhttp-parser taking only its status line and
 * framing lines; any other head is libhttp-parser's alone. Differential: many random and edge-case
 * responses read whole (the line reader where the head is plain) and a byte a read (libhttp-parser alone)
 * give the same step result, status, keep-alive, framing, header lines (as the capture keeps them), and
 * body bytes; and the line reader takes only heads libhttp-parser reads without error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "front/h1_head.h"
#include "front/h1_response.h"
#include "util/word.h"

#include "../fuzz/h1_reader.h"
#include "rng.h"

#define MAX_IN 8192

typedef struct {
    lg_h1r_step step;
    bool keep_alive, chunked, committed;
    unsigned status_code;
    lg_capture cap;
    host to_host;
} outcome;

static char host_whole[MAX_OUT], host_split[MAX_OUT];

/* Reads the response in data in reads of step bytes (then the end of the connection) into o. */
static void read_response(const char *data, size_t size, size_t step, bool head, outcome *o)
{
    char *out = o->to_host.out;
    memset(o, 0, sizeof *o);
    o->to_host.out = out;
    server s = {.data = (const uint8_t *)data, .size = size, .step = step};
    lg_h1_io io = {.recv = server_recv};
    lg_relay relay;
    memset(&relay, 0, sizeof relay);
    lg_relay_sink sink = {.headers = host_headers, .body = host_body, .ctx = &o->to_host};
    lg_relay_start(&relay, &o->cap, LG_DIALECT_OPENAI, LG_BOUNDARY_NONE, &sink);
    lg_h1_resp r;
    memset(&r, 0, sizeof r);
    lg_h1_resp_start(&r, &o->cap, &relay, head);
    do
        o->step = lg_h1_resp_step(&r, &io, &s);
    while (o->step == LG_H1R_MORE);
    if (o->step == LG_H1R_DONE && lg_relay_committed(&relay))
        lg_relay_finish(&relay);
    o->keep_alive = r.keep_alive;
    o->chunked = r.chunked;
    o->status_code = r.p.status_code;
    o->committed = lg_relay_committed(&relay);
    lg_h1_resp_free(&r);
    lg_relay_free(&relay);
}

static bool same_bytes(const char *a, size_t na, const char *b, size_t nb)
{
    return na == nb && (na == 0 || memcmp(a, b, na) == 0);
}

/* Reads data whole and a byte at a time and checks both read the same; true when the head was plain. */
static bool differential(const char *data, size_t size, bool head)
{
    static outcome whole = {.to_host.out = host_whole}, split = {.to_host.out = host_split};
    lg_h1_head h;
    bool plain = lg_h1_head_split(data, size, &h);
    read_response(data, size, size ? size : 1, head, &whole);
    read_response(data, size, 1, head, &split);
    if (whole.step != split.step) {
        fprintf(stderr, "step %d / %d for:\n%.*s\n", (int)whole.step, (int)split.step, (int)size, data);
        fail();
    }
    if (whole.step != LG_H1R_FAILED && (whole.keep_alive != split.keep_alive || whole.status_code != split.status_code ||
                                        whole.chunked != split.chunked))
        fprintf(stderr, "framing differs (head %d) for:\n%.*s\n", head, (int)size, data);
    if (whole.step != LG_H1R_FAILED) { /* what a failed read kept depends on where the parser gave up */
        assert_int_equal(whole.status_code, split.status_code);
        assert_int_equal(whole.cap.status, split.cap.status);
        assert_int_equal(whole.keep_alive, split.keep_alive);
        assert_int_equal(whole.chunked, split.chunked);
        assert_int_equal(whole.committed, split.committed);
        assert_int_equal(whole.cap.n_lines, split.cap.n_lines);
        assert_int_equal(whole.cap.n_hdrs, split.cap.n_hdrs);
        if (!same_bytes(whole.cap.text, whole.cap.text_len, split.cap.text, split.cap.text_len)) {
            fprintf(stderr, "header lines differ for:\n%.*s\n", (int)size, data);
            fail();
        }
        assert_true(same_bytes(whole.cap.body, whole.cap.body_len, split.cap.body, split.cap.body_len));
        assert_false(whole.to_host.overflow || split.to_host.overflow);
        assert_true(same_bytes(whole.to_host.out, whole.to_host.len, split.to_host.out, split.to_host.len));
    } else if (plain) {
        /* a plain head fails only where libhttp-parser itself fails: its framing, status line or body */
        assert_int_equal(split.step, LG_H1R_FAILED);
    }
    lg_capture_free(&whole.cap);
    lg_capture_free(&split.cap);
    return plain;
}

static const char *const status_lines[] = {
    "HTTP/1.1 200 OK\r\n", "HTTP/1.1 200 OK\r\n", "HTTP/1.1 200 OK\r\n", "HTTP/1.0 200 OK\r\n",
    "HTTP/1.1 429 Too Many Requests\r\n", "HTTP/1.1 500 Internal Server Error\r\n", "HTTP/1.1 204 No Content\r\n",
    "HTTP/1.1 304 Not Modified\r\n", "HTTP/1.1 200 Whatever Reason\r\n", "HTTP/1.1 200\r\n", "HTTP/1.1 99 Odd\r\n",
    "HTTP/1.1 200 OK\n", "HTTP/2 200 OK\r\n", "HTTP/1.1 2000 OK\r\n", "http/1.1 200 OK\r\n",
    "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n", "HTTP/1.1 101 Switching Protocols\r\n",
    "HTTP/1.1 200 X\r\x0e" "content-length: 2\r\n", "HTTP/1.1 200 X\rTransfer-Encoding: chunked\r\n",
    "HTTP/1.1 200 O\tK\r\n", "HTTP/1.1 200 O\x7fK\r\n",
};

/* Header names: common, framing ones in many spellings, near misses, and characters the line reader
 * leaves to libhttp-parser. */
static const char *const names[] = {
    "Content-Type", "content-type", "Date", "Server", "x-request-id", "openai-processing-ms",
    "x-ratelimit-limit-requests", "x-ratelimit-remaining-tokens", "x-ratelimit-reset-requests", "Set-Cookie",
    "Content-Length", "content-length", "CONTENT-LENGTH", "Content-Lengthx", "Content-Lengt", "Content-Length ",
    "Transfer-Encoding", "transfer-encoding", "Transfer-Encodingg", "Transfer-Encodin", "Connection",
    "connection", "Proxy-Connection", "proxy-connection", "Upgrade", "upgrade", "Upgrade-Insecure", "Keep-Alive",
    "Con", "C", "P", "T", "U", "X_Under_Score", "X.Dot", "X Space", "X\"Q", "", "X\tTab", "9-digit",
};

static const char *const values[] = {
    "application/json", "text/event-stream; charset=utf-8", "Mon, 07 Dec 2026 00:20:35 GMT", "42", "999ms",
    "", " ", "  padded  ", "trailing ", "close", "keep-alive", "Keep-Alive", "upgrade", "close, keep-alive",
    "keep-alive, Upgrade", "chunked", "Chunked", "gzip, chunked", "chunked, gzip", "identity", "chunkedx",
    "0", "5", "12", "00012", "1 2", "-1", "12abc", "99999999999999999999999", "tab\there", "\x01" "ctl",
    "del\x7f", "high \xc3\xa9t\xc3\xa9 \xff", "a:b:c", "quote\"d", "h2c",
};

/* Appends s to buf at *len (bounded). */
static void put(char *buf, size_t *len, const char *s, size_t n)
{
    if (*len + n > MAX_IN)
        n = MAX_IN - *len;
    memcpy(buf + *len, s, n);
    *len += n;
}
static void puts_(char *buf, size_t *len, const char *s) { put(buf, len, s, strlen(s)); }

/* A random response: a status line, header lines (mostly well-formed, some odd), a blank line, a body. */
static size_t random_response(char *buf)
{
    size_t len = 0;
    puts_(buf, &len, status_lines[rnd(sizeof status_lines / sizeof *status_lines)]);
    unsigned n = rnd(18), odd = rnd(4) == 0; /* a quarter of the heads may hold odd lines */
    for (unsigned i = 0; i < n; i++) {
        unsigned k = odd ? rnd(sizeof names / sizeof *names) : rnd(30);
        const char *v = values[odd ? rnd(sizeof values / sizeof *values) : rnd(16)];
        puts_(buf, &len, names[k]);
        puts_(buf, &len, odd && rnd(8) == 0 ? "" : ":");
        static const char *const seps[] = {" ", " ", " ", "", "  ", "\t", " \t"};
        puts_(buf, &len, seps[odd ? rnd(7) : rnd(3)]);
        puts_(buf, &len, v);
        puts_(buf, &len, odd && rnd(10) == 0 ? "\n" : "\r\n");
        if (odd && rnd(12) == 0)
            puts_(buf, &len, " folded continuation\r\n");
    }
    puts_(buf, &len, odd && rnd(10) == 0 ? "\n" : "\r\n");
    static const char *const bodies[] = {"", "hello", "{\"id\":\"x\",\"choices\":[]}", "5\r\nhello\r\n0\r\n\r\n",
                                         "3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n", "zz", "HTTP/1.1 200 OK\r\n\r\n"};
    puts_(buf, &len, bodies[rnd(sizeof bodies / sizeof *bodies)]);
    return len;
}

static void random_responses_read_alike(void **state)
{
    (void)state;
    static char buf[MAX_IN];
    unsigned plain = 0, other = 0;
    for (uint64_t seed = 1; seed <= 20000; seed++) {
        test_rng_seed(seed);
        size_t len = random_response(buf);
        if (differential(buf, len, rnd(10) == 0))
            plain++;
        else
            other++;
    }
    /* both readings are exercised well */
    assert_true(plain > 5000);
    assert_true(other > 2000);
}

/* Edge cases one by one: each read whole and a byte at a time alike; plain says which the line reader takes. */
static void edge_cases_read_alike(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        bool plain;
    } cases[] = {
        {"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi", true},
        {"\r\ngg:\r\n\r\n", false}, /* an empty first line: the parser skips it and reads the next as the start */
        {"\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi", false},
        {"HTTP/1.1 200 OK\r\ncontent-length:2\r\n\r\nhi", true},
        {"HTTP/1.1 200 OK\r\nContent-Length:    2\r\nX-A:\r\nX-B: \r\nX-C:  c  \r\n\r\nhi", true},
        {"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n", true},
        {"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nhi", true},
        {"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n", true},
        {"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nuntil the end", true},
        {"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n", true},
        {"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhiHTTP/1.1 200 OK\r\n\r\n", true},
        {"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx", true},
        {"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhi", true}, /* cut short: EOF */
        {"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n", false},    /* the head is not all there */
        {"HTTP/1.1 200 OK\r\nX-Tab:\tv\r\nContent-Length: 0\r\n\r\n", false},
        {"HTTP/1.1 200 OK\nContent-Length: 0\n\n", false},
        {"HTTP/1.1 200 OK\r\nX-Fold: a\r\n b\r\nContent-Length: 0\r\n\r\n", false},
        {"HTTP/1.1 200 OK\r\nX Sp: a\r\nContent-Length: 0\r\n\r\n", false},
        {"HTTP/1.1 200 OK\r\nTransfer-Encodingg: chunked\r\nContent-Length: 2\r\n\r\nhi", true},
        {"HTTP/1.1 200 OK\r\nX-Del: a\x7f\r\n\r\n", false},
        {"HTTP/1.1 200 OK\r\nX-High: \xe2\x82\xac\r\nContent-Length: 0\r\n\r\n", true},
        {"HTTP/1.1 200 OK\r\n: empty name\r\n\r\n", false},
        {"HTTP/1.1 200 OK\r\nno colon\r\n\r\n", false},
        {"HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n", true},
        {"HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n", true},
        {"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r", false},
        {"HTTP/1.1 200 OK\r\n\r\n", true},
        {"\r\n", false},
        {"HTTP/1.1 200 OK\r\r\n\r\n", false},
        /* libhttp-parser ends the status line at its first CR and takes any byte after it for the LF */
        {"HTTP/1.1 200 X\r\x0e" "content-t~ype: text/event-stream\r\nContent-Length: 2\r\n\r\nhi", false},
        {"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi", true},
        {"HTTP/1.1 2x0 OK\r\nContent-Length: 2\r\n\r\nhi", true}, /* the status line is libhttp-parser's to judge */
    };
    static char buf[MAX_IN];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        size_t len = strlen(cases[i].text);
        memcpy(buf, cases[i].text, len);
        if (differential(buf, len, false) != cases[i].plain) {
            fprintf(stderr, "case %zu: plain expected %d\n", i, cases[i].plain);
            fail();
        }
    }
}

/* The line reader's lines: offsets, names and values as it split them. */
static void head_split_lines(void **state)
{
    (void)state;
    const char *t = "HTTP/1.1 200 OK\r\nA: 1\r\nBb:  two \r\nC:\r\n\r\nbody";
    lg_h1_head h;
    assert_true(lg_h1_head_split(t, strlen(t), &h));
    assert_int_equal(h.start_len, 17);
    assert_int_equal(h.n, 3);
    assert_int_equal(h.len, strlen(t) - 4);
    assert_int_equal(h.lines[1].off, 23);
    assert_int_equal(h.lines[1].name_len, 2);
    assert_int_equal(h.lines[1].value_off, 5);
    assert_int_equal(h.lines[1].len, 11);
    assert_true(lg_h1_head_canonical(t, &h.lines[0]));
    assert_false(lg_h1_head_canonical(t, &h.lines[1]));
    assert_false(lg_h1_head_canonical(t, &h.lines[2]));
    assert_true(lg_h1_head_framing("CONTENT-length", 14));
    assert_true(lg_h1_head_framing("transfer-encodingg", 18)); /* libhttp-parser reads it as one */
    assert_false(lg_h1_head_framing("content-lengt", 13));
    assert_false(lg_h1_head_framing("connectio", 9));
}

/* Every byte in every place of a 16-byte name and value (read a word at a time, then byte by byte): the
 * line reader takes in a name a letter, digit, '-' or '_', ends it at a colon, takes in a value any byte
 * but a control byte or DEL, and leaves anything else to the parser. */
static void head_split_name_bytes(void **state)
{
    (void)state;
    for (unsigned i = 0; i < 16; i++)
        for (unsigned b = 0; b < 256; b++) {
            char t[64];
            memcpy(t, "HTTP/1.1 200 OK\r\nabcdefghijklmnop: v\r\n\r\n", 41);
            t[17 + i] = (char)b;
            bool name = (b | 0x20) - 'a' < 26u || b - '0' < 10u || b == '-' || b == '_';
            lg_h1_head h;
            bool plain = lg_h1_head_split(t, 41, &h);
            if (name || (b == ':' && i > 0)) {
                assert_true(plain);
                assert_int_equal(h.lines[0].name_len, name ? 16 : i);
            } else {
                assert_false(plain);
            }
            /* the same byte in a 16-byte value: any but a control byte or DEL */
            memcpy(t, "HTTP/1.1 200 OK\r\nA: abcdefghijklmnop\r\n\r\n", 41);
            t[20 + i] = (char)b;
            assert_int_equal(lg_h1_head_split(t, 41, &h), b >= 0x20 && b != 0x7f);
        }
}

/* The framing names as lg_h1_head_framing read them before its word compares (strncasecmp): the reference
 * it is checked against. */
static bool framing_reference(const char *name, size_t len)
{
    static const char *const words[] = {"connection", "content-length", "proxy-connection", "transfer-encoding",
                                        "upgrade"};
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (len >= strlen(words[i]) && !strncasecmp(name, words[i], strlen(words[i])))
            return true;
    return false;
}

/* Random names, most of them a framing name or another the socket path compares a word at a time (or one
 * cut short, or run on) with each byte kept, flipped in case, or replaced by any byte (the 0x20 bit flipped, a control byte, a high one), read from a buffer
 * that ends with them: lg_h1_head_framing answers as the reference for each, and lg_word_begins as
 * strncasecmp for each word of 8 to 24 bytes. */
static void framing_names_read_as_before(void **state)
{
    (void)state;
    static const char *const words[] = {"connection", "content-length", "proxy-connection", "transfer-encoding",
                                        "upgrade", "content-type", "transfer", "upgrade-insecure-requests",
                                        "x-llmgate-pin", "accept-encoding"};
    test_rng_seed(32);
    for (unsigned round = 0; round < 400000; round++) {
        char name[40];
        size_t len;
        if (rnd(8) == 0) { /* any bytes */
            len = 1 + rnd(30);
            for (size_t i = 0; i < len; i++)
                name[i] = (char)rnd(256);
        } else {
            const char *w = words[rnd(sizeof words / sizeof *words)];
            size_t wl = strlen(w);
            len = wl - 2 + rnd(8); /* two short of the word up to five past it */
            for (size_t i = 0; i < len; i++) {
                char c = i < wl ? w[i] : (char)('a' + rnd(26));
                unsigned r = rnd(16);
                name[i] = r < 10 ? c : r < 14 ? (char)(c ^ 0x20) : (char)rnd(256);
            }
        }
        char *buf = malloc(len); /* no byte after the name to read */
        assert_non_null(buf);
        memcpy(buf, name, len);
        if (lg_h1_head_framing(buf, len) != framing_reference(buf, len)) {
            fprintf(stderr, "round %u: %.*s (%zu bytes) read otherwise\n", round, (int)len, buf, len);
            fail();
        }
        for (size_t w = 0; w < sizeof words / sizeof *words; w++) { /* the word compare itself: 8-24 bytes */
            size_t wl = strlen(words[w]);
            if (wl >= 8 && wl <= 24 && lg_word_begins(buf, len, words[w], wl) != (len >= wl && !strncasecmp(buf, words[w], wl))) {
                fprintf(stderr, "round %u: %.*s against %s read otherwise\n", round, (int)len, buf, words[w]);
                fail();
            }
        }
        free(buf);
    }
}

/* The line reader's scans as a byte loop: the reference. */
static const char *ref_name_end(const char *q, const char *end)
{
    while (q < end && ((unsigned)((*q | 0x20) - 'a') < 26 || (unsigned)(*q - '0') < 10 || *q == '-' || *q == '_'))
        q++;
    return q;
}

static const char *ref_first_special(const char *q, const char *end)
{
    while (q < end && (unsigned char)*q >= 0x20 && *q != 0x7f)
        q++;
    return q;
}

/* The line reader's scans, 16 bytes at a time (SSE2) and 8 (their _words form, the old one), against a byte
 * loop, on random buffers of 0-80 bytes from three alignments, most bytes ones the scan goes over (a
 * name's, a value's) with now and then one that stops it (any byte), each buffer an allocation of its exact
 * size. */
static void scans_read_as_the_byte_loop(void **state)
{
    (void)state;
    static const char name_set[] = "abcxyzABCXYZ0189-_", value_set[] = " !~azAZ09:;\x80\xff";
    test_rng_seed(33);
    for (unsigned round = 0; round < 200000; round++) {
        size_t len = rnd(81);
        unsigned stop_odds = 2 + rnd(60);
        bool in_name = rnd(2);
        char *buf = malloc(len ? len : 1);
        assert_non_null(buf);
        for (size_t i = 0; i < len; i++)
            buf[i] = rnd(stop_odds) == 0 ? (char)rnd(256)
                     : in_name          ? name_set[rnd(sizeof name_set - 1)]
                                        : value_set[rnd(sizeof value_set - 1)];
        const char *end = buf + len;
        for (size_t from = 0; from <= len && from < 3; from++) {
            const char *q = buf + from;
            assert_ptr_equal(lg_h1_name_end(q, end), ref_name_end(q, end));
            assert_ptr_equal(lg_h1_name_end_words(q, end), ref_name_end(q, end));
            assert_ptr_equal(lg_h1_first_special(q, end), ref_first_special(q, end));
            assert_ptr_equal(lg_h1_first_special_words(q, end), ref_first_special(q, end));
        }
        free(buf);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(head_split_lines),
        cmocka_unit_test(head_split_name_bytes),
        cmocka_unit_test(framing_names_read_as_before),
        cmocka_unit_test(scans_read_as_the_byte_loop),
        cmocka_unit_test(edge_cases_read_alike),
        cmocka_unit_test(random_responses_read_alike),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
