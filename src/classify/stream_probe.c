/* The decision at the start of an event stream (see stream_probe.h). */
#include <string.h>

#include "classify/dialects.h"
#include "llmgate/boundary.h"
#include "llmgate/classify.h"
#include "llmgate/stream_probe.h"

/* lg_sse_each callback: stops (returns false) at the first event with data that is not a ping. */
static bool no_content(const lg_sse_event *ev, void *ctx)
{
    bool ping = !strcmp(ev->event, "ping") || memmem(ev->data, ev->data_len, "\"type\":\"ping\"", 13) ||
                memmem(ev->data, ev->data_len, "\"type\": \"ping\"", 14);
    if (ev->data_len > 0 && !ping) {
        *(bool *)ctx = true;
        return false;
    }
    return true;
}

/* The decision on AWS event-stream frames: the first error frame or event with content decides; frames
 * that cannot be read are let through as they came. */
static lg_probe aws_probe(lg_dialect d, const lg_response_view *r)
{
    lg_aws_frame f;
    for (size_t at = 0; at < r->body_len; at += f.total) {
        lg_aws_status st = lg_aws_frame_read(r->body + at, r->body_len - at, &f);
        if (st != LG_AWS_FRAME_OK)
            return st == LG_AWS_FRAME_SHORT ? LG_PROBE_MORE : LG_PROBE_COMMIT;
        if (lg_aws_frame_is_error(&f)) {
            lg_response_view prefix = *r;
            prefix.body_len = at + f.total;
            lg_outcome o;
            lg_classify(d, &prefix, &o);
            return o.state != LG_STATE_SUCCESS ? LG_PROBE_ERROR : LG_PROBE_COMMIT;
        }
        if (lg_aws_frame_is_content(&f))
            return LG_PROBE_COMMIT;
    }
    return LG_PROBE_MORE;
}

lg_probe lg_stream_probe(lg_dialect d, const lg_response_view *r)
{
    if (r->aws_frames)
        return aws_probe(d, r);
    size_t complete = lg_sse_complete_prefix(r->body, r->body_len);
    if (complete == 0)
        return LG_PROBE_MORE;
    lg_response_view prefix = *r;
    prefix.body_len = complete;
    prefix.stream = true;
    lg_outcome o;
    lg_classify(d, &prefix, &o);
    if (o.state != LG_STATE_SUCCESS)
        return LG_PROBE_ERROR;
    bool content = false;
    lg_sse_each(r->body, complete, no_content, &content);
    return content ? LG_PROBE_COMMIT : LG_PROBE_MORE;
}
