/* The decision at the start of a 2xx event stream: hold it, let it through, or treat it as a failed
 * attempt. Pure. */
#ifndef LLMGATE_STREAM_PROBE_H
#define LLMGATE_STREAM_PROBE_H

#include "llmgate/http.h"
#include "llmgate/preset.h"

typedef enum {
    LG_PROBE_MORE = 0, /* nothing but keep-alives, pings or an unfinished event yet: keep holding */
    LG_PROBE_COMMIT,   /* a complete event with content arrived, and no error: let the stream through */
    LG_PROBE_ERROR,    /* the stream carries an error before anything reached the host: a failed attempt */
} lg_probe;

/* Inspects the complete events at the start of a stream (status and headers from r, body so far).
 * Errors are those lg_classify reports for the complete events. */
lg_probe lg_stream_probe(lg_dialect d, const lg_response_view *r);

#endif
