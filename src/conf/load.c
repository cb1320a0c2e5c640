/* lg_config_load: finds the config file (explicit path, $LLMGATE_CONFIG, XDG, /etc) and parses it. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf/conf_internal.h"

#define ETC_CONFIG "/etc/llmgate/config.json"
#define DEFAULT_PATH_MAX 4096

/* Reads and parses one file. *found is false (and nothing reported) when the file does not exist and
 * required is false; an explicitly named file that is missing is a problem. */
static lg_config *load_file(const char *path, bool required, bool *found, lg_errors *errs)
{
    *found = true;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) {
        if (!required && (errno == ENOENT || errno == ENOTDIR)) {
            *found = false;
            return NULL;
        }
        lg_errors_add(errs, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        lg_errors_add(errs, "%s: not a regular file", path);
        return NULL;
    }
    if (st.st_size > LG_CONF_MAX_BYTES) {
        close(fd);
        lg_errors_add(errs, "%s: larger than %d bytes", path, LG_CONF_MAX_BYTES);
        return NULL;
    }
    char *buf = malloc(LG_CONF_MAX_BYTES + 1);
    if (!buf) {
        close(fd);
        lg_errors_add(errs, "%s: out of memory", path);
        return NULL;
    }
    size_t len = 0;
    int read_errno = 0;
    while (len <= LG_CONF_MAX_BYTES) {
        ssize_t r = read(fd, buf + len, LG_CONF_MAX_BYTES + 1 - len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            read_errno = errno;
        if (r <= 0)
            break;
        len += (size_t)r;
    }
    close(fd);
    lg_config *c = NULL;
    if (read_errno)
        lg_errors_add(errs, "%s: cannot read: %s", path, strerror(read_errno));
    else if (len > LG_CONF_MAX_BYTES)
        lg_errors_add(errs, "%s: larger than %d bytes", path, LG_CONF_MAX_BYTES);
    else
        c = conf_parse_mode(buf, len, path, (st.st_mode & (S_IRGRP | S_IROTH)) != 0, (int)(st.st_mode & 07777),
                            errs);
    explicit_bzero(buf, len);
    free(buf);
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
