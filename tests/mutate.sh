#!/usr/bin/env bash
# make mutate: breaks the code on purpose, one mutation at a time, in a scratch copy of the tree, and
# shows that the tests meant to guard each behaviour fail. Each mutation is a literal text replacement
# in one source file; when its text is no longer found exactly once (the code was rewritten), the run
# fails loudly instead of reporting a mutation that was never applied. The unmutated copy runs the same
# tests first: a mutation only counts as caught against a green baseline.
# Usage: tests/mutate.sh [NAME...]   (only the named mutations; default all)
# Prints a table: mutation, tests run, caught (yes/no) and the tests that failed. Exits non-zero when a
# mutation survives, cannot be applied or does not build, or when the baseline is not green.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PY=/usr/bin/python3
SCRATCH=$(mktemp -d /tmp/llmgate-mutate.XXXXXX)
trap 'rm -rf "$SCRATCH"' EXIT
TREE=$SCRATCH/tree

# The mutations: NAME|FILE|TESTS (space-separated run.sh patterns), then the text to find and its
# replacement, each on its own line ("{NL}" stands for a newline).
MUTATIONS=$(cat <<'EOF'
relay-ca-unconstrained|src/relay/ca.c|test_relay
              add_ext(ca->cert, NULL, NID_name_constraints, nc) && X509_sign(ca->cert, ca->key, EVP_sha256());
              X509_sign(ca->cert, ca->key, EVP_sha256());
webpki-leaf-subject-unpermitted|src/relay/ca.c|test_relay
    ok = ok && dl > (int)skip && webpki_subtree(perm, &pl, sizeof perm, 0xa4, dn + skip, (size_t)dl - skip) &&
    ok = ok && dl > (int)skip &&
gateway-token-ignored|src/relay/gateway.c|test_relay_gateway
    if (need_token && !token)
    if (0 && need_token && !token)
gateway-stranger-admitted|src/relay/gateway.c|test_relay_gateway
    gw_conn g = {.up = {.fd = -1}, .stranger = !need_token && lg_relay_peer_uid(fd) != me};
    gw_conn g = {.up = {.fd = -1}, .stranger = !need_token && me < 0};
peer-row-one-address|src/relay/peer.c|test_relay_peer
    return !strcasecmp(l, local) && !strcasecmp(r, remote) ? (long)uid : -1;
    return !strcasecmp(l, local) ? (long)uid : -1;
names-v4mapped-unmatched|src/hook/sock/names.c|test_relay
    if (a->ss_family != AF_INET6 || len < sizeof *v6 || !IN6_IS_ADDR_V4MAPPED(&v6->sin6_addr)) {
    if (1) {
java-trust-skipped|src/cli/cmd_run.c|test_relay
        ok = (kind != REACH_JAVA || lg_cli_java_trust(cmd, ca, err, sizeof err)) &&
        ok = (kind != REACH_JAVA || true) &&
relay-java-untrusted-led|src/hook/sock/relay_redirect.c|test_relay
    if (own && java && !lg_java_trusts_relay(getenv("JAVA_TOOL_OPTIONS"), getenv("_JAVA_OPTIONS")))
    if (0 && own && java && !lg_java_trusts_relay(getenv("JAVA_TOOL_OPTIONS"), getenv("_JAVA_OPTIONS")))
relay-child-trust-own-kind-only|src/cli/cmd_run.c|test_relay
             trust_var("SSL_CERT_FILE", sys_roots, webpki, err, sizeof err);
             (kind != REACH_RUSTLS || trust_var("SSL_CERT_FILE", sys_roots, webpki, err, sizeof err));
tls-read-waits-in-kernel|src/hook/tls/ssl_nowait.c|test_server_matrix test_sock_timeout
    ssize_t r = lg_sock_real_get()->recv((int)(intptr_t)BIO_get_data(b), p, (size_t)n, MSG_DONTWAIT);
    ssize_t r = lg_sock_real_get()->recv((int)(intptr_t)BIO_get_data(b), p, (size_t)n, 0);
tls-read-polls-first|src/hook/tls/ssl_transport.c|test_tls_syscalls
    int ok = lg_ssl_read_nowait(&c->nowait, wire, p, n, got, err);
    int ok = LG_SSL_NOWAIT_NONE;
bio-f-ssl-libssl-own|src/hook/tls/ssl_bio.c|test_tls_bio
    if (method)
    if (0)
bio-read-past-interposers|src/hook/tls/ssl_bio.c|test_tls_bio
    SSL *ssl = p ? followed(b, false) : NULL;
    SSL *ssl = NULL;
bio-nbio-no-retry-read|src/hook/tls/ssl_bio.c|test_tls_bio
        BIO_set_retry_read(b);
        (void)b;
fallback-unreached-transport-error|src/gate/exchange.c|test_fallback_unreached test_plain_tls_target
        if (x->has_before && failure != LG_ATTEMPT_ABANDONED) /* no fallback answered: the answer before */
        if (0)
fallback-unreached-nothing-kept|src/gate/exchange_local.c|test_fallback_unreached
    x->has_before = true;
    x->has_before = false;
own-tls-target-no-libssl-loaded|src/hook/sock/tls_conn.c|test_plain_tls_target
    bool loaded = dlopen("libssl.so.3", RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE) != NULL;
    bool loaded = false;
own-tls-target-other-name|src/hook/sock/tls_conn.c|test_plain_tls_target
                       : X509_VERIFY_PARAM_set1_host(param, t->host, 0) == 1 &&
                       : X509_VERIFY_PARAM_set1_host(param, "other.example", 0) == 1 &&
own-tls-target-unverified|src/hook/sock/tls_conn.c|test_plain_tls_target
    real->set_verify(s->ssl, SSL_VERIFY_PEER, NULL);
    real->set_verify(s->ssl, SSL_VERIFY_NONE, NULL);
own-tls-target-not-offered|src/hook/sock/front_host.c|test_plain_tls_target
    .own_tls_open = lg_h1_tls_open,
    .own_tls_open = NULL,
own-tls-target-read-gives-up|src/hook/sock/tls_conn.c|test_plain_tls_target
    if (r <= 0 && wants(s, real, r)) {
    if (r <= 0 && wants(s, real, r) && 0) {
plain-target-read-waits-in-kernel|src/hook/sock/plain_conn.c|test_fallback_timeout
static ssize_t plain_recv(void *io, void *p, size_t n) { return lg_h1_fd_recv(*(int *)io, p, n, true); }
static ssize_t plain_recv(void *io, void *p, size_t n) { return lg_h1_fd_recv(*(int *)io, p, n, false); }
own-connect-unbounded|src/util/tcp_connect.c|test_fallback_timeout
        if (!nonblock && until_ms > 0)
        if (0)
plain-target-send-waits-in-kernel|src/hook/sock/plain_conn.c|test_fallback_timeout
    int flags = MSG_NOSIGNAL | (until_ms > 0 ? MSG_DONTWAIT : 0);
    int flags = MSG_NOSIGNAL;
attempt-send-unbounded|src/front/h1_attempt.c|test_fallback_timeout test_relay_timeout
    bool sent = c->wio->send(c->wctx, wire, len, until);
    bool sent = c->wio->send(c->wctx, wire, len, 0);
attempt-answer-timer-after-send|src/front/h1_attempt.c|test_fallback_timeout test_relay_timeout
    c->heard_ms = c->watched ? began : 0;
    c->heard_ms = c->watched ? lg_now_ms() : 0;
relay-up-blocking|src/relay/upstream.c|test_relay_timeout
    return fl >= 0 && fcntl(u->fd, F_SETFL, fl | O_NONBLOCK) == 0;
    return fl >= 0;
relay-up-send-unbounded|src/relay/upstream.c|test_relay_timeout
        else if (!up_wants(u, w, POLLOUT) || wait_fd(u->fd, u->want == POLLOUT, until_ms) != LG_WAIT_READY)
        else if (!up_wants(u, w, POLLOUT) || wait_fd(u->fd, u->want == POLLOUT, 0) != LG_WAIT_READY)
repl-handshake-unbounded|src/hook/tls/ssl_transport.c|test_fallback_timeout
    int64_t until = c->repl ? c->repl_until : 0;
    int64_t until = 0;
fortified-recv-unhooked|src/hook/sock/fortify.c|test_sock_fortify
EXPORT ssize_t __recv_chk(int fd, void *p, size_t n, size_t buflen, int flags)
__attribute__((unused)) static ssize_t __recv_chk(int fd, void *p, size_t n, size_t buflen, int flags)
fortified-read-unhooked|src/hook/sock/fortify.c|test_sock_fortify
EXPORT ssize_t __read_chk(int fd, void *p, size_t n, size_t buflen)
__attribute__((unused)) static ssize_t __read_chk(int fd, void *p, size_t n, size_t buflen)
gnutls-read-waits-in-kernel|src/hook/tls/gnutls_conns.c|test_server_matrix
    if (fd >= 0 && !lg_gnutls_real_get()->record_check_pending(wire) &&
    if (0 && !lg_gnutls_real_get()->record_check_pending(wire) &&
relay-secret-ignored|src/relay/preamble.c|test_relay_preamble
        if (t == 0xE0 && l == strlen(secret) && CRYPTO_memcmp(b + off, secret, l) == 0)
        if (t == 0xE0)
lease-ended-bucket-used|src/limiter/lease.c|test_lease
    return close > now_ms && close > bucket_open(l, j) && l->requests[j] >= 1 &&
    return close > bucket_open(l, j) && l->requests[j] >= 1 &&
lease-skew-error-ignored-at-open|src/limiter/lease.c|test_lease
    return lg_lease_bucket_start(l, j) + l->skew_err_ms;
    return lg_lease_bucket_start(l, j);
lease-skew-error-ignored-at-close|src/limiter/lease.c|test_lease
    return lg_lease_bucket_start(l, j + 1) - l->skew_err_ms;
    return lg_lease_bucket_start(l, j + 1);
lease-skew-latest-measure|src/limiter/lease.c|test_lease
        if (l->skew_err_ms + aged < skew_err_ms)
        if (false)
lease-room-one-bucket|src/limiter/lease.c|test_lease
        room += l->requests[j];
        room = l->requests[j];
lease-refused-asked-again|src/limiter/lease.c|test_lease
    l->asking_until_ms = not_before_ms;
    l->asking_until_ms = 0;
lease-exit-not-the-last|src/limiter/lease.c|test_lease
    return was && !others;
    return was;
lease-takers-lost-at-grant|src/limiter/lease.c|test_lease
    memcpy(l->takers, takers, sizeof takers);
    (void)takers;
lease-taker-by-pid-alone|src/limiter/lease.c|test_lease
    return a->pid == b->pid && a->start == b->start;
    return a->pid == b->pid;
lease-exit-scope-not-noted|src/store/redis_lease.c|test_redis_lease
        note_exit_scope(s, sc);
        (void)note_exit_scope;
redis-layout1-fields-kept|src/store/redis_script.lua|test_redis_layout
        a.d[name], a.dirty = true, true
        a.dirty = true
redis-foreign-layout-written|src/store/redis_script.lua|test_redis_layout
  if lv and lv ~= LAYOUT then
  if false then
lease-grant-over-room|src/store/redis_lease.lua|test_redis_lease
        if room < q then q = room end
        q = q
lease-granted-a-window-ahead|src/store/redis_lease.lua|test_redis_lease
    if again > now then
    if false then
lease-grants-two-leases-ahead|src/store/redis_lease.lua|test_redis_lease
local LEASE_AHEAD = 3 * LEASE_N
local LEASE_AHEAD = 2 * LEASE_N
lease-held-never-swapped|src/store/redis_lease.c|test_redis_store
    if (h && (best < 0 || at >= h->at_ms || acc[h->account]->lease.id != h->lease)) {
    if (h) {
lease-share-not-fair|src/store/redis_lease.lua|test_redis_lease
  local total = share < math.huge and math.min(ask, fair_total(a, me, share, span)) or ask
  local total = share < math.huge and math.min(ask, share) or ask
lease-grant-suffix-max-lost|src/store/redis_lease.lua|test_redis_store
        if s + B - e0 < n then suf[s + B - e0] = top end
        if s + B - e0 < n then suf[s + B - e0] = sum end
lua-limit-never-binds|src/store/redis_script.lua|test_redis_store
  if lim <= 0 then return false end
  if true then return false end
lease-grant-paced|src/store/redis_lease.lua|test_redis_lease
    local q, capped = math.min(dense, total - got), {}
    local q, capped = math.min(1, total - got), {}
lease-places-uncounted|src/store/redis_lease.lua|test_redis_lease
      a.q[j] = (a.q[j] or 0) + need[0]; a.k[j] = (a.k[j] or 0) + need[1]
      a.k[j] = (a.k[j] or 0) + need[1]
dead-waiter-kept|src/store/shm_ops.c|test_dead_waiter
    lg_holds_reap(m, me, now_ms, lg_owner_alive, NULL); /* a dead waiter's place is free again */
    (void)me;
redis-dead-owner-kept|src/store/redis.c|test_dead_waiter
        if (round > 0 || now_goes || !dead_owners(r, dead, sizeof dead))
        if (1 || round > 0 || now_goes || !dead_owners(r, dead, sizeof dead))
store-overfull|src/conf/config.c|test_store_capacity
    conf_check_capacity(cx, c);
    (void)0;
ungated-silent|src/front/h1_conn.c|test_ungated_notice
        lg_ungated(c->store, c->prov->name, cause);
        (void)cause;
stale-resend|src/hook/curl/shape.c|test_curl_cli
    if (LG_UNLIKELY(x->sends++ > 0 && !x->cap.lines_seen)) {
    if (LG_UNLIKELY(x->sends++ > 99 && !x->cap.lines_seen)) {
read-body-not-held|src/hook/curl/xfer.c|test_guzzle
    if (LG_UNLIKELY(lg_curl_body_is_read(r)) && lg_curl_body_hold(&x->body, r, rt->cfg->max_held_body)) {
    if (0 && lg_curl_body_hold(&x->body, r, rt->cfg->max_held_body)) {
held-reader-left|src/hook/curl/shape.c|test_curl_options
        lg_shape_put_host_reader(real, h, r);
        (void)0;
sticky|src/limiter/slots.c|test_curl_cli
    size_t pref = preferred < n ? preferred : cur < n ? cur : 0;
    size_t pref = preferred < n ? preferred : cur < n ? 0 : 0;
limiter-off|src/limiter/window.c|test_limiter test_plain_host test_window
    return l->limit[0] <= 0 && l->limit[1] <= 0;
    return l->limit[0] <= 0 || l->limit[1] >= 0;
fallback-budget-unasked|src/gate/spend_gate.c|test_spend
    return !x->spend.ended && x->spend_prov != x->req.prov;
    return !x->spend.ended && !x->spend_prov;
budget-ignores-pending|src/spend/budget.c|test_spend
    return (double)spent + (double)(s->pending_nusd > 0 ? s->pending_nusd : 0) < limit;
    return (double)spent < limit;
fleet-budget-unheard|src/spend/fleet.c|test_spend_fleet
            slot->fleet_nusd = totals[i];
            (void)totals;
fleet-push-per-request|src/spend/fleet.c|test_spend_fleet
    if ((!n && !cfg->n_budgets) || (n < (uint64_t)cfg->spend_flush_requests && now_ms - last < cfg->spend_flush_ms))
    if (!n && !cfg->n_budgets)
html-bars-misdrawn|src/cli/usage_html.c|test_spend
        double v = fig(&t->g[i].c), h = max > 0 ? v / max * plot_h : 0;
        double v = fig(&t->g[i].c), h = max > 0 ? v / max * plot_h * 0.9 : 0;
prometheus-models-uncapped|src/cli/cmd_usage.c|test_usage_prometheus
    cap_models(&tm);
    (void)cap_models;
tz-day-utc|src/util/tz.c|test_tz
    return floor_div(s + lg_tz_offset(tz, s), DAY_S);
    return floor_div(s, DAY_S);
run-sum-edge|src/limiter/window.c|test_window_sums
    if (e <= w->run_end && e >= w->run_end - B) {
    if (e <= w->run_end && e > w->run_end - B) {
fast-path-ignores-ahead|src/limiter/window.c|test_window_sums
    if (LG_LIKELY(w->span_ms == a.span && w->top <= a.k0)) {
    if (LG_LIKELY(w->span_ms == a.span)) {
window-own-run-skipped-anywhere|src/limiter/window.c|test_window
            (last_bad != j || t == start_of(j, span)))
            (last_bad != j || true))
window-now-admission-marked|src/limiter/window.c|test_window
    mark_starts(w, e, at_ms == start_of(e, span) && ((!b->requests && !b->tokens) || starts_only(w, true, e)));
    mark_starts(w, e, ((!b->requests && !b->tokens) || starts_only(w, true, e)));
window-marks-unused|src/limiter/window.c|test_window test_window_sums
        if ((before < j - B || (before == j - B && starts_only(w, same_span, j - B))) &&
        if ((before < j - B || (before == j - B && false)) &&
lua-now-admission-marked|src/store/redis_script.lua|test_redis_store
  local marked = at == start_of(e, span) and (((a.q[e] or 0) == 0 and (a.k[e] or 0) == 0) or starts_only(a, true, e))
  local marked = (((a.q[e] or 0) == 0 and (a.k[e] or 0) == 0) or starts_only(a, true, e))
lua-scan-stretch-mark-ignored|src/store/redis_script.lua|test_redis_store
      local f = last_bad + B + (starts_only(a, same, last_bad) and 0 or 1)
      local f = last_bad + B + 1
lua-scan-stretch-last-fit-missed|src/store/redis_script.lua|test_redis_store
      last_bad = next_j - 1
      last_bad = next_j - 2
lua-marks-unused|src/store/redis_script.lua|test_redis_store
    if j >= k0 and (before < j - B or (before == j - B and starts_only(a, same, j - B))) then
    if j >= k0 and (before < j - B or (before == j - B and false)) then
lua-mark-dropped-on-adjust|src/store/redis_script.lua|test_redis_store
  local marked = a.z[ticket] == a.q[ticket] -- the times stay; a mark lost (a lease's places) stays lost
  local marked = false
no-rotation|src/limiter/policy.c|test_curl_cli test_policy
    a.account = i;
    a.account = current;
no-doubling|src/limiter/policy.c|test_curl_cli test_policy
        d *= 2;
        d *= 1;
quota-waits|src/limiter/policy.c|test_curl_cli
return n > 1 ? switch_account(s, n, current, mask, 0, now_ms) : wait_cooldown(s, current, now_ms);
return n > 1 ? switch_account(s, n, current, mask, r->switch_delay_ms, now_ms) : wait_cooldown(s, current, now_ms);
retry-after-ms-giveup|src/front/resp_lines.c|test_curl_cli
!lg_lines_add(out, "Retry-After: %ld\r\n", lg_retry_after_s(res->retry_after_ms))) ||
!lg_lines_add(out, "Retry-After: %ld\r\n", (long)res->retry_after_ms)) ||
retry-after-ms-refusal|src/front/resp_lines.c|test_limiter test_plain_host
            lg_lines_add(out, "Retry-After: %ld\r\n", lg_retry_after_s(res->retry_after_ms))) &&
            lg_lines_add(out, "Retry-After: %ld\r\n", (long)res->retry_after_ms)) &&
refusal-body|src/gate/synth.c|test_curl_cli
quota ? "insufficient_quota" : "rate_limit_exceeded");
quota ? "insufficient_quota" : "rate_limited");
key-slice-logged|src/hook/curl/auth.c|test_curl_cli
    struct curl_slist *head = NULL, *tail = NULL;{NL}    bool carried = key_elsewhere || !key;
    struct curl_slist *head = NULL, *tail = NULL;{NL}    bool carried = key_elsewhere || !key;{NL}    lg_log(LG_LOG_WARN, "[Auth] %.10s", key && strlen(key) > 3 ? key + 3 : "-");
key-slice-logged|src/hook/curl/auth.c|
#include "llmgate/url.h"
#include "llmgate/url.h"{NL}#include "llmgate/log.h"
log-file-mode|src/util/log.c|test_curl_cli
O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
literal-key-shown|src/conf/keys.c|test_check_config
asprintf(&ref, "literal:%s", acct->digest)
asprintf(&ref, "literal:%.10s", key + 3)
field-rules-skipped|src/conf/config.c|test_config
    if (s->check)
    if (0 && s->check)
first-field-default-lost|src/conf/config_defaults.c|test_config
        default_field(&s->fields[i], base);
        if (i > 0) default_field(&s->fields[i], base);
lockstep|src/limiter/policy.c|test_probe test_storm
    st->probe_until_ms = now_ms + LG_PROBE_LEASE_MS;
    return false;
no-budget|src/limiter/budget.c|test_resilience
    if (retries + 1 > (allowed > floor ? allowed : floor))
    if (0 && retries + 1 > (allowed > floor ? allowed : floor))
breaker-never-opens|src/limiter/breaker.c|test_resilience
    if (by_ratio || by_run)
    if (0 && (by_ratio || by_run))
fold-breaker-ignored|src/limiter/slots.c|test_store_fold
        if (out.breaker == LG_BREAKER_REJECT)
        if (0 && out.breaker == LG_BREAKER_REJECT)
fold-budget-unspent|src/gate/accounts.c|test_admission
                           .first = !a->budget_noted,
                           .first = false,
no-fallback|src/gate/exchange.c|test_resilience
    size_t next = x->chain_i + 1;
    size_t next = x->n_chain;
fallback-waits|src/limiter/policy.c|test_fallback_credit test_billing test_exchange
    return has_fallback && waited_ms + wait_ms > r->fallback_after_ms;
    return has_fallback && 0;
billing-unread|src/classify/classify.c|test_billing
        lg_cls_billing(out, st, r);
        (void)0;
multi-pause-refused|src/hook/curl/deliver.c|test_curl_pause
        if (LG_UNLIKELY(w == CURL_WRITEFUNC_PAUSE) && r->multi_xfer && keep_rest(r, p + off, len - off))
        if (LG_UNLIKELY(w == CURL_WRITEFUNC_PAUSE) && 0 && r->multi_xfer && keep_rest(r, p + off, len - off))
sock-timeout-ignored|src/front/h1_exchange.c|test_sock_timeout
        bool cut = until_ms > 0 && until_ms < step.at_ms; /* the host's timeout comes first */
        bool cut = 0 && until_ms < step.at_ms; /* the host's timeout comes first */
key-refused-not-aside|src/limiter/policy.c|test_key_refused test_billing
static bool is_refusal(const lg_outcome *o) { return o->state == LG_STATE_NON_RETRYABLE && o->account_rejected; }
static bool is_refusal(const lg_outcome *o) { return false && o->account_rejected; }
phase-untraced|src/gate/exchange.c|test_exchange
    if (LG_UNLIKELY(lg_log_debugging))
    if (0)
phase-change-skipped|src/gate/exchange.c|test_exchange
    set_phase(x, X_SENT, "admitted");
    (void)0;
request-line-skipped|src/gate/exchange_trace.c|test_exchange test_debug_line
        trace_request(x, request_outcome(&x->res));
        (void)request_outcome;
wake-from-front|src/hook/tls/ssl_conns.c|test_emulation_server
    size_t at = c->wake_at < n - w ? c->wake_at : n - w;
    size_t at = 0;
pools-ignored|src/limiter/policy.c|test_resilience
    if (!pool && pool_fallback) {
    if (0) {
memo-any-mapping|src/store/shm_index.h|test_store
    if (h->map != m || h->n != n || h->epoch != lg_shm_index_epoch())
    if (h->n != n || h->epoch != lg_shm_index_epoch())
model-hash-stale|src/gate/accounts.c|test_engine_memo
                                .model_hash = model_hash(model),
                                .model_hash = a->scope.model_hash ? a->scope.model_hash : model_hash(model),
model-hash-memo-unchecked|src/gate/accounts.c|test_engine_memo
    if (l->hash && !strcmp(l->model, model))
    if (l->hash)
one-account-shortcut-wide|src/limiter/slots.c|test_engine_memo
    bool all = n == 1 || !sc->accounts;
    bool all = n <= 2 || !sc->accounts;
hint-unchecked|src/store/shm_index.c|test_store
        if (!e->used || !holds(e->digest, refs[i].digest) || !holds(e->name, refs[i].name) ||
        if (!e->used || (0 && !holds(e->digest, refs[i].digest)) || (0 && !holds(e->name, refs[i].name)) ||
redirect-leaks-key|src/hook/curl/xfer.c|test_redirect
    bool ours = same_origin(from, to) ||
    bool ours = 1 || same_origin(from, to) ||
kept-shape-leaks|src/hook/curl/shape.c|test_handle_reuse
    if (r->kept && r->kept->installed){NL}        lg_shape_restore_host(r->kept);
    if (0 && r->kept && r->kept->installed){NL}        lg_shape_restore_host(r->kept);
kept-shape-stale|src/hook/curl/xfer.c|test_handle_reuse
    bool fresh = !x->installed || x->gen != r->gen || x->headers_print != print || !x->base_url;
    bool fresh = !x->installed || !x->base_url;
kept-key-spot|src/hook/curl/auth.c|test_handle_reuse
    if (l && l->data && !strncmp(l->data, spot->prefix, spot->off)) {
    if (l && l->data) {
capture-status-plain|src/front/capture.c|test_capture
(unsigned)(d[2] - '0') < 10 && (unsigned)(d[3] - '0') >= 10;
(unsigned)(d[2] - '0') < 10;
capture-stream-gate|src/front/capture.c|test_capture
c->event_stream = end - v >= 17 && lg_is_event_stream(h->value);
c->event_stream = end - v > 17 && lg_is_event_stream(h->value);
capture-content-type-case|src/front/capture.c|test_capture
    const char *head = "       \0", *tail = "   \0    ";
    const char *head = "\0\0\0\0\0\0\0\0", *tail = "   \0    ";
capture-lines-skipped|src/hook/curl/xfer.c|test_handle_reuse test_curl_cli
    x->cap.skip_lines = !lg_curl_takes_headers(r);
    x->cap.skip_lines = true;
auth-name-words|src/front/auth_key.c|test_auth_key
(lg_load8(s + 5) | lower) == lg_load8("rization");
(lg_load8(s + 4) | lower) == lg_load8("orizatio");
memo-generation-unchecked|src/gate/accounts.c|test_engine_memo
    a->memo_kept = gen && l->generation == gen && l->prov == req->prov && l->n == a->n &&
    a->memo_kept = gen && l->prov == req->prov && l->n == a->n &&
memo-digests-unchecked|src/gate/accounts.c|test_engine_memo
        if (memcmp(a[i], b[i], LG_DIGEST_HEX) != 0)
        if (0 && memcmp(a[i], b[i], LG_DIGEST_HEX) != 0)
memo-epoch-unchecked|src/store/shm_index.h|test_store
    if (h->map != m || h->n != n || h->epoch != lg_shm_index_epoch())
    if (h->map != m || h->n != n)
ratelimit-exact-any-separator|src/classify/rl_header.c|test_learn test_rl_header
        plain = plain && len && (!c || c == '-');
        plain = plain && len;
ratelimit-io-swapped|src/classify/rl_header.c|test_rl_header
        out->dim = r->io == 1 ? LG_DIM_INPUT_TOKENS : r->io == 2 ? LG_DIM_OUTPUT_TOKENS : LG_DIM_TOKENS;
        out->dim = r->io == 2 ? LG_DIM_INPUT_TOKENS : r->io == 1 ? LG_DIM_OUTPUT_TOKENS : LG_DIM_TOKENS;
reset-usual-duration-floored|src/classify/rl_header.c|test_rl_header
            *ms = ns / 1000000 + (ns % 1000000 != 0);
            *ms = ns / 1000000;
count-nineteen-digits-wrap|src/classify/rl_header.c|test_rl_header
    if (p > v && !*p && p - v <= 18) {
    if (p > v && !*p && p - v <= 19) {
pin-separator-lost|src/gate/exchange_plan.c|test_resilience
    x->sep_known = true;
    x->sep_known = true, x->sep = NULL;
slots-all-usable-wide|src/limiter/slots.c|test_engine_memo
    while (!all && !usable[pref])
    while (0 && !usable[pref])
period-ignored|src/classify/classify.c|test_classify_rules test_classify_fixtures
    if ((s == LG_SIG_RATE || s == LG_SIG_LIMIT) && period == LG_SIG_QUOTA)
    if (0)
capacity-limit-unread|src/classify/text.c|test_classify_rules test_classify_fixtures
    "capacity limit", /* Qwen: "throttled due to system capacity limits" */
    /* mutated */
server-busy-unread|src/classify/text.c|test_classify_rules test_classify_fixtures
    "server busy", /* Ollama: "server busy, please try again.  maximum pending requests exceeded" */
    /* mutated */
no-slots-unread|src/classify/text.c|test_classify_rules test_classify_fixtures
    "no slots available", "no slot available", /* a model server whose every slot is taken */
    "no slot available", /* mutated */
no-slot-unread|src/classify/text.c|test_classify_rules test_classify_fixtures
    "no slots available", "no slot available", /* a model server whose every slot is taken */
    "no slots available", /* mutated */
token-bucket-unread|src/classify/text.c|test_classify_rules test_classify_fixtures
    "token bucket", /* Databricks: "RPC token bucket limit has been exceeded" */
    /* mutated */
zero-limit-timed|src/classify/text.c|test_classify_rules test_classify_fixtures
    r.period = zero || (long_period && !r.window_named) ? LG_SIG_QUOTA
    r.period = (long_period && !r.window_named) ? LG_SIG_QUOTA
billing-not-active-unread|src/classify/billing.c|test_billing
    "billing not active", /* OpenAI's type billing_not_active */
    /* mutated */
exceeded-current-quota-unread|src/classify/billing.c|test_billing
    "exceeded current quota", /* Moonshot's exceeded_current_quota_error: the balance is empty */
    /* mutated */
no-credits-unread|src/classify/text.c|test_billing test_classify_fixtures
    "more credits", "available credits", "have any credits" /* xAI: "team doesn't have any credits yet" */,
    "more credits", "available credits", /* mutated */
billing-credit-unasked|src/classify/billing.c|test_billing
    if (status != 402 && !answer_says_credit(out, r) &&
    if (status != 402 && !(0 && answer_says_credit(out, r)) &&
spark-one-at-a-time-unread|src/providers/spark.c|test_classify_rules test_classify_fixtures
    {10007, LG_SIG_RATE},     /* the user's previous question is still being answered */
    /* mutated */
spark-busy-unread|src/providers/spark.c|test_classify_rules test_classify_fixtures
    {10110, LG_SIG_CAPACITY}, /* the service is busy */
    /* mutated */
dify-codes-unread|src/providers/dashscope.c|test_classify_rules test_classify_fixtures
    lg_sig s = dify ? lg_code_table_signal(&dify_table, code, &specific) : LG_SIG_NONE;
    lg_sig s = dify && 0 ? lg_code_table_signal(&dify_table, code, &specific) : LG_SIG_NONE;
burst-rate-unread|src/providers/dashscope.c|test_classify_rules test_classify_fixtures
    {"limit_burst_rate", LG_SIG_RATE, true}, /* compatible mode: the request rate rose too fast (burst protection) */
    /* mutated */
zhipu-codes-unread|src/classify/codes.c|test_classify_rules
        table_lookup(&zhipu_codes, code, &s, specific))
        (0 && table_lookup(&zhipu_codes, code, &s, specific)))
exceeded-quota-code-unread|src/classify/codes.c|test_classify_rules test_classify_fixtures
        has_suffix(code, "_quota_exceeded") || exceeded_quota(code))
        has_suffix(code, "_quota_exceeded") || (0 && exceeded_quota(code)))
usage-cap-reached-unread|src/classify/classify.c|test_classify_rules test_classify_fixtures
    if (c->credit || (c->cap_reached && !c->window_named && st >= 400 && st <= 499))
    if (c->credit)
usage-cap-window-ignored|src/classify/classify.c|test_classify_rules
    if (c->credit || (c->cap_reached && !c->window_named && st >= 400 && st <= 499))
    if (c->credit || (c->cap_reached && st >= 400 && st <= 499))
google-error-reasons-unread|src/providers/google.c|test_classify_rules
    {"API_KEY_IP_ADDRESS_BLOCKED", LG_SIG_REJECT, true},
    /* mutated */
hunyuan-codes-unread|src/providers/tencent.c|test_classify_rules
    {"FailedOperation.ServiceNotActivated", LG_SIG_REJECT, true}, /* the service was never activated */
    /* mutated */
model-studio-bill-overdue-unread|src/providers/dashscope.c|test_classify_rules
    {"PrepaidBillOverdue", LG_SIG_QUOTA, true},  /* 429: the workspace's prepaid bill is due */
    /* mutated */
spark-engine-errors-unread|src/providers/spark.c|test_classify_rules
    {10012, LG_SIG_SERVER},   /* the engine's internal error */
    /* mutated */
minimax-internal-error-unread|src/providers/minimax.c|test_classify_rules
    {1024, LG_SIG_SERVER}, /* internal error */
    /* mutated */
openai-credit-exhausted-unread|src/classify/codes.c|test_classify_rules
    {"credit_balance_exhausted", LG_SIG_QUOTA, true},
    /* mutated */
bedrock-model-error-unread|src/classify/codes.c|test_classify_rules
    {"ModelErrorException", LG_SIG_SERVER, false},       /* the model failed while processing */
    /* mutated */
insufficient-balance-code-unread|src/classify/codes.c|test_classify_rules test_classify_cli
    if (!strncasecmp(code, "insufficient_", 13) && (has_suffix(code, "_balance") || has_suffix(code, "_credits")))
    if (0)
payment-past-due-unread|src/classify/text.c|test_classify_rules test_classify_cli
    "payment is past due", /* Ollama Cloud: "your subscription payment is past due" */
    /* mutated */
expired-plan-unread|src/classify/text.c|test_billing test_classify_fixtures
    "plan has expired", "plan expired", "subscription has expired", "subscription expired",
    /* mutated */
expired-plan-zh-unread|src/classify/text.c|test_billing test_classify_fixtures
    "\xe5\xa5\x97\xe9\xa4\x90\xe5\xb7\xb2\xe5\x88\xb0\xe6\x9c\x9f" /* 套餐已到期 (Zhipu 1309) */, "\xe5\xa5\x97\xe9\xa4\x90\xe5\xb7\xb2\xe8\xbf\x87\xe6\x9c\x9f" /* 套餐已过期 */,
    /* mutated */
payment-information-unread|src/classify/text.c|test_billing
    "payment information", /* DashScope FreeTierOnly: "please complete your payment information" */
    /* mutated */
prompt-tokens-fit-unread|src/classify/text.c|test_classify_rules test_classify_fixtures
    "tokens in the prompt", /* Cohere: "total number of tokens in the prompt cannot exceed 4081" */
    /* mutated */
count-in-span-unread|src/classify/text.c|test_classify_rules test_classify_fixtures
        } else if (i + 3 <= n && !strncasecmp(t + i, "in ", 3) && counted_before(t, i)) {
        } else if (0 && i + 3 <= n && !strncasecmp(t + i, "in ", 3) && counted_before(t, i)) {
max-is-got-unread|src/classify/text.c|test_classify_rules test_classify_fixtures
    } pairs[] = {{"limit", "requested"}, {"max is", "got"}};
    } pairs[] = {{"limit", "requested"}};
estimated-time-unread|src/classify/nested.c|test_classify_rules test_classify_fixtures
                                           "estimated_time" /* Hugging Face: a loading model's seconds until ready */};
                                           "estimated_time_" /* mutated */};
parallel-request-unread|src/classify/text.c|test_classify_rules test_classify_fixtures
    "concurren", "\xe5\xb9\xb6\xe5\x8f\x91" /* 并发 */, "parallel request" /* LiteLLM's max_parallel_requests */,
    "concurren", "\xe5\xb9\xb6\xe5\x8f\x91" /* 并发 */,
model-length-fit-unread|src/classify/text.c|test_classify_rules test_classify_fixtures
    "maximum model length", /* vLLM: "The decoder prompt (length 66501) is longer than the maximum model length" */
    /* mutated */
compact-offset-unread|src/classify/hint_prose.c|test_classify_rules test_classify_fixtures
    } else if (p < n && (t[p] == '+' || t[p] == '-') && n - p >= 5 && is_digit(t[p + 1]) && is_digit(t[p + 2]) &&
    } else if (0 && p < n && (t[p] == '+' || t[p] == '-') && n - p >= 5 && is_digit(t[p + 1]) && is_digit(t[p + 2]) &&
quoted-member-lazy-taken|src/classify/lazy.c|test_classify_rules test_classify_fixtures
    if (v[0] == '"' && v[1] == '{')
    if (0 && v[0] == '"' && v[1] == '{')
quoted-member-unread|src/classify/classify.c|test_classify_rules test_classify_fixtures
    else if (!c->error && !(found = lg_scan_quoted_members(c, doc, scan_document)))
    else if (!c->error)
choice-error-unread|src/providers/openai.c|test_classify_rules test_classify_fixtures
        if (cJSON_IsObject(err) && lg_openai_error_object(c, err))
        if (0 && cJSON_IsObject(err) && lg_openai_error_object(c, err))
lazy-error-mention-ignored|src/classify/lazy.c|test_classify_rules test_classify_fixtures
            if (at + 7 <= n && v[at + 1] == 'e' && !memcmp(v + at + 1, "error\"", 6))
            if (0 && at + 7 <= n && v[at + 1] == 'e' && !memcmp(v + at + 1, "error\"", 6))
alpn-h2-kept|src/hook/tls/alpn.c|test_alpn test_h2_clients
        return h2 || other ? LG_ALPN_H1 : LG_ALPN_AS_IS;
        return (h2 || other) && 0 ? LG_ALPN_H1 : LG_ALPN_AS_IS;
alpn-repl-h2|src/hook/tls/ssl_session.c|test_h2_clients
        lg_ssl_alpn_mirror(s, c->ssl);
        (void)0;
tfo-sendto-unfollowed|src/hook/sock/io.c|test_wget2
    if (to && (flags & MSG_FASTOPEN))
    if (0 && to && (flags & MSG_FASTOPEN))
gnutls-nonblocking-passed|src/hook/tls/gnutls_conns.c|test_wget2
    if (prov && (fd < 0 || fcntl(fd, F_GETFL) < 0 || h2)) {
    if (prov && (fd < 0 || (fcntl(fd, F_GETFL) & O_NONBLOCK) || h2)) {
store-space-not-reserved|src/util/file_space.c|test_store_full
        int rc = posix_fallocate(fd, 0, len);
        int rc = 0;
lock-garbage-ignored|src/store/shm_lock.c|test_store_stall
        if (rc != ETIMEDOUT && rc != EBUSY) { /* EINVAL, ENOTRECOVERABLE, ...: the lock word is garbage */
        if (rc != ETIMEDOUT && rc != EBUSY) { return false;
host-timeout-blamed|src/gate/accounts.c|test_host_timeout
                           : failure == LG_ATTEMPT_STALE || failure == LG_ATTEMPT_ABANDONED
                           : failure == LG_ATTEMPT_STALE
backoff-says-rate-limited|src/gate/exchange.c|test_messages
act.switched ? "switching account" : backoff_why(&res->outcome),
act.switched ? "switching account" : (backoff_why(&res->outcome), "rate limited, backing off"),
attempt-watch-never-fires|src/hook/curl/progress.c|test_attempt_timeout
    if (limit > 0 && now - x->watch_at_ms >= limit) {
    if (limit < 0 && now - x->watch_at_ms >= limit) {
openai-name-third-word-unread|src/classify/rl_header.h|test_rl_header
    return !(lg_word_differs(name, lit) | lg_word_differs(name + 8, lit + 8) | lg_word_differs(name + 16, lit + 16) |
    return !(lg_word_differs(name, lit) | lg_word_differs(name + 8, lit + 8) |
openai-slot-remaining-family-swapped|src/classify/rl_header.h|test_rl_header
    case 28: return 6 * lg_rlh_is_name(name, "x-ratelimit-remaining-tokens", 28);
    case 28: return 2 * lg_rlh_is_name(name, "x-ratelimit-remaining-tokens", 28);
learn-openai-slot-kind-shifted|src/limiter/learn.c|test_learn
            nm.kind = LG_RLH_LIMIT + ((os - 1) & 3);
            nm.kind = LG_RLH_LIMIT + (os & 3);
learn-first-name-not-kept|src/limiter/learn.c|test_learn
        if (!*slot)
        if (1)
capture-colon-tail-unread|src/front/capture.c|test_capture
            if (q + 8 == end)
            if (q + 16 >= end)
attempt-watch-head-unseen|src/hook/curl/progress.c|test_attempt_timeout_head
    curl_off_t seen = dlnow + (curl_off_t)x->cap.lines_seen;
    curl_off_t seen = dlnow + (curl_off_t)x->cap.n_lines;
write-pause-refused|src/hook/curl/deliver.c|test_curl_pause
    if (r->multi_xfer)
    if (r->multi_xfer || 1)
multi-stream-pause-refed|src/hook/curl/stream.c|test_curl_pause
    size_t skip = r->stream_skip < len ? r->stream_skip : len; /* the relay took these before the pause */
    size_t skip = 0; /* the relay took these before the pause */
multi-paused-stream-kept-on-remove|src/hook/multi/drive.c|test_curl_pause
    lg_curl_drop_rest(t->rec); /* a paused delivery: the held answer's rest or a paused stream's */
    if (t->draining) lg_curl_drop_rest(t->rec); /* a paused delivery: the held answer's rest or a paused stream's */
price-memo-any-model|src/spend/price.c|test_spend
    if (m->generation && m->generation == c->generation && m->prov == p && model && !strcmp(m->model, model)) {
    if (m->generation && m->generation == c->generation && m->prov == p && model) {
day-row-hint-model-prefix|src/spend/agg.c|test_spend
    return r->used && !strncmp(r->model, n[2], sizeof r->model - 1) &&
    return r->used && !strncmp(r->model, n[2], 8) &&
h1-head-framing-exact|src/util/word.h|test_h1_response test_h1_request
    return len >= n && !(lg_word_differs(name, word) | lg_word_differs(name + n - 8, word + n - 8) |
    return len == n && !(lg_word_differs(name, word) | lg_word_differs(name + n - 8, word + n - 8) |
h1-head-framing-dash-folded|src/util/word.h|test_h1_response
static inline uint64_t lg_word_letters(const char *w) { return (lg_load8(w) & 0x4040404040404040ull) >> 1; }
static inline uint64_t lg_word_letters(const char *w) { return 0x2020202020202020ull + 0 * lg_load8(w); }
h1-head-framing-middle-unread|src/util/word.h|test_h1_response
                         (n > 16 ? lg_word_differs(name + 8, word + 8) : 0));
                         (n > 17 ? lg_word_differs(name + 8, word + 8) : 0));
h1-head-status-cr|src/front/h1_head.c|test_h1_response
    if (!lf || lf - p < 2 || lg_h1_first_special(p, lf) != lf - 1 || lf[-1] != '\r')
    if (!lf || lf - p < 2 || lf[-1] != '\r')
sock-attempt-watch-never-fires|src/front/h1_attempt.c|test_attempt_timeout
    return limit > 0 ? c->heard_ms + limit : INT64_MAX;
    return limit < 0 ? c->heard_ms + limit : INT64_MAX;
sock-slow-answer-unbounded|src/front/h1_attempt.c|test_sock_timeout
        int64_t host = host_until(c), until = host > 0 && host < due ? host : due;
        int64_t host = host_until(c) & 0, until = host > 0 && host < due ? host : due;
owner-cached-across-fork|src/store/owner.c|test_store_holds
    self.pid = 0;
    (void)0;
commodity-not-purchased-unread|src/providers/dashscope.c|test_classify_rules test_classify_fixtures
    {"CommodityNotPurchased", LG_SIG_REJECT, true},
    /* mutated */
unpurchased-unread|src/providers/dashscope.c|test_classify_rules
    {"AccessDenied.Unpurchased", LG_SIG_REJECT, true},
    /* mutated */
sock-timeo-set-unnoted|src/hook/sock/fd_flags.c|test_sock_timeout
    if (rc == 0 && timeo_opt(level, opt))
    if (rc == 0 && timeo_opt(level, opt) && 0)
sock-timeo-asked-per-wait|src/hook/sock/conns.c|test_sock_syscalls
    if (s->timeo_gen != lg_fd_timeouts_changes())
    if (1)
sock-nonblock-set-unnoted|src/hook/sock/fd_flags.c|test_sock_nonblock
    if (rc != -1)
    if (rc != -1 && 0)
sock-nonblock-asked-per-wait|src/hook/sock/conns.c|test_sock_syscalls
    if (s->fl_gen != lg_fd_flags_changes())
    if (1)
capture-line-value-unskipped|src/front/capture.c|test_capture
    add_header(c, &at, line, len, name_len, line + value_off);
    add_header(c, &at, line, len, name_len, line + name_len + 1);
resp-rebuilt-line-value-off|src/front/h1_response.c|test_h1_response
            lg_capture_line(r->cap, r->line, r->line_len, l->name_len, l->name_len + 2) != r->line_len)
            lg_capture_line(r->cap, r->line, r->line_len, l->name_len, l->value_off) != r->line_len)
auth-named-colon-kept|src/front/auth_key.c|test_auth_key
    const char *v = line + nlen + 1;
    const char *v = line + nlen;
render-pin-kept|src/front/h1_request.c|test_h1_request
           named(r, f, "expect", 6) || (n == 13 && lg_word_begins(name, n, "x-llmgate-pin", 13)) ||
           named(r, f, "expect", 6) || (n == 14 && lg_word_begins(name, n, "x-llmgate-pin", 13)) ||
deliver-length-kept|src/front/h1_deliver.c|test_socket_http
        if ((first == 'c' && lg_word_begins(l, len, "content-length", 14) && l[14] == ':') ||
        if ((first == 'c' && lg_word_begins(l, len, "content-length", 14) && l[14] == '=') ||
h1-head-sse-name-brace|src/front/h1_head.c|test_h1_response
    __m128i ok = _mm_or_si128(_mm_cmpeq_epi8(_mm_min_epu8(t, _mm_set1_epi8(25)), t),
    __m128i ok = _mm_or_si128(_mm_cmpeq_epi8(_mm_min_epu8(t, _mm_set1_epi8(26)), t),
h1-head-sse-unit-separator|src/front/h1_head.c|test_h1_response
    __m128i low = _mm_cmpeq_epi8(_mm_max_epu8(x, _mm_set1_epi8(0x1f)), _mm_set1_epi8(0x1f)); /* x <= 0x1f */
    __m128i low = _mm_cmpeq_epi8(_mm_max_epu8(x, _mm_set1_epi8(0x1e)), _mm_set1_epi8(0x1e)); /* x <= 0x1f */
h1-head-empty-start-line|src/front/h1_head.c|test_h1_response
    if (!lf || lf - p < 2 || lg_h1_first_special(p, lf) != lf - 1 || lf[-1] != '\r')
    if (!lf || lf == p || lg_h1_first_special(p, lf) != lf - 1 || lf[-1] != '\r')
code-words-unread|src/classify/codes.c|test_classify_rules
        lg_cls_evidence(c, LG_EV_GENERIC, w);
        (void)w;
code-period-unread|src/classify/codes.c|test_classify_rules
        c->text_period = t.period;
        (void)t;
code-with-space-read|src/classify/codes.c|test_classify_rules
    if (strchr(code, ' '))
    if (0)
api-error-outweighs-429|src/classify/classify.c|test_classify_rules
        if (s == LG_SIG_SERVER && http_st == 429)
        if (0)
load-shed-unread|src/classify/text.c|test_classify_rules
static const char *const shed_phrases[] = {"load shed"};
static const char *const shed_phrases[] = {"(mutated)"};
wrapped-stream-error-unread|src/classify/classify.c|test_classify_rules test_classify_fixtures
    const cJSON *wrapped = found ? NULL : wrapped_error(doc, 1);
    const cJSON *wrapped = found || doc ? NULL : wrapped_error(doc, 1);
bedrock-input-camel-unread|src/classify/usage.c|test_classify_rules test_classify_fixtures
    case 11: return KEY_IS(k, n, "inputTokens") ? LG_UF_INPUT : -1; /* Bedrock Converse: the uncached part */
    case 11: return -1;
bedrock-output-camel-unread|src/classify/usage.c|test_classify_rules test_classify_fixtures
               : KEY_IS(k, n, "outputTokens") ? LG_UF_OUTPUT
               : KEY_IS(k, n, "(mutated)") ? LG_UF_OUTPUT
bedrock-cache-camel-unread|src/classify/usage.c|test_classify_rules test_classify_fixtures
               : KEY_IS(k, n, "cacheReadInputTokens") ? LG_UF_CACHE_READ
               : KEY_IS(k, n, "(mutated)") ? LG_UF_CACHE_READ
llamacpp-counts-unread|src/classify/usage.c|test_classify_rules test_classify_fixtures
                                                {"tokens_evaluated", "tokens_predicted"}};
                                                {"(mutated)", "(mutated)"}};
llamacpp-lazy-taken|src/classify/lazy.c|test_classify_rules test_classify_fixtures
        if (KEY_IS(k, kl, "tokens_evaluated") || KEY_IS(k, kl, "prompt_eval_count"))
        if (KEY_IS(k, kl, "prompt_eval_count"))
lmstudio-stats-unread|src/classify/usage.c|test_classify_rules test_classify_fixtures
    lg_usage_object(c, stats);
    (void)stats;
lmstudio-output-unread|src/classify/usage.c|test_classify_rules test_classify_fixtures
    case 19: return KEY_IS(k, n, "total_output_tokens") ? LG_UF_OUTPUT : -1; /* LM Studio's stats */
    case 19: return -1;
lmstudio-lazy-stats-taken|src/classify/lazy.c|test_classify_rules test_classify_fixtures
        if (object && (KEY_IS(k, kl, "stats") || KEY_IS(k, kl, "result")))
        if (object && KEY_IS(k, kl, "result"))
lmstudio-lazy-result-taken|src/classify/lazy.c|test_classify_rules test_classify_fixtures
        if (object && (KEY_IS(k, kl, "stats") || KEY_IS(k, kl, "result")))
        if (object && KEY_IS(k, kl, "stats"))
stream-invalid-request-as-server|src/classify/classify.c|test_classify_rules test_classify_fixtures
        if (ev == LG_EV_GENERIC && s == LG_SIG_REJECT && (st == 402 || st == 429 || st >= 500) && !inferred)
        if (ev == LG_EV_GENERIC && s == LG_SIG_REJECT && (st == 402 || st == 429 || st >= 500))
quota-code-over-capacity-msg|src/classify/codes.c|test_classify_rules test_classify_fixtures
        if (c->ev[LG_EV_MESSAGE] == LG_SIG_CAPACITY) {
        if (0) {
aws-frame-headers-unbounded|src/util/aws_frames.c|test_aws_frames
    if (total < LG_AWS_FRAME_MIN || total > LG_AWS_FRAME_MAX || hl > total - LG_AWS_FRAME_MIN)
    if (total < LG_AWS_FRAME_MIN || total > LG_AWS_FRAME_MAX)
aws-frame-unknown-type-skipped|src/util/aws_frames.c|test_aws_frames
        return (size_t)-1;{NL}    }{NL}    return len <= avail ? len : (size_t)-1;
        len = 0;{NL}    }{NL}    return len <= avail ? len : (size_t)-1;
aws-probe-ignored|src/classify/stream_probe.c|test_aws_frames test_aws_eventstream
    if (r->aws_frames){NL}        return aws_probe(d, r);
    if (0 && r->aws_frames){NL}        return aws_probe(d, r);
aws-exception-no-error|src/classify/aws_eventstream.c|test_aws_frames test_aws_eventstream
    c->error = true;
    c->error = false;
aws-exception-type-unread|src/classify/aws_eventstream.c|test_aws_frames test_aws_eventstream
        lg_cls_code(c, code);
        (void)code;
aws-invocation-metrics-unread|src/classify/aws_eventstream.c|test_aws_frames
            invocation_metrics(c, m);
            invocation_metrics(c, NULL);
aws-content-type-unseen|src/front/capture.c|test_aws_eventstream
        c->aws_frames = end - v >= 34 && lg_is_aws_eventstream(h->value); /* "application/vnd.amazon.eventstream" */
        c->aws_frames = false;
aws-tail-cut-anywhere|src/front/stream_relay.c|test_aws_eventstream
        if (at >= from){NL}            from = at;
        if (at >= from){NL}            (void)at;
aws-failure-as-frames|src/hook/curl/deliver.c|test_aws_eventstream
    bool synthesized = lg_lines_synthesized(res, lg_capture_is_stream(cap));
    bool synthesized = lg_lines_synthesized(res, cap->event_stream);
EOF
)

# apply FILE OLD NEW: replaces the one occurrence of OLD in FILE ("{NL}" in OLD and NEW: newlines); fails
# when OLD is not found exactly once.
apply() {
    "$PY" - "$@" <<'PY'
import sys
path, old, new = sys.argv[1], sys.argv[2].replace("{NL}", "\n"), sys.argv[3].replace("{NL}", "\n")
text = open(path).read()
n = text.count(old)
if n != 1:
    sys.exit("mutation text found %d times in %s (expected once): %r" % (n, path, old))
open(path, "w").write(text.replace(old, new))
PY
}

# The scratch copy: tracked and untracked (not ignored) files of the work tree, plus its build directory
# so that each mutation rebuilds only what it touches.
cd "$ROOT" || exit 2
mkdir -p "$TREE"
git ls-files -z --cached --others --exclude-standard | xargs -0 cp -a --parents -t "$TREE" 2>/dev/null
if [ -d build ]; then
    mkdir -p "$TREE/build"
    for d in obj san tests clients libllmgate.so llmgate llmgate-mock; do
        [ -e "build/$d" ] && cp -a "build/$d" "$TREE/build/"
    done
fi
mkdir -p "$SCRATCH/orig"
cp -a "$TREE/src" "$SCRATCH/orig/"
# restore FILE...: puts the original text back with a new time stamp, so that make rebuilds it
restore() { local f; for f in "$@"; do cp "$SCRATCH/orig/$f" "$TREE/$f"; done; }

build() { make -C "$TREE" -j2 PGO=0 all unit clients >"$SCRATCH/build.log" 2>&1; } # behaviour, not speed: no profile
# run_tests PATTERN...: runs each pattern's tests in the scratch tree; prints one line per failed test
# program: its name, how many checks failed and the first failed check.
run_tests() {
    local p n f first
    for p in "$@"; do
        (cd "$TREE" && bash tests/run.sh "$p") >"$SCRATCH/run.log" 2>&1 && continue
        awk '$3 == "passed" && $5 == "failed" && $4 > 0 { print $1, $4 }' "$SCRATCH/run.log" | while read -r n f; do
            first=$(grep -m1 '^not ok' "$TREE/build/test-logs/$n.log" 2>/dev/null | sed 's/^not ok [0-9]* *- *//')
            echo "$n ($f failed; first: ${first:0:70})"
        done
    done
}

selected() { [ $# -eq 1 ] && return 0; local w; for w in "${@:2}"; do [ "$w" = "$1" ] && return 0; done; return 1; }
names=() files=() tests=() olds=() news=()
while IFS='|' read -r name file t && IFS= read -r old && IFS= read -r new; do
    selected "$name" "$@" || continue
    names+=("$name") files+=("$file") tests+=("$t") olds+=("$old") news+=("$new")
done <<<"$MUTATIONS"
[ "${#names[@]}" -gt 0 ] || { echo "mutate: no mutation named $*" >&2; exit 2; }

all_tests=$(printf '%s\n' "${tests[@]}" | tr ' ' '\n' | sed '/^$/d' | sort -u | tr '\n' ' ')
echo "building the scratch copy and running the baseline: $all_tests"
build || { cat "$SCRATCH/build.log"; echo "mutate: the unmutated tree does not build" >&2; exit 1; }
# shellcheck disable=SC2086
bad=$(run_tests $all_tests)
[ -z "$bad" ] || { echo "mutate: the baseline is not green (failed: $bad); nothing to measure" >&2; exit 1; }

status=0
printf '\n%-24s %-40s %-7s %s\n' MUTATION "TESTS RUN" CAUGHT "CAUGHT BY"
i=0
while [ "$i" -lt "${#names[@]}" ]; do
    name=${names[$i]} t=${tests[$i]} touched=()
    # a mutation may take several lines with the same name: all of them apply, the first names the tests
    err=""
    while [ "$i" -lt "${#names[@]}" ] && [ "${names[$i]}" = "$name" ]; do
        touched+=("${files[$i]}")
        err+=$(apply "$TREE/${files[$i]}" "${olds[$i]}" "${news[$i]}" 2>&1) || err+=" (failed)"
        i=$((i + 1))
    done
    if [ -n "$err" ]; then
        printf '%-24s %-40s %-7s %s\n' "$name" "$t" ERROR "does not apply: $err"
        restore "${touched[@]}"
        status=1
        continue
    fi
    if ! build; then
        restore "${touched[@]}"
        printf '%-24s %-40s %-7s %s\n' "$name" "$t" ERROR "does not build: $(grep -m1 error "$SCRATCH/build.log")"
        status=1
        continue
    fi
    # shellcheck disable=SC2086
    failed=$(run_tests $t | paste -sd ';' | sed 's/;/; /g')
    restore "${touched[@]}"
    if [ -n "$failed" ]; then
        printf '%-24s %-40s %-7s %s\n' "$name" "$t" yes "$failed"
    else
        printf '%-24s %-40s %-7s %s\n' "$name" "$t" NO "-"
        status=1
    fi
done
exit "$status"
