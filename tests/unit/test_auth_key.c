/* The API key headers of a request (src/front/auth_key.c): lg_auth_value, which recognises the
 * Authorization name and the Bearer scheme by word compares, against the reading it replaced
 * (strncasecmp), on listed and generated lines, also given the name's length (lg_auth_value_named, as the
 * socket path's request fields call it); and the key's extent. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "front/auth_key.h"

/* lg_auth_value as it was read before: the reference. */
static const char *ref_auth_value(const char *line)
{
    static const char *const names[] = {"x-api-key", "x-goog-api-key", "api-key"};
    const char *colon = strchr(line, ':');
    if (!colon)
        return NULL;
    size_t nlen = (size_t)(colon - line);
    const char *v = colon + 1;
    while (*v == ' ' || *v == '\t')
        v++;
    if (nlen == 13 && !strncasecmp(line, "authorization", 13)) {
        if (strncasecmp(v, "bearer ", 7) != 0)
            return NULL;
        v += 7;
        while (*v == ' ')
            v++;
        return v;
    }
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (nlen == strlen(names[i]) && !strncasecmp(line, names[i], nlen))
            return v;
    return NULL;
}

/* Checks one line (copied to an allocation of its exact size: a read past its end is caught). */
static void same_as_before(const char *text, size_t len)
{
    char *line = malloc(len + 1);
    assert_non_null(line);
    memcpy(line, text, len);
    line[len] = '\0';
    const char *got = lg_auth_value(line), *want = ref_auth_value(line), *colon = strchr(line, ':');
    if (got != want)
        fail_msg("\"%s\": %s where the old reading says %s", line, got ? got : "(none)", want ? want : "(none)");
    if (colon && lg_auth_value_named(line, (size_t)(colon - line)) != want) /* the name's length given */
        fail_msg("\"%s\": named, not where the old reading says %s", line, want ? want : "(none)");
    free(line);
}

static void listed_lines(void **state)
{
    (void)state;
    static const char *const lines[] = {
        "Authorization: Bearer sk-1", "authorization:bearer sk-2", "AUTHORIZATION: BEARER  sk-3",
        "AuThOrIzAtIoN:\tbEaReR sk-4", "Authorization: Basic dXNlcg==", "Authorization: Bearer", "Authorization: Bea",
        "Authorization:", "Authorization: Bearer\tsk-5", "Authorizatio: Bearer sk-6", "Authorizationn: Bearer sk",
        "Buthorization: Bearer sk", "Authorizatioo: Bearer sk", "Authorizat1on: Bearer sk", "Authori\x1a" "ation: Bearer x",
        "Authorization: Bearer@sk", "Authorization: bearer\x00", "x-api-key: k", "X-Goog-Api-Key:k", "api-key:  k",
        "Api-Keys: k", "Content-Type: application/json", "no colon", ":", "", "Authorization : Bearer sk",
    };
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++)
        same_as_before(lines[i], strlen(lines[i]));
    assert_string_equal(lg_auth_value("authorization: Bearer   sk-7 "), "sk-7 ");
    assert_int_equal(lg_auth_key_len("sk-7 \r\n"), 4);
}

/* Mutations of auth lines: a byte flipped in case, changed to a neighbour of a letter (the bytes 0x20 apart
 * from it, '@' and '[' around the capitals, '`' and '{' around the small letters), cut or extended. */
static void generated_lines(void **state)
{
    (void)state;
    static const char *const bases[] = {"Authorization: Bearer sk-abc", "authorization:bearer x", "x-api-key: k",
                                        "X-GOOG-API-KEY: k", "Api-Key: k"};
    static const char swaps[] = "@[`{ \t:\x01\x7f\xc1\xe1" "AaZz";
    unsigned seed = 7;
    for (int round = 0; round < 20000; round++) {
        seed = seed * 1103515245u + 12345u;
        const char *base = bases[(seed >> 8) % 5];
        char line[64];
        size_t len = strlen(base);
        memcpy(line, base, len);
        for (int m = (int)((seed >> 4) % 3); m >= 0 && len > 0; m--) {
            seed = seed * 1103515245u + 12345u;
            size_t at = (seed >> 8) % len;
            switch ((seed >> 20) % 4) {
            case 0: line[at] ^= 0x20; break;
            case 1: line[at] = swaps[(seed >> 12) % (sizeof swaps - 1)]; break;
            case 2: len = at; break;
            default:
                if (len < sizeof line - 1)
                    line[len++] = swaps[(seed >> 12) % (sizeof swaps - 1)];
            }
        }
        same_as_before(line, strnlen(line, len));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(listed_lines),
        cmocka_unit_test(generated_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
