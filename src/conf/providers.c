/* The "providers" section: presets, custom providers, plain host rules, accounts, limits, streaming. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf/fields.h"

#define HOSTS_MAX 64
#define ACCOUNTS_MAX 64
#define HOST_LEN_MAX 253
#define URL_LEN_MAX 2048
#define PRESETS_TRACKED 64 /* more than lg_preset_all() returns */

static const char *const provider_keys[] = {"preset",   "hosts",  "dialect", "auth",     "upstream", "accounts",
                                            "limits",   "stream", "breaker", "fallback", "models",   NULL};
static const char *const account_keys[] = {"name", "key", "pool", NULL};
static const char *const classified_keys[] = {"breaker", "fallback", "models", NULL}; /* not for host rules */

#define NAME_CHARS "1 to 63 characters from A-Z a-z 0-9 . _ - @ + :"
static const char *const stream_keys[] = {"boundary", NULL};

/* True for "name.example" or "*.example": labels of [a-z0-9_-], no port, no scheme, no empty label. */
static bool valid_host_pattern(const char *h)
{
    if (!strncmp(h, "*.", 2))
        h += 2;
    size_t len = strlen(h), label = 0;
    if (len == 0 || len > HOST_LEN_MAX)
        return false;
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)h[i];
        if (ch == '.') {
            if (label == 0)
                return false;
            label = 0;
        } else if (isalnum(ch) || ch == '-' || ch == '_') {
            label++;
        } else {
            return false;
        }
    }
    return label > 0;
}

/* True for an http:// or https:// URL with a host, an optional port, an optional path, and no
 * credentials, query or fragment. */
static bool valid_upstream(const char *u)
{
    const char *rest;
    if (!strncmp(u, "http://", 7))
        rest = u + 7;
    else if (!strncmp(u, "https://", 8))
        rest = u + 8;
    else
        return false;
    if (strpbrk(u, " @?#"))
        return false;
    size_t auth_len = strcspn(rest, "/");
    const char *colon = memchr(rest, ':', auth_len);
    size_t host_len = colon ? (size_t)(colon - rest) : auth_len;
    if (host_len == 0)
        return false;
    if (colon) {
        size_t port_len = auth_len - host_len - 1;
        if (port_len == 0 || port_len > 5)
            return false;
        long port = 0;
        for (size_t i = 1; i <= port_len; i++) {
            if (!isdigit((unsigned char)colon[i]))
                return false;
            port = port * 10 + (colon[i] - '0');
        }
        if (port < 1 || port > 65535)
            return false;
    }
    return true;
}

/* Parses "hosts" into p (lowercased copies). */
static void parse_hosts(conf_ctx *cx, const cJSON *arr, const char *path, lg_provider *p)
{
    char ip[LG_CONF_PATH_MAX];
    int n = cJSON_GetArraySize(arr);
    if (!cJSON_IsArray(arr) || n < 1 || n > HOSTS_MAX) {
        char got[200];
        conf_describe(arr, true, got, sizeof got);
        conf_err(cx, path, "expected an array of 1 to %d host names, got %s", HOSTS_MAX, got);
        return;
    }
    p->hosts = calloc((size_t)n, sizeof *p->hosts);
    size_t i = 0;
    for (const cJSON *h = arr->child; h; h = h->next, i++) {
        conf_path_index(ip, path, i);
        const char *s;
        if (!conf_string(cx, h, ip, HOST_LEN_MAX + 2, &s))
            continue;
        if (!valid_host_pattern(s)) {
            char got[200];
            conf_describe(h, true, got, sizeof got);
            conf_err(cx, ip, "expected a host name without scheme or port, like \"api.example.com\" or "
                             "\"*.example.com\", got %s", got);
            continue;
        }
        char *copy = p->hosts ? strdup(s) : NULL;
        if (!copy)
            continue;
        for (char *q = copy; *q; q++)
            *q = (char)tolower((unsigned char)*q);
        p->hosts[p->n_hosts++] = copy;
    }
}

/* Reads the optional name-valued member `member` of obj (an account's "name" or "pool") into dst. */
static void opt_name(conf_ctx *cx, const cJSON *obj, const char *path, const char *member, char dst[LG_NAME_MAX])
{
    char kp[LG_CONF_PATH_MAX];
    const char *s;
    const cJSON *v = conf_member(obj, path, member, kp);
    if (v && conf_string(cx, v, kp, LG_NAME_MAX - 1, &s)) {
        if (conf_valid_name(s))
            snprintf(dst, LG_NAME_MAX, "%s", s);
        else
            conf_err(cx, kp, "expected " NAME_CHARS);
    }
}

/* Parses one account object into a (name defaults to "accountN", N counted from 1; pool to ""). */
static void parse_account(conf_ctx *cx, const cJSON *obj, const char *path, size_t index, lg_account *a)
{
    char kp[LG_CONF_PATH_MAX];
    if (!conf_expect_object(cx, obj, path))
        return;
    conf_check_keys(cx, obj, path, account_keys);
    const cJSON *key = cJSON_GetObjectItemCaseSensitive(obj, "key");
    snprintf(a->name, sizeof a->name, "account%zu", index + 1);
    opt_name(cx, obj, path, "name", a->name);
    opt_name(cx, obj, path, "pool", a->pool);
    conf_path_key(kp, path, "key");
    if (!key) {
        conf_err(cx, kp, "missing (\"env:NAME\", \"file:/path\", \"host\" or the key itself)");
        return;
    }
    const char *spec;
    if (conf_string(cx, key, kp, LG_KEY_MAX + 300, &spec))
        conf_resolve_key(cx, spec, kp, a);
}

/* Parses "accounts" into p; an empty array counts as none. */
static void parse_accounts(conf_ctx *cx, const cJSON *arr, const char *path, lg_provider *p)
{
    char ap[LG_CONF_PATH_MAX];
    int n = cJSON_GetArraySize(arr);
    if (!conf_array_at_most(cx, arr, path, ACCOUNTS_MAX, "accounts", false))
        return;
    if (n == 0)
        return;
    p->accounts = calloc((size_t)n, sizeof *p->accounts);
    if (!p->accounts)
        return;
    for (const cJSON *it = arr->child; it; it = it->next) {
        size_t i = p->n_accounts++;
        conf_path_index(ap, path, i);
        parse_account(cx, it, ap, i, &p->accounts[i]);
        for (size_t j = 0; j < i; j++)
            if (!strcmp(p->accounts[j].name, p->accounts[i].name)) {
                char np[LG_CONF_PATH_MAX];
                conf_path_key(np, ap, "name");
                conf_err(cx, np, "duplicate account name \"%s\" (also accounts[%zu])", p->accounts[i].name, j);
                break;
            }
    }
}

/* Parses "stream" into p->boundary. */
static void parse_stream(conf_ctx *cx, const cJSON *obj, const char *path, lg_provider *p)
{
    char kp[LG_CONF_PATH_MAX];
    if (!conf_expect_object(cx, obj, path))
        return;
    conf_check_keys(cx, obj, path, stream_keys);
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(obj, "boundary");
    int idx;
    conf_path_key(kp, path, "boundary");
    if (b && conf_enum(cx, b, kp, conf_boundary_names, &idx))
        p->boundary = (lg_stream_boundary)idx;
}

/* Decides the preset, dialect and auth of p; false when the provider cannot be identified. */
static bool parse_identity(conf_ctx *cx, const cJSON *obj, const char *path, lg_provider *p)
{
    char kp[LG_CONF_PATH_MAX], dp[LG_CONF_PATH_MAX], ap[LG_CONF_PATH_MAX];
    const cJSON *preset = conf_member(obj, path, "preset", kp);
    const cJSON *dialect = conf_member(obj, path, "dialect", dp);
    const cJSON *auth = conf_member(obj, path, "auth", ap);
    const cJSON *accounts = cJSON_GetObjectItemCaseSensitive(obj, "accounts");
    if (preset) {
        const char *s;
        if (!conf_string(cx, preset, kp, 100, &s))
            return false;
        if (!(p->preset = lg_preset_find(s))) {
            char got[200];
            conf_describe(preset, true, got, sizeof got);
            conf_err(cx, path, "unknown preset %s", got);
            return false;
        }
    } else {
        p->preset = lg_preset_find(p->name);
    }
    if (p->preset)
        p->dialect = p->preset->dialect;
    else if (!accounts && !dialect)
        p->dialect = LG_DIALECT_NONE; /* hosts (+ limits) only: a plain host rule */
    else
        p->dialect = LG_DIALECT_OPENAI;
    int idx;
    if (dialect && conf_enum(cx, dialect, dp, conf_dialect_names, &idx))
        p->dialect = (lg_dialect)idx;
    p->auth = p->preset ? p->preset->auth : conf_default_auth(p->dialect);
    if (auth && conf_enum(cx, auth, ap, conf_auth_names, &idx))
        p->auth = (lg_auth_style)idx;
    return true;
}

/* Parses "upstream" into p (trailing slashes dropped). */
static void parse_upstream(conf_ctx *cx, const cJSON *item, const char *path, lg_provider *p)
{
    const char *s;
    if (!conf_string(cx, item, path, URL_LEN_MAX, &s))
        return;
    if (!valid_upstream(s)) { /* not echoed: it may carry credentials */
        conf_err(cx, path, "expected an http:// or https:// base URL with a host, an optional port and path, "
                           "and no credentials, query or fragment");
        return;
    }
    if (!(p->upstream = strdup(s)))
        return;
    size_t len = strlen(p->upstream);
    while (p->upstream[len - 1] == '/' && p->upstream[len - 2] != '/')
        p->upstream[--len] = '\0';
}

/* Takes p's hosts from "hosts" or its preset (a host-less preset needs "hosts" or "upstream"); a custom provider without hosts, with "dialect" (not none) and
 * "upstream", is reached only through a fallback chain or a pin, never by host name. */
static void provider_hosts(conf_ctx *cx, const cJSON *obj, const char *path, lg_provider *p)
{
    char kp[LG_CONF_PATH_MAX];
    const cJSON *hosts = conf_member(obj, path, "hosts", kp);
    bool dialect = cJSON_GetObjectItemCaseSensitive(obj, "dialect") && p->dialect != LG_DIALECT_NONE;
    if (hosts)
        parse_hosts(cx, hosts, kp, p);
    else if (p->preset && !p->preset->hosts[0] && !cJSON_GetObjectItemCaseSensitive(obj, "upstream"))
        conf_err(cx, path, "\"%s\" runs on any host: give its \"hosts\" (such as [\"localhost\"]), or "
                           "\"upstream\" for a provider reached only through a fallback or a pin", p->name);
    else if (p->preset)
        conf_copy_preset_hosts(p, p->preset);
    else if (dialect && !cJSON_GetObjectItemCaseSensitive(obj, "upstream"))
        conf_err(cx, path, "\"%s\" has no \"hosts\"; a provider reached only through a fallback or a pin needs "
                           "\"upstream\"", p->name);
    else if (!dialect)
        conf_err(cx, path, "\"%s\" is not a preset; give \"preset\" or \"hosts\" (or \"dialect\" and \"upstream\" "
                           "for a provider reached only through a fallback or a pin)", p->name);
}

/* Parses the members that act on classified responses ("breaker", "fallback", "models"); a plain host rule
 * has none. */
static void parse_resilience(conf_ctx *cx, const cJSON *obj, const char *path, lg_provider *p)
{
    char kp[LG_CONF_PATH_MAX];
    const cJSON *v;
    if (p->dialect == LG_DIALECT_NONE) {
        for (size_t i = 0; classified_keys[i]; i++)
            if (conf_member(obj, path, classified_keys[i], kp))
                conf_err(cx, kp, "only for a provider with a dialect: a plain host rule's responses are not read");
        return;
    }
    if ((v = conf_member(obj, path, "breaker", kp)))
        conf_parse_section(cx, v, kp, &conf_breaker_section, &p->breaker);
    if ((v = conf_member(obj, path, "fallback", kp)))
        conf_parse_fallback(cx, v, kp, p);
    if ((v = conf_member(obj, path, "models", kp)))
        conf_parse_models(cx, v, kp, p);
}

/* Parses one provider entry into p (whose breaker is the top-level one so far). */
static void parse_provider(conf_ctx *cx, const cJSON *obj, const char *path, lg_provider *p)
{
    char kp[LG_CONF_PATH_MAX];
    conf_section_defaults(&conf_limits_section, &p->limits);
    if (!conf_expect_object(cx, obj, path))
        return;
    conf_check_keys(cx, obj, path, provider_keys);
    if (!parse_identity(cx, obj, path, p))
        return;
    provider_hosts(cx, obj, path, p);
    const cJSON *v;
    if ((v = conf_member(obj, path, "upstream", kp)))
        parse_upstream(cx, v, kp, p);
    if ((v = conf_member(obj, path, "accounts", kp)))
        parse_accounts(cx, v, kp, p);
    if ((v = conf_member(obj, path, "limits", kp)))
        conf_parse_section(cx, v, kp, &conf_limits_section, &p->limits);
    if ((v = conf_member(obj, path, "stream", kp)))
        parse_stream(cx, v, kp, p);
    parse_resilience(cx, obj, path, p);
}

/* Gives p its single "host" account (the key the host program sent) when it has none. */
static bool ensure_host_account(lg_provider *p)
{
    if (p->n_accounts > 0)
        return true;
    free(p->accounts);
    if (!(p->accounts = calloc(1, sizeof *p->accounts)))
        return false;
    p->n_accounts = 1;
    strcpy(p->accounts[0].name, "host");
    return (p->accounts[0].key_ref = strdup("host")) != NULL;
}

void conf_parse_providers(conf_ctx *cx, const cJSON *obj, lg_config *c)
{
    char pp[LG_CONF_PATH_MAX];
    size_t n_presets;
    const lg_preset *all = lg_preset_all(&n_presets);
    bool referenced[PRESETS_TRACKED] = {false};
    if (obj && conf_expect_object(cx, obj, "providers") && conf_check_keys(cx, obj, "providers", NULL)) {
        int n = cJSON_GetArraySize(obj);
        c->providers = calloc((size_t)n + 1, sizeof *c->providers);
        if (!c->providers) {
            conf_err(cx, "providers", "out of memory");
            return;
        }
        for (const cJSON *it = obj->child; it; it = it->next) {
            const char *name = it->string ? it->string : "";
            lg_provider *p = &c->providers[c->n_providers++];
            conf_path_key(pp, "providers", name);
            p->breaker = c->breaker;
            if (!conf_valid_name(name)) {
                conf_err(cx, pp, "provider names are " NAME_CHARS);
                continue;
            }
            snprintf(p->name, sizeof p->name, "%s", name);
            parse_provider(cx, it, pp, p);
            if (!ensure_host_account(p))
                conf_err(cx, pp, "out of memory");
            if (c->retry.pool_fallback)
                conf_order_pools(p);
            for (size_t i = 0; i < n_presets && i < PRESETS_TRACKED; i++)
                if (p->preset == &all[i])
                    referenced[i] = true;
        }
    }
    if (!conf_add_default_presets(c, referenced))
        conf_err(cx, "providers", "out of memory");
}
