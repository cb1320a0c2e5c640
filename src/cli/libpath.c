/* lg_cli_find_library: $LLMGATE_LIB, beside the executable, or in the installed layout next to it. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/libpath.h"

/* realpath of cand into out when it is readable and fits. */
static bool resolve(const char *cand, char *out, size_t size)
{
    char abs[PATH_MAX];
    if (access(cand, R_OK) != 0 || !realpath(cand, abs) || strlen(abs) >= size)
        return false;
    memcpy(out, abs, strlen(abs) + 1);
    return true;
}

bool lg_cli_find_library(char *out, size_t size)
{
    const char *env = getenv("LLMGATE_LIB");
    if (env && *env)
        return resolve(env, out, size);
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return false;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return false;
    *slash = '\0';
    static const char *const rel[] = {"libllmgate.so", LG_LIB_FROM_BIN};
    for (size_t i = 0; i < sizeof rel / sizeof *rel; i++) {
        char cand[PATH_MAX + 64];
        snprintf(cand, sizeof cand, "%s/%s", exe, rel[i]);
        if (resolve(cand, out, size))
            return true;
    }
    return false;
}
