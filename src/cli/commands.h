/* Subcommands of the llmgate command; each returns the process exit status. */
#ifndef LLMGATE_CLI_COMMANDS_H
#define LLMGATE_CLI_COMMANDS_H

#include <stdio.h>

/* llmgate classify [--provider NAME] FILE... : one JSON object per fixture file (or raw HTTP on stdin). */
int lg_cmd_classify(int argc, char **argv);
/* llmgate check-config [FILE] : the effective configuration, or the problems (exit 1). */
int lg_cmd_check_config(int argc, char **argv);
/* llmgate run [--config FILE] -- CMD ARGS : runs CMD with libllmgate.so preloaded. */
int lg_cmd_run(int argc, char **argv);
/* llmgate status [--json|--prometheus|--watch] : shared state per provider and account. */
int lg_cmd_status(int argc, char **argv);
/* llmgate --version : version, build, library and config in effect. */
int lg_cmd_version(void);

/* The list of commands on f; returns 0 for stdout, 2 (a usage error) for stderr. */
int lg_usage(FILE *f);
/* The help of command (NULL: the list of commands) on stdout; 2 after a message for an unknown one. */
int lg_help(const char *command);

#endif
