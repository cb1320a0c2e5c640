/* Codes and texts at any depth of an error document: error.details.error_code, details[] entries,
 * errors[] arrays, metadata of relays, wait members (retry_after, resets_in_seconds, resets_at), and whole
 * provider error bodies that relays embed as a JSON string in their own message or in any other member
 * (OpenRouter's metadata.raw.data). Bounded in depth and in the number of values visited. */
#include <string.h>

#include "classify/dialects.h"

#define NEST_DEPTH_MAX 8
#define NEST_VALUES_MAX 512
/* Quoted bodies read inside one another at most this deep. */
#define EMBEDDED_MAX 3

/* Members whose string value is a code or type name. */
static const char *const code_keys[] = {"code",      "type",       "reason",    "error_code", "errorCode",
                                        "error_type", "errorType", "errorName", "error_name", "status",
                                        "err_code",  "errcode"};
/* Members whose string value is prose. */
static const char *const text_keys[] = {"message", "msg", "error_msg", "errmsg", "raw", "detail", "description",
                                        "error", "error_description", "display_message"};

static bool key_in(const char *key, const char *const *keys, size_t n);

/* A wait member (seconds; milliseconds when its name says ms), as some APIs put in their error body:
 * retry_after, the reset of the limit hit (Codex: "resets_in_seconds": 13872), or the time a model still
 * needs to load (Hugging Face: "estimated_time": 176.7). The wait in ms, or
 * LG_NO_HINT. */
static int64_t retry_member(const cJSON *v)
{
    static const char *const sec_keys[] = {"retry_after", "retryAfter", "retry_after_seconds", "retryAfterSeconds",
                                           "resets_in_seconds", "reset_in_seconds", "resets_after_seconds",
                                           "reset_after_seconds", "reset_seconds",
                                           "estimated_time" /* Hugging Face: a loading model's seconds until ready */};
    static const char *const ms_keys[] = {"retry_after_ms", "retryAfterMs"};
    if (!cJSON_IsNumber(v) || !v->string || v->valuedouble < 0 || v->valuedouble > 1e9)
        return LG_NO_HINT;
    if (key_in(v->string, ms_keys, sizeof ms_keys / sizeof ms_keys[0]))
        return (int64_t)(v->valuedouble + 0.999);
    if (key_in(v->string, sec_keys, sizeof sec_keys / sizeof sec_keys[0]))
        return (int64_t)(v->valuedouble * 1000 + 0.999);
    return LG_NO_HINT;
}

/* A reset time member (Codex: "resets_at": 1777936568), Unix seconds or milliseconds: the time in Unix ms,
 * or LG_NO_HINT. */
static int64_t reset_at_member(const cJSON *v)
{
    static const char *const keys[] = {"resets_at", "reset_at", "resetsAt", "resetAt"};
    if (!cJSON_IsNumber(v) || !v->string || !key_in(v->string, keys, sizeof keys / sizeof keys[0]) ||
        v->valuedouble < 1e9 || v->valuedouble > 1e14)
        return LG_NO_HINT;
    return v->valuedouble < 1e12 ? (int64_t)v->valuedouble * 1000 : (int64_t)v->valuedouble;
}

static bool key_in(const char *key, const char *const *keys, size_t n)
{
    for (size_t i = 0; key && i < n; i++)
        if (!strcmp(key, keys[i]))
            return true;
    return false;
}

typedef struct {
    lg_cls *c;
    int budget;
    lg_document_reader read_document;
} walk_state;

static void walk(walk_state *w, const cJSON *v, int depth);

/* Reads a provider's whole body quoted inside another's as a document of its own, an error document when
 * http_error (then it is walked at any depth too); false, reading nothing, when quoted bodies are already
 * EMBEDDED_MAX deep. *found tells whether a dialect reader recognised it as an error. */
static bool read_quoted(lg_cls *c, const cJSON *doc, lg_document_reader read_document, bool http_error, bool *found)
{
    if (c->embedded >= EMBEDDED_MAX)
        return false;
    c->embedded++;
    bool was = c->error;
    *found = read_document(c, doc, http_error);
    c->error = was || *found;
    c->embedded--;
    return true;
}

static bool read_embedded(walk_state *w, const cJSON *doc)
{
    bool found;
    return read_quoted(w->c, doc, w->read_document, true, &found);
}

/* A string member that is itself a JSON document (a relay quoting the upstream body) is walked as one;
 * returns false, reading nothing, when s is no JSON document. */
static bool embedded_value(walk_state *w, const char *s, int depth)
{
    size_t n = strlen(s), i = 0;
    while (i < n && (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t'))
        i++;
    if (i >= n || (s[i] != '{' && s[i] != '['))
        return false;
    cJSON *doc = lg_json_parse(s + i, n - i);
    if (!doc)
        return false;
    if (!read_embedded(w, doc))
        walk(w, doc, depth + 1);
    cJSON_Delete(doc);
    return true;
}

/* A text member: an embedded document, else prose (the first text becomes the message when none was kept). */
static void text_value(walk_state *w, const char *s, int depth)
{
    if (!embedded_value(w, s, depth))
        lg_cls_text(w->c, s, strlen(s), true);
}

static void walk(walk_state *w, const cJSON *v, int depth)
{
    if (!v || depth > NEST_DEPTH_MAX || w->budget-- <= 0)
        return;
    const cJSON *child;
    if (cJSON_IsArray(v)) {
        cJSON_ArrayForEach(child, v) walk(w, child, depth + 1);
        return;
    }
    if (!cJSON_IsObject(v))
        return;
    cJSON_ArrayForEach(child, v)
    {
        const char *s = cJSON_IsString(child) && child->valuestring && *child->valuestring ? child->valuestring : NULL;
        int64_t wait = retry_member(child), at = reset_at_member(child);
        if (wait != LG_NO_HINT && w->c->body_retry_ms == LG_NO_HINT)
            w->c->body_retry_ms = wait;
        if (at != LG_NO_HINT && w->c->reset_at_ms == LG_NO_HINT)
            w->c->reset_at_ms = at;
        if (s && key_in(child->string, code_keys, sizeof code_keys / sizeof code_keys[0]))
            lg_cls_code(w->c, s);
        else if (s && key_in(child->string, text_keys, sizeof text_keys / sizeof text_keys[0]))
            text_value(w, s, depth);
        else if (s)
            embedded_value(w, s, depth);
        else if (cJSON_IsObject(child) || cJSON_IsArray(child))
            walk(w, child, depth + 1);
    }
}

void lg_scan_nested(lg_cls *c, const cJSON *doc, lg_document_reader read_document)
{
    walk_state w = {c, NEST_VALUES_MAX, read_document};
    walk(&w, doc, 0);
}

bool lg_scan_quoted_members(lg_cls *c, const cJSON *doc, lg_document_reader read_document)
{
    const cJSON *m;
    bool found = false;
    cJSON_ArrayForEach(m, doc)
    {
        const char *s = cJSON_IsString(m) ? m->valuestring : NULL;
        cJSON *quoted = s && s[0] == '{' ? lg_json_parse(s, strlen(s)) : NULL;
        bool read = quoted && read_quoted(c, quoted, read_document, false, &found);
        cJSON_Delete(quoted);
        if (!read && quoted)
            break; /* quoted bodies are EMBEDDED_MAX deep already */
        if (found)
            break;
    }
    return found;
}
