/* API key headers of an HTTP request (see auth_key.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "front/auth_key.h"
#include "util/word.h"

#define KEY_HEADER(name) {name, sizeof name - 1}
static const struct {
    const char *name;
    size_t len;
} key_headers[] = {KEY_HEADER("x-api-key"), KEY_HEADER("x-goog-api-key"), KEY_HEADER("api-key")};

/* True when the 13 bytes at s spell "authorization" in any case (ASCII letters: a byte with 0x20 set is
 * the lowercase letter exactly when it is that letter in either case). Two overlapping word loads. */
static inline bool is_authorization(const char *s)
{
    const uint64_t lower = 0x2020202020202020u;
    return (lg_load8(s) | lower) == lg_load8("authoriz") && (lg_load8(s + 5) | lower) == lg_load8("rization");
}

/* True when v begins with "bearer " (its letters in any case); stops at the first byte that differs, so
 * never reads past the end of a shorter string. */
static inline bool is_bearer(const char *v)
{
    return (v[0] | 0x20) == 'b' && (v[1] | 0x20) == 'e' && (v[2] | 0x20) == 'a' && (v[3] | 0x20) == 'r' &&
           (v[4] | 0x20) == 'e' && (v[5] | 0x20) == 'r' && v[6] == ' ';
}

const char *lg_auth_value_named(const char *line, size_t nlen)
{
    const char *v = line + nlen + 1;
    while (*v == ' ' || *v == '\t')
        v++;
    if (nlen == 13 && is_authorization(line)) {
        if (!is_bearer(v))
            return NULL;
        v += 7;
        while (*v == ' ')
            v++;
        return v;
    }
    for (size_t i = 0; i < sizeof key_headers / sizeof *key_headers; i++)
        if (nlen == key_headers[i].len && !strncasecmp(line, key_headers[i].name, nlen))
            return v;
    return NULL;
}

const char *lg_auth_value(const char *line)
{
    const char *colon = strchr(line, ':');
    return colon ? lg_auth_value_named(line, (size_t)(colon - line)) : NULL;
}

char *lg_auth_line_with_key(const char *line, const char *value_start, const char *key)
{
    size_t head = (size_t)(value_start - line);
    size_t klen = strlen(key);
    char *out = malloc(head + klen + 1);
    if (out) {
        memcpy(out, line, head);
        memcpy(out + head, key, klen + 1);
    }
    return out;
}

char *lg_auth_style_line(lg_auth_style style, const char *key)
{
    static const char *const fmt[] = {
        [LG_AUTH_BEARER] = "Authorization: Bearer %s",
        [LG_AUTH_X_API_KEY] = "x-api-key: %s",
        [LG_AUTH_X_GOOG_API_KEY] = "x-goog-api-key: %s",
        [LG_AUTH_API_KEY] = "api-key: %s",
        [LG_AUTH_QUERY_KEY] = "x-goog-api-key: %s",
    };
    char *out = NULL;
    return asprintf(&out, fmt[style], key) < 0 ? NULL : out;
}
