/* lg_config_provider: a provider by its name. */
#include <string.h>

#include "llmgate/config.h"

const lg_provider *lg_config_provider(const lg_config *c, const char *name)
{
    if (!c || !name)
        return NULL;
    for (size_t i = 0; i < c->n_providers; i++)
        if (!strcmp(c->providers[i].name, name))
            return &c->providers[i];
    return NULL;
}
