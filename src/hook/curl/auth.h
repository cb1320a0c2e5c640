/* Where a request carries its API key, and our copy of the header list with another key in it. */
#ifndef LLMGATE_HOOK_CURL_AUTH_H
#define LLMGATE_HOOK_CURL_AUTH_H

#include <stdbool.h>
#include <stddef.h>

#include "hook/curl/records.h"
#include "llmgate/preset.h"

/* Where the host's header list held its key at the last lg_curl_find_key: the line and the key's offset
 * in it, with the bytes before it (the name and scheme) as they were. node NULL: in no header. */
typedef struct {
    const struct curl_slist *node;
    size_t off;
    char prefix[64];
} lg_key_spot;

/* Copies the key the host sent into buf: from an Authorization: Bearer, x-api-key, x-goog-api-key or
 * api-key header, a ?key= query parameter, or CURLOPT_XOAUTH2_BEARER; fills *spot. Returns the key's length
 * + 1 (the bytes written), 0 when there is none or it does not fit. */
size_t lg_curl_find_key(const lg_curl_rec *r, char *buf, size_t size, lg_key_spot *spot);
/* lg_curl_find_key for a request whose header list has the same nodes and strings as when *spot was filled
 * (lg_curl_rec.gen and the list's fingerprint unchanged): the key is copied again from where it was, after
 * checking that its line still begins as it did (a host may rewrite a key in place); else found afresh. */
size_t lg_curl_key_again(const lg_curl_rec *r, char *buf, size_t size, lg_key_spot *spot);

/* Copies the value of the request's X-Llmgate-Pin header into buf; false when there is none. */
bool lg_curl_find_pin(const lg_curl_rec *r, char *buf, size_t size);

/* A new header list (ours, never the host's): the host's lines without any X-Llmgate-Pin or Accept-Encoding
 * header (see lg_slist_drops_lines), with every
 * auth header's value replaced by key (key NULL: left as they are); when the request carries the key in no
 * header and key_elsewhere is false, one header in the provider's style is appended. restyle (the request
 * goes to another provider than its own): the host's auth headers are dropped and the style's header
 * carries the key; with key NULL too, no auth header at all is left (a redirect to another host).
 * NULL on allocation failure. Free with lg_slist_free. */
struct curl_slist *lg_slist_with_key(const struct curl_slist *host, const char *key, lg_auth_style style,
                                     bool key_elsewhere, bool restyle);
/* True when every line of host is an auth, pin or Accept-Encoding header (lg_slist_with_key without a key
 * then leaves an empty list, NULL). */
bool lg_slist_only_auth(const struct curl_slist *host);
/* True when host has a line that no list of ours carries: X-Llmgate-Pin, and Accept-Encoding (the provider
 * is asked for an uncompressed answer, which llmgate can read; libcurl still decodes what it asked for
 * itself with CURLOPT_ACCEPT_ENCODING). The host's own list must not go out as it is then. */
bool lg_slist_drops_lines(const struct curl_slist *host);
/* True when the request of rec (an lg_curl_rec) carries header name (any case): lg_gate_request.has_header. */
bool lg_curl_has_header(const void *rec, const char *name);

/* Appends a copy of line to a list built by lg_slist_with_key; false when out of memory (l unchanged). */
bool lg_slist_append_copy(struct curl_slist **l, const char *line);

/* Frees a list built by lg_slist_with_key (wiping the key material). */
void lg_slist_free(struct curl_slist *l);

#endif
