/* Scenario files: per-key limits and scripted responses (format in docs/MOCK.md). Loaded once at
 * start; read-only afterwards, so steps can be used without holding any lock. */
#ifndef MOCK_SCENARIO_H
#define MOCK_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mock/limits.h"
#include "mock/reply.h"

typedef enum {
    MOCK_STEP_NORMAL,       /* answer normally (limits apply); only the modifiers below act */
    MOCK_STEP_LITERAL,      /* a literal response, or a replayed fixture */
    MOCK_STEP_ERROR,        /* a dialect-formatted error of kind `error` */
    MOCK_STEP_RESET,        /* close the connection without answering */
    MOCK_STEP_ERROR_IN_200, /* an HTTP 200 carrying a rate-limit error */
} mock_step_kind;

typedef struct {
    mock_step_kind kind;
    int status;             /* LITERAL */
    char *body;             /* LITERAL */
    size_t body_len;
    mock_hdr *headers;      /* LITERAL */
    size_t n_headers;
    bool stream;            /* LITERAL: the body is an event stream */
    int error;              /* ERROR: a mock_error_kind */
    int64_t retry_after_ms; /* ERROR: wait hint, -1 for none given */
    int64_t delay_ms;       /* modifiers, any kind: 0 = none */
    long truncate;          /* -1 = none */
    size_t chunk;           /* 0 = none */
    int64_t chunk_delay_ms;
    int64_t body_delay_ms;  /* 0 = none */
} mock_step;

typedef struct {
    int status;
    double p;
} mock_chance;

typedef struct {
    char *key;          /* the API key, or "*" for every key without an entry of its own */
    mock_limits limits; /* each field -1 when not set */
    mock_step *steps;
    size_t n_steps;
    bool repeat;        /* restart the sequence after its last step */
    mock_chance *chances;
    size_t n_chances;
} mock_key_config;

typedef struct {
    mock_key_config *keys;
    size_t n_keys;
    bool has_seed;
    uint64_t seed;
} mock_scenario;

/* Loads and validates the scenario file at path (fixture paths are relative to its directory).
 * Returns 0, or -1 with a message naming the place and the problem in err. */
int mock_scenario_load(const char *path, mock_scenario *sc, char *err, size_t errlen);
void mock_scenario_free(mock_scenario *sc);
/* The entry for key, else the "*" entry, else NULL. */
const mock_key_config *mock_scenario_find(const mock_scenario *sc, const char *key);

#endif
