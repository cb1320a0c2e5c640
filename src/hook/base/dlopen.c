/* dlopen interposer, for hosts that load plugins with RTLD_DEEPBIND (PHP loads every extension so): an
 * object opened that way binds to its own dependencies first, so its libcurl calls would go past the
 * preload. For an object named by path whose DT_NEEDED names libcurl, and only for it, the flag is
 * dropped; every other call is passed on untouched. The real dlopen is reached by a sibling call (a jump),
 * so glibc still sees the host's return address: the caller's namespace and DT_RPATH stay the host's.
 * docs/ARCHITECTURE.md ("RTLD_DEEPBIND hosts") has the measurements behind this choice. */
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

#include "hook/base/export.h"
#include "hook/base/real_sym.h"
#include "llmgate/elf.h"

static void *(*real_dlopen)(const char *, int);
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void resolve(void) { *(void **)&real_dlopen = lg_real_sym("dlopen", NULL, NULL, 0); }

/* True when file, opened with flags, is a deep-bound object that calls libcurl. */
static bool deep_curl_user(const char *file, int flags)
{
    lg_elf_facts f;
    return (flags & RTLD_DEEPBIND) && file && strchr(file, '/') && lg_elf_inspect(file, false, &f) && f.needs_curl;
}

EXPORT void *dlopen(const char *file, int flags)
{
    pthread_once(&once, resolve);
    if (!real_dlopen)
        return NULL;
    if (deep_curl_user(file, flags))
        flags &= ~RTLD_DEEPBIND;
    return real_dlopen(file, flags);
}
