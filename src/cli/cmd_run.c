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

/* What a preload cannot reach in the program in file and what that means, or NULL when it reaches it all
 * (or the file is no ELF: a script's interpreter is looked at when it runs). *go: a Go program (the relay
 * reaches it as its HTTPS proxy). */
static const char *unreachable(const char *file, bool *go, bool *own_tls)
{
    lg_elf_facts f;
    if (!lg_elf_inspect(file, true, &f))
        return NULL;
    if ((*go = f.go))
        return "is a Go program (its own HTTP and TLS); LD_PRELOAD cannot reach it, it runs ungated";
    if (!f.has_interp)
        return "is statically linked; LD_PRELOAD cannot reach it, it runs ungated";
    if ((*own_tls = f.own_tls && !f.needs_curl))
        return "carries its own TLS library (as Node.js does); LD_PRELOAD cannot reach its https requests, "
               "they run ungated (plain http is gated)";
    return NULL;
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

/* Leads a program to the relay of the configuration in effect. A Go program: HTTPS_PROXY with the relay's
 * secret, SSL_CERT_FILE with the local CA added to the roots it trusted (NO_PROXY kept). A program with its
 * own TLS library that connects through libc (Node.js): LLMGATE_RELAY for the preload's connect hook,
 * NODE_EXTRA_CA_CERTS with the local CA added to the user's. Says how in one line; false when there is no
 * relay (said too: the program then runs ungated). */
static bool use_relay(const char *cmd, bool go)
{
    lg_errors errs = {0};
    lg_config *cfg = lg_config_load(NULL, &errs);
    lg_errors_free(&errs);
    char file[PATH_MAX] = "", err[256] = "", secret[LG_RELAY_SECRET_HEX], bundle[4200], ca[4300], *proxy = NULL;
    int port = 0;
    if (cfg && cfg->source && cfg->source[0] == '/')
        snprintf(file, sizeof file, "%s", cfg->source);
    lg_config_free(cfg);
    if (!*file)
        snprintf(err, sizeof err, "no configuration file");
    bool ok = *file && lg_relay_reach(file, &port, secret, ca, sizeof ca, err, sizeof err);
    const char *roots = getenv(go ? "SSL_CERT_FILE" : "NODE_EXTRA_CA_CERTS");
    if (!roots || !*roots)
        roots = go ? X509_get_default_cert_file() : NULL;
    if (ok && !trust_bundle(roots, ca, bundle, sizeof bundle))
        ok = !snprintf(err, sizeof err, "cannot write the trust bundle");
    if (ok && asprintf(&proxy, go ? "http://llmgate:%s@127.0.0.1:%d" : "%2$d:%1$s", secret, port) < 0)
        ok = false;
    if (!ok) {
        if (go)
            fprintf(stderr, "llmgate: warning: %s is a Go program (its own HTTP and TLS); no relay (%s); "
                            "LD_PRELOAD cannot reach it, it runs ungated\n", cmd, err);
        else
            fprintf(stderr, "llmgate: warning: %s carries its own TLS library (as Node.js does); no relay (%s); "
                            "LD_PRELOAD cannot reach its https requests, they run ungated (plain http is gated)\n",
                    cmd, err);
        return false;
    }
    if (go) {
        setenv("HTTPS_PROXY", proxy, 1);
        unsetenv("https_proxy");
        setenv("SSL_CERT_FILE", bundle, 1);
        fprintf(stderr, "llmgate: %s is a Go program (its own HTTP and TLS): gated through the relay on "
                        "127.0.0.1:%d as its HTTPS proxy\n", cmd, port);
    } else {
        setenv("LLMGATE_RELAY", proxy, 1);
        setenv("NODE_EXTRA_CA_CERTS", bundle, 1);
        fprintf(stderr, "llmgate: %s carries its own TLS library (as Node.js does): its https requests to "
                        "providers are gated through the relay on 127.0.0.1:%d\n", cmd, port);
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
    bool go = false, own_tls = false;
    const char *why = resolve_command(argv[i], cmd, sizeof cmd) ? unreachable(cmd, &go, &own_tls) : NULL;
    if (go || own_tls)
        use_relay(cmd, go);
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
