/* Cooldowns that outlast the shared memory (a reboot, a deleted state file): a small private text file
 * under $XDG_STATE_HOME/llmgate/. Private to src/store. */
#ifndef LLMGATE_STORE_PERSIST_H
#define LLMGATE_STORE_PERSIST_H

#include <stdbool.h>
#include <stddef.h>

#include "store/layout.h"

/* The cooldown file: $XDG_STATE_HOME/llmgate/cooldowns, else ~/.local/state/llmgate/cooldowns. False when
 * no home is known or the path does not fit. Creates nothing. */
bool lg_persist_path(char *out, size_t outlen);

/* Copies every cooldown of the file still running at now_ms into the fresh, unpublished layout m (creating
 * its account entries). A missing or malformed file restores nothing. Preserves errno. */
void lg_persist_restore(lg_store_layout *m, int64_t now_ms);

/* How lg_persist_save reads the accounts of the store it saves: a visit under the store's lock. */
typedef int (*lg_persist_visit_fn)(lg_store *s, lg_store_visit_fn fn, void *ctx);

/* Writes the cooldowns of s that run longer than LG_PERSIST_MIN_MS (read through visit) to the file,
 * replacing it atomically, under an flock of its lock file so that snapshots land in the order they were
 * taken. 0, or -1 when the file could not be written or visit failed. Preserves errno. */
int lg_persist_save(lg_store *s, lg_persist_visit_fn visit);

#endif
