/* A provider request whose body the host hands libcurl through a read callback (CURLOPT_READFUNCTION with
 * CURLOPT_UPLOAD, or CURLOPT_POST without CURLOPT_POSTFIELDS; PHP's Guzzle does so from 1 MB) and no seek
 * callback: llmgate reads it ahead, when its size is known and fits hold.max_body_bytes, so that an attempt
 * can be sent again (another key, after a backoff) and the engine sees the body (token estimate, model,
 * routes) as it does POSTFIELDS. Each attempt reads llmgate's copy through lg_curl_body_read. */
#ifndef LLMGATE_HOOK_CURL_BODY_H
#define LLMGATE_HOOK_CURL_BODY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hook/curl/records.h"

typedef struct {
    const lg_curl_rec *rec; /* the host's callback and its data: what follows the held bytes */
    char *held;             /* what the host's callback gave so far (malloc'ed) */
    size_t held_len;
    bool whole;             /* held is the whole body: it can be sent again */
    bool ended;             /* not whole: the host's callback ended the body early (0, an abort, a count over
                             * what was asked: end_rc, returned after the held bytes); else it paused, and is
                             * asked again after them */
    size_t end_rc;
    const char *src;        /* what an attempt sends: held, or the engine's rewrite of it */
    size_t src_len;
    size_t off;             /* the next byte of src an attempt reads */
    bool on;                /* our reader (and seek callback) is on the handle in place of the host's */
} lg_curl_body;

/* True when r's request body comes from a read callback that cannot be rewound (no seek callback). */
bool lg_curl_body_is_read(const lg_curl_rec *r);

/* For a request of r whose body lg_curl_body_is_read with a known size of at most max bytes: reads it from
 * the host's callback into b (as far as the callback gives it; b->whole when all of it) and returns true:
 * our reader must then serve the attempts (lg_curl_body_read). False, b empty: the host's callback serves
 * them as it is (unknown or larger size, out of memory). */
bool lg_curl_body_hold(lg_curl_body *b, const lg_curl_rec *r, int64_t max);

/* The next attempt sends body (len bytes; NULL: the held body) from its first byte. */
void lg_curl_body_send(lg_curl_body *b, const char *body, size_t len);

/* libcurl read callback (userdata: lg_curl_body): the attempt's body, then (not whole) what the host's own
 * callback gives, as libcurl would have read it. */
size_t lg_curl_body_read(char *buf, size_t size, size_t nmemb, void *userdata);

/* libcurl seek callback (userdata: lg_curl_body): to an offset of a whole body; CANTSEEK otherwise. */
int lg_curl_body_seek(void *userdata, curl_off_t offset, int origin);

/* Frees what b holds; b->on is left as it is (the handle's state). */
void lg_curl_body_release(lg_curl_body *b);

#endif
