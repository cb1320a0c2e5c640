/* The thread-local re-entrancy guards (like libfaketime's DONT_FAKE_TIME): while a gated libcurl call or
 * llmgate's own I/O runs on this thread, the socket and TLS hooks pass everything through, so no byte is
 * gated twice. Wrap a call in LG_OURS or LG_AS_LIBCURL rather than counting by hand; neither touches
 * errno, and the wrapped statement must not leave the bracket (no return, goto or break out of it). */
#ifndef LLMGATE_HOOK_BASE_GUARD_H
#define LLMGATE_HOOK_BASE_GUARD_H

#include <stdbool.h>

/* How deep this thread is inside our own calls into libcurl. libcurl's curl_easy_perform calls the
 * curl_multi_* functions through its PLT, and they call one another: a multi interposer entered at depth
 * > 0 goes straight to libcurl. */
extern __attribute__((tls_model("initial-exec"))) _Thread_local int lg_curl_depth;

/* Enters / leaves a guarded section (nestable). */
void lg_guard_enter(void);
void lg_guard_leave(void);
/* True inside a guarded section on this thread, or inside a call into libcurl (lg_curl_depth: the multi
 * hooks' calls, whose sockets libcurl drives itself). */
bool lg_guard_active(void);

/* Runs the statement as llmgate's own I/O: the socket and TLS hooks it reaches pass it through. */
#define LG_OURS(...) do { lg_guard_enter(); __VA_ARGS__; lg_guard_leave(); } while (0)

/* Runs the statement as a call into libcurl: the multi hooks it re-enters go straight to libcurl, and the
 * socket and TLS hooks pass libcurl's own I/O through. */
#define LG_AS_LIBCURL(...) do { lg_curl_depth++; __VA_ARGS__; lg_curl_depth--; } while (0)

#endif
