/* The multi front end of the exchange engine: a provider handle the host adds to a multi handle is driven
 * by an lg_exchange; each attempt runs on the host's own multi (so its socket and timer callbacks, HTTP/2
 * multiplexing and connection reuse work as usual), and everything the engine waits for (admission,
 * backoff) is a timer the host's loop learns about (curl_multi_timeout, a capped wait/poll, or its timer
 * callback). The host sees one DONE message per provider transfer, with the final response delivered.
 *
 * A multi gets a state (lg_multi) when a provider handle is first added to it or when the host installs a
 * timer callback; only then do the interposers do more than call libcurl. Every function here runs on the
 * host's thread, inside one of its multi calls; a multi is used by one thread at a time (libcurl's rule). */
#ifndef LLMGATE_HOOK_MULTI_MULTI_H
#define LLMGATE_HOOK_MULTI_MULTI_H

#include <stdbool.h>
#include <stdint.h>
#include <uthash.h>

#include "hook/base/guard.h"
#include "hook/curl/xfer.h"
#include "llmgate/engine.h"

#define LG_NEVER INT64_MAX

typedef struct lg_multi lg_multi;

/* One provider transfer in a multi. */
typedef struct lg_mxfer {
    CURL *h;
    lg_multi *m;
    lg_curl_rec *rec;
    lg_exchange *ex;     /* NULL once final */
    lg_curl_xfer *x;     /* the handle's kept transfer, shaped (provider dialects) */
    bool shaped;         /* x is open */
    bool in_real;        /* the handle is in the real multi */
    bool counted;        /* libcurl counts it among the running handles of the current call */
    bool final;          /* its DONE message is queued (or was read) */
    bool draining;       /* its answer's delivery is paused by the host's write callback: the rest is delivered
                          * (rec->rest) once it unpauses, then its DONE queued (drain in drive.c) */
    lg_step pending;     /* a WAIT, or a DONE not yet delivered */
    lg_attempt at;       /* the attempt out (its redirects are followed within it) */
    int64_t wake_at;     /* when pending is due (wall-clock ms); LG_NEVER: nothing pending */
    UT_hash_handle hh;
} lg_mxfer;

struct lg_multi {
    CURLM *multi;
    bool active;         /* a provider handle was added: messages go through our queue */
    lg_mxfer *xfers;     /* by easy handle */
    CURLMsg *queue;      /* messages for the host, oldest first */
    size_t q_head, q_len, q_cap;
    CURLMsg current;     /* what the last curl_multi_info_read returned */
    /* the host's timer callback (socket_action hosts) behind our trampoline */
    curl_multi_timer_callback host_timerfn;
    void *host_timerdata;
    int64_t curl_expire; /* libcurl's own timer (wall-clock ms); LG_NEVER: none */
    int64_t told;        /* the expiry the host's timer was last set to; LG_NEVER: none */
    UT_hash_handle hh;
};

/* The state of multi (NULL: none); created when create is set. */
lg_multi *lg_multi_get(CURLM *multi, bool create);
/* Forgets multi's state after curl_multi_cleanup: cancels its transfers, frees everything. */
void lg_multi_forget(CURLM *multi);

/* Appends a message for the host; false on allocation failure. */
bool lg_multi_queue_push(lg_multi *m, const CURLMsg *msg);
/* The next message for the host (NULL: none) and how many remain after it. */
CURLMsg *lg_multi_queue_pop(lg_multi *m, int *left);
/* Drops the queued messages of easy handle h (it was removed). */
void lg_multi_queue_drop(lg_multi *m, CURL *h);

/* Takes over provider handle h (record r) added by the host: begins its exchange; its first attempt is
 * added to the real multi at once, anything else waits for the next perform/socket_action. Returns the
 * code curl_multi_add_handle must return, or -1 when h is not taken over (add it untouched). */
int lg_mxfer_add(lg_multi *m, CURL *h, lg_curl_rec *r);
/* Ends t whatever its state (the host removed it or cleaned up): nothing more is delivered, a reservation
 * is given back, the host's options are restored. When remove_real, t's handle leaves the real multi. */
void lg_mxfer_cancel(lg_mxfer *t, bool remove_real);

/* The host reset t's handle (curl_easy_reset, before the real one): llmgate's exchange ends at once (a
 * reservation is given back, nothing is delivered) with a DONE of CURLE_URL_MALFORMAT, as libcurl ends a
 * handle reset in its multi before it started (an attempt in flight leaves the real multi first: it
 * carries our key, URL and body); a finished transfer keeps its DONE and stays in libcurl's multi as the
 * host's own. t's transfer (x) is left to the caller, which frees the kept transfer once the real reset
 * took our trampolines off the handle. */
void lg_mxfer_detach(lg_mxfer *t);

/* Around one real perform/socket_action call: lg_multi_before runs what is due and marks which transfers
 * libcurl will count; lg_multi_after reads libcurl's messages (attempt completions go to their exchanges,
 * other messages to the host's queue), runs what is due, updates the host's timer and corrects *running
 * by the provider transfers libcurl does not count. */
void lg_multi_before(lg_multi *m);
void lg_multi_after(lg_multi *m, int *running);
/* Moves libcurl's messages to the host's queue, completing provider attempts on the way. */
void lg_multi_drain(lg_multi *m);

/* Milliseconds until the earliest pending step of m is due (0: now), or -1 when none. */
long lg_multi_due_ms(const lg_multi *m);
/* Tells the host's timer callback the earliest of libcurl's timer and ours, when that changed or the last
 * one has passed. */
void lg_multi_timer_sync(lg_multi *m);
/* Our trampoline for CURLMOPT_TIMERFUNCTION (userdata: the lg_multi). */
int lg_multi_timer_tramp(CURLM *multi, long timeout_ms, void *userdata);

#endif
