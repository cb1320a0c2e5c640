/* What the dialect files (src/providers) share: each one's reader entry, gathered into the classifier's
 * table by readers.c, and OpenAI's error object, whose shape other envelopes carry (Anthropic's). */
#ifndef LLMGATE_PROVIDERS_READERS_H
#define LLMGATE_PROVIDERS_READERS_H

#include "classify/dialects.h"

extern const lg_dialect_reader lg_anthropic_reader, lg_google_reader, lg_baidu_reader, lg_minimax_reader,
    lg_spark_reader, lg_tencent_reader, lg_dashscope_reader, lg_openai_reader;

/* Reads an OpenAI-shaped error object (message or msg, code, type, innererror, OpenRouter's metadata), or
 * a bare message string, into c as an error; false when err is neither (openai.c). */
bool lg_openai_error_object(lg_cls *c, const cJSON *err);

#endif
