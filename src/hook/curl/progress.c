/* The host's progress callback asked while llmgate holds a transfer (see progress.h). */
#include <string.h>

#include "hook/curl/progress.h"
#include "hook/curl/xfer.h"
#include "llmgate/clock.h"

bool lg_curl_progress_aborts(void *rec)
{
    const lg_curl_rec *r = rec;
    curl_off_t up = !r->postfields ? 0 : r->postsize >= 0 ? r->postsize : (curl_off_t)strlen(r->postfields);
    int rc = r->xferinfofn ? r->xferinfofn(r->progressdata, 0, 0, up, up)
                           : r->progressfn(r->progressdata, 0, 0, (double)up, (double)up);
    return rc != 0 && rc != CURL_PROGRESSFUNC_CONTINUE;
}

int lg_curl_watch_attempt(void *p, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow)
{
    lg_curl_xfer *x = p;
    const lg_curl_rec *r = x->rec;
    curl_off_t seen = dlnow + (curl_off_t)x->cap.lines_seen;
    int64_t now = lg_mono_ms();
    if (seen != x->watch_seen) {
        x->watch_seen = seen;
        x->watch_at_ms = now;
    }
    int64_t limit = seen ? x->watch->idle_timeout_ms : x->watch->attempt_timeout_ms;
    if (limit > 0 && now - x->watch_at_ms >= limit) {
        x->timed_out = true;
        return 1;
    }
    if (!lg_curl_progress_watched(r))
        return 0;
    return r->xferinfofn ? r->xferinfofn(r->progressdata, dltotal, dlnow, ultotal, ulnow)
                         : r->progressfn(r->progressdata, (double)dltotal, (double)dlnow, (double)ultotal,
                                         (double)ulnow);
}
