/* The state file a command reads, as the configuration names it (see commands.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "llmgate/config.h"

bool lg_cli_store_path(const char *config, const char *command, char **path)
{
    lg_errors errs = {0};
    lg_config *cfg = lg_config_load(config, &errs);
    *path = NULL;
    bool ok = true;
    if (!cfg) {
        for (size_t i = 0; i < errs.n; i++)
            fprintf(stderr, "llmgate: config: %s\n", errs.items[i]);
        fprintf(stderr, "llmgate: using the default state file\n");
    } else if (strcmp(cfg->store_backend, "shm") != 0 && cfg->store_backend[0]) {
        fprintf(stderr, "llmgate: %s reads the shm store; this configuration uses store backend '%s'\n", command,
                cfg->store_backend);
        ok = false;
    } else if (cfg->store_path) {
        *path = strdup(cfg->store_path);
        ok = *path != NULL;
    }
    lg_errors_free(&errs);
    lg_config_free(cfg);
    return ok;
}
