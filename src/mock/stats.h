/* Counters per key and the request log entries, as the /__stats and /__requests endpoints show them. */
#ifndef MOCK_STATS_H
#define MOCK_STATS_H

#include <stdint.h>

#include <cjson/cJSON.h>

#include "mock/request.h"

typedef enum { MOCK_OUT_SUCCESS, MOCK_OUT_RATE_LIMITED, MOCK_OUT_SERVER_ERROR, MOCK_OUT_OTHER_ERROR } mock_outcome;

typedef struct {
    int64_t requests, success, rate_limited, server_error, other_error;
    int64_t max_in_window; /* largest number of admitted requests within one window */
    int64_t max_arrived_in_window; /* largest number of requests that arrived (admitted or refused, by
                                      the limits or a scripted error) within one window */
    int64_t tokens;        /* prompt + completion tokens of the successful answers */
} mock_counts;

/* Counts one answer with this outcome (and its tokens when it succeeded). */
void mock_counts_add(mock_counts *c, mock_outcome o, int64_t tokens);
/* The outcome an HTTP status stands for: 2xx success, 429 rate limited, 5xx and 529 server error. */
mock_outcome mock_outcome_of_status(int status);
/* {"requests":n,"success":n,"rate_limited":n,"server_error":n,"other_error":n,"max_in_window":n,
 *  "max_arrived_in_window":n,"tokens":n} */
cJSON *mock_counts_json(const mock_counts *c);
/* One /__requests entry for req, printed as compact JSON (malloc'ed): method, path, query, host, key,
 * auth_header_name, dialect, body_len, body_sha256, at_ms (its arrival on the mock's monotonic clock)
 * and headers (names in lower case, repeated names joined with ", "). */
char *mock_log_entry(const mock_request *req, int64_t at_ms);
/* Lower-case hex SHA-256 of data into out (65 bytes; "" when the digest failed). */
void mock_sha256_hex(const char *data, size_t len, char out[65]);

#endif
