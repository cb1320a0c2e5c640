/* API key headers of an HTTP request (see auth_key.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hook/auth_key.h"

static const char *const key_headers[] = {"x-api-key", "x-goog-api-key", "api-key"};

const char *lg_auth_value(const char *line)
{
    const char *colon = strchr(line, ':');
    if (!colon)
        return NULL;
    size_t nlen = (size_t)(colon - line);
    const char *v = colon + 1;
    while (*v == ' ' || *v == '\t')
        v++;
    if (nlen == 13 && (line[0] | 0x20) == 'a' && !strncasecmp(line, "authorization", 13)) {
        if (strncasecmp(v, "bearer ", 7) != 0)
            return NULL;
        v += 7;
        while (*v == ' ')
            v++;
        return v;
    }
    for (size_t i = 0; i < sizeof key_headers / sizeof *key_headers; i++)
        if (nlen == strlen(key_headers[i]) && !strncasecmp(line, key_headers[i], nlen))
            return v;
    return NULL;
}

size_t lg_auth_key_len(const char *v) { return strcspn(v, " \t\r\n"); }

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
