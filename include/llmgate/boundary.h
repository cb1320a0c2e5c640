/* Where a stream may be cut before it reaches the host: after whole UTF-8 characters (default), after
 * whole SSE events, or anywhere. Bytes are only ever held back and released in order: what the host
 * receives in total is exactly what was fed. */
#ifndef LLMGATE_BOUNDARY_H
#define LLMGATE_BOUNDARY_H

#include <stdbool.h>
#include <stddef.h>

#include "llmgate/config.h"

/* Receives the bytes that may go out now; returns false to stop (the host refused them). */
typedef bool (*lg_emit_fn)(void *ctx, const char *p, size_t len);

typedef struct {
    lg_stream_boundary mode;
    char *held;
    size_t held_len, held_cap;
    size_t max_hold; /* an event longer than this is released at a UTF-8 boundary anyway */
} lg_boundary;

void lg_boundary_init(lg_boundary *b, lg_stream_boundary mode);
void lg_boundary_free(lg_boundary *b);
/* Feeds len bytes; emits the longest prefix of held+p that ends on a boundary and holds the rest.
 * False when emit refused. */
bool lg_boundary_feed(lg_boundary *b, const char *p, size_t len, lg_emit_fn emit, void *ctx);
/* Emits whatever is still held (the stream ended inside a character or an event). */
bool lg_boundary_flush(lg_boundary *b, lg_emit_fn emit, void *ctx);
/* Length of the longest prefix of p[0..len) that does not end inside a UTF-8 sequence. */
size_t lg_utf8_complete_prefix(const char *p, size_t len);

/* Length of the longest prefix of p[0..len) that holds only complete SSE events (ends after a blank line). */
size_t lg_sse_complete_prefix(const char *p, size_t len);

#endif
