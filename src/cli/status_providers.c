/* The provider-wide part of llmgate status (see status_providers.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/status_providers.h"

static void collect(const char *provider, const lg_provider_slot *slot, void *ctx)
{
    lg_status_provs *p = ctx;
    if (p->oom || !lg_cli_name_ok(provider, LG_NAME_MAX))
        return;
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 16;
        lg_status_prov *grown = realloc(p->v, cap * sizeof *grown);
        if (!grown) {
            p->oom = true;
            return;
        }
        p->v = grown;
        p->cap = cap;
    }
    lg_status_prov *e = &p->v[p->n++];
    snprintf(e->name, sizeof e->name, "%s", provider);
    e->breaker = slot->breaker;
    e->fell_back = slot->fell_back;
    e->ungated = slot->ungated;
}

int lg_status_provs_read(lg_store *s, lg_status_provs *p)
{
    memset(p, 0, sizeof *p);
    return lg_store_visit_providers(s, collect, p);
}

/* The breaker's state as now sees it (an open one whose period ended waits for its probe). */
static const char *state_name(const lg_breaker *b, int64_t now)
{
    if (b->state == LG_BREAKER_OPEN)
        return now < b->open_until_ms ? "open" : "half_open";
    return b->state == LG_BREAKER_HALF_OPEN ? "half_open" : "closed";
}

static int64_t open_left(const lg_breaker *b, int64_t now)
{
    return b->state == LG_BREAKER_OPEN && b->open_until_ms > now ? b->open_until_ms - now : 0;
}

void lg_status_provs_text(const lg_status_provs *p, int64_t now)
{
    bool header = false;
    for (size_t i = 0; i < p->n; i++) {
        const lg_status_prov *e = &p->v[i];
        if (e->breaker.state == LG_BREAKER_CLOSED && !e->breaker.opened && !e->fell_back && !e->ungated)
            continue;
        if (!header)
            printf("\n%-24s %-10s %-16s %8s %10s %8s\n", "PROVIDER", "BREAKER", "NEXT PROBE IN", "OPENED", "FELL_BACK",
                   "UNGATED");
        header = true;
        char next[32] = "-";
        int64_t left = open_left(&e->breaker, now);
        if (left)
            snprintf(next, sizeof next, "%llds", (long long)((left + 999) / 1000));
        printf("%-24s %-10s %-16s %8lld %10llu %8llu\n", e->name, state_name(&e->breaker, now), next,
               (long long)e->breaker.opened, (unsigned long long)e->fell_back, (unsigned long long)e->ungated);
    }
}

bool lg_status_provs_json(const lg_status_provs *p, cJSON *providers, int64_t now)
{
    for (size_t i = 0; i < p->n; i++) {
        const lg_status_prov *e = &p->v[i];
        cJSON *prov = cJSON_GetObjectItemCaseSensitive(providers, e->name);
        if (!prov && !(prov = cJSON_AddObjectToObject(providers, e->name)))
            return false;
        cJSON *b = cJSON_AddObjectToObject(prov, "breaker");
        if (!b || !cJSON_AddStringToObject(b, "state", state_name(&e->breaker, now)) ||
            !cJSON_AddNumberToObject(b, "open_remaining_ms", (double)open_left(&e->breaker, now)) ||
            !cJSON_AddNumberToObject(b, "opened", (double)e->breaker.opened) ||
            !cJSON_AddNumberToObject(prov, "fell_back", (double)e->fell_back) ||
            !cJSON_AddNumberToObject(prov, "ungated", (double)e->ungated))
            return false;
    }
    return true;
}

void lg_status_provs_prometheus(const lg_status_provs *p, void (*label)(const char *))
{
    static const struct {
        const char *name, *type, *help;
    } m[] = {
        {"llmgate_breaker_open", "gauge", "1 while the provider's circuit breaker is open or half-open."},
        {"llmgate_breaker_opened_total", "counter", "Times the provider's circuit breaker opened."},
        {"llmgate_fell_back_total", "counter", "Requests handed from this provider to a fallback."},
        {"llmgate_ungated_total", "counter",
         "Connections and requests to this provider that went out ungated, with the program's own key."},
    };
    for (size_t k = 0; k < sizeof m / sizeof m[0]; k++) {
        printf("# HELP %s %s\n# TYPE %s %s\n", m[k].name, m[k].help, m[k].name, m[k].type);
        for (size_t i = 0; i < p->n; i++) {
            const lg_status_prov *e = &p->v[i];
            unsigned long long v = k == 0   ? (unsigned long long)(e->breaker.state != LG_BREAKER_CLOSED)
                                   : k == 1 ? (unsigned long long)e->breaker.opened
                                   : k == 2 ? (unsigned long long)e->fell_back
                                            : (unsigned long long)e->ungated;
            printf("%s{provider=\"", m[k].name);
            label(e->name);
            printf("\"} %llu\n", v);
        }
    }
}
