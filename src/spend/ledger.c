/* The per-request ledger (see spend.h): one JSON line appended per request to PATH-YYYY-MM-DD.jsonl (UTC),
 * 0600, the day's file opened once per process and kept; a new day's opening removes the file keep_days
 * old. A failed write (a full disk) costs the line, never the request. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "llmgate/spend.h"

#define DAY_MS INT64_C(86400000)
#define LINE_MAX_BYTES 2048

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int fd = -1;
static int64_t fd_day = -1;
static char fd_path[4096];

bool lg_ledger_file(const char *path, int64_t day, char *out, size_t cap)
{
    time_t t = (time_t)(day * 86400);
    struct tm tm;
    gmtime_r(&t, &tm);
    int n = snprintf(out, cap, "%s-%04d-%02d-%02d.jsonl", path, tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
    return n > 0 && (size_t)n < cap;
}

/* Appends s to out (JSON-escaped, control characters dropped); false when it does not fit. */
static bool esc(char *out, size_t cap, size_t *len, const char *s)
{
    for (; s && *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch < 0x20)
            continue;
        if (*len + 3 >= cap)
            return false;
        if (ch == '"' || ch == '\\')
            out[(*len)++] = '\\';
        out[(*len)++] = (char)ch;
    }
    out[*len] = '\0';
    return true;
}

size_t lg_ledger_line(const lg_ledger_entry *e, char *out, size_t cap)
{
    char when[32];
    time_t t = (time_t)(e->at_ms / 1000);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &tm);
    size_t len = 0;
    const char *names[] = {"program", "provider", "account", "model", "reason"};
    const char *vals[] = {e->key.program, e->key.provider, e->key.account, e->key.model, e->reason};
    int n = snprintf(out, cap, "{\"time\":\"%s.%03dZ\",\"pid\":%ld", when, (int)(e->at_ms % 1000), (long)e->pid);
    if (n < 0 || (size_t)n >= cap)
        return 0;
    len = (size_t)n;
    for (int i = 0; i < 5; i++) {
        n = snprintf(out + len, cap - len, ",\"%s\":\"", names[i]);
        if (n < 0 || (size_t)n >= cap - len)
            return 0;
        len += (size_t)n;
        if (!esc(out, cap, &len, vals[i]) || len + 2 >= cap)
            return 0;
        out[len++] = '"';
    }
    char cost[40] = "null"; /* unpriced: no figure, never 0 */
    if (e->priced)
        snprintf(cost, sizeof cost, "%.9f", (double)e->cost_nusd / LG_NUSD_PER_USD);
    n = snprintf(out + len, cap - len,
                 ",\"status\":%d,\"attempts\":%d,\"waited_ms\":%lld,\"input_tokens\":%lld,\"cached_tokens\":%lld,"
                 "\"output_tokens\":%lld,\"estimated\":%s,\"cost_usd\":%s}\n",
                 e->status, e->attempts, (long long)e->waited_ms, (long long)e->tokens.input,
                 (long long)e->tokens.cached, (long long)e->tokens.output, e->tokens.estimated ? "true" : "false", cost);
    if (n < 0 || (size_t)n >= cap - len)
        return 0;
    return len + (size_t)n;
}

void lg_ledger_append(const char *path, int64_t keep_days, const lg_ledger_entry *e)
{
    char line[LINE_MAX_BYTES];
    size_t len = lg_ledger_line(e, line, sizeof line);
    if (!len)
        return;
    int saved = errno;
    int64_t day = e->at_ms / DAY_MS;
    pthread_mutex_lock(&mu);
    char file[sizeof fd_path];
    if ((fd < 0 || day != fd_day || strcmp(path, fd_path)) && lg_ledger_file(path, day, file, sizeof file)) {
        if (fd >= 0)
            close(fd);
        fd = open(file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
        fd_day = day;
        snprintf(fd_path, sizeof fd_path, "%s", path);
        char old[sizeof fd_path];
        for (int64_t d = day - keep_days; d > day - keep_days - 7; d--) /* a week of days missed at most */
            if (lg_ledger_file(path, d, old, sizeof old))
                unlink(old);
    }
    if (fd >= 0 && write(fd, line, len) != (ssize_t)len) {
        /* a full disk or a write cut short: the line is lost, the request is not */
    }
    pthread_mutex_unlock(&mu);
    errno = saved;
}
