/* Shared state of the mock provider (see state.h). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#include "llmgate/clock.h"
#include "mock/errors.h"
#include "mock/state.h"

typedef struct {
    char *key;
    const mock_key_config *cfg; /* the key's scenario entry ("*" when it has none), or NULL */
    mock_limits limits;
    mock_window window;
    mock_window arrivals; /* every request that reached the key, admitted or not */
    mock_counts counts;
    size_t seq_pos;
    UT_hash_handle hh;
} keystate;

/* Requests counted per x-mock-tag header value (a client's own request id: attempts per request). */
typedef struct {
    char *tag;
    int64_t n;
    UT_hash_handle hh;
} tagstate;

static struct {
    pthread_mutex_t lock;
    tagstate *tags;
    const mock_scenario *scenario;
    mock_limits defaults;
    uint64_t seed, rng;
    keystate *keys;
    mock_window all;          /* every admission, for total.max_in_window */
    mock_window all_arrivals; /* every request, for total.max_arrived_in_window */
    mock_counts total;
    int64_t serial;
    char *log[MOCK_LOG_SIZE];
    size_t log_next;
} S = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* splitmix64: a uniform double in [0, 1). */
static double rand01(void)
{
    uint64_t z = (S.rng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return (double)(z >> 11) / 9007199254740992.0;
}

void mock_state_init(const mock_scenario *sc, const mock_limits *defaults, uint64_t seed)
{
    S.scenario = sc;
    S.defaults = *defaults;
    S.seed = S.rng = seed;
    mock_window_init(&S.all);
    mock_window_init(&S.all_arrivals);
}

/* The effective value of one limit: the key's entry, else "*", else the command line. */
static int64_t pick(int64_t own, int64_t any, int64_t dflt)
{
    return own >= 0 ? own : any >= 0 ? any : dflt;
}

static keystate *keystate_get(const char *key)
{
    keystate *k;
    HASH_FIND_STR(S.keys, key, k);
    if (k)
        return k;
    k = calloc(1, sizeof *k);
    if (!k || !(k->key = strdup(key))) {
        free(k);
        return NULL;
    }
    k->cfg = mock_scenario_find(S.scenario, key);
    const mock_key_config *any = mock_scenario_find(S.scenario, "*");
    mock_limits none = {-1, -1, -1};
    const mock_limits *own = k->cfg ? &k->cfg->limits : &none, *all = any ? &any->limits : &none;
    k->limits.rpm = pick(own->rpm, all->rpm, S.defaults.rpm);
    k->limits.tpm = pick(own->tpm, all->tpm, S.defaults.tpm);
    k->limits.window_ms = pick(own->window_ms, all->window_ms, S.defaults.window_ms);
    mock_window_init(&k->window);
    mock_window_init(&k->arrivals);
    HASH_ADD_KEYPTR(hh, S.keys, k->key, strlen(k->key), k);
    return k;
}

/* Counts one request with tag; returns its count so far (0 when out of memory). Under the lock. */
static int64_t count_tag(const char *tag)
{
    tagstate *t;
    HASH_FIND_STR(S.tags, tag, t);
    if (!t) {
        if (!(t = calloc(1, sizeof *t)) || !(t->tag = strdup(tag))) {
            free(t);
            return 0;
        }
        HASH_ADD_KEYPTR(hh, S.tags, t->tag, strlen(t->tag), t);
    }
    return ++t->n;
}

static void free_tags(void)
{
    tagstate *t, *tmp;
    HASH_ITER(hh, S.tags, t, tmp) {
        HASH_DEL(S.tags, t);
        free(t->tag);
        free(t);
    }
}

/* The next scripted step for k, or NULL when its sequence is used up (or it has none). */
static const mock_step *next_step(keystate *k)
{
    const mock_key_config *c = k->cfg;
    if (!c || !c->n_steps || (k->seq_pos >= c->n_steps && !c->repeat))
        return NULL;
    return &c->steps[k->seq_pos++ % c->n_steps];
}

/* A random error status from the key's probabilities, or 0. */
static int roll(const keystate *k)
{
    if (!k->cfg || !k->cfg->n_chances)
        return 0;
    double r = rand01(), acc = 0;
    for (size_t i = 0; i < k->cfg->n_chances; i++) {
        acc += k->cfg->chances[i].p;
        if (r < acc)
            return k->cfg->chances[i].status;
    }
    return 0;
}

static mock_outcome step_outcome(const mock_step *s)
{
    switch (s->kind) {
    case MOCK_STEP_LITERAL: return mock_outcome_of_status(s->status);
    case MOCK_STEP_ERROR:
        return s->error == MOCK_ERR_QUOTA || s->error == MOCK_ERR_RATE_LIMIT ? MOCK_OUT_RATE_LIMITED
               : s->error == MOCK_ERR_OVERLOADED || s->error == MOCK_ERR_SERVER ? MOCK_OUT_SERVER_ERROR
                                                                                 : MOCK_OUT_OTHER_ERROR;
    case MOCK_STEP_ERROR_IN_200: return MOCK_OUT_RATE_LIMITED;
    case MOCK_STEP_RESET: return MOCK_OUT_SERVER_ERROR;
    case MOCK_STEP_NORMAL: break;
    }
    return MOCK_OUT_SUCCESS;
}

/* Decides under the lock; returns the outcome to count and sets *admitted when the request entered
 * the key's window. */
static mock_outcome decide(keystate *k, const mock_request *req, mock_plan *plan, int64_t now, int64_t tokens,
                           bool *admitted)
{
    plan->limits = k->limits;
    if (req->bad_json || req->too_large || req->invalid) {
        plan->kind = MOCK_PLAN_BAD_REQUEST;
        return MOCK_OUT_OTHER_ERROR;
    }
    plan->step = next_step(k);
    if (plan->step && plan->step->kind != MOCK_STEP_NORMAL) {
        plan->kind = MOCK_PLAN_STEP;
        mock_outcome o = step_outcome(plan->step);
        if ((*admitted = o == MOCK_OUT_SUCCESS))
            mock_window_admit(&k->window, &k->limits, now, tokens, true, &plan->verdict);
        return o;
    }
    if ((plan->random_status = roll(k))) {
        plan->kind = MOCK_PLAN_RANDOM;
        return mock_outcome_of_status(plan->random_status);
    }
    mock_window_admit(&k->window, &k->limits, now, tokens, false, &plan->verdict);
    plan->kind = plan->verdict.kind == MOCK_ADMITTED ? MOCK_PLAN_SUCCESS : MOCK_PLAN_LIMITED;
    *admitted = plan->kind == MOCK_PLAN_SUCCESS;
    return plan->kind == MOCK_PLAN_SUCCESS ? MOCK_OUT_SUCCESS : MOCK_OUT_RATE_LIMITED;
}

void mock_state_plan(const mock_request *req, mock_plan *plan)
{
    memset(plan, 0, sizeof *plan);
    int64_t now = lg_mono_ms(), tokens = req->charge_tokens;
    char *log_entry = mock_log_entry(req, now);
    pthread_mutex_lock(&S.lock);
    plan->serial = ++S.serial;
    const char *tag = lg_header_get(req->headers, req->n_headers, "x-mock-tag");
    if (tag && *tag)
        plan->tag_count = count_tag(tag);
    free(S.log[S.log_next]);
    S.log[S.log_next] = log_entry;
    S.log_next = (S.log_next + 1) % MOCK_LOG_SIZE;
    keystate *k = keystate_get(req->key);
    if (!k) {
        plan->kind = MOCK_PLAN_RANDOM;
        plan->random_status = 500;
        pthread_mutex_unlock(&S.lock);
        return;
    }
    mock_verdict ignored;
    mock_window_admit(&k->arrivals, &k->limits, now, 0, true, &ignored);
    mock_window_admit(&S.all_arrivals, &S.defaults, now, 0, true, &ignored);
    bool admitted = false;
    mock_outcome o = decide(k, req, plan, now, tokens, &admitted);
    if (o == MOCK_OUT_SUCCESS && plan->step && plan->step->truncate >= 0)
        o = MOCK_OUT_SERVER_ERROR; /* admitted, but the client never gets the whole answer */
    if (admitted)
        mock_window_admit(&S.all, &S.defaults, now, tokens, true, &ignored);
    k->counts.requests++;
    S.total.requests++;
    mock_counts_add(&k->counts, o, tokens);
    mock_counts_add(&S.total, o, tokens);
    k->counts.max_in_window = k->window.max_in_window;
    S.total.max_in_window = S.all.max_in_window;
    k->counts.max_arrived_in_window = k->arrivals.max_in_window;
    S.total.max_arrived_in_window = S.all_arrivals.max_in_window;
    pthread_mutex_unlock(&S.lock);
}

void mock_state_reset(void)
{
    pthread_mutex_lock(&S.lock);
    for (keystate *k = S.keys; k; k = k->hh.next) {
        mock_window_clear(&k->window);
        mock_window_clear(&k->arrivals);
        memset(&k->counts, 0, sizeof k->counts);
        k->seq_pos = 0;
    }
    mock_window_clear(&S.all);
    mock_window_clear(&S.all_arrivals);
    memset(&S.total, 0, sizeof S.total);
    for (size_t i = 0; i < MOCK_LOG_SIZE; i++) {
        free(S.log[i]);
        S.log[i] = NULL;
    }
    S.log_next = 0;
    S.rng = S.seed;
    free_tags();
    pthread_mutex_unlock(&S.lock);
}

char *mock_state_stats_json(void)
{
    cJSON *o = cJSON_CreateObject(), *keys = cJSON_AddObjectToObject(o, "keys");
    pthread_mutex_lock(&S.lock);
    for (keystate *k = S.keys; k; k = k->hh.next)
        if (k->counts.requests)
            cJSON_AddItemToObject(keys, k->key, mock_counts_json(&k->counts));
    cJSON_AddItemToObject(o, "total", mock_counts_json(&S.total));
    cJSON *tags = S.tags ? cJSON_AddObjectToObject(o, "tags") : NULL;
    for (tagstate *t = S.tags; tags && t; t = t->hh.next)
        cJSON_AddNumberToObject(tags, t->tag, (double)t->n);
    pthread_mutex_unlock(&S.lock);
    char *s = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return s;
}

char *mock_state_requests_json(void)
{
    size_t len = 2;
    pthread_mutex_lock(&S.lock);
    for (size_t i = 0; i < MOCK_LOG_SIZE; i++)
        len += S.log[i] ? strlen(S.log[i]) + 1 : 0;
    char *out = malloc(len + 1), *o = out;
    if (out) {
        *o++ = '[';
        for (size_t n = 0; n < MOCK_LOG_SIZE; n++) {
            const char *e = S.log[(S.log_next + n) % MOCK_LOG_SIZE];
            if (!e)
                continue;
            if (o > out + 1)
                *o++ = ',';
            size_t l = strlen(e);
            memcpy(o, e, l);
            o += l;
        }
        *o++ = ']';
        *o = '\0';
    }
    pthread_mutex_unlock(&S.lock);
    return out;
}

void mock_state_free(void)
{
    keystate *k, *tmp;
    HASH_ITER(hh, S.keys, k, tmp) {
        HASH_DEL(S.keys, k);
        mock_window_free(&k->window);
        mock_window_free(&k->arrivals);
        free(k->key);
        free(k);
    }
    mock_window_free(&S.all);
    free_tags();
    mock_window_free(&S.all_arrivals);
    for (size_t i = 0; i < MOCK_LOG_SIZE; i++) {
        free(S.log[i]);
        S.log[i] = NULL;
    }
}
