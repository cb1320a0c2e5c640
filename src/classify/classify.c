/* The response classifier: status gives the starting state, the body (JSON, JSON array, or event stream)
 * overrides it through the dialect readers (registered by src/providers), the most specific evidence picks
 * the reason, and the wait hint follows the documented precedence: retry-after-ms, retry-after, reset
 * headers of the exhausted dimension, RetryInfo, quotaResetDelay, quotaResetTimeStamp, then prose. Pure
 * and bounded: no I/O, allocations only inside cJSON and the SSE data buffer, both capped. */
#include <errno.h>
#include <string.h>

#include "classify/dialects.h"
#include "llmgate/duration.h"

typedef struct {
    lg_cls *c;
    bool http_error;
} scan_ctx;

static bool scan_document(lg_cls *c, const cJSON *doc, bool http_error);

static bool scan_element(const cJSON *el, void *ctx)
{
    scan_ctx *s = ctx;
    scan_document(s->c, el, s->http_error);
    return !s->c->error;
}

/* The object one or two wrapper members deep ("result", "response", "data") that holds an error object with
 * a message: Grok's web stream reports failure as result.response.error in a line of a 200. NULL if none. */
static const cJSON *wrapped_error(const cJSON *doc, int depth)
{
    static const char *const wrappers[] = {"result", "response", "data"};
    for (size_t i = 0; i < sizeof wrappers / sizeof wrappers[0]; i++) {
        const cJSON *w = cJSON_GetObjectItemCaseSensitive(doc, wrappers[i]);
        if (!cJSON_IsObject(w))
            continue;
        const cJSON *e = cJSON_GetObjectItemCaseSensitive(w, "error");
        if (cJSON_IsObject(e) && cJSON_IsString(cJSON_GetObjectItemCaseSensitive(e, "message")))
            return w;
        const cJSON *inner = depth < 2 ? wrapped_error(w, depth + 1) : NULL;
        if (inner)
            return inner;
    }
    return NULL;
}

/* Scans one document: an object, or an array of them (Google wraps errors and streams in arrays). */
static bool scan_document(lg_cls *c, const cJSON *doc, bool http_error)
{
    if (cJSON_IsArray(doc)) {
        const cJSON *el;
        cJSON_ArrayForEach(el, doc)
        {
            if (cJSON_IsObject(el))
                scan_document(c, el, http_error);
            if (c->error)
                break;
        }
        return c->error;
    }
    if (!cJSON_IsObject(doc))
        return false;
    /* The dialect's own reader first, then the others in the table's order. */
    size_t n;
    const lg_dialect_reader *const *all = lg_readers(&n);
    const lg_dialect_reader *first = lg_reader_of(c->dialect);
    bool found = first && first->read_error(c, doc, http_error);
    for (size_t i = 0; !found && i < n; i++)
        if (all[i] != first)
            found = all[i]->read_error(c, doc, http_error);
    const cJSON *wrapped = found ? NULL : wrapped_error(doc, 1);
    if (wrapped)
        return scan_document(c, wrapped, http_error);
    if (found || http_error) /* an error document no reader knows is still read at any depth */
        lg_scan_nested(c, doc, scan_document);
    else if (!c->error && !(found = lg_scan_quoted_members(c, doc, scan_document)))
        lg_usage_scan(c, doc);
    return found;
}

static bool on_event(const lg_sse_event *ev, void *ctx)
{
    scan_ctx *s = ctx;
    lg_cls *c = s->c;
    bool named_error = !strcmp(ev->event, "error");
    if (ev->comment_status >= 400 && ev->comment_status <= 599) {
        c->error = true;
        c->body_status = ev->comment_status;
    }
    size_t i = 0;
    while (i < ev->data_len && (ev->data[i] == ' ' || ev->data[i] == '\t' || ev->data[i] == '\n'))
        i++;
    bool plain = !s->http_error && !named_error && !c->error;
    if (i < ev->data_len && (ev->data[i] == '{' || ev->data[i] == '[') &&
        !(plain && lg_lazy_success(c, ev->data + i, ev->data_len - i))) {
        cJSON *doc = lg_json_parse(ev->data, ev->data_len);
        if (doc)
            scan_document(c, doc, s->http_error || named_error || c->error);
        cJSON_Delete(doc);
    } else if (named_error && ev->data_len && strcmp(ev->data, "[DONE]")) {
        lg_cls_text(c, ev->data, ev->data_len, true);
    }
    if (named_error)
        c->error = true;
    return !c->error;
}

static bool starts_like_sse(const char *b, size_t n)
{
    return (n >= 5 && !memcmp(b, "data:", 5)) || (n >= 6 && !memcmp(b, "event:", 6)) ||
           (n >= 3 && !memcmp(b, "id:", 3)) || (n >= 1 && b[0] == ':');
}

/* Whether the body from b[i] == '{' is newline-delimited JSON (Ollama's native streams): its first line
 * is a whole object (it ends in '}') and the next line that is not blank begins another. A pretty-printed
 * document's first line ends in '{'. */
static bool is_ndjson(const char *b, size_t n, size_t i)
{
    const char *nl = memchr(b + i, '\n', n - i);
    if (!nl)
        return false;
    size_t e = (size_t)(nl - b), k = e + 1;
    while (e > i && (b[e - 1] == ' ' || b[e - 1] == '\r' || b[e - 1] == '\t'))
        e--;
    while (k < n && (b[k] == ' ' || b[k] == '\r' || b[k] == '\n' || b[k] == '\t'))
        k++;
    return e > i && b[e - 1] == '}' && k < n && b[k] == '{';
}

/* Scans each line of an NDJSON body as a document, as the events of a stream, until an error. */
static void scan_ndjson(lg_cls *c, const char *b, size_t n, bool http_error)
{
    for (size_t i = 0; i < n && !c->error;) {
        const char *nl = memchr(b + i, '\n', n - i);
        size_t e = nl ? (size_t)(nl - b) : n;
        cJSON *doc = b[i] == '{' ? lg_json_parse(b + i, e - i) : NULL; /* a cut last line parses to nothing */
        if (doc)
            scan_document(c, doc, http_error);
        cJSON_Delete(doc);
        i = e + 1;
    }
}

/* Reads the body into c. Returns whether the body was an event stream (or NDJSON lines). */
static bool scan_body(lg_cls *c, const lg_response_view *r, bool http_error)
{
    const char *b = r->body;
    size_t n = b ? r->body_len : 0, i = 0;
    if (r->aws_frames) {
        lg_scan_aws_frames(c, b, n, http_error, scan_document);
        return true;
    }
    while (i < n && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n'))
        i++;
    if (i >= n)
        return r->stream;
    scan_ctx s = {c, http_error};
    if (b[i] == '[') {
        lg_json_each_element(b + i, n - i, scan_element, &s);
        return r->stream;
    }
    if (b[i] == '{') {
        if (!http_error && lg_lazy_success(c, b + i, n - i)) /* one document: never NDJSON */
            return false;
        if (is_ndjson(b, n, i)) {
            scan_ndjson(c, b + i, n - i, http_error);
            return true;
        }
        cJSON *doc = lg_json_parse(b + i, n - i);
        if (doc)
            scan_document(c, doc, http_error);
        else if (http_error) /* a truncated error body: its text still tells something */
            lg_cls_text(c, b + i, n - i, false);
        cJSON_Delete(doc);
        return false;
    }
    if (r->stream || starts_like_sse(b + i, n - i)) {
        lg_sse_each(b, n, on_event, &s);
        return true;
    }
    if (http_error && b[i] != '<') { /* a plain-text error body is the message itself */
        size_t e = n;
        while (e > i && (b[e - 1] == ' ' || b[e - 1] == '\r' || b[e - 1] == '\n' || b[e - 1] == '\t'))
            e--;
        lg_cls_text(c, b + i, e - i, true);
    }
    return false;
}

/* AWS names the error class in a header: "x-amzn-ErrorType: ThrottlingException:http://internal...". */
static void header_code(lg_cls *c, const lg_response_view *r)
{
    const char *v = lg_header_get(r->headers, r->n_headers, "x-amzn-errortype");
    char code[64];
    size_t n = v ? strcspn(v, ":") : 0;
    if (!n || n >= sizeof code)
        return;
    memcpy(code, v, n);
    code[n] = '\0';
    lg_cls_code(c, code);
}

/* The status the outcome is judged by: the HTTP one, or for errors inside a success response the status
 * the body states, else 500 for a stream (a mid-stream failure) and 400 for a body. */
static int effective_status(const lg_response_view *r, const lg_cls *c, bool stream)
{
    int st = r->status;
    if (!c->error || st == 0 || (st >= 400 && st <= 599))
        return st;
    if (c->body_status >= 400 && c->body_status <= 599)
        return c->body_status;
    return stream ? 500 : 400;
}

static lg_sig status_signal(int st)
{
    if (st == 0)
        return LG_SIG_SERVER;
    if (st == 429)
        return LG_SIG_LIMIT;
    if (st == 402) /* Payment Required: out of credit */
        return LG_SIG_QUOTA;
    if (st == 529 || st == 498) /* Anthropic overloaded, Groq flex capacity */
        return LG_SIG_CAPACITY;
    if (st >= 500 && st <= 599)
        return LG_SIG_SERVER;
    return LG_SIG_REJECT;
}

/* Whether any evidence names a rate limit (a stream's error event has no 429 to say it). */
static bool says_limit(const lg_cls *c)
{
    for (int ev = 0; ev < LG_EV_COUNT; ev++)
        if (c->ev[ev] == LG_SIG_RATE || c->ev[ev] == LG_SIG_LIMIT)
            return true;
    return false;
}

/* The period named in a limit decides between a quota and a rate whatever code or reason comes with it:
 * a QuotaFailure's quota id, else the words of the first message that names one ("per day", "RPD",
 * "monthly" against "per minute", "RPM"). s is the signal the evidence gave. */
static lg_sig by_period(const lg_cls *c, lg_sig s)
{
    lg_sig id = c->ev[LG_EV_QUOTA_ID];
    lg_sig period = id == LG_SIG_QUOTA || id == LG_SIG_RATE ? id : c->text_period;
    if ((s == LG_SIG_RATE || s == LG_SIG_LIMIT) && period == LG_SIG_QUOTA)
        return LG_SIG_QUOTA;
    if (s == LG_SIG_QUOTA && period == LG_SIG_RATE)
        return LG_SIG_RATE;
    return s;
}

/* The deciding signal: the most specific evidence, unless the request can never fit; a message that says
 * the balance or credit is insufficient is a quota whatever the status or code, and so is one that says a
 * usage cap is reached on a 4xx (a 401 included: LLMGateway's "API key reached its usage limit" comes with
 * code invalid_api_key, yet the key is good and another serves) when no window shorter than an hour is
 * named; the period named decides
 * between quota and rate (by_period); a family name of "invalid request" does not outweigh a 402, 429 or
 * 5xx status (but an inferred one: the status of an error inside a 200 that states none), nor a server
 * error's name an HTTP client-error status http_st (4xx but 408 and 429). With no evidence, a generic 5xx that comes with an exhausted rate-limit header family is that
 * limit (gateways that reject with 503: APISIX's ai-rate-limiting); on other statuses such a family only
 * reports the budget the request itself used. */
static lg_sig decide(const lg_cls *c, int st, int http_st, bool inferred)
{
    if (c->never_fit)
        return LG_SIG_REJECT;
    if (c->credit || (c->cap_reached && !c->window_named && st >= 400 && st <= 499))
        return LG_SIG_QUOTA;
    for (int ev = 0; ev < LG_EV_COUNT; ev++) {
        lg_sig s = c->ev[ev];
        if (s == LG_SIG_NONE || (ev == LG_EV_MESSAGE && c->vague_message && c->ev[LG_EV_HEADER] != LG_SIG_NONE))
            continue;
        /* The 500 inferred for an error event inside a 200 stream is no status: a family name of
         * "invalid request" there (LM Studio's event: error) says the request is at fault. */
        if (ev == LG_EV_GENERIC && s == LG_SIG_REJECT && (st == 402 || st == 429 || st >= 500) && !inferred)
            break;
        /* Nor does a server error's name outweigh an HTTP 429: a relay names its own failure api_error
         * around the upstream's 429 (claude-code-router's provider_response_error). */
        if (s == LG_SIG_SERVER && http_st == 429)
            continue;
        /* A server error's name beside an HTTP client-error status (Ollama's 404 of type api_error) is a
         * refusal; a status inferred for an error inside a 200 body is not one. */
        if (s == LG_SIG_SERVER && http_st >= 400 && http_st <= 499 && http_st != 408 && http_st != 429)
            return LG_SIG_REJECT;
        return by_period(c, s);
    }
    if (c->limit_headers && st >= 500 && status_signal(st) == LG_SIG_SERVER) /* 529 names its condition */
        return LG_SIG_LIMIT;
    return status_signal(st);
}

static void set_state(lg_outcome *out, lg_sig s, int st)
{
    switch (s) {
    case LG_SIG_QUOTA:
        out->state = LG_STATE_RETRYABLE_RATE_LIMIT, out->reason = LG_REASON_QUOTA_EXHAUSTED;
        break;
    case LG_SIG_RATE:
        out->state = LG_STATE_RETRYABLE_RATE_LIMIT, out->reason = LG_REASON_RATE_LIMIT_EXCEEDED;
        break;
    case LG_SIG_LIMIT:
        out->state = LG_STATE_RETRYABLE_RATE_LIMIT, out->reason = LG_REASON_UNKNOWN;
        break;
    case LG_SIG_CAPACITY:
        out->state = st >= 400 && st <= 499 ? LG_STATE_RETRYABLE_RATE_LIMIT : LG_STATE_PROVIDER_DOWN;
        out->reason = LG_REASON_MODEL_CAPACITY_EXHAUSTED;
        break;
    case LG_SIG_SERVER:
        out->state = LG_STATE_PROVIDER_DOWN, out->reason = LG_REASON_SERVER_ERROR;
        break;
    default:
        out->state = LG_STATE_NON_RETRYABLE, out->reason = LG_REASON_UNKNOWN;
        break;
    }
}

/* Picks the wait hint by precedence (fam[0..nfam): r's rate-limit header families); an absolute time becomes
 * relative to Date when there is one. A time already past, or a hint beyond LG_HINT_ABSURD_MS, is no hint. */
static void set_hint(lg_outcome *out, const lg_response_view *r, const lg_cls *c, lg_sig s, const lg_rl_family *fam,
                     size_t nfam)
{
    int64_t ms = LG_NO_HINT, at = LG_NO_HINT;
    bool limit = s == LG_SIG_RATE || s == LG_SIG_LIMIT || s == LG_SIG_QUOTA;
    lg_dim dim = c->dim != LG_DIM_NONE ? c->dim : c->text_dim;
    if (!lg_header_retry_after(r, &ms, &at) && !(limit && lg_header_reset(fam, nfam, dim, s == LG_SIG_QUOTA, &ms, &at))) {
        const int64_t rel[] = {c->retry_info_ms, c->quota_delay_ms, c->body_retry_ms, LG_NO_HINT, c->prose_ms, LG_NO_HINT};
        const int64_t abs[] = {LG_NO_HINT, LG_NO_HINT, LG_NO_HINT, c->reset_at_ms, LG_NO_HINT, c->prose_at_ms};
        ms = at = LG_NO_HINT;
        for (size_t i = 0; i < sizeof rel / sizeof rel[0] && ms == LG_NO_HINT && at == LG_NO_HINT; i++)
            ms = rel[i], at = abs[i];
    }
    if (at != LG_NO_HINT) {
        const char *date = lg_header_get(r->headers, r->n_headers, "date");
        int64_t now;
        if (date && lg_parse_http_date(date, strlen(date), &now))
            ms = at > now ? at - now : LG_NO_HINT;
        else
            out->retry_at_ms = at;
    }
    out->retry_after_ms = lg_hint_clamp(ms, LG_HINT_ABSURD_MS);
}

static void set_usage(lg_outcome *out, const lg_cls *c)
{
    if (c->usage == LG_USAGE_TOTALS) {
        out->prompt_tokens = c->prompt;
        out->completion_tokens = c->completion;
    } else if (c->usage == LG_USAGE_FIELDS) {
        out->prompt_tokens = (c->u_in > 0 ? c->u_in : 0) + (c->u_cache_w > 0 ? c->u_cache_w : 0) +
                             (c->u_cache_r > 0 ? c->u_cache_r : 0);
        out->completion_tokens = c->u_out > 0 ? c->u_out : 0;
        out->cached_tokens = c->u_cache_r > 0 ? c->u_cache_r : 0;
    } else {
        return;
    }
    out->has_usage = true;
}

/* True when a refusal with status st and the provider's message refuses the account's credentials rather
 * than the request: any 401, or a 400 or 403 whose message says the API key is invalid, expired, suspended
 * or lacks permission (Gemini answers a bad key with 400 API_KEY_INVALID, a leaked or suspended one with
 * 403; Anthropic's permission_error is a 403). */
static bool refuses_account(int st, const char *message)
{
    if (st == 401)
        return true;
    if ((st != 400 && st != 403) || (!strcasestr(message, "api key") && !strcasestr(message, "api_key") &&
                                     !strcasestr(message, "apikey")))
        return false;
    static const char *const verdicts[] = {"not valid", "invalid", "expired", "suspended", "leaked", "revoked",
                                           "incorrect", "disabled", "does not have permission"};
    for (size_t i = 0; i < sizeof verdicts / sizeof verdicts[0]; i++)
        if (strcasestr(message, verdicts[i]))
            return true;
    return false;
}

void lg_classify(lg_dialect d, const lg_response_view *r, lg_outcome *out)
{
    int saved_errno = errno;
    memset(out, 0, sizeof *out);
    out->retry_after_ms = out->retry_at_ms = LG_NO_HINT;
    if (!r) {
        out->state = LG_STATE_PROVIDER_DOWN, out->reason = LG_REASON_SERVER_ERROR;
        errno = saved_errno;
        return;
    }
    lg_cls c;
    lg_cls_init(&c, d);
    bool http_error = r->status < 200 || r->status > 299;
    bool stream = scan_body(&c, r, http_error);
    lg_rl_family fam[LG_RL_FAMILIES_MAX]; /* an error's rate-limit header families, read once for both uses */
    size_t nfam = 0;
    if (http_error || c.error) {
        header_code(&c, r);
        nfam = lg_rl_families(r, fam, LG_RL_FAMILIES_MAX);
        lg_sig hs = lg_rl_window_signal(fam, nfam);
        if (hs == LG_SIG_LIMIT)
            c.limit_headers = true;
        else
            lg_cls_evidence(&c, LG_EV_HEADER, hs);
    }
    if (!http_error && !c.error) {
        out->state = LG_STATE_SUCCESS;
        out->reason = LG_REASON_NONE;
        set_usage(out, &c);
    } else {
        int st = effective_status(r, &c, stream);
        /* An error inside a success response that states no status is not a client-side 4xx. */
        bool inferred = !http_error && !(c.body_status >= 400 && c.body_status <= 599);
        lg_sig s = decide(&c, st, r->status, inferred);
        set_state(out, s, inferred ? 500 : st);
        /* A request that alone exceeds a per-minute window: never retried, but the reason is that window. */
        if (c.never_fit && c.window_named && (st == 413 || st == 429 || says_limit(&c)))
            out->reason = LG_REASON_RATE_LIMIT_EXCEEDED;
        set_hint(out, r, &c, s, fam, nfam);
        memcpy(out->message, c.message, sizeof out->message);
        out->account_rejected = out->state == LG_STATE_NON_RETRYABLE && refuses_account(st, out->message);
        lg_cls_billing(out, st, r);
    }
    errno = saved_errno;
}
