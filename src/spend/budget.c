/* Budget rules (see spend.h): which requests a budget covers, its periods (UTC), whether it admits one more. */
#include <fnmatch.h>
#include <string.h>
#include <time.h>

#include "llmgate/spend.h"

#define HOUR_MS INT64_C(3600000)
#define DAY_MS (24 * HOUR_MS)

static bool holds(const char *pattern, const char *value)
{
    if (!pattern)
        return true;
    if (!value)
        value = "";
    return !strcmp(pattern, value) || fnmatch(pattern, value, 0) == 0;
}

bool lg_budget_matches(const lg_budget_conf *b, const lg_spend_key *k)
{
    return holds(b->provider, k->provider) && holds(b->account, k->account) && holds(b->model, k->model) &&
           holds(b->program, k->program);
}

/* The first day of the month holding now_ms (UTC), or of the next month when next. */
static int64_t month_start(int64_t now_ms, bool next)
{
    time_t t = (time_t)(now_ms / 1000);
    struct tm tm;
    gmtime_r(&t, &tm);
    tm.tm_mday = 1;
    tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
    if (next && ++tm.tm_mon == 12) {
        tm.tm_mon = 0;
        tm.tm_year++;
    }
    return (int64_t)timegm(&tm) * 1000;
}

int64_t lg_budget_period_start(lg_budget_per per, int64_t now_ms)
{
    switch (per) {
    case LG_PER_HOUR: return now_ms - now_ms % HOUR_MS;
    case LG_PER_MONTH: return month_start(now_ms, false);
    default: return now_ms - now_ms % DAY_MS;
    }
}

int64_t lg_budget_period_end(lg_budget_per per, int64_t now_ms)
{
    switch (per) {
    case LG_PER_HOUR: return lg_budget_period_start(per, now_ms) + HOUR_MS;
    case LG_PER_MONTH: return month_start(now_ms, true);
    default: return lg_budget_period_start(per, now_ms) + DAY_MS;
    }
}

void lg_budget_roll(lg_budget_slot *s, const lg_budget_conf *b, int64_t now_ms)
{
    int64_t start = lg_budget_period_start(b->per, now_ms);
    if (s->period_ms != start) {
        s->period_ms = start;
        s->spent_nusd = 0;
    }
}

bool lg_budget_allows(lg_budget_slot *s, const lg_budget_conf *b, int64_t now_ms)
{
    lg_budget_roll(s, b, now_ms);
    if (s->lifted_ms == s->period_ms)
        return true;
    double limit = b->usd * LG_NUSD_PER_USD;
    return (double)s->spent_nusd + (double)(s->pending_nusd > 0 ? s->pending_nusd : 0) < limit;
}
