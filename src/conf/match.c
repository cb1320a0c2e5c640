/* lg_config_match_host: which provider (or plain host rule) a host name belongs to. */
#include <string.h>

#include "llmgate/config.h"

#define HOST_MAX 256

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
