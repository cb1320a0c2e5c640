/* Driving provider transfers on a host's multi (see multi.h): engine steps become real adds and
 * removes of the handle, timers, or the final delivery and the host's DONE message. */
#include <stdlib.h>
#include <string.h>

#include "hook/multi/multi.h"
#include "hook/curl/deliver.h"
#include "hook/curl/progress.h"
#include "llmgate/clock.h"
#include "llmgate/ungated.h"

static CURLMcode real_add(lg_mxfer *t)
{
    CURLMcode rc;
    LG_AS_LIBCURL(rc = lg_curl_real_get()->m_add(t->m->multi, t->h));
    if (rc == CURLM_OK)
        t->in_real = true;
    t->counted = false;
    return rc;
}

static void real_remove(lg_mxfer *t)
{
    if (!t->in_real)
        return;
    LG_AS_LIBCURL(lg_curl_real_get()->m_remove(t->m->multi, t->h));
    t->in_real = false;
}

/* Forgets t: out of its multi's table, unlinked from the handle's record, freed. */
static void untrack(lg_mxfer *t)
{
    HASH_DEL(t->m->xfers, t);
    t->rec->multi_xfer = NULL;
    free(t);
}

/* The final step: the response to the host (its callbacks run now), the handle's DONE message queued. */
static void finish(lg_mxfer *t, CURLcode rc)
{
    lg_exchange_free(t->ex);
    t->ex = NULL;
    t->final = true;
    t->wake_at = LG_NEVER;
    CURLMsg msg = {.msg = CURLMSG_DONE, .easy_handle = t->h};
    msg.data.result = rc;
    lg_multi_queue_push(t->m, &msg);
}

#define DRAIN_SLICE_MS 50 /* how often a paused delivery looks for its unpause (and asks the progress callback) */

static void deliver(lg_mxfer *t, const lg_gate_result *res)
{
    CURLcode rc = t->shaped ? lg_xfer_close(t->x, res) : lg_xfer_refuse(t->rec, res);
    t->shaped = false;
    if (LG_UNLIKELY(rc == CURLE_OK && t->rec->rest)) { /* the host paused its write callback */
        real_remove(t); /* libcurl is done with it: its timer is ours (timer.c) until the DONE */
        lg_exchange_free(t->ex);
        t->ex = NULL;
        t->draining = true;
        t->wake_at = lg_now_ms() + DRAIN_SLICE_MS;
        return;
    }
    if (LG_UNLIKELY(t->rec->rest)) /* a stream the host paused ended otherwise (an abort, an error) */
        lg_curl_drop_rest(t->rec);
    finish(t, rc);
}

/* A paused delivery of t's answer: the rest once the host unpaused (curl_easy_pause), its DONE when all of it
 * went; while it stays paused the host's progress callback is asked, as libcurl asks it (an abort ends the
 * transfer, CURLE_ABORTED_BY_CALLBACK), and it is looked at again after DRAIN_SLICE_MS (cold). */
__attribute__((cold)) static void drain(lg_mxfer *t, int64_t now)
{
    CURLcode rc = lg_curl_emit_rest(t->rec);
    if (rc == CURLE_AGAIN && lg_curl_progress_watched(t->rec) && lg_curl_progress_aborts(t->rec)) {
        lg_curl_drop_rest(t->rec);
        rc = CURLE_ABORTED_BY_CALLBACK;
    }
    if (rc == CURLE_AGAIN) {
        t->wake_at = now + DRAIN_SLICE_MS;
        return;
    }
    t->draining = false;
    finish(t, rc);
}

/* Carries out the engine's step for t. may_deliver: the host's callbacks may run now (else a DONE waits for
 * the next perform/socket_action, due at once). */
static void apply_step(lg_mxfer *t, lg_step *step, bool may_deliver)
{
    for (;;) {
        int64_t now = lg_now_ms();
        if (step->kind == LG_STEP_WAIT) {
            real_remove(t);
            t->pending = *step;
            t->wake_at = step->at_ms;
            if (lg_curl_progress_watched(t->rec) && t->wake_at > now + LG_GATE_ASK_MS)
                t->wake_at = now + LG_GATE_ASK_MS; /* the host's progress callback is asked then (run_due) */
            return;
        }
        if (step->kind == LG_STEP_DONE) {
            if (step->result.verdict == LG_GATE_PASS) { /* a plain host rule admitted it: the host's own */
                lg_exchange_free(t->ex);
                t->ex = NULL;
                if (real_add(t) == CURLM_OK) {
                    untrack(t);
                    return;
                }
                finish(t, CURLE_FAILED_INIT);
                return;
            }
            if (!may_deliver) {
                t->pending = *step;
                t->wake_at = now;
                return;
            }
            deliver(t, &step->result);
            return;
        }
        real_remove(t);
        t->wake_at = LG_NEVER;
        if (step->resend && !lg_xfer_rewind(t->x)) {
            lg_exchange_cannot_resend(t->ex, now, step);
            continue;
        }
        t->at = (lg_attempt){.prov = step->prov, .key = step->key, .body = step->body, .body_len = step->body_len,
                         .tr = step->tr};
        if (!lg_xfer_prepare(t->x, &t->at)) {
            lg_exchange_on_transport_error(t->ex, LG_ATTEMPT_FATAL, now, step);
            continue;
        }
        if (real_add(t) != CURLM_OK) {
            t->x->last_rc = CURLE_FAILED_INIT;
            lg_exchange_on_transport_error(t->ex, LG_ATTEMPT_FATAL, now, step);
            continue;
        }
        return;
    }
}

/* What a handle's own hooks (reset, cleanup) do with its transfer here (records.h). */
static const lg_rec_multi_ops rec_ops = {.detach = lg_mxfer_detach, .cancel = lg_mxfer_cancel};

int lg_mxfer_add(lg_multi *m, CURL *h, lg_curl_rec *r)
{
    const lg_runtime *rt = lg_runtime_get();
    lg_mxfer *t = calloc(1, sizeof *t);
    if (!t || !rt->cfg) {
        if (!t)
            lg_ungated(rt->store, r->prov->name, LG_UNGATED_NO_ROOM);
        free(t);
        return -1;
    }
    t->h = h;
    t->m = m;
    t->rec = r;
    t->wake_at = LG_NEVER;
    r->info_override = false;
    lg_gate_request req = {.cfg = rt->cfg, .prov = r->prov, .store = rt->store};
    if (r->prov->dialect != LG_DIALECT_NONE) {
        t->x = lg_xfer_kept(r);
        if (!t->x || !lg_xfer_open(t->x, h, r, rt, &req)) {
            lg_ungated(rt->store, r->prov->name, LG_UNGATED_NO_ROOM);
            free(t);
            return -1;
        }
        t->shaped = true;
    }
    lg_step step;
    t->ex = lg_exchange_begin(&req, lg_now_ms(), &step);
    if (t->shaped)
        lg_xfer_forget_key(t->x);
    if (!t->ex || (step.kind == LG_STEP_DONE && step.result.verdict == LG_GATE_PASS)) {
        if (!t->ex) /* no memory (a plain host rule's PASS was admitted) */
            lg_ungated(rt->store, r->prov->name, LG_UNGATED_NO_ROOM);
        lg_exchange_free(t->ex);
        if (t->shaped)
            lg_xfer_abandon(t->x);
        free(t);
        return -1; /* the host's request as it is */
    }
    m->active = true;
    HASH_ADD_PTR(m->xfers, h, t);
    lg_rec_multi_ops_register(&rec_ops);
    r->multi_xfer = t;
    if (step.kind == LG_STEP_SEND) { /* an error adding it is the host's to see, as without us */
        t->at = (lg_attempt){.prov = step.prov, .key = step.key, .body = step.body, .body_len = step.body_len,
                         .tr = step.tr};
        CURLMcode rc = lg_xfer_prepare(t->x, &t->at) ? real_add(t) : CURLM_OUT_OF_MEMORY;
        if (rc != CURLM_OK)
            lg_mxfer_cancel(t, false);
        return rc;
    }
    apply_step(t, &step, false);
    return CURLM_OK;
}

void lg_mxfer_cancel(lg_mxfer *t, bool remove_real)
{
    lg_curl_drop_rest(t->rec); /* a paused delivery: the held answer's rest or a paused stream's */
    if (remove_real)
        real_remove(t);
    lg_exchange_free(t->ex);
    if (t->shaped)
        lg_xfer_abandon(t->x);
    untrack(t);
}

void lg_mxfer_detach(lg_mxfer *t)
{
    t->x = NULL;
    t->shaped = false;
    lg_curl_drop_rest(t->rec); /* the handle reset or cleaned up while its delivery was paused */
    t->draining = false;
    if (t->final) {
        untrack(t);
        return;
    }
    real_remove(t);
    finish(t, CURLE_URL_MALFORMAT);
}

/* An attempt of t ended in libcurl with rc: the engine decides what follows. */
static void complete(lg_mxfer *t, CURLcode rc)
{
    lg_response_view resp;
    memset(&resp, 0, sizeof resp);
    int ar = lg_xfer_result(t->x, rc, &resp);
    if (ar == 0 && !resp.delivered && lg_xfer_may_follow(&resp) && lg_xfer_follow(t->x, lg_runtime_get(), &t->at, &resp)) {
        real_remove(t); /* the next hop of a redirect, within the same attempt */
        if (real_add(t) == CURLM_OK)
            return;
        ar = LG_ATTEMPT_FATAL;
    }
    lg_step step;
    if (ar == 0)
        lg_exchange_on_response(t->ex, &resp, lg_now_ms(), &step);
    else
        lg_exchange_on_transport_error(t->ex, (lg_transport_failure)ar, lg_now_ms(), &step);
    apply_step(t, &step, true);
}

/* Runs the steps that are due: timers into the engine (a host's progress callback asked on the way to a
 * wait's end, as libcurl asks it while a transfer runs: the transfer ends when it aborts), deferred
 * deliveries. */
static void run_due(lg_multi *m)
{
    int64_t now = lg_now_ms();
    lg_mxfer *t, *tmp;
    HASH_ITER(hh, m->xfers, t, tmp) {
        if (LG_UNLIKELY(t->draining) && t->wake_at <= now) {
            drain(t, now);
            continue;
        }
        if (t->final || t->draining || t->in_real || t->wake_at > now)
            continue;
        lg_step step = t->pending;
        if (step.kind == LG_STEP_WAIT && now < step.at_ms && lg_curl_progress_aborts(t->rec))
            lg_exchange_withdraw(t->ex, &step);
        else if (step.kind != LG_STEP_DONE)
            lg_exchange_on_timer(t->ex, now, &step);
        apply_step(t, &step, true);
    }
}

void lg_multi_before(lg_multi *m)
{
    run_due(m);
    lg_mxfer *t, *tmp;
    HASH_ITER(hh, m->xfers, t, tmp)
        t->counted = t->in_real;
}

void lg_multi_drain(lg_multi *m)
{
    const lg_curl_real *real = lg_curl_real_get();
    for (;;) {
        int left;
        CURLMsg *msg;
        LG_AS_LIBCURL(msg = real->m_info_read(m->multi, &left));
        if (!msg)
            return;
        lg_mxfer *t = NULL;
        if (msg->msg == CURLMSG_DONE)
            HASH_FIND_PTR(m->xfers, &msg->easy_handle, t);
        if (t && t->in_real && !t->final) {
            t->counted = false;
            complete(t, msg->data.result);
        } else {
            lg_multi_queue_push(m, msg);
        }
    }
}

void lg_multi_after(lg_multi *m, int *running)
{
    lg_multi_drain(m);
    lg_multi_timer_sync(m);
    lg_mxfer *t, *tmp;
    HASH_ITER(hh, m->xfers, t, tmp)
        if (!t->final && !t->counted)
            (*running)++;
}
