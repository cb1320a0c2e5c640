/* Lookups in a parsed config: a provider by its name or by a host name, the model a provider is sent. */
#include <fnmatch.h>
#include <string.h>

#include "llmgate/config.h"

#define HOST_MAX 256

const lg_provider *lg_config_provider(const lg_config *c, const char *name)
{
    if (!c || !name)
        return NULL;
    for (size_t i = 0; i < c->n_providers; i++)
        if (!strcmp(c->providers[i].name, name))
            return &c->providers[i];
    return NULL;
}

const lg_provider *lg_config_match_host(const lg_config *c, const char *host)
{
    if (!c || !host)
        return NULL;
    char trimmed[HOST_MAX];
    size_t len = strlen(host);
    if (len > 0 && host[len - 1] == '.' && len < sizeof trimmed) { /* "api.openai.com." is the same host */
        memcpy(trimmed, host, len - 1);
        trimmed[len - 1] = '\0';
        host = trimmed;
    }
    for (size_t i = 0; i < c->n_providers; i++)
        for (size_t j = 0; j < c->providers[i].n_hosts; j++)
            if (lg_host_matches(c->providers[i].hosts[j], host))
                return &c->providers[i];
    return NULL;
}

const char *lg_provider_map_model(const lg_provider *p, const char *model)
{
    if (!p || !model)
        return model;
    for (size_t i = 0; i < p->n_models; i++) {
        const char *pat = p->models[i].pattern;
        if (!strcmp(pat, model) || fnmatch(pat, model, 0) == 0)
            return p->models[i].model;
    }
    return model;
}
