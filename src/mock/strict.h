/* Strict dialect checks (--strict): the Anthropic and Gemini endpoints refuse bodies their real APIs
 * refuse, with the real 400 answers, so that a translation mistake cannot pass unnoticed. */
#ifndef MOCK_STRICT_H
#define MOCK_STRICT_H

#include <stdbool.h>

#include "mock/reply.h"
#include "mock/request.h"

/* Turns the checks on for every later request (call before serving). */
void mock_strict_enable(bool on);
/* Why q's body breaks its dialect's rules (malloc'd message), or NULL when it does not, when the
 * checks are off, or for endpoints without checks. */
char *mock_strict_violation(const mock_request *q);
/* Fills r with the dialect's 400 answer carrying message: Anthropic's invalid_request_error, Gemini's
 * INVALID_ARGUMENT with a BadRequest detail. */
void mock_strict_error(mock_reply *r, const mock_request *q, const char *message);

#endif
