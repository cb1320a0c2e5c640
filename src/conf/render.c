/* lg_config_render: the effective configuration as JSON; keys appear only as their key_ref. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf/conf_internal.h"

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

/* Adds the breaker b as member name of obj. */
static void render_breaker(cJSON *obj, const char *name, const lg_breaker_conf *b)
{
    cJSON *o = cJSON_AddObjectToObject(obj, name);
    if (!o)
        return;
    cJSON_AddNumberToObject(o, "failure_ratio", b->failure_ratio);
    cJSON_AddNumberToObject(o, "min_requests", b->min_requests);
    cJSON_AddNumberToObject(o, "window_ms", (double)b->window_ms);
    cJSON_AddNumberToObject(o, "consecutive_failures", b->consecutive_failures);
    cJSON_AddNumberToObject(o, "open_ms", (double)b->open_ms);
    cJSON_AddNumberToObject(o, "open_max_ms", (double)b->open_max_ms);
}

/* Adds p's breaker (null for a plain host rule, which has none), fallback chain and model map. */
static void render_resilience(cJSON *o, const lg_provider *p)
{
    if (p->dialect == LG_DIALECT_NONE)
        cJSON_AddNullToObject(o, "breaker");
    else
        render_breaker(o, "breaker", &p->breaker);
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
    cJSON *limits = cJSON_AddObjectToObject(o, "limits");
    if (limits) {
        cJSON_AddNumberToObject(limits, "rpm", (double)p->limits.rpm);
        cJSON_AddNumberToObject(limits, "tpm", (double)p->limits.tpm);
        cJSON_AddNumberToObject(limits, "window_ms", (double)p->limits.window_ms);
        add_string_or_null(limits, "tier", p->limits.tier[0] ? p->limits.tier : NULL);
    }
    cJSON *stream = cJSON_AddObjectToObject(o, "stream");
    if (stream)
        cJSON_AddStringToObject(stream, "boundary", conf_boundary_name(p->boundary));
    render_resilience(o, p);
    return o;
}

static void render_retry(cJSON *root, const lg_retry_conf *r)
{
    cJSON *o = cJSON_AddObjectToObject(root, "retry");
    if (!o)
        return;
    cJSON_AddBoolToObject(o, "switch_on_first_rate_limit", r->switch_on_first_rate_limit);
    cJSON_AddNumberToObject(o, "max_rate_limit_wait_seconds", (double)r->max_rate_limit_wait_ms / 1000.0);
    cJSON_AddNumberToObject(o, "max_attempts", r->max_attempts);
    cJSON_AddNumberToObject(o, "switch_delay_ms", (double)r->switch_delay_ms);
    cJSON_AddNumberToObject(o, "same_key_retry_delay_ms", (double)r->same_key_retry_delay_ms);
    cJSON_AddNumberToObject(o, "switch_after_retry_ms", (double)r->switch_after_retry_ms);
    cJSON_AddNumberToObject(o, "max_server_retries", r->max_server_retries);
    cJSON_AddNumberToObject(o, "budget_ratio", r->budget_ratio);
    cJSON_AddNumberToObject(o, "budget_min_per_s", r->budget_min_per_s);
    cJSON_AddBoolToObject(o, "pool_fallback", r->pool_fallback);
    cJSON_AddStringToObject(o, "pin_separator", r->pin_separator);
}

static void render_backoff(cJSON *root, const lg_backoff_conf *b)
{
    cJSON *o = cJSON_AddObjectToObject(root, "backoff");
    if (!o)
        return;
    cJSON *steps = cJSON_AddArrayToObject(o, "quota_exhausted_ms");
    for (size_t i = 0; steps && i < b->n_quota_steps && i < LG_QUOTA_STEPS_MAX; i++)
        cJSON_AddItemToArray(steps, cJSON_CreateNumber((double)b->quota_exhausted_ms[i]));
    cJSON_AddNumberToObject(o, "rate_limit_exceeded_ms", (double)b->rate_limit_exceeded_ms);
    cJSON_AddNumberToObject(o, "model_capacity_exhausted_ms", (double)b->model_capacity_exhausted_ms);
    cJSON_AddNumberToObject(o, "server_error_ms", (double)b->server_error_ms);
    cJSON_AddNumberToObject(o, "unknown_ms", (double)b->unknown_ms);
    cJSON_AddNumberToObject(o, "dedup_window_ms", (double)b->dedup_window_ms);
    cJSON_AddNumberToObject(o, "reset_after_ms", (double)b->reset_after_ms);
    cJSON_AddNumberToObject(o, "single_account_base_ms", (double)b->single_account_base_ms);
    cJSON_AddNumberToObject(o, "single_account_max_ms", (double)b->single_account_max_ms);
    cJSON_AddNumberToObject(o, "max_hint_ms", (double)b->max_hint_ms);
}

static void render_store_and_log(cJSON *root, const lg_config *c)
{
    cJSON *store = cJSON_AddObjectToObject(root, "store");
    if (store) {
        cJSON_AddStringToObject(store, "backend", c->store_backend);
        if (c->store_path)
            cJSON_AddStringToObject(store, "path", c->store_path);
        if (c->redis_url) {
            char *shown = redact_url(c->redis_url);
            add_string_or_null(store, "redis_url", shown);
            free(shown);
        }
    }
    cJSON *log = cJSON_AddObjectToObject(root, "log");
    if (log) {
        cJSON_AddStringToObject(log, "level", conf_log_level_name(c->log_level));
        add_string_or_null(log, "file", c->log_file);
    }
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
    render_retry(root, &c->retry);
    render_backoff(root, &c->backoff);
    render_breaker(root, "breaker", &c->breaker);
    render_store_and_log(root, c);
    cJSON *hold = cJSON_AddObjectToObject(root, "hold");
    if (hold)
        cJSON_AddNumberToObject(hold, "max_body_bytes", (double)c->max_held_body);
    if (c->n_routes)
        render_routes(root, c);
    char *out = cJSON_Print(root);
    cJSON_Delete(root);
    return out ? two_space_layout(out) : NULL;
}
