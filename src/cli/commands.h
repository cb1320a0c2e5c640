/* Subcommands of the llmgate command; each returns the process exit status. */
#ifndef LLMGATE_CLI_COMMANDS_H
#define LLMGATE_CLI_COMMANDS_H

/* llmgate classify [--provider NAME] FILE... : one JSON object per fixture file (or raw HTTP on stdin). */
int lg_cmd_classify(int argc, char **argv);
/* llmgate check-config [FILE] : the effective configuration, or the problems (exit 1). */
int lg_cmd_check_config(int argc, char **argv);
/* llmgate run [--config FILE] -- CMD ARGS : runs CMD with libllmgate.so preloaded. */
int lg_cmd_run(int argc, char **argv);
/* llmgate status [--json|--prometheus|--watch] : shared state per provider and account. */
int lg_cmd_status(int argc, char **argv);

#endif
