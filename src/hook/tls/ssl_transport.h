/* The transports under a followed OpenSSL connection's lg_h1_conn: the real SSL_read/SSL_write on the
 * session over a socket (the host's, or the replacement after a retry); over memory BIOs (asyncio), the
 * request taken from the host and carried by llmgate's own non-blocking session, driven from the host's
 * readiness waits. */
#ifndef LLMGATE_HOOK_TLS_SSL_TRANSPORT_H
#define LLMGATE_HOOK_TLS_SSL_TRANSPORT_H

#include "front/h1_conn.h"

extern const lg_h1_io lg_ssl_socket_io; /* a session over a socket */
extern const lg_h1_io lg_ssl_membio_io; /* a session over memory BIOs */

#endif
