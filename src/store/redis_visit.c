/* What `llmgate status` reads of the redis backend (see redis_visit.h): the index of accounts and each
 * account's hash, folded into slots on the local clock. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llmgate/clock.h"
#include "store/redis_conn.h"
#include "store/redis_visit.h"

/* Folds an account's buckets, field W of layout 2 (src/store/redis_script.lua: "<epoch>,<requests>,<tokens>"
 * space-separated, ',' before the tokens or '*' for a marked bucket, each epoch but the first the distance
 * from the one before), into w. */
static void slot_buckets(lg_window *w, const char *v)
{
    long long e = 0;
    while (*v) {
        char *end;
        e += strtoll(v, &end, 10);
        long long q = *end == ',' ? strtoll(end + 1, &end, 10) : -1;
        long long k = *end == ',' || *end == '*' ? strtoll(end + 1, &end, 10) : -1;
        if (q < 0 || k < 0)
            return;
        lg_window_set_bucket(w, e, LG_DIM_REQUESTS, q);
        lg_window_set_bucket(w, e, LG_DIM_TOKENS, k);
        v = *end == ' ' ? end + 1 : "";
    }
}

/* Folds one field of an account hash (value v) into slot (times moved to local time by skew). */
static void slot_field(lg_account_slot *slot, const char *name, const char *value, int64_t skew)
{
    lg_window *w = &slot->window;
    long long v = atoll(value);
    if (!strcmp(name, "W")) {
        slot_buckets(w, value);
        return;
    }
    if (name[0] == 'q' || name[0] == 'k') { /* a bucket of layout 1 (a hash no script of layout 2 wrote yet) */
        char *end;
        long long e = strtoll(name + 1, &end, 10);
        if (*end)
            return;
        lg_window_set_bucket(w, e, name[0] == 'q' ? LG_DIM_REQUESTS : LG_DIM_TOKENS, v);
        return;
    }
    /* The 64-bit fields of a slot by their names in the hash; 't': a time (moved to the local clock). */
    static const struct {
        const char *name;
        size_t off;
        char kind;
    } map[] = {
#define W(f) offsetof(lg_account_slot, window.f)
#define C(f) offsetof(lg_account_slot, counters.f)
        {"cu", offsetof(lg_account_slot, state.cooldown_until_ms), 't'},
        {"le", offsetof(lg_account_slot, state.last_event_ms), 't'},
        {"pr", offsetof(lg_account_slot, state.probe_until_ms), 't'},
        {"sp", W(span_ms), 'i'},           {"wm", W(window_ms), 'i'},          {"l0", W(limit[0]), 'i'},
        {"l1", W(limit[1]), 'i'},          {"ll0", W(learned_limit[0]), 'i'},  {"ll1", W(learned_limit[1]), 'i'},
        {"cl0", W(cap_left[0]), 'i'},      {"cl1", W(cap_left[1]), 'i'},       {"cx0", W(cap_until_ms[0]), 't'},
        {"cx1", W(cap_until_ms[1]), 't'},  {"n_requests", C(requests), 'i'},   {"n_immediate", C(immediate), 'i'},
        {"n_waited", C(waited), 'i'},      {"n_rate_limited", C(rate_limited), 'i'},
        {"n_retries", C(retries), 'i'},    {"n_switches", C(switches), 'i'},   {"n_given_up", C(given_up), 'i'},
#undef W
#undef C
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (!strcmp(name, map[i].name)) {
            int64_t x = map[i].kind == 't' ? (v > 0 ? v - skew : 0) : v;
            memcpy((char *)slot + map[i].off, &x, sizeof x);
            return;
        }
    if (!strcmp(name, "rs"))
        lg_redis_reason_decode(v, &slot->state);
    else if (!strcmp(name, "fl"))
        slot->state.failures = (int32_t)v;
}

/* Splits an index member "provider<TAB>account<TAB>digest" into its parts; false when malformed. */
static bool split_member(const char *m, char prov[LG_NAME_MAX], char name[LG_NAME_MAX], char dig[LG_DIGEST_HEX])
{
    const char *t1 = strchr(m, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
    if (!t2 || (size_t)(t1 - m) >= LG_NAME_MAX || (size_t)(t2 - t1 - 1) >= LG_NAME_MAX ||
        strlen(t2 + 1) >= LG_DIGEST_HEX)
        return false;
    snprintf(prov, LG_NAME_MAX, "%.*s", (int)(t1 - m), m);
    snprintf(name, LG_NAME_MAX, "%.*s", (int)(t2 - t1 - 1), t1 + 1);
    snprintf(dig, LG_DIGEST_HEX, "%s", t2 + 1);
    return true;
}

/* Reads the index and every account hash in it and visits them. */
static int visit_remote(redis_store *s, conn *c, lg_store_visit_fn fn, void *ctx, bool *transport)
{
    const char *time_cmd[1] = {"TIME"};
    const char *members[2] = {"SMEMBERS", LG_REDIS_INDEX_KEY};
    *transport = true;
    redisReply *idx = lg_redis_call(s, c, 2, members, NULL);
    if (!idx)
        return -1;
    redisReply *tm = lg_redis_call(s, c, 1, time_cmd, NULL);
    int64_t skew = 0;
    if (tm && tm->type == REDIS_REPLY_ARRAY && tm->elements == 2 && tm->element[0]->str && tm->element[1]->str)
        skew = atoll(tm->element[0]->str) * 1000 + atoll(tm->element[1]->str) / 1000 - lg_now_ms();
    if (tm)
        s->api->free_reply(tm);
    *transport = !tm;
    int rc = tm && idx->type == REDIS_REPLY_ARRAY ? 0 : -1;
    size_t n = rc == 0 ? idx->elements : 0;
    for (size_t i = 0; i < n; i++) {
        char key[LG_NAME_MAX * 3 + LG_DIGEST_HEX + 32], prov[LG_NAME_MAX], name[LG_NAME_MAX], dig[LG_DIGEST_HEX];
        const redisReply *m = idx->element[i];
        if (m->type != REDIS_REPLY_STRING || !split_member(m->str, prov, name, dig))
            continue;
        snprintf(key, sizeof key, "llmgate:{%s}:a:%s:%s", prov, name, dig);
        const char *hgetall[2] = {"HGETALL", key};
        redisReply *h = lg_redis_call(s, c, 2, hgetall, NULL);
        if (!h) {
            rc = -1;
            break;
        }
        if (h->type == REDIS_REPLY_ARRAY && h->elements > 0) {
            lg_account_slot *slot = calloc(1, sizeof *slot);
            for (size_t f = 0; slot && f + 1 < h->elements; f += 2)
                if (h->element[f]->type == REDIS_REPLY_STRING && h->element[f + 1]->type == REDIS_REPLY_STRING)
                    slot_field(slot, h->element[f]->str, h->element[f + 1]->str, skew);
            if (slot)
                fn(prov, name, dig, slot, ctx);
            free(slot);
        }
        s->api->free_reply(h);
    }
    *transport = rc != 0;
    s->api->free_reply(idx);
    return rc;
}

int lg_redis_visit(lg_store *st, lg_store_visit_fn fn, void *ctx)
{
    redis_store *s = rs(st);
    conn *c = lg_redis_get_conn(s);
    bool transport = true;
    if (c) {
        int rc = visit_remote(s, c, fn, ctx, &transport);
        lg_redis_put_conn(s, c, !transport, "no answer in time");
        if (rc == 0)
            return 0;
    }
    return s->local ? s->local->ops->visit(s->local, fn, ctx) : -1;
}

int lg_redis_visit_providers(lg_store *st, lg_store_provider_visit_fn fn, void *ctx)
{
    redis_store *s = rs(st);
    return s->local ? s->local->ops->visit_providers(s->local, fn, ctx) : -1;
}


long long lg_redis_reason_code(const lg_account_state *st)
{
    return (long long)st->reason + 256LL * (long long)st->aside;
}

void lg_redis_reason_decode(long long v, lg_account_state *st)
{
    long long reason = v >= 0 ? v % 256 : -1, aside = v >= 0 ? v / 256 : -1;
    st->reason = reason >= 0 && reason < LG_REASON_COUNT ? (lg_reason)reason : LG_REASON_NONE;
    st->aside = aside >= 0 && aside < LG_DETAIL_COUNT && st->reason != LG_REASON_NONE ? (lg_detail)aside : LG_DETAIL_NONE;
}
