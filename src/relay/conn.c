/* One client connection of the relay (see relay.h): the proxy's CONNECT with the relay's secret, then a
 * tunnel byte for byte to a host that is no provider's, or, to a provider, the program's TLS terminated
 * with a leaf of the local CA (ALPN http/1.1 only) and its requests run through the front's HTTP/1.1
 * driver over the relay's own connection to the provider. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "front/h1_conn.h"
#include "front/h1_target.h"
#include "llmgate/log.h"
#include "relay/relay.h"

#define HEAD_MAX 8192
#define CLIENT_WAIT_S 30  /* a client that sends nothing (its CONNECT, its handshake) for this long is dropped */
#define CLIENT_IDLE_S 300 /* a client that sends no request (or no more of one) for this long is dropped */

bool lg_relay_send_all(int fd, const char *p, size_t n)
{
    for (size_t off = 0; off < n;) {
        ssize_t w = send(fd, p + off, n - off, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        off += (size_t)w;
    }
    return true;
}

/* Reads the proxy request's head (to its blank line, at most HEAD_MAX bytes, nothing after it). */
static bool read_head(int fd, char *buf, size_t size)
{
    size_t n = 0;
    while (n + 1 < size) {
        ssize_t r = recv(fd, buf + n, 1, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return false;
        buf[++n] = '\0';
        if (n >= 4 && !memcmp(buf + n - 4, "\r\n\r\n", 4))
            return true;
    }
    return false;
}

/* True when the head carries "Proxy-Authorization: Basic B64" whose password (after the ':') is secret. */
static bool authorized(const char *head, const char *secret)
{
    const char *p = strcasestr(head, "\r\nProxy-Authorization:");
    if (!p)
        return false;
    p += 22;
    p += strspn(p, " \t");
    if (strncasecmp(p, "Basic ", 6))
        return false;
    p += 6;
    size_t len = strcspn(p, "\r\n ");
    unsigned char dec[256];
    if (len == 0 || len > 320 || len % 4)
        return false;
    int n = EVP_DecodeBlock(dec, (const unsigned char *)p, (int)len);
    while (n > 0 && p[len - 1] == '=' && len--) /* EVP_DecodeBlock counts the padding */
        n--;
    if (n <= 0)
        return false;
    dec[n] = '\0';
    const char *colon = memchr(dec, ':', (size_t)n);
    const char *pw = colon ? colon + 1 : (const char *)dec;
    size_t pwlen = (size_t)n - (size_t)(pw - (const char *)dec), slen = strlen(secret);
    return pwlen == slen && CRYPTO_memcmp(pw, secret, slen) == 0;
}

/* Splits "CONNECT host:port HTTP/1.x" into host and port. */
static bool connect_target(const char *head, char *host, size_t hsize, char *port, size_t psize)
{
    if (strncmp(head, "CONNECT ", 8))
        return false;
    const char *a = head + 8, *end = strchr(a, ' ');
    if (!end || end == a)
        return false;
    const char *colon = NULL;
    if (*a == '[') {
        const char *rb = memchr(a, ']', (size_t)(end - a));
        if (!rb || rb[1] != ':')
            return false;
        colon = rb + 1;
        a++;
        if ((size_t)(rb - a) >= hsize)
            return false;
        memcpy(host, a, (size_t)(rb - a));
        host[rb - a] = '\0';
    } else {
        colon = memchr(a, ':', (size_t)(end - a));
        if (!colon || (size_t)(colon - a) >= hsize)
            return false;
        memcpy(host, a, (size_t)(colon - a));
        host[colon - a] = '\0';
    }
    size_t plen = (size_t)(end - colon - 1);
    if (plen == 0 || plen >= psize || strspn(colon + 1, "0123456789") != plen)
        return false;
    memcpy(port, colon + 1, plen);
    port[plen] = '\0';
    return *host != '\0';
}

/* Passes bytes both ways between a and b (each a descriptor, or a TLS session over one) until either
 * ends. */
typedef struct {
    int fd;
    SSL *ssl;
} end_point;

static ssize_t ep_read(end_point *e, char *buf, size_t n)
{
    if (e->ssl) {
        int r = SSL_read(e->ssl, buf, (int)n);
        return r > 0 ? r : -1;
    }
    ssize_t r;
    while ((r = recv(e->fd, buf, n, 0)) < 0 && errno == EINTR)
        ;
    return r > 0 ? r : -1;
}

static bool ep_write(end_point *e, const char *p, size_t n)
{
    if (!e->ssl)
        return lg_relay_send_all(e->fd, p, n);
    for (size_t off = 0; off < n;) {
        int w = SSL_write(e->ssl, p + off, (int)(n - off));
        if (w <= 0)
            return false;
        off += (size_t)w;
    }
    return true;
}

static void pump(end_point *a, end_point *b)
{
    char buf[16384];
    end_point *eps[2] = {a, b};
    for (;;) {
        struct pollfd p[2] = {{.fd = a->fd, .events = POLLIN}, {.fd = b->fd, .events = POLLIN}};
        bool pending = (a->ssl && SSL_pending(a->ssl)) || (b->ssl && SSL_pending(b->ssl));
        if (!pending && poll(p, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            return;
        }
        for (int i = 0; i < 2; i++) {
            bool ready = (eps[i]->ssl && SSL_pending(eps[i]->ssl)) || (!pending && p[i].revents);
            if (!ready)
                continue;
            ssize_t r = ep_read(eps[i], buf, sizeof buf);
            if (r <= 0 || !ep_write(eps[1 - i], buf, (size_t)r))
                return;
        }
    }
}

/* A tunnel to host:port that is no provider's: bytes both ways, never decrypted. */
static void tunnel(int fd, const char *host, const char *port)
{
    int up = lg_relay_tcp_connect(host, port);
    static const char bad[] = "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
    static const char ok[] = "HTTP/1.1 200 Connection Established\r\n\r\n";
    if (up < 0) {
        lg_relay_send_all(fd, bad, sizeof bad - 1);
        return;
    }
    if (lg_relay_send_all(fd, ok, sizeof ok - 1)) {
        end_point a = {.fd = fd}, b = {.fd = up};
        pump(&a, &b);
    }
    close(up);
}

/* ALPN: http/1.1 when the client offers it, else no protocol at all (never h2). */
static int alpn_select(SSL *s, const unsigned char **out, unsigned char *outlen, const unsigned char *in,
                       unsigned int inlen, void *arg)
{
    for (unsigned i = 0; i < inlen; i += 1u + in[i])
        if (in[i] == 8 && i + 9 <= inlen && !memcmp(in + i + 1, "http/1.1", 8)) {
            *out = in + i + 1;
            *outlen = 8;
            return SSL_TLSEXT_ERR_OK;
        }
    return SSL_TLSEXT_ERR_NOACK;
}

/* What the TLS handshake's name callback needs: the CA, the config, and the name (given by the CONNECT,
 * else the program's SNI, which must be a provider's). */
typedef struct {
    const lg_relay_ca *ca;
    const lg_config *cfg;
    char name[256];
} hello;

/* The leaf for the name, put on the session; the handshake fails for a name that is no provider's. */
static int on_name(SSL *s, int *alert, void *arg)
{
    hello *h = arg;
    const char *sni = SSL_get_servername(s, TLSEXT_NAMETYPE_host_name);
    if (!h->name[0]) {
        if (!sni || strlen(sni) >= sizeof h->name || !lg_config_match_host(h->cfg, sni))
            return SSL_TLSEXT_ERR_ALERT_FATAL;
        strcpy(h->name, sni);
    }
    X509 *leaf = lg_relay_ca_leaf(h->ca, h->name);
    bool ok = leaf && SSL_use_certificate(s, leaf) == 1 && SSL_use_PrivateKey(s, h->ca->leaf_key) == 1;
    X509_free(leaf);
    return ok ? SSL_TLSEXT_ERR_OK : SSL_TLSEXT_ERR_ALERT_FATAL;
}

/* The program's TLS session accepted on fd with a leaf of the CA for h->name; NULL when the handshake
 * fails. */
static SSL *accept_tls(int fd, hello *h, SSL_CTX **ctxp)
{
    SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
    SSL *s = NULL;
    if (ctx && SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) == 1) {
        SSL_CTX_set_alpn_select_cb(ctx, alpn_select, NULL);
        SSL_CTX_set_tlsext_servername_callback(ctx, on_name);
        SSL_CTX_set_tlsext_servername_arg(ctx, h);
        if ((s = SSL_new(ctx)) && (SSL_set_fd(s, fd) != 1 || SSL_accept(s) != 1)) {
            SSL_free(s);
            s = NULL;
        }
    }
    *ctxp = ctx;
    return s;
}

bool lg_relay_open_provider(lg_relay_up *u, const lg_provider *prov, const char *host, const char *port)
{
    lg_h1_target t;
    if (prov->upstream && lg_h1_target_of(prov, &t))
        return lg_relay_up_open(u, t.host, t.port, host, t.tls, 0);
    return lg_relay_up_open(u, host, port, host, true, 0);
}

/* Runs the program's requests through the front until the connection ends. */
static void gate(SSL *cs, int fd, lg_relay_up *up, const lg_provider *prov)
{
    const lg_provider *provs[1] = {prov};
    lg_h1_conn *h1 = lg_h1_new(&lg_relay_front_host, provs, 1, &lg_relay_up_io, up);
    char buf[16384];
    end_point client = {.fd = fd, .ssl = cs};
    while (h1) {
        int n = SSL_read(cs, buf, sizeof buf);
        if (n <= 0 || lg_h1_write(h1, buf, (size_t)n) < 0)
            break;
        ssize_t r;
        while ((r = lg_h1_read(h1, buf, sizeof buf, false)) > 0 || (r == -1 && errno == EINTR))
            if (r > 0 && !ep_write(&client, buf, (size_t)r))
                goto out;
        if (r == 0 || r == -1)
            break;
        if (lg_h1_released(h1)) { /* not a request we follow: the rest passes through as it comes */
            end_point provider = {.fd = up->fd, .ssl = up->ssl};
            lg_relay_up_blocking(up);
            pump(&client, &provider);
            break;
        }
    }
out:
    lg_h1_free(h1);
}

/* The program's TLS to a provider (name: the CONNECT's host, or NULL: its SNI) terminated and gated. */
static void serve_tls(int fd, const lg_config *cfg, const lg_relay_ca *ca, const char *name)
{
    hello h = {.ca = ca, .cfg = cfg};
    snprintf(h.name, sizeof h.name, "%s", name ? name : "");
    SSL_CTX *ctx = NULL;
    SSL *cs = accept_tls(fd, &h, &ctx);
    const lg_provider *prov = cs ? lg_config_match_host(cfg, h.name) : NULL;
    if (prov) {
        struct timeval tv = {.tv_sec = CLIENT_IDLE_S}; /* the engine's time limits bound each exchange */
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        lg_relay_up up = {.fd = -1};
        if (lg_relay_open_provider(&up, prov, h.name, "443"))
            gate(cs, fd, &up, prov);
        else
            lg_log(LG_LOG_WARN, "[%s] relay: cannot reach the provider at its TLS", prov->name);
        lg_relay_up_close(&up);
        SSL_shutdown(cs);
    }
    SSL_free(cs);
    SSL_CTX_free(ctx);
}

void lg_relay_serve(int fd, const lg_config *cfg, const lg_relay_ca *ca, const char *secret)
{
    struct timeval tv = {.tv_sec = CLIENT_WAIT_S};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    char head[HEAD_MAX], host[256], port[16];
    if (lg_relay_is_preamble(fd)) { /* a connection the preload sent here */
        static char program[65];
        if (!lg_relay_preamble(fd, secret, program, sizeof program))
            return;
        if (program[0])
            program_invocation_short_name = program; /* routes by program, as under the preload */
        serve_tls(fd, cfg, ca, NULL);
        return;
    }
    if (!read_head(fd, head, sizeof head))
        return;
    if (!authorized(head, secret)) {
        static const char no[] = "HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic "
                                 "realm=\"llmgate\"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
        lg_relay_send_all(fd, no, sizeof no - 1);
        return;
    }
    if (!connect_target(head, host, sizeof host, port, sizeof port)) {
        static const char bad[] = "HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
        lg_relay_send_all(fd, bad, sizeof bad - 1);
        return;
    }
    if (!lg_config_match_host(cfg, host) || strcmp(port, "443")) {
        tunnel(fd, host, port);
        return;
    }
    static const char ok[] = "HTTP/1.1 200 Connection Established\r\n\r\n";
    if (lg_relay_send_all(fd, ok, sizeof ok - 1))
        serve_tls(fd, cfg, ca, host);
}
