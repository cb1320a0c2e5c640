/* Request handling on libmicrohttpd (see server.h): body accumulation, the /__ endpoints, plans
 * turned into replies, and sending with delays, chunking, truncation or a reset. */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <microhttpd.h>

#include "mock/encoding.h"
#include "mock/errors.h"
#include "mock/limited.h"
#include "mock/server.h"
#include "mock/state.h"
#include "mock/strict.h"
#include "mock/success.h"
#include "mock/timer.h"

typedef struct {
    char *uri;          /* raw request URI, query included */
    bool started;       /* the access handler has seen the headers */
    bool planned;       /* reply is ready, waiting for its delay */
    char *body;
    size_t len, cap;
    bool too_large;
    mock_reply reply;
} conn_ctx;

typedef struct {
    struct MHD_Connection *conn;
    char *body;
    size_t len;
    size_t limit;          /* bytes to send before closing (< len: truncated) */
    size_t chunk;          /* bytes per read */
    int64_t chunk_delay_ms;
    int64_t body_delay_ms; /* the wait between the head and the body's first byte */
    bool waited;           /* the delay before the next chunk has passed */
} sender;

typedef struct {
    lg_header *v;
    size_t n, cap;
} header_vec;

static void *on_uri(void *cls, const char *uri, struct MHD_Connection *conn)
{
    conn_ctx *ctx = calloc(1, sizeof *ctx);
    if (ctx) {
        ctx->uri = strdup(uri ? uri : "/");
        mock_reply_init(&ctx->reply);
    }
    return ctx;
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **req_cls,
                         enum MHD_RequestTerminationCode why)
{
    conn_ctx *ctx = *req_cls;
    if (!ctx)
        return;
    free(ctx->uri);
    free(ctx->body);
    mock_reply_free(&ctx->reply);
    free(ctx);
    *req_cls = NULL;
}

static enum MHD_Result collect_header(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
    header_vec *h = cls;
    if (h->n == h->cap) {
        size_t cap = h->cap ? h->cap * 2 : 32;
        lg_header *v = realloc(h->v, cap * sizeof *v);
        if (!v)
            return MHD_NO;
        h->v = v;
        h->cap = cap;
    }
    h->v[h->n++] = (lg_header){key, value ? value : ""};
    return MHD_YES;
}

/* Appends upload data to the body, remembering (and dropping) anything past MOCK_MAX_BODY. */
static void append_body(conn_ctx *ctx, const char *data, size_t n)
{
    if (ctx->too_large || ctx->len + n > MOCK_MAX_BODY) {
        ctx->too_large = true;
        return;
    }
    if (ctx->len + n + 1 > ctx->cap) {
        size_t cap = ctx->cap ? ctx->cap : 4096;
        while (cap < ctx->len + n + 1)
            cap *= 2;
        char *b = realloc(ctx->body, cap);
        if (!b) {
            ctx->too_large = true;
            return;
        }
        ctx->body = b;
        ctx->cap = cap;
    }
    memcpy(ctx->body + ctx->len, data, n);
    ctx->len += n;
    ctx->body[ctx->len] = '\0';
}

static ssize_t read_body(void *cls, uint64_t pos, char *buf, size_t max)
{
    sender *s = cls;
    if (pos >= s->limit)
        return pos >= s->len ? MHD_CONTENT_READER_END_OF_STREAM : MHD_CONTENT_READER_END_WITH_ERROR;
    int64_t wait = pos > 0 ? s->chunk_delay_ms : s->body_delay_ms;
    if (wait > 0 && !s->waited && mock_timer_suspend(s->conn, wait)) {
        s->waited = true;
        return 0;
    }
    s->waited = false;
    size_t n = s->limit - (size_t)pos;
    if (n > max)
        n = max;
    if (n > s->chunk)
        n = s->chunk;
    memcpy(buf, s->body + pos, n);
    return (ssize_t)n;
}

static void free_sender(void *cls)
{
    sender *s = cls;
    free(s->body);
    free(s);
}

/* Headers MHD writes itself; a literal or replayed response must not repeat them. "Connection: close" is
 * passed on: MHD then closes the connection after the reply. */
static bool managed_header(const char *name, const char *value)
{
    return !strcasecmp(name, "content-length") || !strcasecmp(name, "transfer-encoding") ||
           (!strcasecmp(name, "connection") && strcasecmp(value, "close"));
}

/* Queues ctx->reply on conn (or closes the connection for a reset). */
static enum MHD_Result send_reply(struct MHD_Connection *conn, conn_ctx *ctx)
{
    mock_reply *r = &ctx->reply;
    if (r->status == 0)
        return MHD_NO;
    struct MHD_Response *resp;
    if (!r->stream && r->truncate < 0 && !r->chunk && !r->body_delay_ms) {
        resp = MHD_create_response_from_buffer(r->body_len, r->body ? r->body : "",
                                               r->body ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
        if (resp)
            r->body = NULL;
    } else {
        sender *s = calloc(1, sizeof *s);
        if (!s)
            return MHD_NO;
        *s = (sender){conn, r->body, r->body_len, r->body_len, r->chunk ? r->chunk : SIZE_MAX,
                      r->chunk ? r->chunk_delay_ms : 0, r->body_delay_ms, false};
        if (r->truncate >= 0 && (size_t)r->truncate < r->body_len)
            s->limit = (size_t)r->truncate;
        uint64_t size = r->stream && r->truncate < 0 ? MHD_SIZE_UNKNOWN : r->body_len;
        resp = MHD_create_response_from_callback(size, 16 * 1024, read_body, s, free_sender);
        if (resp)
            r->body = NULL;
        else
            free(s);
    }
    if (!resp)
        return MHD_NO;
    for (size_t i = 0; i < r->n_headers; i++)
        if (!managed_header(r->headers[i].name, r->headers[i].value))
            MHD_add_response_header(resp, r->headers[i].name, r->headers[i].value);
    enum MHD_Result rc = MHD_queue_response(conn, (unsigned)r->status, resp);
    MHD_destroy_response(resp);
    return rc;
}

/* Turns the plan for q into ctx->reply. */
static void build_reply(mock_reply *r, const mock_request *q, const mock_plan *p)
{
    const mock_step *st = p->step;
    switch (p->kind) {
    case MOCK_PLAN_SUCCESS:
        mock_success(r, q, p->serial);
        mock_ratelimit_headers(r, q, &p->limits, &p->verdict);
        break;
    case MOCK_PLAN_LIMITED: mock_limited(r, q, &p->limits, &p->verdict, p->serial); break;
    case MOCK_PLAN_RANDOM:
        mock_error(r, q, mock_error_for_status(p->random_status), p->random_status == 429 ? 1000 : -1, NULL,
                   p->serial);
        if (q->dialect != MOCK_BAIDU)
            r->status = p->random_status;
        break;
    case MOCK_PLAN_BAD_REQUEST:
        if (q->invalid && !q->too_large)
            mock_strict_error(r, q, q->invalid);
        else
            mock_error(r, q, q->too_large ? MOCK_ERR_TOO_LARGE : MOCK_ERR_BAD_REQUEST, -1, NULL, p->serial);
        break;
    case MOCK_PLAN_STEP:
        switch (st->kind) {
        case MOCK_STEP_LITERAL:
            r->status = st->status;
            r->stream = st->stream;
            for (size_t i = 0; i < st->n_headers; i++)
                mock_reply_header(r, st->headers[i].name, "%s", st->headers[i].value);
            mock_reply_body(r, st->body, st->body_len);
            break;
        case MOCK_STEP_ERROR: mock_error(r, q, st->error, st->retry_after_ms, NULL, p->serial); break;
        case MOCK_STEP_ERROR_IN_200: mock_error_in_200(r, q, p->serial); break;
        case MOCK_STEP_RESET: r->status = 0; break;
        case MOCK_STEP_NORMAL: break;
        }
        break;
    }
    if (st) {
        r->delay_ms = st->delay_ms;
        r->truncate = st->truncate;
        r->chunk = st->chunk;
        r->chunk_delay_ms = st->chunk_delay_ms;
        r->body_delay_ms = st->body_delay_ms;
    }
    if (q->key[0]) /* an empty header value is not allowed: no header means "no key" */
        mock_reply_header(r, "x-mock-key", "%s", q->key);
    if (q->host[0])
        mock_reply_header(r, "x-mock-host", "%s", q->host);
    mock_reply_header(r, "x-request-id", "mock-%lld", (long long)p->serial);
    if (p->tag_count)
        mock_reply_header(r, "x-mock-tag-count", "%lld", (long long)p->tag_count);
    char sha[65];
    mock_sha256_hex(r->body ? r->body : "", r->body_len, sha);
    mock_reply_header(r, "x-mock-body-sha256", "%s", sha); /* of the whole body, even when truncated */
}

/* Answers the mock's own endpoints: GET /__stats, GET /__requests, POST /__reset. */
static enum MHD_Result internal(struct MHD_Connection *conn, conn_ctx *ctx, const char *url, const char *method)
{
    mock_reply *r = &ctx->reply;
    bool get = !strcmp(method, "GET"), post = !strcmp(method, "POST");
    char *doc = NULL;
    r->status = 200;
    if (!strcmp(url, "/__stats") && get) {
        doc = mock_state_stats_json();
    } else if (!strcmp(url, "/__requests") && get) {
        doc = mock_state_requests_json();
    } else if (!strcmp(url, "/__reset") && post) {
        mock_state_reset();
        doc = strdup("{\"reset\":true}");
    } else {
        r->status = 404;
        doc = strdup("{\"error\":\"unknown mock endpoint: use GET /__stats, GET /__requests or POST /__reset\"}");
    }
    mock_reply_header(r, "Content-Type", "application/json");
    mock_reply_take_body(r, doc);
    return send_reply(conn, ctx);
}

/* Plans and prepares the answer to one provider request. */
static void prepare(struct MHD_Connection *conn, conn_ctx *ctx, const char *method)
{
    header_vec h = {0};
    mock_request q;
    MHD_get_connection_values(conn, MHD_HEADER_KIND, collect_header, &h);
    if (mock_request_parse(&q, method, ctx->uri, h.v, h.n, ctx->body, ctx->len) < 0) {
        free(h.v);
        ctx->reply.status = 0;
        return;
    }
    q.too_large = ctx->too_large;
    q.invalid = mock_strict_violation(&q);
    mock_plan plan;
    mock_state_plan(&q, &plan);
    build_reply(&ctx->reply, &q, &plan);
    if (mock_accepts_gzip(&q))
        mock_reply_gzip(&ctx->reply);
    mock_request_free(&q);
    free(h.v);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
                              const char *version, const char *upload_data, size_t *upload_data_size,
                              void **req_cls)
{
    conn_ctx *ctx = *req_cls;
    if (!ctx)
        return MHD_NO;
    if (!ctx->started) {
        ctx->started = true;
        return MHD_YES;
    }
    if (*upload_data_size) {
        append_body(ctx, upload_data, *upload_data_size);
        *upload_data_size = 0;
        return MHD_YES;
    }
    if (ctx->planned)
        return send_reply(conn, ctx);
    if (!strncmp(url, "/__", 3))
        return internal(conn, ctx, url, method);
    prepare(conn, ctx, method);
    ctx->planned = true;
    if (ctx->reply.delay_ms > 0 && mock_timer_suspend(conn, ctx->reply.delay_ms))
        return MHD_YES;
    return send_reply(conn, ctx);
}

struct MHD_Daemon *mock_server_start(int port, int threads, const char *cert_pem, const char *key_pem, bool quiet,
                                     int *bound_port)
{
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bool tls = cert_pem && key_pem;
    if (tls && MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
        fprintf(stderr, "llmgate-mock: this libmicrohttpd has no TLS support\n");
        return NULL;
    }
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME |
                     (quiet ? 0 : MHD_USE_ERROR_LOG) | (tls ? MHD_USE_TLS : 0);
    struct MHD_OptionItem opts[] = {
        {MHD_OPTION_SOCK_ADDR, 0, &sa},
        {MHD_OPTION_THREAD_POOL_SIZE, threads, NULL},
        {MHD_OPTION_CONNECTION_LIMIT, 4000, NULL},
        {MHD_OPTION_CONNECTION_TIMEOUT, 120, NULL},
        {MHD_OPTION_CONNECTION_MEMORY_LIMIT, 256 * 1024, NULL},
        {tls ? MHD_OPTION_HTTPS_MEM_KEY : MHD_OPTION_END, 0, (void *)key_pem},
        {tls ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END, 0, (void *)cert_pem},
        {MHD_OPTION_END, 0, NULL},
    };
    struct MHD_Daemon *d = MHD_start_daemon(
        flags, (uint16_t)port, NULL, NULL, handle, NULL, MHD_OPTION_URI_LOG_CALLBACK, on_uri, NULL,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL, MHD_OPTION_ARRAY, opts, MHD_OPTION_END);
    if (!d) {
        fprintf(stderr, "llmgate-mock: cannot listen on 127.0.0.1:%d%s\n", port, tls ? " (TLS)" : "");
        return NULL;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    *bound_port = info ? info->port : port;
    return d;
}

void mock_server_stop(struct MHD_Daemon *d)
{
    if (d)
        MHD_stop_daemon(d);
}
