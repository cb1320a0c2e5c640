/* Successful answers in each provider dialect's real wire format, plain or streamed. */
#ifndef MOCK_SUCCESS_H
#define MOCK_SUCCESS_H

#include <stdint.h>

#include "mock/reply.h"
#include "mock/request.h"

/* The answer text every success carries (multi-byte UTF-8 on purpose). */
#define MOCK_REPLY_TEXT "你好，世界 — ok"

/* Fills r with a 200 answer to req in req's dialect and endpoint, streamed when req asked for it,
 * with usage prompt_tokens / completion_tokens. serial numbers the response ("mock-<serial>"); the
 * body names the key that served it ("mock_key"). */
void mock_success(mock_reply *r, const mock_request *req, int64_t serial);

#endif
