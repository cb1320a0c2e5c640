/* The spend sections of the configuration: "prices" (overrides and the price file, see data/prices.json) and
 * "budgets". The rules that use them are in src/spend. */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf/conf_internal.h"
#include "llmgate/tz.h"
#include "llmgate/small_file.h"

#ifndef LG_PRICES_DEFAULT
#define LG_PRICES_DEFAULT "/usr/share/llmgate/prices.json"
#endif
#define PRICES_MAX 1024
#define BUDGETS_MAX 64
#define PRICE_USD_MAX 1e6 /* USD per million tokens */

static const char *const prices_keys[] = {"file", "models", NULL};
static const char *const price_keys[] = {"provider", "model", "input", "cached_input", "output", NULL};
static const char *const file_keys[] = {"taken", "source", "prices", NULL};
static const char *const budget_keys[] = {"name", "match", "per", "usd", NULL};
static const char *const match_keys[] = {"provider", "account", "model", "program", NULL};
static const char *const per_names[] = {"hour", "day", "month", NULL};
static const char *const ledger_keys[] = {"path", "keep_days", NULL};

/* Appends the price entries of the array arr (path) to c. */
static void parse_price_list(conf_ctx *cx, const cJSON *arr, const char *path, lg_config *c)
{
    if (!cJSON_IsArray(arr)) {
        conf_err(cx, path, "expected an array of prices");
        return;
    }
    size_t n = (size_t)cJSON_GetArraySize(arr);
    if (c->n_prices + n > PRICES_MAX) {
        conf_err(cx, path, "more than %d prices", PRICES_MAX);
        return;
    }
    lg_price *grown = realloc(c->prices, (c->n_prices + n + 1) * sizeof *grown);
    if (!grown) {
        conf_err(cx, path, "out of memory");
        return;
    }
    c->prices = grown;
    size_t i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, arr)
    {
        char ep[LG_CONF_PATH_MAX], kp[LG_CONF_PATH_MAX];
        conf_path_index(ep, path, i++);
        if (!conf_expect_object(cx, e, ep) || !conf_check_keys(cx, e, ep, price_keys))
            continue;
        lg_price p = {.cached_input = -1};
        const cJSON *v;
        const char *s, *model = NULL;
        bool ok = true;
        if (!(v = conf_member(e, ep, "provider", kp)) || !conf_string(cx, v, kp, LG_NAME_MAX - 1, &s)) {
            if (!v)
                conf_err(cx, kp, "missing (a provider name)");
            ok = false;
        } else {
            snprintf(p.provider, sizeof p.provider, "%s", s);
        }
        if (!(v = conf_member(e, ep, "model", kp)) || !conf_string(cx, v, kp, 255, &s) ||
            !conf_valid_model_text(s, true)) {
            conf_err(cx, kp, "expected a model name or glob");
            ok = false;
        } else {
            model = s;
        }
        static const char *const num[] = {"input", "output", "cached_input"};
        double *dst[] = {&p.input, &p.output, &p.cached_input};
        for (int k = 0; k < 3; k++) {
            if (!(v = conf_member(e, ep, num[k], kp))) {
                if (k < 2) {
                    conf_err(cx, kp, "missing (USD per million tokens)");
                    ok = false;
                }
                continue;
            }
            ok &= conf_number(cx, v, kp, 0, false, PRICE_USD_MAX, "a number of USD per million tokens", dst[k]);
        }
        if (!ok)
            continue;
        if (p.cached_input < 0)
            p.cached_input = p.input;
        if (!(p.model = strdup(model))) {
            conf_err(cx, ep, "out of memory");
            continue;
        }
        c->prices[c->n_prices++] = p;
    }
}

/* Reads the price file at path (required: named in the config) into c; its errors are reported under the
 * file's own name, one a line. False when an optional file does not exist. */
static bool read_price_file(conf_ctx *cx, const char *path, bool required, lg_config *c)
{
    lg_small_file f;
    if (!lg_small_file_read(path, 0, LG_CONF_MAX_BYTES, 0, &f)) {
        if (!required && f.status == LG_SMALL_FILE_CANNOT_OPEN && (f.error == ENOENT || f.error == ENOTDIR))
            return false;
        char problem[256];
        conf_err(cx, "prices.file", "%s: %s", path, lg_small_file_problem(&f, problem, sizeof problem));
        return true;
    }
    conf_ctx fx = {path, false, -1, cx->errs, false};
    cJSON *root = cJSON_ParseWithLength(f.data, f.len);
    lg_small_file_free(&f);
    if (!cJSON_IsObject(root)) {
        conf_err(&fx, NULL, "not a JSON object (a price file: {\"taken\": DATE, \"prices\": [...]})");
    } else if (conf_check_keys(&fx, root, NULL, file_keys)) {
        const cJSON *taken = cJSON_GetObjectItemCaseSensitive(root, "taken");
        const char *s;
        if (!taken)
            conf_err(&fx, "taken", "missing (the date the prices were taken, YYYY-MM-DD)");
        else if (conf_string(&fx, taken, "taken", sizeof c->prices_taken - 1, &s))
            snprintf(c->prices_taken, sizeof c->prices_taken, "%s", s);
        parse_price_list(&fx, cJSON_GetObjectItemCaseSensitive(root, "prices"), "prices", c);
    }
    cJSON_Delete(root);
    if (fx.failed)
        cx->failed = true;
    return true;
}

/* The installed price file: where the build put it, else beside the binary holding this code (the library
 * in PREFIX/lib/llmgate, the command in PREFIX/bin, a build tree's build/ beside data/), whatever PREFIX
 * the package used. */
static void read_default_prices(conf_ctx *cx, lg_config *c)
{
    if (read_price_file(cx, LG_PRICES_DEFAULT, false, c))
        return;
    Dl_info info;
    char dir[4096], path[4200];
    if (!dladdr((void *)read_default_prices, &info) || !info.dli_fname || !strchr(info.dli_fname, '/') ||
        snprintf(dir, sizeof dir, "%s", info.dli_fname) >= (int)sizeof dir)
        return;
    *strrchr(dir, '/') = '\0';
    static const char *const rel[] = {"../../share/llmgate/prices.json", "../share/llmgate/prices.json",
                                      "../data/prices.json"};
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++)
        if (snprintf(path, sizeof path, "%s/%s", dir, rel[i]) < (int)sizeof path && read_price_file(cx, path, false, c))
            return;
}

void conf_parse_prices(conf_ctx *cx, const cJSON *obj, lg_config *c)
{
    char kp[LG_CONF_PATH_MAX];
    const cJSON *v;
    const char *file = NULL;
    if (obj && conf_expect_object(cx, obj, "prices") && conf_check_keys(cx, obj, "prices", prices_keys)) {
        if ((v = conf_member(obj, "prices", "models", kp)))
            parse_price_list(cx, v, kp, c);
        if ((v = conf_member(obj, "prices", "file", kp)))
            conf_string(cx, v, kp, 4095, &file);
    }
    if (file) {
        read_price_file(cx, file, true, c);
        return;
    }
    const char *env = getenv("LLMGATE_PRICES");
    if (env && *env)
        read_price_file(cx, env, true, c);
    else
        read_default_prices(cx, c);
}

/* A copy of the glob at item into *out; false after reporting. */
static bool glob_text(conf_ctx *cx, const cJSON *item, const char *path, char **out)
{
    const char *s;
    if (!conf_string(cx, item, path, 255, &s))
        return false;
    if (!(*out = strdup(s)))
        conf_err(cx, path, "out of memory");
    return *out != NULL;
}

void conf_parse_budgets(conf_ctx *cx, const cJSON *arr, lg_config *c)
{
    if (!cJSON_IsArray(arr)) {
        conf_err(cx, "budgets", "expected an array of budgets ({\"name\", \"match\", \"per\", \"usd\"})");
        return;
    }
    size_t n = (size_t)cJSON_GetArraySize(arr);
    if (n > BUDGETS_MAX) {
        conf_err(cx, "budgets", "more than %d budgets", BUDGETS_MAX);
        return;
    }
    if (!n || !(c->budgets = calloc(n, sizeof *c->budgets))) {
        if (n)
            conf_err(cx, "budgets", "out of memory");
        return;
    }
    size_t i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, arr)
    {
        char ep[LG_CONF_PATH_MAX], kp[LG_CONF_PATH_MAX], mp[LG_CONF_PATH_MAX];
        conf_path_index(ep, "budgets", i++);
        if (!conf_expect_object(cx, e, ep) || !conf_check_keys(cx, e, ep, budget_keys))
            continue;
        lg_budget_conf *b = &c->budgets[c->n_budgets++];
        b->per = LG_PER_DAY;
        b->tz = c->spend_tz;
        const cJSON *v;
        const char *s;
        if (!(v = conf_member(e, ep, "name", kp)))
            conf_err(cx, kp, "missing (a name for messages and `llmgate reset --budget`)");
        else if (conf_string(cx, v, kp, LG_NAME_MAX - 1, &s) && !conf_valid_name(s))
            conf_err(cx, kp, "expected a name: letters, digits and . _ - @ + :");
        else if (v->valuestring)
            snprintf(b->name, sizeof b->name, "%s", s);
        for (size_t j = 0; b->name[0] && j + 1 < c->n_budgets; j++)
            if (!strcmp(c->budgets[j].name, b->name))
                conf_err(cx, kp, "a budget of this name is already defined");
        if (!(v = conf_member(e, ep, "usd", kp)))
            conf_err(cx, kp, "missing (USD per period)");
        else
            conf_number(cx, v, kp, 0, true, 1e9, "a positive number of USD", &b->usd);
        int per;
        if ((v = conf_member(e, ep, "per", kp)) && conf_enum(cx, v, kp, per_names, &per))
            b->per = (lg_budget_per)per;
        if ((v = conf_member(e, ep, "match", mp))) {
            if (!conf_expect_object(cx, v, mp) || !conf_check_keys(cx, v, mp, match_keys))
                continue;
            char **dst[] = {&b->provider, &b->account, &b->model, &b->program};
            for (int k = 0; match_keys[k]; k++) {
                const cJSON *m = conf_member(v, mp, match_keys[k], kp);
                if (m)
                    glob_text(cx, m, kp, dst[k]);
            }
        }
    }
}

void conf_parse_ledger(conf_ctx *cx, const cJSON *obj, lg_config *c)
{
    char kp[LG_CONF_PATH_MAX];
    const cJSON *v;
    const char *s;
    c->ledger_keep_days = 30;
    if (!conf_expect_object(cx, obj, "ledger") || !conf_check_keys(cx, obj, "ledger", ledger_keys))
        return;
    if ((v = conf_member(obj, "ledger", "keep_days", kp)))
        conf_int(cx, v, kp, 1, 3650, "a number of days from 1 to 3650", &c->ledger_keep_days);
    if (!(v = conf_member(obj, "ledger", "path", kp)))
        conf_err(cx, kp, "missing (where the ledger's files go: PATH-YYYY-MM-DD.jsonl)");
    else if (!conf_string(cx, v, kp, 4000, &s))
        return;
    else if (s[0] != '/')
        conf_err(cx, kp, "expected an absolute path");
    else if (!(c->ledger_path = strdup(s)))
        conf_err(cx, kp, "out of memory");
}

void conf_spend_free(lg_config *c)
{
    lg_tz_free(c->spend_tz);
    free(c->ledger_path);
    for (size_t i = 0; i < c->n_prices; i++)
        free(c->prices[i].model);
    free(c->prices);
    for (size_t i = 0; i < c->n_budgets; i++) {
        lg_budget_conf *b = &c->budgets[i];
        free(b->provider);
        free(b->account);
        free(b->model);
        free(b->program);
    }
    free(c->budgets);
}
