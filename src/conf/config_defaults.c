/* The zero-configuration defaults: the default policy and one entry per preset with the host's own key. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf/conf_internal.h"

void conf_policy_defaults(lg_config *c)
{
    static uint64_t made; /* configs made so far */
    c->generation = __atomic_add_fetch(&made, 1, __ATOMIC_RELAXED);
    static const int64_t quota_steps[] = {60000, 300000, 1800000, 7200000};
    c->retry = (lg_retry_conf){
        .switch_on_first_rate_limit = true,
        .max_rate_limit_wait_ms = 300000,
        .max_attempts = 10,
        .switch_delay_ms = 1000,
        .same_key_retry_delay_ms = 1000,
        .switch_after_retry_ms = 5000,
        .max_server_retries = 2,
        .budget_ratio = 0.2,
        .budget_min_per_s = 0.5,
        .pool_fallback = false,
        .pin_separator = ":",
    };
    c->breaker = (lg_breaker_conf){
        .failure_ratio = 0.5,
        .min_requests = 10,
        .window_ms = 30000,
        .consecutive_failures = 5,
        .open_ms = 30000,
        .open_max_ms = 300000,
    };
    c->backoff = (lg_backoff_conf){
        .n_quota_steps = sizeof quota_steps / sizeof quota_steps[0],
        .rate_limit_exceeded_ms = 30000,
        .model_capacity_exhausted_ms = 15000,
        .server_error_ms = 20000,
        .unknown_ms = 60000,
        .dedup_window_ms = 2000,
        .reset_after_ms = 120000,
        .single_account_base_ms = 1000,
        .single_account_max_ms = 60000,
        .max_hint_ms = 86400000,
    };
    memcpy(c->backoff.quota_exhausted_ms, quota_steps, sizeof quota_steps);
    c->store_timeout_ms = 50;
    c->store_retry_ms = 2000;
    c->store_lock_timeout_ms = 2000;
    c->store_pause_ms = 30000;
    strcpy(c->store_backend, "shm");
    c->max_held_body = 8 * 1024 * 1024;
    c->log_level = LG_LOG_INFO;
}

bool conf_copy_preset_hosts(lg_provider *p, const lg_preset *pr)
{
    size_t n = 0;
    while (pr->hosts[n])
        n++;
    if (!(p->hosts = calloc(n, sizeof *p->hosts)))
        return false;
    for (; p->n_hosts < n; p->n_hosts++)
        if (!(p->hosts[p->n_hosts] = strdup(pr->hosts[p->n_hosts])))
            return false;
    return true;
}

/* Fills p as the preset's default entry: its hosts, its auth and dialect, the host's own key, the top-level
 * breaker. */
static bool preset_entry(lg_provider *p, const lg_preset *pr, const lg_breaker_conf *breaker)
{
    memset(p, 0, sizeof *p);
    p->breaker = *breaker;
    snprintf(p->name, sizeof p->name, "%s", pr->name);
    p->preset = pr;
    p->dialect = pr->dialect;
    p->auth = pr->auth;
    p->limits.window_ms = LG_DEFAULT_WINDOW_MS;
    p->accounts = calloc(1, sizeof *p->accounts);
    if (!conf_copy_preset_hosts(p, pr) || !p->accounts)
        return false;
    p->n_accounts = 1;
    strcpy(p->accounts[0].name, "host");
    p->accounts[0].key_ref = strdup("host");
    return p->accounts[0].key_ref != NULL;
}

bool conf_add_default_presets(lg_config *c, const bool *referenced)
{
    size_t n_presets;
    const lg_preset *all = lg_preset_all(&n_presets);
    lg_provider *grown = realloc(c->providers, (c->n_providers + n_presets) * sizeof *grown);
    if (!grown)
        return false;
    c->providers = grown;
    for (size_t i = 0; i < n_presets; i++) {
        if (referenced && referenced[i])
            continue;
        bool ok = preset_entry(&c->providers[c->n_providers], &all[i], &c->breaker);
        c->n_providers++; /* counted even when incomplete, so lg_config_free releases it */
        if (!ok)
            return false;
    }
    return true;
}

lg_config *lg_config_defaults(void)
{
    lg_config *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    conf_policy_defaults(c);
    c->source = strdup("(defaults)");
    if (!c->source || !conf_add_default_presets(c, NULL)) {
        lg_config_free(c);
        return NULL;
    }
    return c;
}
