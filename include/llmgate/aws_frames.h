/* AWS event-stream frames (application/vnd.amazon.eventstream: Bedrock's InvokeModelWithResponseStream and
 * ConverseStream): a prelude (total length u32 BE, headers length u32 BE, prelude CRC32), typed headers, the
 * payload, the message CRC32. Pure and bounds-checked: nothing is allocated, every view points into the
 * caller's bytes. The CRCs are not checked (zlib is not linked into the library): a frame is judged by its
 * lengths and its headers' structure alone. */
#ifndef LLMGATE_AWS_FRAMES_H
#define LLMGATE_AWS_FRAMES_H

#include <stdbool.h>
#include <stddef.h>

#define LG_AWS_FRAME_MIN 16u               /* prelude (12) and message CRC (4) */
#define LG_AWS_FRAME_MAX (24u * 1024 * 1024) /* AWS caps a payload at 16 MiB and headers at 128 KiB */

typedef enum {
    LG_AWS_FRAME_OK = 0, /* a whole, well-formed frame */
    LG_AWS_FRAME_SHORT,  /* the bytes end before the frame does: wait for more */
    LG_AWS_FRAME_BAD,    /* lengths that cannot be, or headers that do not parse: the stream is not readable */
} lg_aws_status;

typedef struct {
    size_t total;              /* bytes of the whole frame: the next one starts there */
    const unsigned char *headers;
    size_t headers_len;
    const char *payload;
    size_t payload_len;
} lg_aws_frame;

/* Reads the frame at the start of the n bytes at b into *f (its headers walked and checked). */
lg_aws_status lg_aws_frame_read(const char *b, size_t n, lg_aws_frame *f);

/* The string value (type 7) of the header called name in a frame lg_aws_frame_read accepted: *v and *len
 * point into the frame. False when the frame has no such header or its value is not a string. */
bool lg_aws_frame_header(const lg_aws_frame *f, const char *name, const char **v, size_t *len);

/* Bytes of the whole frames at the start of the n bytes at b, up to the first frame boundary at or past stop
 * (n or more: all the whole frames); stops early at a short or bad frame, and *bad (may be NULL) tells that
 * a bad frame stopped it. */
size_t lg_aws_frames_span(const char *b, size_t n, size_t stop, bool *bad);

#endif
