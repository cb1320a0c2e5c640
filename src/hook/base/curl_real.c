/* Resolution of the real libcurl functions (see curl_real.h). */
#include <errno.h>
#include <pthread.h>

#include "hook/base/curl_real.h"
#include "hook/base/real_sym.h"

lg_curl_real lg_curl_real_table;
int lg_curl_real_ready;
static lg_curl_real *const real = &lg_curl_real_table;
static pthread_once_t real_once = PTHREAD_ONCE_INIT;

static void *resolve(const char *name)
{
    static const char *const libs[] = {"libcurl.so.4", "libcurl-gnutls.so.4", "libcurl-nss.so.4", "libcurl.so"};
    return lg_real_sym(name, NULL, libs, sizeof libs / sizeof *libs);
}

static void resolve_all(void)
{
    int saved = errno;
    *(void **)&real->setopt = resolve("curl_easy_setopt");
    *(void **)&real->perform = resolve("curl_easy_perform");
    *(void **)&real->getinfo = resolve("curl_easy_getinfo");
    *(void **)&real->reset = resolve("curl_easy_reset");
    *(void **)&real->duphandle = resolve("curl_easy_duphandle");
    *(void **)&real->cleanup = resolve("curl_easy_cleanup");
    *(void **)&real->strerror = resolve("curl_easy_strerror");
    *(void **)&real->m_add = resolve("curl_multi_add_handle");
    *(void **)&real->m_remove = resolve("curl_multi_remove_handle");
    *(void **)&real->m_perform = resolve("curl_multi_perform");
    *(void **)&real->m_socket_action = resolve("curl_multi_socket_action");
    *(void **)&real->m_socket_all = resolve("curl_multi_socket_all");
    *(void **)&real->m_info_read = resolve("curl_multi_info_read");
    *(void **)&real->m_wait = resolve("curl_multi_wait");
    *(void **)&real->m_poll = resolve("curl_multi_poll");
    *(void **)&real->m_wakeup = resolve("curl_multi_wakeup");
    *(void **)&real->m_fdset = resolve("curl_multi_fdset");
    *(void **)&real->m_timeout = resolve("curl_multi_timeout");
    *(void **)&real->m_setopt = resolve("curl_multi_setopt");
    *(void **)&real->m_cleanup = resolve("curl_multi_cleanup");
    __atomic_store_n(&lg_curl_real_ready, 1, __ATOMIC_RELEASE);
    errno = saved;
}

const lg_curl_real *lg_curl_real_resolve(void)
{
    pthread_once(&real_once, resolve_all);
    return real;
}
