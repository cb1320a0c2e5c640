/* Clocks. Shared state uses wall-clock Unix ms (it crosses processes and reboots). */
#ifndef LLMGATE_CLOCK_H
#define LLMGATE_CLOCK_H

#include <stdint.h>

int64_t lg_now_ms(void);       /* CLOCK_REALTIME in ms */
int64_t lg_mono_ms(void);      /* CLOCK_MONOTONIC in ms */
/* Sleeps ms milliseconds, resuming after signals; never holds any lock of ours. */
void lg_sleep_ms(int64_t ms);

#endif
