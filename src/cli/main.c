/* The llmgate command: dispatches to the subcommands. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"

static int usage(FILE *f)
{
    fputs("usage: llmgate COMMAND [ARGS]\n"
          "  run [--config FILE] -- CMD [ARGS]   run CMD with llmgate preloaded\n"
          "  status [--json|--prometheus|--watch] show accounts, cooldowns and counters\n"
          "  classify [--provider NAME] FILE...  classify responses (fixture JSON, or raw HTTP on stdin)\n"
          "  check-config [FILE]                 validate and print the effective configuration\n"
          "  reset [PROVIDER[/ACCOUNT]]          clear cooldowns by hand (all, a provider's, or one account's)\n",
          f);
    return f == stderr ? 2 : 0;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage(stderr);
    const char *cmd = argv[1];
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help"))
        return usage(stdout);
    if (!strcmp(cmd, "classify"))
        return lg_cmd_classify(argc - 1, argv + 1);
    if (!strcmp(cmd, "check-config"))
        return lg_cmd_check_config(argc - 1, argv + 1);
    if (!strcmp(cmd, "run"))
        return lg_cmd_run(argc - 1, argv + 1);
    if (!strcmp(cmd, "status"))
        return lg_cmd_status(argc - 1, argv + 1);
    if (!strcmp(cmd, "reset"))
        return lg_cmd_reset(argc - 1, argv + 1);
    fprintf(stderr, "llmgate: unknown command '%s'\n", cmd);
    return usage(stderr);
}
