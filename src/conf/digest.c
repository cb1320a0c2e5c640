/* lg_key_digest: a short, stable, non-reversible name for an API key (SHA-256, first 8 bytes). */
#include <string.h>

#include <openssl/evp.h>

#include "llmgate/config.h"

void lg_key_digest(const char *key, char out[LG_DIGEST_HEX])
{
    static const char hex[] = "0123456789abcdef";
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int md_len = 0;
    out[0] = '\0';
    if (!key)
        return;
    if (!EVP_Digest(key, strlen(key), md, &md_len, EVP_sha256(), NULL) || md_len < 8)
        return;
    for (int i = 0; i < 8; i++) {
        out[2 * i] = hex[md[i] >> 4];
        out[2 * i + 1] = hex[md[i] & 15];
    }
    out[16] = '\0';
    OPENSSL_cleanse(md, sizeof md);
}
