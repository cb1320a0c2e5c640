/* The ALPN offer on a provider's connection (see alpn.h). */
#include <string.h>

#include "hook/tls/alpn.h"

const unsigned char lg_alpn_h1[9] = "\x08http/1.1";

/* True when the name at p (n bytes) is lit (a string literal). */
#define NAME_IS(p, n, lit) ((n) == sizeof lit - 1 && !memcmp((p), lit, sizeof lit - 1))

lg_alpn_plan lg_alpn_plan_of(const unsigned char *wire, size_t len)
{
    bool h1 = false, h2 = false, other = false;
    for (size_t i = 0; i < len; i += 1 + (size_t)wire[i]) {
        size_t n = wire[i];
        if (n == 0 || n > len - i - 1)
            return LG_ALPN_AS_IS; /* malformed: OpenSSL refuses it, GnuTLS never makes it */
        const unsigned char *p = wire + i + 1;
        if (NAME_IS(p, n, "http/1.1"))
            h1 = true;
        else if (NAME_IS(p, n, "h2"))
            h2 = true;
        else
            other = true;
    }
    if (h1)
        return h2 || other ? LG_ALPN_H1 : LG_ALPN_AS_IS;
    return h2 ? LG_ALPN_H2_ONLY : LG_ALPN_AS_IS;
}

bool lg_alpn_wire_add(unsigned char *buf, size_t cap, size_t *len, const void *name, size_t n)
{
    if (n == 0 || n > 255 || *len > cap || cap - *len < 1 + n)
        return false;
    buf[*len] = (unsigned char)n;
    memcpy(buf + *len + 1, name, n);
    *len += 1 + n;
    return true;
}
