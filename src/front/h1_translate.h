/* The response of an attempt the socket/TLS front end sent to another dialect than the host's, made the
 * host's (translate.h): a committed stream through a stream translator as it is relayed, re-framed as
 * chunks (its length changes); a whole body at delivery, through lg_capture_translate (answer_translate.h). */
#ifndef LLMGATE_FRONT_H1_TRANSLATE_H
#define LLMGATE_FRONT_H1_TRANSLATE_H

#include <stdbool.h>
#include <stddef.h>

#include "llmgate/boundary.h"

/* Emits a translated stream's header block (lines with CRLF, the last one blank) as the host gets it:
 * without the target's framing lines, with Transfer-Encoding: chunked. False when emit refused. */
bool lg_h1_tr_headers(char *const *lines, size_t n, lg_emit_fn emit, void *ctx);

#endif
