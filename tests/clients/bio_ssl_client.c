/* A client that speaks TLS through OpenSSL's SSL BIO, as programs written on OpenSSL's BIO API do: it
 * builds its connection in one of three ways (WAY), verifies the server (the system's roots, or
 * SSL_CERT_FILE) for HOST with SNI HOST, writes one POST to PATH with KEY as its bearer key and
 * Connection: close through BIO_write (or BIO_puts), and reads the answer to its end with BIO_read (or the
 * status line with BIO_gets first). It prints the whole answer on stdout and exits 0 when one came.
 *   connect  BIO_new_ssl_connect: an SSL BIO over a connect BIO, BIO_do_connect and BIO_do_handshake;
 *   buffer   BIO_new_buffer_ssl_connect: a buffering BIO in front of it, BIO_puts and BIO_gets;
 *   fssl     BIO_new(BIO_f_ssl()) with BIO_set_ssl of an SSL_new, pushed onto a BIO_new_connect;
 *   nbio     as connect, non-blocking (BIO_set_nbio): every call retried after poll() on the BIO's socket
 *            while BIO_should_retry says so, as event-driven OpenSSL programs do.
 * Usage: bio_ssl_client WAY HOST PORT PATH KEY BODY */
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

static int nonblocking; /* the nbio way: calls that ask to be retried wait on the socket, then retry */

/* After a BIO call on b answered r: whether to call it again (non-blocking and told to retry, after
 * waiting up to 10 s for the socket to be ready the way BIO asks). */
static int again(BIO *b, long r)
{
    if (!nonblocking || r > 0 || !BIO_should_retry(b))
        return 0;
    int fd = -1;
    BIO_get_fd(b, &fd);
    if (fd < 0)
        return 0;
    struct pollfd p = {fd, BIO_should_read(b) ? POLLIN : POLLOUT, 0}; /* a connect in progress: writable */
    return poll(&p, 1, 10000) == 1;
}

/* The chain for way to host:port, its SSL in *ssl (SNI and verified name host), or NULL. */
static BIO *open_chain(const char *way, SSL_CTX *ctx, const char *host, const char *port, SSL **ssl)
{
    BIO *b = NULL;
    if (!strcmp(way, "connect") || !strcmp(way, "nbio"))
        b = BIO_new_ssl_connect(ctx);
    else if (!strcmp(way, "buffer"))
        b = BIO_new_buffer_ssl_connect(ctx);
    else if (!strcmp(way, "fssl")) {
        BIO *f = BIO_new(BIO_f_ssl());
        SSL *s = f ? SSL_new(ctx) : NULL;
        BIO *con = s ? BIO_new_connect(host) : NULL;
        if (!con) {
            SSL_free(s);
            BIO_free(f);
            return NULL;
        }
        SSL_set_connect_state(s);
        BIO_set_ssl(f, s, BIO_CLOSE);
        b = BIO_push(f, con);
    }
    if (!b)
        return NULL;
    char target[512];
    snprintf(target, sizeof target, "%s:%s", host, port);
    BIO *con = BIO_find_type(b, BIO_TYPE_CONNECT);
    if (BIO_get_ssl(b, ssl) != 1 || !*ssl || !con || BIO_set_conn_hostname(con, target) != 1 ||
        SSL_set_tlsext_host_name(*ssl, host) != 1 || SSL_set1_host(*ssl, host) != 1) {
        BIO_free_all(b);
        return NULL;
    }
    SSL_set_verify(*ssl, SSL_VERIFY_PEER, NULL);
    if (nonblocking)
        BIO_set_nbio(con, 1);
    return b;
}

int main(int argc, char **argv)
{
    if (argc != 7) {
        fprintf(stderr, "usage: bio_ssl_client WAY HOST PORT PATH KEY BODY\n");
        return 2;
    }
    const char *way = argv[1], *host = argv[2];
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    if (!ctx || SSL_CTX_set_default_verify_paths(ctx) != 1)
        return 1;
    nonblocking = !strcmp(way, "nbio");
    SSL *ssl = NULL;
    BIO *b = open_chain(way, ctx, host, argv[3], &ssl);
    long r = 0;
    while (b && (r = BIO_do_connect(b)) != 1 && again(b, r))
        ;
    while (b && r == 1 && (r = BIO_do_handshake(b)) != 1 && again(b, r))
        ;
    if (!b || r != 1) {
        fprintf(stderr, "bio_ssl_client: connection or handshake failed\n");
        ERR_print_errors_fp(stderr);
        return 1;
    }
    char req[8192];
    int len = snprintf(req, sizeof req,
                       "POST %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\n"
                       "Content-Length: %zu\r\nConnection: close\r\n\r\n%s",
                       argv[4], host, argv[5], strlen(argv[6]), argv[6]);
    if (len <= 0 || (size_t)len >= sizeof req)
        return 1;
    int sent = 0, w = 0;
    if (!strcmp(way, "buffer"))
        sent = BIO_puts(b, req);
    else
        while (sent < len && ((w = BIO_write(b, req + sent, len - sent)) > 0 || again(b, w)))
            sent += w > 0 ? w : 0;
    if (sent != len || BIO_flush(b) != 1) {
        fprintf(stderr, "bio_ssl_client: write failed (%d of %d)\n", sent, len);
        return 1;
    }
    char buf[16384];
    int got = 0, n;
    if (!strcmp(way, "buffer") && (got = BIO_gets(b, buf, sizeof buf)) > 0)
        fwrite(buf, 1, (size_t)got, stdout);
    while ((n = BIO_read(b, buf, sizeof buf)) > 0 || again(b, n)) {
        if (n <= 0)
            continue;
        fwrite(buf, 1, (size_t)n, stdout);
        got += n;
    }
    BIO_free_all(b);
    SSL_CTX_free(ctx);
    if (got <= 0) {
        fprintf(stderr, "bio_ssl_client: no answer\n");
        return 1;
    }
    return 0;
}
