/* Loading scenario files (see scenario.h and docs/MOCK.md). */
#include <libgen.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "llmgate/small_file.h"
#include "mock/errors.h"
#include "mock/scenario.h"

/* The largest scenario or fixture file read. */
#define FILE_MAX ((size_t)64 << 20)

typedef struct {
    char *err;
    size_t errlen;
    const char *dir; /* the scenario file's directory */
} loader;

static int fail(loader *l, const char *where, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(loader *l, const char *where, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(l->err, l->errlen, "%s: %s", where, msg);
    return -1;
}

/* A non-negative integer field; absent leaves *out unchanged. */
static int get_int(loader *l, const cJSON *obj, const char *name, const char *where, int64_t max, int64_t *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
    if (!v)
        return 0;
    if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > (double)max ||
        v->valuedouble != floor(v->valuedouble))
        return fail(l, where, "%s: expected an integer from 0 to %lld", name, (long long)max);
    *out = (int64_t)v->valuedouble;
    return 0;
}

static int check_fields(loader *l, const cJSON *obj, const char *where, const char *const *allowed)
{
    if (!cJSON_IsObject(obj))
        return fail(l, where, "expected an object");
    for (const cJSON *c = obj->child; c; c = c->next) {
        size_t i = 0;
        while (allowed[i] && strcmp(allowed[i], c->string))
            i++;
        if (!allowed[i])
            return fail(l, where, "unknown field \"%s\"", c->string);
    }
    return 0;
}

static int add_header(mock_step *s, const char *name, const char *value)
{
    mock_hdr *h = realloc(s->headers, (s->n_headers + 1) * sizeof *h);
    if (!h)
        return -1;
    s->headers = h;
    h[s->n_headers].name = strdup(name);
    h[s->n_headers].value = strdup(value);
    s->n_headers++;
    return 0;
}

/* Literal parts shared by inline steps and fixture files: status, headers, body, stream. */
static int load_literal(loader *l, mock_step *s, const cJSON *o, const char *where)
{
    int64_t status = 0;
    if (get_int(l, o, "status", where, 599, &status) < 0)
        return -1;
    if (status < 100)
        return fail(l, where, "status: expected an HTTP status from 100 to 599");
    s->kind = MOCK_STEP_LITERAL;
    s->status = (int)status;
    const cJSON *h = cJSON_GetObjectItemCaseSensitive(o, "headers");
    if (h && !cJSON_IsObject(h))
        return fail(l, where, "headers: expected an object of strings");
    for (const cJSON *c = h ? h->child : NULL; c; c = c->next) {
        if (!cJSON_IsString(c))
            return fail(l, where, "headers.%s: expected a string", c->string);
        if (add_header(s, c->string, c->valuestring) < 0)
            return fail(l, where, "out of memory");
    }
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(o, "body");
    s->body = !b ? strdup("") : cJSON_IsString(b) ? strdup(b->valuestring) : cJSON_PrintUnformatted(b);
    if (!s->body)
        return fail(l, where, "out of memory");
    s->body_len = strlen(s->body);
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(o, "stream");
    if (st && !cJSON_IsBool(st))
        return fail(l, where, "stream: expected true or false");
    s->stream = cJSON_IsTrue(st);
    return 0;
}

static int load_fixture(loader *l, mock_step *s, const char *file, const char *where)
{
    char path[4096];
    if (file[0] == '/')
        snprintf(path, sizeof path, "%s", file);
    else
        snprintf(path, sizeof path, "%s/%s", l->dir, file);
    lg_small_file f;
    char problem[256];
    if (!lg_small_file_read(path, 0, FILE_MAX, 0, &f))
        return fail(l, where, "fixture %s: %s", path, lg_small_file_problem(&f, problem, sizeof problem));
    cJSON *fx = cJSON_ParseWithLength(f.data, f.len);
    lg_small_file_free(&f);
    if (!cJSON_IsObject(fx)) {
        cJSON_Delete(fx);
        return fail(l, where, "fixture %s: not a JSON object", path);
    }
    char fwhere[4200];
    snprintf(fwhere, sizeof fwhere, "%s (fixture %s)", where, path);
    int rc = load_literal(l, s, fx, fwhere);
    cJSON_Delete(fx);
    return rc;
}

static int load_step(loader *l, mock_step *s, const cJSON *o, const char *where)
{
    static const char *const fields[] = {"status", "body", "headers", "stream", "fixture", "error",
                                         "retry_after_ms", "delay_ms", "reset", "truncate", "error_in_200",
                                         "chunk", "chunk_delay_ms", "body_delay_ms", NULL};
    if (check_fields(l, o, where, fields) < 0)
        return -1;
    s->kind = MOCK_STEP_NORMAL;
    s->retry_after_ms = -1;
    s->truncate = -1;
    s->chunk_delay_ms = 10;
    const char *kinds[] = {"status", "fixture", "error", "reset", "error_in_200"};
    int n_kinds = 0;
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        n_kinds += cJSON_GetObjectItemCaseSensitive(o, kinds[i]) != NULL;
    if (n_kinds > 1)
        return fail(l, where, "at most one of status, fixture, error, reset, error_in_200");
    const cJSON *v;
    if (cJSON_GetObjectItemCaseSensitive(o, "status")) {
        if (load_literal(l, s, o, where) < 0)
            return -1;
    } else if (cJSON_GetObjectItemCaseSensitive(o, "body") || cJSON_GetObjectItemCaseSensitive(o, "headers") ||
               cJSON_GetObjectItemCaseSensitive(o, "stream")) {
        return fail(l, where, "body, headers and stream need a status");
    } else if ((v = cJSON_GetObjectItemCaseSensitive(o, "fixture"))) {
        if (!cJSON_IsString(v))
            return fail(l, where, "fixture: expected a file name");
        if (load_fixture(l, s, v->valuestring, where) < 0)
            return -1;
    } else if ((v = cJSON_GetObjectItemCaseSensitive(o, "error"))) {
        s->kind = MOCK_STEP_ERROR;
        s->error = cJSON_IsString(v) ? mock_error_parse(v->valuestring) : -1;
        if (s->error < 0)
            return fail(l, where, "error: expected one of quota, rate_limit, overloaded, server_error, auth, "
                                  "bad_request, too_large");
    } else if ((v = cJSON_GetObjectItemCaseSensitive(o, "reset"))) {
        if (!cJSON_IsTrue(v))
            return fail(l, where, "reset: expected true");
        s->kind = MOCK_STEP_RESET;
    } else if ((v = cJSON_GetObjectItemCaseSensitive(o, "error_in_200"))) {
        if (!cJSON_IsTrue(v))
            return fail(l, where, "error_in_200: expected true");
        s->kind = MOCK_STEP_ERROR_IN_200;
    }
    if (cJSON_GetObjectItemCaseSensitive(o, "retry_after_ms") && s->kind != MOCK_STEP_ERROR)
        return fail(l, where, "retry_after_ms needs an error");
    int64_t trunc = -1, chunk = 0;
    if (get_int(l, o, "retry_after_ms", where, 86400000LL * 30, &s->retry_after_ms) < 0 ||
        get_int(l, o, "delay_ms", where, 600000, &s->delay_ms) < 0 ||
        get_int(l, o, "truncate", where, 1 << 30, &trunc) < 0 || get_int(l, o, "chunk", where, 1 << 20, &chunk) < 0 ||
        get_int(l, o, "chunk_delay_ms", where, 60000, &s->chunk_delay_ms) < 0 ||
        get_int(l, o, "body_delay_ms", where, 600000, &s->body_delay_ms) < 0)
        return -1;
    s->truncate = (long)trunc;
    s->chunk = (size_t)chunk;
    return 0;
}

static int load_chances(loader *l, mock_key_config *k, const cJSON *p, const char *where)
{
    if (!cJSON_IsObject(p))
        return fail(l, where, "probability: expected an object like {\"429\": 0.2}");
    double sum = 0;
    k->chances = calloc((size_t)cJSON_GetArraySize(p) + 1, sizeof *k->chances);
    if (!k->chances)
        return fail(l, where, "out of memory");
    for (const cJSON *c = p->child; c; c = c->next) {
        char *end;
        long status = strtol(c->string, &end, 10);
        if (*end || status < 100 || status > 599)
            return fail(l, where, "probability: \"%s\" is not an HTTP status", c->string);
        if (!cJSON_IsNumber(c) || c->valuedouble < 0 || c->valuedouble > 1)
            return fail(l, where, "probability.%s: expected a number from 0 to 1", c->string);
        sum += c->valuedouble;
        k->chances[k->n_chances++] = (mock_chance){(int)status, c->valuedouble};
    }
    if (sum > 1.0 + 1e-9)
        return fail(l, where, "probability: the chances add up to more than 1");
    return 0;
}

static int load_key(loader *l, mock_key_config *k, const cJSON *o)
{
    static const char *const fields[] = {"rpm", "tpm", "window_ms", "sequence", "repeat", "probability", NULL};
    char where[300];
    snprintf(where, sizeof where, "keys.%.200s", o->string);
    k->key = strdup(o->string);
    k->limits = (mock_limits){-1, -1, -1};
    if (!k->key || check_fields(l, o, where, fields) < 0)
        return k->key ? -1 : fail(l, where, "out of memory");
    if (get_int(l, o, "rpm", where, 1000000000, &k->limits.rpm) < 0 ||
        get_int(l, o, "tpm", where, 1000000000000LL, &k->limits.tpm) < 0 ||
        get_int(l, o, "window_ms", where, 86400000LL * 30, &k->limits.window_ms) < 0)
        return -1;
    if (k->limits.window_ms == 0)
        return fail(l, where, "window_ms: expected a positive integer");
    const cJSON *rep = cJSON_GetObjectItemCaseSensitive(o, "repeat");
    if (rep && !cJSON_IsBool(rep))
        return fail(l, where, "repeat: expected true or false");
    k->repeat = cJSON_IsTrue(rep);
    const cJSON *seq = cJSON_GetObjectItemCaseSensitive(o, "sequence");
    if (seq && !cJSON_IsArray(seq))
        return fail(l, where, "sequence: expected an array of steps");
    size_t n = (size_t)cJSON_GetArraySize(seq);
    k->steps = calloc(n + 1, sizeof *k->steps);
    if (!k->steps)
        return fail(l, where, "out of memory");
    for (const cJSON *s = seq ? seq->child : NULL; s; s = s->next) {
        char swhere[340];
        snprintf(swhere, sizeof swhere, "%s.sequence[%zu]", where, k->n_steps);
        if (load_step(l, &k->steps[k->n_steps++], s, swhere) < 0)
            return -1;
    }
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(o, "probability");
    return p ? load_chances(l, k, p, where) : 0;
}

static int load(loader *l, mock_scenario *sc, const cJSON *root)
{
    static const char *const fields[] = {"seed", "keys", NULL};
    if (check_fields(l, root, "scenario", fields) < 0)
        return -1;
    int64_t seed = 0;
    sc->has_seed = cJSON_GetObjectItemCaseSensitive(root, "seed") != NULL;
    if (get_int(l, root, "seed", "scenario", INT64_MAX / 2, &seed) < 0)
        return -1;
    sc->seed = (uint64_t)seed;
    const cJSON *keys = cJSON_GetObjectItemCaseSensitive(root, "keys");
    if (keys && !cJSON_IsObject(keys))
        return fail(l, "keys", "expected an object mapping API keys (or \"*\") to settings");
    sc->keys = calloc((size_t)cJSON_GetArraySize(keys) + 1, sizeof *sc->keys);
    if (!sc->keys)
        return fail(l, "keys", "out of memory");
    for (const cJSON *k = keys ? keys->child : NULL; k; k = k->next)
        if (load_key(l, &sc->keys[sc->n_keys++], k) < 0)
            return -1;
    return 0;
}

int mock_scenario_load(const char *path, mock_scenario *sc, char *err, size_t errlen)
{
    memset(sc, 0, sizeof *sc);
    lg_small_file f;
    char problem[256];
    if (!lg_small_file_read(path, 0, FILE_MAX, 0, &f)) {
        snprintf(err, errlen, "%s: %s", path, lg_small_file_problem(&f, problem, sizeof problem));
        return -1;
    }
    cJSON *root = cJSON_ParseWithLength(f.data, f.len);
    lg_small_file_free(&f);
    if (!root) {
        snprintf(err, errlen, "%s: not valid JSON", path);
        return -1;
    }
    char *copy = strdup(path);
    loader l = {err, errlen, copy ? dirname(copy) : "."};
    int rc = load(&l, sc, root);
    free(copy);
    cJSON_Delete(root);
    if (rc < 0)
        mock_scenario_free(sc);
    return rc;
}

static void free_step(mock_step *s)
{
    for (size_t i = 0; i < s->n_headers; i++) {
        free(s->headers[i].name);
        free(s->headers[i].value);
    }
    free(s->headers);
    free(s->body);
}

void mock_scenario_free(mock_scenario *sc)
{
    for (size_t i = 0; i < sc->n_keys; i++) {
        mock_key_config *k = &sc->keys[i];
        for (size_t j = 0; j < k->n_steps; j++)
            free_step(&k->steps[j]);
        free(k->steps);
        free(k->chances);
        free(k->key);
    }
    free(sc->keys);
    memset(sc, 0, sizeof *sc);
}

const mock_key_config *mock_scenario_find(const mock_scenario *sc, const char *key)
{
    const mock_key_config *any = NULL;
    for (size_t i = 0; sc && i < sc->n_keys; i++) {
        if (!strcmp(sc->keys[i].key, key))
            return &sc->keys[i];
        if (!strcmp(sc->keys[i].key, "*"))
            any = &sc->keys[i];
    }
    return any;
}
