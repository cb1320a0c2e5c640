/* The PROXY protocol v2 preamble the preload writes before a program's redirected provider connection
 * (hook/sock/relay_redirect.c): the destination (not needed: the program's TLS names the provider), the
 * relay's secret (TLV 0xE0) and the program's name (TLV 0xE1). */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <openssl/crypto.h>

#include "relay/relay.h"

#define BODY_MAX 512

static const unsigned char sig[12] = {0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A};

/* Reads exactly n bytes. */
static bool read_full(int fd, unsigned char *b, size_t n)
{
    for (size_t off = 0; off < n;) {
        ssize_t r = recv(fd, b + off, n - off, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return false;
        off += (size_t)r;
    }
    return true;
}

bool lg_relay_is_preamble(int fd)
{
    unsigned char b[sizeof sig];
    ssize_t r;
    while ((r = recv(fd, b, sizeof b, MSG_PEEK | MSG_WAITALL)) < 0 && errno == EINTR)
        ;
    return r == (ssize_t)sizeof b && !memcmp(b, sig, sizeof sig);
}

bool lg_relay_preamble(int fd, const char *secret, char *program, size_t psize)
{
    unsigned char h[16], b[BODY_MAX];
    if (!read_full(fd, h, sizeof h) || memcmp(h, sig, sizeof sig) || h[12] != 0x21)
        return false;
    size_t len = (size_t)h[14] << 8 | h[15];
    size_t off = h[13] == 0x11 ? 12 : h[13] == 0x21 ? 36 : 0; /* the addresses and ports */
    if (len > sizeof b || off > len || !read_full(fd, b, len))
        return false;
    bool authed = false;
    program[0] = '\0';
    while (off + 3 <= len) {
        unsigned char t = b[off];
        size_t l = (size_t)b[off + 1] << 8 | b[off + 2];
        off += 3;
        if (off + l > len)
            return false;
        if (t == 0xE0 && l == strlen(secret) && CRYPTO_memcmp(b + off, secret, l) == 0)
            authed = true;
        if (t == 0xE1 && l < psize) {
            for (size_t i = 0; i < l; i++) /* printable only: it goes into log lines */
                program[i] = b[off + i] > 0x20 && b[off + i] < 0x7f ? (char)b[off + i] : '_';
            program[l] = '\0';
        }
        off += l;
    }
    return authed;
}
