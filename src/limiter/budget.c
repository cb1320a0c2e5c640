/* The retry budget (see resilience.h): counts in one-second buckets over the last ten seconds. */
#include "llmgate/resilience.h"

/* The bucket of now_ms, emptied first when it last counted another second. */
static int bucket(lg_budget *b, int64_t now_ms)
{
    int64_t sec = now_ms / LG_BUDGET_BUCKET_MS;
    int i = (int)(sec % LG_BUDGET_BUCKETS);
    if (b->epoch[i] != sec) {
        b->epoch[i] = sec;
        b->requests[i] = b->retries[i] = 0;
    }
    return i;
}

void lg_budget_note_request(lg_budget *b, int64_t now_ms)
{
    int i = bucket(b, now_ms);
    if (b->requests[i] < UINT32_MAX)
        b->requests[i]++;
}

bool lg_budget_try_retry(lg_budget *b, double ratio, double min_per_s, int64_t now_ms)
{
    int now_i = bucket(b, now_ms);
    int64_t sec = now_ms / LG_BUDGET_BUCKET_MS;
    double requests = 0, retries = 0;
    for (int i = 0; i < LG_BUDGET_BUCKETS; i++) {
        if (b->epoch[i] > sec - LG_BUDGET_BUCKETS && b->epoch[i] <= sec) {
            requests += b->requests[i];
            retries += b->retries[i];
        }
    }
    double allowed = ratio * requests;
    double floor = min_per_s * (LG_BUDGET_BUCKETS * LG_BUDGET_BUCKET_MS / 1000.0);
    if (retries + 1 > (allowed > floor ? allowed : floor))
        return false;
    if (b->retries[now_i] < UINT32_MAX)
        b->retries[now_i]++;
    return true;
}
