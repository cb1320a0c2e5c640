/* lg_provider_map_model: the model name a request is sent as on a provider ("models"). */
#include <fnmatch.h>
#include <string.h>

#include "llmgate/config.h"

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
