/* Unit tests of the shared-memory store: files, slots, rebuilds, processes and a killed lock holder. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "llmgate/clock.h"
#include "llmgate/store.h"
#include "store/layout.h"
#include "store/shm.h"

typedef struct {
    char dir[256];
    char path[300];
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    snprintf(f->dir, sizeof f->dir, "/tmp/llmgate-store-test.XXXXXX");
    if (!mkdtemp(f->dir))
        return -1;
    snprintf(f->path, sizeof f->path, "%s/state.shm", f->dir);
    char st[300];
    snprintf(st, sizeof st, "%s/xdg-state", f->dir);
    setenv("XDG_STATE_HOME", st, 1); /* cooldowns saved and restored here, never in the real home */
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
    int rc = system(cmd);
    free(f);
    return rc == 0 ? 0 : -1;
}

static lg_store *open_ok(const char *path)
{
    char err[512] = "";
    lg_store *s = lg_store_open(path, err, sizeof err);
    if (!s)
        fail_msg("lg_store_open(%s): %s", path ? path : "(default)", err);
    return s;
}

/* Callback: adds ctx's value to the requests counter of every account and records the slot pointers. */
struct bump {
    uint64_t add;
    int calls;
    lg_account_slot *seen[8];
    lg_provider_slot *prov;
};

static void bump_cb(lg_provider_slot *p, lg_account_slot *const *a, size_t n, void *ctx)
{
    struct bump *b = ctx;
    b->calls++;
    b->prov = p;
    for (size_t i = 0; i < n; i++) {
        a[i]->counters.requests += b->add;
        if (i < 8)
            b->seen[i] = a[i];
    }
}

/* Reads the requests counter of one account (0 when absent). */
struct find {
    const char *provider, *name, *digest;
    int found;
    lg_account_slot slot;
};

static void find_cb(const char *provider, const char *account, const char *digest, const lg_account_slot *slot,
                    void *ctx)
{
    struct find *q = ctx;
    if (!strcmp(provider, q->provider) && !strcmp(account, q->name) && !strcmp(digest, q->digest)) {
        q->found++;
        q->slot = *slot;
    }
}

static struct find lookup(lg_store *s, const char *provider, const char *name, const char *digest)
{
    struct find q = {.provider = provider, .name = name, .digest = digest};
    assert_int_equal(lg_store_visit(s, find_cb, &q), 0);
    return q;
}

static void count_cb(const char *provider, const char *account, const char *digest, const lg_account_slot *slot,
                     void *ctx)
{
    (*(int *)ctx)++;
}

static int count_slots(lg_store *s)
{
    int n = 0;
    assert_int_equal(lg_store_visit(s, count_cb, &n), 0);
    return n;
}

static void creates_private_file(void **state)
{
    fixture *f = *state;
    lg_store *s = open_ok(f->path);
    struct stat st;
    assert_int_equal(lstat(f->path, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    assert_int_equal(st.st_mode & 0777, 0600);
    assert_int_equal(st.st_uid, geteuid());
    assert_int_equal(st.st_size, sizeof(lg_store_layout));
    assert_int_equal(count_slots(s), 0);
    lg_store_close(s);
}

static void reopen_keeps_state(void **state)
{
    fixture *f = *state;
    lg_store *s = open_ok(f->path);
    lg_account_ref refs[2] = {{"main", "0123456789abcdef"}, {"backup", "fedcba9876543210"}};
    struct bump b = {.add = 5};
    assert_int_equal(lg_store_with(s, "openai", refs, 2, bump_cb, &b), 0);
    assert_int_equal(b.calls, 1);
    b.prov->current = 1;
    b.seen[1]->state.cooldown_until_ms = 1234;
    b.seen[1]->state.reason = LG_REASON_QUOTA_EXHAUSTED;
    lg_store_close(s);

    s = open_ok(f->path);
    struct find q = lookup(s, "openai", "backup", "fedcba9876543210");
    assert_int_equal(q.found, 1);
    assert_int_equal(q.slot.counters.requests, 5);
    assert_int_equal(q.slot.state.cooldown_until_ms, 1234);
    assert_int_equal(q.slot.state.reason, LG_REASON_QUOTA_EXHAUSTED);
    b = (struct bump){.add = 1};
    assert_int_equal(lg_store_with(s, "openai", refs, 2, bump_cb, &b), 0);
    assert_int_equal(b.prov->current, 1);
    assert_int_equal(b.seen[0]->counters.requests, 6);
    lg_store_close(s);
}

static void slots_found_by_provider_name_and_digest(void **state)
{
    fixture *f = *state;
    lg_store *s = open_ok(f->path);
    lg_account_ref ab[2] = {{"a", "1111111111111111"}, {"b", "2222222222222222"}};
    lg_account_ref ba[2] = {{"b", "2222222222222222"}, {"a", "1111111111111111"}};
    struct bump x = {.add = 1}, y = {.add = 10};
    assert_int_equal(lg_store_with(s, "p", ab, 2, bump_cb, &x), 0);
    assert_int_equal(lg_store_with(s, "p", ba, 2, bump_cb, &y), 0);
    /* The same accounts in another order map to the same slots, by identity not position. */
    assert_ptr_equal(x.seen[0], y.seen[1]);
    assert_ptr_equal(x.seen[1], y.seen[0]);
    assert_ptr_equal(x.prov, y.prov);
    assert_int_equal(x.seen[0]->counters.requests, 11);

    /* A new digest for the same name (the key changed) is another slot; NULL digest is "". */
    lg_account_ref changed = {"a", "3333333333333333"};
    lg_account_ref host = {"a", NULL};
    struct bump z = {.add = 1}, w = {.add = 1};
    assert_int_equal(lg_store_with(s, "p", &changed, 1, bump_cb, &z), 0);
    assert_int_equal(lg_store_with(s, "p", &host, 1, bump_cb, &w), 0);
    assert_ptr_not_equal(z.seen[0], x.seen[0]);
    assert_ptr_not_equal(w.seen[0], x.seen[0]);
    assert_int_equal(lookup(s, "p", "a", "").found, 1);
    assert_int_equal(count_slots(s), 4);

    /* Zero accounts: the provider slot alone. */
    struct bump none = {.add = 1};
    assert_int_equal(lg_store_with(s, "p", NULL, 0, bump_cb, &none), 0);
    assert_ptr_equal(none.prov, x.prov);
    lg_store_close(s);
}

static void providers_are_isolated(void **state)
{
    fixture *f = *state;
    lg_store *s = open_ok(f->path);
    lg_account_ref main_ref = {"main", "0123456789abcdef"};
    struct bump o = {.add = 3}, a = {.add = 7};
    assert_int_equal(lg_store_with(s, "openai", &main_ref, 1, bump_cb, &o), 0);
    assert_int_equal(lg_store_with(s, "anthropic", &main_ref, 1, bump_cb, &a), 0);
    assert_ptr_not_equal(o.seen[0], a.seen[0]);
    assert_ptr_not_equal(o.prov, a.prov);
    o.prov->current = 4;
    assert_int_equal(a.prov->current, 0);
    assert_int_equal(lookup(s, "openai", "main", "0123456789abcdef").slot.counters.requests, 3);
    assert_int_equal(lookup(s, "anthropic", "main", "0123456789abcdef").slot.counters.requests, 7);
    lg_store_close(s);
}

/* The memo of a scope (what an exchange keeps between its steps) finds its entries again at once, other
 * names used in between notwithstanding; one made in another mapping points at other entries and is not
 * trusted: the entries are found by name and the memo made again. */
static void scope_memo_finds_the_same_entries(void **state)
{
    fixture *f = *state;
    lg_store *s = open_ok(f->path);
    lg_account_ref refs[2] = {{"a", "1111111111111111"}, {"b", "2222222222222222"}};
    lg_store_memo memo = {0};
    lg_store_scope sc = {.provider = "p", .refs = refs, .n = 2, .memo = &memo};
    struct bump x = {.add = 1}, y = {.add = 10}, o = {.add = 100}, z = {.add = 1000};
    assert_int_equal(lg_shm_with_scope(s, &sc, bump_cb, &x), 0);
    assert_non_null(memo.map);
    assert_int_equal(memo.n, 2);
    lg_account_ref other = {"a", "3333333333333333"};
    assert_int_equal(lg_store_with(s, "p", &other, 1, bump_cb, &o), 0);
    assert_int_equal(lg_shm_with_scope(s, &sc, bump_cb, &y), 0);
    assert_ptr_equal(y.seen[0], x.seen[0]);
    assert_ptr_equal(y.seen[1], x.seen[1]);
    assert_ptr_equal(y.prov, x.prov);
    assert_ptr_not_equal(o.seen[0], x.seen[0]);

    lg_store_memo made = memo, stale = memo;
    stale.map = &stale; /* another mapping, where the entries sit elsewhere */
    stale.provider = (memo.provider + 1) % LG_STORE_PROVIDERS;
    stale.accounts[0] = memo.accounts[1];
    stale.accounts[1] = memo.accounts[0];
    sc.memo = &stale;
    assert_int_equal(lg_shm_with_scope(s, &sc, bump_cb, &z), 0);
    assert_ptr_equal(z.seen[0], x.seen[0]);
    assert_ptr_equal(z.seen[1], x.seen[1]);
    assert_ptr_equal(z.prov, x.prov);
    assert_ptr_equal(stale.map, made.map); /* made again */
    assert_int_equal(stale.provider, made.provider);
    assert_int_equal(stale.accounts[0], made.accounts[0]);
    assert_int_equal(stale.accounts[1], made.accounts[1]);
    assert_int_equal(lookup(s, "p", "a", "1111111111111111").slot.counters.requests, 1011);
    assert_int_equal(lookup(s, "p", "b", "2222222222222222").slot.counters.requests, 1011);
    assert_int_equal(lookup(s, "p", "a", "3333333333333333").slot.counters.requests, 100);
    lg_store_close(s);
}

/* A memo made before a store was closed is not trusted in a store opened after (mapped, most often, where
 * the closed one was): the entries are found by name in the new file and the memo made again. */
static void memo_not_trusted_after_a_close(void **state)
{
    fixture *f = *state;
    lg_store *s = open_ok(f->path);
    lg_account_ref refs[2] = {{"a", "1111111111111111"}, {"b", "2222222222222222"}};
    lg_store_memo memo = {0};
    lg_store_scope sc = {.provider = "p", .refs = refs, .n = 2, .memo = &memo};
    struct bump x = {.add = 1}, y = {.add = 10};
    assert_int_equal(lg_shm_with_scope(s, &sc, bump_cb, &x), 0);
    lg_store_memo made = memo;
    lg_store_close(s);
    char other[320];
    snprintf(other, sizeof other, "%s.other", f->path);
    s = open_ok(other);
    assert_int_equal(lg_shm_with_scope(s, &sc, bump_cb, &y), 0);
    assert_int_equal(lookup(s, "p", "a", "1111111111111111").slot.counters.requests, 10);
    assert_int_equal(lookup(s, "p", "b", "2222222222222222").slot.counters.requests, 10);
    assert_true(memo.epoch != made.epoch); /* made again */
    lg_store_close(s);
    unlink(other);
}

static void long_names_truncated_safely(void **state)
{
    fixture *f = *state;
    lg_store *s = open_ok(f->path);
    char longname[200];
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    /* A two-byte UTF-8 character straddling the cut is dropped whole. */
    char utf8[100];
    memset(utf8, 'y', sizeof utf8);
    memcpy(utf8 + LG_NAME_MAX - 2, "\xc3\xa9", 2);
    utf8[sizeof utf8 - 1] = '\0';
    lg_account_ref refs[2] = {{longname, "0123456789abcdef0123456789"}, {utf8, "d"}};
    struct bump b = {.add = 1}, again = {.add = 1};
    assert_int_equal(lg_store_with(s, longname, refs, 2, bump_cb, &b), 0);
    assert_int_equal(lg_store_with(s, longname, refs, 2, bump_cb, &again), 0);
    assert_ptr_equal(b.seen[0], again.seen[0]);

    char want[LG_NAME_MAX];
    memset(want, 'x', LG_NAME_MAX - 1);
    want[LG_NAME_MAX - 1] = '\0';
    struct find q = lookup(s, want, want, "0123456789abcdef");
    assert_int_equal(q.found, 1);
    assert_int_equal(q.slot.counters.requests, 2);
    char want_utf8[LG_NAME_MAX];
    memset(want_utf8, 'y', LG_NAME_MAX - 2);
    want_utf8[LG_NAME_MAX - 2] = '\0';
    assert_int_equal(lookup(s, want, want_utf8, "d").found, 1);
    lg_store_close(s);
}

static void write_file(const char *path, const void *data, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, data, len), (ssize_t)len);
    close(fd);
}

static void corrupt_file_rebuilt(void **state)
{
    fixture *f = *state;
    /* Garbage of the right size, then garbage of another size. */
    size_t sizes[2] = {sizeof(lg_store_layout), 777};
    for (int i = 0; i < 2; i++) {
        unsigned char *junk = malloc(sizes[i]);
        assert_non_null(junk);
        for (size_t k = 0; k < sizes[i]; k++)
            junk[k] = (unsigned char)(k * 131 + 7);
        write_file(f->path, junk, sizes[i]);
        free(junk);
        lg_store *s = open_ok(f->path);
        assert_int_equal(count_slots(s), 0);
        lg_account_ref r = {"main", "0123456789abcdef"};
        struct bump b = {.add = 1};
        assert_int_equal(lg_store_with(s, "openai", &r, 1, bump_cb, &b), 0);
        assert_int_equal(b.seen[0]->counters.requests, 1);
        lg_store_close(s);
        struct stat st;
        assert_int_equal(stat(f->path, &st), 0);
        assert_int_equal(st.st_size, sizeof(lg_store_layout));
        assert_int_equal(st.st_mode & 0777, 0600);
    }
}

static void wrong_version_or_mode_rebuilt(void **state)
{
    fixture *f = *state;
    lg_account_ref r = {"main", "0123456789abcdef"};
    struct bump b = {.add = 9};
    lg_store *s = open_ok(f->path);
    assert_int_equal(lg_store_with(s, "openai", &r, 1, bump_cb, &b), 0);
    lg_store_close(s);

    uint32_t bad = LG_STORE_VERSION + 1;
    int fd = open(f->path, O_WRONLY | O_CLOEXEC);
    assert_true(fd >= 0);
    assert_int_equal(pwrite(fd, &bad, sizeof bad, offsetof(lg_store_layout, version)), sizeof bad);
    close(fd);
    s = open_ok(f->path);
    assert_int_equal(lookup(s, "openai", "main", "0123456789abcdef").found, 0);
    assert_int_equal(lg_store_with(s, "openai", &r, 1, bump_cb, &b), 0);
    lg_store_close(s);

    /* A file others can read is not trusted either. */
    assert_int_equal(chmod(f->path, 0644), 0);
    s = open_ok(f->path);
    assert_int_equal(count_slots(s), 0);
    lg_store_close(s);
    struct stat st;
    assert_int_equal(stat(f->path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
}

static void symlink_refused(void **state)
{
    fixture *f = *state;
    char target[400];
    snprintf(target, sizeof target, "%s/target", f->dir);
    write_file(target, "keep", 4);
    assert_int_equal(symlink(target, f->path), 0);
    char err[512] = "";
    errno = 1234;
    assert_null(lg_store_open(f->path, err, sizeof err));
    assert_int_equal(errno, 1234);
    assert_non_null(strstr(err, f->path));
    struct stat st;
    assert_int_equal(stat(target, &st), 0);
    assert_int_equal(st.st_size, 4);
}

static void table_full_fails_without_calling(void **state)
{
    fixture *f = *state;
    lg_store *s = open_ok(f->path);
    char names[LG_STORE_ACCOUNTS + 1][16];
    lg_account_ref refs[LG_STORE_ACCOUNTS + 1];
    for (int i = 0; i <= LG_STORE_ACCOUNTS; i++) {
        snprintf(names[i], sizeof names[i], "acct%d", i);
        refs[i].name = names[i];
        refs[i].digest = "";
    }
    struct bump b = {.add = 1};
    assert_int_equal(lg_store_with(s, "p", refs, LG_STORE_ACCOUNTS, bump_cb, &b), 0);
    assert_int_equal(count_slots(s), LG_STORE_ACCOUNTS);
    b.calls = 0;
    assert_int_equal(lg_store_with(s, "p", &refs[LG_STORE_ACCOUNTS], 1, bump_cb, &b), -1);
    assert_int_equal(lg_store_with(s, "p", refs, LG_STORE_ACCOUNTS + 1, bump_cb, &b), -1);
    assert_int_equal(b.calls, 0);
    /* Existing slots still work. */
    assert_int_equal(lg_store_with(s, "p", refs, 3, bump_cb, &b), 0);
    assert_int_equal(b.calls, 1);

    /* Providers: 64 slots. One is taken by "p". */
    char pname[16];
    for (int i = 1; i < LG_STORE_PROVIDERS; i++) {
        snprintf(pname, sizeof pname, "prov%d", i);
        assert_int_equal(lg_store_with(s, pname, NULL, 0, bump_cb, &b), 0);
    }
    assert_int_equal(lg_store_with(s, "one-too-many", NULL, 0, bump_cb, &b), -1);
    assert_int_equal(lg_store_with(NULL, "p", NULL, 0, bump_cb, &b), -1);
    lg_store_close(s);
}

static void increment_cb(lg_provider_slot *p, lg_account_slot *const *a, size_t n, void *ctx)
{
    /* A non-atomic read-modify-write with a pause: lost updates would show without the lock. */
    uint64_t v = a[0]->counters.retries;
    if (v % 97 == 0)
        sched_yield();
    a[0]->counters.retries = v + 1;
}

static void processes_share_one_counter(void **state)
{
    fixture *f = *state;
    lg_store *s = open_ok(f->path);
    lg_account_ref r = {"main", "0123456789abcdef"};
    enum { CHILDREN = 8, ROUNDS = 1000 };
    pid_t pids[CHILDREN];
    for (int c = 0; c < CHILDREN; c++) {
        pids[c] = fork();
        assert_true(pids[c] >= 0);
        if (pids[c] == 0) {
            /* Half the children inherit the mapping across fork, half open their own. */
            lg_store *mine = c % 2 ? open_ok(f->path) : s;
            for (int i = 0; i < ROUNDS; i++)
                if (lg_store_with(mine, "openai", &r, 1, increment_cb, NULL) != 0)
                    _exit(1);
            _exit(0);
        }
    }
    for (int c = 0; c < CHILDREN; c++) {
        int st;
        assert_int_equal(waitpid(pids[c], &st, 0), pids[c]);
        assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    assert_int_equal(lookup(s, "openai", "main", "0123456789abcdef").slot.counters.retries, CHILDREN * ROUNDS);
    lg_store_close(s);
}

static void die_cb(lg_provider_slot *p, lg_account_slot *const *a, size_t n, void *ctx)
{
    a[0]->counters.given_up = 42;
    kill(getpid(), SIGKILL);
}

static void killed_holder_does_not_stall_others(void **state)
{
    fixture *f = *state;
    lg_store *s = open_ok(f->path);
    lg_account_ref r = {"main", "0123456789abcdef"};
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        lg_store_with(s, "openai", &r, 1, die_cb, NULL);
        _exit(0); /* not reached */
    }
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);

    /* A bounded wait: a stuck lock would be cut by the alarm and fail the test run; a lock taken only
     * after its timeout would return -1 (fail open), so 0 shows the dead holder's lock was recovered. */
    alarm(20);
    struct bump b = {.add = 1};
    assert_int_equal(lg_store_with(s, "openai", &r, 1, bump_cb, &b), 0);
    assert_int_equal(b.seen[0]->counters.given_up, 42);
    /* The lock is consistent again: it can be taken repeatedly, and by another process. */
    assert_int_equal(lg_store_with(s, "openai", &r, 1, bump_cb, &b), 0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(lg_store_with(s, "openai", &r, 1, increment_cb, NULL) == 0 ? 0 : 1);
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    alarm(0);
    assert_int_equal(lookup(s, "openai", "main", "0123456789abcdef").slot.counters.retries, 1);
    lg_store_close(s);
}

static void stop_cb(lg_provider_slot *p, lg_account_slot *const *a, size_t n, void *ctx)
{
    raise(SIGSTOP);
}

static lg_store *open_tuned(const char *path, int64_t lock_timeout_ms, int64_t pause_ms)
{
    char err[512] = "";
    lg_shm_tuning tu = {.lock_timeout_ms = lock_timeout_ms, .pause_ms = pause_ms};
    lg_store *s = lg_shm_open(path, &tu, err, sizeof err);
    if (!s)
        fail_msg("lg_shm_open(%s): %s", path, err);
    return s;
}

static ino_t inode_of(const char *path)
{
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    return st.st_ino;
}

static void stopped_holder_pauses_then_rebuilds(void **state)
{
    fixture *f = *state;
    lg_store *s = open_tuned(f->path, 300, 1500);
    lg_account_ref r = {"main", "0123456789abcdef"};
    struct bump b = {.add = 5};
    assert_int_equal(lg_store_with(s, "openai", &r, 1, bump_cb, &b), 0);
    ino_t before = inode_of(f->path);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* a failed test never leaves it stopped behind */
        lg_store_with(s, "openai", &r, 1, stop_cb, NULL);
        _exit(0);
    }
    int st;
    assert_int_equal(waitpid(pid, &st, WUNTRACED), pid);
    assert_true(WIFSTOPPED(st));

    /* The lock is held by a stopped process: the caller gets -1 after one bounded wait (the tuned 300 ms
     * lock timeout; the upper bound only shows it is bounded, with room for a loaded machine), fn not
     * called ... */
    alarm(20);
    b.calls = 0;
    int64_t t0 = lg_mono_ms();
    assert_int_equal(lg_store_with(s, "openai", &r, 1, bump_cb, &b), -1);
    int64_t waited = lg_mono_ms() - t0;
    assert_true(waited >= 250 && waited < 15000);
    assert_int_equal(b.calls, 0);
    /* ... and then the process stops waiting on the store for the pause: no second wait. */
    t0 = lg_mono_ms();
    for (int i = 0; i < 5; i++)
        assert_int_equal(lg_store_with(s, "openai", &r, 1, bump_cb, &b), -1);
    int visited = 0;
    assert_int_equal(lg_store_visit(s, count_cb, &visited), -1);
    /* Another process opening the store now does not wait either: the file is marked stalled. */
    lg_store *late = open_tuned(f->path, 300, 1500);
    assert_int_equal(lg_store_with(late, "openai", &r, 1, bump_cb, &b), -1);
    lg_store_close(late);
    assert_true(lg_mono_ms() - t0 < 250);
    assert_int_equal(b.calls, 0);
    assert_int_equal(visited, 0);
    assert_int_equal(inode_of(f->path), before);

    /* After the pause the lock is still unusable: the store is rebuilt with its slots, and used. */
    lg_sleep_ms(1600);
    assert_int_equal(lg_store_with(s, "openai", &r, 1, bump_cb, &b), 0);
    assert_int_equal(b.calls, 1);
    assert_int_equal(b.seen[0]->counters.requests, 10);
    assert_true(inode_of(f->path) != before);

    /* The stopped holder, resumed, moves to the new file on its next call (the old one is retired). */
    kill(pid, SIGKILL);
    assert_int_equal(waitpid(pid, &st, 0), pid);
    lg_store *other = open_ok(f->path);
    assert_int_equal(lookup(other, "openai", "main", "0123456789abcdef").slot.counters.requests, 10);
    lg_store_close(other);
    alarm(0);
    lg_store_close(s);
}

static void forged_lock_word_rebuilds_at_once(void **state)
{
    fixture *f = *state;
    lg_store *s = open_tuned(f->path, 300, 60000);
    lg_account_ref r = {"main", "0123456789abcdef"};
    struct bump b = {.add = 3};
    assert_int_equal(lg_store_with(s, "openai", &r, 1, bump_cb, &b), 0);
    lg_store_close(s);

    /* A thread id that no longer exists, written into the lock word (no robust list will ever free it). */
    pid_t gone = fork();
    assert_true(gone >= 0);
    if (gone == 0)
        _exit(0);
    int st;
    assert_int_equal(waitpid(gone, &st, 0), gone);
    uint32_t word = (uint32_t)gone;
    int fd = open(f->path, O_WRONLY | O_CLOEXEC);
    assert_true(fd >= 0);
    assert_int_equal(pwrite(fd, &word, sizeof word, offsetof(lg_store_layout, lock)), sizeof word);
    close(fd);

    /* One bounded wait, then the orphaned lock gets the store rebuilt in the same call. */
    alarm(20);
    s = open_tuned(f->path, 300, 60000);
    assert_int_equal(lg_store_with(s, "openai", &r, 1, bump_cb, &b), 0);
    assert_int_equal(b.seen[0]->counters.requests, 6);
    int64_t t0 = lg_mono_ms();
    for (int i = 0; i < 5; i++)
        assert_int_equal(lg_store_with(s, "openai", &r, 1, bump_cb, &b), 0);
    assert_true(lg_mono_ms() - t0 < 250);
    assert_int_equal(b.seen[0]->counters.requests, 21);
    alarm(0);
    lg_store_close(s);
}

static void default_path_under_runtime_dir(void **state)
{
    fixture *f = *state;
    char *old = getenv("XDG_RUNTIME_DIR") ? strdup(getenv("XDG_RUNTIME_DIR")) : NULL;
    char want[400], got[400];
    assert_int_equal(setenv("XDG_RUNTIME_DIR", f->dir, 1), 0);
    snprintf(want, sizeof want, "%s/llmgate/state.shm", f->dir);
    assert_true(lg_store_resolve_path(NULL, got, sizeof got));
    assert_string_equal(got, want);
    assert_false(lg_store_resolve_path(NULL, got, 10));

    lg_store *s = open_ok(NULL);
    struct stat st;
    char dir[400];
    snprintf(dir, sizeof dir, "%s/llmgate", f->dir);
    assert_int_equal(lstat(dir, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    assert_int_equal(st.st_mode & 0777, 0700);
    assert_int_equal(lstat(want, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    lg_store_close(s);

    /* A state directory others can enter is refused, not used. */
    assert_int_equal(chmod(dir, 0755), 0);
    char err[512] = "";
    assert_null(lg_store_open(NULL, err, sizeof err));
    assert_non_null(strstr(err, "refusing"));
    assert_int_equal(chmod(dir, 0700), 0);

    /* Without a usable runtime dir, the per-user /tmp directory. */
    assert_int_equal(setenv("XDG_RUNTIME_DIR", "relative/dir", 1), 0);
    snprintf(want, sizeof want, "/tmp/llmgate-%lu/state.shm", (unsigned long)geteuid());
    assert_true(lg_store_resolve_path(NULL, got, sizeof got));
    assert_string_equal(got, want);
    unsetenv("XDG_RUNTIME_DIR");
    assert_true(lg_store_resolve_path(NULL, got, sizeof got));
    assert_string_equal(got, want);
    assert_true(lg_store_resolve_path("/x/y.shm", got, sizeof got));
    assert_string_equal(got, "/x/y.shm");
    if (old) {
        setenv("XDG_RUNTIME_DIR", old, 1);
        free(old);
    }
}

static void concurrent_first_open_agrees(void **state)
{
    fixture *f = *state;
    /* Several processes create (and one round also rebuild) the file at once; all end up on one file. */
    for (int round = 0; round < 2; round++) {
        if (round == 1)
            write_file(f->path, "garbage", 7);
        enum { CHILDREN = 6 };
        pid_t pids[CHILDREN];
        for (int c = 0; c < CHILDREN; c++) {
            pids[c] = fork();
            assert_true(pids[c] >= 0);
            if (pids[c] == 0) {
                char err[512];
                lg_store *s = lg_store_open(f->path, err, sizeof err);
                lg_account_ref r = {"main", "0123456789abcdef"};
                for (int i = 0; s && i < 100; i++)
                    lg_store_with(s, "openai", &r, 1, increment_cb, NULL);
                _exit(s ? 0 : 1);
            }
        }
        for (int c = 0; c < CHILDREN; c++) {
            int st;
            assert_int_equal(waitpid(pids[c], &st, 0), pids[c]);
            assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        }
        lg_store *s = open_ok(f->path);
        assert_int_equal(lookup(s, "openai", "main", "0123456789abcdef").slot.counters.retries, CHILDREN * 100);
        lg_store_close(s);
        unlink(f->path);
    }
}

/* Callback: gives every account the cooldown (until, reason) in ctx. */
struct cool {
    int64_t until[2];
    lg_reason reason;
};

static void cool_cb(lg_provider_slot *p, lg_account_slot *const *a, size_t n, void *ctx)
{
    struct cool *c = ctx;
    for (size_t i = 0; i < n && i < 2; i++) {
        a[i]->state.cooldown_until_ms = c->until[i];
        a[i]->state.reason = c->reason;
        a[i]->state.failures = 3;
        a[i]->counters.requests = 9;
    }
}

/* Long cooldowns go to a private file and come back into a store created fresh; short ones do not. */
static void long_cooldowns_survive_a_new_store(void **state)
{
    fixture *f = *state;
    lg_store *s = open_ok(f->path);
    lg_account_ref refs[2] = {{"main", "0123456789abcdef"}, {"backup", "fedcba9876543210"}};
    int64_t now = lg_now_ms();
    struct cool c = {.until = {now + 7200000, now + 30000}, .reason = LG_REASON_QUOTA_EXHAUSTED};
    assert_int_equal(lg_store_with(s, "openai", refs, 2, cool_cb, &c), 0);
    assert_false(lg_store_has_saved_cooldowns());
    assert_int_equal(lg_store_save_cooldowns(s), 0);
    assert_true(lg_store_has_saved_cooldowns());
    lg_store_close(s);

    char file[450], dir[400];
    snprintf(dir, sizeof dir, "%s/xdg-state/llmgate", f->dir);
    snprintf(file, sizeof file, "%s/cooldowns", dir);
    struct stat st;
    assert_int_equal(stat(file, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    assert_int_equal(stat(dir, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700);

    assert_int_equal(unlink(f->path), 0); /* a reboot */
    s = open_ok(f->path);
    struct find m = lookup(s, "openai", "main", "0123456789abcdef");
    assert_int_equal(m.found, 1);
    assert_int_equal(m.slot.state.cooldown_until_ms, now + 7200000);
    assert_int_equal(m.slot.state.reason, LG_REASON_QUOTA_EXHAUSTED);
    assert_int_equal(m.slot.state.failures, 3);
    assert_int_equal(m.slot.counters.requests, 0); /* counters start again */
    assert_int_equal(lookup(s, "openai", "backup", "fedcba9876543210").found, 0);
    lg_store_close(s);
}

/* A damaged file restores what is well formed in it, and nothing that already expired. */
static void damaged_or_expired_lines_are_skipped(void **state)
{
    fixture *f = *state;
    char dir[400], file[450];
    snprintf(dir, sizeof dir, "%s/xdg-state", f->dir);
    mkdir(dir, 0700);
    snprintf(dir, sizeof dir, "%s/xdg-state/llmgate", f->dir);
    mkdir(dir, 0700);
    snprintf(file, sizeof file, "%s/cooldowns", dir);
    FILE *fp = fopen(file, "w");
    assert_non_null(fp);
    long long now = (long long)lg_now_ms();
    fprintf(fp, "llmgate-cooldowns 1\n");
    fprintf(fp, "openai\tgood\t0123456789abcdef\t%lld\tRATE_LIMIT_EXCEEDED\t1\t%lld\n", now + 600000, now);
    fprintf(fp, "openai\told\t0123456789abcdef\t%lld\tQUOTA_EXHAUSTED\t1\t%lld\n", now - 1000, now - 5000);
    fprintf(fp, "openai\tbad\t0123456789abcdef\tsoon\tQUOTA_EXHAUSTED\t1\t0\n");
    fprintf(fp, "openai\tworse\t0123456789abcdef\t%lld\tNOT_A_REASON\t1\t0\n", now + 600000);
    fprintf(fp, "truncated\tline\n");
    fclose(fp);
    lg_store *s = open_ok(f->path);
    assert_int_equal(lookup(s, "openai", "good", "0123456789abcdef").slot.state.reason, LG_REASON_RATE_LIMIT_EXCEEDED);
    assert_int_equal(count_slots(s), 1);
    lg_store_close(s);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(creates_private_file),
        T(reopen_keeps_state),
        T(slots_found_by_provider_name_and_digest),
        T(providers_are_isolated),
        T(scope_memo_finds_the_same_entries),
        T(memo_not_trusted_after_a_close),
        T(long_names_truncated_safely),
        T(corrupt_file_rebuilt),
        T(wrong_version_or_mode_rebuilt),
        T(symlink_refused),
        T(table_full_fails_without_calling),
        T(processes_share_one_counter),
        T(killed_holder_does_not_stall_others),
        T(stopped_holder_pauses_then_rebuilds), T(forged_lock_word_rebuilds_at_once),
        T(default_path_under_runtime_dir),
        T(concurrent_first_open_agrees),
        T(long_cooldowns_survive_a_new_store),
        T(damaged_or_expired_lines_are_skipped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
