/* The zero-configuration defaults: the default policy and one entry per preset with the host's own key. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf/fields.h"

/* Sets field f in base to its default. */
static void default_field(const conf_field *f, char *base)
{
    void *dst = base + f->offset;
    switch (f->kind) {
    case CONF_BOOL:
        *(bool *)dst = f->def != 0;
        break;
    case CONF_INT:
    case CONF_CHOICE:
        *(int *)dst = (int)f->def;
        break;
    case CONF_INT64:
        *(int64_t *)dst = (int64_t)f->def;
        break;
    case CONF_NUMBER:
        *(double *)dst = f->def;
        break;
    case CONF_SECONDS:
        *(int64_t *)dst = (int64_t)(f->def * 1000.0);
        break;
    case CONF_MS_STEPS: {
        size_t n = 0;
        for (; f->def_steps[n]; n++)
            ((int64_t *)dst)[n] = f->def_steps[n];
        *(size_t *)(base + f->aux) = n;
        break;
    }
    case CONF_TOKEN:
        snprintf(dst, f->aux, "%s", f->def_text);
        break;
    case CONF_CHOICE_TEXT:
        snprintf(dst, f->aux, "%s", f->names[(int)f->def]);
        break;
    case CONF_NAME:
        *(char *)dst = '\0';
        break;
    case CONF_PATH:
        *(char **)dst = NULL;
        break;
    }
}

void conf_section_defaults(const conf_section *s, void *base)
{
    for (size_t i = 0; i < s->n_fields; i++)
        default_field(&s->fields[i], base);
}

void conf_policy_defaults(lg_config *c)
{
    static uint64_t made; /* configs made so far */
    c->generation = __atomic_add_fetch(&made, 1, __ATOMIC_RELAXED);
    for (size_t i = 0; i < conf_n_sections; i++)
        conf_section_defaults(conf_sections[i], (char *)c + conf_sections[i]->offset);
}

bool conf_copy_preset_hosts(lg_provider *p, const lg_preset *pr)
{
    size_t n = 0;
    while (pr->hosts[n])
        n++;
    if (n && !(p->hosts = calloc(n, sizeof *p->hosts)))
        return false;
    for (; p->n_hosts < n; p->n_hosts++)
        if (!(p->hosts[p->n_hosts] = strdup(pr->hosts[p->n_hosts])))
            return false;
    return true;
}

/* Fills p as the preset's default entry (a preset with hosts): its hosts, its auth and dialect, the host's own key, the top-level
 * breaker. */
static bool preset_entry(lg_provider *p, const lg_preset *pr, const lg_breaker_conf *breaker)
{
    memset(p, 0, sizeof *p);
    p->breaker = *breaker;
    snprintf(p->name, sizeof p->name, "%s", pr->name);
    p->preset = pr;
    p->dialect = pr->dialect;
    p->auth = pr->auth;
    conf_section_defaults(&conf_limits_section, &p->limits);
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
        if ((referenced && referenced[i]) || !all[i].hosts[0]) /* a host-less preset serves only when configured */
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
