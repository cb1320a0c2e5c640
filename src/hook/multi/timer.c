/* The host's view of llmgate's timers on a multi (see multi.h): the earliest pending step, and the
 * host's timer callback set to the earliest of libcurl's timer and ours. */
#include "hook/multi/multi.h"
#include "llmgate/clock.h"

/* The earliest wall-clock time a pending step of m is due; LG_NEVER when none. */
static int64_t earliest(const lg_multi *m)
{
    int64_t at = LG_NEVER;
    for (const lg_mxfer *t = m->xfers; t; t = t->hh.next)
        if (!t->final && !t->in_real && t->wake_at < at)
            at = t->wake_at;
    return at;
}

static long ms_until(int64_t at, int64_t now) { return at <= now ? 0 : at - now > 86400000 ? 86400000 : (long)(at - now); }

long lg_multi_due_ms(const lg_multi *m)
{
    int64_t at = earliest(m);
    return at == LG_NEVER ? -1 : ms_until(at, lg_now_ms());
}

void lg_multi_timer_sync(lg_multi *m)
{
    if (!m->host_timerfn)
        return;
    int64_t now = lg_now_ms(), ours = earliest(m);
    int64_t want = ours < m->curl_expire ? ours : m->curl_expire;
    /* our own expiry that has passed without being run (the host's timer fired early) is set again */
    bool ours_passed = m->told == ours && ours != LG_NEVER && ours <= now;
    if (want == m->told && !ours_passed)
        return;
    m->told = want;
    m->host_timerfn(m->multi, want == LG_NEVER ? -1 : ms_until(want, now), m->host_timerdata);
}

int lg_multi_timer_tramp(CURLM *multi, long timeout_ms, void *userdata)
{
    lg_multi *m = userdata;
    int64_t now = lg_now_ms(), ours = earliest(m);
    m->curl_expire = timeout_ms < 0 ? LG_NEVER : now + timeout_ms;
    if (ours < m->curl_expire) {
        if (ours == m->told)
            return 0;
        m->told = ours;
        timeout_ms = ms_until(ours, now);
    } else {
        m->told = m->curl_expire; /* libcurl's own request, passed on as it came */
    }
    return m->host_timerfn ? m->host_timerfn(multi, timeout_ms, m->host_timerdata) : 0;
}
