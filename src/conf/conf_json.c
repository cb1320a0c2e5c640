/* Typed, path-reporting readers for the config's JSON values. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf/conf_internal.h"

#define NAME_SHOWN_MAX 64 /* longer user-supplied names are shortened in messages */

void conf_err(conf_ctx *cx, const char *path, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cx->failed = true;
    if (path && *path)
        lg_errors_add(cx->errs, "%s: %s: %s", cx->origin, path, msg);
    else
        lg_errors_add(cx->errs, "%s: %s", cx->origin, msg);
}

/* Copies s into out (capacity n) with unprintable bytes as \xNN and long text shortened with "...". */
static void sanitize(const char *s, size_t max_chars, char *out, size_t n)
{
    size_t o = 0, shown = 0;
    for (; *s && o + 5 < n; s++) {
        if (shown++ == max_chars) {
            memcpy(out + o, "...", 3);
            o += 3;
            break;
        }
        unsigned char ch = (unsigned char)*s;
        if (ch < 0x20 || ch == 0x7f || ch == '"' || ch == '\\')
            o += (size_t)snprintf(out + o, n - o, "\\x%02x", ch);
        else
            out[o++] = (char)ch;
    }
    out[o] = '\0';
}

void conf_path_key(char out[LG_CONF_PATH_MAX], const char *base, const char *name)
{
    char clean[NAME_SHOWN_MAX * 4 + 8];
    sanitize(name ? name : "", NAME_SHOWN_MAX, clean, sizeof clean);
    if (base && *base)
        snprintf(out, LG_CONF_PATH_MAX, "%.300s.%.200s", base, clean);
    else
        snprintf(out, LG_CONF_PATH_MAX, "%.300s", clean);
}

void conf_path_index(char out[LG_CONF_PATH_MAX], const char *base, size_t i)
{
    snprintf(out, LG_CONF_PATH_MAX, "%.400s[%zu]", base, i);
}

bool conf_array_at_most(conf_ctx *cx, const cJSON *arr, const char *path, int max, const char *what,
                        bool show_strings)
{
    if (cJSON_IsArray(arr) && cJSON_GetArraySize(arr) <= max)
        return true;
    char got[200];
    if (cJSON_IsArray(arr))
        snprintf(got, sizeof got, "%d", cJSON_GetArraySize(arr));
    else
        conf_describe(arr, show_strings, got, sizeof got);
    conf_err(cx, path, "expected an array of at most %d %s, got %s", max, what, got);
    return false;
}

void conf_describe(const cJSON *item, bool show_strings, char *out, size_t n)
{
    if (!item) {
        snprintf(out, n, "nothing");
    } else if (cJSON_IsString(item)) {
        if (show_strings && item->valuestring) {
            char clean[160];
            sanitize(item->valuestring, 32, clean, sizeof clean);
            snprintf(out, n, "\"%s\"", clean);
        } else {
            snprintf(out, n, "a string");
        }
    } else if (cJSON_IsNumber(item)) {
        if (isfinite(item->valuedouble))
            snprintf(out, n, "%.15g", item->valuedouble);
        else
            snprintf(out, n, "a number too large to represent");
    } else if (cJSON_IsTrue(item)) {
        snprintf(out, n, "true");
    } else if (cJSON_IsFalse(item)) {
        snprintf(out, n, "false");
    } else if (cJSON_IsNull(item)) {
        snprintf(out, n, "null");
    } else if (cJSON_IsArray(item)) {
        snprintf(out, n, "an array");
    } else if (cJSON_IsObject(item)) {
        snprintf(out, n, "an object");
    } else {
        snprintf(out, n, "an invalid value");
    }
}

/* Reports "expected WHAT, got ..." at path. */
static void type_err(conf_ctx *cx, const cJSON *item, const char *path, const char *what)
{
    char got[200];
    conf_describe(item, true, got, sizeof got);
    conf_err(cx, path, "expected %s, got %s", what, got);
}

bool conf_expect_object(conf_ctx *cx, const cJSON *obj, const char *path)
{
    if (cJSON_IsObject(obj))
        return true;
    type_err(cx, obj, path, "an object");
    return false;
}

/* Edit distance between two short strings, capped at 9 (enough to decide "did you mean"). */
static size_t distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 40 || lb > 40)
        return 9;
    size_t row[41];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (row[j] + 1 < best)
                best = row[j] + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb] < 9 ? row[lb] : 9;
}

/* Reports one unknown key, suggesting the closest allowed name or listing them all. */
static void unknown_key(conf_ctx *cx, const char *path, const char *name, const char *const *allowed)
{
    const char *best = NULL;
    size_t best_d = 3;
    for (size_t i = 0; allowed[i]; i++) {
        size_t d = distance(name, allowed[i]);
        if (d < best_d) {
            best_d = d;
            best = allowed[i];
        }
    }
    if (best) {
        conf_err(cx, path, "unknown key (did you mean \"%s\"?)", best);
        return;
    }
    char list[512] = "";
    size_t o = 0;
    for (size_t i = 0; allowed[i] && o < sizeof list; i++)
        o += (size_t)snprintf(list + o, sizeof list - o, "%s%s", i ? ", " : "", allowed[i]);
    conf_err(cx, path, "unknown key (expected one of: %s)", list);
}

bool conf_check_keys(conf_ctx *cx, const cJSON *obj, const char *path, const char *const *allowed)
{
    char p[LG_CONF_PATH_MAX];
    if (cJSON_GetArraySize(obj) > LG_CONF_MEMBERS_MAX) {
        conf_err(cx, path, "too many entries (at most %d)", LG_CONF_MEMBERS_MAX);
        return false;
    }
    for (const cJSON *it = obj ? obj->child : NULL; it; it = it->next) {
        const char *name = it->string ? it->string : "";
        conf_path_key(p, path, name);
        bool known = false;
        for (size_t i = 0; allowed && allowed[i]; i++)
            if (!strcmp(allowed[i], name))
                known = true;
        if (!known && allowed) {
            unknown_key(cx, p, name, allowed);
            continue;
        }
        for (const cJSON *prev = obj->child; prev != it; prev = prev->next)
            if (prev->string && !strcmp(prev->string, name)) {
                conf_err(cx, p, "duplicate key");
                break;
            }
    }
    return true;
}

bool conf_int(conf_ctx *cx, const cJSON *item, const char *path, int64_t min, int64_t max, const char *what,
              int64_t *out)
{
    if (!cJSON_IsNumber(item) || !isfinite(item->valuedouble) || item->valuedouble < (double)min) {
        type_err(cx, item, path, what);
        return false;
    }
    if (item->valuedouble > (double)max) {
        conf_err(cx, path, "%.15g is too large (at most %lld)", item->valuedouble, (long long)max);
        return false;
    }
    int64_t v = (int64_t)item->valuedouble; /* in range, so the conversion is defined */
    if ((double)v != item->valuedouble) {
        type_err(cx, item, path, what);
        return false;
    }
    *out = v;
    return true;
}

bool conf_number(conf_ctx *cx, const cJSON *item, const char *path, double min, bool min_exclusive, double max,
                 const char *what, double *out)
{
    if (!cJSON_IsNumber(item) || !isfinite(item->valuedouble) || item->valuedouble < min
        || (min_exclusive && item->valuedouble == min)) {
        type_err(cx, item, path, what);
        return false;
    }
    if (item->valuedouble > max) {
        conf_err(cx, path, "%.15g is too large (at most %.15g)", item->valuedouble, max);
        return false;
    }
    *out = item->valuedouble;
    return true;
}

bool conf_bool(conf_ctx *cx, const cJSON *item, const char *path, bool *out)
{
    if (!cJSON_IsBool(item)) {
        type_err(cx, item, path, "true or false");
        return false;
    }
    *out = cJSON_IsTrue(item);
    return true;
}

bool conf_string(conf_ctx *cx, const cJSON *item, const char *path, size_t max_len, const char **out)
{
    if (!cJSON_IsString(item) || !item->valuestring) {
        type_err(cx, item, path, "a string");
        return false;
    }
    const char *s = item->valuestring;
    size_t len = strlen(s);
    if (len == 0) {
        conf_err(cx, path, "must not be empty");
        return false;
    }
    if (len > max_len) {
        conf_err(cx, path, "too long (%zu bytes, at most %zu)", len, max_len);
        return false;
    }
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) {
            conf_err(cx, path, "contains a control character");
            return false;
        }
    *out = s;
    return true;
}

bool conf_enum(conf_ctx *cx, const cJSON *item, const char *path, const char *const *names, int *out)
{
    if (cJSON_IsString(item) && item->valuestring)
        for (int i = 0; names[i]; i++)
            if (!strcmp(names[i], item->valuestring)) {
                *out = i;
                return true;
            }
    char what[256] = "one of";
    size_t o = strlen(what);
    for (int i = 0; names[i] && o < sizeof what; i++)
        o += (size_t)snprintf(what + o, sizeof what - o, "%s \"%s\"", i ? "," : "", names[i]);
    type_err(cx, item, path, what);
    return false;
}

bool conf_valid_name(const char *s)
{
    size_t len = strlen(s);
    if (len == 0 || len >= LG_NAME_MAX)
        return false;
    for (size_t i = 0; i < len; i++) {
        char ch = s[i];
        bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9')
                  || strchr("._-@+:", ch);
        if (!ok)
            return false;
    }
    return true;
}

const cJSON *conf_member(const cJSON *obj, const char *base, const char *name, char kp[LG_CONF_PATH_MAX])
{
    conf_path_key(kp, base, name);
    return cJSON_GetObjectItemCaseSensitive(obj, name);
}
