/* Classifies every recorded provider response (each .json file in tests/fixtures/responses, or in
 * $LG_FIXTURES_DIR) and checks state, reason, retry_after_ms, retry_at and usage against the file's
 * `expect`, or one of `expect.alternatives` (an alternative inherits the keys it leaves out).
 * One test per fixture file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cmocka.h>
#include <dirent.h>

#include "llmgate/classify.h"
#include "llmgate/duration.h"

#define MAX_FIXTURES 2048
#define MAX_HEADERS 128

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf) {
        buf[n] = '\0';
        *len = (size_t)n;
    }
    return buf;
}

/* Looks key up in the alternative first, then in expect. */
static const cJSON *pick(const cJSON *alt, const cJSON *expect, const char *key)
{
    const cJSON *v = alt ? cJSON_GetObjectItemCaseSensitive(alt, key) : NULL;
    return v ? v : cJSON_GetObjectItemCaseSensitive(expect, key);
}

/* Returns NULL when the outcome matches the expectation, else a description of the first mismatch. */
static const char *mismatch(const lg_outcome *o, const cJSON *expect, const cJSON *alt, char *buf, size_t cap)
{
    const cJSON *state = pick(alt, expect, "state");
    lg_state st;
    if (!cJSON_IsString(state) || !lg_state_parse(state->valuestring, &st))
        return "expect.state missing or unknown";
    if (st != o->state) {
        snprintf(buf, cap, "state %s, expected %s", lg_state_name(o->state), state->valuestring);
        return buf;
    }
    const cJSON *reason = pick(alt, expect, "reason");
    lg_reason rs = LG_REASON_NONE;
    if (cJSON_IsString(reason) && !lg_reason_parse(reason->valuestring, &rs))
        return "expect.reason unknown";
    if (rs != o->reason) {
        snprintf(buf, cap, "reason %s, expected %s", lg_reason_name(o->reason), lg_reason_name(rs));
        return buf;
    }
    const cJSON *ra = pick(alt, expect, "retry_after_ms");
    int64_t want = cJSON_IsNumber(ra) ? (int64_t)ra->valuedouble : LG_NO_HINT;
    if (want != o->retry_after_ms) {
        snprintf(buf, cap, "retry_after_ms %lld, expected %lld", (long long)o->retry_after_ms, (long long)want);
        return buf;
    }
    const cJSON *at = pick(alt, expect, "retry_at");
    int64_t want_at = LG_NO_HINT;
    if (cJSON_IsString(at) && !lg_parse_rfc3339(at->valuestring, strlen(at->valuestring), &want_at))
        return "expect.retry_at is not RFC 3339";
    if (want_at != o->retry_at_ms) {
        snprintf(buf, cap, "retry_at_ms %lld, expected %lld", (long long)o->retry_at_ms, (long long)want_at);
        return buf;
    }
    const cJSON *usage = pick(alt, expect, "usage");
    if (cJSON_IsObject(usage)) {
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(usage, "prompt");
        const cJSON *c = cJSON_GetObjectItemCaseSensitive(usage, "completion");
        if (!o->has_usage || !cJSON_IsNumber(p) || !cJSON_IsNumber(c) || (int64_t)p->valuedouble != o->prompt_tokens ||
            (int64_t)c->valuedouble != o->completion_tokens) {
            snprintf(buf, cap, "usage %s %lld/%lld, expected %g/%g", o->has_usage ? "" : "(none)",
                     (long long)o->prompt_tokens, (long long)o->completion_tokens,
                     cJSON_IsNumber(p) ? p->valuedouble : -1, cJSON_IsNumber(c) ? c->valuedouble : -1);
            return buf;
        }
    } else if (o->has_usage) {
        return "usage reported, expected none";
    }
    return NULL;
}

static void run_fixture(void **state)
{
    const char *path = *state;
    size_t len = 0;
    char *text = read_file(path, &len);
    assert_non_null(text);
    cJSON *fx = cJSON_ParseWithLength(text, len);
    free(text);
    assert_non_null(fx);
    const cJSON *status = cJSON_GetObjectItemCaseSensitive(fx, "status");
    const cJSON *body = cJSON_GetObjectItemCaseSensitive(fx, "body");
    const cJSON *expect = cJSON_GetObjectItemCaseSensitive(fx, "expect");
    assert_true(cJSON_IsNumber(status));
    assert_true(cJSON_IsString(body));
    assert_true(cJSON_IsObject(expect));

    lg_header hs[MAX_HEADERS];
    size_t nh = 0;
    const cJSON *h;
    cJSON_ArrayForEach(h, cJSON_GetObjectItemCaseSensitive(fx, "headers"))
    {
        if (cJSON_IsString(h) && nh < MAX_HEADERS) {
            hs[nh].name = h->string;
            hs[nh++].value = h->valuestring;
        }
    }
    lg_response_view v = {.status = (int)status->valuedouble,
                          .headers = hs,
                          .n_headers = nh,
                          .body = body->valuestring,
                          .body_len = strlen(body->valuestring),
                          .stream = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(fx, "stream"))};
    const char *provider = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(fx, "provider"));
    const lg_preset *preset = provider ? lg_preset_find(provider) : NULL;
    lg_outcome o;
    lg_classify(preset ? preset->dialect : LG_DIALECT_OPENAI, &v, &o);

    char first[256], other[256];
    const char *why = mismatch(&o, expect, NULL, first, sizeof first);
    const cJSON *alt;
    cJSON_ArrayForEach(alt, cJSON_GetObjectItemCaseSensitive(expect, "alternatives"))
    {
        if (why && cJSON_IsObject(alt) && !mismatch(&o, expect, alt, other, sizeof other))
            why = NULL;
    }
    cJSON_Delete(fx);
    if (why)
        fail_msg("%s: %s", path, why);
}

static void no_fixtures(void **state)
{
    fail_msg("no fixture files found in %s", (const char *)*state);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The fixture directory: $LG_FIXTURES_DIR, else tests/fixtures/responses under the cwd or its parents. */
static const char *fixture_dir(void)
{
    const char *env = getenv("LG_FIXTURES_DIR");
    if (env && *env)
        return env;
    static const char *const candidates[] = {"tests/fixtures/responses", "../tests/fixtures/responses",
                                             "../../tests/fixtures/responses"};
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
        DIR *d = opendir(candidates[i]);
        if (d) {
            closedir(d);
            return candidates[i];
        }
    }
    return candidates[0];
}

int main(void)
{
    static char *paths[MAX_FIXTURES];
    static struct CMUnitTest tests[MAX_FIXTURES];
    const char *dir = fixture_dir();
    size_t n = 0;
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l > 5 && !strcmp(e->d_name + l - 5, ".json")) {
            if (n == MAX_FIXTURES) { /* never assert a part of the folder silently */
                fprintf(stderr, "%s holds more than %d fixtures: raise MAX_FIXTURES\n", dir, MAX_FIXTURES);
                closedir(d);
                while (n)
                    free(paths[--n]);
                return 1;
            }
            size_t cap = strlen(dir) + l + 2;
            paths[n] = malloc(cap);
            snprintf(paths[n], cap, "%s/%s", dir, e->d_name);
            n++;
        }
    }
    if (d)
        closedir(d);
    qsort(paths, n, sizeof paths[0], by_name);
    for (size_t i = 0; i < n; i++) {
        const char *slash = strrchr(paths[i], '/');
        tests[i] = (struct CMUnitTest){slash ? slash + 1 : paths[i], run_fixture, NULL, NULL, paths[i]};
    }
    if (n == 0)
        tests[n++] = (struct CMUnitTest){"fixtures_present", no_fixtures, NULL, NULL, (void *)dir};
    int rc = _cmocka_run_group_tests("classify_fixtures", tests, n, NULL, NULL);
    for (size_t i = 0; i < n; i++)
        free(paths[i]);
    return rc;
}
