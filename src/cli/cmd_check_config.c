/* llmgate check-config [FILE]: prints the effective configuration, or every problem found (exit 1). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "llmgate/config.h"
#include "llmgate/spend.h"

static int usage(FILE *f, int status)
{
    fputs("usage: llmgate check-config [FILE]\n"
          "  Validates FILE (default: $LLMGATE_CONFIG, $XDG_CONFIG_HOME/llmgate/config.json,\n"
          "  /etc/llmgate/config.json) and prints the effective configuration as JSON, with keys shown\n"
          "  only as env:NAME, file:PATH or literal:DIGEST. Exits 1 when the configuration has problems.\n",
          f);
    return status;
}

/* One line on stderr for model (named in the config) at provider p when no price covers it. */
static void note_price(const lg_config *c, const lg_provider *p, const char *model)
{
    if (p && model && !strpbrk(model, "*?[") && !lg_price_find(c, p, model))
        fprintf(stderr, "llmgate: note: no price for model %s at %s: its usage counts as unpriced (a USD budget "
                        "prices it at %s's dearest listed model)\n", model, p->name, p->name);
}

/* The models the configuration names (models maps, routes) that no price covers, when it has a price table
 * (without one every model is unpriced, and `llmgate usage` says so). */
static void note_unpriced(const lg_config *c)
{
    if (!c->n_prices)
        return;
    for (size_t i = 0; i < c->n_providers; i++)
        for (size_t j = 0; j < c->providers[i].n_models; j++)
            note_price(c, &c->providers[i], c->providers[i].models[j].model);
    for (size_t i = 0; i < c->n_routes; i++)
        if (c->routes[i].to)
            note_price(c, lg_config_provider(c, c->routes[i].to), c->routes[i].set_model);
}

int lg_cmd_check_config(int argc, char **argv)
{
    const char *file = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
            return usage(stdout, 0);
        if (file || (argv[i][0] == '-' && argv[i][1] != '\0'))
            return usage(stderr, 2);
        file = argv[i];
    }
    lg_errors errs = {0};
    lg_config *c = lg_config_load(file, &errs);
    if (!c) {
        for (size_t i = 0; i < errs.n; i++)
            fprintf(stderr, "%s\n", errs.items[i]);
        if (errs.n == 0)
            fputs("llmgate: check-config: out of memory\n", stderr);
        lg_errors_free(&errs);
        return 1;
    }
    lg_errors_free(&errs);
    note_unpriced(c);
    char *out = lg_config_render(c);
    lg_config_free(c);
    if (!out) {
        fputs("llmgate: check-config: out of memory\n", stderr);
        return 1;
    }
    printf("%s\n", out);
    free(out);
    return fflush(stdout) == 0 ? 0 : 1;
}
