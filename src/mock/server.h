/* The HTTP side of the mock provider: libmicrohttpd daemons on 127.0.0.1 (plain or TLS) that read
 * each request, ask the shared state how to answer it, and send the answer. */
#ifndef MOCK_SERVER_H
#define MOCK_SERVER_H

#include <stdbool.h>

struct MHD_Daemon;

#define MOCK_MAX_BODY (8u << 20) /* request bodies up to 8 MiB are read; larger ones get a 413 */

/* Starts a daemon on 127.0.0.1:port (0: an ephemeral port) with `threads` worker threads; with
 * cert_pem and key_pem (PEM text, else NULL) it speaks HTTPS. Sets *bound_port. Returns NULL and
 * prints the reason on stderr when it cannot start. */
struct MHD_Daemon *mock_server_start(int port, int threads, const char *cert_pem, const char *key_pem, bool quiet,
                                     int *bound_port);
void mock_server_stop(struct MHD_Daemon *d);

#endif
