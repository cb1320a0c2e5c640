/* The host's verbose output (CURLOPT_VERBOSE, CURLOPT_DEBUGFUNCTION; PHP's CURLINFO_HEADER_OUT is one) while
 * llmgate runs its attempts: the request headers libcurl reports carry an account key the host never had,
 * so they pass through a trampoline that masks the key before the host's callback, or libcurl's default
 * output, sees them. */
#ifndef LG_HOOK_CURL_DEBUG_H
#define LG_HOOK_CURL_DEBUG_H

#include <curl/curl.h>

#include "hook/curl/records.h"

/* What the trampoline needs: the handle's record (the host's callback, its data, verbose, stderr) and the
 * key of the attempt being sent (NULL: none of ours). */
typedef struct {
    const lg_curl_rec *rec;
    const char *key;
} lg_curl_debug;

/* True when the host watches what libcurl reports (verbose, or a debug callback of its own). */
bool lg_curl_debug_wanted(const lg_curl_rec *r);
/* CURLOPT_DEBUGFUNCTION while an attempt runs (CURLOPT_DEBUGDATA: an lg_curl_debug): the report, with every
 * occurrence of the attempt's key masked, to the host's callback, else as libcurl prints it by default
 * (a "* ", "< " or "> " prefix, to CURLOPT_STDERR or stderr, only when verbose). */
int lg_curl_debug_relay(CURL *h, curl_infotype type, char *data, size_t size, void *userp);

#endif
