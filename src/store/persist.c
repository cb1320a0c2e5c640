/* Long cooldowns kept on disk (see persist.h). One line per account:
 * "provider<TAB>account<TAB>digest<TAB>until_ms<TAB>reason<TAB>failures<TAB>last_event_ms", then
 * "<TAB>aside" (the detail it is set aside for: "billing") when it is set aside, after a
 * "llmgate-cooldowns 1" header line. Digests only, never keys. */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "llmgate/clock.h"
#include "llmgate/duration.h"
#include "llmgate/small_file.h"
#include "store/persist.h"
#include "store/shm_index.h"

#define HEADER "llmgate-cooldowns 1\n"
#define FILE_MAX (1u << 20)

/* The state home: $XDG_STATE_HOME when absolute, else $HOME/.local/state (the passwd entry's home when
 * HOME is unset). */
static bool state_home(char *out, size_t outlen)
{
    const char *x = secure_getenv("XDG_STATE_HOME");
    int n;
    if (x && x[0] == '/')
        n = snprintf(out, outlen, "%s", x);
    else {
        const char *home = secure_getenv("HOME");
        struct passwd pw, *found = NULL;
        char buf[4096];
        if ((!home || home[0] != '/') && getpwuid_r(geteuid(), &pw, buf, sizeof buf, &found) == 0 && found)
            home = found->pw_dir;
        if (!home || home[0] != '/')
            return false;
        n = snprintf(out, outlen, "%s/.local/state", home);
    }
    return n > 0 && (size_t)n < outlen;
}

bool lg_persist_path(char *out, size_t outlen)
{
    char home[3800];
    if (!state_home(home, sizeof home))
        return false;
    int n = snprintf(out, outlen, "%s/llmgate/cooldowns", home);
    return n > 0 && (size_t)n < outlen;
}

/* mkdir -p of the directory holding file, new directories 0700; the last one must be ours and private. */
static bool private_parent(const char *file)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", file);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return false;
    *slash = '\0';
    for (char *p = dir + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(dir, 0700) != 0 && errno != EEXIST)
            return false;
        *p = '/';
    }
    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
        return false;
    struct stat st;
    return lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() && (st.st_mode & 077) == 0;
}

/* One line of the file into its 7 fields and the optional eighth (NULL when absent); false when
 * malformed. */
static bool parse_line(char *line, char *fields[8])
{
    for (int i = 0; i < 8; i++) {
        fields[i] = line;
        char *tab = line ? strchr(line, '\t') : NULL;
        if (!tab && i < 6)
            return false;
        if (tab)
            *tab = '\0';
        line = tab ? tab + 1 : NULL;
    }
    return !line; /* no ninth */
}

static bool parse_i64(const char *s, int64_t *v)
{
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (errno || end == s || *end)
        return false;
    *v = (int64_t)x;
    return true;
}

/* Applies one line to m when it is well formed and its cooldown still runs, and not absurdly long (a
 * longer one than the configuration allows is cut at the next admission, see lg_policy_clamp_cooldown). */
static void restore_line(lg_store_layout *m, char *line, int64_t now_ms)
{
    char *f[8];
    int64_t until, failures, last;
    lg_reason reason;
    lg_detail aside = LG_DETAIL_NONE;
    if (!parse_line(line, f) || !parse_i64(f[3], &until) || !lg_reason_parse(f[4], &reason) ||
        (f[7] && !lg_detail_parse(f[7], &aside)) ||
        !parse_i64(f[5], &failures) || !parse_i64(f[6], &last) || until <= now_ms ||
        until - now_ms > LG_HINT_ABSURD_MS || failures < 0 ||
        failures > INT32_MAX || strlen(f[0]) >= LG_NAME_MAX || strlen(f[1]) >= LG_NAME_MAX ||
        strlen(f[2]) >= LG_DIGEST_HEX)
        return;
    lg_account_ref ref = {.name = f[1], .digest = f[2]};
    lg_store_account_entry *e = lg_layout_account(m, f[0], &ref);
    if (!e)
        return;
    e->slot.state.cooldown_until_ms = until;
    e->slot.state.reason = reason;
    e->slot.state.failures = (int32_t)failures;
    e->slot.state.last_event_ms = last;
    e->slot.state.aside = aside;
}

void lg_persist_restore(lg_store_layout *m, int64_t now_ms)
{
    int saved = errno;
    char path[4096];
    lg_small_file f = {.data = NULL};
    if (lg_persist_path(path, sizeof path) && lg_small_file_read(path, O_NOFOLLOW, FILE_MAX, 0, &f) &&
        f.st.st_uid == geteuid() && !strncmp(f.data, HEADER, strlen(HEADER))) {
        char *save = NULL;
        for (char *line = strtok_r(f.data + strlen(HEADER), "\n", &save); line;
             line = strtok_r(NULL, "\n", &save))
            restore_line(m, line, now_ms);
    }
    lg_small_file_free(&f);
    errno = saved;
}

/* A growing text buffer. */
typedef struct {
    char *s;
    size_t n, cap;
    bool oom;
    int64_t now;
} text;

static bool clean(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return false;
    return true;
}

/* Visitor: appends the line of every account whose cooldown runs more than LG_PERSIST_MIN_MS. */
static void collect(const char *provider, const char *account, const char *digest, const lg_account_slot *slot,
                    void *ctx)
{
    text *t = ctx;
    const lg_account_state *st = &slot->state;
    if (t->oom || st->cooldown_until_ms - t->now <= LG_PERSIST_MIN_MS || !clean(provider) || !clean(account) ||
        !clean(digest))
        return;
    char line[LG_NAME_MAX * 2 + LG_DIGEST_HEX + 128];
    int len = snprintf(line, sizeof line, "%s\t%s\t%s\t%lld\t%s\t%d\t%lld%s%s\n", provider, account, digest,
                       (long long)st->cooldown_until_ms, lg_reason_name(st->reason), (int)st->failures,
                       (long long)st->last_event_ms, st->aside ? "\t" : "", st->aside ? lg_detail_name(st->aside) : "");
    if (len <= 0 || (size_t)len >= sizeof line)
        return;
    if (t->n + (size_t)len + 1 > t->cap) {
        size_t cap = (t->cap ? t->cap * 2 : 1024) + (size_t)len;
        char *s = realloc(t->s, cap);
        if (!s) {
            t->oom = true;
            return;
        }
        t->s = s;
        t->cap = cap;
    }
    memcpy(t->s + t->n, line, (size_t)len);
    t->n += (size_t)len;
}

/* Writes all of data to a new file beside path and renames it into place (0600). */
static int write_atomically(const char *path, const char *data, size_t len)
{
    char tmp[4200];
    if (snprintf(tmp, sizeof tmp, "%s.XXXXXX", path) >= (int)sizeof tmp)
        return -1;
    int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = fchmod(fd, 0600);
    for (size_t off = 0; rc == 0 && off < len;) {
        ssize_t w = write(fd, data + off, len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            rc = -1;
        else
            off += (size_t)w;
    }
    if (close(fd) != 0)
        rc = -1;
    if (rc == 0)
        rc = rename(tmp, path);
    if (rc != 0)
        unlink(tmp);
    return rc;
}

int lg_persist_save(lg_store *s, lg_persist_visit_fn visit)
{
    int saved = errno;
    char path[4096], lockpath[4200];
    int rc = -1;
    if (lg_persist_path(path, sizeof path) && private_parent(path)) {
        snprintf(lockpath, sizeof lockpath, "%s.lock", path);
        int lk = open(lockpath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (lk >= 0 && flock(lk, LOCK_EX) == 0) {
            /* Under the file lock, so snapshots are renamed into place in the order they were taken. */
            text t = {.now = lg_now_ms()};
            if (visit(s, collect, &t) == 0 && !t.oom) {
                size_t hl = strlen(HEADER);
                char *all = malloc(hl + t.n + 1);
                if (all) {
                    memcpy(all, HEADER, hl);
                    if (t.n)
                        memcpy(all + hl, t.s, t.n);
                    rc = write_atomically(path, all, hl + t.n);
                    free(all);
                }
            }
            free(t.s);
        }
        if (lk >= 0)
            close(lk);
    }
    errno = saved;
    return rc;
}

bool lg_store_has_saved_cooldowns(void)
{
    int saved = errno;
    char path[4096];
    struct stat st;
    bool yes = lg_persist_path(path, sizeof path) && lstat(path, &st) == 0 && S_ISREG(st.st_mode) &&
               st.st_size > (off_t)strlen(HEADER);
    errno = saved;
    return yes;
}
