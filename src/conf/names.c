/* Names of the config's enumerations as they appear in JSON, and the default auth per dialect. */
#include <string.h>

#include "conf/conf_internal.h"

const char *const conf_auth_names[] = {"bearer", "x-api-key", "x-goog-api-key", "api-key", "query-key", NULL};
const char *const conf_boundary_names[] = {"utf8", "event", "none", NULL};
const char *const conf_level_names[] = {"error", "warn", "info", "debug", NULL};
const char *const conf_dialect_names[] = {"none", "openai", "anthropic", "google", "dashscope", "baidu", NULL};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]) - 1)

lg_auth_style conf_default_auth(lg_dialect d)
{
    switch (d) {
    case LG_DIALECT_ANTHROPIC:
        return LG_AUTH_X_API_KEY;
    case LG_DIALECT_GOOGLE:
        return LG_AUTH_X_GOOG_API_KEY;
    default:
        return LG_AUTH_BEARER;
    }
}

const char *conf_auth_name(lg_auth_style a)
{
    return (unsigned)a < COUNT(conf_auth_names) ? conf_auth_names[a] : "bearer";
}

const char *conf_boundary_name(lg_stream_boundary b)
{
    return (unsigned)b < COUNT(conf_boundary_names) ? conf_boundary_names[b] : "utf8";
}

const char *conf_log_level_name(lg_log_level l)
{
    return (unsigned)l < COUNT(conf_level_names) ? conf_level_names[l] : "info";
}
