/* The PROXY protocol v2 preamble the relay reads (src/relay/preamble.c), written as the preload writes it
 * (hook/sock/relay_redirect.c): the secret must match exactly; the program's name is kept printable; a
 * truncated, oversized or v1 preamble is refused; a connection without one is told apart. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "relay/relay.h"

#define SECRET "0123456789abcdef0123456789abcdef"
static const unsigned char sig[12] = {0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A};

/* A v2 preamble over IPv4 with TLVs secret (0xE0) and name (0xE1) into b; its length. */
static size_t build(unsigned char *b, const char *secret, const char *name)
{
    memcpy(b, sig, 12);
    b[12] = 0x21;
    b[13] = 0x11;
    size_t off = 16;
    memset(b + off, 0, 12);
    b[off + 10] = 0x01, b[off + 11] = 0xbb; /* port 443 */
    off += 12;
    const char *vals[2] = {secret, name};
    for (int i = 0; i < 2; i++) {
        size_t n = strlen(vals[i]);
        b[off++] = (unsigned char)(0xE0 + i);
        b[off++] = 0;
        b[off++] = (unsigned char)n;
        memcpy(b + off, vals[i], n);
        off += n;
    }
    size_t len = off - 16;
    b[14] = (unsigned char)(len >> 8);
    b[15] = (unsigned char)len;
    return off;
}

/* What the relay reads from a peer that sent n bytes of b and closed: the result, the name into name. */
static bool read_from(const unsigned char *b, size_t n, char *name, size_t size)
{
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    assert_int_equal(write(sv[0], b, n), (ssize_t)n);
    close(sv[0]);
    bool ok = lg_relay_is_preamble(sv[1]) && lg_relay_preamble(sv[1], SECRET, name, size);
    close(sv[1]);
    return ok;
}

static void test_preamble(void **state)
{
    unsigned char b[600];
    char name[65];
    size_t n = build(b, SECRET, "node");
    assert_true(read_from(b, n, name, sizeof name));
    assert_string_equal(name, "node");
    n = build(b, "0123456789abcdef0123456789abcdeF", "node"); /* one character off */
    assert_false(read_from(b, n, name, sizeof name));
    n = build(b, SECRET "0", "node"); /* longer */
    assert_false(read_from(b, n, name, sizeof name));
    n = build(b, "", "node"); /* none */
    assert_false(read_from(b, n, name, sizeof name));
    n = build(b, SECRET, "no de\x01"); /* a name for log lines: printable */
    assert_true(read_from(b, n, name, sizeof name));
    assert_string_equal(name, "no_de_");
    n = build(b, SECRET, "node"); /* truncated */
    assert_false(read_from(b, n - 3, name, sizeof name));
    n = build(b, SECRET, "node"); /* the name's TLV running past the end */
    b[16 + 12 + 3 + 32 + 2] += 10;
    assert_false(read_from(b, n, name, sizeof name));
    b[14] = 0x10; /* longer than the relay takes */
    assert_false(read_from(b, n, name, sizeof name));
    static const char v1[] = "PROXY TCP4 127.0.0.1 127.0.0.1 1 443\r\n";
    assert_false(read_from((const unsigned char *)v1, sizeof v1 - 1, name, sizeof name));
    static const char connect[] = "CONNECT api.openai.com:443 HTTP/1.1\r\n\r\n";
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    assert_int_equal(write(sv[0], connect, sizeof connect - 1), (ssize_t)(sizeof connect - 1));
    assert_false(lg_relay_is_preamble(sv[1])); /* a proxy request: told apart, nothing read */
    char head[8];
    assert_int_equal(read(sv[1], head, 7), 7);
    assert_memory_equal(head, "CONNECT", 7);
    close(sv[0]);
    close(sv[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_preamble)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
