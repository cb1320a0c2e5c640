/* Unit tests of the charge model per dialect (src/limiter/charge.c): the tokens reserved at admission, what
 * the provider counted once it answered (OpenAI keeps a named max_tokens and refused requests, Anthropic
 * and the others count the usage, Gemini the input only), the learned charge only raising it, and the
 * bounded calibration of the prompt estimate per model. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "llmgate/limiter.h"

static lg_estimate estimate(int64_t text, int64_t envelope, int64_t output, const char *model)
{
    lg_estimate e = {.text = text, .envelope = envelope, .output = output};
    strcpy(e.model, model);
    return e;
}

static lg_outcome success(int64_t prompt, int64_t completion)
{
    return (lg_outcome){.state = LG_STATE_SUCCESS, .has_usage = true, .prompt_tokens = prompt,
                        .completion_tokens = completion};
}

/* Before any usage of the model the prompt is the envelope; the output is the named limit, or the default;
 * Gemini and plain hosts count no output. */
static void admission_charge_per_dialect(void **state)
{
    (void)state;
    lg_estimate named = estimate(10, 40, 200, "m"), unnamed = estimate(10, 40, -1, "m");
    assert_int_equal(lg_charge_admit(LG_DIALECT_OPENAI, &named, NULL), 40 + 200);
    assert_int_equal(lg_charge_admit(LG_DIALECT_ANTHROPIC, &unnamed, NULL), 40 + LG_ESTIMATE_DEFAULT_OUTPUT);
    assert_int_equal(lg_charge_admit(LG_DIALECT_GOOGLE, &named, NULL), 40);
    assert_int_equal(lg_charge_admit(LG_DIALECT_NONE, &named, NULL), 40);
    static lg_window w;
    assert_int_equal(lg_charge_admit(LG_DIALECT_OPENAI, &named, &w), 40 + 200); /* nothing calibrated */
    lg_charge_calibrate(&w, &named, 25);                                          /* 2.5 x the text */
    assert_int_equal(lg_charge_admit(LG_DIALECT_OPENAI, &named, &w), 25 + 200);
    lg_estimate other = estimate(10, 40, 200, "other-model");
    assert_int_equal(lg_charge_admit(LG_DIALECT_OPENAI, &other, &w), 40 + 200);   /* per model */
}

static void settled_to_what_the_provider_counted(void **state)
{
    (void)state;
    bool keep;
    lg_estimate named = estimate(10, 40, 200, "m"), unnamed = estimate(10, 40, -1, "m");
    lg_outcome ok = success(43, 8);
    /* OpenAI: the real prompt plus the named max_tokens, never refunded */
    assert_int_equal(lg_charge_settle(LG_DIALECT_OPENAI, &named, 240, &ok, -1, &keep), 43 + 200);
    assert_true(keep);
    /* ... more output than named (it cannot be, but the usage is what was counted then) */
    lg_outcome big = success(43, 300);
    assert_int_equal(lg_charge_settle(LG_DIALECT_OPENAI, &named, 240, &big, -1, &keep), 43 + 300);
    /* no limit named: the default reserved was a guess, the usage is the best figure */
    assert_int_equal(lg_charge_settle(LG_DIALECT_OPENAI, &unnamed, 1064, &ok, -1, &keep), 43 + 8);
    /* Anthropic, DashScope, Baidu: output as produced; Gemini: input only */
    assert_int_equal(lg_charge_settle(LG_DIALECT_ANTHROPIC, &named, 240, &ok, -1, &keep), 51);
    assert_int_equal(lg_charge_settle(LG_DIALECT_DASHSCOPE, &named, 240, &ok, -1, &keep), 51);
    assert_int_equal(lg_charge_settle(LG_DIALECT_GOOGLE, &named, 40, &ok, -1, &keep), 43);
    /* a success without usage keeps its reservation */
    lg_outcome bare = {.state = LG_STATE_SUCCESS};
    assert_int_equal(lg_charge_settle(LG_DIALECT_ANTHROPIC, &named, 240, &bare, -1, &keep), 240);
}

static void refusals_and_errors(void **state)
{
    (void)state;
    bool keep;
    lg_estimate e = estimate(10, 40, 200, "m");
    lg_outcome refused = {.state = LG_STATE_RETRYABLE_RATE_LIMIT, .reason = LG_REASON_RATE_LIMIT_EXCEEDED};
    lg_outcome failed = {.state = LG_STATE_PROVIDER_DOWN, .reason = LG_REASON_SERVER_ERROR};
    /* OpenAI: unsuccessful requests count against the per-minute limit; a refusal's tokens never entered */
    assert_int_equal(lg_charge_settle(LG_DIALECT_OPENAI, &e, 240, &refused, -1, &keep), 0);
    assert_true(keep);
    assert_int_equal(lg_charge_settle(LG_DIALECT_OPENAI, &e, 240, &failed, -1, &keep), 240);
    assert_true(keep);
    /* a key out of quota is locked for hours: its refused request leaves the window */
    lg_outcome quota = {.state = LG_STATE_RETRYABLE_RATE_LIMIT, .reason = LG_REASON_QUOTA_EXHAUSTED};
    assert_int_equal(lg_charge_settle(LG_DIALECT_OPENAI, &e, 240, &quota, -1, &keep), 0);
    assert_false(keep);
    /* Anthropic documents nothing of refused requests: they leave; an error generates no tokens */
    assert_int_equal(lg_charge_settle(LG_DIALECT_ANTHROPIC, &e, 240, &refused, -1, &keep), 0);
    assert_false(keep);
    assert_int_equal(lg_charge_settle(LG_DIALECT_ANTHROPIC, &e, 240, &failed, -1, &keep), 0);
    assert_true(keep);
}

/* The charge read from the headers can only raise the settlement (a provider replenishing continuously
 * makes it an underestimate, never an overestimate); refusals ignore it. */
static void learned_charge_only_raises(void **state)
{
    (void)state;
    bool keep;
    lg_estimate unnamed = estimate(10, 40, -1, "m");
    lg_outcome ok = success(43, 8);
    assert_int_equal(lg_charge_settle(LG_DIALECT_OPENAI, &unnamed, 1064, &ok, 4139, &keep), 4139);
    assert_int_equal(lg_charge_settle(LG_DIALECT_OPENAI, &unnamed, 1064, &ok, 30, &keep), 51);
    lg_outcome refused = {.state = LG_STATE_RETRYABLE_RATE_LIMIT};
    assert_int_equal(lg_charge_settle(LG_DIALECT_ANTHROPIC, &unnamed, 1064, &refused, 500, &keep), 0);
}

/* The ratio is averaged over reports, bounded, and the table keeps LG_CALIB_MODELS models: a new one
 * evicts the least used. */
static void calibration_is_averaged_bounded_and_bounded_in_size(void **state)
{
    (void)state;
    static lg_window w;
    lg_estimate e = estimate(100, 400, 0, "gpt");
    lg_charge_calibrate(&w, &e, 200);
    assert_int_equal(lg_charge_admit(LG_DIALECT_OPENAI, &e, &w), 200);
    lg_charge_calibrate(&w, &e, 100); /* (2000 x 3 + 1000) / 4 */
    assert_int_equal(lg_charge_admit(LG_DIALECT_OPENAI, &e, &w), 175);
    lg_charge_calibrate(&w, &e, 0);   /* no report: ignored */
    assert_int_equal(lg_charge_admit(LG_DIALECT_OPENAI, &e, &w), 175);
    lg_estimate tiny = estimate(1, 400, 0, "tiny");
    lg_charge_calibrate(&w, &tiny, 1000000);
    assert_int_equal(lg_charge_admit(LG_DIALECT_OPENAI, &tiny, &w), LG_CALIB_MAX / 1000);
    lg_estimate huge = estimate(1000000, 400, 0, "huge");
    lg_charge_calibrate(&w, &huge, 1);
    assert_int_equal(lg_charge_admit(LG_DIALECT_OPENAI, &huge, &w), (1000000 * LG_CALIB_MIN + 999) / 1000);
    char name[16];
    for (int i = 0; i < LG_CALIB_MODELS; i++) { /* "gpt" has two reports, the others fewer */
        strcpy(name, "m0");
        name[1] = (char)('0' + i);
        lg_estimate m = estimate(100, 400, 0, name);
        lg_charge_calibrate(&w, &m, 300);
        assert_int_equal(lg_charge_admit(LG_DIALECT_OPENAI, &m, &w), 300);
    }
    assert_int_equal(lg_charge_admit(LG_DIALECT_OPENAI, &e, &w), 175); /* the most used survives */
    assert_int_equal(lg_charge_admit(LG_DIALECT_OPENAI, &tiny, &w), 400); /* evicted: the envelope again */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(admission_charge_per_dialect),
        cmocka_unit_test(settled_to_what_the_provider_counted),
        cmocka_unit_test(refusals_and_errors),
        cmocka_unit_test(learned_charge_only_raises),
        cmocka_unit_test(calibration_is_averaged_bounded_and_bounded_in_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
