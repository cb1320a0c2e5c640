/* The llmgate command: dispatches to the subcommands. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
} commands[] = {
    {"classify", lg_cmd_classify},
    {"check-config", lg_cmd_check_config},
    {"run", lg_cmd_run},
    {"relay", lg_cmd_relay},
    {"ca", lg_cmd_ca},
    {"status", lg_cmd_status},
    {"reset", lg_cmd_reset},
    {"route", lg_cmd_route},
    {"usage", lg_cmd_usage},
};

static bool is_help(const char *arg)
{
    return !strcmp(arg, "-h") || !strcmp(arg, "--help");
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return lg_usage(stderr);
    const char *cmd = argv[1];
    if (is_help(cmd))
        return lg_usage(stdout);
    if (!strcmp(cmd, "help"))
        return lg_help(argc > 2 ? argv[2] : NULL);
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V") || !strcmp(cmd, "version"))
        return lg_cmd_version();
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        if (strcmp(cmd, commands[i].name))
            continue;
        if (argc == 3 && is_help(argv[2]))
            return lg_help(cmd);
        return commands[i].run(argc - 1, argv + 1);
    }
    fprintf(stderr, "llmgate: unknown command '%s'\n", cmd);
    return lg_usage(stderr);
}
