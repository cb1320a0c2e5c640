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

#endif
