/* The relay (llmgate relay): a daemon of one user and one configuration that programs with a TLS library
 * of their own reach through an HTTP CONNECT proxy on loopback (Go: HTTPS_PROXY). A provider's connection
 * is terminated with a certificate of the local CA (ca.c) and run through the front's HTTP/1.1 driver and
 * the exchange engine, as the socket front end runs it (conn.c); its attempts go to the provider over the
 * relay's own TLS, verified against the system's trust (upstream.c). Any other host is tunnelled byte for
 * byte. Only the user may use it: the proxy URL carries a per-relay secret. */
#ifndef LLMGATE_RELAY_RELAY_H
#define LLMGATE_RELAY_RELAY_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <openssl/ssl.h>

#include "llmgate/config.h"

#define LG_RELAY_SECRET_HEX 33 /* 16 random bytes in hex, and a NUL */

/* The local CA: its certificate and key, and the key every leaf certificate carries (in memory only). */
typedef struct {
    X509 *cert;
    EVP_PKEY *key;
    EVP_PKEY *leaf_key;
} lg_relay_ca;

/* The directory of the CA's files ($XDG_STATE_HOME/llmgate, else ~/.local/state/llmgate), made 0700; and
 * the paths of its certificate and key in it. False when there is no such directory to be had. */
bool lg_relay_ca_paths(char *cert, char *key, char *hosts, size_t size);
/* Loads the CA, or makes it (key 0600) when there is none or its name constraints are not exactly the
 * configured providers' host names. False with a message in err. */
bool lg_relay_ca_open(const lg_config *cfg, lg_relay_ca *ca, char *err, size_t errlen);
/* Makes a new CA for cfg's hosts, replacing the files. */
bool lg_relay_ca_make(const lg_config *cfg, lg_relay_ca *ca, char *err, size_t errlen);
void lg_relay_ca_free(lg_relay_ca *ca);
/* Writes the CA's certificate (PEM) to path: the one a relay uses, beside its address file
 * (ADDR.ca.pem), for the trust `llmgate run` gives its programs. */
bool lg_relay_ca_write_cert(const lg_relay_ca *ca, const char *path);
/* Writes to path (PEM) the CA's certificate for rustls programs (webpki 0.22, which refuses RFC 5280's
 * encoding of name constraints): the same subject, key and names permitted, its name constraints in the
 * form that webpki reads (other verifiers refuse that certificate: it can only narrow their trust).
 * The relay's ADDR.webpki.pem, beside ADDR.ca.pem. */
bool lg_relay_ca_write_webpki(const lg_relay_ca *ca, const char *path);
/* Writes n bytes of text to path (mode) through a new file renamed over it. */
bool lg_relay_write_file(const char *path, const char *text, size_t n, mode_t mode);
/* A certificate for name, signed by the CA, valid from an hour ago for a day, with ca->leaf_key. */
X509 *lg_relay_ca_leaf(const lg_relay_ca *ca, const char *name);

/* One client connection accepted on the relay's listener (fd): the CONNECT, then the tunnel or the gated
 * exchange; returns when the connection is over. */
void lg_relay_serve(int fd, const lg_config *cfg, const lg_relay_ca *ca, const char *secret);

/* One client connection of the gateway (--listen): plain HTTP requests to http://ADDR/PROVIDER/..., each
 * admitted only with a gateway token as its API key when need_token (else only when the client's socket
 * belongs to this process's user: a loopback gateway without tokens), the token replaced before anything
 * leaves; returns when the connection is over. */
void lg_relay_gateway_serve(int fd, const lg_config *cfg, bool need_token);

/* The uid owning the socket at the other end of the TCP connection fd (on this machine: loopback), from
 * the kernel's tables of TCP sockets; -1 when it is not found there. */
long lg_relay_peer_uid(int fd);
/* Pure: the uid of one line of such a table (/proc/net/tcp's format) when its local address is local
 * and its remote address remote (as the table prints them, "0100007F:1F90"); -1 otherwise. */
long lg_relay_tcp_line_uid(const char *line, const char *local, const char *remote);

/* True when what fd's peer sent first is the signature of a PROXY protocol v2 preamble (waits for 12
 * bytes, reads nothing). */
bool lg_relay_is_preamble(int fd);
/* Reads the preamble: true when it carries the relay's secret; the program's name (TLV 0xE1, printable,
 * or "") into program. */
bool lg_relay_preamble(int fd, const char *secret, char *program, size_t psize);

/* Runs the relay in the foreground for cfg on 127.0.0.1 (port 0: any), writing "PORT
 * SECRET PID" to addr_file (when given) once it listens; exits after idle_s seconds without a connection
 * (0: never); or, with listen ("ADDR:PORT", "[V6]:PORT"), the gateway there (a listener off loopback only
 * with gateway tokens configured). Returns the exit status. */
int lg_relay_run(const lg_config *cfg, int port, const char *addr_file, int idle_s, const char *listen);

/* The name of the relay of the config file `file` (absolute): the digest of its path and text, which its
 * files in the runtime directory carry (relay-NAME.addr, .lock, .log). False when file cannot be read. */
bool lg_relay_name(const char *file, char name[LG_DIGEST_HEX]);
/* Where a relay for the config file `file` is reached: found running (its address file, a live process,
 * a listener) or started in the background (shared: two callers at once start one); the path of the CA
 * certificate it uses into ca. False, with a message in err, when none can be had. */
bool lg_relay_reach(const char *file, int *port, char secret[LG_RELAY_SECRET_HEX], char *ca, size_t casize,
                    char *err, size_t errlen);

/* The relay's side of a provider connection: the upstream transport (front/h1_conn.h) over its own TLS
 * (or plain TCP for an http upstream) and the program the front runs in. */
struct lg_h1_io;
struct lg_front_host;
typedef struct lg_relay_up {
    int fd;
    SSL *ssl;
    SSL_CTX *ctx;
    char host[256]; /* where it connects */
    char port[16];
    char name[256]; /* the name verified (and sent as SNI unless an address) */
    bool tls;
    short want; /* what its last send or receive that could not go on waits for: POLLIN, POLLOUT */
} lg_relay_up;
extern const struct lg_h1_io lg_relay_up_io;
extern const struct lg_front_host lg_relay_front_host;
/* The provider's side for a connection to host:port of prov: its upstream when it has one (verified for
 * the name host), else host:port itself over TLS. */
bool lg_relay_open_provider(lg_relay_up *u, const lg_provider *prov, const char *host, const char *port);
/* Connects u to host:port over TLS verified for name (tls) or plain TCP; its connect and handshake not
 * done by until_ms (lg_now_ms's clock; 0: no limit) fail. Its socket is non-blocking once open. */
bool lg_relay_up_open(lg_relay_up *u, const char *host, const char *port, const char *name, bool tls,
                      int64_t until_ms);
void lg_relay_up_close(lg_relay_up *u);
/* Makes u's socket (non-blocking while the front runs over it) blocking: for the tunnel of a connection the
 * front released. */
void lg_relay_up_blocking(lg_relay_up *u);
/* Sends all n bytes on the blocking socket fd; false when it fails. */
bool lg_relay_send_all(int fd, const char *p, size_t n);
/* A blocking TCP socket connected to host:port, or -1. */
int lg_relay_tcp_connect(const char *host, const char *port);
/* Sets the config and store the front host hands out (the child serving one connection). */
void lg_relay_host_use(const lg_config *cfg);

#endif
