/* The readiness scan of the wait hooks (see ready_scan.h). */
#include "hook/sock/ready_scan.h"
#include "hook/sock/fd_watch.h"
#include "llmgate/clock.h"

void lg_ready_scan_start(lg_ready_scan *s) { *s = (lg_ready_scan){.due = INT64_MAX}; }

lg_h1_readiness lg_ready_scan_note(lg_ready_scan *s, lg_h1_conn *c, struct pollfd *wake)
{
    int64_t d;
    lg_h1_readiness st = c ? lg_h1_ready(c, &d) : LG_H1_IDLE;
    *wake = (struct pollfd){.fd = -1};
    s->any_ready |= st == LG_H1_READY;
    if (st == LG_H1_WAITING) {
        if (d < s->due)
            s->due = d;
        wake->fd = lg_h1_wait_fd(c, &wake->events);
    }
    return st;
}

int lg_ready_scan_wait_ms(const lg_ready_scan *s, int64_t deadline, bool report_now, bool *capped)
{
    int64_t now = lg_now_ms();
    int64_t left = deadline < 0 ? -1 : (deadline > now ? deadline - now : 0);
    *capped = false;
    if (report_now)
        return 0;
    if (s->due != INT64_MAX && (left < 0 || s->due - now < left)) {
        *capped = true;
        left = s->due > now ? s->due - now : 0;
    }
    return left > INT32_MAX ? INT32_MAX : (int)left;
}

bool lg_ready_scan_ready_now(int fd)
{
    int64_t d;
    lg_h1_conn *c = lg_fd_watched(fd);
    return c && lg_h1_ready(c, &d) == LG_H1_READY;
}
