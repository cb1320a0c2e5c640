/* The translation of one attempt's response when the engine sent it to a provider of another dialect
 * than the host's (gate.h lg_translation), shared by the libcurl and the socket/TLS front ends: the two
 * dialects, and the stream translator a committed stream goes through (a whole body is translated at
 * delivery, lg_capture_translate). */
#ifndef LLMGATE_FRONT_ATTEMPT_TRANSLATE_H
#define LLMGATE_FRONT_ATTEMPT_TRANSLATE_H

#include <stdbool.h>

#include "llmgate/gate.h"
#include "llmgate/translate.h"

typedef struct {
    bool on;               /* the attempt's response must be translated */
    lg_tr_dialect target, host;
    lg_tr_stream *stream;  /* the translator of a committed stream (owned) */
} lg_attempt_tr;

/* Prepares t for an attempt to a provider of dialect target for a host of dialect host: translated when
 * tr is set (the engine's SEND step), else not. False when out of memory or a dialect is not translated. */
bool lg_attempt_tr_start(lg_attempt_tr *t, lg_dialect host, lg_dialect target, const lg_translation *tr);
void lg_attempt_tr_free(lg_attempt_tr *t);

#endif
