/* Token estimates at admission (see limiter.h): one recursive-descent scan of the request body, counting
 * the text the provider tokenizes and reading the output limit, the number of choices and the model (and
 * what lg_body_model_span says of it, so that the exchange scans the body once), without building a tree
 * or allocating. */
#include <stdlib.h>
#include <string.h>

#include "util/json_walk.h"
#include "llmgate/config.h"
#include "llmgate/limiter.h"

#define MAX_DEPTH 32

/* Where a value sits, as far as the output limit is concerned. */
typedef enum { AT_OTHER, AT_TOP, AT_GENCONF, AT_REQUEST, AT_REQ_GENCONF, AT_PARAMS } place;

/* The output-limit fields, most specific first (every one is tried for every dialect, since
 * OpenAI-compatible gateways accept each other's names). */
enum { OUT_MAX_COMPLETION, OUT_MAX_TOKENS, OUT_MAX_OUTPUT, OUT_GENCONF, OUT_REQ_GENCONF, OUT_PARAMS, OUT_N };

typedef struct {
    const char *base, *p, *end; /* the body, the next byte, the end */
    int64_t text;
    int64_t out[OUT_N]; /* -1 = absent */
    int64_t choices;    /* n / candidateCount, -1 = absent */
    bool odd;           /* a number or literal so far held a quote or an opening bracket */
    bool span_seen;     /* the first top-level "model" key was met (e->model_span says what it holds) */
    lg_estimate *e;
} scanner;

/* Key comparison, length first (name is a literal: sizeof gives its length). */
#define KEY_IS(k, n, name) ((k) && (n) == sizeof name - 1 && !memcmp(k, name, sizeof name - 1))

/* Keys whose string values are envelope, not text the model reads (by length, then by name). */
static bool envelope_key(const char *k, size_t n)
{
    switch (n) {
    case 2: return KEY_IS(k, n, "id");
    case 4: return KEY_IS(k, n, "role") || KEY_IS(k, n, "type") || KEY_IS(k, n, "user") || KEY_IS(k, n, "data");
    case 5: return KEY_IS(k, n, "model");
    case 6: return KEY_IS(k, n, "object") || KEY_IS(k, n, "detail") || KEY_IS(k, n, "format");
    case 8: return KEY_IS(k, n, "mimeType");
    case 9: return KEY_IS(k, n, "mime_type");
    case 10: return KEY_IS(k, n, "media_type") || KEY_IS(k, n, "modalities");
    case 11: return KEY_IS(k, n, "tool_choice") || KEY_IS(k, n, "stop_reason");
    case 12: return KEY_IS(k, n, "tool_call_id") || KEY_IS(k, n, "service_tier");
    case 13: return KEY_IS(k, n, "finish_reason");
    case 15: return KEY_IS(k, n, "encoding_format");
    case 16: return KEY_IS(k, n, "reasoning_effort");
    case 17: return KEY_IS(k, n, "anthropic_version");
    default: return false;
    }
}

/* Keys whose whole subtree (keys included) is serialized into the prompt (by length, then by name). */
static inline bool schema_key(const char *k, size_t n)
{
    switch (n) {
    case 5: return KEY_IS(k, n, "tools");
    case 9: return KEY_IS(k, n, "functions");
    case 20: return KEY_IS(k, n, "functionDeclarations");
    case 21: return KEY_IS(k, n, "function_declarations");
    default: return false;
    }
}

/* A string at s->p (the opening quote); sets *start and *len to its raw bytes. False when unterminated. */
static inline bool string_at(scanner *s, const char **start, size_t *len)
{
    size_t at = (size_t)(s->p - s->base), end = lg_json_string_end(s->base, (size_t)(s->end - s->base), at);
    if (!end)
        return false;
    *start = s->p + 1;
    *len = end - at - 2;
    s->p = s->base + end;
    return true;
}

static void count_text(scanner *s, size_t len)
{
    s->text += (int64_t)((len + 3) / 4) + 1;
}

/* The value of the number p[0..len) (len < 24) read by strtod when it is whole and within 0..10^12, else
 * -1. Cold and out of line: limits and counts are plain integers (scalar_at reads those itself). */
__attribute__((cold, noinline)) static int64_t decimal_value(const char *p, size_t len)
{
    char buf[24], *stop;
    memcpy(buf, p, len);
    buf[len] = '\0';
    double v = strtod(buf, &stop);
    return *stop == '\0' && v >= 0 && v <= 1e12 ? (int64_t)v : -1;
}

/* A number or literal: its extent; the non-negative integer value for *num (-1 otherwise). */
static bool scalar_at(scanner *s, int64_t *num)
{
    const char *q = s->p;
    for (; q < s->end && !lg_json_scalar_stop(*q); q++)
        s->odd |= *q == '"' || (*q | 0x20) == '{'; /* lg_body_model_span would end it there */
    if (q == s->p)
        return false;
    *num = -1;
    size_t len = (size_t)(q - s->p), digits = 0;
    int64_t whole = 0;
    for (; digits < 13 && digits < len && s->p[digits] >= '0' && s->p[digits] <= '9'; digits++)
        whole = whole * 10 + (s->p[digits] - '0');
    if (digits && digits == len) { /* a plain integer below 10^13: strtod would read the same, exactly */
        *num = whole <= 1000000000000 ? whole : -1;
    } else if (*s->p >= '0' && *s->p <= '9' && q - s->p < 24) {
        *num = decimal_value(s->p, len);
    }
    s->p = q;
    return true;
}

/* The output field (OUT_*) a number under key k at place pl fills, or -1; *choices for n / candidateCount.
 * Out of line: one copy for object and array, called once per number. */
static __attribute__((noinline)) int output_field(place pl, const char *k, size_t n, bool *choices)
{
    *choices = false;
    switch (pl) {
    case AT_TOP:
        if (KEY_IS(k, n, "n"))
            *choices = true;
        return KEY_IS(k, n, "max_completion_tokens") ? OUT_MAX_COMPLETION
               : KEY_IS(k, n, "max_tokens")          ? OUT_MAX_TOKENS
               : KEY_IS(k, n, "max_output_tokens")   ? OUT_MAX_OUTPUT
                                                     : -1;
    case AT_GENCONF:
    case AT_REQ_GENCONF:
        if (KEY_IS(k, n, "candidateCount"))
            *choices = true;
        return !KEY_IS(k, n, "maxOutputTokens") ? -1 : pl == AT_GENCONF ? OUT_GENCONF : OUT_REQ_GENCONF;
    case AT_PARAMS: return KEY_IS(k, n, "max_tokens") ? OUT_PARAMS : -1;
    default: return -1;
    }
}

/* The place of the members of an object found under key k at place pl (out of line: once per object). */
static __attribute__((noinline)) place child_place(place pl, const char *k, size_t n)
{
    if (pl == AT_TOP && KEY_IS(k, n, "generationConfig"))
        return AT_GENCONF;
    if (pl == AT_TOP && KEY_IS(k, n, "request"))
        return AT_REQUEST;
    if (pl == AT_TOP && KEY_IS(k, n, "parameters"))
        return AT_PARAMS;
    if (pl == AT_REQUEST && KEY_IS(k, n, "generationConfig"))
        return AT_REQ_GENCONF;
    return AT_OTHER;
}

static bool object(scanner *s, int depth, place pl, bool schema);
static bool array(scanner *s, int depth, const char *k, size_t kn, bool schema);
static inline bool value(scanner *s, int depth, place pl, const char *k, size_t kn, bool schema);

/* At the value of the first top-level "model" member: what lg_body_model_span says of it. Everything read
 * before was well formed (this scan checks it), so that reader, which skips values less strictly, ends
 * each where this scan did, unless a number or literal held a quote or an opening bracket: it reads a
 * string or a container from there. */
static void model_span(scanner *s)
{
    s->span_seen = true;
    s->e->model_span = s->odd ? -1 : 0;
    size_t at = (size_t)(s->p - s->base), end;
    if (!s->odd && s->p < s->end && *s->p == '"' && (end = lg_json_string_end(s->base, (size_t)(s->end - s->base), at))) {
        s->e->model_span = 1;
        s->e->span_start = at + 1;
        s->e->span_end = end - 1;
    }
}

/* A container being read: its depth and the place of its members, and for an array the key its elements
 * are found under. */
typedef struct {
    scanner *s;
    int depth;
    place pl;
    const char *k;
    size_t kn;
    bool schema;
} level;

/* The value at index at of a container at level l, read by value() one level down: its end, or 0 when it
 * is malformed. */
LG_JSON_INLINE size_t value_at(const level *l, size_t at, place pl, const char *k, size_t kn, bool schema)
{
    scanner *s = l->s;
    s->p = s->base + at;
    return value(s, l->depth + 1, pl, k, kn, schema) ? (size_t)(s->p - s->base) : 0;
}

/* A member of an object (an lg_json_member_fn): its key counted in a schema, the top-level model noted. */
static size_t on_member(const char *k, size_t kn, const char *base, size_t n, size_t at, void *ctx)
{
    const level *l = ctx;
    scanner *s = l->s;
    if (l->schema)
        count_text(s, kn);
    if (l->pl == AT_TOP && !s->span_seen && KEY_IS(k, kn, "model")) {
        s->p = s->base + at;
        model_span(s);
    }
    return value_at(l, at, l->pl, k, kn, l->schema || schema_key(k, kn));
}

/* An element of an array (an lg_json_element_fn), found under the array's key. */
static size_t on_element(const char *base, size_t n, size_t at, void *ctx)
{
    const level *l = ctx;
    return value_at(l, at, AT_OTHER, l->k, l->kn, l->schema);
}

/* An object at s->p whose members sit at place pl. */
static bool object(scanner *s, int depth, place pl, bool schema)
{
    level l = {s, depth, pl, NULL, 0, schema};
    size_t end;
    if (!lg_json_walk_object(s->base, (size_t)(s->end - s->base), (size_t)(s->p - s->base), on_member, &l, &end))
        return false;
    s->p = s->base + end;
    return true;
}

/* An array at s->p, its elements found under key k. */
static bool array(scanner *s, int depth, const char *k, size_t kn, bool schema)
{
    level l = {s, depth, AT_OTHER, k, kn, schema};
    size_t end;
    if (!lg_json_walk_array(s->base, (size_t)(s->end - s->base), (size_t)(s->p - s->base), on_element, &l, &end))
        return false;
    s->p = s->base + end;
    return true;
}

/* A string, number or literal at s->p (s->p < s->end), found under key k at place pl. */
LG_JSON_INLINE bool leaf(scanner *s, place pl, const char *k, size_t kn, bool schema)
{
    if (*s->p == '"') {
        const char *v;
        size_t n;
        if (!string_at(s, &v, &n))
            return false;
        if (pl == AT_TOP && KEY_IS(k, kn, "model") && n < LG_MODEL_MAX && !memchr(v, '\\', n)) {
            memcpy(s->e->model, v, n);
            s->e->model[n] = '\0';
        }
        bool data_url = n >= 5 && !memcmp(v, "data:", 5);
        if (schema || (!data_url && !envelope_key(k, kn)))
            count_text(s, n);
        return true;
    }
    int64_t num;
    if (!scalar_at(s, &num))
        return false;
    bool choices;
    int f = output_field(pl, k, kn, &choices);
    if (f >= 0 && s->out[f] < 0)
        s->out[f] = num;
    if (choices && num >= 1 && s->choices < 0)
        s->choices = num;
    return true;
}

/* One value at s->p, found under key k (the member's key, or the enclosing array's) at place pl: a string,
 * number or literal read here, a container by a call (the only recursion). */
LG_JSON_INLINE bool value(scanner *s, int depth, place pl, const char *k, size_t kn, bool schema)
{
    if (depth > MAX_DEPTH || s->p >= s->end)
        return false;
    if (*s->p == '{')
        return object(s, depth, child_place(pl, k, kn), schema);
    if (*s->p == '[')
        return array(s, depth, k, kn, schema);
    return leaf(s, pl, k, kn, schema);
}

void lg_estimate_scan(lg_dialect d, const char *body, size_t len, lg_estimate *out)
{
    if (!body)
        len = 0;
    memset(out, 0, sizeof *out);
    out->body = body;
    out->body_len = len;
    out->dialect = d;
    out->model_span = -1;
    out->envelope = (int64_t)((len + 3) / 4);
    out->text = out->envelope;
    out->output = -1;
    if (d == LG_DIALECT_NONE)
        return;
    scanner s = {.base = body, .p = body, .end = body + len, .text = 3, .choices = -1, .e = out};
    for (int f = 0; f < OUT_N; f++)
        s.out[f] = -1;
    size_t at = lg_json_skip_ws(body, len, 0);
    bool parsed = at < len && body[at] == '{';
    if (parsed) {
        s.p = body + at;
        parsed = object(&s, 0, AT_TOP, false);
    }
    if (!parsed) {
        out->model[0] = '\0';
        return;
    }
    if (!s.span_seen && !s.odd) /* a well-formed object without a top-level model */
        out->model_span = 0;
    out->text = s.text;
    for (int f = 0; f < OUT_N && out->output < 0; f++)
        out->output = s.out[f];
    if (out->output >= 0 && s.choices > 1)
        out->output *= s.choices < 128 ? s.choices : 128;
}

uint32_t lg_model_hash(const char *model)
{
    uint32_t h = 2166136261u;
    for (const unsigned char *c = (const unsigned char *)model; *c; c++)
        h = (h ^ *c) * 16777619u;
    return h ? h : 1;
}
