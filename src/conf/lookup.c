/* Looking providers up by name, and a provider's model map. */
#include <fnmatch.h>
#include <string.h>

#include "llmgate/config.h"

const lg_provider *lg_config_provider(const lg_config *c, const char *name)
{
    for (size_t i = 0; c && name && i < c->n_providers; i++)
        if (!strcmp(c->providers[i].name, name))
            return &c->providers[i];
    return NULL;
}

const char *lg_provider_map_model(const lg_provider *p, const char *model)
{
    for (size_t i = 0; i < p->n_models; i++)
        if (!strcmp(p->models[i].pattern, model) || fnmatch(p->models[i].pattern, model, 0) == 0)
            return p->models[i].model;
    return model;
}
