/* Time zones for spend's days, months and hours (src/util/tz.c): a zone read once from the TZ database's
 * compiled file (TZif, /usr/share/zoneinfo/NAME or $TZDIR/NAME), its transitions kept in memory and
 * looked up without a system call or the process's TZ (a preloaded host's environment is never touched).
 * Past the file's last transition the last offset holds (Debian's files list transitions to 2037). */
#ifndef LLMGATE_TZ_H
#define LLMGATE_TZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct lg_tz {
    size_t n;        /* transitions */
    int64_t *at;     /* their instants (Unix seconds), ascending */
    int32_t *off;    /* the UTC offset (seconds east) from each on */
    int32_t off0;    /* before the first */
} lg_tz;

/* Reads the TZif data (version 2 or later: its 64-bit part; version 1: its 32-bit part) into a new zone;
 * NULL when malformed or memory is short. Pure. */
lg_tz *lg_tz_parse(const unsigned char *data, size_t len);
/* Loads the zone called name (letters, digits, "/", "_", "+", "-", no ".." or leading "/") from $TZDIR or
 * /usr/share/zoneinfo; NULL with why (one line) when it is not a valid name or file. */
lg_tz *lg_tz_load(const char *name, char *why, size_t whylen);
void lg_tz_free(lg_tz *tz);

/* The UTC offset in seconds at the instant utc_s (tz NULL: UTC, 0). */
int32_t lg_tz_offset(const lg_tz *tz, int64_t utc_s);
/* The local day (days since 1970-01-01 in tz's calendar) holding the instant ms. */
int64_t lg_tz_day(const lg_tz *tz, int64_t ms);
/* The instant (Unix ms) local day starts at in tz. */
int64_t lg_tz_day_start(const lg_tz *tz, int64_t day);

#endif
