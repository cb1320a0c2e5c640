/* The readiness scan the wait hooks share (poll and ppoll, select, the epoll waits): one pass over the
 * watched descriptors the host waits on (fd_watch.h) notes which of them llmgate answers for, whether one
 * is ready now and the earliest due time of a waiting one, and gives the descriptor each waiting exchange
 * reads from (llmgate's own connection, which the wait must include); then how long the real wait may
 * sleep, and after it which descriptors to report as ready. */
#ifndef LLMGATE_HOOK_SOCK_READY_SCAN_H
#define LLMGATE_HOOK_SOCK_READY_SCAN_H

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>

#include "front/h1_conn.h"

typedef struct {
    int64_t due;    /* the earliest due time of a waiting connection (lg_now_ms's clock); INT64_MAX: none */
    bool any_ready; /* some connection has its answer now */
} lg_ready_scan;

/* Starts a pass: nothing noted yet. */
void lg_ready_scan_start(lg_ready_scan *s);

/* Notes connection c (NULL: the descriptor is not ours to answer for) in the pass and returns its
 * readiness (lg_h1_ready, which runs its exchange when due). *wake: the descriptor and events a waiting
 * exchange reads from, which the wait must include (fd -1: none, and when c is not waiting). */
lg_h1_readiness lg_ready_scan_note(lg_ready_scan *s, lg_h1_conn *c, struct pollfd *wake);

/* The real wait's timeout in ms (-1: none) for the host's deadline (lg_now_ms's clock; -1: none): 0 when
 * report_now (we have events to report), else the time left, capped at the pass's due time; *capped when
 * the due time came first (a wait that then has nothing to report is resumed). */
int lg_ready_scan_wait_ms(const lg_ready_scan *s, int64_t deadline, bool report_now, bool *capped);

/* After the real wait: true when fd is watched and its connection is ready now. */
bool lg_ready_scan_ready_now(int fd);

#endif
