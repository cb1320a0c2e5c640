/* llmgate run [--config FILE] [--] CMD [ARGS]: runs CMD with libllmgate.so first in LD_PRELOAD. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/java_trust.h"
#include "cli/libpath.h"
#include "llmgate/config.h"
#include "llmgate/elf.h"
#include "llmgate/small_file.h"
#include "relay/relay.h"
#include <openssl/x509.h>

/* Resolves cmd through PATH like execvp would. */
static bool resolve_command(const char *cmd, char *out, size_t size)
{
    if (strchr(cmd, '/'))
        return snprintf(out, size, "%s", cmd) < (int)size;
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        size_t len = strcspn(path, ":");
        snprintf(out, size, "%.*s/%s", (int)len, path, cmd);
        if (access(out, X_OK) == 0)
            return true;
        path += len + (path[len] == ':');
    }
    return false;
}

/* How a program is reached: the preload alone, or the relay (as its HTTPS proxy: Go; by the preload's
 * connect hook: its own TLS library, Node.js; a Java runtime; a Rust program with rustls). */
typedef enum { REACH_PRELOAD, REACH_GO, REACH_OWN_TLS, REACH_JAVA, REACH_RUSTLS } reach_kind;

/* What the program is, in the words of llmgate run's line, per reach_kind. */
static const char *const what[] = {"", "is a Go program (its own HTTP and TLS)",
                                   "carries its own TLS library (as Node.js does)",
                                   "is a Java runtime (its own TLS, JSSE)",
                                   "is a Rust program with rustls (its own TLS)"};

/* How the program in file is reached; *why: what cannot be reached in it when nothing can (a static
 * binary, a Rust program with rustls), else NULL (or the file is no ELF: a script's interpreter
 * is looked at when it runs). */
static reach_kind reach_of(const char *file, const char **why)
{
    lg_elf_facts f;
    *why = NULL;
    if (!lg_elf_inspect(file, true, &f))
        return REACH_PRELOAD;
    if (f.go)
        return REACH_GO;
    if (!f.has_interp)
        *why = "is statically linked; LD_PRELOAD cannot reach it, it runs ungated";
    else if (f.own_tls && !f.needs_curl)
        return REACH_OWN_TLS;
    else if (f.java)
        return REACH_JAVA;
    else if (f.webpki_roots)
        *why = "is a Rust program with rustls and compiled-in roots (webpki-roots): it cannot be made to trust "
               "the relay, it runs ungated";
    else if (f.rustls)
        return REACH_RUSTLS;
    return REACH_PRELOAD;
}

/* Writes the trust a program of the relay is given: the certificates of the file roots (none: NULL) and
 * the CA certificate the relay uses (file capath), into the state directory; its path into out. */
static bool trust_bundle(const char *roots, const char *capath, char *out, size_t size)
{
    char cpath[4096], kpath[4096], hpath[4096];
    lg_small_file r = {0}, ca = {0};
    char digest[LG_DIGEST_HEX], tmp[4300], both[8700];
    snprintf(both, sizeof both, "%s\n%s", roots ? roots : "", capath);
    lg_key_digest(both, digest);
    bool ok = lg_relay_ca_paths(cpath, kpath, hpath, sizeof cpath) &&
              snprintf(out, size, "%s.bundle-%s", cpath, digest) < (int)size &&
              lg_small_file_read(capath, 0, 1 << 20, 0, &ca);
    if (ok && (!roots || !lg_small_file_read(roots, 0, 16 << 20, 0, &r)))
        r.data = NULL;
    snprintf(tmp, sizeof tmp, "%s.%ld", out, (long)getpid());
    FILE *f = ok ? fopen(tmp, "we") : NULL;
    ok = f && (!r.data || fwrite(r.data, 1, r.len, f) == r.len) && fputs("\n", f) >= 0 &&
         fwrite(ca.data, 1, ca.len, f) == ca.len;
    ok = f && fclose(f) == 0 && ok && rename(tmp, out) == 0;
    lg_small_file_free(&r);
    lg_small_file_free(&ca);
    return ok;
}

/* Writes the trust bundle of roots (the value of the variable var, else fallback; NULL: none) and the CA
 * certificate capath, and sets var to it; false with err filled when it cannot be written. */
static bool trust_var(const char *var, const char *fallback, const char *capath, char *err, size_t esize)
{
    char bundle[4200];
    const char *roots = getenv(var);
    if (!trust_bundle(roots && *roots ? roots : fallback, capath, bundle, sizeof bundle))
        return !snprintf(err, esize, "cannot write the trust bundle");
    setenv(var, bundle, 1);
    return true;
}

/* Leads a program to the relay of the configuration in effect. A Go program: HTTPS_PROXY with the relay's
 * secret, SSL_CERT_FILE with the local CA added to the roots it trusted (NO_PROXY kept). A program that
 * connects through libc: LLMGATE_RELAY for the preload's connect hook, which its children inherit and
 * which leads any of them that carries its own TLS to the relay too; so every such program gets the trust
 * of each kind its children may be: NODE_EXTRA_CA_CERTS merged with the user's (Node.js), SSL_CERT_FILE with
 * the CA in the form webpki reads (rustls-native-certs reads that file; see lg_relay_ca_write_webpki; other
 * readers of SSL_CERT_FILE keep its roots), and for a Java runtime a trust store in JAVA_TOOL_OPTIONS. Says
 * how in one line; false when there is no relay (said too: the program then runs ungated). */
static bool use_relay(const char *cmd, reach_kind kind)
{
    lg_errors errs = {0};
    lg_config *cfg = lg_config_load(NULL, &errs);
    lg_errors_free(&errs);
    char file[PATH_MAX] = "", err[256] = "", secret[LG_RELAY_SECRET_HEX], ca[4300], webpki[4300], *proxy = NULL;
    int port = 0;
    bool go = kind == REACH_GO;
    if (cfg && cfg->source && cfg->source[0] == '/')
        snprintf(file, sizeof file, "%s", cfg->source);
    lg_config_free(cfg);
    if (!*file)
        snprintf(err, sizeof err, "no configuration file");
    bool ok = *file && lg_relay_reach(file, &port, secret, ca, sizeof ca, err, sizeof err);
    size_t cl = strlen(ca);
    ok = ok && cl > 7 && cl + 4 < sizeof webpki;
    if (ok) /* ADDR.ca.pem -> ADDR.webpki.pem */
        snprintf(webpki, sizeof webpki, "%.*s.webpki.pem", (int)(cl - 7), ca);
    const char *sys_roots = X509_get_default_cert_file();
    if (ok && go)
        ok = trust_var("SSL_CERT_FILE", sys_roots, ca, err, sizeof err);
    else if (ok)
        ok = (kind != REACH_JAVA || lg_cli_java_trust(cmd, ca, err, sizeof err)) &&
             trust_var("NODE_EXTRA_CA_CERTS", NULL, ca, err, sizeof err) &&
             trust_var("SSL_CERT_FILE", sys_roots, webpki, err, sizeof err);
    if (ok && asprintf(&proxy, go ? "http://llmgate:%s@127.0.0.1:%d" : "%2$d:%1$s", secret, port) < 0)
        ok = false;
    if (!ok) {
        fprintf(stderr, "llmgate: warning: %s %s; no relay (%s); LD_PRELOAD cannot reach %s\n", cmd, what[kind], err,
                go ? "it, it runs ungated" : "its https requests, they run ungated (plain http is gated)");
        return false;
    }
    if (go) {
        setenv("HTTPS_PROXY", proxy, 1);
        unsetenv("https_proxy");
        fprintf(stderr, "llmgate: %s %s: gated through the relay on 127.0.0.1:%d as its HTTPS proxy\n", cmd,
                what[kind], port);
    } else {
        setenv("LLMGATE_RELAY", proxy, 1);
        fprintf(stderr, "llmgate: %s %s: its https requests to providers are gated through the relay on "
                        "127.0.0.1:%d\n", cmd, what[kind], port);
    }
    free(proxy);
    return true;
}

/* Points LLMGATE_CONFIG at file (absolute), after checking that it loads. */
static int use_config(const char *file)
{
    char abs[PATH_MAX];
    if (!realpath(file, abs)) {
        fprintf(stderr, "llmgate: %s: %s\n", file, strerror(errno));
        return -1;
    }
    lg_errors errs = {0};
    lg_config *cfg = lg_config_load(abs, &errs);
    for (size_t i = 0; i < errs.n; i++)
        fprintf(stderr, "llmgate: %s\n", errs.items[i]);
    lg_errors_free(&errs);
    if (!cfg)
        return -1;
    lg_config_free(cfg);
    setenv("LLMGATE_CONFIG", abs, 1);
    return 0;
}

int lg_cmd_run(int argc, char **argv)
{
    int i = 1;
    while (i < argc && argv[i][0] == '-') {
        if (!strcmp(argv[i], "--")) {
            i++;
            break;
        }
        if (!strcmp(argv[i], "--config") && i + 1 < argc) {
            if (use_config(argv[i + 1]) != 0)
                return 2;
            i += 2;
            continue;
        }
        fprintf(stderr, "llmgate run: unknown option %s\nusage: llmgate run [--config FILE] -- CMD [ARGS]\n",
                argv[i]);
        return 2;
    }
    if (i >= argc) {
        fputs("usage: llmgate run [--config FILE] -- CMD [ARGS]\n", stderr);
        return 2;
    }
    char lib[PATH_MAX], cmd[PATH_MAX];
    if (!lg_cli_find_library(lib, sizeof lib)) {
        fputs("llmgate: cannot find libllmgate.so (looked in $LLMGATE_LIB, beside this program and in "
              LG_LIB_FROM_BIN " from it; set LLMGATE_LIB)\n",
              stderr);
        return 2;
    }
    const char *why = NULL;
    reach_kind kind = resolve_command(argv[i], cmd, sizeof cmd) ? reach_of(cmd, &why) : REACH_PRELOAD;
    if (kind != REACH_PRELOAD)
        use_relay(cmd, kind);
    else if (why)
        fprintf(stderr, "llmgate: warning: %s %s\n", cmd, why);
    const char *old = getenv("LD_PRELOAD");
    char *preload = NULL;
    if (asprintf(&preload, "%s%s%s", lib, old && *old ? " " : "", old && *old ? old : "") < 0)
        return 2;
    setenv("LD_PRELOAD", preload, 1);
    free(preload);
    execvp(argv[i], argv + i);
    fprintf(stderr, "llmgate: %s: %s\n", argv[i], strerror(errno));
    return 127;
}
