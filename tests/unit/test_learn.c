/* Unit tests of the provider rate-limit headers (src/limiter/learn.c): OpenAI's x-ratelimit-* with Go-duration
 * resets, Anthropic's anthropic-ratelimit-* with RFC 3339 resets, partial and malformed values. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "classify/rl_header.h"
#include "llmgate/duration.h"
#include "llmgate/http.h"
#include "llmgate/limiter.h"
#include "rng.h"

#define NOW INT64_C(1711483200000) /* 2024-03-26T20:00:00Z */

/* The n headers h read as OpenAI's limits 5000 requests and 450 000 tokens, 449 985 tokens remaining, resets
 * in 12 ms and 6 min, and remaining requests. */
static void expect_openai(const lg_header *h, size_t n, int64_t remaining_requests)
{
    lg_ratelimit_info in;
    assert_true(lg_ratelimit_parse(h, n, NOW, &in));
    assert_true(in.exact);
    assert_int_equal(in.limit[LG_DIM_REQUESTS], 5000);
    assert_int_equal(in.limit[LG_DIM_TOKENS], 450000);
    assert_int_equal(in.remaining[LG_DIM_REQUESTS], remaining_requests);
    assert_int_equal(in.remaining[LG_DIM_TOKENS], 449985);
    assert_int_equal(in.reset_ms[LG_DIM_REQUESTS], 12);
    assert_int_equal(in.reset_ms[LG_DIM_TOKENS], 360000);
}

static void openai_headers(void **state)
{
    (void)state;
    lg_header h[] = {
        {"x-ratelimit-limit-requests", "5000"},   {"x-ratelimit-limit-tokens", "450000"},
        {"x-ratelimit-remaining-requests", "4999"}, {"X-RateLimit-Remaining-Tokens", "449985"},
        {"x-ratelimit-reset-requests", "12ms"},   {"x-ratelimit-reset-tokens", "6m0s"},
        {"content-type", "application/json"},
    };
    expect_openai(h, sizeof h / sizeof h[0], 4999);
}

/* OpenAI's names in any case among names that begin alike, each kind's first value taken (the learning reads
 * the six by lg_rlh_openai_slot, the others by the name reader): a later duplicate, a near name (one letter
 * more or off) and another family change nothing. */
static void openai_first_of_each_name(void **state)
{
    (void)state;
    static const char *const nv[] = {
        "x-ratelimit-limit-requestss", "7",    "X-RATELIMIT-LIMIT-REQUESTS", "5000",
        "x-ratelimit-limit-tokens-day", "8",   "x-ratelimit-limit-requests", "6000",
        "x-ratelimit-remaining-requests", "4", "x-ratelimit-reset-tokenz", "9s",
        "x-ratelimit-Reset-Tokens", "6m0s",    "x-ratelimit-limit-tokens", "450000",
        "x-ratelimit-remaining-requests", "5", "x-ratelimit-remaining-tokens", "449985",
        "x-ratelimit-reset-requests", "12ms",  "anthropic-ratelimit-requests-limit", "50",
        "x-ratelimit-reset-tokens", "1s",      "x-ratelimit-limit-tokens", "1",
    };
    lg_header h[sizeof nv / sizeof *nv / 2];
    for (size_t i = 0; i < sizeof h / sizeof *h; i++)
        h[i] = (lg_header){nv[2 * i], nv[2 * i + 1]};
    expect_openai(h, sizeof h / sizeof h[0], 4);
}

static void openai_fractional_and_seconds_resets(void **state)
{
    (void)state;
    lg_header h[] = {{"x-ratelimit-remaining-requests", "0"}, {"x-ratelimit-reset-requests", "1.234s"},
                     {"x-ratelimit-reset-tokens", "20"}};
    lg_ratelimit_info in;
    assert_true(lg_ratelimit_parse(h, 3, NOW, &in));
    assert_int_equal(in.limit[LG_DIM_REQUESTS], -1);
    assert_int_equal(in.remaining[LG_DIM_REQUESTS], 0);
    assert_int_equal(in.reset_ms[LG_DIM_REQUESTS], 1234);
    assert_int_equal(in.reset_ms[LG_DIM_TOKENS], 20000);
    assert_int_equal(in.remaining[LG_DIM_TOKENS], -1);
}

static void anthropic_headers(void **state)
{
    (void)state;
    lg_header h[] = {
        {"anthropic-ratelimit-requests-limit", "50"},
        {"anthropic-ratelimit-requests-remaining", "49"},
        {"anthropic-ratelimit-requests-reset", "2024-03-26T20:00:01.5Z"},
        {"anthropic-ratelimit-tokens-limit", "40000"},
        {"anthropic-ratelimit-tokens-remaining", "39000"},
        {"anthropic-ratelimit-tokens-reset", "2024-03-26T20:00:30Z"},
        {"anthropic-ratelimit-input-tokens-limit", "1"},
    };
    lg_ratelimit_info in;
    assert_true(lg_ratelimit_parse(h, sizeof h / sizeof h[0], NOW, &in));
    assert_int_equal(in.limit[LG_DIM_REQUESTS], 50);
    assert_int_equal(in.remaining[LG_DIM_REQUESTS], 49);
    assert_int_equal(in.reset_ms[LG_DIM_REQUESTS], 1500);
    assert_int_equal(in.limit[LG_DIM_TOKENS], 40000); /* the combined family wins */
    assert_int_equal(in.remaining[LG_DIM_TOKENS], 39000);
    assert_int_equal(in.reset_ms[LG_DIM_TOKENS], 30000);
}

static void anthropic_input_and_output_tokens_summed(void **state)
{
    (void)state;
    lg_header h[] = {
        {"anthropic-ratelimit-input-tokens-limit", "40000"},
        {"anthropic-ratelimit-input-tokens-remaining", "30000"},
        {"anthropic-ratelimit-input-tokens-reset", "2024-03-26T20:00:10Z"},
        {"anthropic-ratelimit-output-tokens-limit", "8000"},
        {"anthropic-ratelimit-output-tokens-remaining", "8000"},
        {"anthropic-ratelimit-output-tokens-reset", "2024-03-26T20:00:20+00:00"},
    };
    lg_ratelimit_info in;
    assert_true(lg_ratelimit_parse(h, sizeof h / sizeof h[0], NOW, &in));
    assert_int_equal(in.limit[LG_DIM_TOKENS], 48000);
    assert_int_equal(in.remaining[LG_DIM_TOKENS], 38000);
    assert_int_equal(in.reset_ms[LG_DIM_TOKENS], 20000);
    assert_int_equal(in.limit[LG_DIM_REQUESTS], -1);
}

/* Halves as large as a header may say: the sum saturates (no signed overflow: the sanitizer build aborts on
 * one). */
static void anthropic_sum_saturates(void **state)
{
    (void)state;
    lg_header h[] = {
        {"anthropic-ratelimit-input-tokens-limit", "9223372036854775807"},
        {"anthropic-ratelimit-input-tokens-remaining", "9223372036854775000"},
        {"anthropic-ratelimit-output-tokens-limit", "8000"},
        {"anthropic-ratelimit-output-tokens-remaining", "808"},
    };
    lg_ratelimit_info in;
    assert_true(lg_ratelimit_parse(h, sizeof h / sizeof h[0], NOW, &in));
    assert_true(in.limit[LG_DIM_TOKENS] == INT64_MAX);
    assert_true(in.remaining[LG_DIM_TOKENS] == INT64_MAX);
}

static void past_reset_is_zero_and_garbage_ignored(void **state)
{
    (void)state;
    lg_header h[] = {
        {"anthropic-ratelimit-requests-remaining", "3"},
        {"anthropic-ratelimit-requests-reset", "2024-03-26T19:59:00Z"},
        {"anthropic-ratelimit-requests-limit", "-4"},
        {"anthropic-ratelimit-tokens-limit", "12abc"},
        {"anthropic-ratelimit-tokens-reset", "tomorrow"},
    };
    lg_ratelimit_info in;
    assert_true(lg_ratelimit_parse(h, sizeof h / sizeof h[0], NOW, &in));
    assert_int_equal(in.reset_ms[LG_DIM_REQUESTS], 0);
    assert_int_equal(in.limit[LG_DIM_REQUESTS], -1);
    assert_int_equal(in.limit[LG_DIM_TOKENS], -1);
    assert_int_equal(in.reset_ms[LG_DIM_TOKENS], -1);
}

/* The rate-limit headers are found in any case, after names that begin like them (the first-letter look
 * at each name must not stop the search), and names that only begin like them teach nothing. */
static void headers_found_in_any_case_among_look_alikes(void **state)
{
    (void)state;
    lg_header openai[] = {{"X-Request-Id", "abc"}, {"x-ratelimit", "1"}, {"Anthropic-Version", "1"},
                          {"X-RATELIMIT-REMAINING-REQUESTS", "7"}};
    lg_ratelimit_info in;
    assert_true(lg_ratelimit_parse(openai, 4, NOW, &in));
    assert_int_equal(in.remaining[LG_DIM_REQUESTS], 7);
    lg_header anthropic[] = {{"x-ratelimit", "1"}, {"Anthropic-RateLimit-Requests-Remaining", "3"}};
    assert_true(lg_ratelimit_parse(anthropic, 2, NOW, &in));
    assert_int_equal(in.remaining[LG_DIM_REQUESTS], 3);
    lg_header none[] = {{"x-ratelimit", "1"}, {"anthropic-ratelimit", "2"}, {"X-Rate-Limit-Remaining", "5"},
                        {"ratelimit-remaining", "4"}, {NULL, "9"}};
    assert_false(lg_ratelimit_parse(none, 5, NOW, &in));
}

static void nothing_to_learn(void **state)
{
    (void)state;
    lg_header h[] = {{"retry-after", "20"}, {"content-type", "application/json"}};
    lg_ratelimit_info in;
    assert_false(lg_ratelimit_parse(h, 2, NOW, &in));
    assert_false(lg_ratelimit_parse(NULL, 0, NOW, &in));
    for (int d = 0; d < 2; d++) {
        assert_int_equal(in.limit[d], -1);
        assert_int_equal(in.remaining[d], -1);
        assert_int_equal(in.reset_ms[d], -1);
    }
}

/* What is learned reaches the window: the limit is remembered, the remaining count caps until the reset. */
static void learned_into_the_window(void **state)
{
    (void)state;
    static lg_window w;
    lg_header h[] = {{"x-ratelimit-limit-requests", "3"}, {"x-ratelimit-remaining-requests", "0"},
                     {"x-ratelimit-reset-requests", "800ms"}};
    lg_ratelimit_info in;
    assert_true(lg_ratelimit_parse(h, 3, NOW, &in));
    lg_window_learn(&w, &in, NOW);
    assert_int_equal(w.learned_limit[LG_DIM_REQUESTS], 3);
    lg_window_limits l = {.limit = {w.learned_limit[0], 0}, .window_ms = 60000, .margin_ms = 0};
    int64_t retry;
    assert_int_equal(lg_window_earliest(&w, &l, 10, NOW + 100, 0, &retry), NOW + 800);
}

/* Exact x-ratelimit-* remaining counts at fake time now_ms (resets "1s" for both). */
static int64_t respond(lg_window *w, int64_t now_ms, const char *req_left, const char *tok_left)
{
    lg_header h[] = {{"x-ratelimit-limit-requests", "100"}, {"x-ratelimit-remaining-requests", req_left},
                     {"x-ratelimit-reset-requests", "1s"},  {"x-ratelimit-limit-tokens", "10000"},
                     {"x-ratelimit-remaining-tokens", tok_left}, {"x-ratelimit-reset-tokens", "1s"}};
    lg_ratelimit_info in;
    assert_true(lg_ratelimit_parse(h, 6, now_ms, &in));
    assert_true(in.exact);
    return lg_window_learn_charge(w, &in, now_ms);
}

/* The charge the provider counted: from an empty window (limit - remaining), then from consecutive
 * responses one request apart; unknown when more than one request came between, when room could have been
 * freed meanwhile (the previous resets were due), or when the remaining counts went up. */
static void charge_learned_from_consecutive_remaining_counts(void **state)
{
    (void)state;
    static lg_window w;
    w.window_ms = 10000; /* the margin against due resets: 200 ms */
    assert_int_equal(respond(&w, NOW, "99", "9757"), 243);          /* the only request in the window */
    assert_int_equal(respond(&w, NOW + 100, "98", "9514"), 243);    /* one request later */
    assert_int_equal(respond(&w, NOW + 200, "96", "9000"), -1);     /* two requests between: unknown */
    assert_int_equal(respond(&w, NOW + 300, "95", "8800"), 200);
    assert_int_equal(respond(&w, NOW + 1200, "94", "8600"), -1);    /* the previous reset (1 s) was due */
    assert_int_equal(respond(&w, NOW + 1300, "93", "8700"), -1);    /* tokens went up: something left */
    assert_int_equal(respond(&w, NOW + 1400, "92", "8650"), 50);
}

/* Anthropic rounds its remaining tokens to thousands: nothing is learned from them, and they break the
 * sequence. */
static void rounded_counts_teach_nothing(void **state)
{
    (void)state;
    static lg_window w;
    assert_int_equal(respond(&w, NOW, "99", "9757"), 243);
    lg_header h[] = {{"anthropic-ratelimit-requests-limit", "100"}, {"anthropic-ratelimit-requests-remaining", "98"},
                     {"anthropic-ratelimit-tokens-limit", "10000"}, {"anthropic-ratelimit-tokens-remaining", "9000"}};
    lg_ratelimit_info in;
    assert_true(lg_ratelimit_parse(h, 4, NOW + 10, &in));
    assert_false(in.exact);
    assert_int_equal(lg_window_learn_charge(&w, &in, NOW + 10), -1);
    assert_int_equal(respond(&w, NOW + 20, "97", "9000"), -1);
}

/* The reading lg_ratelimit_parse replaced (each name formatted, then looked up with lg_header_get), kept
 * here as the reference of the differential test below. */
static int64_t ref_count(const lg_header *h, size_t n, const char *name)
{
    const char *v = lg_header_get(h, n, name);
    if (!v || *v < '0' || *v > '9')
        return -1;
    char *end;
    long long x = strtoll(v, &end, 10);
    while (*end == ' ')
        end++;
    return *end == '\0' && x >= 0 ? (int64_t)x : -1;
}
static int64_t ref_reset(const lg_header *h, size_t n, const char *name, int64_t now_ms)
{
    const char *v = lg_header_get(h, n, name);
    if (!v)
        return -1;
    size_t len = strlen(v);
    int64_t ms;
    if (lg_parse_go_duration(v, len, &ms) || lg_parse_delta_seconds(v, len, &ms))
        return ms;
    if (lg_parse_rfc3339(v, len, &ms))
        return ms > now_ms ? ms - now_ms : 0;
    return -1;
}
static bool ref_dim(const lg_header *h, size_t n, const char *fmt, int64_t now_ms, int64_t *l, int64_t *r,
                    int64_t *t)
{
    char name[96];
    snprintf(name, sizeof name, fmt, "limit");
    *l = ref_count(h, n, name);
    snprintf(name, sizeof name, fmt, "remaining");
    *r = ref_count(h, n, name);
    snprintf(name, sizeof name, fmt, "reset");
    *t = ref_reset(h, n, name, now_ms);
    return *l >= 0 || *r >= 0 || *t >= 0;
}
static bool ref_parse(const lg_header *h, size_t n, int64_t now_ms, lg_ratelimit_info *out)
{
    for (int d = 0; d < 2; d++)
        out->limit[d] = out->remaining[d] = out->reset_ms[d] = -1;
    out->exact = false;
    bool any = false;
    static const char *const openai[2] = {"x-ratelimit-%s-requests", "x-ratelimit-%s-tokens"};
    for (int d = 0; d < 2; d++)
        any |= ref_dim(h, n, openai[d], now_ms, &out->limit[d], &out->remaining[d], &out->reset_ms[d]);
    if (any)
        return out->exact = true;
    any = ref_dim(h, n, "anthropic-ratelimit-requests-%s", now_ms, &out->limit[0], &out->remaining[0],
                  &out->reset_ms[0]);
    int64_t *l = &out->limit[1], *r = &out->remaining[1], *t = &out->reset_ms[1];
    if (ref_dim(h, n, "anthropic-ratelimit-tokens-%s", now_ms, l, r, t))
        return true;
    int64_t li, ri, ti, lo, ro, to;
    bool in = ref_dim(h, n, "anthropic-ratelimit-input-tokens-%s", now_ms, &li, &ri, &ti);
    bool o = ref_dim(h, n, "anthropic-ratelimit-output-tokens-%s", now_ms, &lo, &ro, &to);
    if (in && o) {
        *l = li >= 0 && lo >= 0 ? li + lo : -1;
        *r = ri >= 0 && ro >= 0 ? ri + ro : -1;
        *t = ti > to ? ti : to;
    } else if (in) {
        *l = li, *r = ri, *t = ti;
    } else if (o) {
        *l = lo, *r = ro, *t = to;
    }
    return any || in || o;
}

/* The one-pass reading gives what the reference gives on 60 000 generated header sets: every name read
 * (in mixed case), names that begin or end like them, other names, NULL names and values, repeated names
 * (the first counts), and values of every kind, well formed or not. */
static void one_pass_matches_the_lookups(void **state)
{
    (void)state;
    static const char *const families[] = {"x-ratelimit-%s-requests", "x-ratelimit-%s-tokens",
                                           "anthropic-ratelimit-requests-%s", "anthropic-ratelimit-tokens-%s",
                                           "anthropic-ratelimit-input-tokens-%s",
                                           "anthropic-ratelimit-output-tokens-%s"};
    static const char *const kinds[] = {"limit", "remaining", "reset", "limits", "remain", "", "rese"};
    static const char *const others[] = {"x-ratelimit", "x-ratelimit-", "anthropic-ratelimit-", "x-request-id",
                                         "anthropic-version", "content-type", "X", "a", "", "x-ratelimit-limit",
                                         "x-ratelimit-limit-requestsx", "x-ratelimit-limit-request",
                                         "anthropic-ratelimit-tokens-", "anthropic-ratelimit-input-limit",
                                         "xx-ratelimit-limit-tokens", "ax-ratelimit-reset-tokens"};
    static const char *const values[] = {"0", "5000", "4999", " 7", "7 ", "-1", "", "12ms", "6m0s", "1.5s", "20",
                                         "1.234s", "2024-03-26T20:00:01.5Z", "2024-03-26T19:00:00Z", "abc",
                                         "9999999999", "3x", NULL};
    srand(12345);
    char names[8][96];
    for (int round = 0; round < 60000; round++) {
        lg_header h[8];
        size_t n = (size_t)(rand() % 9);
        for (size_t i = 0; i < n; i++) {
            int pick = rand() % 4;
            if (pick == 0) {
                snprintf(names[i], sizeof names[i], "%s", others[rand() % (int)(sizeof others / sizeof *others)]);
            } else {
                const char *kind = kinds[rand() % (pick == 1 ? 7 : 3)];
                snprintf(names[i], sizeof names[i], families[rand() % 6], kind);
            }
            for (char *c = names[i]; *c; c++)
                if (rand() % 3 == 0 && *c >= 'a' && *c <= 'z')
                    *c = (char)(*c - 'a' + 'A');
            h[i].name = rand() % 40 == 0 ? NULL : names[i];
            h[i].value = values[rand() % (int)(sizeof values / sizeof *values)];
        }
        lg_ratelimit_info got, want;
        memset(&got, 0x5a, sizeof got);
        memset(&want, 0x5a, sizeof want);
        bool g = lg_ratelimit_parse(h, n, NOW, &got), w = ref_parse(h, n, NOW, &want);
        if (g != w || got.exact != want.exact)
            fail_msg("round %d: %d/%d exact %d/%d", round, g, w, got.exact, want.exact);
        for (int d = 0; d < 2; d++)
            if (got.limit[d] != want.limit[d] || got.remaining[d] != want.remaining[d] ||
                got.reset_ms[d] != want.reset_ms[d])
                fail_msg("round %d dim %d: %lld %lld %lld, want %lld %lld %lld", round, d, (long long)got.limit[d],
                         (long long)got.remaining[d], (long long)got.reset_ms[d], (long long)want.limit[d],
                         (long long)want.remaining[d], (long long)want.reset_ms[d]);
    }
}

/* Spellings both readers of the one name reading must agree on: the classifier's (rl_header.c, read in
 * full) takes every name below; the limiter learns only from its exact families, as the reference reading
 * above does: never from other separators, doubled or trailing ones, the kind elsewhere, a window, or
 * "rate-limit". */
static void classifier_spellings_teach_nothing(void **state)
{
    (void)state;
    static const char *const names[] = {
        "x-ratelimit-remaining_requests", "x-ratelimit-remaining requests", "x-ratelimit-remaining--requests",
        "x-ratelimit--remaining-requests", "x-ratelimit-remaining-requests-", "x-ratelimit-requests-remaining",
        "x-ratelimit-remaining-requests-minute", "x-rate-limit-remaining-requests", "x_ratelimit_remaining_requests",
        "X-RateLimit-Remaining", "anthropic-ratelimit-remaining-requests", "anthropic-ratelimit-requests_remaining",
        "anthropic-ratelimit-input_tokens-remaining", "anthropic-ratelimit-input-tokens-remaining-",
        "anthropic-ratelimit-unified-status", "ratelimit-remaining-requests"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        lg_header h[] = {{names[i], "7"}};
        lg_ratelimit_info got, want;
        lg_rlh_name nm;
        assert_true(lg_rlh_name_of(names[i], false, &nm));
        assert_false(ref_parse(h, 1, NOW, &want));
        if (lg_ratelimit_parse(h, 1, NOW, &got))
            fail_msg("%s: learned from", names[i]);
    }
    static const char *const exact[] = {"x-ratelimit-remaining-requests", "X-RATELIMIT-REMAINING-REQUESTS",
                                        "anthropic-ratelimit-requests-remaining",
                                        "Anthropic-Ratelimit-Requests-Remaining"};
    for (size_t i = 0; i < sizeof exact / sizeof *exact; i++) {
        lg_header h[] = {{exact[i], "7"}};
        lg_ratelimit_info got;
        lg_rlh_name nm;
        assert_true(lg_rlh_name_of(exact[i], false, &nm));
        assert_string_equal(nm.key, "requests");
        assert_true(lg_ratelimit_parse(h, 1, NOW, &got));
        assert_int_equal(got.remaining[LG_DIM_REQUESTS], 7);
    }
}

/* Each exact family's three names, as the name reader (lg_rlh_name_of) reads them: [family][kind]. */
static const char *const canonical[LG_RLH_EXACT_END][3] = {
    [LG_RLH_OPENAI_REQUESTS] = {"x-ratelimit-limit-requests", "x-ratelimit-remaining-requests",
                                "x-ratelimit-reset-requests"},
    [LG_RLH_OPENAI_TOKENS] = {"x-ratelimit-limit-tokens", "x-ratelimit-remaining-tokens", "x-ratelimit-reset-tokens"},
    [LG_RLH_ANTHROPIC_REQUESTS] = {"anthropic-ratelimit-requests-limit", "anthropic-ratelimit-requests-remaining",
                                   "anthropic-ratelimit-requests-reset"},
    [LG_RLH_ANTHROPIC_TOKENS] = {"anthropic-ratelimit-tokens-limit", "anthropic-ratelimit-tokens-remaining",
                                 "anthropic-ratelimit-tokens-reset"},
    [LG_RLH_ANTHROPIC_INPUT] = {"anthropic-ratelimit-input-tokens-limit", "anthropic-ratelimit-input-tokens-remaining",
                                "anthropic-ratelimit-input-tokens-reset"},
    [LG_RLH_ANTHROPIC_OUTPUT] = {"anthropic-ratelimit-output-tokens-limit",
                                 "anthropic-ratelimit-output-tokens-remaining",
                                 "anthropic-ratelimit-output-tokens-reset"},
};

/* Random header sets (the exact names in random case, names one byte off or longer, other headers, values of
 * every form, duplicates), 40 seeds x 2 000: lg_ratelimit_parse (which reads OpenAI's six names inline) says
 * what it says of the set of each family's and kind's first value as lg_rlh_name_of finds it (the reading
 * before the inline one), each under its family's name in lower case. (The name reader takes OpenAI's six in
 * no other spelling: that the inline reading maps each to its family and kind, openai_headers and
 * test_rl_header say.) */
static void sets_read_as_the_name_reader_reads_them(void **state)
{
    (void)state;
    for (int f = LG_RLH_OPENAI_REQUESTS; f < LG_RLH_EXACT_END; f++)
        for (int k = 0; k < 3; k++) {
            lg_rlh_name nm;
            assert_true(lg_rlh_name_of(canonical[f][k], true, &nm));
            assert_int_equal(nm.exact, f);
            assert_int_equal(nm.kind, LG_RLH_LIMIT + k);
        }
    static const char *const others[] = {"content-type", "x-request-id", "x-ratelimit-limit-tokens-day",
                                         "x-rate-limit-reset-tokens", "x-ratelimit-remaining", "anthropic-version",
                                         "x-ratelimit-limit-requests-minute", "retry-after"};
    static const char *const values[] = {"5000", "0", "999999999963", "12ms", "6m0s", "1.5s", "20", "1s",
                                         "2024-03-26T20:00:01.5Z", "abc", "-1", "", " 7", "1711483260"};
    static const char letters[] = "-xaeilmnrstq_ ";
    for (uint64_t seed = 1; seed <= 40; seed++) {
        test_rng_seed(seed);
        for (int round = 0; round < 2000; round++) {
            char names[24][64];
            lg_header h[24];
            size_t n = rnd(24);
            for (size_t i = 0; i < n; i++) {
                const char *b = rnd(4) == 0 ? others[rnd(sizeof others / sizeof *others)]
                                            : canonical[1 + rnd(LG_RLH_EXACT_END - 1)][rnd(3)];
                if (rnd(3) == 0)
                    b = canonical[LG_RLH_OPENAI_REQUESTS + rnd(2)][rnd(3)];
                size_t len = strlen(b);
                memcpy(names[i], b, len + 1);
                for (size_t k = 0; k < len; k++)
                    if (rnd(3) == 0 && names[i][k] >= 'a' && names[i][k] <= 'z')
                        names[i][k] = (char)(names[i][k] - 32);
                switch (rnd(8)) {
                case 0: names[i][rnd((uint32_t)len)] = letters[rnd(sizeof letters - 1)]; break;
                case 1: names[i][len] = letters[rnd(sizeof letters - 1)], names[i][len + 1] = '\0'; break;
                case 2: names[i][rnd((uint32_t)len)] = '\0'; break;
                default: break;
                }
                h[i].name = rnd(40) ? names[i] : NULL;
                h[i].value = rnd(40) ? values[rnd(sizeof values / sizeof *values)] : NULL;
            }
            lg_header first[LG_RLH_EXACT_END * 3];
            size_t nf = 0;
            bool taken[LG_RLH_EXACT_END][3] = {{false}};
            for (size_t i = 0; i < n; i++) {
                lg_rlh_name nm;
                if (h[i].name && lg_rlh_name_of(h[i].name, true, &nm) && !taken[nm.exact][nm.kind - LG_RLH_LIMIT]) {
                    taken[nm.exact][nm.kind - LG_RLH_LIMIT] = true;
                    first[nf++] = (lg_header){canonical[nm.exact][nm.kind - LG_RLH_LIMIT], h[i].value ? h[i].value : ""};
                }
            }
            lg_ratelimit_info got, want;
            bool g = lg_ratelimit_parse(h, n, NOW, &got), w = lg_ratelimit_parse(first, nf, NOW, &want);
            if (g != w || got.exact != want.exact || memcmp(got.limit, want.limit, sizeof got.limit) ||
                memcmp(got.remaining, want.remaining, sizeof got.remaining) ||
                memcmp(got.reset_ms, want.reset_ms, sizeof got.reset_ms))
                fail_msg("seed %llu round %d: %d, the name reader's set %d", (unsigned long long)seed, round, g, w);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(openai_headers),
        cmocka_unit_test(openai_first_of_each_name),
        cmocka_unit_test(sets_read_as_the_name_reader_reads_them),
        cmocka_unit_test(openai_fractional_and_seconds_resets),
        cmocka_unit_test(anthropic_headers),
        cmocka_unit_test(anthropic_input_and_output_tokens_summed),
        cmocka_unit_test(anthropic_sum_saturates),
        cmocka_unit_test(past_reset_is_zero_and_garbage_ignored),
        cmocka_unit_test(headers_found_in_any_case_among_look_alikes),
        cmocka_unit_test(nothing_to_learn),
        cmocka_unit_test(learned_into_the_window),
        cmocka_unit_test(charge_learned_from_consecutive_remaining_counts),
        cmocka_unit_test(rounded_counts_teach_nothing),
        cmocka_unit_test(one_pass_matches_the_lookups),
        cmocka_unit_test(classifier_spellings_teach_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
