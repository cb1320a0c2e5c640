/* The thread-local re-entrancy guard (like libfaketime's DONT_FAKE_TIME): while a gated libcurl call or
 * llmgate's own I/O runs on this thread, the socket and TLS hooks pass everything through, so no byte is
 * gated twice. */
#ifndef LLMGATE_HOOK_BASE_GUARD_H
#define LLMGATE_HOOK_BASE_GUARD_H

#include <stdbool.h>

/* Enters / leaves a guarded section (nestable). */
void lg_guard_enter(void);
void lg_guard_leave(void);
/* True inside a guarded section on this thread, or inside a call into libcurl (lg_curl_depth: the multi
 * hooks' calls, whose sockets libcurl drives itself). */
bool lg_guard_active(void);

#endif
