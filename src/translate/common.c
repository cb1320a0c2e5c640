/* Shared helpers of the translators: failures, JSON member access, data URLs, dialect names. */
#include <stdarg.h>
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
