/* The real libcurl functions behind our interposers. */
#ifndef LLMGATE_HOOK_BASE_CURL_REAL_H
#define LLMGATE_HOOK_BASE_CURL_REAL_H

#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>

typedef struct {
    CURLcode (*setopt)(CURL *, CURLoption, ...);
    CURLcode (*perform)(CURL *);
    CURLcode (*getinfo)(CURL *, CURLINFO, ...);
    void (*reset)(CURL *);
    CURL *(*duphandle)(CURL *);
    void (*cleanup)(CURL *);
    const char *(*strerror)(CURLcode);
    CURLMcode (*m_add)(CURLM *, CURL *);
    CURLMcode (*m_remove)(CURLM *, CURL *);
    CURLMcode (*m_perform)(CURLM *, int *);
    CURLMcode (*m_socket_action)(CURLM *, curl_socket_t, int, int *);
    CURLMcode (*m_socket_all)(CURLM *, int *);
    CURLMsg *(*m_info_read)(CURLM *, int *);
    CURLMcode (*m_wait)(CURLM *, struct curl_waitfd *, unsigned int, int, int *);
    CURLMcode (*m_poll)(CURLM *, struct curl_waitfd *, unsigned int, int, int *);
    CURLMcode (*m_wakeup)(CURLM *);
    CURLMcode (*m_fdset)(CURLM *, fd_set *, fd_set *, fd_set *, int *);
    CURLMcode (*m_timeout)(CURLM *, long *);
    CURLMcode (*m_setopt)(CURLM *, CURLMoption, ...);
    CURLMcode (*m_cleanup)(CURLM *);
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
