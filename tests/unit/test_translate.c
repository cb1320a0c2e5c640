/* Golden files of the translators (the .json files of tests/fixtures/translate, built from the providers' documented
 * examples), compared structurally (JSON equality): requests (or their refusal), round trips, whole
 * responses and error bodies, and streams fed whole, byte by byte and in odd pieces. Each fixture is one
 * test. Fixture members: kind (request | roundtrip | response | stream), from/to (request, roundtrip:
 * "to" is the dialect passed through), target/host (response, stream), opts, in, out, refused / malformed
 * (a reason substring), status, include_usage, complete (stream: finish() succeeds, default true). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classify/dialects.h"
#include "llmgate/boundary.h"
#include "llmgate/translate.h"

#define MAX_FIXTURES 256

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = '\0';
    fclose(f);
    return s;
}

static lg_tr_dialect dialect(const cJSON *fx, const char *name)
{
    lg_tr_dialect d;
    const cJSON *v = cJSON_GetObjectItem(fx, name);
    assert_true(cJSON_IsString(v) && lg_tr_dialect_parse(v->valuestring, &d));
    return d;
}

/* Asserts that JSON text got equals the tree want (structurally), printing both when not. */
static void assert_json(const char *what, const char *got, const cJSON *want)
{
    cJSON *g = cJSON_Parse(got);
    if (!cJSON_Compare(g, want, true)) {
        char *w = cJSON_PrintUnformatted(want);
        print_error("%s differs:\n  got  %s\n  want %s\n", what, got, w);
        free(w);
        cJSON_Delete(g);
        fail();
    }
    cJSON_Delete(g);
}

/* Member name of fx as a number, 0 when absent. */
static double num(const cJSON *fx, const char *name)
{
    const cJSON *v = cJSON_GetObjectItem(fx, name);
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static void opts_of(const cJSON *fx, lg_tr_request_opts *o)
{
    const cJSON *j = cJSON_GetObjectItem(fx, "opts");
    memset(o, 0, sizeof *o);
    o->model = cJSON_GetStringValue(cJSON_GetObjectItem(j, "model"));
    o->default_max_tokens = (int)num(j, "default_max_tokens");
    o->stream = cJSON_IsTrue(cJSON_GetObjectItem(j, "stream"));
}

static void run_request(const cJSON *fx)
{
    lg_tr_request_opts o;
    lg_tr_request r;
    opts_of(fx, &o);
    char *in = cJSON_PrintUnformatted(cJSON_GetObjectItem(fx, "in"));
    const cJSON *refused = cJSON_GetObjectItem(fx, "refused"), *bad = cJSON_GetObjectItem(fx, "malformed");
    const char *raw = cJSON_GetStringValue(cJSON_GetObjectItem(fx, "in_text"));
    lg_tr_status st = lg_tr_request_translate(dialect(fx, "from"), dialect(fx, "to"), raw ? raw : in,
                                              strlen(raw ? raw : in), &o, &r);
    free(in);
    if (refused || bad) {
        assert_int_equal(st, refused ? LG_TR_REFUSED : LG_TR_MALFORMED);
        assert_null(r.body);
        if (!strstr(r.reason, cJSON_GetStringValue(refused ? refused : bad))) {
            print_error("reason \"%s\" lacks \"%s\"\n", r.reason, cJSON_GetStringValue(refused ? refused : bad));
            fail();
        }
        return;
    }
    if (st != LG_TR_OK) {
        print_error("refused: %s\n", r.reason);
        fail();
    }
    assert_json("request", r.body, cJSON_GetObjectItem(fx, "out"));
    const cJSON *stream = cJSON_GetObjectItem(fx, "stream"), *iu = cJSON_GetObjectItem(fx, "include_usage");
    if (stream)
        assert_int_equal(r.stream, cJSON_IsTrue(stream));
    if (iu)
        assert_int_equal(r.include_usage, cJSON_IsTrue(iu));
    free(r.body);
}

static void run_roundtrip(const cJSON *fx)
{
    lg_tr_request_opts o;
    lg_tr_request there, back;
    opts_of(fx, &o);
    lg_tr_dialect from = dialect(fx, "from"), via = dialect(fx, "to");
    char *in = cJSON_PrintUnformatted(cJSON_GetObjectItem(fx, "in"));
    assert_int_equal(lg_tr_request_translate(from, via, in, strlen(in), &o, &there), LG_TR_OK);
    lg_tr_request_opts ob = {.stream = there.stream};
    if (lg_tr_request_translate(via, from, there.body, strlen(there.body), &ob, &back) != LG_TR_OK) {
        print_error("back: %s (via %s)\n", back.reason, there.body);
        fail();
    }
    const cJSON *out = cJSON_GetObjectItem(fx, "out");
    assert_json("round trip", back.body, out ? out : cJSON_GetObjectItem(fx, "in"));
    free(in);
    free(there.body);
    free(back.body);
}

static void run_response(const cJSON *fx)
{
    lg_tr_response_opts o = {cJSON_GetStringValue(cJSON_GetObjectItem(fx, "model")),
                             (int64_t)num(fx, "created")};
    const cJSON *status = cJSON_GetObjectItem(fx, "status"), *bad = cJSON_GetObjectItem(fx, "malformed");
    const cJSON *refused = cJSON_GetObjectItem(fx, "refused");
    const char *raw = cJSON_GetStringValue(cJSON_GetObjectItem(fx, "in_text"));
    char *in = raw ? strdup(raw) : cJSON_PrintUnformatted(cJSON_GetObjectItem(fx, "in")), *out = NULL;
    char reason[LG_TR_REASON_MAX];
    lg_tr_status st = lg_tr_response_translate(dialect(fx, "target"), dialect(fx, "host"),
                                               status ? (int)status->valuedouble : 200, in, strlen(in), &o, &out,
                                               reason);
    free(in);
    if (bad || refused) {
        assert_int_equal(st, bad ? LG_TR_MALFORMED : LG_TR_REFUSED);
        assert_null(out);
        assert_non_null(strstr(reason, cJSON_GetStringValue(bad ? bad : refused)));
        return;
    }
    if (st != LG_TR_OK) {
        print_error("failed: %s\n", reason);
        fail();
    }
    assert_json("response", out, cJSON_GetObjectItem(fx, "out"));
    free(out);
}

typedef struct {
    char *buf;
    size_t len, cap;
    int bad_pieces; /* pieces that are not whole events of whole UTF-8 characters */
} sink;

static bool collect(void *ctx, const char *p, size_t len)
{
    sink *s = ctx;
    if (s->len + len + 1 > s->cap) {
        s->cap = (s->len + len + 1) * 2;
        s->buf = realloc(s->buf, s->cap);
    }
    memcpy(s->buf + s->len, p, len);
    s->len += len;
    s->buf[s->len] = '\0';
    s->bad_pieces += lg_utf8_complete_prefix(p, len) != len || lg_sse_complete_prefix(p, len) != len;
    return true;
}

typedef struct {
    const cJSON *want;
    int n;
    bool ok;
} expect;

/* Compares each emitted event with the next expected {event, data} (data: JSON, or raw text). */
static bool check_event(const lg_sse_event *ev, void *ctx)
{
    expect *e = ctx;
    const cJSON *w = cJSON_GetArrayItem(e->want, e->n++);
    const cJSON *name = cJSON_GetObjectItem(w, "event"), *data = cJSON_GetObjectItem(w, "data");
    if (!w) {
        print_error("extra event %d: %s\n", e->n - 1, ev->data);
        e->ok = false;
        return false;
    }
    if (strcmp(ev->event, cJSON_IsString(name) ? name->valuestring : "")) {
        print_error("event %d is named \"%s\"\n", e->n - 1, ev->event);
        e->ok = false;
    }
    cJSON *g = cJSON_Parse(ev->data);
    bool same = cJSON_IsString(data) ? !strcmp(ev->data, data->valuestring) : cJSON_Compare(g, data, true);
    if (!same) {
        char *ws = cJSON_PrintUnformatted(data);
        print_error("event %d differs:\n  got  %s\n  want %s\n", e->n - 1, ev->data, ws);
        free(ws);
        e->ok = false;
    }
    cJSON_Delete(g);
    return true;
}

/* Feeds the stream in pieces of `piece` bytes (0: whole) and checks the output. */
static void run_stream_pieces(const cJSON *fx, size_t piece)
{
    const char *in = cJSON_GetStringValue(cJSON_GetObjectItem(fx, "in"));
    const cJSON *complete = cJSON_GetObjectItem(fx, "complete");
    lg_tr_stream_opts o = {{cJSON_GetStringValue(cJSON_GetObjectItem(fx, "model")),
                            (int64_t)num(fx, "created")},
                           cJSON_IsTrue(cJSON_GetObjectItem(fx, "include_usage"))};
    lg_tr_stream *s = lg_tr_stream_new(dialect(fx, "target"), dialect(fx, "host"), &o);
    sink k = {0};
    size_t n = strlen(in);
    bool fed = true;
    for (size_t off = 0; off < n && fed; off += piece ? piece : n)
        fed = lg_tr_stream_feed(s, in + off, piece && n - off > piece ? piece : n - off, collect, &k);
    bool done = fed && lg_tr_stream_finish(s, collect, &k);
    if (done != (!complete || cJSON_IsTrue(complete))) {
        print_error("piece %zu: finish %d, error \"%s\"\n", piece, done, lg_tr_stream_error(s));
        fail();
    }
    assert_int_equal(k.bad_pieces, 0);
    expect e = {cJSON_GetObjectItem(fx, "out"), 0, true};
    lg_sse_each(k.buf, k.len, check_event, &e);
    if (!e.ok || e.n != cJSON_GetArraySize(e.want)) {
        print_error("piece %zu: %d events, want %d; output:\n%s\n", piece, e.n, cJSON_GetArraySize(e.want),
                    k.buf ? k.buf : "");
        fail();
    }
    free(k.buf);
    lg_tr_stream_free(s);
}

static void run_stream(const cJSON *fx)
{
    static const size_t pieces[] = {0, 1, 2, 7, 64};
    for (size_t i = 0; i < sizeof pieces / sizeof pieces[0]; i++)
        run_stream_pieces(fx, pieces[i]);
}

static void run_fixture(void **state)
{
    char *text = slurp(*state);
    cJSON *fx = cJSON_Parse(text);
    assert_non_null(fx);
    const char *kind = cJSON_GetStringValue(cJSON_GetObjectItem(fx, "kind"));
    assert_non_null(kind);
    if (!strcmp(kind, "request"))
        run_request(fx);
    else if (!strcmp(kind, "roundtrip"))
        run_roundtrip(fx);
    else if (!strcmp(kind, "response"))
        run_response(fx);
    else if (!strcmp(kind, "stream"))
        run_stream(fx);
    else
        fail_msg("unknown kind %s", kind);
    cJSON_Delete(fx);
    free(text);
}

/* Paths and auth headers of each target dialect. */
static void test_paths_and_auth(void **state)
{
    (void)state;
    char p[128], h[2][512];
    assert_true(lg_tr_path(LG_TR_ANTHROPIC, "claude-x", false, p, sizeof p));
    assert_string_equal(p, "/v1/messages");
    assert_true(lg_tr_path(LG_TR_OPENAI, "gpt-4o", true, p, sizeof p));
    assert_string_equal(p, "/v1/chat/completions");
    assert_true(lg_tr_path(LG_TR_GEMINI, "gemini-2.0-flash", false, p, sizeof p));
    assert_string_equal(p, "/v1beta/models/gemini-2.0-flash:generateContent");
    assert_true(lg_tr_path(LG_TR_GEMINI, "gemini-2.0-flash", true, p, sizeof p));
    assert_string_equal(p, "/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse");
    assert_false(lg_tr_path(LG_TR_GEMINI, "../x", false, p, sizeof p));
    assert_false(lg_tr_path(LG_TR_GEMINI, NULL, false, p, sizeof p));
    assert_false(lg_tr_path(LG_TR_GEMINI, "gemini-2.0-flash", true, p, 20));
    assert_int_equal(lg_tr_auth_headers(LG_TR_ANTHROPIC, "sk-ant-1", h), 2);
    assert_string_equal(h[0], "x-api-key: sk-ant-1");
    assert_string_equal(h[1], "anthropic-version: 2023-06-01");
    assert_int_equal(lg_tr_auth_headers(LG_TR_GEMINI, "AIza1", h), 1);
    assert_string_equal(h[0], "x-goog-api-key: AIza1");
    assert_int_equal(lg_tr_auth_headers(LG_TR_OPENAI, "sk-1", h), 1);
    assert_string_equal(h[0], "Authorization: Bearer sk-1");
    assert_int_equal(lg_tr_auth_headers(LG_TR_OPENAI, "sk-1\r\nX-Evil: 1", h), 0);
}

/* A Gemini host's URL names the model and whether (and how) it streams; anything else is no Gemini call. */
static void test_gemini_call(void **state)
{
    (void)state;
    char m[32];
    bool stream = true, sse = true;
    assert_true(lg_tr_gemini_call("https://generativelanguage.googleapis.com/v1beta/models/gemini-1.5-flash:generateContent?key=AIza",
                                  m, sizeof m, &stream, &sse));
    assert_string_equal(m, "gemini-1.5-flash");
    assert_false(stream);
    assert_false(sse);
    assert_true(lg_tr_gemini_call("/v1/models/gemini-pro:streamGenerateContent?key=k&alt=sse", m, sizeof m, &stream, &sse));
    assert_string_equal(m, "gemini-pro");
    assert_true(stream);
    assert_true(sse);
    assert_true(lg_tr_gemini_call("/v1beta/models/g:streamGenerateContent?alt=sset", m, sizeof m, &stream, &sse));
    assert_true(stream);
    assert_false(sse);
    assert_false(lg_tr_gemini_call("/v1beta/models/g:countTokens", m, sizeof m, &stream, &sse));
    assert_false(lg_tr_gemini_call("/v1beta/models/g:generateContentX", m, sizeof m, &stream, &sse));
    assert_false(lg_tr_gemini_call("/v1beta/models/:generateContent", m, sizeof m, &stream, &sse));
    assert_false(lg_tr_gemini_call("/v1/chat/completions?x=/models/g:generateContent", m, sizeof m, &stream, &sse));
    assert_false(lg_tr_gemini_call("/v1beta/models/a-model-name-longer-than-the-buffer:generateContent", m, sizeof m,
                                   &stream, &sse));
}

static bool refuse_all(void *ctx, const char *p, size_t len)
{
    (void)p, (void)len;
    ++*(int *)ctx;
    return false;
}

/* A host that refuses output stops the translator; later feeds do nothing; garbage is an error. */
static void test_stream_stops(void **state)
{
    (void)state;
    static const char ev[] = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\","
                             "\"model\":\"c\",\"usage\":{\"input_tokens\":1}}}\n\n";
    int calls = 0;
    lg_tr_stream *s = lg_tr_stream_new(LG_TR_ANTHROPIC, LG_TR_OPENAI, NULL);
    assert_false(lg_tr_stream_feed(s, ev, sizeof ev - 1, refuse_all, &calls));
    assert_false(lg_tr_stream_feed(s, ev, sizeof ev - 1, refuse_all, &calls));
    assert_int_equal(calls, 1);
    assert_string_not_equal(lg_tr_stream_error(s), "");
    lg_tr_stream_free(s);
    sink k = {0};
    s = lg_tr_stream_new(LG_TR_GEMINI, LG_TR_ANTHROPIC, NULL);
    assert_false(lg_tr_stream_feed(s, "data: {not json\n\n", 17, collect, &k));
    assert_non_null(strstr(lg_tr_stream_error(s), "not JSON"));
    assert_false(lg_tr_stream_finish(s, collect, &k));
    assert_int_equal(k.len, 0);
    lg_tr_stream_free(s);
}

static const char *fixture_dir(void)
{
    const char *env = getenv("LG_TRANSLATE_FIXTURES");
    if (env)
        return env;
    static const char *const candidates[] = {"tests/fixtures/translate", "../tests/fixtures/translate",
                                             "../../tests/fixtures/translate"};
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
        DIR *d = opendir(candidates[i]);
        if (d) {
            closedir(d);
            return candidates[i];
        }
    }
    return candidates[0];
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const struct CMUnitTest *)a)->name, ((const struct CMUnitTest *)b)->name);
}

int main(void)
{
    static char *paths[MAX_FIXTURES];
    static struct CMUnitTest tests[MAX_FIXTURES + 3];
    const char *dir = fixture_dir();
    size_t n = 0;
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)) && n < MAX_FIXTURES) {
        size_t l = strlen(e->d_name);
        if (l > 5 && !strcmp(e->d_name + l - 5, ".json")) {
            size_t cap = strlen(dir) + l + 2;
            paths[n] = malloc(cap);
            snprintf(paths[n], cap, "%s/%s", dir, e->d_name);
            tests[n] = (struct CMUnitTest){strrchr(paths[n], '/') + 1, run_fixture, NULL, NULL, paths[n]};
            n++;
        }
    }
    if (d)
        closedir(d);
    qsort(tests, n, sizeof tests[0], by_name);
    if (n < 20)
        fprintf(stderr, "only %zu fixtures in %s\n", n, dir);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_paths_and_auth);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_stream_stops);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_gemini_call);
    int rc = _cmocka_run_group_tests("translate", tests, n, NULL, NULL);
    for (size_t i = 0; i < n - 3; i++)
        free(tests[i].initial_state);
    return rc || n < 23;
}
