/* llmgate run [--config FILE] [--] CMD [ARGS]: runs CMD with libllmgate.so first in LD_PRELOAD. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/libpath.h"
#include "llmgate/config.h"
#include "llmgate/elf.h"

/* Resolves cmd through PATH like execvp would. */
static bool resolve_command(const char *cmd, char *out, size_t size)
{
    if (strchr(cmd, '/'))
        return snprintf(out, size, "%s", cmd) < (int)size;
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        size_t len = strcspn(path, ":");
        snprintf(out, size, "%.*s/%s", (int)len, path, cmd);
        if (access(out, X_OK) == 0)
            return true;
        path += len + (path[len] == ':');
    }
    return false;
}

/* What a preload cannot reach in the program in file and what that means, or NULL when it reaches it all
 * (or the file is no ELF: a script's interpreter is looked at when it runs). */
static const char *unreachable(const char *file)
{
    lg_elf_facts f;
    if (!lg_elf_inspect(file, true, &f))
        return NULL;
    if (f.go)
        return "is a Go program (its own HTTP and TLS); LD_PRELOAD cannot reach it, it runs ungated";
    if (!f.has_interp)
        return "is statically linked; LD_PRELOAD cannot reach it, it runs ungated";
    if (f.own_tls && !f.needs_curl)
        return "carries its own TLS library (as Node.js does); LD_PRELOAD cannot reach its https requests, "
               "they run ungated (plain http is gated)";
    return NULL;
}

/* Points LLMGATE_CONFIG at file (absolute), after checking that it loads. */
static int use_config(const char *file)
{
    char abs[PATH_MAX];
    if (!realpath(file, abs)) {
        fprintf(stderr, "llmgate: %s: %s\n", file, strerror(errno));
        return -1;
    }
    lg_errors errs = {0};
    lg_config *cfg = lg_config_load(abs, &errs);
    for (size_t i = 0; i < errs.n; i++)
        fprintf(stderr, "llmgate: %s\n", errs.items[i]);
    lg_errors_free(&errs);
    if (!cfg)
        return -1;
    lg_config_free(cfg);
    setenv("LLMGATE_CONFIG", abs, 1);
    return 0;
}

int lg_cmd_run(int argc, char **argv)
{
    int i = 1;
    while (i < argc && argv[i][0] == '-') {
        if (!strcmp(argv[i], "--")) {
            i++;
            break;
        }
        if (!strcmp(argv[i], "--config") && i + 1 < argc) {
            if (use_config(argv[i + 1]) != 0)
                return 2;
            i += 2;
            continue;
        }
        fprintf(stderr, "llmgate run: unknown option %s\nusage: llmgate run [--config FILE] -- CMD [ARGS]\n",
                argv[i]);
        return 2;
    }
    if (i >= argc) {
        fputs("usage: llmgate run [--config FILE] -- CMD [ARGS]\n", stderr);
        return 2;
    }
    char lib[PATH_MAX], cmd[PATH_MAX];
    if (!lg_cli_find_library(lib, sizeof lib)) {
        fputs("llmgate: cannot find libllmgate.so (looked in $LLMGATE_LIB, beside this program and in "
              LG_LIB_FROM_BIN " from it; set LLMGATE_LIB)\n",
              stderr);
        return 2;
    }
    const char *why = resolve_command(argv[i], cmd, sizeof cmd) ? unreachable(cmd) : NULL;
    if (why)
        fprintf(stderr, "llmgate: warning: %s %s\n", cmd, why);
    const char *old = getenv("LD_PRELOAD");
    char *preload = NULL;
    if (asprintf(&preload, "%s%s%s", lib, old && *old ? " " : "", old && *old ? old : "") < 0)
        return 2;
    setenv("LD_PRELOAD", preload, 1);
    free(preload);
    execvp(argv[i], argv + i);
    fprintf(stderr, "llmgate: %s: %s\n", argv[i], strerror(errno));
    return 127;
}
