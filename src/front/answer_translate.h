/* The response of an attempt sent to another dialect than the host's, made the host's: a whole captured
 * body translated in place (a stream is translated as it is relayed: stream.h). */
#ifndef LLMGATE_FRONT_ANSWER_TRANSLATE_H
#define LLMGATE_FRONT_ANSWER_TRANSLATE_H

#include <stdbool.h>

#include "front/capture.h"
#include "llmgate/translate.h"

/* Replaces cap's body (the target's, of status cap->status: a success or an error) by the host dialect's
 * and its Content-Length line by the new length. False (cap unchanged, reason logged) when the body cannot
 * be translated. */
bool lg_capture_translate(lg_capture *cap, lg_tr_dialect target, lg_tr_dialect host);

#endif
