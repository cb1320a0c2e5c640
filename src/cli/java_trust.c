/* The Java trust store of a program of the relay (see java_trust.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/java_trust.h"
#include "llmgate/config.h"
#include "llmgate/java_opts.h"
#include "llmgate/small_file.h"
#include "relay/relay.h"

#define DEFAULT_PASS "changeit" /* the JDK's cacerts */

/* Runs the JDK's keytool (bin) to add the certificate ca to the store file with password pass, out of
 * the user's Java options and silent. True when it succeeded. */
static bool keytool_add(const char *bin, const char *ca, const char *store, const char *pass)
{
    pid_t pid = fork();
    if (pid == 0) {
        unsetenv("JAVA_TOOL_OPTIONS");
        unsetenv("JDK_JAVA_OPTIONS");
        unsetenv("_JAVA_OPTIONS");
        unsetenv("LD_PRELOAD");
        setenv("LLMGATE_STOREPASS", pass, 1);
        int null = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (null >= 0)
            dup2(null, 0), dup2(null, 1), dup2(null, 2);
        execl(bin, "keytool", "-importcert", "-noprompt", "-alias", "llmgate-relay-ca", "-file", ca, "-keystore",
              store, "-storepass:env", "LLMGATE_STOREPASS", (char *)NULL);
        _exit(127);
    }
    int st = 0;
    while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    return pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* The copy of the store src with ca added, at out: made unless one at least as new as src is there. */
static bool make_store(const char *keytool, const char *src, const char *ca, const char *pass, const char *out,
                       char *err, size_t errlen)
{
    struct stat s, o;
    if (stat(src, &s) != 0) {
        snprintf(err, errlen, "no Java trust store %s", src);
        return false;
    }
    if (stat(out, &o) == 0 && o.st_mtime >= s.st_mtime)
        return true;
    lg_small_file f = {0};
    char tmp[4300];
    snprintf(tmp, sizeof tmp, "%s.%ld", out, (long)getpid());
    bool ok = lg_small_file_read(src, 0, 16 << 20, 0, &f) && lg_relay_write_file(tmp, f.data, f.len, 0600) &&
              keytool_add(keytool, ca, tmp, pass) && rename(tmp, out) == 0;
    lg_small_file_free(&f);
    if (!ok) {
        unlink(tmp);
        snprintf(err, errlen, "cannot add the local CA to a copy of the Java trust store %s", src);
    }
    return ok;
}

bool lg_cli_java_trust(const char *java, const char *ca, char *err, size_t errlen)
{
    const char *opts = getenv("JAVA_TOOL_OPTIONS");
    char home[PATH_MAX], src[PATH_MAX + 32], pass[256] = DEFAULT_PASS, keytool[PATH_MAX + 16];
    char cpath[4096], kpath[4096], hpath[4096], digest[LG_DIGEST_HEX], out[4200], *slash;
    lg_small_file c = {0};
    if (!realpath(java, home) || !(slash = strrchr(home, '/')) || (*slash = '\0', !(slash = strrchr(home, '/')))) {
        snprintf(err, errlen, "cannot find the JDK of %s", java);
        return false;
    }
    *slash = '\0'; /* JAVA_HOME: the launcher is JAVA_HOME/bin/java */
    snprintf(keytool, sizeof keytool, "%s/bin/keytool", home);
    lg_java_opt_last(opts, LG_JAVA_OPT_PASS, pass, sizeof pass);
    if (!lg_java_opt_last(opts, LG_JAVA_OPT_STORE, src, sizeof src) &&
        (snprintf(src, sizeof src, "%s/lib/security/jssecacerts", home) >= (int)sizeof src || access(src, R_OK) != 0))
        snprintf(src, sizeof src, "%s/lib/security/cacerts", home);
    if (!lg_relay_ca_paths(cpath, kpath, hpath, sizeof cpath) || !lg_small_file_read(ca, 0, 1 << 20, 0, &c)) {
        snprintf(err, errlen, "no state directory or no CA certificate for the Java trust store");
        return false;
    }
    char *both = NULL;
    bool ok = asprintf(&both, "%s\n%s", src, c.data) >= 0;
    lg_small_file_free(&c);
    if (ok)
        lg_key_digest(both, digest);
    free(both);
    ok = ok && snprintf(out, sizeof out, "%s" LG_JAVA_STORE_MARK "%s", cpath, digest) < (int)sizeof out && !strpbrk(out, " \t\n");
    if (!ok) {
        snprintf(err, errlen, "no path for the Java trust store");
        return false;
    }
    if (!make_store(keytool, src, ca, pass, out, err, errlen))
        return false;
    char *merged = NULL;
    if (asprintf(&merged, "%s%s" LG_JAVA_OPT_STORE "%s", opts && *opts ? opts : "", opts && *opts ? " " : "", out) < 0)
        return false;
    setenv("JAVA_TOOL_OPTIONS", merged, 1);
    free(merged);
    return true;
}
