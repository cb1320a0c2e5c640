/* The spend state shared by every process of the machine (see spend.h): a mapped file beside the store's,
 * its budget slots and day rows behind one robust process-shared mutex. Mapped once per process; a request
 * then costs one uncontended lock (no system call). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "llmgate/file_space.h"
#include "llmgate/spend.h"
#include "llmgate/store.h"
#include "spend/spend_file.h"

#define SPEND_MAGIC UINT64_C(0x31444e455053474c) /* "LGSPEND1" */
#define SPEND_VERSION 2u
#define LOCK_WAIT_MS 2000
#define LG_SPEND_LIKELY(x) __builtin_expect(!!(x), 1)

/* Sets up a new file's header and lock. */
static bool init_file(spend_file *f)
{
    memset(f, 0, offsetof(spend_file, budgets));
    pthread_mutexattr_t a;
    if (pthread_mutexattr_init(&a))
        return false;
    bool ok = !pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED) &&
              !pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST) && !pthread_mutex_init(&f->lock, &a);
    pthread_mutexattr_destroy(&a);
    f->size = sizeof *f;
    f->version = SPEND_VERSION;
    __atomic_store_n(&f->magic, SPEND_MAGIC, __ATOMIC_RELEASE);
    return ok;
}

lg_spend *lg_spend_open(const char *path, char *err, size_t errlen)
{
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    lg_spend *s = NULL;
    spend_file *f = MAP_FAILED;
    struct stat st;
    if (flock(fd, LOCK_EX) != 0 || fstat(fd, &st) != 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        goto out;
    }
    bool fresh = (uint64_t)st.st_size != sizeof *f;
    if ((fresh && (ftruncate(fd, 0) != 0 || ftruncate(fd, (off_t)sizeof *f) != 0)) ||
        lg_file_reserve(fd, (off_t)sizeof *f, fresh) != 0) { /* a full disk: no spend file, never a fault */
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        goto out;
    }
    f = mmap(NULL, sizeof *f, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (f == MAP_FAILED) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        goto out;
    }
    if (fresh || __atomic_load_n(&f->magic, __ATOMIC_ACQUIRE) != SPEND_MAGIC || f->version != SPEND_VERSION ||
        f->size != sizeof *f) {
        memset(f, 0, sizeof *f); /* a foreign or torn file: rebuilt (its spend is lost, never misread) */
        if (!init_file(f)) {
            snprintf(err, errlen, "%s: cannot set up its lock", path);
            goto out;
        }
    }
    if (!(s = malloc(sizeof *s))) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    s->f = f;
    s->fleet = false;
    f = MAP_FAILED;
out:
    if (f != MAP_FAILED)
        munmap(f, sizeof *f);
    flock(fd, LOCK_UN);
    close(fd);
    return s;
}

void lg_spend_close(lg_spend *s)
{
    if (!s)
        return;
    munmap(s->f, sizeof *s->f);
    free(s);
}

bool lg_spend_path(const lg_config *cfg, char *out, size_t outlen)
{
    char store[4096];
    if (!lg_store_resolve_path(cfg ? cfg->store_path : NULL, store, sizeof store))
        return false;
    char *slash = strrchr(store, '/');
    int n = slash ? snprintf(out, outlen, "%.*s/spend.shm", (int)(slash - store), store)
                  : snprintf(out, outlen, "spend.shm");
    return n > 0 && (size_t)n < outlen;
}

static pthread_mutex_t shared_mu = PTHREAD_MUTEX_INITIALIZER;
static lg_spend *shared;
static bool shared_tried;

lg_spend *lg_spend_shared(const lg_config *cfg)
{
    lg_spend *s = __atomic_load_n(&shared, __ATOMIC_ACQUIRE);
    if (LG_SPEND_LIKELY(s) || __atomic_load_n(&shared_tried, __ATOMIC_ACQUIRE))
        return s;
    pthread_mutex_lock(&shared_mu);
    if (!shared_tried) {
        char path[4096], err[256];
        int saved = errno;
        if (lg_spend_path(cfg, path, sizeof path))
        {
            lg_spend *o = lg_spend_open(path, err, sizeof err);
            if (o)
                o->fleet = cfg && !strcmp(cfg->store_backend, "redis");
            __atomic_store_n(&shared, o, __ATOMIC_RELEASE);
        }
        errno = saved;
        __atomic_store_n(&shared_tried, true, __ATOMIC_RELEASE);
    }
    s = shared;
    pthread_mutex_unlock(&shared_mu);
    return s;
}

bool lg_spend_lock(spend_file *f)
{
    int rc = pthread_mutex_trylock(&f->lock);
    if (rc == EBUSY) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec += LOCK_WAIT_MS / 1000;
        rc = pthread_mutex_timedlock(&f->lock, &ts);
    }
    if (rc == EOWNERDEAD)
        rc = pthread_mutex_consistent(&f->lock);
    return rc == 0;
}

void lg_spend_unlock(spend_file *f) { pthread_mutex_unlock(&f->lock); }

lg_budget_slot *lg_spend_slot_of(spend_file *f, const char *name, bool create)
{
    for (size_t i = 0; i < SPEND_BUDGETS; i++) {
        lg_budget_slot *b = &f->budgets[i];
        if (!b->name[0]) {
            if (!create)
                return NULL;
            snprintf(b->name, sizeof b->name, "%s", name);
            return b;
        }
        if (!strcmp(b->name, name))
            return b;
    }
    return NULL;
}

/* Adds delta to the day's row of k (the day of cfg's zone), and to the outbox the fleet's totals are pushed from (redis). */
static void count_day(lg_spend *s, const lg_config *cfg, const lg_spend_key *k, const lg_spend_counts *delta,
                      int64_t now_ms)
{
    int64_t day = lg_tz_day(cfg->spend_tz, now_ms);
    lg_spend_day_add(&s->f->days[day % LG_SPEND_DAYS], day, k, delta);
    if (s->fleet) {
        if (!s->f->flushed_ms)
            s->f->flushed_ms = now_ms; /* the first push is due flush_ms after the first count */
        lg_spend_day_add(&s->f->outbox[day % SPEND_OUTBOX_DAYS], day, k, delta);
        __atomic_add_fetch(&s->f->out_requests, delta->requests + delta->refused, __ATOMIC_RELAXED);
    }
}

bool lg_spend_admit(lg_spend *s, const lg_config *cfg, const lg_spend_key *k, int64_t reserve_nusd, int64_t now_ms,
                    lg_spend_ticket *t, lg_spend_refusal *r)
{
    memset(t, 0, sizeof *t);
    for (size_t i = 0; i < cfg->n_budgets && t->n < LG_SPEND_HELD_MAX; i++)
        if (lg_budget_matches(&cfg->budgets[i], k))
            t->idx[t->n++] = (uint8_t)i;
    if (!t->n || !s || !lg_spend_lock(s->f))
        return true; /* nothing to hold, or fail open */
    spend_file *f = s->f;
    bool ok = true;
    for (uint8_t i = 0; i < t->n && ok; i++) {
        const lg_budget_conf *b = &cfg->budgets[t->idx[i]];
        lg_budget_slot *slot = lg_spend_slot_of(f, b->name, true);
        if (!slot || lg_budget_allows(slot, b, now_ms))
            continue;
        ok = false;
        r->budget = b;
        r->reset_ms = lg_budget_period_end(b->per, b->tz, now_ms);
        r->spent_nusd = slot->spent_nusd;
        r->notice = slot->noticed_ms != slot->period_ms;
        slot->noticed_ms = slot->period_ms;
    }
    if (ok) {
        for (uint8_t i = 0; i < t->n; i++) {
            lg_budget_slot *slot = lg_spend_slot_of(f, cfg->budgets[t->idx[i]].name, true);
            if (slot)
                slot->pending_nusd += reserve_nusd;
        }
        t->held = true;
        t->reserved_nusd = reserve_nusd;
    } else {
        count_day(s, cfg, k, &(lg_spend_counts){.refused = 1}, now_ms);
    }
    lg_spend_unlock(f);
    return ok;
}

void lg_spend_settle(lg_spend *s, const lg_config *cfg, lg_spend_ticket *t, const lg_spend_key *k,
                     int64_t budget_nusd, const lg_spend_counts *delta, int64_t now_ms)
{
    if (!s || !lg_spend_lock(s->f))
        return;
    spend_file *f = s->f;
    for (uint8_t i = 0; i < t->n && t->idx[i] < cfg->n_budgets; i++) {
        const lg_budget_conf *b = &cfg->budgets[t->idx[i]];
        lg_budget_slot *slot = lg_spend_slot_of(f, b->name, true);
        if (!slot)
            continue;
        if (t->held)
            slot->pending_nusd -= t->reserved_nusd;
        if (slot->pending_nusd < 0)
            slot->pending_nusd = 0;
        lg_budget_roll(slot, b, now_ms);
        slot->spent_nusd += budget_nusd;
        if (s->fleet)
            slot->unflushed_nusd += budget_nusd;
    }
    if (delta)
        count_day(s, cfg, k, delta, now_ms);
    lg_spend_unlock(f);
    t->held = false;
}

bool lg_spend_lift(lg_spend *s, const char *name, int64_t now_ms)
{
    (void)now_ms;
    if (!s || !lg_spend_lock(s->f))
        return false;
    lg_budget_slot *slot = lg_spend_slot_of(s->f, name, false);
    if (slot)
        slot->lifted_ms = slot->period_ms;
    lg_spend_unlock(s->f);
    return slot != NULL;
}

int lg_spend_visit(lg_spend *s, int64_t since_day, lg_spend_row_fn fn, void *ctx)
{
    lg_spend_day *copy = malloc(sizeof *copy);
    if (!copy)
        return -1;
    for (size_t i = 0; i < LG_SPEND_DAYS; i++) {
        if (!lg_spend_lock(s->f)) {
            free(copy);
            return -1;
        }
        memcpy(copy, &s->f->days[i], sizeof *copy);
        lg_spend_unlock(s->f);
        if (!copy->day || copy->day < since_day)
            continue;
        for (size_t j = 0; j < LG_SPEND_ROWS; j++)
            if (copy->rows[j].used)
                fn(copy->day, &copy->rows[j], ctx);
    }
    free(copy);
    return 0;
}

int lg_spend_visit_budgets(lg_spend *s, lg_spend_budget_fn fn, void *ctx)
{
    lg_budget_slot copy[SPEND_BUDGETS];
    if (!lg_spend_lock(s->f))
        return -1;
    memcpy(copy, s->f->budgets, sizeof copy);
    lg_spend_unlock(s->f);
    for (size_t i = 0; i < SPEND_BUDGETS && copy[i].name[0]; i++)
        fn(&copy[i], ctx);
    return 0;
}
