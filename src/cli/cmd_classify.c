/* llmgate classify: classifies fixture files (tests/fixtures/responses format) or one raw HTTP response
 * read from stdin, printing one compact JSON object per response:
 * {"file","state","reason","detail","retry_after_ms","retry_at","usage","message"} ("detail": "billing" for
 * an account out of credit, else null), or {"file","error"} for a file
 * that cannot be read or understood (then the exit status is 1). */
#include <ctype.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cli/commands.h"
#include "llmgate/classify.h"

#define INPUT_MAX (64u << 20)
#define RAW_HEADERS_MAX 256

/* Reads a whole stream (at most INPUT_MAX bytes) into a NUL-terminated buffer. NULL on failure. */
static char *read_all(FILE *f, size_t *len)
{
    size_t cap = 65536, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0 || n > INPUT_MAX) {
            if (ferror(f) || n > INPUT_MAX) {
                free(buf);
                return NULL;
            }
            break;
        }
        if (n == cap) {
            char *nb = realloc(buf, cap * 2 + 1);
            if (!nb)
                free(buf);
            buf = nb;
            cap *= 2;
        }
    }
    if (buf) {
        buf[n] = '\0';
        *len = n;
    }
    return buf;
}

/* The dialect of a provider name: a preset name or alias, or a dialect name; OpenAI otherwise. */
static lg_dialect dialect_of(const char *provider)
{
    const lg_preset *p = provider ? lg_preset_find(provider) : NULL;
    lg_dialect d;
    if (p)
        return p->dialect;
    if (provider && lg_dialect_parse(provider, &d) && d != LG_DIALECT_NONE)
        return d;
    return LG_DIALECT_OPENAI;
}

static void add_int_or_null(cJSON *o, const char *key, int64_t v, bool present)
{
    if (present)
        cJSON_AddNumberToObject(o, key, (double)v);
    else
        cJSON_AddNullToObject(o, key);
}

/* RFC 3339 UTC text of a Unix ms time ("2026-04-01T00:00:00Z", with .mmm only when non-zero). */
static void format_utc(int64_t ms, char *buf, size_t cap)
{
    time_t sec = (time_t)(ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
    int frac = (int)(ms - (int64_t)sec * 1000);
    struct tm tm;
    if (!gmtime_r(&sec, &tm)) {
        snprintf(buf, cap, "invalid");
        return;
    }
    size_t n = strftime(buf, cap, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf + n, cap - n, frac ? ".%03dZ" : "Z", frac);
}

/* Prints the outcome of one response as a compact JSON line. */
static void print_outcome(const char *file, const lg_outcome *o)
{
    cJSON *j = cJSON_CreateObject();
    if (!j)
        return;
    cJSON_AddStringToObject(j, "file", file);
    cJSON_AddStringToObject(j, "state", lg_state_name(o->state));
    if (o->reason == LG_REASON_NONE)
        cJSON_AddNullToObject(j, "reason");
    else
        cJSON_AddStringToObject(j, "reason", lg_reason_name(o->reason));
    if (o->detail == LG_DETAIL_NONE)
        cJSON_AddNullToObject(j, "detail");
    else
        cJSON_AddStringToObject(j, "detail", lg_detail_name(o->detail));
    add_int_or_null(j, "retry_after_ms", o->retry_after_ms, o->retry_after_ms != LG_NO_HINT);
    if (o->retry_at_ms != LG_NO_HINT) {
        char at[48];
        format_utc(o->retry_at_ms, at, sizeof at);
        cJSON_AddStringToObject(j, "retry_at", at);
    } else {
        cJSON_AddNullToObject(j, "retry_at");
    }
    if (o->has_usage) {
        cJSON *u = cJSON_AddObjectToObject(j, "usage");
        cJSON_AddNumberToObject(u, "prompt", (double)o->prompt_tokens);
        cJSON_AddNumberToObject(u, "completion", (double)o->completion_tokens);
    } else {
        cJSON_AddNullToObject(j, "usage");
    }
    cJSON_AddStringToObject(j, "message", o->message);
    char *text = cJSON_PrintUnformatted(j);
    if (text)
        printf("%s\n", text);
    free(text);
    cJSON_Delete(j);
}

static void print_error(const char *file, const char *error)
{
    cJSON *j = cJSON_CreateObject();
    if (!j)
        return;
    cJSON_AddStringToObject(j, "file", file);
    cJSON_AddStringToObject(j, "error", error);
    char *text = cJSON_PrintUnformatted(j);
    if (text)
        printf("%s\n", text);
    free(text);
    cJSON_Delete(j);
}

static bool is_event_stream(const lg_header *h, size_t n)
{
    const char *ct = lg_header_get(h, n, "content-type");
    return lg_is_event_stream(ct);
}

/* Classifies one fixture file; returns false (after printing an error object) when it is unusable. */
static bool classify_fixture(const char *path, const char *provider)
{
    FILE *f = fopen(path, "re");
    size_t len = 0;
    char *text = f ? read_all(f, &len) : NULL;
    if (f)
        fclose(f);
    if (!text) {
        print_error(path, "cannot read file");
        return false;
    }
    cJSON *fx = cJSON_ParseWithLength(text, len);
    free(text);
    const cJSON *status = cJSON_GetObjectItemCaseSensitive(fx, "status");
    const cJSON *body = cJSON_GetObjectItemCaseSensitive(fx, "body");
    const cJSON *headers = cJSON_GetObjectItemCaseSensitive(fx, "headers");
    const char *why = !cJSON_IsObject(fx)                                     ? "not a JSON object"
                      : !cJSON_IsNumber(status)                               ? "\"status\" is not a number"
                      : !cJSON_IsString(body)                                 ? "\"body\" is not a string"
                      : headers && !cJSON_IsObject(headers) && !cJSON_IsNull(headers) ? "\"headers\" is not an object"
                                                                              : NULL;
    if (why) {
        print_error(path, why);
        cJSON_Delete(fx);
        return false;
    }
    lg_header hs[RAW_HEADERS_MAX];
    char numbers[RAW_HEADERS_MAX][32];
    size_t nh = 0;
    const cJSON *h;
    cJSON_ArrayForEach(h, (cJSON_IsObject(headers) ? headers : NULL))
    {
        if (nh == RAW_HEADERS_MAX || !h->string)
            break;
        if (cJSON_IsString(h)) {
            hs[nh].name = h->string;
            hs[nh++].value = h->valuestring;
        } else if (cJSON_IsNumber(h)) {
            snprintf(numbers[nh], sizeof numbers[nh], "%.17g", h->valuedouble);
            hs[nh].name = h->string;
            hs[nh].value = numbers[nh];
            nh++;
        }
    }
    const cJSON *stream = cJSON_GetObjectItemCaseSensitive(fx, "stream");
    double st = status->valuedouble;
    lg_response_view v = {.status = st >= 0 && st < 1000 ? (int)st : -1,
                          .headers = hs,
                          .n_headers = nh,
                          .body = body->valuestring,
                          .body_len = strlen(body->valuestring),
                          .stream = cJSON_IsBool(stream) ? cJSON_IsTrue(stream) : is_event_stream(hs, nh)};
    const char *name = provider ? provider : cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(fx, "provider"));
    lg_outcome o;
    lg_classify(dialect_of(name), &v, &o);
    print_outcome(path, &o);
    cJSON_Delete(fx);
    return true;
}

/* Reads one line ending at LF (a preceding CR is dropped) starting at *pos; NUL-terminates it in place. */
static char *next_line(char *buf, size_t len, size_t *pos)
{
    if (*pos >= len)
        return NULL;
    char *line = buf + *pos;
    char *nl = memchr(line, '\n', len - *pos);
    size_t n = nl ? (size_t)(nl - line) : len - *pos;
    *pos += n + (nl ? 1 : 0);
    if (n && line[n - 1] == '\r')
        n--;
    line[n] = '\0';
    return line;
}

/* Decodes a chunked body (possibly truncated) into out, which holds at least len bytes. */
static size_t dechunk(const char *in, size_t len, char *out)
{
    size_t i = 0, o = 0;
    while (i < len) {
        char *end;
        unsigned long long size = strtoull(in + i, &end, 16);
        if (end == in + i)
            break;
        const char *nl = memchr(in + i, '\n', len - i);
        if (!nl)
            break;
        i = (size_t)(nl - in) + 1;
        if (size == 0)
            break;
        size_t take = size < len - i ? (size_t)size : len - i;
        memcpy(out + o, in + i, take);
        o += take;
        i += take;
        if (i < len && in[i] == '\r')
            i++;
        if (i < len && in[i] == '\n')
            i++;
    }
    return o;
}

/* True when body starts with a chunk-size line ("1a\r\n", "0;ext\r\n"): curl -i output, for one, keeps
 * the Transfer-Encoding header but shows the body already decoded. */
static bool looks_chunked(const char *body, size_t len)
{
    size_t i = 0;
    while (i < len && i < 16 && isxdigit((unsigned char)body[i]))
        i++;
    return i > 0 && i < len && (body[i] == '\r' || body[i] == '\n' || body[i] == ';');
}

typedef struct {
    int status;
    lg_header headers[RAW_HEADERS_MAX];
    size_t n_headers;
    char *body;
    size_t body_len;
    char *decoded; /* owned: the de-chunked body, or NULL */
} raw_response;

/* Parses a raw HTTP/1.x response in place. Interim responses (1xx, a proxy's CONNECT reply) are
 * skipped. Returns an error text, or NULL. */
static const char *parse_raw(char *buf, size_t len, raw_response *r)
{
    size_t pos = 0;
    for (;;) {
        char *line = next_line(buf, len, &pos);
        while (line && !*line)
            line = next_line(buf, len, &pos);
        if (!line || strncmp(line, "HTTP/", 5))
            return "no HTTP status line on stdin";
        char *sp = strchr(line, ' ');
        char *end;
        long st = sp ? strtol(sp + 1, &end, 10) : -1;
        if (st < 100 || st > 999)
            return "malformed HTTP status line";
        r->status = (int)st;
        r->n_headers = 0;
        while ((line = next_line(buf, len, &pos)) && *line) {
            char *colon = strchr(line, ':');
            if (!colon || r->n_headers == RAW_HEADERS_MAX)
                continue;
            *colon = '\0';
            char *value = colon + 1;
            while (*value == ' ' || *value == '\t')
                value++;
            size_t vl = strlen(value);
            while (vl && (value[vl - 1] == ' ' || value[vl - 1] == '\t'))
                value[--vl] = '\0';
            r->headers[r->n_headers].name = line;
            r->headers[r->n_headers++].value = value;
        }
        r->body = buf + pos;
        r->body_len = pos < len ? len - pos : 0;
        bool another = r->body_len >= 5 && !strncmp(r->body, "HTTP/", 5);
        if (r->status >= 200 && !another)
            break;
    }
    const char *te = lg_header_get(r->headers, r->n_headers, "transfer-encoding");
    if (te && strcasestr(te, "chunked") && looks_chunked(r->body, r->body_len)) {
        r->decoded = malloc(r->body_len + 1);
        if (!r->decoded)
            return "out of memory";
        r->body_len = dechunk(r->body, r->body_len, r->decoded);
        r->body = r->decoded;
    }
    return NULL;
}

/* Classifies the raw HTTP response on stdin as the given provider. */
static bool classify_stdin(const char *provider)
{
    size_t len = 0;
    char *buf = read_all(stdin, &len);
    if (!buf) {
        print_error("-", "cannot read stdin");
        return false;
    }
    raw_response r;
    memset(&r, 0, sizeof r);
    const char *err = parse_raw(buf, len, &r);
    if (err) {
        print_error("-", err);
        free(buf);
        return false;
    }
    lg_response_view v = {.status = r.status,
                          .headers = r.headers,
                          .n_headers = r.n_headers,
                          .body = r.body,
                          .body_len = r.body_len,
                          .stream = is_event_stream(r.headers, r.n_headers),
                          .aws_frames = lg_is_aws_eventstream(lg_header_get(r.headers, r.n_headers, "content-type"))};
    lg_outcome o;
    lg_classify(dialect_of(provider), &v, &o);
    print_outcome("-", &o);
    free(r.decoded);
    free(buf);
    return true;
}

int lg_cmd_classify(int argc, char **argv)
{
    const char *provider = NULL;
    int first = argc;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--provider") && i + 1 < argc) {
            provider = argv[++i];
        } else if (!strncmp(argv[i], "--provider=", 11)) {
            provider = argv[i] + 11;
        } else if (!strcmp(argv[i], "--")) {
            first = i + 1;
            break;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "llmgate classify: unknown option '%s'\n"
                            "usage: llmgate classify [--provider NAME] FILE...   (no FILE: raw HTTP on stdin)\n",
                    argv[i]);
            return 2;
        } else {
            first = i;
            break;
        }
    }
    if (first >= argc) {
        if (!provider) {
            fputs("usage: llmgate classify [--provider NAME] FILE...\n"
                  "       llmgate classify --provider NAME < raw-http-response\n",
                  stderr);
            return 2;
        }
        return classify_stdin(provider) ? 0 : 1;
    }
    int status = 0;
    for (int i = first; i < argc; i++)
        if (!classify_fixture(argv[i], provider))
            status = 1;
    fflush(stdout);
    return status;
}
