/* Thread-local re-entrancy guards (see guard.h). */
#include "hook/base/guard.h"

__attribute__((tls_model("initial-exec"))) _Thread_local int lg_curl_depth;
static __attribute__((tls_model("initial-exec"))) _Thread_local int depth;

void lg_guard_enter(void) { depth++; }
void lg_guard_leave(void) { depth--; }
bool lg_guard_active(void) { return depth > 0 || lg_curl_depth > 0; /* inside any of libcurl's calls, too */ }
