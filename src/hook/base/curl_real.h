/* The real libcurl functions behind our interposers. */
#ifndef LLMGATE_HOOK_BASE_CURL_REAL_H
#define LLMGATE_HOOK_BASE_CURL_REAL_H

#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>

#include "hook/base/real_sym.h"

/* The table, one X(field, symbol, ret, params) a real libcurl function (real_sym.h). */
#define LG_CURL_REAL(X)                                                                              \
    X(setopt, curl_easy_setopt, CURLcode, (CURL *, CURLoption, ...))                                 \
    X(perform, curl_easy_perform, CURLcode, (CURL *))                                                \
    X(getinfo, curl_easy_getinfo, CURLcode, (CURL *, CURLINFO, ...))                                 \
    X(reset, curl_easy_reset, void, (CURL *))                                                        \
    X(duphandle, curl_easy_duphandle, CURL *, (CURL *))                                              \
    X(cleanup, curl_easy_cleanup, void, (CURL *))                                                    \
    X(strerror, curl_easy_strerror, const char *, (CURLcode))                                        \
    X(pause, curl_easy_pause, CURLcode, (CURL *, int))                                               \
    X(m_add, curl_multi_add_handle, CURLMcode, (CURLM *, CURL *))                                    \
    X(m_remove, curl_multi_remove_handle, CURLMcode, (CURLM *, CURL *))                              \
    X(m_perform, curl_multi_perform, CURLMcode, (CURLM *, int *))                                    \
    X(m_socket_action, curl_multi_socket_action, CURLMcode, (CURLM *, curl_socket_t, int, int *))    \
    X(m_socket_all, curl_multi_socket_all, CURLMcode, (CURLM *, int *))                              \
    X(m_info_read, curl_multi_info_read, CURLMsg *, (CURLM *, int *))                                \
    X(m_wait, curl_multi_wait, CURLMcode, (CURLM *, struct curl_waitfd *, unsigned int, int, int *)) \
    X(m_poll, curl_multi_poll, CURLMcode, (CURLM *, struct curl_waitfd *, unsigned int, int, int *)) \
    X(m_wakeup, curl_multi_wakeup, CURLMcode, (CURLM *))                                             \
    X(m_fdset, curl_multi_fdset, CURLMcode, (CURLM *, fd_set *, fd_set *, fd_set *, int *))          \
    X(m_timeout, curl_multi_timeout, CURLMcode, (CURLM *, long *))                                   \
    X(m_setopt, curl_multi_setopt, CURLMcode, (CURLM *, CURLMoption, ...))                           \
    X(m_cleanup, curl_multi_cleanup, CURLMcode, (CURLM *))

typedef struct {
    LG_CURL_REAL(LG_REAL_FIELD)
} lg_curl_real;

extern lg_curl_real lg_curl_real_table; /* filled once by lg_curl_real_resolve */
extern int lg_curl_real_ready;          /* set (release) once the table is filled */

/* Fills the table once (pthread_once) and returns it. */
const lg_curl_real *lg_curl_real_resolve(void) __attribute__((cold)); /* cold: once per process */

/* The real functions, resolved once with dlsym(RTLD_NEXT), falling back to an RTLD_NOLOAD handle of
 * libcurl. Members may be NULL when unresolvable: callers must check. Never NULL itself. After the first
 * call, one load (every hook calls it, most of them while no exchange runs). */
static inline const lg_curl_real *lg_curl_real_get(void)
{
    return __builtin_expect(__atomic_load_n(&lg_curl_real_ready, __ATOMIC_ACQUIRE), 1) ? &lg_curl_real_table
                                                                                        : lg_curl_real_resolve();
}

#endif
