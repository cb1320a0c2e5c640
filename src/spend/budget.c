/* Budget rules (see spend.h): which requests a budget covers, its periods (UTC or the configured zone's), whether it admits one more. */
#include <fnmatch.h>
#include <string.h>
#include <time.h>

#include "llmgate/spend.h"

#define HOUR_MS INT64_C(3600000)

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

/* The local day (in tz) the month holding local day starts on, or the next month's when next. */
static int64_t month_first_day(int64_t day, bool next)
{
    time_t t = (time_t)(day * 86400);
    struct tm tm;
    gmtime_r(&t, &tm); /* the local calendar's date: day counts local days */
    tm.tm_mday = 1;
    tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
    if (next && ++tm.tm_mon == 12) {
        tm.tm_mon = 0;
        tm.tm_year++;
    }
    return (int64_t)timegm(&tm) / 86400;
}

int64_t lg_budget_period_start(lg_budget_per per, const lg_tz *tz, int64_t now_ms)
{
    int64_t day = lg_tz_day(tz, now_ms);
    switch (per) {
    case LG_PER_HOUR: {
        int64_t local = now_ms + (int64_t)lg_tz_offset(tz, now_ms / 1000 - (now_ms % 1000 < 0)) * 1000;
        return now_ms - (local % HOUR_MS + HOUR_MS) % HOUR_MS;
    }
    case LG_PER_MONTH: return lg_tz_day_start(tz, month_first_day(day, false));
    default: return lg_tz_day_start(tz, day);
    }
}

int64_t lg_budget_period_end(lg_budget_per per, const lg_tz *tz, int64_t now_ms)
{
    int64_t day = lg_tz_day(tz, now_ms);
    switch (per) {
    case LG_PER_HOUR: return lg_budget_period_start(per, tz, now_ms) + HOUR_MS;
    case LG_PER_MONTH: return lg_tz_day_start(tz, month_first_day(day, true));
    default: return lg_tz_day_start(tz, day + 1);
    }
}

void lg_budget_roll(lg_budget_slot *s, const lg_budget_conf *b, int64_t now_ms)
{
    int64_t start = lg_budget_period_start(b->per, b->tz, now_ms);
    if (s->period_ms != start) {
        s->period_ms = start;
        s->spent_nusd = s->fleet_nusd = s->unflushed_nusd = 0;
    }
}

bool lg_budget_allows(lg_budget_slot *s, const lg_budget_conf *b, int64_t now_ms)
{
    lg_budget_roll(s, b, now_ms);
    if (s->lifted_ms == s->period_ms)
        return true;
    double limit = b->usd * LG_NUSD_PER_USD;
    int64_t fleet = s->fleet_nusd + s->unflushed_nusd, spent = fleet > s->spent_nusd ? fleet : s->spent_nusd;
    return (double)spent + (double)(s->pending_nusd > 0 ? s->pending_nusd : 0) < limit;
}
