/* The write trampoline of a libcurl attempt: the neutral relay (stream_relay.h) with the host's libcurl
 * callbacks as its sink, through a stream translator when the attempt went to another dialect. */
#ifndef LLMGATE_HOOK_CURL_STREAM_H
#define LLMGATE_HOOK_CURL_STREAM_H

#include <stdbool.h>
#include <stddef.h>

#include "front/capture.h"
#include "hook/curl/records.h"
#include "front/stream_relay.h"
#include "llmgate/translate.h"

/* Where a committed body goes: the host's callbacks of rec, translated by tr when set. */
typedef struct {
    lg_curl_rec *rec;
    lg_tr_stream *tr;
} lg_curl_sink;

/* Prepares the relay for a new attempt (to a provider of dialect d) whose committed body goes to sink. */
void lg_relay_reset(lg_relay *x, lg_curl_sink *sink, lg_capture *cap, lg_dialect d, lg_stream_boundary mode);
/* libcurl write callback (userdata: lg_relay). When the host's callback pauses a stream in a multi, the
 * rest it did not take is kept (r->rest) and libcurl's transfer paused (CURL_WRITEFUNC_PAUSE) until the host
 * unpauses: libcurl then delivers the same chunk again, the kept rest goes first, and the bytes of that chunk
 * the relay already took are skipped (r->stream_skip), so no byte is lost or doubled. */
size_t lg_relay_write(char *p, size_t size, size_t nmemb, void *userdata);
/* The committed body ended: a translator writes the host's ending. False when the host did not get a
 * complete stream (cut short, broken, or refused by the host). */
bool lg_curl_sink_finish(lg_curl_sink *sink);

#endif
