/* Where the shared-memory store lives, and the private directory that holds it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/path.h"

/* The runtime directory from the environment when it is an absolute path to a directory we own. */
static const char *runtime_dir(void)
{
    const char *d = secure_getenv("XDG_RUNTIME_DIR");
    struct stat st;
    if (!d || d[0] != '/' || stat(d, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
        return NULL;
    return d;
}

bool lg_store_resolve_path(const char *path, char *out, size_t outlen)
{
    int saved = errno;
    int n;
    if (path)
        n = snprintf(out, outlen, "%s", path);
    else if (runtime_dir())
        n = snprintf(out, outlen, "%s/llmgate/state.shm", runtime_dir());
    else
        n = snprintf(out, outlen, "/tmp/llmgate-%lu/state.shm", (unsigned long)geteuid());
    errno = saved;
    return n >= 0 && (size_t)n < outlen;
}

int lg_store_private_dir(const char *file, char *err, size_t errlen)
{
    char dir[4096];
    const char *slash = strrchr(file, '/');
    if (!slash || slash == file || (size_t)(slash - file) >= sizeof dir) {
        snprintf(err, errlen, "llmgate: state store %s: not an absolute path", file);
        return -1;
    }
    memcpy(dir, file, (size_t)(slash - file));
    dir[slash - file] = '\0';
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "llmgate: state directory %s: %s", dir, strerror(errno));
        return -1;
    }
    struct stat st;
    if (lstat(dir, &st) != 0) {
        snprintf(err, errlen, "llmgate: state directory %s: %s", dir, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077) != 0) {
        snprintf(err, errlen,
                 "llmgate: refusing state directory %s: not a directory owned by this user with mode 0700", dir);
        return -1;
    }
    return 0;
}
