/* The write trampoline of an attempt: buffers ordinary responses whole; holds the start of a 2xx event
 * stream until its first event with content (bounded in size and time), then lets it through to the host
 * at the configured cut points; stops a stream that starts with an error so the gate can retry it. */
#ifndef LLMGATE_HOOK_CURL_STREAM_H
#define LLMGATE_HOOK_CURL_STREAM_H

#include <stdbool.h>
#include <stdint.h>

#include "hook/curl_capture.h"
#include "hook/curl_handles.h"
#include "llmgate/boundary.h"

typedef enum { LG_RELAY_UNDECIDED = 0, LG_RELAY_BUFFER, LG_RELAY_HOLD, LG_RELAY_PASS } lg_relay_phase;

typedef struct {
    lg_curl_rec *rec;
    lg_capture *cap;
    lg_dialect dialect;
    lg_relay_phase phase;
    int64_t hold_started_ms;
    bool stopped_on_error; /* we ended the transfer: the stream started with an error */
    bool host_refused;     /* the host's write callback refused bytes */
    lg_boundary boundary;
} lg_relay;

/* Prepares the relay for a new attempt. */
void lg_relay_reset(lg_relay *x, lg_curl_rec *rec, lg_capture *cap, lg_dialect d, lg_stream_boundary mode);
void lg_relay_free(lg_relay *x);
/* libcurl write callback (userdata: lg_relay). */
size_t lg_relay_write(char *p, size_t size, size_t nmemb, void *userdata);
/* True once (part of) the response went to the host. */
bool lg_relay_committed(const lg_relay *x);
/* At the end of a committed stream: hands over what the cut points still held. */
bool lg_relay_finish(lg_relay *x);

#endif
