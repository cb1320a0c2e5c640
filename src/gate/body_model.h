/* The model named by a JSON request body, and the body with another model in its place. */
#ifndef LLMGATE_GATE_BODY_MODEL_H
#define LLMGATE_GATE_BODY_MODEL_H

#include <stdbool.h>
#include <stddef.h>

/* The bytes of the top-level "model" string value (between its quotes, still escaped) in s[0..n): true
 * with [*start, *end) set, false when s is not an object with such a member. */
bool lg_body_model_span(const char *s, size_t n, size_t *start, size_t *end);

/* A copy of s[0..n) with its top-level "model" replaced by model (escaped as JSON), NUL-terminated, its
 * length in *out_len; every other byte is the host's. NULL when s has no such member or on allocation
 * failure. Caller frees. */
char *lg_body_with_model(const char *s, size_t n, const char *model, size_t *out_len);

#endif
