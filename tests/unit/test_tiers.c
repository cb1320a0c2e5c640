/* Unit tests of the OpenAI usage-tier presets (src/conf/tiers.c) and their use in the config. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "llmgate/config.h"
#include "llmgate/limiter.h"

static void published_table(void **state)
{
    (void)state;
    const struct {
        const char *tier;
        int64_t gpt4o_rpm, gpt4o_tpm, o1_rpm, o1_tpm;
    } rows[] = {
        {"free", 500, 30000, 500, 30000},        {"tier-1", 500, 30000, 500, 30000},
        {"tier-2", 5000, 450000, 1000, 100000},  {"tier-3", 5000, 800000, 1000, 100000},
        {"tier-4", 10000, 2000000, 10000, 200000}, {"tier-5", 10000, 30000000, 10000, 200000},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        int64_t rpm = 0, tpm = 0;
        assert_true(lg_tier_limits(rows[i].tier, "gpt-4o", &rpm, &tpm));
        assert_int_equal(rpm, rows[i].gpt4o_rpm);
        assert_int_equal(tpm, rows[i].gpt4o_tpm);
        assert_true(lg_tier_limits(rows[i].tier, "o1", &rpm, &tpm));
        assert_int_equal(rpm, rows[i].o1_rpm);
        assert_int_equal(tpm, rows[i].o1_tpm);
    }
}

static void model_families(void **state)
{
    (void)state;
    int64_t rpm, tpm;
    const char *o1[] = {"o1", "o1-mini", "o1-preview-2024-09-12", "o3-mini", "o4-mini-2025-04-16", "o3"};
    for (size_t i = 0; i < sizeof o1 / sizeof o1[0]; i++) {
        assert_true(lg_tier_limits("tier-2", o1[i], &rpm, &tpm));
        assert_int_equal(tpm, 100000);
    }
    const char *gpt[] = {"gpt-4o", "gpt-4o-mini", "gpt-4.1", "", "omni-moderation-latest", "chatgpt-4o-latest"};
    for (size_t i = 0; i < sizeof gpt / sizeof gpt[0]; i++) {
        assert_true(lg_tier_limits("tier-2", gpt[i], &rpm, &tpm));
        assert_int_equal(tpm, 450000);
    }
    assert_true(lg_tier_limits("tier-2", NULL, &rpm, &tpm));
    assert_int_equal(rpm, 5000);
}

static void spellings(void **state)
{
    (void)state;
    const char *known[] = {"tier-3", "Tier-3", "tier3", "TIER_3", "free", "Free"};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        assert_true(lg_tier_known(known[i]));
    const char *unknown[] = {"tier-6", "tier-0", "tier", "tier-22", "enterprise", "", "tier-3x", NULL};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++)
        assert_false(lg_tier_known(unknown[i]));
    int64_t rpm = -1, tpm = -1;
    assert_false(lg_tier_limits("tier-9", "gpt-4o", &rpm, &tpm));
    assert_int_equal(rpm, -1);
}

static void config_accepts_known_tiers_only(void **state)
{
    (void)state;
    lg_errors errs = {0};
    const char *good = "{\"providers\": {\"openai\": {\"limits\": {\"tier\": \"tier-2\"}}}}";
    lg_config *c = lg_config_parse(good, strlen(good), "t", false, &errs);
    assert_non_null(c);
    assert_string_equal(c->providers[0].limits.tier, "tier-2");
    lg_config_free(c);
    const char *bad = "{\"providers\": {\"openai\": {\"limits\": {\"tier\": \"tier-9\"}}}}";
    assert_null(lg_config_parse(bad, strlen(bad), "t", false, &errs));
    assert_true(errs.n >= 1);
    assert_non_null(strstr(errs.items[0], "providers.openai.limits.tier: unknown tier \"tier-9\""));
    lg_errors_free(&errs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(published_table),
        cmocka_unit_test(model_families),
        cmocka_unit_test(spellings),
        cmocka_unit_test(config_accepts_known_tiers_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
