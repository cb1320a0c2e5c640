/* lg_key_digest: a short, stable, non-reversible name for an API key (SHA-256, first 8 bytes). */
#include <pthread.h>
#include <string.h>

#include <openssl/evp.h>

#include "llmgate/config.h"

static EVP_MD *sha256;
static pthread_once_t sha256_once = PTHREAD_ONCE_INIT;

/* Fetches the digest once: an implicit fetch on every call costs more than the hashing. */
static void fetch_sha256(void) { sha256 = EVP_MD_fetch(NULL, "SHA256", NULL); }

void lg_key_digest(const char *key, char out[LG_DIGEST_HEX])
{
    static const char hex[] = "0123456789abcdef";
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int md_len = 0;
    out[0] = '\0';
    if (!key)
        return;
    pthread_once(&sha256_once, fetch_sha256);
    if (!EVP_Digest(key, strlen(key), md, &md_len, sha256 ? sha256 : EVP_sha256(), NULL) || md_len < 8)
        return;
    for (int i = 0; i < 8; i++) {
        out[2 * i] = hex[md[i] >> 4];
        out[2 * i + 1] = hex[md[i] & 15];
    }
    out[16] = '\0';
    OPENSSL_cleanse(md, sizeof md);
}
