/* Masking of account keys in the host's verbose output (see debug.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hook/curl/debug.h"

/* What a key is shown as: its first three characters, then this. */
#define MASK "****"
#define KEEP 3

bool lg_curl_debug_wanted(const lg_curl_rec *r) { return r->verbose || r->debugfn; }

/* A copy of the size bytes at data with each occurrence of key (klen > KEEP bytes) cut to its first KEEP
 * characters and MASK; *out_size its length. NULL when out of memory. */
static char *masked(const char *data, size_t size, const char *key, size_t klen, size_t *out_size)
{
    char *out = malloc(size + 1), *o = out;
    if (!out)
        return NULL;
    const char *p = data, *end = data + size;
    for (const char *hit; (hit = memmem(p, (size_t)(end - p), key, klen)); p = hit + klen) {
        memcpy(o, p, (size_t)(hit - p) + KEEP);
        o += (hit - p) + KEEP;
        memcpy(o, MASK, sizeof MASK - 1); /* KEEP + 4 <= klen: never longer than the key it replaces */
        o += sizeof MASK - 1;
    }
    memcpy(o, p, (size_t)(end - p));
    o += end - p;
    *out_size = (size_t)(o - out);
    return out;
}

/* libcurl's own output of a report when the host set no callback (only with verbose). */
static void print_default(const lg_curl_rec *r, curl_infotype type, const char *data, size_t size)
{
    static const char prefix[][3] = {"* ", "< ", "> "};
    if (!r->verbose || type > CURLINFO_HEADER_OUT)
        return;
    FILE *f = r->stderr_fp ? r->stderr_fp : stderr;
    fwrite(prefix[type], 2, 1, f);
    fwrite(data, size, 1, f);
}

int lg_curl_debug_relay(CURL *h, curl_infotype type, char *data, size_t size, void *userp)
{
    const lg_curl_debug *d = userp;
    const lg_curl_rec *r = d->rec;
    size_t klen = d->key ? strlen(d->key) : 0;
    char *copy = NULL;
    if (klen >= KEEP + sizeof MASK - 1 && memmem(data, size, d->key, klen)) {
        copy = masked(data, size, d->key, klen, &size);
        if (!copy)
            return 0; /* nothing shown rather than the key */
        data = copy;
    }
    int rc = 0;
    if (r->debugfn)
        rc = r->debugfn(h, type, data, size, r->debugdata);
    else
        print_default(r, type, data, size);
    if (copy) {
        explicit_bzero(copy, size);
        free(copy);
    }
    return rc;
}
