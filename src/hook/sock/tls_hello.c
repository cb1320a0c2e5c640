/* The ClientHello table (see tls_hello.h). */
#include <pthread.h>
#include <stdbool.h>
#include <string.h>

#include "hook/base/runtime.h"
#include "hook/sock/tls_hello.h"

#define SLOTS 64
#define RANDOM_LEN 32
#define RANDOM_AT 11 /* record header 5, handshake header 4, client version 2 */

typedef struct {
    int fd;
    unsigned char random[RANDOM_LEN];
    bool used;
} slot;

static slot table[SLOTS];
static size_t next_slot;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void after_fork(void) { pthread_mutex_init(&lock, NULL); }
static void register_fork(void) { lg_runtime_on_fork_child(after_fork); }

void lg_tls_hello_sent(int fd, const void *p, size_t n)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    const unsigned char *b = p;
    if (n < RANDOM_AT + RANDOM_LEN || b[0] != 0x16 || b[1] != 0x03 || b[5] != 0x01)
        return;
    pthread_once(&once, register_fork);
    pthread_mutex_lock(&lock);
    slot *s = &table[next_slot++ % SLOTS];
    s->fd = fd;
    memcpy(s->random, b + RANDOM_AT, RANDOM_LEN);
    s->used = true;
    pthread_mutex_unlock(&lock);
}

int lg_tls_hello_fd(const unsigned char *random)
{
    int fd = -1;
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < SLOTS && fd < 0; i++)
        if (table[i].used && !memcmp(table[i].random, random, RANDOM_LEN))
            fd = table[i].fd;
    pthread_mutex_unlock(&lock);
    return fd;
}
