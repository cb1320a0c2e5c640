/* Error responses llmgate writes itself, in the provider's own format, when it answers without
 * contacting the provider. */
#ifndef LLMGATE_SYNTH_H
#define LLMGATE_SYNTH_H

#include <stdint.h>

#include "llmgate/outcome.h"
#include "llmgate/preset.h"

/* A JSON error body for dialect d saying o->message, with status and the wait (ms, LG_NO_HINT if none):
 * a rate-limit or unavailability error, or, when o->state is NON_RETRYABLE (a local refusal for good), an
 * invalid-request (permission, for 403) error, or an authentication error when o->account_rejected (every
 * key set aside as refused).
 * Caller frees; NULL on allocation failure. */
char *lg_synth_error_body(lg_dialect d, int status, const lg_outcome *o, int64_t retry_after_ms);

#endif
