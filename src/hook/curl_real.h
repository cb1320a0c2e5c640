/* The real libcurl functions behind our interposers. */
#ifndef LLMGATE_HOOK_CURL_REAL_H
#define LLMGATE_HOOK_CURL_REAL_H

#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>

typedef struct {
    CURLcode (*setopt)(CURL *, CURLoption, ...);
    CURLcode (*perform)(CURL *);
    CURLcode (*getinfo)(CURL *, CURLINFO, ...);
    void (*reset)(CURL *);
    CURL *(*duphandle)(CURL *);
    void (*cleanup)(CURL *);
} lg_curl_real;

/* The real functions, resolved once with dlsym(RTLD_NEXT), falling back to an RTLD_NOLOAD handle of
 * libcurl. Members may be NULL when unresolvable: callers must check. Never NULL itself. */
const lg_curl_real *lg_curl_real_get(void);

#endif
