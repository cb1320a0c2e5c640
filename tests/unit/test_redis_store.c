/* Unit tests of the redis backend against a redis-server of our own (started on a free loopback port
 * without persistence, stopped at the end): the Lua admission gives the same answers as the C window of
 * the shm store over a random sequence of admissions, releases and outcomes; the script's window, driven
 * with a fake time, decides exactly as the C scan (lg_window_earliest_scan) on many random sequences;
 * cooldowns and counters; fail open when nothing listens; redis_url parsing. */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "llmgate/clock.h"
#include "llmgate/store.h"
#include "store/redis_api.h"
#include "store/redis_url.h"

extern const char lg_redis_script[];

typedef struct {
    char dir[64];
    int port;
    pid_t server;
    lg_config *cfg;
    lg_store *redis, *shm;
} fixture;

static int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || getsockname(fd, (struct sockaddr *)&a, &len) != 0)
        return -1;
    close(fd);
    return ntohs(a.sin_port);
}

static bool answers(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    bool ok = fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) == 0 && write(fd, "PING\r\n", 6) == 6;
    char buf[8] = "";
    ok = ok && read(fd, buf, sizeof buf) > 0 && !strncmp(buf, "+PONG", 5);
    if (fd >= 0)
        close(fd);
    return ok;
}

static lg_config *config_for(const char *url)
{
    char json[512];
    snprintf(json, sizeof json, "{\"store\": {\"backend\": \"redis\", \"redis_url\": \"%s\", \"timeout_ms\": 200}}", url);
    lg_errors errs = {0};
    lg_config *c = lg_config_parse(json, strlen(json), "test", false, &errs);
    lg_errors_free(&errs);
    return c;
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "/tmp/llmgate-redis-test.XXXXXX");
    if (!f || !mkdtemp(f->dir) || (f->port = free_port()) < 0)
        return -1;
    setenv("XDG_RUNTIME_DIR", f->dir, 1);
    setenv("XDG_STATE_HOME", f->dir, 1);
    char port[16];
    snprintf(port, sizeof port, "%d", f->port);
    f->server = fork();
    if (f->server == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlives the test */
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        dup2(null, 2);
        execlp("redis-server", "redis-server", "--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly",
               "no", "--dir", f->dir, (char *)NULL);
        _exit(127);
    }
    for (int i = 0; i < 200 && !answers(f->port); i++)
        lg_sleep_ms(25);
    char url[64], err[256];
    snprintf(url, sizeof url, "redis://127.0.0.1:%d", f->port);
    f->cfg = config_for(url);
    f->redis = f->cfg ? lg_store_open_config(f->cfg, err, sizeof err) : NULL;
    char path[128];
    snprintf(path, sizeof path, "%s/other.shm", f->dir);
    f->shm = lg_store_open(path, err, sizeof err);
    *state = f;
    if (f->redis && f->shm && answers(f->port))
        return 0;
    kill(f->server, SIGKILL);
    waitpid(f->server, NULL, 0);
    return -1;
}

static int teardown(void **state)
{
    fixture *f = *state;
    lg_store_close(f->redis);
    lg_store_close(f->shm);
    lg_config_free(f->cfg);
    kill(f->server, SIGKILL);
    waitpid(f->server, NULL, 0);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
    int rc = system(cmd);
    free(f);
    return rc == 0 ? 0 : -1;
}

static lg_account_ref refs[2] = {{"a", "00aa"}, {"b", "00bb"}};
static lg_estimate est; /* LG_DIALECT_NONE: the request is charged its envelope */

static lg_store_scope scope(const fixture *f, const char *provider, int64_t rpm, int64_t tpm, int64_t window_ms)
{
    lg_store_scope sc = {.provider = provider, .refs = refs, .n = 2, .dialect = LG_DIALECT_NONE, .est = &est,
                         .backoff = &f->cfg->backoff, .retry = &f->cfg->retry};
    sc.limits = (lg_window_limits){.limit = {rpm, tpm}, .window_ms = window_ms, .margin_ms = lg_window_margin_ms(window_ms)};
    return sc;
}

/* Waits until just after a bucket boundary of span ms, so that a short sequence stays in one bucket. */
static void align_to_bucket(int64_t span)
{
    int64_t bucket = span / LG_WINDOW_BUCKETS;
    int64_t now = lg_now_ms();
    lg_sleep_ms(bucket - now % bucket + 20);
}

/* One side of the comparison: a store, its ticket and snapshot. */
typedef struct {
    lg_store *s;
    lg_store_ticket t;
    lg_account_state snap[2];
} side;

/* x (the shm store's) and y (Redis's) decided alike; a later place at the same time within 5 ms plus call_ms,
 * the time from now to the end of Redis's call (the script reads Redis's clock inside the call, so a slow
 * machine moves its times by up to that much; on a quiet one it is 0-1 ms). */
static void same_admission(const lg_admission *x, const lg_admission *y, int64_t now, int64_t call_ms, int step)
{
    if (x->idx != y->idx || x->reserved != y->reserved || (x->retry_ms > 0) != (y->retry_ms > 0))
        fail_msg("step %d: shm idx=%zu reserved=%d retry=%lld, redis idx=%zu reserved=%d retry=%lld", step, x->idx,
                 x->reserved, (long long)x->retry_ms, y->idx, y->reserved, (long long)y->retry_ms);
    bool x_now = x->at_ms <= now + 50, y_now = y->at_ms <= now + 50;
    if (x_now != y_now || (!x_now && llabs(x->at_ms - y->at_ms) > 5 + call_ms))
        fail_msg("step %d: shm at +%lld ms, redis at +%lld ms", step, (long long)(x->at_ms - now),
                 (long long)(y->at_ms - now));
}

static void lua_window_matches_c_window(void **state)
{
    fixture *f = *state;
    lg_store_scope sc = scope(f, "diff", 6, 400, 64000);
    side sides[2] = {{.s = f->shm}, {.s = f->redis}};
    srand(12345);
    align_to_bucket(lg_window_span_ms(&sc.limits));
    int admitted_later = 0;
    for (int step = 0; step < 80; step++) {
        int what = rand() % 10;
        est.envelope = rand() % 120;
        int64_t now = lg_now_ms();
        if (what < 6) {
            int64_t deadline = rand() % 4 ? now + 400000 : now;
            size_t pref = rand() % 3 == 0 ? 1 : LG_PREFER_CURRENT;
            lg_admission out[2];
            for (int k = 0; k < 2; k++)
                assert_int_equal(lg_store_admit(sides[k].s, &sc, &sides[k].t, pref, now, deadline, NULL, sides[k].snap, &out[k]), 0);
            same_admission(&out[0], &out[1], now, lg_now_ms() - now, step);
            admitted_later += out[0].reserved && out[0].at_ms > now + 50;
        } else if (what < 7) {
            for (int k = 0; k < 2; k++)
                assert_int_equal(lg_store_release(sides[k].s, &sc, &sides[k].t), 0);
        } else {
            lg_outcome o = {.state = what == 9 ? LG_STATE_RETRYABLE_RATE_LIMIT : LG_STATE_SUCCESS,
                            .reason = what == 9 ? LG_REASON_RATE_LIMIT_EXCEEDED : LG_REASON_NONE,
                            .retry_after_ms = LG_NO_HINT, .retry_at_ms = LG_NO_HINT,
                            .has_usage = what == 8, .prompt_tokens = 5, .completion_tokens = 7};
            lg_store_attempt at = {.outcome = &o};
            for (int k = 0; k < 2; k++) {
                size_t idx = sides[k].t.held ? sides[k].t.account : 0;
                assert_int_equal(lg_store_record(sides[k].s, &sc, &sides[k].t, idx, &at, now, sides[k].snap), 0);
            }
        }
    }
    assert_true(admitted_later > 5); /* the sequence did reach past the first bucket */
}

/* ---- The script's window against the C scan, with a fake time ---- */

/* Prepended to the script: TIME answers the fake time that the caller passes as the last argument. */
static const char fake_time[] =
    "local fake_ms = tonumber(table.remove(ARGV))\n"
    "local real_redis = redis\n"
    "local redis = setmetatable({call = function(c, ...)\n"
    "  if c == 'TIME' then return {tostring(math.floor(fake_ms / 1000)), tostring(fake_ms % 1000 * 1000)} end\n"
    "  return real_redis.call(c, ...)\n"
    "end}, {__index = real_redis})\n";

/* A connection to the fixture's redis-server (*h, *c) and the script with fake_time first (the caller frees it). */
static char *fake_timed_script(const fixture *f, const lg_hiredis **h, redisContext **c)
{
    char err[256];
    *h = lg_hiredis_load(err, sizeof err);
    assert_non_null(*h);
    *c = (*h)->connect_tcp("127.0.0.1", f->port, (struct timeval){.tv_sec = 5});
    assert_true(*c && !(*c)->err);
    char *script = malloc(sizeof fake_time + strlen(lg_redis_script));
    assert_non_null(script);
    strcpy(script, fake_time);
    strcat(script, lg_redis_script);
    return script;
}

/* EVAL of the script (with fake_time first) on the keys "lw:p", "lw:a<seed>" with args, at now_ms; the reply. */
static redisReply *lua_call(const lg_hiredis *h, redisContext *c, const char *script, int seed, int64_t now_ms,
                            int argc, const char **args)
{
    char key[32], now[32];
    snprintf(key, sizeof key, "lw:a%d", seed);
    snprintf(now, sizeof now, "%lld", (long long)now_ms);
    const char *argv[32] = {"EVAL", script, "2", "lw:p", key};
    int n = 5;
    for (int i = 0; i < argc; i++)
        argv[n++] = args[i];
    argv[n++] = now;
    void *reply = NULL;
    assert_int_equal(h->append_argv(c, n, argv, NULL), REDIS_OK);
    assert_int_equal(h->get_reply(c, &reply), REDIS_OK);
    redisReply *r = reply;
    if (r->type == REDIS_REPLY_ERROR)
        fail_msg("script: %s", r->str);
    return r;
}

static int64_t int_at(const redisReply *r, size_t i)
{
    assert_true(r->type == REDIS_REPLY_ARRAY && i < r->elements);
    return r->element[i]->type == REDIS_REPLY_INTEGER ? r->element[i]->integer : atoll(r->element[i]->str);
}

/* One random sequence: admissions (reserved when they can be), releases and reconciliations, time moving
 * on by fractions of a bucket or by windows; every admission's time and retry from the script equal the C
 * scan's on a window given the same operations at the same times. */
static void lua_sequence(const lg_hiredis *h, redisContext *c, const char *script, int seed, long *ahead)
{
    srand((unsigned)seed * 7919u + 1u);
    lg_window *w = calloc(1, sizeof *w);
    assert_non_null(w);
    lg_window_limits l = {.limit = {1 + rand() % 10, rand() % 4 ? 100 + rand() % 2000 : 0},
                          .window_ms = 1000 + rand() % 4000};
    l.margin_ms = lg_window_margin_ms(l.window_ms);
    int64_t span = lg_window_span_ms(&l), now = INT64_C(1700000000000) + rand() % 100000;
    char l0[24], l1[24], wm[24], mg[24];
    snprintf(l0, sizeof l0, "%lld", (long long)l.limit[0]);
    snprintf(l1, sizeof l1, "%lld", (long long)l.limit[1]);
    snprintf(wm, sizeof wm, "%lld", (long long)l.window_ms);
    snprintf(mg, sizeof mg, "%lld", (long long)l.margin_ms);
    struct place {
        int64_t bucket, tokens;
    } held[64];
    int nh = 0;
    for (int step = 0; step < 400; step++) {
        int op = rand() % 10, k = rand() % 10;
        now += k < 6 ? rand() % (span / 32 + 1) : k < 9 ? rand() % (span / 4 + 1) : rand() % (3 * span);
        if (op < 6 || nh == 0) {
            int64_t tokens = rand() % 8 ? 1 + rand() % 300 : rand() % 3000;
            char tk[24];
            snprintf(tk, sizeof tk, "%lld", (long long)tokens);
            const char *args[] = {"admit", "600000", l0, l1, wm, mg, tk, "-1", "100000000", "0", "0", "0", "0",
                                  "0", "600000", "1", "", "h.1.1", ""};
            redisReply *r = lua_call(h, c, script, seed, now, 19, args);
            int64_t retry_c, at_c = lg_window_earliest_scan(w, &l, tokens, now, now, &retry_c);
            int64_t at = int_at(r, 2), reserved = int_at(r, 3), retry = int_at(r, 4), ticket = int_at(r, 5);
            if (at != at_c || (retry > 0) != (retry_c > 0))
                fail_msg("seed %d step %d: the script says +%lld ms (retry %lld), the C scan +%lld ms (retry %lld)",
                         seed, step, (long long)(at - now), (long long)retry, (long long)(at_c - now),
                         (long long)retry_c);
            assert_int_equal(reserved, retry_c == 0);
            if (reserved) {
                assert_int_equal(ticket, lg_window_reserve(w, &l, tokens, at_c));
                *ahead += at > now;
                if (nh < 64)
                    held[nh++] = (struct place){ticket, tokens};
            }
            h->free_reply(r);
        } else { /* a release, or a reconciliation of its tokens (the record op) */
            int i = rand() % nh;
            char b[24], tk[24], dk[24];
            int64_t d = rand() % 400 - 200;
            snprintf(b, sizeof b, "%lld", (long long)held[i].bucket);
            snprintf(tk, sizeof tk, "%lld", (long long)held[i].tokens);
            snprintf(dk, sizeof dk, "%lld", (long long)d);
            redisReply *r;
            if (op < 8) {
                const char *args[] = {"release", "600000", "0", b, tk, "h.1.1"};
                r = lua_call(h, c, script, seed, now, 6, args);
                lg_window_adjust(w, held[i].bucket, -1, -held[i].tokens);
            } else {
                const char *args[] = {"record", "600000", "0", "0", "1", b, "0", dk, "none", "0", "0", "none", "1",
                                      "0", "-1", "-1", "-1", "-1", "-1", "-1", "h.1.1", tk};
                r = lua_call(h, c, script, seed, now, 22, args);
                lg_window_adjust(w, held[i].bucket, 0, d);
            }
            h->free_reply(r);
            held[i] = held[--nh];
        }
    }
    free(w);
}

static void lua_window_matches_the_c_scan(void **state)
{
    const lg_hiredis *h;
    redisContext *c;
    char *script = fake_timed_script(*state, &h, &c);
    long ahead = 0;
    for (int seed = 0; seed < 60; seed++)
        lua_sequence(h, c, script, seed, &ahead);
    print_message("# 60 sequences of 400 steps; %ld places reserved ahead\n", ahead);
    assert_true(ahead > 1000); /* the marks and the scan were reached, not only the fast path */
    free(script);
    h->free_ctx(c);
}

/* A grant's places (the lease op) against a brute force: a random window of buckets (some over the limit, a
 * token limit or none) and a machine's ask; every bucket j of the grant holds what the greedy rule places,
 * min(LEASE_DENSE times the even share, what is left of the machine's share and ask, the room the fullest
 * run of B+1 buckets containing j leaves with the grant's earlier places counted), summed afresh per run. */
#define GRANT_N 16 /* the lease op's LEASE_N */
static int64_t room_of(const int64_t *pre, const int64_t *got, int64_t base, int64_t j, int64_t limit)
{
    int64_t room = INT64_MAX;
    for (int64_t s = j - LG_WINDOW_BUCKETS; s <= j; s++) {
        int64_t sum = 0;
        for (int64_t e = s; e <= s + LG_WINDOW_BUCKETS; e++)
            sum += pre[e - base] + got[e - base];
        if (limit - sum < room)
            room = limit - sum;
    }
    return room;
}

static void redis_command(const lg_hiredis *h, redisContext *c, int argc, const char **argv)
{
    void *reply = NULL;
    assert_int_equal(h->append_argv(c, argc, argv, NULL), REDIS_OK);
    assert_int_equal(h->get_reply(c, &reply), REDIS_OK);
    assert_true(((redisReply *)reply)->type != REDIS_REPLY_ERROR);
    h->free_reply(reply);
}

static void lease_grant_matches_brute_force(void **state)
{
    const lg_hiredis *h;
    redisContext *c;
    char *script = fake_timed_script(*state, &h, &c);
    enum { B = LG_WINDOW_BUCKETS, LO = 2 * B + 2, LEN = 4 * B + GRANT_N };
    int grants = 0, bound = 0, refused = 0;
    for (int seed = 0; seed < 300; seed++) {
        srand((unsigned)seed * 104729u + 3u);
        int64_t L[2] = {4 + rand() % 200, rand() % 3 ? 0 : 500 + rand() % 20000}, tok = L[1] ? 1 + rand() % 100 : 0;
        int64_t wms = 1000 + rand() % 4000, span = wms + lg_window_margin_ms(wms);
        int64_t now = INT64_C(1700000000000) + rand() % 100000, k_now = now * B / span, base = k_now - LO;
        int64_t pre[2][LEN], got[2][LEN];
        memset(pre, 0, sizeof pre), memset(got, 0, sizeof got);
        char W[8192] = "";
        size_t len = 0;
        int64_t last = 0;
        for (int64_t e = k_now - B - 2; e <= k_now + 50; e++) { /* buckets in rising order, half of them held */
            if (rand() % 2)
                continue;
            pre[0][e - base] = rand() % (3 * L[0] / B + 2);
            pre[1][e - base] = L[1] ? pre[0][e - base] * (1 + rand() % (2 * tok)) : 0;
            len += (size_t)snprintf(W + len, sizeof W - len, "%s%lld,%lld,%lld", len ? " " : "",
                                    (long long)(e - last), (long long)pre[0][e - base], (long long)pre[1][e - base]);
            last = e;
        }
        char key[32], sp[24], l0[24], l1[24], wm[24], mg[24], tk[24], ask[24];
        int64_t want = 1 + rand() % 60;
        snprintf(key, sizeof key, "lw:a%d", seed);
        snprintf(sp, sizeof sp, "%lld", (long long)span);
        const char *del[] = {"DEL", key}, *set[] = {"HSET", key, "qv", "2", "sp", sp, "W", W};
        redis_command(h, c, 2, del);
        redis_command(h, c, len ? 8 : 6, set);
        snprintf(l0, sizeof l0, "%lld", (long long)L[0]);
        snprintf(l1, sizeof l1, "%lld", (long long)L[1]);
        snprintf(wm, sizeof wm, "%lld", (long long)wms);
        snprintf(mg, sizeof mg, "%lld", (long long)(span - wms));
        snprintf(tk, sizeof tk, "%lld", (long long)tok);
        snprintf(ask, sizeof ask, "%lld", (long long)want);
        const char *args[] = {"lease", "600000", l0, l1, wm, mg, tk, "0", "600000", "m1", "0", ask, "none", "0,0,0"};
        redisReply *r = lua_call(h, c, script, seed, now, 14, args);
        int64_t n = int_at(r, 2), e0 = int_at(r, 3);
        if (int_at(r, 1) != 0 || n <= 0) {
            refused++;
            h->free_reply(r);
            continue;
        }
        grants++;
        assert_true(e0 >= k_now && e0 <= k_now + 48 && n <= GRANT_N);
        /* the machine alone on the account: its share is an eighth of the limit (LEASE_SHARE), a bucket holds at
         * most three times the even share (LEASE_DENSE), both in requests of tok where tokens are limited */
        int64_t dense = L[0] * 3 / B + (L[0] * 3 % B != 0), share = L[0] / 8;
        if (L[1] && tok) {
            int64_t dk = (3 * L[1] + B * tok - 1) / (B * tok), sk = L[1] / 8 / tok;
            dense = dk < dense ? dk : dense, share = sk < share ? sk : share;
        }
        dense = dense > 1 ? dense : 1, share = share > 1 ? share : 1;
        int64_t total = want < share ? want : share, placed = 0;
        for (int64_t j = e0; j < e0 + n; j++) {
            int64_t q = dense < total - placed ? dense : total - placed;
            int64_t room = room_of(pre[0], got[0], base, j, L[0]);
            bound += room < q;
            q = room < q ? room : q;
            if (L[1] && tok) {
                int64_t rk = room_of(pre[1], got[1], base, j, L[1]);
                rk = rk < 0 ? -((-rk + tok - 1) / tok) : rk / tok;
                q = rk < q ? rk : q;
            }
            q = q > 0 ? q : 0;
            int64_t rq = int_at(r, 5 + 2 * (size_t)(j - e0)), rk = int_at(r, 6 + 2 * (size_t)(j - e0));
            if (rq != q || rk != q * tok)
                fail_msg("seed %d: bucket now+%lld granted %lld (%lld tokens), the brute force %lld (%lld)", seed,
                         (long long)(j - k_now), (long long)rq, (long long)rk, (long long)q, (long long)(q * tok));
            got[0][j - base] = q, got[1][j - base] = q * tok, placed += q;
        }
        h->free_reply(r);
    }
    print_message("# 300 windows: %d grants (%d refused), %d buckets where a run's room bound the grant\n", grants,
                  refused, bound);
    free(script);
    h->free_ctx(c);
    assert_true(grants > 100 && bound > 50);
}

static void cooldown_and_counters_are_shared(void **state)
{
    fixture *f = *state;
    lg_store_scope sc = scope(f, "cool", 0, 0, 60000);
    lg_store_ticket t = {0};
    lg_account_state snap[2] = {0};
    lg_admission ad;
    int64_t now = lg_now_ms();
    assert_int_equal(lg_store_admit(f->redis, &sc, &t, LG_PREFER_CURRENT, now, now + 1000, NULL, snap, &ad), 0);
    assert_int_equal(ad.idx, 0);
    assert_true(ad.reserved);
    lg_outcome o = {.state = LG_STATE_RETRYABLE_RATE_LIMIT, .reason = LG_REASON_QUOTA_EXHAUSTED,
                    .retry_after_ms = 120000, .retry_at_ms = LG_NO_HINT};
    lg_store_attempt at = {.outcome = &o};
    assert_int_equal(lg_store_record(f->redis, &sc, &t, 0, &at, now, snap), 0);
    assert_true(snap[0].cooldown_until_ms >= now + 119000);
    assert_int_equal(snap[0].reason, LG_REASON_QUOTA_EXHAUSTED);
    assert_int_equal(lg_store_count(f->redis, &sc, &t, 0, LG_EV_SWITCH, 1), 0);

    /* A second process (another handle on the same Redis) sees the cooldown and moves to account b. */
    char err[256];
    lg_store *other = lg_store_open_config(f->cfg, err, sizeof err);
    assert_non_null(other);
    lg_store_ticket t2 = {0};
    lg_account_state snap2[2] = {0};
    bool ok = true;
    assert_int_equal(lg_store_confirm(other, &sc, &t2, 0, lg_now_ms(), snap2, &ok), 0);
    assert_false(ok);
    assert_true(snap2[0].cooldown_until_ms >= now + 119000);
    assert_int_equal(lg_store_admit(other, &sc, &t2, LG_PREFER_CURRENT, lg_now_ms(), lg_now_ms(), NULL, snap2, &ad), 0);
    assert_int_equal(ad.idx, 1);
    lg_store_close(other);

    struct {
        uint64_t requests, rate_limited, switches;
        int64_t cooldown;
    } seen = {0};
    /* Visit: the slot of account a, as status reads it. */
    void visit(const char *p, const char *name, const char *dig, const lg_account_slot *slot, void *ctx);
    assert_int_equal(lg_store_visit(f->redis, visit, &seen), 0);
    assert_int_equal(seen.requests, 1);
    assert_int_equal(seen.rate_limited, 1);
    assert_int_equal(seen.switches, 1);
    assert_true(seen.cooldown >= now + 119000);
}

void visit(const char *p, const char *name, const char *dig, const lg_account_slot *slot, void *ctx)
{
    struct {
        uint64_t requests, rate_limited, switches;
        int64_t cooldown;
    } *seen = ctx;
    if (strcmp(p, "cool") || strcmp(name, "a") || strcmp(dig, "00aa"))
        return;
    seen->requests = slot->counters.requests;
    seen->rate_limited = slot->counters.rate_limited;
    seen->switches = slot->counters.switches;
    seen->cooldown = slot->state.cooldown_until_ms;
}

/* Readiness in Redis is lg_policy_ready_at's: the cooldown's end shifted by the request's jitter (a tenth of
 * the cooldown), then one probe at a time on a key that failed; the long-wait notice is one per interval
 * for every handle on the same Redis. */
static void jitter_probe_and_notice_in_redis(void **state)
{
    fixture *f = *state;
    lg_store_scope sc = scope(f, "probe", 0, 0, 60000);
    sc.n = 1;
    char err[256];
    lg_store *other = lg_store_open_config(f->cfg, err, sizeof err);
    assert_non_null(other);
    lg_store_ticket t = {0}, t2 = {0};
    lg_account_state snap[2] = {0}, snap2[2] = {0};
    lg_admission ad;
    int64_t now = lg_now_ms();
    assert_int_equal(lg_store_admit(f->redis, &sc, &t, LG_PREFER_CURRENT, now, now + 1000, NULL, snap, &ad), 0);
    assert_true(ad.reserved);
    lg_outcome o = {.state = LG_STATE_RETRYABLE_RATE_LIMIT, .reason = LG_REASON_RATE_LIMIT_EXCEEDED,
                    .retry_after_ms = 1000, .retry_at_ms = LG_NO_HINT};
    lg_store_attempt at = {.outcome = &o};
    assert_int_equal(lg_store_record(f->redis, &sc, &t, 0, &at, now, snap), 0);

    /* Cooling down for 1 s: the spread is 100 ms; jitter 0.99 wakes about 99 ms after jitter 0. */
    now = lg_now_ms();
    lg_admission early, late;
    sc.jitter = 0;
    assert_int_equal(lg_store_admit(other, &sc, &t2, LG_PREFER_CURRENT, now, now, NULL, snap2, &early), 0);
    sc.jitter = 0.99;
    assert_int_equal(lg_store_admit(other, &sc, &t2, LG_PREFER_CURRENT, now, now, NULL, snap2, &late), 0);
    assert_false(early.reserved || late.reserved);
    assert_true(early.at_ms > now);
    int64_t shift = late.at_ms - early.at_ms;
    if (shift < 85 || shift > 115)
        fail_msg("jitter 0.99 woke %lld ms after jitter 0 (expected about 99)", (long long)shift);

    /* After the cooldown, the first request admitted now takes the probe; another waits for its outcome. */
    lg_sleep_ms(early.at_ms - lg_now_ms() + 150);
    sc.jitter = 0;
    now = lg_now_ms();
    assert_int_equal(lg_store_admit(f->redis, &sc, &t, LG_PREFER_CURRENT, now, now + 1000, NULL, snap, &ad), 0);
    assert_true(ad.reserved && ad.at_ms <= now + 50);
    assert_true(snap[0].probe_until_ms > now + 5000);
    now = lg_now_ms();
    assert_int_equal(lg_store_admit(other, &sc, &t2, LG_PREFER_CURRENT, now, now, NULL, snap2, &ad), 0);
    assert_false(ad.reserved);
    assert_true(ad.at_ms > now + 100 && ad.at_ms <= now + LG_PROBE_POLL_MS + 50);
    bool ok = true;
    assert_int_equal(lg_store_confirm(other, &sc, &t2, 0, now, snap2, &ok), 0);
    assert_false(ok);
    /* The probe's success ends it: the other request goes now. */
    o = (lg_outcome){.state = LG_STATE_SUCCESS, .retry_after_ms = LG_NO_HINT, .retry_at_ms = LG_NO_HINT};
    assert_int_equal(lg_store_record(f->redis, &sc, &t, 0, &at, lg_now_ms(), snap), 0);
    now = lg_now_ms();
    assert_int_equal(lg_store_admit(other, &sc, &t2, LG_PREFER_CURRENT, now, now + 1000, NULL, snap2, &ad), 0);
    assert_true(ad.reserved && ad.at_ms <= now + 50);
    assert_int_equal(snap2[0].probe_until_ms, 0);

    /* One long-wait notice per interval across handles; the budget is answered (by the local store). */
    lg_prov_op n1 = {.kind = LG_PROV_NOTICE, .now_ms = lg_now_ms(), .interval_ms = 60000};
    lg_prov_op n2 = n1;
    assert_int_equal(lg_store_provider(f->redis, &sc, &n1), 0);
    assert_int_equal(lg_store_provider(other, &sc, &n2), 0);
    assert_true(n1.due);
    assert_false(n2.due);
    lg_prov_op b = {.kind = LG_PROV_BUDGET_RETRY, .now_ms = lg_now_ms()};
    assert_int_equal(lg_store_provider(f->redis, &sc, &b), 0);
    assert_true(b.ok); /* the budget's floor allows a retry */
    lg_store_close(other);
}

/* A lease's place held is swapped for a sooner one when it is admitted again (the exchange does so a bucket
 * at a time before its place comes): a grant of two places (rpm 16 per 64 s: a share of 2, one a bucket)
 * taken by ticket 1 (now) and ticket 2 (the next bucket); ticket 1 given back, ticket 2 admitted again goes
 * now and ticket 3 gets the place it gave back; ticket 3 admitted again, nothing sooner, keeps it. */
static void a_leased_place_is_swapped_for_a_sooner_one(void **state)
{
    fixture *f = *state;
    char json[512], err[256];
    snprintf(json, sizeof json,
             "{\"store\": {\"backend\": \"redis\", \"redis_url\": \"redis://127.0.0.1:%d\", \"timeout_ms\": 200, "
             "\"leases\": true}}",
             f->port);
    lg_errors errs = {0};
    lg_config *cfg = lg_config_parse(json, strlen(json), "test", false, &errs);
    lg_errors_free(&errs);
    assert_non_null(cfg);
    lg_store *s = lg_store_open_config(cfg, err, sizeof err);
    assert_non_null(s);
    lg_store_scope sc = scope(f, "swap", 16, 0, 64000);
    align_to_bucket(lg_window_span_ms(&sc.limits));
    lg_store_ticket t1 = {0}, t2 = {0}, t3 = {0};
    lg_account_state snap[2] = {0};
    lg_admission a1, a2, a3, again;
    int64_t now = lg_now_ms(), deadline = now + 600000;
    assert_int_equal(lg_store_admit(s, &sc, &t1, LG_PREFER_CURRENT, now, deadline, NULL, snap, &a1), 0);
    assert_int_equal(lg_store_admit(s, &sc, &t2, LG_PREFER_CURRENT, now, deadline, NULL, snap, &a2), 0);
    assert_true(a1.reserved && a2.reserved);
    assert_int_equal(a1.idx, a2.idx);
    assert_true(a1.at_ms <= now);
    assert_true(a2.at_ms > now); /* the grant's second place, a bucket on */
    assert_int_equal(lg_store_release(s, &sc, &t1), 0);
    assert_int_equal(lg_store_admit(s, &sc, &t2, LG_PREFER_CURRENT, now, deadline, NULL, snap, &again), 0);
    assert_true(again.reserved);
    assert_true(again.at_ms <= now); /* swapped for the place given back */
    assert_int_equal(lg_store_admit(s, &sc, &t3, LG_PREFER_CURRENT, now, deadline, NULL, snap, &a3), 0);
    assert_int_equal(a3.idx, a2.idx);
    assert_int_equal(a3.at_ms, a2.at_ms); /* ticket 2's place, given back */
    int64_t bucket = t3.bucket;
    assert_int_equal(lg_store_admit(s, &sc, &t3, LG_PREFER_CURRENT, now, deadline, NULL, snap, &again), 0);
    assert_true(again.reserved);
    assert_int_equal(again.at_ms, a3.at_ms); /* nothing sooner: kept */
    assert_int_equal(t3.bucket, bucket);
    lg_store_release(s, &sc, &t2);
    lg_store_release(s, &sc, &t3);
    lg_store_close(s);
    lg_config_free(cfg);
}

static void nothing_listening_fails_open_fast(void **state)
{
    fixture *f = *state;
    char url[64], err[256];
    snprintf(url, sizeof url, "redis://127.0.0.1:%d", free_port());
    lg_config *c = config_for(url);
    assert_non_null(c);
    lg_store *s = lg_store_open_config(c, err, sizeof err);
    assert_non_null(s);
    assert_string_equal(lg_store_backend(s), "redis");
    lg_store_scope sc = scope(f, "down", 1, 0, 60000);
    lg_store_ticket t[3] = {{0}};
    lg_account_state snap[2];
    lg_admission ad;
    int64_t t0 = lg_mono_ms();
    for (int i = 0; i < 3; i++) /* three requests, each holding its own reservation */
        assert_int_equal(lg_store_admit(s, &sc, &t[i], LG_PREFER_CURRENT, lg_now_ms(), lg_now_ms() + 100000, NULL, snap, &ad), 0);
    assert_true(lg_mono_ms() - t0 < 1000);
    /* The local (machine) store took them: one per window per account, so the third waits. */
    assert_true(ad.reserved);
    assert_true(ad.at_ms > lg_now_ms() + 30000);
    lg_store_close(s);
    lg_config_free(c);
}

static void immediate_cb(const char *p, const char *name, const char *dig, const lg_account_slot *slot, void *ctx)
{
    if (!strcmp(p, "fold") && !strcmp(name, "a"))
        *(uint64_t *)ctx = slot->counters.immediate;
}

static void fold_prov_cb(const char *provider, const lg_provider_slot *slot, void *ctx)
{
    if (!strcmp(provider, "fold"))
        *(lg_provider_slot *)ctx = *slot;
}

/* The folded steps under redis: the first admission's counter in the admission script, the breaker and the
 * retry budget in this machine's store, a breaker open refusing before Redis is asked. */
static void folded_steps_in_redis(void **state)
{
    fixture *f = *state;
    lg_store_scope sc = scope(f, "fold", 0, 0, 60000);
    lg_breaker_conf bc = {.failure_ratio = 0.5, .min_requests = 10, .window_ms = 30000, .consecutive_failures = 2,
                          .open_ms = 30000, .open_max_ms = 300000};
    sc.breaker = &bc;
    lg_store_ticket t = {0};
    lg_account_state snap[2] = {0};
    lg_admission ad;
    lg_admit_opts opts = {.breaker = true, .count = true, .ev = LG_EV_IMMEDIATE};
    int64_t now = lg_now_ms();
    assert_int_equal(lg_store_admit(f->redis, &sc, &t, LG_PREFER_CURRENT, now, now + 1000, &opts, snap, &ad), 0);
    assert_true(ad.reserved);
    assert_int_equal(ad.breaker, LG_BREAKER_ALLOW);
    uint64_t immediate = 0;
    assert_int_equal(lg_store_visit(f->redis, immediate_cb, &immediate), 0);
    assert_int_equal(immediate, 1);

    lg_outcome o = {.state = LG_STATE_PROVIDER_DOWN, .reason = LG_REASON_SERVER_ERROR, .retry_after_ms = LG_NO_HINT,
                    .retry_at_ms = LG_NO_HINT};
    lg_store_attempt at = {.outcome = &o, .first = true, .breaker = LG_BREAKER_NOTE_FAILURE};
    assert_int_equal(lg_store_record(f->redis, &sc, &t, 0, &at, now, snap), 0);
    at.first = false;
    assert_int_equal(lg_store_record(f->redis, &sc, &t, 0, &at, now + 1, snap), 0);
    lg_provider_slot p;
    memset(&p, 0, sizeof p);
    assert_int_equal(lg_store_visit_providers(f->redis, fold_prov_cb, &p), 0);
    uint32_t requests = 0;
    for (int i = 0; i < LG_BUDGET_BUCKETS; i++)
        requests += p.budget.requests[i];
    assert_int_equal(requests, 1);
    assert_int_equal(p.breaker.state, LG_BREAKER_OPEN);

    t.held = false;
    assert_int_equal(lg_store_admit(f->redis, &sc, &t, LG_PREFER_CURRENT, now + 2, now + 1000, &opts, snap, &ad), 0);
    assert_int_equal(ad.breaker, LG_BREAKER_REJECT);
    assert_true(ad.breaker_retry_ms > 0);
    assert_false(ad.reserved);
    assert_false(t.held);
    assert_int_equal(lg_store_visit(f->redis, immediate_cb, &immediate), 0);
    assert_int_equal(immediate, 1);
}

static void urls_parse(void **state)
{
    lg_redis_url u;
    char err[256];
    assert_true(lg_redis_url_parse("redis://h.example:6380/2", &u, err, sizeof err));
    assert_string_equal(u.host, "h.example");
    assert_int_equal(u.port, 6380);
    assert_int_equal(u.db, 2);
    assert_string_equal(u.pass, "");
    assert_true(lg_redis_url_parse("redis://app:p%40ss:w@10.0.0.1", &u, err, sizeof err));
    assert_string_equal(u.user, "app");
    assert_string_equal(u.pass, "p%40ss:w");
    assert_string_equal(u.host, "10.0.0.1");
    assert_int_equal(u.port, 6379);
    assert_true(lg_redis_url_parse("redis://:secret@h", &u, err, sizeof err));
    assert_string_equal(u.user, "");
    assert_string_equal(u.pass, "secret");
    assert_true(lg_redis_url_parse("redis://secret@h", &u, err, sizeof err));
    assert_string_equal(u.pass, "secret");
    assert_true(lg_redis_url_parse("unix://:pw@/run/redis/redis.sock?db=3", &u, err, sizeof err));
    assert_string_equal(u.socket, "/run/redis/redis.sock");
    assert_string_equal(u.pass, "pw");
    assert_int_equal(u.db, 3);
    const char *bad[] = {"redis://", "redis://h:0", "redis://h:99999", "redis://h/x", "unix://relative",
                         "http://h", "redis://:topsecret@h:port"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_false(lg_redis_url_parse(bad[i], &u, err, sizeof err));
        assert_null(strstr(err, "topsecret"));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(lua_window_matches_c_window, setup, teardown),
        cmocka_unit_test_setup_teardown(lua_window_matches_the_c_scan, setup, teardown),
        cmocka_unit_test_setup_teardown(lease_grant_matches_brute_force, setup, teardown),
        cmocka_unit_test_setup_teardown(cooldown_and_counters_are_shared, setup, teardown),
        cmocka_unit_test_setup_teardown(jitter_probe_and_notice_in_redis, setup, teardown),
        cmocka_unit_test_setup_teardown(a_leased_place_is_swapped_for_a_sooner_one, setup, teardown),
        cmocka_unit_test_setup_teardown(nothing_listening_fails_open_fast, setup, teardown),
        cmocka_unit_test_setup_teardown(folded_steps_in_redis, setup, teardown),
        cmocka_unit_test(urls_parse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
