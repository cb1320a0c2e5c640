/* Small URL helpers for the hooks: host extraction, upstream rebasing, query parameters. */
#ifndef LLMGATE_URL_H
#define LLMGATE_URL_H

#include <stdbool.h>
#include <stddef.h>

/* Copies the host of an absolute URL ("https://user@Host:443/p" -> "Host", "[::1]" -> "::1") into buf.
 * A URL without a scheme is taken as "host/path" (libcurl's guess). False when there is no host or
 * it does not fit. */
bool lg_url_host(const char *url, char *buf, size_t size);

/* The path and query of url ("/v1/x?a=b"; "/" when empty). Points into url. */
const char *lg_url_path(const char *url);

/* New URL: base (scheme://host[:port][/prefix], trailing '/' ignored) + path and query of url. Caller
 * frees; NULL on allocation failure. */
char *lg_url_rebase(const char *base, const char *url);

/* The value of query parameter name in url, copied into buf; false when absent or too long. */
bool lg_url_query_get(const char *url, const char *name, char *buf, size_t size);

/* New URL with the value of query parameter name replaced by value (which must be URL-safe). Caller
 * frees; NULL when absent or on allocation failure. */
char *lg_url_query_set(const char *url, const char *name, const char *value);

#endif
