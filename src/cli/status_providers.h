/* The provider-wide part of `llmgate status`: each provider's circuit breaker, the requests it handed to a
 * fallback and its traffic that went out ungated, read from the providers' shared slots. */
#ifndef LLMGATE_CLI_STATUS_PROVIDERS_H
#define LLMGATE_CLI_STATUS_PROVIDERS_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>

#include "llmgate/store.h"

typedef struct {
    char name[LG_NAME_MAX];
    lg_breaker breaker;
    uint64_t fell_back;
    uint64_t ungated;
} lg_status_prov;

typedef struct {
    lg_status_prov *v;
    size_t n, cap;
    bool oom;
} lg_status_provs;

/* Reads every provider slot of s into p (names validated as for accounts; corrupt ones skipped).
 * Returns lg_store_visit_providers's status. Free p->v. */
int lg_status_provs_read(lg_store *s, lg_status_provs *p);

/* Text: one line per provider whose breaker is not closed, ever opened, or that fell back or went ungated. */
void lg_status_provs_text(const lg_status_provs *p, int64_t now);
/* JSON: "breaker" {state, open_remaining_ms, opened}, "fell_back" and "ungated" under providers[name]. */
bool lg_status_provs_json(const lg_status_provs *p, cJSON *providers, int64_t now);
/* Prometheus: llmgate_breaker_open, llmgate_breaker_opened_total, llmgate_fell_back_total,
 * llmgate_ungated_total. */
void lg_status_provs_prometheus(const lg_status_provs *p, void (*label)(const char *));

#endif
