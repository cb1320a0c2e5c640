/* The "breaker" object: when a provider's circuit breaker opens, and for how long. */
#include "conf/conf_internal.h"

#define COUNT_MAX 1000000 /* largest min_requests / consecutive_failures accepted */

static const char *const breaker_keys[] = {"failure_ratio", "min_requests", "window_ms", "consecutive_failures",
                                           "open_ms", "open_max_ms", NULL};

/* Reads member name of obj as an integer in [min, max] into *dst when present. */
static void opt_int(conf_ctx *cx, const cJSON *obj, const char *path, const char *name, int64_t min, int64_t max,
                    const char *what, int64_t *dst)
{
    char kp[LG_CONF_PATH_MAX];
    const cJSON *v = conf_member(obj, path, name, kp);
    if (v)
        conf_int(cx, v, kp, min, max, what, dst);
}

void conf_parse_breaker(conf_ctx *cx, const cJSON *obj, const char *path, lg_breaker_conf *b)
{
    char kp[LG_CONF_PATH_MAX];
    if (!conf_expect_object(cx, obj, path))
        return;
    conf_check_keys(cx, obj, path, breaker_keys);
    const cJSON *v = conf_member(obj, path, "failure_ratio", kp);
    if (v)
        conf_number(cx, v, kp, 0, true, 1, "a number greater than 0 and at most 1", &b->failure_ratio);
    int64_t min_requests = b->min_requests, consecutive = b->consecutive_failures;
    opt_int(cx, obj, path, "min_requests", 1, COUNT_MAX, "an integer from 1 to 1000000", &min_requests);
    opt_int(cx, obj, path, "consecutive_failures", 0, COUNT_MAX, "an integer from 0 (never) to 1000000",
            &consecutive);
    b->min_requests = (int)min_requests;
    b->consecutive_failures = (int)consecutive;
    opt_int(cx, obj, path, "window_ms", 1, LG_CONF_MS_MAX, "a positive integer (milliseconds)", &b->window_ms);
    opt_int(cx, obj, path, "open_ms", 1, LG_CONF_MS_MAX, "a positive integer (milliseconds)", &b->open_ms);
    opt_int(cx, obj, path, "open_max_ms", 1, LG_CONF_MS_MAX, "a positive integer (milliseconds)", &b->open_max_ms);
    bool has_open = cJSON_GetObjectItemCaseSensitive(obj, "open_ms") != NULL;
    if (b->open_ms <= b->open_max_ms || (!has_open && !cJSON_GetObjectItemCaseSensitive(obj, "open_max_ms")))
        return; /* consistent, or inherited as it is (then reported where it was set) */
    if (has_open) {
        conf_path_key(kp, path, "open_ms");
        conf_err(cx, kp, "%lld exceeds open_max_ms (%lld)", (long long)b->open_ms, (long long)b->open_max_ms);
    } else {
        conf_path_key(kp, path, "open_max_ms");
        conf_err(cx, kp, "%lld is less than open_ms (%lld)", (long long)b->open_max_ms, (long long)b->open_ms);
    }
}
