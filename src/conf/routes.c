/* The top-level "routes" array: rules evaluated in order for each request, the first that matches applies
 * (matching: src/conf/route_match.c). */
#include <stdlib.h>
#include <string.h>

#include "conf/conf_internal.h"
#include "llmgate/translate.h"

#define ROUTES_MAX 64
#define REFUSE_LEN_MAX 300
#define HEADER_LEN_MAX 100

static const char *const rule_keys[] = {"match", "set", "to", "refuse", NULL};
static const char *const match_keys[] = {"model", "max_prompt_tokens", "program", "header", NULL};
static const char *const set_keys[] = {"model", NULL};

/* A copy of the model name or glob at item (path) into *out; false after reporting. */
static bool model_text(conf_ctx *cx, const cJSON *item, const char *path, bool glob, char **out)
{
    const char *s;
    if (!conf_string(cx, item, path, 255, &s))
        return false;
    if (!conf_valid_model_text(s, glob)) {
        conf_err(cx, path, "expected a model name%s: printable characters without spaces, quotes%s", glob ? " or glob" : "",
                 glob ? "" : " or backslashes");
        return false;
    }
    if (!(*out = strdup(s)))
        conf_err(cx, path, "out of memory");
    return *out != NULL;
}

/* True when s is an HTTP header name (RFC 9110 token characters). */
static bool valid_header_name(const char *s)
{
    static const char extra[] = "!#$%&'*+-.^_`|~";
    for (const char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              strchr(extra, *p)))
            return false;
    return *s != '\0';
}

/* A copy of the string at item into *out, checked by ok (what says what it must be); false after reporting. */
static bool text(conf_ctx *cx, const cJSON *item, const char *path, size_t max, bool (*ok)(const char *),
                 const char *what, char **out)
{
    const char *s;
    if (!conf_string(cx, item, path, max, &s))
        return false;
    if (ok && !ok(s)) {
        conf_err(cx, path, "expected %s", what);
        return false;
    }
    if (!(*out = strdup(s)))
        conf_err(cx, path, "out of memory");
    return *out != NULL;
}

static void parse_match(conf_ctx *cx, const cJSON *obj, const char *path, lg_route *r)
{
    char kp[LG_CONF_PATH_MAX];
    if (!conf_expect_object(cx, obj, path) || !conf_check_keys(cx, obj, path, match_keys))
        return;
    const cJSON *v;
    if ((v = conf_member(obj, path, "model", kp)))
        model_text(cx, v, kp, true, &r->model);
    if ((v = conf_member(obj, path, "max_prompt_tokens", kp)))
        conf_int(cx, v, kp, 0, INT64_MAX / 2, "a non-negative integer (tokens)", &r->max_prompt_tokens);
    if ((v = conf_member(obj, path, "program", kp)))
        text(cx, v, kp, 255, NULL, NULL, &r->program);
    if ((v = conf_member(obj, path, "header", kp)))
        text(cx, v, kp, HEADER_LEN_MAX, valid_header_name, "a header name (letters, digits and !#$%&'*+-.^_`|~)",
             &r->header);
}

/* Checks that a route may send requests to t (named at path). */
static void check_to(conf_ctx *cx, const lg_config *c, const char *name, const char *path)
{
    const lg_provider *t = lg_config_provider(c, name);
    lg_tr_dialect d;
    if (!t) {
        conf_err(cx, path, "no provider named \"%s\" (neither in \"providers\" nor a preset)", name);
        return;
    }
    if (!lg_tr_dialect_of(t->dialect, &d)) {
        conf_err(cx, path, "\"%s\" speaks the %s dialect: a route sends only to openai, anthropic or google "
                           "providers", t->name, lg_dialect_name(t->dialect));
        return;
    }
    for (size_t k = 0; k < t->n_accounts; k++)
        if (t->accounts[k].key_ref && !strcmp(t->accounts[k].key_ref, "host")) {
            conf_err(cx, path, "\"%s\" has an account (\"%s\") using the key the program sent, which belongs to the "
                               "provider the program called; give \"%s\" accounts with keys of its own",
                     t->name, t->accounts[k].name, t->name);
            return;
        }
}

/* One rule at path. */
static void parse_rule(conf_ctx *cx, const cJSON *obj, const char *path, const lg_config *c, lg_route *r)
{
    char kp[LG_CONF_PATH_MAX], mp[LG_CONF_PATH_MAX];
    r->max_prompt_tokens = -1;
    if (!conf_expect_object(cx, obj, path) || !conf_check_keys(cx, obj, path, rule_keys))
        return;
    const cJSON *v = conf_member(obj, path, "match", kp);
    if (v)
        parse_match(cx, v, kp, r);
    if ((v = conf_member(obj, path, "set", kp)) && conf_expect_object(cx, v, kp) &&
        conf_check_keys(cx, v, kp, set_keys)) {
        const cJSON *m = conf_member(v, kp, "model", mp);
        if (m)
            model_text(cx, m, mp, false, &r->set_model);
        else
            conf_err(cx, kp, "expected \"model\": the model the request is sent as");
    }
    if ((v = conf_member(obj, path, "to", kp)) && text(cx, v, kp, LG_NAME_MAX - 1, conf_valid_name, "a provider name",
                                                        &r->to))
        check_to(cx, c, r->to, kp);
    if ((v = conf_member(obj, path, "refuse", kp)))
        text(cx, v, kp, REFUSE_LEN_MAX, NULL, NULL, &r->refuse);
    if (r->refuse && (r->to || r->set_model))
        conf_err(cx, path, "\"refuse\" answers the request locally: it takes no \"set\" or \"to\"");
    else if (!conf_member(obj, path, "set", kp) && !conf_member(obj, path, "to", kp) &&
             !conf_member(obj, path, "refuse", kp))
        conf_err(cx, path, "expected an action: \"set\", \"to\" or \"refuse\"");
}

void conf_parse_routes(conf_ctx *cx, const cJSON *arr, lg_config *c)
{
    char ip[LG_CONF_PATH_MAX];
    int n = cJSON_GetArraySize(arr);
    if (!conf_array_at_most(cx, arr, "routes", ROUTES_MAX, "rules", false))
        return;
    if (n == 0)
        return;
    if (!(c->routes = calloc((size_t)n, sizeof *c->routes))) {
        conf_err(cx, "routes", "out of memory");
        return;
    }
    for (const cJSON *it = arr->child; it; it = it->next) {
        conf_path_index(ip, "routes", c->n_routes);
        parse_rule(cx, it, ip, c, &c->routes[c->n_routes++]);
    }
}
