/* Bounded JSON access for the scanners: parsing with an explicit length and a size cap, typed member
 * lookups that tolerate wrong types, and element-wise reading of (possibly truncated) top-level arrays. */
#include <stdlib.h>
#include <string.h>

#include "classify/dialects.h"

/* Largest document parsed; a bigger body is classified from its status and headers alone. */
#define JSON_MAX (8u << 20)
/* Largest plausible count or code; larger numbers are treated as absent. */
#define INT_MAX_ACCEPTED 1000000000000000LL

cJSON *lg_json_parse(const char *s, size_t len)
{
    if (!s || !len || len > JSON_MAX)
        return NULL;
    return cJSON_ParseWithLength(s, len);
}

const char *lg_json_str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
    return cJSON_IsString(v) && v->valuestring && *v->valuestring ? v->valuestring : NULL;
}

bool lg_json_int(const cJSON *o, const char *key, int64_t *out)
{
    const cJSON *v = cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
    double d;
    if (cJSON_IsNumber(v)) {
        d = v->valuedouble;
    } else if (cJSON_IsString(v) && v->valuestring && *v->valuestring) {
        char *end;
        long long ll = strtoll(v->valuestring, &end, 10);
        if (*end)
            return false;
        d = (double)ll;
    } else {
        return false;
    }
    if (!(d >= -(double)INT_MAX_ACCEPTED && d <= (double)INT_MAX_ACCEPTED) || d != (double)(int64_t)d)
        return false;
    *out = (int64_t)d;
    return true;
}

void lg_json_each_element(const char *s, size_t len, bool (*fn)(const cJSON *el, void *ctx), void *ctx)
{
    size_t i = 0;
    while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n'))
        i++;
    if (i >= len || s[i] != '[')
        return;
    i++;
    while (i < len) {
        while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n' || s[i] == ','))
            i++;
        if (i >= len || (s[i] != '{' && s[i] != '['))
            return;
        size_t end = lg_json_value_end(s, len, i);
        if (!end)
            return;
        cJSON *el = lg_json_parse(s + i, end - i);
        bool go_on = !el || fn(el, ctx);
        cJSON_Delete(el);
        if (!go_on)
            return;
        i = end;
    }
}
