/* The relay's gateway mode (llmgate relay --listen ADDR:PORT, see relay.h): plain HTTP requests addressed
 * to a provider by the first segment of their path (http://ADDR:PORT/PROVIDER/v1/... , PROVIDER a name of
 * the configuration), each checked for a gateway token ("virtual key"), rendered for the provider (its
 * path, its Host, the token replaced) and run through the front's HTTP/1.1 driver over the relay's own
 * connection to the provider, exactly as a terminated TLS connection of the relay is. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "front/h1_conn.h"
#include "front/h1_request.h"
#include "llmgate/log.h"
#include "llmgate/synth.h"
#include "relay/relay.h"

#define HEAD_ROOM 65536   /* a request's head beyond hold.max_body_bytes */
#define CLIENT_IDLE_S 300 /* a client that sends no request (or no more of one) for this long is dropped */
#define KEY_MAX 4200
/* What goes in place of a gateway token before the front sees the request (an account's key replaces it
 * in every attempt; the token itself never leaves). */
#define NO_KEY "llmgate-gateway"

/* The provider connection the client's last request went to. */
typedef struct {
    const lg_provider *prov;
    lg_relay_up up;
    lg_h1_conn *h1;
    bool stranger; /* without tokens (a loopback gateway): the client's socket is another user's */
} gw_conn;

/* Answers with status and a JSON body (the provider's error format when prov is known). */
static bool answer(int fd, const lg_provider *prov, int status, const char *reason, const char *msg)
{
    lg_outcome o = {.state = LG_STATE_NON_RETRYABLE, .retry_after_ms = LG_NO_HINT, .retry_at_ms = LG_NO_HINT};
    snprintf(o.message, sizeof o.message, "llmgate gateway: %s", msg);
    char *body = lg_synth_error_body(prov ? prov->dialect : LG_DIALECT_OPENAI, status, &o, LG_NO_HINT);
    char head[256];
    int n = snprintf(head, sizeof head, "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n\r\n",
                     status, reason, body ? strlen(body) : 0);
    bool ok = lg_relay_send_all(fd, head, (size_t)n) && (!body || lg_relay_send_all(fd, body, strlen(body)));
    free(body);
    return ok;
}

/* The name of the gateway token key is (every token compared, in constant time), or NULL. */
static const char *token_of(const lg_config *cfg, const char *key)
{
    unsigned char md[32];
    unsigned int mdlen = 0;
    const char *name = NULL;
    if (!EVP_Digest(key, strlen(key), md, &mdlen, EVP_sha256(), NULL) || mdlen != sizeof md)
        return NULL;
    for (size_t i = 0; i < cfg->n_gateway_tokens; i++)
        if (CRYPTO_memcmp(md, cfg->gateway_tokens[i].sha256, sizeof md) == 0)
            name = cfg->gateway_tokens[i].name;
    OPENSSL_cleanse(md, sizeof md);
    return name;
}

/* Splits the request-target "/PROVIDER/rest" into the provider's name and the rest ("/" when empty). */
static bool split_target(const char *url, char *name, size_t nsize, const char **rest)
{
    if (!url || url[0] != '/')
        return false;
    size_t len = strcspn(url + 1, "/?");
    if (len == 0 || len >= nsize)
        return false;
    memcpy(name, url + 1, len);
    name[len] = '\0';
    *rest = url + 1 + len;
    return true;
}

/* True when every account of p has a key of its own (none is the client's "host" key). */
static bool own_accounts(const lg_provider *p)
{
    for (size_t i = 0; i < p->n_accounts; i++)
        if (!p->accounts[i].key)
            return false;
    return true;
}

/* Makes g the connection to prov (the one it is, or a new one). */
static bool use_provider(gw_conn *g, const lg_provider *prov)
{
    if (g->prov == prov && g->h1)
        return true;
    lg_h1_free(g->h1);
    g->h1 = NULL;
    lg_relay_up_close(&g->up);
    g->prov = NULL;
    if (!lg_relay_open_provider(&g->up, prov, prov->hosts[0], "443"))
        return false;
    const lg_provider *provs[1] = {prov};
    g->h1 = lg_h1_new(&lg_relay_front_host, provs, 1, &lg_relay_up_io, &g->up);
    g->prov = g->h1 ? prov : NULL;
    return g->h1 != NULL;
}

/* Runs one whole request of the client: checked, rendered and gated; its answer written to the client.
 * False when the connection is over. */
static bool exchange(int fd, const lg_config *cfg, const lg_h1_req *req, bool need_token, gw_conn *g)
{
    char name[LG_NAME_MAX], key[KEY_MAX], msg[400];
    const char *rest = NULL;
    const lg_provider *prov = split_target(req->url, name, sizeof name, &rest) ? lg_config_provider(cfg, name) : NULL;
    if (!prov || prov->dialect == LG_DIALECT_NONE || prov->n_hosts == 0 ||
        lg_config_match_host(cfg, prov->hosts[0]) != prov) {
        snprintf(msg, sizeof msg, "no provider of this configuration at %.100s (base URL: http://ADDRESS/PROVIDER/...)",
                 req->url ? req->url : "");
        return answer(fd, NULL, 404, "Not Found", msg);
    }
    if (g->stranger) {
        answer(fd, prov, 403, "Forbidden", "without gateway.tokens only the user who runs the gateway may use it");
        return false;
    }
    bool has_key = lg_h1_req_find_key(req, key, sizeof key);
    const char *token = has_key && cfg->n_gateway_tokens ? token_of(cfg, key) : NULL;
    explicit_bzero(key, sizeof key);
    if (need_token && !token)
        return answer(fd, prov, 401, "Unauthorized", "a gateway token is required as the API key");
    if (token && !own_accounts(prov)) {
        snprintf(msg, sizeof msg, "provider %s has no account of its own for gateway clients", prov->name);
        return answer(fd, prov, 401, "Unauthorized", msg);
    }
    if (token) { /* routes and spend by program see the token's name */
        static char program[LG_NAME_MAX + 8];
        snprintf(program, sizeof program, "gateway:%s", token);
        program_invocation_short_name = program;
    }
    lg_h1_render o = {.key = token ? NO_KEY : NULL, .style = prov->auth, .target = rest[0] ? rest : "/",
                      .host = prov->hosts[0]};
    size_t len = 0;
    char *out = lg_h1_req_render(req, &o, &len);
    if (!out || !use_provider(g, prov)) {
        if (out)
            explicit_bzero(out, len);
        free(out);
        return answer(fd, prov, 502, "Bad Gateway", "cannot reach the provider");
    }
    ssize_t w = lg_h1_write(g->h1, out, len);
    explicit_bzero(out, len);
    free(out);
    if (w < 0 || lg_h1_released(g->h1)) /* not a request the front follows: nothing more on this client */
        return false;
    char buf[16384];
    ssize_t r;
    while ((r = lg_h1_read(g->h1, buf, sizeof buf, false)) > 0 || (r == -1 && errno == EINTR))
        if (r > 0 && !lg_relay_send_all(fd, buf, (size_t)r))
            return false;
    return r == LG_H1_PASS; /* the answer is complete, the connection kept */
}

void lg_relay_gateway_serve(int fd, const lg_config *cfg, bool need_token)
{
    struct timeval tv = {.tv_sec = CLIENT_IDLE_S}; /* the engine's time limits bound each exchange */
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    long me = (long)geteuid();
    gw_conn g = {.up = {.fd = -1}, .stranger = !need_token && lg_relay_peer_uid(fd) != me};
    lg_h1_req req;
    lg_h1_req_init(&req);
    char buf[16384];
    size_t have = 0, max = (size_t)cfg->max_held_body + HEAD_ROOM;
    bool continued = false; /* the 100 Continue a client sending Expect waits for is sent */
    for (;;) {
        if (have == 0) {
            ssize_t r = recv(fd, buf, sizeof buf, 0);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0)
                break;
            have = (size_t)r;
        }
        size_t used = have;
        lg_h1_state s = lg_h1_req_feed(&req, buf, have, max, &used);
        memmove(buf, buf + used, have - used);
        have -= used;
        if (s == LG_H1_INVALID) {
            answer(fd, NULL, req.too_large ? 413 : 400, req.too_large ? "Payload Too Large" : "Bad Request",
                   req.too_large ? "request larger than hold.max_body_bytes" : "not an HTTP/1.x request it can follow");
            break;
        }
        if (s == LG_H1_MORE && req.headers_done && req.expect_continue && !continued) {
            static const char cont[] = "HTTP/1.1 100 Continue\r\n\r\n";
            continued = lg_relay_send_all(fd, cont, sizeof cont - 1);
        }
        if (s == LG_H1_COMPLETE) {
            if (!exchange(fd, cfg, &req, need_token, &g))
                break;
            lg_h1_req_reset(&req);
            continued = false;
        }
    }
    explicit_bzero(buf, sizeof buf); /* it held a token */
    lg_h1_req_free(&req);
    lg_h1_free(g.h1);
    lg_relay_up_close(&g.up);
}
