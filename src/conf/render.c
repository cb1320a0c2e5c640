/* lg_config_render: the effective configuration as JSON; keys appear only as their key_ref. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf/fields.h"

/* Adds s, or null when s is NULL. */
static void add_string_or_null(cJSON *obj, const char *name, const char *s)
{
    if (s)
        cJSON_AddStringToObject(obj, name, s);
    else
        cJSON_AddNullToObject(obj, name);
}

/* A copy of a redis URL with its user information (which may hold a password) shown as "***". */
static char *redact_url(const char *url)
{
    const char *scheme_end = strstr(url, "://");
    const char *at = strrchr(url, '@');
    char *out = NULL;
    if (!scheme_end || !at || at < scheme_end)
        return strdup(url);
    if (asprintf(&out, "%.*s://***%s", (int)(scheme_end - url), url, at) < 0)
        return NULL;
    return out;
}

/* Adds the value of field f kept in base to o. */
static void render_field(cJSON *o, const conf_field *f, const char *base)
{
    const void *src = base + f->offset;
    switch (f->kind) {
    case CONF_BOOL:
        cJSON_AddBoolToObject(o, f->name, *(const bool *)src);
        break;
    case CONF_INT:
        cJSON_AddNumberToObject(o, f->name, *(const int *)src);
        break;
    case CONF_INT64:
        cJSON_AddNumberToObject(o, f->name, (double)*(const int64_t *)src);
        break;
    case CONF_NUMBER:
        cJSON_AddNumberToObject(o, f->name, *(const double *)src);
        break;
    case CONF_SECONDS:
        cJSON_AddNumberToObject(o, f->name, (double)*(const int64_t *)src / 1000.0);
        break;
    case CONF_MS_STEPS: {
        cJSON *steps = cJSON_AddArrayToObject(o, f->name);
        size_t n = *(const size_t *)(base + f->aux);
        for (size_t i = 0; steps && i < n && i < LG_QUOTA_STEPS_MAX; i++)
            cJSON_AddItemToArray(steps, cJSON_CreateNumber((double)((const int64_t *)src)[i]));
        break;
    }
    case CONF_TOKEN:
    case CONF_CHOICE_TEXT:
        cJSON_AddStringToObject(o, f->name, src);
        break;
    case CONF_CHOICE: {
        size_t n = 0, idx = (size_t)*(const int *)src;
        while (f->names[n])
            n++;
        cJSON_AddStringToObject(o, f->name, f->names[idx < n ? idx : (size_t)f->def]);
        break;
    }
    case CONF_NAME:
        add_string_or_null(o, f->name, *(const char *)src ? src : NULL);
        break;
    case CONF_PATH: {
        const char *s = *(char *const *)src;
        char *shown = s && f->redact_url ? redact_url(s) : NULL;
        if (s || f->nullable)
            add_string_or_null(o, f->name, f->redact_url ? shown : s);
        free(shown);
        break;
    }
    }
}

/* Adds the section s kept in base to parent, as member s->name. */
static void render_section(cJSON *parent, const conf_section *s, const void *base)
{
    cJSON *o = cJSON_AddObjectToObject(parent, s->name);
    for (size_t i = 0; o && i < s->n_fields; i++)
        render_field(o, &s->fields[i], base);
}

/* Adds p's breaker (null for a plain host rule, which has none), fallback chain and model map. */
static void render_resilience(cJSON *o, const lg_provider *p)
{
    if (p->dialect == LG_DIALECT_NONE)
        cJSON_AddNullToObject(o, "breaker");
    else
        render_section(o, &conf_breaker_section, &p->breaker);
    cJSON *fallback = cJSON_AddArrayToObject(o, "fallback");
    for (size_t i = 0; fallback && i < p->n_fallback; i++)
        cJSON_AddItemToArray(fallback, cJSON_CreateString(p->fallback[i]));
    cJSON *models = cJSON_AddObjectToObject(o, "models");
    for (size_t i = 0; models && i < p->n_models; i++)
        cJSON_AddItemToObject(models, p->models[i].pattern, cJSON_CreateString(p->models[i].model));
}

static cJSON *render_provider(const lg_provider *p)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    add_string_or_null(o, "preset", p->preset ? p->preset->name : NULL);
    cJSON_AddStringToObject(o, "dialect", lg_dialect_name(p->dialect));
    cJSON_AddStringToObject(o, "auth", conf_auth_name(p->auth));
    cJSON *hosts = cJSON_AddArrayToObject(o, "hosts");
    for (size_t i = 0; hosts && i < p->n_hosts; i++)
        cJSON_AddItemToArray(hosts, cJSON_CreateString(p->hosts[i]));
    add_string_or_null(o, "upstream", p->upstream);
    cJSON *accounts = cJSON_AddArrayToObject(o, "accounts");
    for (size_t i = 0; accounts && i < p->n_accounts; i++) {
        cJSON *a = cJSON_CreateObject();
        if (!a)
            continue;
        cJSON_AddStringToObject(a, "name", p->accounts[i].name);
        add_string_or_null(a, "key", p->accounts[i].key_ref);
        add_string_or_null(a, "pool", p->accounts[i].pool[0] ? p->accounts[i].pool : NULL);
        cJSON_AddItemToArray(accounts, a);
    }
    render_section(o, &conf_limits_section, &p->limits);
    cJSON *stream = cJSON_AddObjectToObject(o, "stream");
    if (stream)
        cJSON_AddStringToObject(stream, "boundary", conf_boundary_name(p->boundary));
    render_resilience(o, p);
    return o;
}

/* Rewrites cJSON's tab layout in place as two-space indentation and ": " (raw tabs never occur inside
 * printed strings, cJSON escapes them), growing the buffer as needed. */
static char *two_space_layout(char *text)
{
    size_t tabs = 0, len = strlen(text);
    for (size_t i = 0; i < len; i++)
        tabs += text[i] == '\t';
    char *out = malloc(len + tabs + 1);
    if (!out)
        return text;
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] != '\t')
            out[o++] = text[i];
        else if (i > 0 && text[i - 1] == ':')
            out[o++] = ' ';
        else {
            out[o++] = ' ';
            out[o++] = ' ';
        }
    }
    out[o] = '\0';
    cJSON_free(text);
    return out;
}

/* Adds member name = s to o when s is set. */
static void add_if(cJSON *o, const char *name, const char *s)
{
    if (s)
        cJSON_AddStringToObject(o, name, s);
}

/* The "routes" array, each rule as written (absent conditions and actions left out). */
static void render_routes(cJSON *root, const lg_config *c)
{
    cJSON *arr = cJSON_AddArrayToObject(root, "routes");
    for (size_t i = 0; arr && i < c->n_routes; i++) {
        const lg_route *r = &c->routes[i];
        cJSON *o = cJSON_CreateObject(), *m = cJSON_AddObjectToObject(o, "match");
        if (!o || !m) {
            cJSON_Delete(o);
            return;
        }
        add_if(m, "model", r->model);
        if (r->max_prompt_tokens >= 0)
            cJSON_AddNumberToObject(m, "max_prompt_tokens", (double)r->max_prompt_tokens);
        add_if(m, "program", r->program);
        add_if(m, "header", r->header);
        if (r->set_model) {
            cJSON *set = cJSON_AddObjectToObject(o, "set");
            if (set)
                cJSON_AddStringToObject(set, "model", r->set_model);
        }
        add_if(o, "to", r->to);
        add_if(o, "refuse", r->refuse);
        cJSON_AddItemToArray(arr, o);
    }
}

char *lg_config_render(const lg_config *c)
{
    if (!c)
        return NULL;
    cJSON *root = cJSON_CreateObject();
    if (!root)
        return NULL;
    add_string_or_null(root, "source", c->source);
    cJSON *providers = cJSON_AddObjectToObject(root, "providers");
    for (size_t i = 0; providers && i < c->n_providers; i++) {
        cJSON *p = render_provider(&c->providers[i]);
        if (p)
            cJSON_AddItemToObject(providers, c->providers[i].name, p);
    }
    for (size_t i = 0; i < conf_n_sections; i++)
        render_section(root, conf_sections[i], (const char *)c + conf_sections[i]->offset);
    if (c->n_routes)
        render_routes(root, c);
    char *out = cJSON_Print(root);
    cJSON_Delete(root);
    return out ? two_space_layout(out) : NULL;
}
