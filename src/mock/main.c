/* llmgate-mock: a mock LLM provider for the tests and benchmarks (see docs/MOCK.md). Starts the
 * plain (and TLS) daemons, publishes the ports, and runs until SIGTERM or SIGINT. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mock/limited.h"
#include "mock/options.h"
#include "mock/request.h"
#include "mock/scenario.h"
#include "mock/server.h"
#include "mock/state.h"
#include "mock/strict.h"
#include "mock/timer.h"

/* Reads a whole (PEM) file as a string; NULL after printing the reason. */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "re");
    if (!f) {
        fprintf(stderr, "llmgate-mock: %s: %s\n", path, strerror(errno));
        return NULL;
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        fwrite(chunk, 1, n, out);
    fclose(f);
    fclose(out);
    return buf;
}

/* Writes text to path atomically (a temporary file renamed over it). Returns 0 or -1. */
static int write_atomic(const char *path, const char *text)
{
    size_t len = strlen(path) + 32;
    char *tmp = malloc(len);
    if (!tmp)
        return -1;
    snprintf(tmp, len, "%s.tmp.%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int rc = -1;
    if (fd >= 0) {
        size_t n = strlen(text);
        rc = write(fd, text, n) == (ssize_t)n ? 0 : -1;
        if (close(fd) < 0 || rc < 0 || rename(tmp, path) < 0)
            rc = -1;
        if (rc < 0)
            unlink(tmp);
    }
    if (rc < 0)
        fprintf(stderr, "llmgate-mock: cannot write %s: %s\n", path, strerror(errno));
    free(tmp);
    return rc;
}

/* Publishes the ports on stdout and in the port file. */
static int publish(const mock_options *o, int port, int tls_port)
{
    char text[64];
    if (tls_port >= 0)
        snprintf(text, sizeof text, "port=%d\ntls_port=%d\n", port, tls_port);
    else
        snprintf(text, sizeof text, "port=%d\n", port);
    fputs(text, stdout);
    fflush(stdout);
    return o->port_file ? write_atomic(o->port_file, text) : 0;
}

/* Waits for SIGTERM or SIGINT (blocked in every thread, so only this wait sees them). */
static void wait_for_stop(const sigset_t *stop)
{
    int sig;
    while (sigwait(stop, &sig) != 0)
        ;
}

int main(int argc, char **argv)
{
    mock_options o;
    int rc = mock_options_parse(argc, argv, &o);
    if (rc)
        return rc > 0 ? 0 : 2;
    mock_scenario sc = {0};
    char err[1024];
    if (o.scenario && mock_scenario_load(o.scenario, &sc, err, sizeof err) < 0) {
        fprintf(stderr, "llmgate-mock: scenario %s\n", err);
        return 2;
    }
    uint64_t seed = o.has_seed ? o.seed : sc.has_seed ? sc.seed : (uint64_t)time(NULL) ^ (uint64_t)getpid();
    mock_limits defaults = {o.rpm, o.tpm, o.window_ms};
    mock_state_init(&sc, &defaults, seed);
    mock_request_accounting(o.openai_accounting);
    mock_strict_enable(o.strict);
    mock_ratelimit_defaults(!o.no_rl_headers);

    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGINT);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
    signal(SIGPIPE, SIG_IGN);

    char *cert = NULL, *key = NULL;
    if (o.tls_port >= 0 && (!(cert = slurp(o.cert)) || !(key = slurp(o.key))))
        return 2;
    if (mock_timer_start() < 0) {
        fprintf(stderr, "llmgate-mock: cannot start the timer thread\n");
        return 1;
    }
    int port = -1, tls_port = -1;
    struct MHD_Daemon *plain = mock_server_start(o.port, o.threads, NULL, NULL, o.quiet, &port), *tls = NULL;
    if (plain && o.tls_port >= 0)
        tls = mock_server_start(o.tls_port, o.threads, cert, key, o.quiet, &tls_port);
    rc = 1;
    if (plain && (o.tls_port < 0 || tls) && publish(&o, port, tls_port) == 0) {
        if (!o.quiet)
            fprintf(stderr, "llmgate-mock: listening on 127.0.0.1:%d%s\n", port, tls ? " (and TLS)" : "");
        wait_for_stop(&stop);
        rc = 0;
    }
    mock_timer_stop();
    mock_server_stop(tls);
    mock_server_stop(plain);
    mock_state_free();
    mock_scenario_free(&sc);
    free(cert);
    free(key);
    return rc;
}
