/* lg_config_parse: JSON text to a validated lg_config, collecting every problem with its path. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf/fields.h"

/* Reads the CONF_MS_STEPS array arr of field f at path into dst (1 to LG_QUOTA_STEPS_MAX integers in f's
 * bounds), their count into *n. */
static void parse_steps(conf_ctx *cx, const cJSON *arr, const char *path, const conf_field *f, int64_t *dst,
                        size_t *n)
{
    char ip[LG_CONF_PATH_MAX];
    int size = cJSON_GetArraySize(arr);
    if (!cJSON_IsArray(arr) || size < 1 || size > LG_QUOTA_STEPS_MAX) {
        char got[200];
        conf_describe(arr, true, got, sizeof got);
        conf_err(cx, path, "expected an array of 1 to %d durations in milliseconds, got %s", LG_QUOTA_STEPS_MAX,
                 got);
        return;
    }
    size_t i = 0;
    for (const cJSON *it = arr->child; it; it = it->next, i++) {
        conf_path_index(ip, path, i);
        conf_int(cx, it, ip, (int64_t)f->min, (int64_t)f->max, f->what, &dst[i]);
    }
    *n = i;
}

/* Reads a CONF_TOKEN: 1 to aux-1 printable ASCII characters, no space. */
static void parse_token(conf_ctx *cx, const cJSON *v, const char *path, const conf_field *f, char *dst)
{
    const char *s;
    if (!conf_string(cx, v, path, f->aux - 1, &s))
        return;
    for (const char *q = s; *q; q++)
        if ((unsigned char)*q <= ' ' || (unsigned char)*q > '~') {
            conf_err(cx, path, "expected 1 to %zu printable ASCII characters without spaces", f->aux - 1);
            return;
        }
    snprintf(dst, f->aux, "%s", s);
}

/* Reads the value v of field f at path into its place in base. */
static void parse_field(conf_ctx *cx, const cJSON *v, const char *path, const conf_field *f, char *base)
{
    void *dst = base + f->offset;
    int64_t i64;
    double d;
    int idx;
    const char *s;
    switch (f->kind) {
    case CONF_BOOL:
        conf_bool(cx, v, path, dst);
        break;
    case CONF_INT:
        if (conf_int(cx, v, path, (int64_t)f->min, (int64_t)f->max, f->what, &i64))
            *(int *)dst = (int)i64;
        break;
    case CONF_INT64:
        conf_int(cx, v, path, (int64_t)f->min, (int64_t)f->max, f->what, dst);
        break;
    case CONF_NUMBER:
        conf_number(cx, v, path, f->min, f->min_exclusive, f->max, f->what, dst);
        break;
    case CONF_SECONDS:
        if (conf_number(cx, v, path, f->min, f->min_exclusive, f->max, f->what, &d)) {
            double ms = d * 1000.0;
            i64 = (int64_t)ms;
            *(int64_t *)dst = (double)i64 < ms ? i64 + 1 : i64; /* a fraction of a millisecond rounds up */
        }
        break;
    case CONF_MS_STEPS:
        parse_steps(cx, v, path, f, dst, (size_t *)(base + f->aux));
        break;
    case CONF_TOKEN:
        parse_token(cx, v, path, f, dst);
        break;
    case CONF_CHOICE:
        if (conf_enum(cx, v, path, f->names, &idx))
            *(int *)dst = idx;
        break;
    case CONF_CHOICE_TEXT:
        if (conf_enum(cx, v, path, f->names, &idx))
            snprintf(dst, f->aux, "%s", f->names[idx]);
        break;
    case CONF_NAME:
        if (conf_string(cx, v, path, f->aux - 1, &s)) {
            if (conf_valid_name(s))
                snprintf(dst, f->aux, "%s", s);
            else
                conf_err(cx, path, "expected %s", f->what);
        }
        break;
    case CONF_PATH:
        if (!(f->nullable && cJSON_IsNull(v)) && conf_string(cx, v, path, f->aux, &s)
            && !(*(char **)dst = strdup(s)))
            conf_err(cx, path, "out of memory");
        break;
    }
}

void conf_parse_section(conf_ctx *cx, const cJSON *obj, const char *path, const conf_section *s, void *base)
{
    char kp[LG_CONF_PATH_MAX];
    const char *names[CONF_FIELDS_MAX + 1] = {NULL};
    if (!conf_expect_object(cx, obj, path))
        return;
    for (size_t i = 0; i < s->n_fields; i++)
        names[i] = s->fields[i].name;
    conf_check_keys(cx, obj, path, names);
    for (size_t i = 0; i < s->n_fields; i++) {
        const cJSON *v = conf_member(obj, path, s->fields[i].name, kp);
        if (v)
            parse_field(cx, v, kp, &s->fields[i], base);
    }
    if (s->check)
        s->check(cx, obj, path, base);
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

/* Refuses a config naming more providers or accounts (the presets' host accounts included) than the shared
 * store holds, rather than enforcing part of it. */
static void conf_check_capacity(conf_ctx *cx, const lg_config *c)
{
    size_t accounts = 0;
    for (size_t i = 0; i < c->n_providers; i++)
        accounts += c->providers[i].n_accounts;
    if (c->n_providers > LG_CONFIG_STORE_PROVIDERS || accounts > LG_CONFIG_STORE_ACCOUNTS)
        conf_err(cx, "providers",
                 "%zu providers with %zu accounts in all (the presets included); the state store holds at most "
                 "%d providers and %d accounts",
                 c->n_providers, accounts, LG_CONFIG_STORE_PROVIDERS, LG_CONFIG_STORE_ACCOUNTS);
}

/* Parses the sections of root into c, reporting into cx. */
static void parse_sections(conf_ctx *cx, const cJSON *root, lg_config *c)
{
    const char *top_keys[CONF_FIELDS_MAX + 8] = {"providers"};
    size_t n = 1;
    for (size_t i = 0; i < conf_n_sections; i++)
        top_keys[n++] = conf_sections[i]->name;
    top_keys[n++] = "routes";
    top_keys[n++] = "prices";
    top_keys[n++] = "budgets";
    top_keys[n++] = "ledger";
    top_keys[n] = "gateway";
    conf_check_keys(cx, root, NULL, top_keys);
    const cJSON *v;
    for (size_t i = 0; i < conf_n_sections; i++)
        if ((v = cJSON_GetObjectItemCaseSensitive(root, conf_sections[i]->name)))
            conf_parse_section(cx, v, conf_sections[i]->name, conf_sections[i], (char *)c + conf_sections[i]->offset);
    conf_parse_providers(cx, cJSON_GetObjectItemCaseSensitive(root, "providers"), c);
    conf_check_fallbacks(cx, c);
    conf_check_capacity(cx, c);
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "routes")))
        conf_parse_routes(cx, v, c);
    conf_parse_prices(cx, cJSON_GetObjectItemCaseSensitive(root, "prices"), c);
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "budgets")))
        conf_parse_budgets(cx, v, c);
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "ledger")))
        conf_parse_ledger(cx, v, c);
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "gateway")))
        conf_parse_gateway(cx, v, c);
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
