/* Event log: one line per event, written with one write(). Silent unless LLMGATE_DEBUG=1 (stderr) or
 * LLMGATE_LOG=PATH (append) or the config's log.file. Never logs key material. Preserves errno. */
#ifndef LLMGATE_LOG_H
#define LLMGATE_LOG_H

#include "llmgate/config.h"

/* Reads LLMGATE_DEBUG / LLMGATE_LOG and the config's log settings. Safe to call again after fork. */
void lg_log_init(const lg_config *cfg);
/* Cold: a call marks its path as rare, so GCC moves it out of the hot code (a request that succeeds logs
 * nothing). */
void lg_log(lg_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3), cold));
/* True when debug lines go out (set by lg_log_init only). A hot path's debug trace tests it before calling
 * lg_log: one predictable branch instead of a call when debugging is off. */
extern bool lg_log_debugging;
/* One notice line on stderr even when logging is off ("llmgate: ..."): at most one per request (nothing
 * when *once, the request's own flag, is already set; set when the line is printed) and, within the
 * process, at most once per min_interval_ms for the same key string. */
void lg_notice(bool *once, const char *key, int64_t min_interval_ms, const char *fmt, ...)
    __attribute__((format(printf, 4, 5), cold));

/* Re-initialises the log's process-local lock in a child after fork. */
void lg_log_after_fork(void);

#endif
