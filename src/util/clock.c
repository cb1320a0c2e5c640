/* Wall and monotonic clocks in milliseconds; an interruption-safe sleep. */
#include <errno.h>
#include <time.h>

#include "llmgate/clock.h"

static int64_t clock_ms(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t lg_now_ms(void) { return clock_ms(CLOCK_REALTIME); }

int64_t lg_mono_ms(void) { return clock_ms(CLOCK_MONOTONIC); }

void lg_sleep_ms(int64_t ms)
{
    if (ms <= 0)
        return;
    int saved = errno;
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000};
    while (nanosleep(&ts, &ts) == -1 && errno == EINTR) {
    }
    errno = saved;
}
