/* Where an HTTP request carries its API key, whatever the transport: the header lines that hold one
 * (Authorization: Bearer, x-api-key, x-goog-api-key, api-key) and the header a provider expects when the
 * request carries none. Used by the libcurl hook and the socket/TLS front end. */
#ifndef LLMGATE_FRONT_AUTH_KEY_H
#define LLMGATE_FRONT_AUTH_KEY_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "llmgate/preset.h"

/* If line ("Name: value", with or without CRLF) is an auth header, the start of its key (after "Bearer "
 * for Authorization); else NULL. */
const char *lg_auth_value(const char *line);
/* lg_auth_value of a line whose first colon is its byte nlen (the name's length known: no search). */
const char *lg_auth_value_named(const char *line, size_t nlen);
/* Length of the key at v (up to whitespace or the line end). */
static inline size_t lg_auth_key_len(const char *v) { return strcspn(v, " \t\r\n"); }
/* "Name: <scheme >key" built from the auth line's own name and scheme (value_start from lg_auth_value);
 * anything after the old key is dropped. Caller frees; NULL on allocation failure. */
char *lg_auth_line_with_key(const char *line, const char *value_start, const char *key);
/* The header line (no CRLF) carrying key in the provider's style. Caller frees; NULL on failure. */
char *lg_auth_style_line(lg_auth_style style, const char *key);

#endif
