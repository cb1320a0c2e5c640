/* Names read back from the shared store's slots, which another process (or a corrupt file) wrote. */
#include <string.h>

#include "cli/commands.h"

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 when it is not one. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    size_t len = s[0] >= 0xF0 && s[0] <= 0xF4 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC2 && s[0] < 0xE0 ? 2 : 0;
    if (s[0] >= 0xF5 || len == 0 || len > n)
        return 0;
    for (size_t i = 1; i < len; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    if ((len == 3 && s[0] == 0xE0 && s[1] < 0xA0) || (len == 4 && s[0] == 0xF0 && s[1] < 0x90) ||
        (len == 4 && s[0] == 0xF4 && s[1] > 0x8F) || (len == 3 && s[0] == 0xED && s[1] > 0x9F))
        return 0; /* overlong, beyond U+10FFFF, or a surrogate */
    return len;
}

bool lg_cli_name_ok(const char *s, size_t cap)
{
    const char *end = s ? memchr(s, '\0', cap) : NULL;
    if (!end || end == s)
        return false;
    const unsigned char *p = (const unsigned char *)s;
    size_t n = (size_t)(end - s);
    for (size_t i = 0; i < n;) {
        if (p[i] < 0x80) {
            if (p[i] < 0x20 || p[i] == 0x7f)
                return false;
            i++;
            continue;
        }
        size_t len = utf8_len(p + i, n - i);
        if (!len)
            return false;
        i += len;
    }
    return true;
}
