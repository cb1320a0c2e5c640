/* A provider connection of a program with its own TLS sent to the relay (see relay_redirect.h). */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hook/base/guard.h"
#include "hook/base/libc_real.h"
#include "hook/sock/fd_watch.h"
#include "hook/sock/plain_conn.h"
#include "hook/sock/relay_redirect.h"
#include "llmgate/elf.h"
#include "llmgate/java_opts.h"

#define SECRET_LEN 32
#define NAME_MAX_LEN 64

static struct {
    bool on;
    bool java_untrusted; /* a Java runtime whose trust store is not the relay's: left alone, said once */
    uint16_t port; /* network order */
    char secret[SECRET_LEN + 1];
} relay;
static pthread_once_t relay_once = PTHREAD_ONCE_INIT;

/* Reads LLMGATE_RELAY once, and whether this program carries its own TLS, is a Java runtime or a Rust
 * program with rustls whose roots are not compiled in (as llmgate run decided). A Java runtime is led to
 * the relay only when its trust store is the one llmgate run made (a Java child of another kind of
 * program inherits LLMGATE_RELAY but not that store, and its TLS to the relay would fail). */
static void setup(void)
{
    const char *v = secure_getenv("LLMGATE_RELAY");
    unsigned port = 0;
    char sec[SECRET_LEN + 2] = "";
    if (!v || sscanf(v, "%u:%33s", &port, sec) != 2 || strlen(sec) != SECRET_LEN || !port || port > 65535)
        return;
    lg_elf_facts f;
    bool own = false, java = false;
    LG_OURS(own = lg_elf_inspect("/proc/self/exe", true, &f) &&
                  ((f.own_tls && !f.needs_curl) || (java = f.java) || (f.rustls && !f.webpki_roots)));
    if (own && java && !lg_java_trusts_relay(getenv("JAVA_TOOL_OPTIONS"), getenv("_JAVA_OPTIONS")))
        relay.java_untrusted = true, own = false;
    if (!own)
        return;
    relay.port = htons((uint16_t)port);
    memcpy(relay.secret, sec, SECRET_LEN + 1);
    relay.on = true;
}

/* Appends TLV type t of n bytes v at b+*off. */
static void tlv(unsigned char *b, size_t *off, unsigned char t, const void *v, size_t n)
{
    b[(*off)++] = t;
    b[(*off)++] = (unsigned char)(n >> 8);
    b[(*off)++] = (unsigned char)n;
    memcpy(b + *off, v, n);
    *off += n;
}

/* The PROXY protocol v2 preamble for a connection to dst on port asked: its length. */
static size_t preamble(unsigned char *b, const struct sockaddr *dst, uint16_t asked)
{
    static const unsigned char sig[12] = {0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A};
    memcpy(b, sig, sizeof sig);
    b[12] = 0x21; /* version 2, PROXY */
    size_t off = 16;
    if (dst->sa_family == AF_INET6) {
        b[13] = 0x21; /* TCP over IPv6: source ::1, the destination, ports */
        memcpy(b + off, &in6addr_loopback, 16);
        memcpy(b + off + 16, &((const struct sockaddr_in6 *)dst)->sin6_addr, 16);
        off += 32;
    } else {
        b[13] = 0x11; /* TCP over IPv4 */
        uint32_t lo = htonl(INADDR_LOOPBACK);
        memcpy(b + off, &lo, 4);
        memcpy(b + off + 4, &((const struct sockaddr_in *)dst)->sin_addr, 4);
        off += 8;
    }
    memset(b + off, 0, 2);
    memcpy(b + off + 2, &asked, 2);
    off += 4;
    tlv(b, &off, 0xE0, relay.secret, SECRET_LEN); /* PP2_TYPE_MIN_CUSTOM: the relay's secret */
    const char *name = program_invocation_short_name;
    size_t nlen = strlen(name);
    tlv(b, &off, 0xE1, name, nlen > NAME_MAX_LEN ? NAME_MAX_LEN : nlen); /* the program's name */
    b[14] = (unsigned char)((off - 16) >> 8);
    b[15] = (unsigned char)(off - 16);
    return off;
}

/* No silent bypass: the relay cannot be reached (it died, or was stopped), or this Java runtime does not
 * trust it; said once per process. */
static void say_ungated(void)
{
    static int said;
    if (__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
        return;
    char line[300];
    int n = relay.java_untrusted
                ? snprintf(line, sizeof line,
                           "llmgate: %s is a Java runtime under the relay without the relay's trust store "
                           "(JAVA_TOOL_OPTIONS): its https requests to providers go out ungated; run it with "
                           "llmgate run to gate them\n",
                           program_invocation_short_name)
                : snprintf(line, sizeof line,
                           "llmgate: the relay on 127.0.0.1:%u cannot be reached: this program's https requests "
                           "to providers go out ungated\n",
                           (unsigned)ntohs(relay.port));
    if (n > 0 && write(STDERR_FILENO, line, (size_t)(n < (int)sizeof line ? n : (int)sizeof line - 1)) < 0)
        return;
}

bool lg_sock_to_relay(int fd, const struct sockaddr *dst, uint16_t asked)
{
    pthread_once(&relay_once, setup);
    if (relay.java_untrusted && asked == htons(443))
        say_ungated();
    if (!relay.on || asked != htons(443) || (dst->sa_family != AF_INET && dst->sa_family != AF_INET6))
        return false;
    const lg_sock_real *real = lg_sock_real_get();
    unsigned char pre[16 + 36 + 3 + SECRET_LEN + 3 + NAME_MAX_LEN];
    size_t n = preamble(pre, dst, asked);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = relay.port};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int fdflags = fcntl(fd, F_GETFD), flflags = fcntl(fd, F_GETFL);
    int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    bool ok = s >= 0 && real->connect(s, (struct sockaddr *)&a, sizeof a) == 0 && lg_h1_fd_send(s, pre, n, 0) &&
              lg_fd_epoll_dup3(s, fd, fdflags >= 0 && (fdflags & FD_CLOEXEC) ? O_CLOEXEC : 0) == fd;
    if (ok && flflags >= 0)
        fcntl(fd, F_SETFL, flflags);
    if (s >= 0)
        real->close(s);
    if (!ok)
        say_ungated();
    return ok;
}
