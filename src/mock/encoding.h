/* Content coding of the mock's answers: like the real providers, it compresses an answer with gzip when
 * the request accepts it (Accept-Encoding), so that hosts and llmgate meet compressed bodies here too. */
#ifndef MOCK_ENCODING_H
#define MOCK_ENCODING_H

#include <stdbool.h>

#include "mock/reply.h"
#include "mock/request.h"

/* True when q's Accept-Encoding lists gzip (or x-gzip, or *) with a q-value above zero. */
bool mock_accepts_gzip(const mock_request *q);
/* Compresses r's body with gzip and adds Content-Encoding: gzip, when r is an answer sent whole (not
 * streamed, chunked or truncated) with a body; r is left as it was when compression fails. */
void mock_reply_gzip(mock_reply *r);

#endif
