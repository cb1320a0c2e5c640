/* Parsers for every wait-hint and time format providers use. All round fractional ms up (ceil),
 * return false on malformed or out-of-range input, and never read past the NUL or len given. */
#ifndef LLMGATE_DURATION_H
#define LLMGATE_DURATION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Go duration: "1s", "6m0s", "7.66s", "9m38.016s", "644ms", "1h2m", "20us". */
bool lg_parse_go_duration(const char *s, size_t len, int64_t *ms);
/* protobuf Duration JSON: "40s", "33740.910400305s" (up to 9 fractional digits). */
bool lg_parse_proto_duration(const char *s, size_t len, int64_t *ms);
/* HTTP delta-seconds ("20", "1.5" tolerated). */
bool lg_parse_delta_seconds(const char *s, size_t len, int64_t *ms);
/* HTTP-date (IMF-fixdate, RFC 850, asctime) to Unix ms. */
bool lg_parse_http_date(const char *s, size_t len, int64_t *unix_ms);
/* RFC 3339 / ISO 8601 ("2024-03-26T20:00:00Z", "...+08:00", fractional seconds) to Unix ms. */
bool lg_parse_rfc3339(const char *s, size_t len, int64_t *unix_ms);

/* A server wait hint longer than this (a date in 2999, a broken clock) is absurd: ignored, not clamped. */
#define LG_HINT_ABSURD_MS (366LL * 86400000)

/* A relative wait hint made sane: -1 (no hint) when negative or longer than LG_HINT_ABSURD_MS, else
 * min(ms, max_ms). */
int64_t lg_hint_clamp(int64_t ms, int64_t max_ms);

#endif
