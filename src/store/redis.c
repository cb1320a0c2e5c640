/* The redis backend: one quota for a fleet of machines. Every operation on a provider's accounts is one
 * atomic step of the Lua script (redis_script.lua, called by its SHA with a fallback to its text), with
 * the time from Redis; counters are pipelined. Connections and the fail-open bookkeeping are
 * redis_conn.c's: when Redis is down, slow or refuses, the operation goes to the machine's shm store at
 * once, and Redis is tried again after a backoff, never waiting longer than the timeout. */
#include <errno.h>
#include <openssl/sha.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "llmgate/clock.h"
#include "llmgate/log.h"
#include "store/backend.h"
#include "store/owner.h"
#include "store/redis_call.h"
#include "store/redis_conn.h"
#include "store/redis_lease.h"
#include "store/redis_visit.h"
#include "store/shm.h"
#include "store/shm_index.h"

/* The hash of an account's identity, to add it to the index once per process. */
static uint64_t identity_hash(const char *provider, const lg_account_ref *ref)
{
    return lg_store_hash_names(provider, ref->name, ref->digest ? ref->digest : "");
}

/* Pipelines SADD of the scope's accounts to the index (for `llmgate status`) when this process has not. */
static void register_accounts(redis_store *s, conn *c, const lg_store_scope *sc)
{
    for (size_t i = 0; i < sc->n; i++) {
        uint64_t h = identity_hash(sc->provider, &sc->refs[i]);
        pthread_mutex_lock(&s->mu);
        bool known = false;
        for (size_t k = 0; k < s->n_registered && !known; k++)
            known = s->registered[k] == h;
        if (!known)
            s->registered[s->n_registered++ % REGISTERED_MAX] = h;
        pthread_mutex_unlock(&s->mu);
        if (known)
            continue;
        char member[LG_NAME_MAX * 2 + LG_DIGEST_HEX + 4];
        snprintf(member, sizeof member, "%s\t%s\t%s", sc->provider, sc->refs[i].name,
                 sc->refs[i].digest ? sc->refs[i].digest : "");
        const char *sadd[3] = {"SADD", LG_REDIS_INDEX_KEY, member};
        if (s->api->append_argv(c->c, 3, sadd, NULL) == REDIS_OK)
            c->pending++;
    }
}

/* The hash field of each counter event. */
static const char *const counter_field[] = {
    [LG_EV_IMMEDIATE] = "n_immediate", [LG_EV_WAITED] = "n_waited",     [LG_EV_RETRY] = "n_retries",
    [LG_EV_SWITCH] = "n_switches",     [LG_EV_GIVEN_UP] = "n_given_up", [LG_EV_SENT] = "n_requests",
    [LG_EV_FELL_BACK] = "n_fell_back"};

#define OWNER_MAX 96 /* "<host>.<pid>.<start>" */

/* This process as the script's owner of the places it reserves (see redis_script.lua). */
static void owner_name(char out[OWNER_MAX])
{
    const lg_store_owner *me = lg_owner_self();
    snprintf(out, OWNER_MAX, "%s.%d.%llu", lg_owner_host(), (int)me->pid, (unsigned long long)me->start);
}

/* The owners of this machine's places that an admission reply names last (space-separated), checked here by
 * pid: the dead ones appended to dead (space-separated, as many as fit). True when one was dead. */
static bool dead_owners(const redisReply *r, char *dead, size_t len)
{
    const redisReply *e = r->elements ? r->element[r->elements - 1] : NULL;
    if (!e || e->type != REDIS_REPLY_STRING)
        return false;
    const char *host = lg_owner_host();
    size_t hl = strlen(host), used = strlen(dead);
    bool any = false;
    for (const char *p = e->str; *p;) {
        size_t w = strcspn(p, " ");
        char *end;
        long pid = w > hl + 1 && !strncmp(p, host, hl) && p[hl] == '.' ? strtol(p + hl + 1, &end, 10) : 0;
        unsigned long long start = pid > 0 && *end == '.' ? strtoull(end + 1, NULL, 10) : 0;
        if (pid > 0 && !lg_owner_alive(&(lg_store_owner){(int32_t)pid, start}, NULL) && used + w + 2 <= len) {
            used += (size_t)snprintf(dead + used, len - used, "%s%.*s", used ? " " : "", (int)w, p);
            any = true;
        }
        p += w + (p[w] == ' ');
    }
    return any;
}

/* Forgets a ticket held in another store (the local one while Redis was down). */
static void own(redis_store *s, lg_store_ticket *t)
{
    if (t->held && t->owner != s)
        t->held = false;
    t->owner = s;
}

/* The breaker stays on this machine (see ARCHITECTURE.md): asked in its local store, where it also runs when
 * that store cannot be used (the exchange's own slots then). True when that settled the breaker part of
 * the round; out->breaker holds the verdict. */
static bool local_breaker(redis_store *s, const lg_store_scope *sc, int64_t now_ms, lg_admission *out)
{
    lg_prov_op op = {.kind = LG_PROV_BREAKER_ADMIT, .now_ms = now_ms};
    if (!s->local || s->local->ops->provider(s->local, sc, &op) != 0)
        return false;
    out->breaker = op.verdict;
    out->breaker_retry_ms = op.retry_after_ms;
    return true;
}

/* Admission in this machine's store while Redis cannot be used, with the breaker's verdict when it was asked
 * already (local_breaker). */
static int local_admit(redis_store *s, const lg_store_scope *sc, lg_store_ticket *t, size_t preferred,
                       int64_t now_ms, int64_t deadline_ms, const lg_admit_opts *rest, lg_breaker_verdict verdict,
                       lg_account_state *snap, lg_admission *out)
{
    int rc = s->local ? s->local->ops->admit(s->local, sc, t, preferred, now_ms, deadline_ms, rest, snap, out) : -1;
    if (rc == 0 && !rest->breaker)
        out->breaker = verdict;
    return rc;
}

static int redis_admit(lg_store *st, const lg_store_scope *sc, lg_store_ticket *t, size_t preferred, int64_t now_ms,
                       int64_t deadline_ms, const lg_admit_opts *opts, lg_account_state *snap, lg_admission *out)
{
    redis_store *s = rs(st);
    lg_admit_opts rest = opts ? *opts : (lg_admit_opts){.breaker = false};
    memset(out, 0, sizeof *out);
    if (rest.breaker && local_breaker(s, sc, now_ms, out)) {
        rest.breaker = false;
        if (out->breaker == LG_BREAKER_REJECT)
            return 0;
    }
    lg_breaker_verdict verdict = out->breaker;
    if (lg_redis_lease_admit(s, sc, t, now_ms, deadline_ms, &rest, snap, out))
        return 0;
    conn *c = lg_redis_get_conn(s);
    if (!c)
        return local_admit(s, sc, t, preferred, now_ms, deadline_ms, &rest, verdict, snap, out);
    own(s, t);
    register_accounts(s, c, sc);
    /* The charge without calibration (Redis keeps none), the pool filter on the states last seen. */
    int64_t tokens = lg_charge_admit(sc->dialect, sc->est, NULL);
    char usable[sc->n + 1];
    lg_redis_pool_mask(sc, snap, now_ms, usable);
    /* When the reply names owners of this machine's places that are dead, and the request must wait, asked
     * once more with them: their places are given back first. */
    char me[OWNER_MAX], dead[512] = "";
    owner_name(me);
    redisReply *r = NULL;
    for (int round = 0;; round++) {
        lg_redis_args a = {0};
        lg_redis_window_head(s, &a, sc, "admit");
        lg_redis_arg(&a, "%lld", (long long)tokens);
        lg_redis_arg(&a, "%lld", preferred < sc->n ? (long long)preferred : -1LL);
        lg_redis_arg(&a, "%lld", (long long)(deadline_ms - now_ms)); /* placed on Redis's clock by the script */
        lg_redis_arg(&a, "%d", t->held ? 1 : 0);
        lg_redis_arg(&a, "%zu", t->account);
        lg_redis_arg(&a, "%lld", (long long)t->bucket);
        lg_redis_arg(&a, "%lld", (long long)t->tokens);
        lg_redis_arg(&a, "%.17g", sc->jitter);
        lg_redis_arg(&a, "%lld", (long long)lg_policy_longest_cooldown_ms(sc->backoff));
        lg_redis_arg(&a, "%s", usable);
        lg_redis_arg(&a, "%s", rest.count ? counter_field[rest.ev] : "");
        lg_redis_arg(&a, "%s", me);
        lg_redis_arg(&a, "%s", dead);
        r = lg_redis_exchange(s, c, &a, 7 + LG_REDIS_STATE_FIELDS * sc->n);
        if (r && (lg_redis_int_at(r, 1) < 0 || (size_t)lg_redis_int_at(r, 1) >= sc->n)) {
            s->api->free_reply(r);
            lg_redis_put_conn(s, c, false, "unexpected reply");
            r = NULL;
        }
        if (!r)
            return local_admit(s, sc, t, preferred, now_ms, deadline_ms, &rest, verdict, snap, out);
        t->held = false; /* the script gave back the reservation held before */
        t->lease = 0;
        t->tokens = tokens;
        if (lg_redis_int_at(r, 3)) {
            t->held = true;
            t->account = (size_t)lg_redis_int_at(r, 1);
            t->bucket = lg_redis_int_at(r, 5);
        }
        bool now_goes = lg_redis_int_at(r, 3) && lg_redis_int_at(r, 2) <= lg_redis_int_at(r, 0);
        if (round > 0 || now_goes || !dead_owners(r, dead, sizeof dead))
            break;
        s->api->free_reply(r);
    }
    int64_t skew = lg_redis_int_at(r, 0) - now_ms;
    out->breaker = verdict;
    out->idx = (size_t)lg_redis_int_at(r, 1);
    out->at_ms = lg_redis_int_at(r, 2) - skew;
    out->reserved = lg_redis_int_at(r, 3) != 0;
    out->retry_ms = lg_redis_int_at(r, 4);
    lg_redis_read_states(r, 6, sc->n, skew, snap);
    s->api->free_reply(r);
    lg_redis_put_conn(s, c, true, NULL);
    return 0;
}

static int redis_confirm(lg_store *st, const lg_store_scope *sc, lg_store_ticket *t, size_t idx, int64_t now_ms,
                         lg_account_state *snap, bool *ok)
{
    redis_store *s = rs(st);
    if (lg_redis_leased(s, t)) { /* a lease's place: only the key's readiness, as last seen, is asked */
        *ok = idx == t->account && snap && lg_policy_ready_at(&snap[idx], sc->jitter, now_ms) <= now_ms;
        if (!*ok)
            lg_redis_lease_give_back(s, sc, t);
        return 0;
    }
    conn *c = lg_redis_get_conn(s);
    if (!c)
        return s->local ? s->local->ops->confirm(s->local, sc, t, idx, now_ms, snap, ok) : -1;
    own(s, t);
    lg_redis_args a = {0};
    lg_redis_script_head(s, &a, sc, "confirm");
    lg_redis_arg(&a, "%zu", idx);
    lg_redis_arg(&a, "%d", t->held ? 1 : 0);
    lg_redis_arg(&a, "%zu", t->account);
    lg_redis_arg(&a, "%lld", (long long)t->bucket);
    lg_redis_arg(&a, "%lld", (long long)t->tokens);
    lg_redis_arg(&a, "%.17g", sc->jitter);
    char me[OWNER_MAX];
    owner_name(me);
    lg_redis_arg(&a, "%s", me);
    redisReply *r = lg_redis_exchange(s, c, &a, 2 + LG_REDIS_STATE_FIELDS * sc->n);
    if (!r)
        return s->local ? s->local->ops->confirm(s->local, sc, t, idx, now_ms, snap, ok) : -1;
    *ok = lg_redis_int_at(r, 1) != 0;
    if (!*ok)
        t->held = false;
    lg_redis_read_states(r, 2, sc->n, lg_redis_int_at(r, 0) - now_ms, snap);
    s->api->free_reply(r);
    lg_redis_put_conn(s, c, true, NULL);
    return 0;
}

static int redis_release(lg_store *st, const lg_store_scope *sc, lg_store_ticket *t)
{
    redis_store *s = rs(st);
    if (t->held && t->owner != s)
        return s->local ? s->local->ops->release(s->local, sc, t) : -1;
    if (lg_redis_leased(s, t)) {
        lg_redis_lease_give_back(s, sc, t);
        return 0;
    }
    if (!t->held)
        return 0;
    conn *c = lg_redis_get_conn(s);
    if (!c) {
        t->held = false; /* it lives in Redis: it ages out of the window there */
        return 0;
    }
    lg_redis_args a = {0};
    lg_redis_script_head(s, &a, sc, "release");
    lg_redis_arg(&a, "%zu", t->account);
    lg_redis_arg(&a, "%lld", (long long)t->bucket);
    lg_redis_arg(&a, "%lld", (long long)t->tokens);
    char me[OWNER_MAX];
    owner_name(me);
    lg_redis_arg(&a, "%s", me);
    redisReply *r = lg_redis_exchange(s, c, &a, 1);
    t->held = false;
    if (r) {
        s->api->free_reply(r);
        lg_redis_put_conn(s, c, true, NULL);
    }
    return 0;
}

/* "none" for a time of 0, else its distance from now (the script places it on Redis's clock). */
static void add_time(lg_redis_args *a, int64_t t, int64_t now_ms)
{
    if (t > 0)
        lg_redis_arg(a, "%lld", (long long)(t - now_ms));
    else
        lg_redis_arg(a, "none");
}

/* The policy runs here on the state last seen (snap[idx]); the script keeps the longer cooldown when
 * another machine set one meanwhile. */
static int redis_record(lg_store *st, const lg_store_scope *sc, lg_store_ticket *t, size_t idx,
                        const lg_store_attempt *at, int64_t now_ms, lg_account_state *snap)
{
    redis_store *s = rs(st);
    if (lg_redis_leased(s, t) && lg_redis_lease_record(s, sc, t, idx, at, now_ms, snap))
        return 0;
    conn *c = idx < sc->n && snap ? lg_redis_get_conn(s) : NULL;
    if (!c)
        return s->local ? s->local->ops->record(s->local, sc, t, idx, at, now_ms, snap) : -1;
    own(s, t);
    lg_account_state next = snap[idx];
    int64_t dq = 0, dk = 0;
    bool held = !at->transport_failed && t->held && t->account == idx;
    if (!at->transport_failed) {
        if (lg_policy_record(sc->backoff, sc->n, &next, at->outcome, now_ms) && at->set_aside)
            *at->set_aside = true;
        if (held) { /* the charge model, without the charge learned from headers (Redis keeps no history) */
            bool keep;
            dk = lg_charge_settle(sc->dialect, sc->est, t->tokens, at->outcome, -1, &keep) - t->tokens;
            dq = keep ? 0 : -1;
        }
    }
    lg_redis_args a = {0};
    lg_redis_script_head(s, &a, sc, "record");
    lg_redis_arg(&a, "%zu", idx);
    lg_redis_arg(&a, "%d", at->transport_failed ? 1 : 0);
    lg_redis_arg(&a, "%d", held ? 1 : 0);
    lg_redis_arg(&a, "%lld", (long long)t->bucket);
    lg_redis_arg(&a, "%lld", (long long)dq);
    lg_redis_arg(&a, "%lld", (long long)dk);
    add_time(&a, next.cooldown_until_ms, now_ms);
    lg_redis_arg(&a, "%lld", lg_redis_reason_code(&next));
    lg_redis_arg(&a, "%d", (int)next.failures);
    add_time(&a, next.last_event_ms, now_ms);
    lg_redis_arg(&a, "%d", !at->transport_failed && at->outcome->state == LG_STATE_SUCCESS ? 1 : 0);
    lg_redis_arg(&a, "%d", !at->transport_failed && at->outcome->state == LG_STATE_RETRYABLE_RATE_LIMIT ? 1 : 0);
    const lg_ratelimit_info *info = at->info;
    for (int d = 0; d < 2; d++)
        lg_redis_arg(&a, "%lld", info ? (long long)info->limit[d] : -1LL);
    for (int d = 0; d < 2; d++)
        lg_redis_arg(&a, "%lld", info ? (long long)info->remaining[d] : -1LL);
    for (int d = 0; d < 2; d++)
        lg_redis_arg(&a, "%lld", info ? (long long)info->reset_ms[d] : -1LL);
    char me[OWNER_MAX];
    owner_name(me);
    lg_redis_arg(&a, "%s", me);
    lg_redis_arg(&a, "%lld", (long long)t->tokens);
    redisReply *r = lg_redis_exchange(s, c, &a, 1 + LG_REDIS_STATE_FIELDS * sc->n);
    if (!r)
        return s->local ? s->local->ops->record(s->local, sc, t, idx, at, now_ms, snap) : -1;
    if (t->account == idx)
        t->held = false;
    lg_redis_read_states(r, 1, sc->n, lg_redis_int_at(r, 0) - now_ms, snap);
    s->api->free_reply(r);
    lg_redis_put_conn(s, c, true, NULL);
    if ((at->first || at->breaker != LG_BREAKER_NOTE_NONE) && s->local) { /* budget and breaker: this machine's */
        lg_prov_op op = {.kind = LG_PROV_ATTEMPT, .now_ms = now_ms, .first = at->first, .note = at->breaker};
        s->local->ops->provider(s->local, sc, &op);
    }
    return 0;
}

/* Counters are pipelined: sent now, their replies read before the connection's next command. */
static int redis_count(lg_store *st, const lg_store_scope *sc, lg_store_ticket *t, size_t idx, lg_account_event ev,
                       size_t to)
{
    redis_store *s = rs(st);
    if (idx >= sc->n && ev != LG_EV_FELL_BACK)
        return 0;
    if (lg_redis_lease_count(s, sc, t, idx, ev))
        return 0;
    conn *c = lg_redis_get_conn(s);
    if (!c)
        return s->local ? s->local->ops->count(s->local, sc, t, idx, ev, to) : -1;
    char key[LG_NAME_MAX * 3 + LG_DIGEST_HEX + 32], pkey[LG_NAME_MAX + 32], cur[24];
    snprintf(pkey, sizeof pkey, "llmgate:{%s}:p", sc->provider);
    if (ev == LG_EV_FELL_BACK) /* on the provider's hash */
        snprintf(key, sizeof key, "%s", pkey);
    else
        snprintf(key, sizeof key, "llmgate:{%s}:a:%s:%s", sc->provider, sc->refs[idx].name,
                 sc->refs[idx].digest ? sc->refs[idx].digest : "");
    snprintf(cur, sizeof cur, "%zu", to);
    const char *incr[4] = {"HINCRBY", key, counter_field[ev], "1"};
    const char *hset[4] = {"HSET", pkey, "cur", cur};
    bool ok = s->api->append_argv(c->c, 4, incr, NULL) == REDIS_OK;
    c->pending += ok;
    if (ok && ev == LG_EV_SWITCH && to < sc->n) {
        ok = s->api->append_argv(c->c, 4, hset, NULL) == REDIS_OK;
        c->pending += ok;
    }
    int done = 0;
    while (ok && !done)
        ok = s->api->buffer_write(c->c, &done) == REDIS_OK;
    if (ev == LG_EV_SENT && t->owner == s)
        t->held = false;
    lg_redis_put_conn(s, c, ok, "write failed");
    return 0;
}

/* The provider's slot: the long-wait notice is a key set with NX for the interval (one notice per interval
 * across the fleet); the retry budget, the circuit breaker and the ungated count (and its lines) stay on
 * this machine's store. */
static int redis_provider(lg_store *st, const lg_store_scope *sc, lg_prov_op *op)
{
    redis_store *s = rs(st);
    conn *c = op->kind == LG_PROV_NOTICE && op->interval_ms > 0 ? lg_redis_get_conn(s) : NULL;
    if (!c)
        return s->local ? s->local->ops->provider(s->local, sc, op) : -1;
    char key[LG_NAME_MAX + 32], px[24];
    snprintf(key, sizeof key, "llmgate:{%s}:notice", sc->provider);
    snprintf(px, sizeof px, "%lld", (long long)op->interval_ms);
    const char *argv[6] = {"SET", key, "1", "NX", "PX", px};
    redisReply *r = lg_redis_call(s, c, 6, argv, NULL);
    if (!r) {
        lg_redis_put_conn(s, c, false, "no answer in time");
        return s->local ? s->local->ops->provider(s->local, sc, op) : -1;
    }
    op->due = r->type == REDIS_REPLY_STATUS; /* "OK"; nil when another process set it within the interval */
    s->api->free_reply(r);
    lg_redis_put_conn(s, c, true, NULL);
    return 0;
}

static void redis_close(lg_store *st)
{
    redis_store *s = rs(st);
    int saved = errno;
    lg_redis_conn_close(s);
    if (s->local)
        s->local->ops->close(s->local);
    free(s);
    errno = saved;
}

static void redis_at_exit(lg_store *st)
{
    int saved = errno;
    lg_redis_lease_exit(rs(st));
    errno = saved;
}

static const lg_store_ops redis_ops = {
    .name = "redis",
    .admit = redis_admit,
    .confirm = redis_confirm,
    .release = redis_release,
    .record = redis_record,
    .count = redis_count,
    .provider = redis_provider,
    .visit = lg_redis_visit,
    .visit_providers = lg_redis_visit_providers,
    .close = redis_close,
    .at_exit = redis_at_exit,
};

/* This machine's name among the fleet's: the hash of its host (lg_owner_host) and its local store's path. */
static void machine_name(char out[17])
{
    char file[4096] = "";
    lg_store_resolve_path(NULL, file, sizeof file);
    snprintf(out, 17, "%016llx", (unsigned long long)lg_store_hash_names(lg_owner_host(), file, ""));
}

lg_store *lg_redis_open(const lg_config *cfg, lg_store *local, char *err, size_t errlen)
{
    int saved = errno;
    redis_store *s = calloc(1, sizeof *s);
    const lg_hiredis *api = s ? lg_hiredis_load(err, errlen) : NULL;
    if (!api || !cfg->redis_url || !lg_redis_url_parse(cfg->redis_url, &s->url, err, errlen)) {
        if (!s)
            snprintf(err, errlen, "out of memory");
        else if (!cfg->redis_url)
            snprintf(err, errlen, "no store.redis_url");
        lg_notice(&(bool){false}, "redis-config", 0, "redis store unusable (%s); using this machine's store", err);
        free(s);
        errno = saved;
        return local; /* the machine's store, alone */
    }
    s->base.ops = &redis_ops;
    s->local = local;
    s->api = api;
    s->timeout_ms = cfg->store_timeout_ms > 0 ? cfg->store_timeout_ms : 50;
    s->leases = cfg->store_leases;
    s->retry_max_ms = cfg->store_retry_ms > FIRST_BACKOFF_MS ? cfg->store_retry_ms : FIRST_BACKOFF_MS;
    lg_redis_url_where(&s->url, s->where, sizeof s->where);
    machine_name(s->machine);
    unsigned char md[SHA_DIGEST_LENGTH];
    SHA1((const unsigned char *)lg_redis_script, strlen(lg_redis_script), md);
    for (int i = 0; i < SHA_DIGEST_LENGTH; i++)
        snprintf(s->sha + 2 * i, 3, "%02x", md[i]);
    lg_redis_conn_init(s);
    errno = saved;
    return &s->base;
}
