/* Shared helpers of the translators: failures, JSON member access, data URLs, dialect names. */
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "translate/internal.h"

void *tr_err(tr_fail *f, lg_tr_status st, const char *fmt, ...)
{
    if (f->st != LG_TR_OK)
        return NULL;
    f->st = st;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->reason, LG_TR_REASON_MAX, fmt, ap);
    va_end(ap);
    return NULL;
}

void *tr_refuse(tr_fail *f, const char *what, lg_tr_dialect to)
{
    return tr_err(f, LG_TR_REFUSED, "%s has no equivalent in %s", what, lg_tr_dialect_name(to));
}

const char *tr_str(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

const cJSON *tr_num(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsNumber(v) ? v : NULL;
}

const cJSON *tr_obj(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsObject(v) ? v : NULL;
}

const cJSON *tr_arr(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsArray(v) ? v : NULL;
}

void tr_copy(cJSON *dst, const char *as, const cJSON *src, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(src, name);
    if (v && dst)
        cJSON_AddItemToObject(dst, as, cJSON_Duplicate(v, true));
}

void tr_add_num(cJSON *o, const char *name, double v)
{
    if (o)
        cJSON_AddNumberToObject(o, name, v);
}

void tr_add_str(cJSON *o, const char *name, const char *v)
{
    if (o)
        cJSON_AddStringToObject(o, name, v ? v : "");
}

bool tr_append(char **acc, const char *s, const char *sep)
{
    size_t a = *acc ? strlen(*acc) : 0, sl = *acc ? strlen(sep) : 0, n = strlen(s);
    char *r = realloc(*acc, a + sl + n + 1);
    if (!r)
        return false;
    memcpy(r + a, sep, sl);
    memcpy(r + a + sl, s, n + 1);
    *acc = r;
    return true;
}

bool tr_used(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    if (!v || cJSON_IsNull(v) || cJSON_IsFalse(v))
        return false;
    if (cJSON_IsNumber(v))
        return v->valuedouble != 0;
    if (cJSON_IsString(v))
        return v->valuestring[0] != '\0';
    return true;
}

bool tr_only_known(const cJSON *req, const char *const *known, lg_tr_dialect to, tr_fail *f)
{
    const cJSON *m;
    cJSON_ArrayForEach(m, req) {
        size_t i = 0;
        while (known[i] && strcmp(known[i], m->string))
            i++;
        if (!known[i] && !cJSON_IsNull(m)) {
            char what[96];
            snprintf(what, sizeof what, "field \"%.64s\"", m->string);
            tr_refuse(f, what, to);
            return false;
        }
    }
    return true;
}

bool tr_data_url(const char *url, char *mime, size_t mime_cap, const char **data)
{
    static const char b64[] = ";base64,";
    if (strncmp(url, "data:", 5))
        return false;
    const char *m = url + 5, *b = strstr(m, b64);
    if (!b || (size_t)(b - m) >= mime_cap || b == m || memchr(m, ',', (size_t)(b - m)))
        return false;
    memcpy(mime, m, (size_t)(b - m));
    mime[b - m] = '\0';
    *data = b + sizeof b64 - 1;
    return true;
}

const char *lg_tr_dialect_name(lg_tr_dialect d)
{
    switch (d) {
    case LG_TR_ANTHROPIC: return "anthropic";
    case LG_TR_GEMINI: return "gemini";
    default: return "openai";
    }
}

bool lg_tr_dialect_parse(const char *name, lg_tr_dialect *out)
{
    static const lg_tr_dialect all[] = {LG_TR_OPENAI, LG_TR_ANTHROPIC, LG_TR_GEMINI};
    for (size_t i = 0; name && i < sizeof all / sizeof all[0]; i++)
        if (!strcmp(name, lg_tr_dialect_name(all[i]))) {
            *out = all[i];
            return true;
        }
    return false;
}

bool lg_tr_dialect_of(lg_dialect d, lg_tr_dialect *out)
{
    switch (d) {
    case LG_DIALECT_OPENAI: *out = LG_TR_OPENAI; return true;
    case LG_DIALECT_ANTHROPIC: *out = LG_TR_ANTHROPIC; return true;
    case LG_DIALECT_GOOGLE: *out = LG_TR_GEMINI; return true;
    default: return false;
    }
}

void tr_push_turn(cJSON *turns, const char *role, cJSON *items, const char *member)
{
    cJSON *last = cJSON_GetArrayItem(turns, cJSON_GetArraySize(turns) - 1), *it;
    if (cJSON_GetArraySize(items) == 0) {
        cJSON_Delete(items);
        return;
    }
    if (last && tr_str(last, "role") && !strcmp(tr_str(last, "role"), role)) {
        cJSON *dst = cJSON_GetObjectItemCaseSensitive(last, member);
        while ((it = cJSON_DetachItemFromArray(items, 0)))
            cJSON_AddItemToArray(dst, it);
        cJSON_Delete(items);
        return;
    }
    cJSON *t = cJSON_CreateObject();
    tr_add_str(t, "role", role);
    cJSON_AddItemToObject(t, member, items);
    cJSON_AddItemToArray(turns, t);
}

cJSON *tr_tool_call(const char *id, const char *name, const cJSON *args)
{
    cJSON *c = cJSON_CreateObject(), *fn;
    char *a = cJSON_PrintUnformatted(args);
    tr_add_str(c, "id", id);
    tr_add_str(c, "type", "function");
    fn = cJSON_AddObjectToObject(c, "function");
    tr_add_str(fn, "name", name);
    tr_add_str(fn, "arguments", a ? a : "{}");
    free(a);
    return c;
}

cJSON *tr_function_tool(const cJSON *src, const char *params)
{
    cJSON *t = cJSON_CreateObject(), *fn = cJSON_AddObjectToObject(t, "function");
    tr_add_str(t, "type", "function");
    tr_copy(fn, "name", src, "name");
    tr_copy(fn, "description", src, "description");
    tr_copy(fn, "parameters", src, params);
    return t;
}

cJSON *tr_image_url_part(const char *mime, const char *data)
{
    size_t n = strlen(mime) + strlen(data) + 16;
    char *url = malloc(n);
    if (!url)
        return NULL;
    snprintf(url, n, "data:%s;base64,%s", mime, data);
    cJSON *p = cJSON_CreateObject();
    tr_add_str(p, "type", "image_url");
    tr_add_str(cJSON_AddObjectToObject(p, "image_url"), "url", url);
    free(url);
    return p;
}

tr_choice tr_tool_choice(const cJSON *choice, const char **name)
{
    const char *mode = cJSON_IsString(choice) ? choice->valuestring : NULL;
    *name = tr_str(tr_obj(choice, "function"), "name");
    if (!choice || (mode && !strcmp(mode, "auto")))
        return TR_CHOICE_AUTO;
    if (mode && !strcmp(mode, "required"))
        return TR_CHOICE_REQUIRED;
    if (mode && !strcmp(mode, "none"))
        return TR_CHOICE_NONE;
    return *name ? TR_CHOICE_NAMED : TR_CHOICE_BAD;
}

void tr_add_message(cJSON *msgs, const char *role, char *text)
{
    if (text) {
        cJSON *m = cJSON_CreateObject();
        tr_add_str(m, "role", role);
        tr_add_str(m, "content", text);
        cJSON_AddItemToArray(msgs, m);
    }
    free(text);
}

void tr_set_assistant(cJSON *msg, char *text, cJSON *calls)
{
    if (text)
        tr_add_str(msg, "content", text);
    else
        cJSON_AddNullToObject(msg, "content");
    free(text);
    if (cJSON_GetArraySize(calls))
        cJSON_AddItemToObject(msg, "tool_calls", calls);
    else
        cJSON_Delete(calls);
}

cJSON *tr_declaration(const cJSON *tool, lg_tr_dialect to, const char *params_as, tr_fail *f)
{
    const cJSON *fn = tr_obj(tool, "function");
    const char *type = tr_str(tool, "type");
    if (!type || strcmp(type, "function"))
        return tr_refuse(f, "a tool other than a function", to);
    if (!tr_str(fn, "name"))
        return tr_err(f, LG_TR_MALFORMED, "function tool without a name");
    cJSON *d = cJSON_CreateObject();
    tr_copy(d, "name", fn, "name");
    tr_copy(d, "description", fn, "description");
    tr_copy(d, params_as, fn, "parameters");
    return d;
}

long tr_clamp(const cJSON *v, long lo, long hi, long dflt)
{
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
        return dflt;
    double d = v->valuedouble;
    return d <= (double)lo ? lo : d >= (double)hi ? hi : (long)d;
}
