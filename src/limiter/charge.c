/* The charge model per dialect (see limiter.h and the sources in docs/ARCHITECTURE.md): what a request
 * costs at admission, what the provider counted once it answered, and the calibration of the prompt
 * estimate from the usage responses report. */
#include <string.h>

#include "llmgate/limiter.h"

/* Indexed by lg_dialect. */
static const lg_charge_model models[] = {
    [LG_DIALECT_NONE] = {.output_counted = false},
    /* OpenAI and compatibles: max_tokens counts at admission; unsuccessful requests count. */
    [LG_DIALECT_OPENAI] = {.output_reserved = true, .output_counted = true, .refused_request_counts = true,
                           .error_tokens_count = true},
    /* Anthropic: input estimated at admission and adjusted to the real count, output as it is produced. */
    [LG_DIALECT_ANTHROPIC] = {.output_counted = true},
    /* Gemini: TPM counts input tokens only; a failed request still counts against the quota. */
    [LG_DIALECT_GOOGLE] = {.output_counted = false},
    /* DashScope and Baidu document no more than RPM / TPM: counted as used. */
    [LG_DIALECT_DASHSCOPE] = {.output_counted = true},
    [LG_DIALECT_BAIDU] = {.output_counted = true},
};

const lg_charge_model *lg_charge_model_of(lg_dialect d)
{
    return &models[(unsigned)d < sizeof models / sizeof *models ? d : LG_DIALECT_OPENAI];
}

/* The calibration entry of model hash h on w, or NULL. */
static const lg_calibration *calib_of(const lg_window *w, uint32_t h)
{
    for (int i = 0; i < LG_CALIB_MODELS; i++)
        if (w->calib[i].model == h)
            return &w->calib[i];
    return NULL;
}

/* model_hash, or e's model hashed when it is 0 (not known yet). */
static uint32_t hash_of(const lg_estimate *e, uint32_t model_hash)
{
    return model_hash ? model_hash : lg_model_hash(e->model);
}

int64_t lg_charge_admit(lg_dialect d, const lg_estimate *e, const lg_window *w)
{
    return lg_charge_admit_as(d, e, 0, w);
}

int64_t lg_charge_admit_as(lg_dialect d, const lg_estimate *e, uint32_t model_hash, const lg_window *w)
{
    if (d == LG_DIALECT_NONE)
        return e->envelope;
    const lg_calibration *c = w ? calib_of(w, hash_of(e, model_hash)) : NULL;
    int64_t prompt = c && c->samples ? (e->text * c->ratio_milli + 999) / 1000 : e->envelope;
    const lg_charge_model *m = lg_charge_model_of(d);
    int64_t output = !m->output_counted ? 0 : e->output >= 0 ? e->output : LG_ESTIMATE_DEFAULT_OUTPUT;
    return prompt + output;
}

int64_t lg_charge_settle(lg_dialect d, const lg_estimate *e, int64_t reserved, const lg_outcome *o,
                         int64_t learned, bool *keep_request)
{
    const lg_charge_model *m = lg_charge_model_of(d);
    *keep_request = true;
    if (o->state == LG_STATE_RETRYABLE_RATE_LIMIT) { /* refused: the tokens never entered the window */
        *keep_request = m->refused_request_counts && o->reason != LG_REASON_QUOTA_EXHAUSTED; /* a key out of
                                                     quota is locked for longer than any window anyway */
        return 0;
    }
    int64_t counted = reserved;
    if (o->state != LG_STATE_SUCCESS) {
        counted = m->error_tokens_count ? reserved : 0;
    } else if (o->has_usage) {
        int64_t output = 0;
        if (m->output_counted)
            output = m->output_reserved && e->output > o->completion_tokens ? e->output : o->completion_tokens;
        counted = o->prompt_tokens + output;
    }
    return learned > counted ? learned : counted;
}

void lg_charge_calibrate(lg_window *w, const lg_estimate *e, int64_t real_prompt)
{
    lg_charge_calibrate_as(w, e, 0, real_prompt);
}

void lg_charge_calibrate_as(lg_window *w, const lg_estimate *e, uint32_t model_hash, int64_t real_prompt)
{
    if (real_prompt <= 0 || e->text <= 0)
        return;
    int64_t ratio = real_prompt * 1000 / e->text;
    ratio = ratio < LG_CALIB_MIN ? LG_CALIB_MIN : ratio > LG_CALIB_MAX ? LG_CALIB_MAX : ratio;
    uint32_t h = hash_of(e, model_hash);
    lg_calibration *c = (lg_calibration *)calib_of(w, h);
    if (!c) { /* the free or least used entry makes room */
        c = &w->calib[0];
        for (int i = 1; i < LG_CALIB_MODELS; i++)
            if (w->calib[i].samples < c->samples)
                c = &w->calib[i];
        *c = (lg_calibration){.model = h};
    }
    c->ratio_milli = c->samples ? (c->ratio_milli * 3 + ratio) / 4 : ratio;
    if (c->samples < UINT32_MAX)
        c->samples++;
}
