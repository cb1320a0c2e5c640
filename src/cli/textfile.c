/* lg_textfile: standard output into a temporary file beside the target, renamed over it when complete, so a
 * reader (node_exporter's textfile collector) never sees a half-written file. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/textfile.h"

bool lg_textfile_begin(lg_textfile *t, const char *path)
{
    *t = (lg_textfile){.path = path, .fd = -1, .saved_stdout = -1};
    const char *slash = strrchr(path, '/');
    int dir_len = slash ? (int)(slash - path + 1) : 0;
    /* Hidden and not ending in .prom: the collector never reads it. */
    if (!*path || (slash && !slash[1]) ||
        asprintf(&t->tmp, "%.*s.%s.XXXXXX", dir_len, path, slash ? slash + 1 : path) < 0) {
        fprintf(stderr, "llmgate: --textfile: invalid path '%s'\n", path);
        return false;
    }
    fflush(stdout);
    t->fd = mkostemp(t->tmp, O_CLOEXEC);
    if (t->fd < 0) {
        fprintf(stderr, "llmgate: --textfile: cannot create a file beside %s: %s\n", path, strerror(errno));
        free(t->tmp);
        return false;
    }
    t->saved_stdout = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 0);
    if (t->saved_stdout < 0 || dup2(t->fd, STDOUT_FILENO) < 0) {
        fprintf(stderr, "llmgate: --textfile: %s\n", strerror(errno));
        if (t->saved_stdout >= 0)
            close(t->saved_stdout);
        close(t->fd);
        unlink(t->tmp);
        free(t->tmp);
        return false;
    }
    return true;
}

bool lg_textfile_end(lg_textfile *t, bool commit)
{
    bool flushed = fflush(stdout) == 0;
    dup2(t->saved_stdout, STDOUT_FILENO);
    close(t->saved_stdout);
    bool ok = commit && flushed && fchmod(t->fd, 0644) == 0 && fsync(t->fd) == 0;
    int err = errno;
    if (close(t->fd) != 0)
        ok = false;
    if (ok && rename(t->tmp, t->path) != 0) {
        err = errno;
        ok = false;
    }
    if (!ok) {
        if (commit)
            fprintf(stderr, "llmgate: --textfile: cannot write %s: %s\n", t->path, strerror(err));
        unlink(t->tmp);
    }
    free(t->tmp);
    return ok;
}
