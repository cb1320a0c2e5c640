/* The ALPN offer on a provider's connection (pure, shared by the OpenSSL and GnuTLS hooks): llmgate follows
 * HTTP/1.1 only, so an offer that lists http/1.1 beside other protocols (h2) is reduced to http/1.1 there,
 * and the server picks HTTP/1.1. Offers are lists in the wire format of RFC 7301 (each name: one length
 * byte, then its bytes), as OpenSSL takes them. */
#ifndef LLMGATE_HOOK_TLS_ALPN_H
#define LLMGATE_HOOK_TLS_ALPN_H

#include <stdbool.h>
#include <stddef.h>

typedef enum {
    LG_ALPN_AS_IS,   /* nothing to change: no offer, http/1.1 alone, neither http/1.1 nor h2, or malformed */
    LG_ALPN_H1,      /* offer lg_alpn_h1 instead */
    LG_ALPN_H2_ONLY, /* h2 without http/1.1: the program speaks HTTP/2 only; left as it is (not followed) */
} lg_alpn_plan;

/* The offer http/1.1 alone, in wire format. */
extern const unsigned char lg_alpn_h1[9];

/* What to offer a provider instead of the program's list (wire, len bytes). */
lg_alpn_plan lg_alpn_plan_of(const unsigned char *wire, size_t len);

/* Appends the name (n bytes) to the wire-format list buf of *len bytes; false (buf unchanged) when n is 0
 * or over 255, or when it does not fit in cap bytes. */
bool lg_alpn_wire_add(unsigned char *buf, size_t cap, size_t *len, const void *name, size_t n);

#endif
