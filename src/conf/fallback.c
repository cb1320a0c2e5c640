/* A provider's "fallback" chain: parsed per provider, checked once every provider (presets too) is known. */
#include <stdlib.h>
#include <string.h>

#include "conf/conf_internal.h"
#include "llmgate/translate.h"

#define FALLBACK_MAX 16

/* True when s can be the next entry of p's chain (a name, not p's own, not listed yet); reports at path. */
static bool entry_ok(conf_ctx *cx, const lg_provider *p, const char *s, const char *path)
{
    if (!conf_valid_name(s)) {
        conf_err(cx, path, "expected a provider name (1 to %d characters from A-Z a-z 0-9 . _ - @ + :)",
                 LG_NAME_MAX - 1);
        return false;
    }
    if (!strcmp(s, p->name)) {
        conf_err(cx, path, "\"%s\" names this provider itself", s);
        return false;
    }
    for (size_t j = 0; j < p->n_fallback; j++)
        if (!strcmp(p->fallback[j], s)) {
            conf_err(cx, path, "\"%s\" is already in the chain", s);
            return false;
        }
    return true;
}

void conf_parse_fallback(conf_ctx *cx, const cJSON *arr, const char *path, lg_provider *p)
{
    char ip[LG_CONF_PATH_MAX];
    int n = cJSON_GetArraySize(arr);
    if (!conf_array_at_most(cx, arr, path, FALLBACK_MAX, "provider names", true))
        return;
    if (n == 0)
        return;
    if (!(p->fallback = calloc((size_t)n, sizeof *p->fallback))) {
        conf_err(cx, path, "out of memory");
        return;
    }
    for (const cJSON *it = arr->child; it; it = it->next) {
        size_t i = p->n_fallback;
        conf_path_index(ip, path, i);
        /* An entry refused here stays as "" (skipped by conf_check_fallbacks, and the parse fails anyway) so
         * that later entries keep their index in messages. */
        const char *name = "", *s;
        if (conf_string(cx, it, ip, LG_NAME_MAX - 1, &s) && entry_ok(cx, p, s, ip))
            name = s;
        if (!(p->fallback[i] = strdup(name)))
            conf_err(cx, ip, "out of memory");
        else
            p->n_fallback++;
    }
}

/* Reports at path that no provider is called name, suggesting the provider that configures the preset name
 * is an alias of. */
static void unknown_target(conf_ctx *cx, const lg_config *c, const char *path, const char *name)
{
    const lg_preset *pr = lg_preset_find(name);
    for (size_t i = 0; pr && i < c->n_providers; i++)
        if (c->providers[i].preset == pr) {
            conf_err(cx, path, "no provider named \"%s\" (did you mean \"%s\"?)", name, c->providers[i].name);
            return;
        }
    conf_err(cx, path, "no provider named \"%s\" (neither in \"providers\" nor a preset)", name);
}

/* Checks that target t can serve the requests of p; reports at path otherwise. */
static void check_target(conf_ctx *cx, const lg_provider *p, const lg_provider *t, const char *path)
{
    if (t->dialect == LG_DIALECT_NONE) {
        conf_err(cx, path, "\"%s\" is a plain host rule (dialect \"none\"); it cannot serve another provider's "
                           "requests", t->name);
        return;
    }
    lg_tr_dialect a, b;
    if (t->dialect != p->dialect && !(lg_tr_dialect_of(t->dialect, &a) && lg_tr_dialect_of(p->dialect, &b))) {
        conf_err(cx, path, "\"%s\" speaks the %s dialect and \"%s\" the %s one: requests are translated only "
                           "between the openai, anthropic and google dialects",
                 t->name, lg_dialect_name(t->dialect), p->name, lg_dialect_name(p->dialect));
        return;
    }
    for (size_t k = 0; k < t->n_accounts; k++)
        if (t->accounts[k].key_ref && !strcmp(t->accounts[k].key_ref, "host")) {
            conf_err(cx, path, "\"%s\" has an account (\"%s\") using the key the program sent, which belongs to "
                               "\"%s\" and never goes to another provider; give \"%s\" accounts with keys of its own",
                     t->name, t->accounts[k].name, p->name, t->name);
            return;
        }
}

void conf_check_fallbacks(conf_ctx *cx, const lg_config *c)
{
    char pp[LG_CONF_PATH_MAX], fp[LG_CONF_PATH_MAX], ip[LG_CONF_PATH_MAX];
    for (size_t i = 0; i < c->n_providers; i++) {
        const lg_provider *p = &c->providers[i];
        if (p->n_fallback == 0)
            continue;
        conf_path_key(pp, "providers", p->name);
        conf_path_key(fp, pp, "fallback");
        for (size_t j = 0; j < p->n_fallback; j++) {
            if (!p->fallback[j][0])
                continue; /* refused while parsing */
            conf_path_index(ip, fp, j);
            const lg_provider *t = lg_config_provider(c, p->fallback[j]);
            if (t)
                check_target(cx, p, t, ip);
            else
                unknown_target(cx, c, ip, p->fallback[j]);
        }
    }
}
