/* Finding or starting the relay of one user and configuration (see relay.h): its address file in the
 * user's runtime directory, named by the digest of the config's path and text; a lock file makes two
 * callers at once start one relay. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "llmgate/clock.h"
#include "llmgate/small_file.h"
#include "relay/relay.h"

#define START_WAIT_MS 5000
#define IDLE_S "600" /* a relay started on demand exits after this long without a connection */

/* The runtime directory of llmgate ($XDG_RUNTIME_DIR/llmgate, else /tmp/llmgate-UID), made 0700. */
static bool run_dir(char *out, size_t size)
{
    const char *d = secure_getenv("XDG_RUNTIME_DIR");
    int n = d && d[0] == '/' ? snprintf(out, size, "%s/llmgate", d)
                             : snprintf(out, size, "/tmp/llmgate-%lu", (unsigned long)geteuid());
    if (n < 0 || (size_t)n >= size || (mkdir(out, 0700) != 0 && errno != EEXIST))
        return false;
    struct stat st;
    return lstat(out, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() && (st.st_mode & 077) == 0;
}

/* The relay of the address file path, when its process lives and its port takes a connection. */
static bool alive(const char *path, int *port, char secret[LG_RELAY_SECRET_HEX])
{
    lg_small_file f = {0};
    long pid = 0;
    char s[64] = "";
    bool ok = lg_small_file_read(path, O_NOFOLLOW, 256, 0, &f) && f.st.st_uid == geteuid() &&
              sscanf(f.data, "%d %63s %ld", port, s, &pid) == 3 && strlen(s) == LG_RELAY_SECRET_HEX - 1 &&
              pid > 0 && kill((pid_t)pid, 0) == 0;
    lg_small_file_free(&f);
    if (!ok)
        return false;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)*port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ok = fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) == 0;
    if (fd >= 0)
        close(fd);
    if (ok)
        memcpy(secret, s, LG_RELAY_SECRET_HEX);
    return ok;
}

/* Starts `llmgate relay` for file in the background (its own session, not preloaded, its output to log). */
static bool start(const char *file, const char *addr, const char *log)
{
    pid_t pid = fork();
    if (pid < 0)
        return false;
    if (pid == 0) {
        if (setsid() < 0 || fork() != 0 || chdir("/") != 0)
            _exit(0);
        unsetenv("LD_PRELOAD");
        int null = open("/dev/null", O_RDWR | O_CLOEXEC), out = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
        if (null >= 0)
            dup2(null, 0), dup2(null, 1);
        if (out >= 0)
            dup2(out, 2);
        execl("/proc/self/exe", "llmgate", "relay", "--config", file, "--addr-file", addr, "--idle", IDLE_S,
              (char *)NULL);
        _exit(127);
    }
    int st;
    waitpid(pid, &st, 0);
    return true;
}

bool lg_relay_name(const char *file, char name[LG_DIGEST_HEX])
{
    lg_small_file f = {0};
    if (!lg_small_file_read(file, 0, 1 << 20, 0, &f))
        return false;
    char *both = malloc(strlen(file) + f.len + 2);
    if (both)
        sprintf(both, "%s\n%s", file, f.data);
    lg_small_file_free(&f);
    if (both)
        lg_key_digest(both, name);
    free(both);
    return both != NULL;
}

bool lg_relay_reach(const char *file, int *port, char secret[LG_RELAY_SECRET_HEX], char *ca, size_t casize,
                    char *err, size_t errlen)
{
    char dir[4096], addr[4200], lock[4200], log[4200], digest[LG_DIGEST_HEX];
    if (!lg_relay_name(file, digest)) {
        snprintf(err, errlen, "cannot read %s", file);
        return false;
    }
    if (!run_dir(dir, sizeof dir)) {
        snprintf(err, errlen, "no runtime directory of this user for the relay");
        return false;
    }
    snprintf(addr, sizeof addr, "%s/relay-%s.addr", dir, digest);
    snprintf(lock, sizeof lock, "%s/relay-%s.lock", dir, digest);
    snprintf(log, sizeof log, "%s/relay-%s.log", dir, digest);
    int lfd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (lfd < 0 || flock(lfd, LOCK_EX) != 0) {
        snprintf(err, errlen, "cannot lock %s", lock);
        if (lfd >= 0)
            close(lfd);
        return false;
    }
    bool ok = alive(addr, port, secret);
    if (!ok) {
        unlink(addr); /* a dead relay's file */
        ok = start(file, addr, log);
        for (int64_t until = lg_mono_ms() + START_WAIT_MS; ok && !(ok = alive(addr, port, secret));) {
            ok = lg_mono_ms() < until;
            lg_sleep_ms(20);
        }
        if (!ok)
            snprintf(err, errlen, "the relay did not start (see %s)", log);
    }
    close(lfd);
    snprintf(ca, casize, "%s.ca.pem", addr);
    return ok;
}
