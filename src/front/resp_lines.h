/* The header block the host sees for the final response, whatever the transport: the provider's lines
 * as they came, normalized (status rewritten, Retry-After and X-Llmgate-Reason added) when the gate says
 * so, or the block of a 429 llmgate answers itself. Lines carry their CRLF. */
#ifndef LLMGATE_FRONT_RESP_LINES_H
#define LLMGATE_FRONT_RESP_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "llmgate/gate.h"

typedef struct {
    char **lines;
    size_t n;
} lg_lines;

/* Appends a formatted line; false on allocation failure. */
bool lg_lines_add(lg_lines *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void lg_lines_free(lg_lines *l);

/* Retry-After seconds for a wait in ms (rounded up, never negative). */
long lg_retry_after_s(int64_t ms);

/* The provider's block (status line first, blank line last; its status was `status`) with the status line
 * and wait headers rewritten as res says. False on allocation failure. */
bool lg_lines_normalized(lg_lines *out, char *const *lines, size_t n, int status, const lg_gate_result *res);
/* The block of a synthesized refusal (res->status) with a JSON body of body_len bytes. */
bool lg_lines_refused(lg_lines *out, const lg_gate_result *res, size_t body_len);
/* True when the host gets llmgate's own JSON error (lg_synth_error_body, lg_lines_refused) for res: a local
 * refusal, or a normalized failure that came as an event stream (its events are no error a client parses). */
bool lg_lines_synthesized(const lg_gate_result *res, bool event_stream);

#endif
