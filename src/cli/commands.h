/* Subcommands of the llmgate command; each returns the process exit status. */
#ifndef LLMGATE_CLI_COMMANDS_H
#define LLMGATE_CLI_COMMANDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "llmgate/config.h"

/* llmgate classify [--provider NAME] FILE... : one JSON object per fixture file (or raw HTTP on stdin). */
int lg_cmd_classify(int argc, char **argv);
/* llmgate check-config [FILE] : the effective configuration, or the problems (exit 1). */
int lg_cmd_check_config(int argc, char **argv);
/* llmgate run [--config FILE] -- CMD ARGS : runs CMD with libllmgate.so preloaded. */
int lg_cmd_run(int argc, char **argv);
/* llmgate relay [--config FILE] [--port N] [--addr-file PATH] [--idle SECONDS] : the relay, in the foreground. */
int lg_cmd_relay(int argc, char **argv);
/* llmgate ca show|rotate|remove [--config FILE] : the relay's local CA. */
int lg_cmd_ca(int argc, char **argv);
/* llmgate status [--wide|--json|--prometheus|--watch] : shared state per provider and account. */
int lg_cmd_status(int argc, char **argv);
/* llmgate route [--config FILE] [--provider NAME] [--program NAME] [--header NAME]... FILE : the routing
 * rule a request body takes and what would be sent. */
int lg_cmd_route(int argc, char **argv);
/* llmgate reset [--config FILE] [PROVIDER[/ACCOUNT] | --budget NAME] : clears cooldowns, or lifts a budget (shared store and the saved file). */
int lg_cmd_reset(int argc, char **argv);

/* llmgate usage [--since 7d] [--by KEYS] [--json|--csv] : usage and cost per day, provider, account, model,
 * program. */
int lg_cmd_usage(int argc, char **argv);
/* The spend file of the configuration (config NULL = the searched one); NULL (after a line on stderr, or
 * silently when it does not exist and create is false) when it cannot be opened. */
struct lg_spend *lg_cli_spend_open(const char *config, bool create);
/* The usage and cost counters of `llmgate status --prometheus`, per provider and account (nothing when
 * nothing was counted yet). */
void lg_cli_usage_prometheus(const lg_config *cfg);

/* The state file the configuration (config NULL = the searched one) names into *path (NULL = the default;
 * caller frees). False, with a line on stderr, when the configured backend is not the shared-memory one;
 * config problems are reported and the default used. `command` names the caller in messages. */
bool lg_cli_store_path(const char *config, const char *command, char **path);

/* True when the name field s of cap bytes (a slot of the shared store) holds a non-empty, NUL-terminated
 * name of valid UTF-8 without control characters: safe to print. */
bool lg_cli_name_ok(const char *s, size_t cap);

/* llmgate --version : version, build, library and config in effect. */
int lg_cmd_version(void);

/* The list of commands on f; returns 0 for stdout, 2 (a usage error) for stderr. */
int lg_usage(FILE *f);
/* The help of command (NULL: the list of commands) on stdout; 2 after a message for an unknown one. */
int lg_help(const char *command);

#endif
