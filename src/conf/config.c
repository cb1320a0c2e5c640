/* lg_config_parse: JSON text to a validated lg_config, collecting every problem with its path. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf/conf_internal.h"

#define PATH_LEN_MAX 4096
#define WAIT_SECONDS_MAX 1e9

#define BUDGET_RATIO_MAX 100.0
#define BUDGET_PER_S_MAX 1e6

static const char *const top_keys[] = {"providers", "retry", "backoff", "breaker", "store", "log", "hold", "routes",
                                       NULL};
static const char *const retry_keys[] = {"switch_on_first_rate_limit", "max_rate_limit_wait_seconds",
                                         "max_attempts", "switch_delay_ms", "same_key_retry_delay_ms",
                                         "switch_after_retry_ms", "max_server_retries", "budget_ratio",
                                         "budget_min_per_s", "pool_fallback", "pin_separator", NULL};
static const char *const backoff_keys[] = {"quota_exhausted_ms", "rate_limit_exceeded_ms",
                                           "model_capacity_exhausted_ms", "server_error_ms", "unknown_ms",
                                           "dedup_window_ms", "reset_after_ms", "single_account_base_ms",
                                           "single_account_max_ms", "max_hint_ms", NULL};
static const char *const store_keys[] = {"backend",    "path",            "redis_url", "timeout_ms",
                                         "retry_ms",   "lock_timeout_ms", "pause_ms",  NULL};
static const char *const log_keys[] = {"level", "file", NULL};
static const char *const hold_keys[] = {"max_body_bytes", NULL};
static const char *const backend_names[] = {"shm", "redis", NULL};

#define MS_WHAT "a non-negative integer (milliseconds)"

/* Reads an optional millisecond duration into *dst. */
static void opt_ms(conf_ctx *cx, const cJSON *obj, const char *base, const char *name, int64_t *dst)
{
    char kp[LG_CONF_PATH_MAX];
    const cJSON *v = conf_member(obj, base, name, kp);
    if (v)
        conf_int(cx, v, kp, 0, LG_CONF_MS_MAX, MS_WHAT, dst);
}

/* Reads an optional small integer in [min, max] into *dst. */
static void opt_small_int(conf_ctx *cx, const cJSON *obj, const char *base, const char *name, int64_t min,
                          int64_t max, const char *what, int *dst)
{
    char kp[LG_CONF_PATH_MAX];
    int64_t v64;
    const cJSON *v = conf_member(obj, base, name, kp);
    if (v && conf_int(cx, v, kp, min, max, what, &v64))
        *dst = (int)v64;
}

/* Reads retry.pin_separator: 1 to 7 printable ASCII characters, no space. */
static void parse_pin_separator(conf_ctx *cx, const cJSON *v, const char *path, lg_retry_conf *r)
{
    const char *s;
    if (!conf_string(cx, v, path, sizeof r->pin_separator - 1, &s))
        return;
    for (const char *q = s; *q; q++)
        if ((unsigned char)*q <= ' ' || (unsigned char)*q > '~') {
            conf_err(cx, path, "expected 1 to %zu printable ASCII characters without spaces",
                     sizeof r->pin_separator - 1);
            return;
        }
    snprintf(r->pin_separator, sizeof r->pin_separator, "%s", s);
}

static void parse_retry(conf_ctx *cx, const cJSON *obj, lg_retry_conf *r)
{
    char kp[LG_CONF_PATH_MAX];
    if (!conf_expect_object(cx, obj, "retry"))
        return;
    conf_check_keys(cx, obj, "retry", retry_keys);
    const cJSON *v = conf_member(obj, "retry", "switch_on_first_rate_limit", kp);
    if (v)
        conf_bool(cx, v, kp, &r->switch_on_first_rate_limit);
    double d;
    v = conf_member(obj, "retry", "max_rate_limit_wait_seconds", kp);
    if (v && conf_number(cx, v, kp, 0, false, WAIT_SECONDS_MAX, "a non-negative number of seconds", &d)) {
        double ms = d * 1000.0;
        r->max_rate_limit_wait_ms = (int64_t)ms;
        if ((double)r->max_rate_limit_wait_ms < ms) /* round a fraction of a millisecond up */
            r->max_rate_limit_wait_ms++;
    }
    v = conf_member(obj, "retry", "budget_ratio", kp);
    if (v)
        conf_number(cx, v, kp, 0, false, BUDGET_RATIO_MAX, "a non-negative number (0.2 = 20 %)", &r->budget_ratio);
    v = conf_member(obj, "retry", "budget_min_per_s", kp);
    if (v)
        conf_number(cx, v, kp, 0, false, BUDGET_PER_S_MAX, "a non-negative number of retries per second",
                    &r->budget_min_per_s);
    v = conf_member(obj, "retry", "pool_fallback", kp);
    if (v)
        conf_bool(cx, v, kp, &r->pool_fallback);
    v = conf_member(obj, "retry", "pin_separator", kp);
    if (v)
        parse_pin_separator(cx, v, kp, r);
    opt_small_int(cx, obj, "retry", "max_attempts", 1, 1000, "an integer from 1 to 1000", &r->max_attempts);
    opt_small_int(cx, obj, "retry", "max_server_retries", 0, 1000, "an integer from 0 to 1000",
                  &r->max_server_retries);
    opt_ms(cx, obj, "retry", "switch_delay_ms", &r->switch_delay_ms);
    opt_ms(cx, obj, "retry", "same_key_retry_delay_ms", &r->same_key_retry_delay_ms);
    opt_ms(cx, obj, "retry", "switch_after_retry_ms", &r->switch_after_retry_ms);
}

/* Reads backoff.quota_exhausted_ms: 1..LG_QUOTA_STEPS_MAX durations, one per consecutive failure. */
static void parse_quota_steps(conf_ctx *cx, const cJSON *arr, const char *path, lg_backoff_conf *b)
{
    char ip[LG_CONF_PATH_MAX];
    int n = cJSON_GetArraySize(arr);
    if (!cJSON_IsArray(arr) || n < 1 || n > LG_QUOTA_STEPS_MAX) {
        char got[200];
        conf_describe(arr, true, got, sizeof got);
        conf_err(cx, path, "expected an array of 1 to %d durations in milliseconds, got %s", LG_QUOTA_STEPS_MAX,
                 got);
        return;
    }
    size_t i = 0;
    for (const cJSON *it = arr->child; it; it = it->next, i++) {
        conf_path_index(ip, path, i);
        conf_int(cx, it, ip, 0, LG_CONF_MS_MAX, MS_WHAT, &b->quota_exhausted_ms[i]);
    }
    b->n_quota_steps = i;
}

static void parse_backoff(conf_ctx *cx, const cJSON *obj, lg_backoff_conf *b)
{
    char kp[LG_CONF_PATH_MAX];
    if (!conf_expect_object(cx, obj, "backoff"))
        return;
    conf_check_keys(cx, obj, "backoff", backoff_keys);
    const cJSON *steps = conf_member(obj, "backoff", "quota_exhausted_ms", kp);
    if (steps)
        parse_quota_steps(cx, steps, kp, b);
    const struct {
        const char *name;
        int64_t *dst;
    } ms[] = {
        {"rate_limit_exceeded_ms", &b->rate_limit_exceeded_ms},
        {"model_capacity_exhausted_ms", &b->model_capacity_exhausted_ms},
        {"server_error_ms", &b->server_error_ms},
        {"unknown_ms", &b->unknown_ms},
        {"dedup_window_ms", &b->dedup_window_ms},
        {"reset_after_ms", &b->reset_after_ms},
        {"single_account_base_ms", &b->single_account_base_ms},
        {"single_account_max_ms", &b->single_account_max_ms},
        {"max_hint_ms", &b->max_hint_ms},
    };
    for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++)
        opt_ms(cx, obj, "backoff", ms[i].name, ms[i].dst);
    if (b->single_account_base_ms > b->single_account_max_ms)
        conf_err(cx, "backoff.single_account_base_ms", "%lld exceeds single_account_max_ms (%lld)",
                 (long long)b->single_account_base_ms, (long long)b->single_account_max_ms);
}

/* Copies an optional string member (1..max_len bytes) into a fresh allocation at *dst. */
static void opt_string(conf_ctx *cx, const cJSON *obj, const char *base, const char *name, size_t max_len,
                       char **dst)
{
    char kp[LG_CONF_PATH_MAX];
    const char *s;
    const cJSON *v = conf_member(obj, base, name, kp);
    if (v && conf_string(cx, v, kp, max_len, &s) && !(*dst = strdup(s)))
        conf_err(cx, kp, "out of memory");
}

static void parse_store(conf_ctx *cx, const cJSON *obj, lg_config *c)
{
    char kp[LG_CONF_PATH_MAX];
    if (!conf_expect_object(cx, obj, "store"))
        return;
    conf_check_keys(cx, obj, "store", store_keys);
    int idx;
    const cJSON *v = conf_member(obj, "store", "backend", kp);
    if (v && conf_enum(cx, v, kp, backend_names, &idx))
        snprintf(c->store_backend, sizeof c->store_backend, "%s", backend_names[idx]);
    bool redis = !strcmp(c->store_backend, "redis");
    opt_string(cx, obj, "store", "path", PATH_LEN_MAX, &c->store_path);
    opt_string(cx, obj, "store", "redis_url", PATH_LEN_MAX, &c->redis_url);
    opt_ms(cx, obj, "store", "timeout_ms", &c->store_timeout_ms);
    opt_ms(cx, obj, "store", "retry_ms", &c->store_retry_ms);
    opt_ms(cx, obj, "store", "lock_timeout_ms", &c->store_lock_timeout_ms);
    opt_ms(cx, obj, "store", "pause_ms", &c->store_pause_ms);
    if (c->store_path && c->store_path[0] != '/')
        conf_err(cx, "store.path", "expected an absolute path");
    if (c->store_path && redis)
        conf_err(cx, "store.path", "only used with \"backend\": \"shm\"");
    if (c->redis_url && !redis)
        conf_err(cx, "store.redis_url", "only used with \"backend\": \"redis\"");
    if (c->redis_url && strncmp(c->redis_url, "redis://", 8) && strncmp(c->redis_url, "unix://", 7))
        conf_err(cx, "store.redis_url", "expected a redis:// or unix:// URL");
    if (redis && !c->redis_url)
        conf_err(cx, "store.redis_url", "required with \"backend\": \"redis\"");
}

static void parse_log(conf_ctx *cx, const cJSON *obj, lg_config *c)
{
    char kp[LG_CONF_PATH_MAX];
    if (!conf_expect_object(cx, obj, "log"))
        return;
    conf_check_keys(cx, obj, "log", log_keys);
    int idx;
    const cJSON *v = conf_member(obj, "log", "level", kp);
    if (v && conf_enum(cx, v, kp, conf_level_names, &idx))
        c->log_level = (lg_log_level)idx;
    v = conf_member(obj, "log", "file", kp);
    if (v && !cJSON_IsNull(v))
        opt_string(cx, obj, "log", "file", PATH_LEN_MAX, &c->log_file);
}

static void parse_hold(conf_ctx *cx, const cJSON *obj, lg_config *c)
{
    char kp[LG_CONF_PATH_MAX];
    if (!conf_expect_object(cx, obj, "hold"))
        return;
    conf_check_keys(cx, obj, "hold", hold_keys);
    const cJSON *v = conf_member(obj, "hold", "max_body_bytes", kp);
    if (v)
        conf_int(cx, v, kp, 65536, 1 << 30, "an integer from 65536 to 1073741824 (bytes)", &c->max_held_body);
}

/* Reports where (line, column) position pos of text lies, for JSON syntax errors. */
static void syntax_err(conf_ctx *cx, const char *text, size_t len, const char *pos, const char *what)
{
    if (!pos || pos < text || pos > text + len) {
        conf_err(cx, NULL, "%s", what);
        return;
    }
    size_t line = 1, col = 1;
    for (const char *p = text; p < pos; p++) {
        if (*p == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    conf_err(cx, NULL, "%s near line %zu, column %zu", what, line, col);
}

/* Overwrites every string in the tree (it may hold literal keys) before it is freed. */
static void wipe_strings(cJSON *item)
{
    for (; item; item = item->next) {
        if (item->valuestring)
            explicit_bzero(item->valuestring, strlen(item->valuestring));
        wipe_strings(item->child);
    }
}

/* Parses the sections of root into c, reporting into cx. */
static void parse_sections(conf_ctx *cx, const cJSON *root, lg_config *c)
{
    conf_check_keys(cx, root, NULL, top_keys);
    const cJSON *v;
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "retry")))
        parse_retry(cx, v, &c->retry);
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "backoff")))
        parse_backoff(cx, v, &c->backoff);
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "breaker")))
        conf_parse_breaker(cx, v, "breaker", &c->breaker);
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "store")))
        parse_store(cx, v, c);
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "log")))
        parse_log(cx, v, c);
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "hold")))
        parse_hold(cx, v, c);
    conf_parse_providers(cx, cJSON_GetObjectItemCaseSensitive(root, "providers"), c);
    conf_check_fallbacks(cx, c);
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "routes")))
        conf_parse_routes(cx, v, c);
}

lg_config *conf_parse_mode(const char *json, size_t len, const char *origin, bool others_can_read, int mode,
                           lg_errors *errs)
{
    conf_ctx cx = {origin ? origin : "(config)", others_can_read, mode, errs, false};
    if (!json) {
        conf_err(&cx, NULL, "no configuration text");
        return NULL;
    }
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(json, len, &end, false);
    if (!root) {
        syntax_err(&cx, json, len, end, len ? "invalid JSON" : "empty file, expected a JSON object");
        return NULL;
    }
    size_t off = end && end >= json && end <= json + len ? (size_t)(end - json) : len;
    while (off < len && json[off] && strchr(" \t\r\n", json[off]))
        off++;
    if (off < len)
        syntax_err(&cx, json, len, json + off, "unexpected text after the JSON value");
    lg_config *c = NULL;
    if (!cJSON_IsObject(root)) {
        char got[200];
        conf_describe(root, false, got, sizeof got);
        conf_err(&cx, NULL, "expected a JSON object at the top level, got %s", got);
    } else if (!cx.failed) {
        c = calloc(1, sizeof *c);
        if (c) {
            conf_policy_defaults(c);
            c->source = strdup(cx.origin);
            parse_sections(&cx, root, c);
        }
        if (!c || !c->source)
            conf_err(&cx, NULL, "out of memory");
    }
    wipe_strings(root);
    cJSON_Delete(root);
    if (cx.failed) {
        lg_config_free(c);
        return NULL;
    }
    return c;
}

lg_config *lg_config_parse(const char *json, size_t len, const char *origin, bool others_can_read,
                           lg_errors *errs)
{
    return conf_parse_mode(json, len, origin, others_can_read, -1, errs);
}
