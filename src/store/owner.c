/* Processes as owners of reservations (see owner.h). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
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

static __attribute__((tls_model("initial-exec"))) __thread lg_store_owner self;
static pthread_once_t fork_watch_once = PTHREAD_ONCE_INIT;

/* In a forked child (its one thread, the forking one): the next lg_owner_self names the child. */
static void self_after_fork(void)
{
    self.pid = 0;
}

static void watch_forks(void)
{
    pthread_atfork(NULL, NULL, self_after_fork);
}

/* This thread's process as an owner. getpid and /proc are read once per thread and again after a fork
 * (a child's copy of the thread is reset by the fork handler), not per admission. */
const lg_store_owner *lg_owner_self(void)
{
    if (__builtin_expect(!self.pid, 0)) {
        int saved = errno;
        bool gone;
        pthread_once(&fork_watch_once, watch_forks);
        int32_t pid = (int32_t)getpid();
        self.start = start_of(pid, &gone);
        self.pid = pid;
        errno = saved;
    }
    return &self;
}

static char host[17];
static pthread_once_t host_once = PTHREAD_ONCE_INIT;

/* FNV-1a of the boot id and the pid namespace's link into host. */
static void host_read(void)
{
    char buf[128] = "";
    uint64_t h = UINT64_C(1469598103934665603);
    int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, buf, 64) : -1;
    if (fd >= 0)
        close(fd);
    ssize_t m = readlink("/proc/self/ns/pid", buf + (n > 0 ? n : 0), 60);
    size_t len = (size_t)(n > 0 ? n : 0) + (size_t)(m > 0 ? m : 0);
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)buf[i]) * UINT64_C(1099511628211);
    snprintf(host, sizeof host, "%016llx", (unsigned long long)h);
}

const char *lg_owner_host(void)
{
    int saved = errno;
    pthread_once(&host_once, host_read);
    errno = saved;
    return host;
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
