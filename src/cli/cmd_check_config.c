/* llmgate check-config [FILE]: prints the effective configuration, or every problem found (exit 1). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "llmgate/config.h"

static int usage(FILE *f, int status)
{
    fputs("usage: llmgate check-config [FILE]\n"
          "  Validates FILE (default: $LLMGATE_CONFIG, $XDG_CONFIG_HOME/llmgate/config.json,\n"
          "  /etc/llmgate/config.json) and prints the effective configuration as JSON, with keys shown\n"
          "  only as env:NAME, file:PATH or literal:DIGEST. Exits 1 when the configuration has problems.\n",
          f);
    return status;
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
