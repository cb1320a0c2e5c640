/* The relay's local certificate authority (see relay.h): made at first use in the user's state directory
 * (key 0600), its certificate constrained (X.509 name constraints) to the configured providers' host
 * names, so that its key cannot vouch for any other site; leaf certificates short-lived and in memory. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509v3.h>

#include "llmgate/small_file.h"
#include "relay/relay.h"

bool lg_relay_ca_paths(char *cert, char *key, char *hosts, size_t size)
{
    char dir[4096];
    const char *state = secure_getenv("XDG_STATE_HOME"), *home = secure_getenv("HOME");
    if (state && state[0] == '/')
        snprintf(dir, sizeof dir, "%s/llmgate", state);
    else if (home && home[0] == '/')
        snprintf(dir, sizeof dir, "%s/.local/state/llmgate", home);
    else
        return false;
    for (char *p = dir + 1; (p = strchr(p, '/')); p++) { /* the parents as mkdir -p makes them */
        *p = '\0';
        mkdir(dir, 0700);
        *p = '/';
    }
    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
        return false;
    return snprintf(cert, size, "%s/relay-ca.pem", dir) < (int)size &&
           snprintf(key, size, "%s/relay-ca.key", dir) < (int)size &&
           snprintf(hosts, size, "%s/relay-ca.hosts", dir) < (int)size;
}

/* True when line (ending in a newline) is one of the lines of l. */
static bool listed(const char *l, const char *line)
{
    for (const char *p = l; (p = strstr(p, line)); p++)
        if (p == l || p[-1] == '\n')
            return true;
    return false;
}

/* The name constraints of cfg's hosts, one "permitted;DNS:NAME," each ("*.x" as x), then every address
 * excluded, into a malloc'ed text; its hosts alone, one a line, into *list. */
static char *constraints(const lg_config *cfg, char **list)
{
    size_t cap = 256;
    for (size_t i = 0; i < cfg->n_providers; i++)
        for (size_t j = 0; j < cfg->providers[i].n_hosts; j++)
            cap += strlen(cfg->providers[i].hosts[j]) + 32;
    char *s = calloc(1, cap), *l = calloc(1, cap);
    if (!s || !l) {
        free(s);
        free(l);
        return NULL;
    }
    strcpy(s, "critical");
    for (size_t i = 0; i < cfg->n_providers; i++)
        for (size_t j = 0; j < cfg->providers[i].n_hosts; j++) {
            const char *h = cfg->providers[i].hosts[j];
            if (!strncmp(h, "*.", 2))
                h += 2;
            if (!*h || strspn(h, "0123456789.:") == strlen(h)) /* an address is no name to vouch for */
                continue;
            char line[300];
            snprintf(line, sizeof line, "%s\n", h);
            if (listed(l, line))
                continue;
            strcat(l, line);
            strcat(s, ",permitted;DNS:");
            strcat(s, h);
        }
    if (!*l)
        strcat(s, ",permitted;DNS:invalid"); /* no provider host: a CA for nothing */
    strcat(s, ",excluded;IP:0.0.0.0/0.0.0.0,excluded;IP:::/::");
    *list = l;
    return s;
}

/* Adds extension nid with value v to x (issuer ca_cert, NULL: self). */
static bool add_ext(X509 *x, X509 *issuer, int nid, const char *v)
{
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, issuer ? issuer : x, x, NULL, NULL, 0);
    X509_EXTENSION *e = X509V3_EXT_nconf_nid(NULL, &ctx, nid, v);
    bool ok = e && X509_add_ext(x, e, -1);
    X509_EXTENSION_free(e);
    return ok;
}

/* The subject of every leaf: a constant, so that one directoryName subtree of the webpki form of the
 * constraints (lg_relay_ca_write_webpki) permits it; the leaf's name is in its subjectAltName. */
#define LEAF_ORG "llmgate relay"

/* A certificate with a random serial, subject field=value, valid from an hour ago for `seconds`. */
static X509 *cert_new(const char *field, const char *value, EVP_PKEY *key, long seconds)
{
    X509 *x = X509_new();
    unsigned char serial[16];
    if (!x || RAND_bytes(serial, sizeof serial) != 1) {
        X509_free(x);
        return NULL;
    }
    serial[0] &= 0x7f;
    BIGNUM *bn = BN_bin2bn(serial, sizeof serial, NULL);
    X509_NAME *name = X509_get_subject_name(x);
    bool ok = bn && X509_set_version(x, 2) && BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(x)) &&
              X509_gmtime_adj(X509_getm_notBefore(x), -3600) && X509_gmtime_adj(X509_getm_notAfter(x), seconds) &&
              X509_NAME_add_entry_by_txt(name, field, MBSTRING_UTF8, (const unsigned char *)value, -1, -1, 0) &&
              X509_set_pubkey(x, key);
    BN_free(bn);
    if (!ok) {
        X509_free(x);
        return NULL;
    }
    return x;
}

static EVP_PKEY *ec_key(void) { return EVP_EC_gen("P-256"); }

void lg_relay_ca_free(lg_relay_ca *ca)
{
    X509_free(ca->cert);
    EVP_PKEY_free(ca->key);
    EVP_PKEY_free(ca->leaf_key);
    memset(ca, 0, sizeof *ca);
}

bool lg_relay_write_file(const char *path, const char *text, size_t n, mode_t mode)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode);
    if (fd < 0)
        return false;
    bool ok = fchmod(fd, mode) == 0 && write(fd, text, n) == (ssize_t)n;
    ok = close(fd) == 0 && ok && rename(tmp, path) == 0;
    if (!ok)
        unlink(tmp);
    return ok;
}

/* PEM of a certificate or private key in a malloc'ed text. */
static char *pem_of(X509 *x, EVP_PKEY *k, size_t *n)
{
    BIO *b = BIO_new(BIO_s_mem());
    char *out = NULL, *p;
    if (b && (x ? PEM_write_bio_X509(b, x) : PEM_write_bio_PrivateKey(b, k, NULL, NULL, 0, NULL, NULL))) {
        long len = BIO_get_mem_data(b, &p);
        if ((out = malloc((size_t)len + 1))) {
            memcpy(out, p, (size_t)len);
            out[len] = '\0';
            *n = (size_t)len;
        }
    }
    BIO_free(b);
    return out;
}

bool lg_relay_ca_make(const lg_config *cfg, lg_relay_ca *ca, char *err, size_t errlen)
{
    char cpath[4096], kpath[4096], hpath[4096];
    memset(ca, 0, sizeof *ca);
    if (!lg_relay_ca_paths(cpath, kpath, hpath, sizeof cpath)) {
        snprintf(err, errlen, "no state directory for the local CA (set XDG_STATE_HOME or HOME)");
        return false;
    }
    char *list = NULL, *nc = constraints(cfg, &list);
    ca->key = ec_key();
    ca->cert =
        ca->key && nc ? cert_new("CN", "llmgate local CA (provider names only)", ca->key, 3650L * 86400) : NULL;
    bool ok = ca->cert && X509_set_issuer_name(ca->cert, X509_get_subject_name(ca->cert)) &&
              add_ext(ca->cert, NULL, NID_basic_constraints, "critical,CA:TRUE,pathlen:0") &&
              add_ext(ca->cert, NULL, NID_key_usage, "critical,keyCertSign,cRLSign") &&
              add_ext(ca->cert, NULL, NID_subject_key_identifier, "hash") &&
              add_ext(ca->cert, NULL, NID_name_constraints, nc) && X509_sign(ca->cert, ca->key, EVP_sha256());
    size_t kn = 0, cn = 0;
    char *kpem = ok ? pem_of(NULL, ca->key, &kn) : NULL, *cpem = kpem ? pem_of(ca->cert, NULL, &cn) : NULL;
    ok = cpem && lg_relay_write_file(kpath, kpem, kn, 0600) && lg_relay_write_file(cpath, cpem, cn, 0644) &&
         lg_relay_write_file(hpath, list, strlen(list), 0600);
    if (kpem)
        OPENSSL_cleanse(kpem, kn);
    free(kpem);
    free(cpem);
    free(nc);
    free(list);
    ca->leaf_key = ok ? ec_key() : NULL;
    if (!ok || !ca->leaf_key) {
        snprintf(err, errlen, "cannot make the local CA in %s", cpath);
        lg_relay_ca_free(ca);
        return false;
    }
    return true;
}

bool lg_relay_ca_open(const lg_config *cfg, lg_relay_ca *ca, char *err, size_t errlen)
{
    char cpath[4096], kpath[4096], hpath[4096];
    memset(ca, 0, sizeof *ca);
    if (!lg_relay_ca_paths(cpath, kpath, hpath, sizeof cpath))
        return lg_relay_ca_make(cfg, ca, err, errlen);
    char *list = NULL, *nc = constraints(cfg, &list);
    lg_small_file h = {0};
    struct stat st;
    bool same = nc && lg_small_file_read(hpath, O_NOFOLLOW, 1 << 20, 0, &h) && !strcmp(h.data, list) &&
                stat(kpath, &st) == 0 && st.st_uid == geteuid() && (st.st_mode & 077) == 0;
    lg_small_file_free(&h);
    free(nc);
    free(list);
    FILE *cf = same ? fopen(cpath, "re") : NULL, *kf = cf ? fopen(kpath, "re") : NULL;
    if (cf)
        ca->cert = PEM_read_X509(cf, NULL, NULL, NULL);
    if (kf)
        ca->key = PEM_read_PrivateKey(kf, NULL, NULL, NULL);
    if (cf)
        fclose(cf);
    if (kf)
        fclose(kf);
    if (!ca->cert || !ca->key || X509_check_private_key(ca->cert, ca->key) != 1) {
        lg_relay_ca_free(ca);
        return lg_relay_ca_make(cfg, ca, err, errlen);
    }
    if (!(ca->leaf_key = ec_key())) {
        lg_relay_ca_free(ca);
        snprintf(err, errlen, "cannot make a key");
        return false;
    }
    return true;
}

bool lg_relay_ca_write_cert(const lg_relay_ca *ca, const char *path)
{
    size_t n = 0;
    char *pem = pem_of(ca->cert, NULL, &n);
    bool ok = pem && lg_relay_write_file(path, pem, n, 0644);
    free(pem);
    return ok;
}

X509 *lg_relay_ca_leaf(const lg_relay_ca *ca, const char *name)
{
    X509 *x = cert_new("O", LEAF_ORG, ca->leaf_key, 86400);
    char san[300];
    snprintf(san, sizeof san, "DNS:%s", name);
    if (x && X509_set_issuer_name(x, X509_get_subject_name(ca->cert)) &&
        add_ext(x, ca->cert, NID_basic_constraints, "critical,CA:FALSE") &&
        add_ext(x, ca->cert, NID_key_usage, "critical,digitalSignature") &&
        add_ext(x, ca->cert, NID_ext_key_usage, "serverAuth") && add_ext(x, ca->cert, NID_subject_alt_name, san) &&
        add_ext(x, ca->cert, NID_authority_key_identifier, "keyid:always") && X509_sign(x, ca->key, EVP_sha256()))
        return x;
    X509_free(x);
    return NULL;
}

/* Appends the DER element tag/body (n bytes) to the buffer b (*len used of cap); false when it is full. */
static bool der_put(unsigned char *b, size_t *len, size_t cap, unsigned tag, const unsigned char *body, size_t n)
{
    unsigned char head[4] = {(unsigned char)tag, (unsigned char)n};
    size_t h = 2; /* the length in its shortest form, as DER (and webpki) require */
    if (n >= 128 && n < 256) {
        head[1] = 0x81;
        head[2] = (unsigned char)n;
        h = 3;
    } else if (n >= 256) {
        head[1] = 0x82;
        head[2] = (unsigned char)(n >> 8);
        head[3] = (unsigned char)n;
        h = 4;
    }
    if (n > 0xffff || *len + h + n > cap)
        return false;
    memcpy(b + *len, head, h);
    memcpy(b + *len + h, body, n);
    *len += h + n;
    return true;
}

/* Appends to b the element tag { SEQUENCE { body } } (webpki 0.22's subtree list, one SEQUENCE deeper). */
static bool der_wrap(unsigned char *b, size_t *len, size_t cap, unsigned tag, const unsigned char *body, size_t n)
{
    unsigned char seq[4200];
    size_t sl = 0;
    return der_put(seq, &sl, sizeof seq, 0x30, body, n) && der_put(b, len, cap, tag, seq, sl);
}

/* Appends to b one subtree of webpki 0.22's reading of the name constraints: SEQUENCE { GeneralName tag,
 * the name's bytes }. */
static bool webpki_subtree(unsigned char *b, size_t *len, size_t cap, unsigned tag, const unsigned char *v, size_t n)
{
    unsigned char name[600];
    size_t nl = 0;
    return der_put(name, &nl, sizeof name, tag, v, n) && der_put(b, len, cap, 0x30, name, nl);
}

/* The name constraints of nc as webpki 0.22 (Debian's, under rustls 0.20) reads them, into b (*len): it
 * expects each subtree list wrapped in one more SEQUENCE than RFC 5280's encoding has ([0] { SEQUENCE {
 * subtree... } }), and matches a leaf's subject against a directoryName subtree by comparing the subject's
 * contents with the subtree's bytes; the leaves' constant subject is therefore permitted in that form,
 * next to the DNS names and the excluded addresses of nc. */
static bool webpki_constraints(const NAME_CONSTRAINTS *nc, unsigned char *b, size_t *len, size_t cap)
{
    unsigned char perm[4096], excl[512], both[4800];
    size_t pl = 0, el = 0, bl = 0;
    bool ok = true;
    for (int i = 0; ok && i < sk_GENERAL_SUBTREE_num(nc->permittedSubtrees); i++) {
        GENERAL_NAME *g = sk_GENERAL_SUBTREE_value(nc->permittedSubtrees, i)->base;
        if (g->type == GEN_DNS)
            ok = webpki_subtree(perm, &pl, sizeof perm, 0x82, g->d.dNSName->data, (size_t)g->d.dNSName->length);
    }
    for (int i = 0; ok && i < sk_GENERAL_SUBTREE_num(nc->excludedSubtrees); i++) {
        GENERAL_NAME *g = sk_GENERAL_SUBTREE_value(nc->excludedSubtrees, i)->base;
        if (g->type == GEN_IPADD)
            ok = webpki_subtree(excl, &el, sizeof excl, 0x87, g->d.iPAddress->data, (size_t)g->d.iPAddress->length);
    }
    X509_NAME *leaf = X509_NAME_new();
    unsigned char *dn = NULL;
    int dl = leaf && X509_NAME_add_entry_by_txt(leaf, "O", MBSTRING_UTF8, (const unsigned char *)LEAF_ORG, -1, -1, 0)
                 ? i2d_X509_NAME(leaf, &dn)
                 : -1;
    size_t skip = dl > 1 && (dn[1] & 0x80) ? 2u + (dn[1] & 0x7f) : 2u; /* the subject's contents: its header off */
    ok = ok && dl > (int)skip && webpki_subtree(perm, &pl, sizeof perm, 0xa4, dn + skip, (size_t)dl - skip) &&
         der_wrap(both, &bl, sizeof both, 0xa0, perm, pl) &&
         (!el || der_wrap(both, &bl, sizeof both, 0xa1, excl, el)) && der_put(b, len, cap, 0x30, both, bl);
    OPENSSL_free(dn);
    X509_NAME_free(leaf);
    return ok;
}

bool lg_relay_ca_write_webpki(const lg_relay_ca *ca, const char *path)
{
    NAME_CONSTRAINTS *nc = X509_get_ext_d2i(ca->cert, NID_name_constraints, NULL, NULL);
    unsigned char der[5000];
    size_t n = 0;
    X509 *t = nc && webpki_constraints(nc, der, &n, sizeof der) ? X509_dup(ca->cert) : NULL;
    X509_EXTENSION *old = t ? X509_delete_ext(t, X509_get_ext_by_NID(t, NID_name_constraints, -1)) : NULL;
    ASN1_OCTET_STRING *v = old ? ASN1_OCTET_STRING_new() : NULL;
    X509_EXTENSION *e = v && ASN1_OCTET_STRING_set(v, der, (int)n)
                            ? X509_EXTENSION_create_by_NID(NULL, NID_name_constraints, 1, v)
                            : NULL;
    size_t pn = 0;
    char *pem = e && X509_add_ext(t, e, -1) && X509_sign(t, ca->key, EVP_sha256()) ? pem_of(t, NULL, &pn) : NULL;
    bool ok = pem && lg_relay_write_file(path, pem, pn, 0644);
    free(pem);
    X509_EXTENSION_free(e);
    ASN1_OCTET_STRING_free(v);
    X509_EXTENSION_free(old);
    X509_free(t);
    NAME_CONSTRAINTS_free(nc);
    return ok;
}
