/* OpenAI usage-tier presets ("limits": {"tier": "tier-2"}): requests and tokens per minute by tier and
 * model family. The figures are the table in the Triggerfish rate-limiting documentation
 * (docs/features/rate-limiting.md, "built-in defaults for OpenAI's published tier limits"); actual limits
 * depend on the account, and the provider's own x-ratelimit-* headers refine them at run time. */
#include <ctype.h>
#include <string.h>

#include "llmgate/limiter.h"

typedef struct {
    const char *name;
    int64_t gpt4o_tpm, gpt4o_rpm, o1_tpm, o1_rpm;
} tier_row;

static const tier_row tiers[] = {
    {"free", 30000, 500, 30000, 500},
    {"tier-1", 30000, 500, 30000, 500},
    {"tier-2", 450000, 5000, 100000, 1000},
    {"tier-3", 800000, 5000, 100000, 1000},
    {"tier-4", 2000000, 10000, 200000, 10000},
    {"tier-5", 30000000, 10000, 200000, 10000},
};

/* The row named by s: "free", "tier-N", "tierN", "tier_N", "tier N", any case. */
static const tier_row *find_tier(const char *s)
{
    if (!s)
        return NULL;
    char norm[16];
    size_t n = 0;
    for (; *s && n + 1 < sizeof norm; s++) {
        char c = (char)tolower((unsigned char)*s);
        if (c == '_' || c == ' ')
            c = '-';
        norm[n++] = c;
    }
    if (*s)
        return NULL;
    norm[n] = '\0';
    if (!strncmp(norm, "tier", 4) && isdigit((unsigned char)norm[4]) && norm[5] == '\0') {
        memmove(norm + 5, norm + 4, 2);
        norm[4] = '-';
    }
    for (size_t i = 0; i < sizeof tiers / sizeof tiers[0]; i++)
        if (!strcmp(norm, tiers[i].name))
            return &tiers[i];
    return NULL;
}

/* True for OpenAI's reasoning models (o1, o3, o4 families: "o1", "o1-mini", "o3-mini-2025-01-31"). */
static bool reasoning_family(const char *model)
{
    return model && model[0] == 'o' && isdigit((unsigned char)model[1]) &&
           (model[2] == '\0' || model[2] == '-' || model[2] == '.' || isdigit((unsigned char)model[2]));
}

bool lg_tier_known(const char *tier)
{
    return find_tier(tier) != NULL;
}

bool lg_tier_limits(const char *tier, const char *model, int64_t *rpm, int64_t *tpm)
{
    const tier_row *t = find_tier(tier);
    if (!t)
        return false;
    bool o1 = reasoning_family(model);
    *rpm = o1 ? t->o1_rpm : t->gpt4o_rpm;
    *tpm = o1 ? t->o1_tpm : t->gpt4o_tpm;
    return true;
}
