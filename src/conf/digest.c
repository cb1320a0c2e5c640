/* lg_key_digest: a short, stable, non-reversible name for an API key (SHA-256, first 8 bytes). */
#define OPENSSL_SUPPRESS_DEPRECATED /* SHA256_Init & co.: see lg_key_digest */
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/sha.h>

#include "llmgate/config.h"

/* SHA-256 of the len bytes at p into md (32 bytes); false when OpenSSL fails. The low-level functions hash
 * directly; any EVP fetch (EVP_MD_fetch, EVP_Digest, SHA256()) first fills OpenSSL's name map with every
 * legacy algorithm name, some 3 M instructions (~1 ms) on a process's first request over plain http. They
 * are deprecated, not removed; an OpenSSL built without them gets the EVP call. */
static bool sha256(const void *p, size_t len, unsigned char md[32])
{
#ifndef OPENSSL_NO_DEPRECATED_3_0
    SHA256_CTX ctx;
    bool ok = SHA256_Init(&ctx) && SHA256_Update(&ctx, p, len) && SHA256_Final(md, &ctx);
    OPENSSL_cleanse(&ctx, sizeof ctx);
    return ok;
#else
    unsigned int md_len = 0;
    return EVP_Digest(p, len, md, &md_len, EVP_sha256(), NULL) && md_len == 32;
#endif
}

void lg_key_digest(const char *key, char out[LG_DIGEST_HEX])
{
    static const char hex[] = "0123456789abcdef";
    unsigned char md[32];
    out[0] = '\0';
    if (!key || !sha256(key, strlen(key), md))
        return;
    for (int i = 0; i < 8; i++) {
        out[2 * i] = hex[md[i] >> 4];
        out[2 * i + 1] = hex[md[i] & 15];
    }
    out[16] = '\0';
    OPENSSL_cleanse(md, sizeof md);
}
