/* llmgate relay [--config FILE] [--port N] [--addr-file PATH] [--idle SECONDS] [--listen ADDR:PORT] and llmgate ca
 * show|rotate|remove [--config FILE]: the relay for programs with their own TLS, and its local CA. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include "cli/commands.h"
#include "llmgate/config.h"
#include "llmgate/log.h"
#include "relay/relay.h"

/* The configuration of file (NULL: the searched one), its problems on stderr. */
static lg_config *load(const char *file, const char *command)
{
    lg_errors errs = {0};
    lg_config *cfg = lg_config_load(file, &errs);
    for (size_t i = 0; i < errs.n; i++)
        fprintf(stderr, "llmgate %s: %s\n", command, errs.items[i]);
    lg_errors_free(&errs);
    return cfg;
}

int lg_cmd_relay(int argc, char **argv)
{
    const char *file = NULL, *addr = NULL, *listen_on = NULL;
    int port = 0, idle = 0;
    bool name = false;
    for (int i = 1; i < argc; i++) {
        bool more = i + 1 < argc;
        if (!strcmp(argv[i], "--name"))
            name = true;
        else if (!strcmp(argv[i], "--config") && more)
            file = argv[++i];
        else if (!strcmp(argv[i], "--listen") && more)
            listen_on = argv[++i];
        else if (!strcmp(argv[i], "--addr-file") && more)
            addr = argv[++i];
        else if (!strcmp(argv[i], "--port") && more)
            port = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--idle") && more)
            idle = atoi(argv[++i]);
        else {
            fputs("usage: llmgate relay [--config FILE] [--port N] [--addr-file PATH] [--idle SECONDS] [--name]\n"
                  "       llmgate relay --listen ADDRESS:PORT [--config FILE] [--idle SECONDS]\n", stderr);
            return 2;
        }
    }
    if (port < 0 || port > 65535 || idle < 0) {
        fputs("llmgate relay: --port 0..65535, --idle 0 or more seconds\n", stderr);
        return 2;
    }
    char abs[PATH_MAX], n[LG_DIGEST_HEX];
    if (name) { /* the name its files carry in the runtime directory */
        bool ok = file && realpath(file, abs) && lg_relay_name(abs, n);
        if (ok)
            puts(n);
        return ok ? 0 : 1;
    }
    lg_config *cfg = load(file, "relay");
    if (!cfg)
        return 2;
    lg_log_init(cfg);
    int rc = lg_relay_run(cfg, port, addr, idle, listen_on);
    lg_config_free(cfg);
    return rc;
}

/* Prints the CA's file, subject, validity and name constraints. */
static int ca_show(const char *cpath, const char *kpath)
{
    FILE *f = fopen(cpath, "re");
    X509 *x = f ? PEM_read_X509(f, NULL, NULL, NULL) : NULL;
    if (f)
        fclose(f);
    if (!x) {
        printf("no local CA (%s); the relay makes one at first use\n", cpath);
        return 0;
    }
    BIO *out = BIO_new_fp(stdout, BIO_NOCLOSE);
    BIO_printf(out, "certificate: %s\nkey:         %s\nsubject:     ", cpath, kpath);
    X509_NAME_print_ex(out, X509_get_subject_name(x), 0, XN_FLAG_ONELINE);
    BIO_printf(out, "\nnot after:   ");
    ASN1_TIME_print(out, X509_get0_notAfter(x));
    BIO_printf(out, "\npermitted names:\n");
    NAME_CONSTRAINTS *nc = X509_get_ext_d2i(x, NID_name_constraints, NULL, NULL);
    for (int i = 0; nc && i < sk_GENERAL_SUBTREE_num(nc->permittedSubtrees); i++) {
        GENERAL_NAME *g = sk_GENERAL_SUBTREE_value(nc->permittedSubtrees, i)->base;
        if (g->type == GEN_DNS)
            BIO_printf(out, "  %.*s\n", ASN1_STRING_length(g->d.dNSName), ASN1_STRING_get0_data(g->d.dNSName));
    }
    NAME_CONSTRAINTS_free(nc);
    BIO_free(out);
    X509_free(x);
    return 0;
}

int lg_cmd_ca(int argc, char **argv)
{
    const char *file = NULL, *what = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--config") && i + 1 < argc)
            file = argv[++i];
        else if (!what && (!strcmp(argv[i], "show") || !strcmp(argv[i], "rotate") || !strcmp(argv[i], "remove")))
            what = argv[i];
        else
            what = "?";
    }
    if (!what || !strcmp(what, "?")) {
        fputs("usage: llmgate ca show|rotate|remove [--config FILE]\n", stderr);
        return 2;
    }
    char cpath[4096], kpath[4096], hpath[4096];
    if (!lg_relay_ca_paths(cpath, kpath, hpath, sizeof cpath)) {
        fputs("llmgate ca: no state directory (set XDG_STATE_HOME or HOME)\n", stderr);
        return 1;
    }
    if (!strcmp(what, "show"))
        return ca_show(cpath, kpath);
    if (!strcmp(what, "remove")) {
        bool gone = (unlink(kpath) == 0 || errno == ENOENT) & (unlink(cpath) == 0 || errno == ENOENT) &
                    (unlink(hpath) == 0 || errno == ENOENT);
        printf(gone ? "removed the local CA (%s)\n" : "cannot remove the local CA (%s)\n", cpath);
        return gone ? 0 : 1;
    }
    lg_config *cfg = load(file, "ca");
    if (!cfg)
        return 2;
    lg_relay_ca ca;
    char err[256];
    bool ok = lg_relay_ca_make(cfg, &ca, err, sizeof err);
    lg_config_free(cfg);
    if (!ok) {
        fprintf(stderr, "llmgate ca: %s\n", err);
        return 1;
    }
    lg_relay_ca_free(&ca);
    printf("made a new local CA (%s); running relays keep the old one until they exit\n", cpath);
    return 0;
}
