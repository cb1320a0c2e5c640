/* Resolution of the real libcurl functions (see curl_real.h). */
#include <errno.h>
#include <pthread.h>

#include "hook/curl_real.h"
#include "hook/real_sym.h"

static lg_curl_real real;
static pthread_once_t real_once = PTHREAD_ONCE_INIT;

static void *resolve(const char *name)
{
    static const char *const libs[] = {"libcurl.so.4", "libcurl-gnutls.so.4", "libcurl-nss.so.4", "libcurl.so"};
    return lg_real_sym(name, NULL, libs, sizeof libs / sizeof *libs);
}

static void resolve_all(void)
{
    int saved = errno;
    *(void **)&real.setopt = resolve("curl_easy_setopt");
    *(void **)&real.perform = resolve("curl_easy_perform");
    *(void **)&real.getinfo = resolve("curl_easy_getinfo");
    *(void **)&real.reset = resolve("curl_easy_reset");
    *(void **)&real.duphandle = resolve("curl_easy_duphandle");
    *(void **)&real.cleanup = resolve("curl_easy_cleanup");
    errno = saved;
}

const lg_curl_real *lg_curl_real_get(void)
{
    pthread_once(&real_once, resolve_all);
    return &real;
}
