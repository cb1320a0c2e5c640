/* A provider's "models" object: request model patterns (exact, glob, "*") and the model sent instead. */
#include <stdlib.h>
#include <string.h>

#include "conf/conf_internal.h"

#define MODEL_LEN_MAX 255

bool conf_valid_model_text(const char *s, bool backslash_ok)
{
    size_t len = strlen(s);
    if (len == 0 || len > MODEL_LEN_MAX)
        return false;
    for (; *s; s++)
        if ((unsigned char)*s <= ' ' || (unsigned char)*s > '~' || *s == '"' || (*s == '\\' && !backslash_ok))
            return false;
    return true;
}

/* True for a pattern made only of '*': it matches every model. */
static bool matches_all(const char *pattern)
{
    return pattern[strspn(pattern, "*")] == '\0';
}

void conf_parse_models(conf_ctx *cx, const cJSON *obj, const char *path, lg_provider *p)
{
    char kp[LG_CONF_PATH_MAX];
    if (!conf_expect_object(cx, obj, path) || !conf_check_keys(cx, obj, path, NULL))
        return;
    int n = cJSON_GetArraySize(obj);
    if (n == 0)
        return;
    if (!(p->models = calloc((size_t)n, sizeof *p->models))) {
        conf_err(cx, path, "out of memory");
        return;
    }
    const char *catch_all = NULL;
    for (const cJSON *it = obj->child; it; it = it->next) {
        const char *pattern = it->string ? it->string : "", *model;
        conf_path_key(kp, path, pattern);
        if (!conf_valid_model_text(pattern, true)) {
            conf_err(cx, kp, "expected a model name or glob pattern: 1 to %d printable characters without "
                             "spaces or quotes", MODEL_LEN_MAX);
            continue;
        }
        if (catch_all) {
            conf_err(cx, kp, "never used: \"%s\" before it matches every model", catch_all);
            continue;
        }
        if (!conf_string(cx, it, kp, MODEL_LEN_MAX, &model))
            continue;
        if (!conf_valid_model_text(model, false)) {
            conf_err(cx, kp, "expected a model name: printable characters without spaces, quotes or backslashes");
            continue;
        }
        lg_model_map *m = &p->models[p->n_models];
        m->pattern = strdup(pattern);
        m->model = strdup(model);
        p->n_models++; /* counted even when incomplete, so conf_provider_free releases it */
        if (!m->pattern || !m->model)
            conf_err(cx, kp, "out of memory");
        if (matches_all(pattern))
            catch_all = pattern;
    }
}
