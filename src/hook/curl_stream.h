/* The write trampoline of a libcurl attempt: the neutral relay (relay.h) with the host's libcurl
 * callbacks as its sink. */
#ifndef LLMGATE_HOOK_CURL_STREAM_H
#define LLMGATE_HOOK_CURL_STREAM_H

#include <stdbool.h>
#include <stddef.h>

#include "hook/curl_capture.h"
#include "hook/curl_handles.h"
#include "hook/relay.h"

/* Prepares the relay for a new attempt on the handle whose record is rec. */
void lg_relay_reset(lg_relay *x, lg_curl_rec *rec, lg_capture *cap, lg_dialect d, lg_stream_boundary mode);
/* libcurl write callback (userdata: lg_relay). */
size_t lg_relay_write(char *p, size_t size, size_t nmemb, void *userdata);

#endif
