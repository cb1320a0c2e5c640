/* Timed resumption of suspended connections (see timer.h). */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "llmgate/clock.h"
#include "mock/timer.h"

typedef struct {
    int64_t due_ms; /* monotonic */
    struct MHD_Connection *conn;
} waiter;

static struct {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    pthread_t thread;
    bool running, stopping;
    waiter *w;
    size_t n, cap;
} T = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* Moves the waiters due at now (all of them when everything) into out; returns how many. */
static size_t take_due(int64_t now, bool everything, struct MHD_Connection **out, size_t max)
{
    size_t got = 0;
    for (size_t i = 0; i < T.n && got < max;) {
        if (everything || T.w[i].due_ms <= now) {
            out[got++] = T.w[i].conn;
            T.w[i] = T.w[--T.n];
        } else {
            i++;
        }
    }
    return got;
}

static void *run(void *arg)
{
    (void)arg;
    struct MHD_Connection *due[64];
    pthread_mutex_lock(&T.lock);
    while (!T.stopping) {
        int64_t now = lg_mono_ms(), next = -1;
        size_t got = take_due(now, false, due, 64);
        if (got) {
            pthread_mutex_unlock(&T.lock);
            for (size_t i = 0; i < got; i++)
                MHD_resume_connection(due[i]);
            pthread_mutex_lock(&T.lock);
            continue;
        }
        for (size_t i = 0; i < T.n; i++)
            if (next < 0 || T.w[i].due_ms < next)
                next = T.w[i].due_ms;
        if (next < 0) {
            pthread_cond_wait(&T.wake, &T.lock);
        } else {
            struct timespec ts = {(time_t)(next / 1000), (long)(next % 1000) * 1000000L};
            pthread_cond_timedwait(&T.wake, &T.lock, &ts);
        }
    }
    pthread_mutex_unlock(&T.lock);
    return NULL;
}

int mock_timer_start(void)
{
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&T.wake, &ca);
    pthread_condattr_destroy(&ca);
    if (pthread_create(&T.thread, NULL, run, NULL))
        return -1;
    T.running = true;
    return 0;
}

bool mock_timer_suspend(struct MHD_Connection *conn, int64_t ms)
{
    bool ok = false;
    pthread_mutex_lock(&T.lock);
    if (T.running && !T.stopping) {
        if (T.n == T.cap) {
            size_t cap = T.cap ? T.cap * 2 : 64;
            waiter *w = realloc(T.w, cap * sizeof *w);
            if (w) {
                T.w = w;
                T.cap = cap;
            }
        }
        if (T.n < T.cap) {
            MHD_suspend_connection(conn);
            /* +1: the clock truncates to whole ms, and a delay must never end early */
            T.w[T.n++] = (waiter){lg_mono_ms() + ms + 1, conn};
            pthread_cond_signal(&T.wake);
            ok = true;
        }
    }
    pthread_mutex_unlock(&T.lock);
    return ok;
}

void mock_timer_stop(void)
{
    if (!T.running)
        return;
    struct MHD_Connection *all[64];
    size_t got;
    pthread_mutex_lock(&T.lock);
    T.stopping = true;
    pthread_cond_signal(&T.wake);
    do {
        got = take_due(0, true, all, 64);
        pthread_mutex_unlock(&T.lock);
        for (size_t i = 0; i < got; i++)
            MHD_resume_connection(all[i]);
        pthread_mutex_lock(&T.lock);
    } while (got);
    pthread_mutex_unlock(&T.lock);
    pthread_join(T.thread, NULL);
    T.running = false;
    free(T.w);
    T.w = NULL;
    T.n = T.cap = 0;
}
