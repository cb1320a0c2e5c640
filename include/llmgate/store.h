/* Shared state across every process of the machine: a memory-mapped file (0600) under $XDG_RUNTIME_DIR
 * guarded by a robust process-shared mutex. Holds account digests, never keys. */
#ifndef LLMGATE_STORE_H
#define LLMGATE_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "llmgate/config.h"
#include "llmgate/limiter.h"
#include "llmgate/policy.h"
#include "llmgate/resilience.h"

typedef struct lg_store lg_store;

/* Counters since the store was created, per account. */
typedef struct {
    uint64_t requests;      /* attempts sent */
    uint64_t immediate;     /* requests admitted without waiting */
    uint64_t waited;        /* requests that had to wait */
    uint64_t rate_limited;  /* 429-class responses received */
    uint64_t retries;
    uint64_t switches;      /* switches away from this account */
    uint64_t given_up;
} lg_account_counters;

typedef struct {
    lg_account_state state;
    lg_account_counters counters;
    lg_window window; /* requests and tokens admitted per window, learned limits */
} lg_account_slot;

/* Per-provider shared record. */
typedef struct {
    uint32_t current; /* index of the account new requests start on */
    int64_t notice_ms; /* Unix ms of the last long-wait notice any process printed for this provider */
    lg_budget budget;   /* the retry budget of every process */
    lg_breaker breaker; /* the circuit breaker of every process */
    uint64_t fell_back; /* requests that went on to a fallback provider from this one */
} lg_provider_slot;

/* Identity of an account in the store: provider name, account name and key digest ("" = unknown). */
typedef struct {
    const char *name;
    const char *digest;
} lg_account_ref;

/* Opens (creating or rebuilding a corrupt/foreign-layout one) the store. path NULL = default
 * ($XDG_RUNTIME_DIR/llmgate/state.shm, else /tmp/llmgate-UID/state.shm). O_CLOEXEC, 0600.
 * NULL with a message in err on failure (the caller fails open). */
lg_store *lg_store_open(const char *path, char *err, size_t errlen);
void lg_store_close(lg_store *s);

/* The state file lg_store_open(path, ...) uses: path itself when non-NULL, else the default location
 * (the $XDG_RUNTIME_DIR one when that variable names a directory of ours, else the /tmp one).
 * Creates nothing. Returns false when the result does not fit in out. */
bool lg_store_resolve_path(const char *path, char *out, size_t outlen);

/* Callback run under the store lock; must not block or sleep. */
typedef void (*lg_store_fn)(lg_provider_slot *p, lg_account_slot *const *accounts, size_t n, void *ctx);

/* Runs fn with the provider's slot and its accounts' slots (created on first use), under the lock.
 * Returns 0, or -1 when the store is full or unusable (fn not called). */
int lg_store_with(lg_store *s, const char *provider, const lg_account_ref *refs, size_t n, lg_store_fn fn,
                  void *ctx);

#define LG_PERSIST_MIN_MS 60000 /* cooldowns longer than this also go to the state file */

/* Writes every cooldown with more than LG_PERSIST_MIN_MS left to $XDG_STATE_HOME/llmgate/cooldowns (else
 * ~/.local/state/llmgate/; directory 0700, file 0600, written beside and renamed into place, digests and
 * names only). A store created fresh (after a reboot, or when its file was removed or rebuilt) restores the
 * cooldowns still running from it. Returns 0, or -1 when it could not be written. Preserves errno. */
int lg_store_save_cooldowns(lg_store *s);

/* True when lg_store_save_cooldowns left cooldowns on disk, which a store created now would restore. */
bool lg_store_has_saved_cooldowns(void);

/* Visits every account slot (for `llmgate status`), under the lock. Returns 0, or -1 when the lock could
 * not be taken (fn not called). */
typedef void (*lg_store_visit_fn)(const char *provider, const char *account, const char *digest,
                                  const lg_account_slot *slot, void *ctx);
int lg_store_visit(lg_store *s, lg_store_visit_fn fn, void *ctx);

#endif
