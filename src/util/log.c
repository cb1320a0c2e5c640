/* Event log and debounced notices. Each line goes out in a single write(); errno is preserved. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "llmgate/clock.h"
#include "llmgate/log.h"

static int log_fd = -1;                 /* -1: logging off */
static lg_log_level log_level = LG_LOG_INFO;
bool lg_log_debugging;
static pthread_mutex_t notice_mu = PTHREAD_MUTEX_INITIALIZER;

#define NOTICE_SLOTS 16
static struct {
    char key[64];
    int64_t at;
} notices[NOTICE_SLOTS];

void lg_log_after_fork(void) { pthread_mutex_init(&notice_mu, NULL); }

void lg_log_init(const lg_config *cfg)
{
    int saved = errno;
    const char *debug = secure_getenv("LLMGATE_DEBUG");
    const char *path = secure_getenv("LLMGATE_LOG");
    if ((!path || !*path) && cfg && cfg->log_file)
        path = cfg->log_file;
    if (log_fd > 2)
        close(log_fd);
    log_fd = -1;
    log_level = cfg ? cfg->log_level : LG_LOG_INFO;
    if (path && *path) {
        log_fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    } else if (debug && *debug && strcmp(debug, "0") != 0) {
        log_fd = STDERR_FILENO;
        log_level = LG_LOG_DEBUG;
    }
    lg_log_debugging = log_fd >= 0 && log_level >= LG_LOG_DEBUG;
    errno = saved;
}

/* Formats "llmgate: " + message + "\n" into buf and writes it with one write(). */
static void emit(int fd, const char *fmt, va_list ap)
{
    char buf[1024];
    int n = snprintf(buf, sizeof buf, "llmgate: ");
    int m = vsnprintf(buf + n, sizeof buf - (size_t)n - 1, fmt, ap);
    size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
    if (len > sizeof buf - 2)
        len = sizeof buf - 2;
    buf[len++] = '\n';
    ssize_t w = write(fd, buf, len);
    (void)w;
}

void lg_log(lg_log_level level, const char *fmt, ...)
{
    if (log_fd < 0 || level > log_level)
        return;
    int saved = errno;
    va_list ap;
    va_start(ap, fmt);
    emit(log_fd, fmt, ap);
    va_end(ap);
    errno = saved;
}

/* True when key was not noticed within min_interval_ms; records now for it. */
static bool notice_due(const char *key, int64_t min_interval_ms)
{
    int64_t now = lg_mono_ms();
    size_t oldest = 0;
    bool due = true;
    pthread_mutex_lock(&notice_mu);
    size_t i;
    for (i = 0; i < NOTICE_SLOTS; i++) {
        if (!strncmp(notices[i].key, key, sizeof notices[i].key - 1))
            break;
        if (notices[i].at < notices[oldest].at)
            oldest = i;
    }
    if (i < NOTICE_SLOTS) {
        due = now - notices[i].at >= min_interval_ms;
    } else {
        i = oldest;
        snprintf(notices[i].key, sizeof notices[i].key, "%s", key);
    }
    if (due)
        notices[i].at = now;
    pthread_mutex_unlock(&notice_mu);
    return due;
}

void lg_notice(bool *once, const char *key, int64_t min_interval_ms, const char *fmt, ...)
{
    if (*once)
        return;
    int saved = errno;
    if (notice_due(key, min_interval_ms)) {
        *once = true;
        va_list ap;
        va_start(ap, fmt);
        emit(log_fd >= 0 ? log_fd : STDERR_FILENO, fmt, ap);
        va_end(ap);
    }
    errno = saved;
}
