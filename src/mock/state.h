/* The mock provider's shared state: per-key windows, scripted-sequence positions, counters and the
 * request log, behind one mutex held only briefly. */
#ifndef MOCK_STATE_H
#define MOCK_STATE_H

#include <stdint.h>

#include "mock/limits.h"
#include "mock/request.h"
#include "mock/scenario.h"
#include "mock/stats.h"

#define MOCK_LOG_SIZE 200

typedef enum {
    MOCK_PLAN_SUCCESS,     /* admitted: answer normally */
    MOCK_PLAN_LIMITED,     /* over the key's limits: verdict says which */
    MOCK_PLAN_STEP,        /* answer with the scripted step */
    MOCK_PLAN_RANDOM,      /* a random error with random_status */
    MOCK_PLAN_BAD_REQUEST, /* the body is not JSON, too large, or refused by --strict */
} mock_plan_kind;

typedef struct {
    mock_plan_kind kind;
    const mock_step *step; /* the scripted step this request consumed, or NULL; its delay, chunk and
                              truncate modifiers apply to whatever the answer is */
    int random_status;
    mock_limits limits;    /* the key's effective limits */
    mock_verdict verdict;  /* the window's verdict (SUCCESS / LIMITED) */
    int64_t serial;        /* numbers the answer: "mock-<serial>" */
    int64_t tag_count;     /* requests so far (this one included) with this request's x-mock-tag; 0: none */
} mock_plan;

/* Sets up the state. sc (may be NULL) must outlive the state; defaults are the command line's limits. */
void mock_state_init(const mock_scenario *sc, const mock_limits *defaults, uint64_t seed);
void mock_state_free(void);
/* Decides how to answer req (scripted step, random error, window admission), counts the request (its
 * arrival, whatever the answer) and its outcome, and logs it with its arrival time. */
void mock_state_plan(const mock_request *req, mock_plan *plan);
/* Clears counters, windows, sequence positions and the request log; re-seeds the random errors. */
void mock_state_reset(void);
/* The /__stats document: {"keys": {KEY: counts}, "total": counts}, and "tags": {TAG: requests} when
 * requests carried an x-mock-tag header. malloc'ed. */
char *mock_state_stats_json(void);
/* The /__requests document: a JSON array of the last MOCK_LOG_SIZE requests, oldest first. malloc'ed. */
char *mock_state_requests_json(void);

#endif
