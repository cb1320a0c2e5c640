/* lg_config_load: finds the config file (explicit path, $LLMGATE_CONFIG, XDG, /etc) and parses it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "conf/conf_internal.h"
#include "llmgate/small_file.h"

#define ETC_CONFIG "/etc/llmgate/config.json"
#define DEFAULT_PATH_MAX 4096

/* Reads and parses one file. *found is false (and nothing reported) when the file does not exist and
 * required is false; an explicitly named file that is missing is a problem. */
static lg_config *load_file(const char *path, bool required, bool *found, lg_errors *errs)
{
    *found = true;
    lg_small_file f;
    if (!lg_small_file_read(path, 0, LG_CONF_MAX_BYTES, 0, &f)) {
        if (!required && f.status == LG_SMALL_FILE_CANNOT_OPEN && (f.error == ENOENT || f.error == ENOTDIR)) {
            *found = false;
            return NULL;
        }
        char problem[256];
        lg_errors_add(errs, "%s: %s", path, lg_small_file_problem(&f, problem, sizeof problem));
        return NULL;
    }
    lg_config *c = conf_parse_mode(f.data, f.len, path, (f.st.st_mode & (S_IRGRP | S_IROTH)) != 0,
                                   (int)(f.st.st_mode & 07777), errs);
    lg_small_file_free(&f);
    return c;
}

/* The per-user default path ($XDG_CONFIG_HOME or ~/.config) into out; false when neither is usable. */
static bool user_config_path(char *out, size_t n)
{
    const char *xdg = secure_getenv("XDG_CONFIG_HOME");
    if (xdg && xdg[0] == '/')
        return snprintf(out, n, "%s/llmgate/config.json", xdg) < (int)n;
    const char *home = secure_getenv("HOME");
    if (home && home[0] == '/')
        return snprintf(out, n, "%s/.config/llmgate/config.json", home) < (int)n;
    return false;
}

lg_config *lg_config_load(const char *path, lg_errors *errs)
{
    int saved_errno = errno;
    bool found = false;
    lg_config *c = NULL;
    const char *env = secure_getenv("LLMGATE_CONFIG");
    char user_path[DEFAULT_PATH_MAX];
    if (path) {
        c = load_file(path, true, &found, errs);
    } else if (env && *env) {
        c = load_file(env, true, &found, errs);
    } else {
        if (user_config_path(user_path, sizeof user_path))
            c = load_file(user_path, false, &found, errs);
        if (!found)
            c = load_file(ETC_CONFIG, false, &found, errs);
        if (!found)
            c = lg_config_defaults();
    }
    errno = saved_errno;
    return c;
}
