/* The relay of one attempt's response body, whatever the transport: buffers an ordinary response whole
 * for the gate; holds the start of a 2xx event stream until its first event with content (bounded in size
 * and time), then commits it to the host through the sink at the configured cut points; stops a stream
 * that starts with an error so the gate can retry it. Memory stays bounded: once committed only a tail
 * of the body is kept (what the classifier needs: a trailing error event, usage), and a non-stream body
 * longer than pass_over is committed as it arrives (and so is never retried). The header block and the
 * body bytes are captured in an lg_capture the front end fills and reads. */
#ifndef LLMGATE_FRONT_STREAM_RELAY_H
#define LLMGATE_FRONT_STREAM_RELAY_H

#include <stdbool.h>
#include <stdint.h>

#include "front/capture.h"
#include "llmgate/boundary.h"

#define LG_RELAY_TAIL (64 * 1024)          /* body bytes kept for the classifier after commit */
#define LG_RELAY_PASS_OVER (8 * 1024 * 1024) /* default: a longer non-stream body is not held */

/* Where a committed response goes: its header block (lines with CRLF), then its body; false when the host
 * refused them. */
typedef struct {
    bool (*headers)(void *ctx, char *const *lines, size_t n);
    lg_emit_fn body;
    void *ctx;
} lg_relay_sink;

typedef enum { LG_RELAY_UNDECIDED = 0, LG_RELAY_BUFFER, LG_RELAY_HOLD, LG_RELAY_PASS } lg_relay_phase;

typedef struct {
    lg_capture *cap;
    lg_dialect dialect;
    lg_relay_sink sink;
    lg_relay_phase phase;
    int64_t hold_started_ms;
    size_t pass_over;      /* non-stream bodies longer than this are committed as they arrive */
    bool stream;           /* the committed body is an event stream */
    bool stopped_on_error; /* we ended the transfer: the stream started with an error */
    bool host_refused;     /* the sink refused bytes */
    lg_boundary boundary;
} lg_relay;

/* Prepares the relay for a new attempt whose response is captured in cap (headers complete before the
 * first lg_relay_feed). Keeps nothing of a previous attempt. */
void lg_relay_start(lg_relay *x, lg_capture *cap, lg_dialect d, lg_stream_boundary mode, const lg_relay_sink *sink);
void lg_relay_free(lg_relay *x);
/* Feeds len body bytes. False when the transfer must stop: the stream started with an error
 * (stopped_on_error), the sink refused (host_refused), or memory ran out (cap->oom). */
bool lg_relay_feed(lg_relay *x, const char *p, size_t len);
/* True once (part of) the response went to the host. */
bool lg_relay_committed(const lg_relay *x);
/* At the end of the body: a committed response hands over what the cut points still held. */
bool lg_relay_finish(lg_relay *x);

#endif
