/* HTTP/1.1 requests as hosts write them (src/front/h1_request.c): parsed in any split, rendered again with
 * another key in whatever place the request carried it, re-framed with a Content-Length, and refused
 * (INVALID) when llmgate cannot follow them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "front/h1_head.h"
#include "front/h1_request.h"
#include "rng.h"

#define MAX (1 << 20)

/* Feeds text in pieces of `step` bytes; returns the final state and how many bytes were taken. */
static lg_h1_state feed(lg_h1_req *r, const char *text, size_t step, size_t *taken)
{
    size_t len = strlen(text), off = 0;
    lg_h1_state s = LG_H1_MORE;
    while (off < len && s == LG_H1_MORE) {
        size_t n = len - off < step ? len - off : step, used = 0;
        s = lg_h1_req_feed(r, text + off, n, MAX, &used);
        off += used;
    }
    *taken = off;
    return s;
}

static char *render(const char *text, const char *key, lg_auth_style style)
{
    lg_h1_req r;
    lg_h1_req_init(&r);
    size_t taken, len = 0;
    assert_int_equal(feed(&r, text, strlen(text), &taken), LG_H1_COMPLETE);
    char *out = lg_h1_req_render(&r, &(lg_h1_render){.key = key, .style = style}, &len);
    assert_non_null(out);
    assert_int_equal(strlen(out), len);
    lg_h1_req_free(&r);
    return out;
}

static const char chunked[] = "POST /v1/chat/completions HTTP/1.1\r\nHost: api.openai.com\r\n"
                              "Authorization: Bearer sk-host\r\nTransfer-Encoding: chunked\r\n\r\n"
                              "5\r\n{\"a\":\r\n3\r\n 1}\r\n0\r\n\r\n";

static void test_any_split_parses_the_same(void **state)
{
    for (size_t step = 1; step <= sizeof chunked; step++) {
        lg_h1_req r;
        lg_h1_req_init(&r);
        size_t taken;
        assert_int_equal(feed(&r, chunked, step, &taken), LG_H1_COMPLETE);
        assert_int_equal(taken, strlen(chunked));
        assert_int_equal(r.body_len, 8);
        assert_memory_equal(r.body, "{\"a\": 1}", 8);
        assert_string_equal(lg_h1_req_header(&r, "HOST"), "api.openai.com");
        char key[64];
        assert_true(lg_h1_req_find_key(&r, key, sizeof key));
        assert_string_equal(key, "sk-host");
        assert_int_equal(r.raw_len, strlen(chunked));
        lg_h1_req_free(&r);
    }
}

static void test_render_replaces_the_key_and_reframes(void **state)
{
    char *out = render(chunked, "sk-live", LG_AUTH_BEARER);
    assert_string_equal(out, "POST /v1/chat/completions HTTP/1.1\r\nHost: api.openai.com\r\n"
                             "Authorization: Bearer sk-live\r\nContent-Length: 8\r\n\r\n{\"a\": 1}");
    free(out);
    out = render("GET /v1/models HTTP/1.1\r\nHost: api.anthropic.com\r\nx-api-key: sk-host\r\n\r\n", "sk-2",
                 LG_AUTH_X_API_KEY);
    assert_string_equal(out, "GET /v1/models HTTP/1.1\r\nHost: api.anthropic.com\r\nx-api-key: sk-2\r\n\r\n");
    free(out);
    /* no key at all: one in the provider's style; NULL key: the host's request re-framed only */
    out = render("POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n{}", "sk-3",
                 LG_AUTH_X_GOOG_API_KEY);
    assert_string_equal(out, "POST /x HTTP/1.1\r\nHost: h\r\nx-goog-api-key: sk-3\r\nContent-Length: 2\r\n\r\n{}");
    free(out);
    out = render("POST /x HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer sk-host\r\nContent-Length: 0\r\n\r\n", NULL,
                 LG_AUTH_BEARER);
    assert_string_equal(out, "POST /x HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer sk-host\r\nContent-Length: 0\r\n\r\n");
    free(out);
}

static void test_key_in_query(void **state)
{
    const char *req = "POST /v1beta/models/g:generateContent?alt=sse&key=sk-host HTTP/1.1\r\nHost: h\r\n"
                      "Content-Length: 2\r\n\r\n{}";
    lg_h1_req r;
    lg_h1_req_init(&r);
    size_t taken;
    assert_int_equal(feed(&r, req, 7, &taken), LG_H1_COMPLETE);
    char key[64];
    assert_true(lg_h1_req_find_key(&r, key, sizeof key));
    assert_string_equal(key, "sk-host");
    lg_h1_req_free(&r);
    char *out = render(req, "sk-q", LG_AUTH_QUERY_KEY);
    assert_string_equal(out, "POST /v1beta/models/g:generateContent?alt=sse&key=sk-q HTTP/1.1\r\nHost: h\r\n"
                             "Content-Length: 2\r\n\r\n{}");
    free(out);
}

/* Renders text as o says (o's key and style included). */
static char *render_as(const char *text, const lg_h1_render *o)
{
    lg_h1_req r;
    lg_h1_req_init(&r);
    size_t taken, len = 0;
    assert_int_equal(feed(&r, text, strlen(text), &taken), LG_H1_COMPLETE);
    char *out = lg_h1_req_render(&r, o, &len);
    assert_non_null(out);
    assert_int_equal(strlen(out), len);
    lg_h1_req_free(&r);
    return out;
}

static void test_render_for_another_provider(void **state)
{
    const char *req = "POST /v1/chat/completions HTTP/1.1\r\nHost: api.openai.com\r\nX-Llmgate-Pin: backup\r\n"
                      "Accept-Encoding: gzip, deflate\r\n"
                      "Authorization: Bearer sk-host\r\nAccept: */*\r\nContent-Length: 2\r\n\r\n{}";
    /* the pin header never goes out, even as the host sent it; nor Accept-Encoding (answers llmgate reads) */
    char *out = render_as(req, &(lg_h1_render){0});
    assert_null(strstr(out, "X-Llmgate-Pin"));
    assert_null(strstr(out, "Accept-Encoding"));
    assert_non_null(strstr(out, "Authorization: Bearer sk-host\r\n"));
    free(out);
    /* another provider: its path, Host and auth style; the host's credentials dropped; the engine's body */
    out = render_as(req, &(lg_h1_render){.key = "sk-b", .style = LG_AUTH_X_API_KEY, .restyle = true,
                                         .target = "/b/v1/chat/completions", .host = "127.0.0.1:8443",
                                         .body = "{\"m\":1}", .body_len = 7});
    assert_string_equal(out, "POST /b/v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:8443\r\nAccept: */*\r\n"
                             "x-api-key: sk-b\r\nContent-Length: 7\r\n\r\n{\"m\":1}");
    free(out);
    /* a key in the query stays there, with the target's key; one extra header; a JSON type when none */
    out = render_as("POST /v1/x?key=sk-host HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\n{}",
                    &(lg_h1_render){.key = "sk-q", .style = LG_AUTH_BEARER, .restyle = true,
                                    .target = "/p/v1/x?key=sk-host", .extra = "anthropic-version: 2023-06-01",
                                    .json = true});
    assert_string_equal(out, "POST /p/v1/x?key=sk-q HTTP/1.1\r\nHost: h\r\nanthropic-version: 2023-06-01\r\n"
                             "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}");
    free(out);
}

static void test_pipelined_rest_is_left(void **state)
{
    const char *two = "GET /a HTTP/1.1\r\nHost: h\r\n\r\nGET /b HTTP/1.1\r\nHost: h\r\n\r\n";
    lg_h1_req r;
    lg_h1_req_init(&r);
    size_t used = 0;
    assert_int_equal(lg_h1_req_feed(&r, two, strlen(two), MAX, &used), LG_H1_COMPLETE);
    assert_int_equal(used, strlen(two) / 2);
    lg_h1_req_free(&r);
}

static void test_what_cannot_be_followed(void **state)
{
    static const char *const bad[] = {
        "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03",                          /* a TLS ClientHello */
        "GET /ws HTTP/1.1\r\nHost: h\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n",
        "CONNECT h:443 HTTP/1.1\r\nHost: h:443\r\n\r\n",
        "POST /x HTTP/1.1\r\nHost: h\r\nExpect: something-else\r\nContent-Length: 2\r\n\r\n{}",
        "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        lg_h1_req r;
        lg_h1_req_init(&r);
        size_t taken;
        assert_int_equal(feed(&r, bad[i], 64, &taken), LG_H1_INVALID);
        assert_false(r.too_large); /* not the size: the bytes themselves (cause not-http1 or http2) */
        lg_h1_req_free(&r);
    }
    /* too large to hold: said so (cause too-large) */
    lg_h1_req r;
    lg_h1_req_init(&r);
    const char *big = "POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 100\r\n\r\n0123456789";
    size_t used;
    assert_int_equal(lg_h1_req_feed(&r, big, strlen(big), 40, &used), LG_H1_INVALID);
    assert_true(r.too_large);
    lg_h1_req_free(&r);
}

/* A connection's next request: nothing of the last one is left (its headers, key, body, raw bytes), and
 * the buffers are reused (a request no larger than the last one allocates nothing). */
static void test_reset_for_the_next_request(void **state)
{
    lg_h1_req r;
    lg_h1_req_init(&r);
    size_t taken;
    const char *first = "POST /v1/chat/completions HTTP/1.1\r\nHost: api.openai.com\r\nX-Llmgate-Pin: a\r\n"
                        "Authorization: Bearer sk-first\r\nContent-Length: 9\r\n\r\n{\"a\": 12}";
    assert_int_equal(feed(&r, first, 5, &taken), LG_H1_COMPLETE);
    const char *text = r.text, *raw = r.raw;
    lg_h1_req_reset(&r);
    assert_int_equal(r.n_fields, 0);
    assert_null(lg_h1_req_header(&r, "host"));
    const char *second = "POST /v1/x HTTP/1.0\r\nHost: h\r\nEmpty:\r\nx-api-key: sk-2\r\nContent-Length: 2\r\n\r\n{}";
    assert_int_equal(feed(&r, second, 3, &taken), LG_H1_COMPLETE);
    assert_ptr_equal(r.text, text);
    assert_ptr_equal(r.raw, raw);
    assert_int_equal(r.raw_len, strlen(second));
    assert_int_equal(r.body_len, 2);
    assert_null(lg_h1_req_header(&r, "authorization"));
    assert_null(lg_h1_req_header(&r, "x-llmgate-pin"));
    assert_string_equal(lg_h1_req_header(&r, "EMPTY"), "");
    char key[64];
    assert_true(lg_h1_req_find_key(&r, key, sizeof key));
    assert_string_equal(key, "sk-2");
    size_t len = 0;
    char *out = lg_h1_req_render(&r, &(lg_h1_render){.key = "sk-3"}, &len);
    assert_string_equal(out, "POST /v1/x HTTP/1.0\r\nHost: h\r\nEmpty: \r\nx-api-key: sk-3\r\nContent-Length: 2\r\n\r\n{}");
    free(out);
    lg_h1_req_free(&r);
}

/* A request read whole (its head, when plain, a line at a time: src/front/h1_head.c) and a byte a write
 * (libhttp-parser alone) ends the same: state, bytes taken, method, URL, header text and fields, body,
 * expect and framing. True when the head was plain. */
static bool read_alike(const char *text)
{
    size_t len = strlen(text), taken_whole, taken_split;
    lg_h1_head h;
    bool plain = lg_h1_head_split(text, len, &h);
    lg_h1_req a, b;
    lg_h1_req_init(&a);
    lg_h1_req_init(&b);
    lg_h1_state sa = feed(&a, text, len ? len : 1, &taken_whole), sb = feed(&b, text, 1, &taken_split);
    if (sa != sb) {
        fprintf(stderr, "state %d / %d for:\n%s\n", (int)sa, (int)sb, text);
        fail();
    }
    if (sa != LG_H1_INVALID) {
        assert_int_equal(taken_whole, taken_split);
        assert_int_equal(a.p.method, b.p.method);
        assert_int_equal(a.headers_done, b.headers_done);
        assert_int_equal(a.expect_continue, b.expect_continue);
        assert_int_equal(a.p.content_length, b.p.content_length);
        assert_int_equal(a.p.flags, b.p.flags);
        assert_int_equal(a.url_len, b.url_len);
        assert_memory_equal(a.url, b.url, a.url_len);
        assert_int_equal(a.body_len, b.body_len);
        if (a.body_len)
            assert_memory_equal(a.body, b.body, a.body_len);
        assert_int_equal(a.n_fields, b.n_fields);
        if (a.text_len != b.text_len || (a.text_len && memcmp(a.text, b.text, a.text_len))) {
            fprintf(stderr, "header text differs for:\n%s\n", text);
            fail();
        }
        for (size_t i = 0; i < a.n_fields; i++) {
            assert_int_equal(a.fields[i].off, b.fields[i].off);
            assert_int_equal(a.fields[i].name_len, b.fields[i].name_len);
            assert_int_equal(a.fields[i].len, b.fields[i].len);
            assert_int_equal(a.fields[i].key, b.fields[i].key);
        }
    }
    lg_h1_req_free(&a);
    lg_h1_req_free(&b);
    return plain;
}

static void test_plain_heads_read_as_the_parser_reads(void **state)
{
    static const char *const starts[] = {
        "POST /v1/chat/completions HTTP/1.1\r\n", "POST /v1/chat/completions HTTP/1.1\r\n", "GET /v1/models HTTP/1.1\r\n",
        "POST /v1/x?key=sk-q HTTP/1.0\r\n", "HEAD / HTTP/1.1\r\n", "CONNECT a:443 HTTP/1.1\r\n", "POST /v1 HTTP/1.1\n",
        "BREW / HTTP/1.1\r\n", "POST /a b HTTP/1.1\r\n",
    };
    static const char *const names[] = {
        "Host", "Authorization", "Content-Type", "Accept-Encoding", "User-Agent", "x-api-key", "api-key",
        "X-Llmgate-Pin", "Content-Length", "content-length", "Transfer-Encoding", "Connection", "Expect",
        "Upgrade", "Proxy-Connection", "Content-Lengthx", "Transfer-Encodingg", "X Space", "X.Dot", "",
    };
    static const char *const values[] = {
        "api.openai.com", "Bearer sk-host", "application/json", "identity", "4", "0", "chunked",
        "keep-alive", "close", "100-continue", "websocket", "", "  sp  ", "tab\tin", "x\x01y", "gzip",
        "\xc3\xa9", "2, 2",
    };
    static const char *const seps[] = {" ", " ", "", "   ", "\t"};
    static const char *const bodies[] = {"", "abcd", "{\"a\":1}", "4\r\nabcd\r\n0\r\n\r\n", "abcdGET / HTTP/1.1\r\n\r\n"};
    static char text[4096];
    unsigned plain = 0, other = 0;
    for (uint64_t seed = 1; seed <= 20000; seed++) {
        test_rng_seed(seed);
        bool odd = rnd(4) == 0;
        size_t len = (size_t)snprintf(text, sizeof text, "%s", starts[odd ? rnd(9) : rnd(3)]);
        for (unsigned i = 0, n = rnd(9); i < n; i++)
            len += (size_t)snprintf(text + len, sizeof text - len, "%s:%s%s%s", names[odd ? rnd(20) : rnd(12)],
                                    seps[odd ? rnd(5) : rnd(2)], values[odd ? rnd(18) : rnd(12)],
                                    odd && rnd(12) == 0 ? "\n" : "\r\n");
        snprintf(text + len, sizeof text - len, "\r\n%s", bodies[rnd(5)]);
        if (read_alike(text))
            plain++;
        else
            other++;
    }
    assert_true(plain > 5000);
    assert_true(other > 2000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_any_split_parses_the_same),
        cmocka_unit_test(test_render_replaces_the_key_and_reframes),
        cmocka_unit_test(test_key_in_query),
        cmocka_unit_test(test_render_for_another_provider),
        cmocka_unit_test(test_pipelined_rest_is_left),
        cmocka_unit_test(test_what_cannot_be_followed),
        cmocka_unit_test(test_reset_for_the_next_request),
        cmocka_unit_test(test_plain_heads_read_as_the_parser_reads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
