/* Response classification: pure, no I/O, never crashes on any input. */
#ifndef LLMGATE_CLASSIFY_H
#define LLMGATE_CLASSIFY_H

#include <stdint.h>

#include "llmgate/http.h"
#include "llmgate/outcome.h"
#include "llmgate/preset.h"

/* Classifies one complete (or, for streams, partial) response in the given dialect. Absolute resume times
 * become retry_after_ms relative to the response's Date header, or retry_at_ms when it has none. */
void lg_classify(lg_dialect d, const lg_response_view *r, lg_outcome *out);

#endif
