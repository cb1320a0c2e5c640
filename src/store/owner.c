/* Processes as owners of reservations (see owner.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/owner.h"

/* The start time of process pid (field 22 of /proc/PID/stat, after the command name's closing
 * parenthesis); 0 when it cannot be read, *gone set when it no longer exists. */
static uint64_t start_of(int32_t pid, bool *gone)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    *gone = false;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        *gone = errno == ENOENT || errno == ESRCH;
        return 0;
    }
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) {
        *gone = n < 0 && errno == ESRCH;
        return 0;
    }
    buf[n] = '\0';
    const char *p = strrchr(buf, ')');
    for (int field = 2; p && field < 22; field++) /* p is at the end of field `field` */
        p = strchr(p + 1, ' ');
    return p ? strtoull(p + 1, NULL, 10) : 0;
}

const lg_store_owner *lg_owner_self(void)
{
    static __attribute__((tls_model("initial-exec"))) __thread lg_store_owner self;
    int32_t pid = (int32_t)getpid();
    if (self.pid != pid) {
        int saved = errno;
        bool gone;
        self.start = start_of(pid, &gone);
        self.pid = pid;
        errno = saved;
    }
    return &self;
}

bool lg_owner_alive(const lg_store_owner *o, void *ctx)
{
    (void)ctx;
    int saved = errno;
    bool alive = true;
    if (kill(o->pid, 0) != 0 && errno == ESRCH)
        alive = false;
    else {
        bool gone;
        uint64_t start = start_of(o->pid, &gone);
        alive = !gone && (start == 0 || start == o->start);
    }
    errno = saved;
    return alive;
}
