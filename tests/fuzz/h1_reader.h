/* A provider's side and a host's for reading one HTTP/1.1 response (src/front/h1_response.c) in tests: the
 * server hands its bytes out up to `step` a read, then ends the connection; the host keeps what the relay
 * commits to it (its header lines, then its body) up to MAX_OUT bytes (overflow set past that). Shared by
 * fuzz_h1_response and tests/unit/test_h1_response.c. */
#ifndef LLMGATE_FUZZ_H1_READER_H
#define LLMGATE_FUZZ_H1_READER_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#define MAX_OUT (1 << 18) /* more than a 64 KiB input can relay */

typedef struct {
    const uint8_t *data;
    size_t size, off, step;
} server;

/* The provider's side: up to step bytes a read, then the end of the connection. */
static ssize_t server_recv(void *io, void *p, size_t n)
{
    server *s = io;
    size_t k = s->size - s->off;
    if (k > s->step)
        k = s->step;
    if (k > n)
        k = n;
    memcpy(p, s->data + s->off, k);
    s->off += k;
    return (ssize_t)k;
}

typedef struct {
    char *out; /* the header lines, then the body, the relay committed to the host */
    size_t len;
    bool overflow;
} host;

static bool host_put(host *h, const char *p, size_t n)
{
    if (h->len + n > MAX_OUT) {
        h->overflow = true;
        return true;
    }
    memcpy(h->out + h->len, p, n);
    h->len += n;
    return true;
}

static bool host_headers(void *ctx, char *const *lines, size_t n)
{
    for (size_t i = 0; i < n; i++)
        host_put(ctx, lines[i], strlen(lines[i]));
    return true;
}

static bool host_body(void *ctx, const char *p, size_t n) { return host_put(ctx, p, n); }

#endif
