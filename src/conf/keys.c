/* Key references: "env:NAME", "file:/path", "host" (the host program's own key) or a literal key. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "conf/conf_internal.h"
#include "llmgate/small_file.h"

#define KEY_FILE_READ_MAX (LG_KEY_MAX + 256)

/* True for a portable environment variable name: [A-Za-z_][A-Za-z0-9_]*, at most 255 bytes. */
static bool valid_env_name(const char *s)
{
    size_t len = strlen(s);
    if (len == 0 || len > 255 || (s[0] >= '0' && s[0] <= '9'))
        return false;
    for (size_t i = 0; i < len; i++) {
        char ch = s[i];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_'))
            return false;
    }
    return true;
}

/* Returns a copy of the first line of s[0..len) without surrounding whitespace, or NULL when empty/OOM. */
static char *first_line_trimmed(const char *s, size_t len)
{
    size_t end = 0;
    while (end < len && s[end] != '\n')
        end++;
    size_t start = 0;
    while (start < end && (s[start] == ' ' || s[start] == '\t'))
        start++;
    while (end > start && (s[end - 1] == ' ' || s[end - 1] == '\t' || s[end - 1] == '\r'))
        end--;
    if (end == start)
        return NULL;
    return strndup(s + start, end - start);
}

/* True when the key can travel in a header: printable, no whitespace, not too long. */
static bool key_chars_ok(const char *k)
{
    size_t len = strlen(k);
    if (len == 0 || len > LG_KEY_MAX)
        return false;
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)k[i];
        if (ch <= 0x20 || ch == 0x7f)
            return false;
    }
    return true;
}

/* Reads the key from an environment variable; reports a missing or empty one by name only. */
static char *key_from_env(conf_ctx *cx, const char *name, const char *path)
{
    if (!valid_env_name(name)) {
        conf_err(cx, path, "expected an environment variable name after \"env:\" (letters, digits, _)");
        return NULL;
    }
    const char *v = secure_getenv(name);
    if (!v) {
        conf_err(cx, path, "environment variable %s is not set", name);
        return NULL;
    }
    char *k = first_line_trimmed(v, strlen(v));
    if (!k)
        conf_err(cx, path, "environment variable %s is empty", name);
    return k;
}

/* Reads the first line of a key file; reports an unreadable or empty file by its path only. */
static char *key_from_file(conf_ctx *cx, const char *file, const char *path)
{
    if (file[0] != '/') {
        conf_err(cx, path, "expected an absolute path after \"file:\"");
        return NULL;
    }
    lg_small_file f;
    if (!lg_small_file_read(file, 0, KEY_FILE_READ_MAX, LG_SMALL_FILE_PREFIX, &f)) {
        if (f.status == LG_SMALL_FILE_NOT_REGULAR)
            conf_err(cx, path, "key file %.300s is not a regular file", file);
        else
            conf_err(cx, path, "cannot read key file %.300s: %s", file,
                     f.status == LG_SMALL_FILE_NO_MEMORY ? "out of memory" : strerror(f.error));
        return NULL;
    }
    char *k = first_line_trimmed(f.data, f.len);
    lg_small_file_free(&f);
    if (!k)
        conf_err(cx, path, "key file %.300s is empty", file);
    return k;
}

bool conf_resolve_key(conf_ctx *cx, const char *spec, const char *path, lg_account *acct)
{
    char *key = NULL, *ref = NULL;
    if (!strcmp(spec, "host")) {
        acct->key = NULL;
        acct->digest[0] = '\0';
        acct->key_ref = strdup("host");
        return acct->key_ref != NULL;
    }
    if (cx->mode >= 0 && (cx->mode & (S_IWGRP | S_IWOTH))) {
        conf_err(cx, path,
                 "API key in a config writable by others (mode %04o): whoever can write it can send the key "
                 "elsewhere; chmod go-w %s",
                 (unsigned)cx->mode & 07777u, cx->origin);
        return false;
    }
    if (!strncmp(spec, "env:", 4)) {
        key = key_from_env(cx, spec + 4, path);
        ref = key ? strdup(spec) : NULL;
    } else if (!strncmp(spec, "file:", 5)) {
        key = key_from_file(cx, spec + 5, path);
        ref = key ? strdup(spec) : NULL;
    } else if (cx->others_can_read) {
        char mode[32] = "";
        if (cx->mode >= 0)
            snprintf(mode, sizeof mode, " (mode %04o)", (unsigned)cx->mode & 07777u);
        conf_err(cx, path,
                 "literal API key in a config readable by others%s; use env:NAME or file:PATH, or chmod 600 %s",
                 mode, cx->origin);
        return false;
    } else {
        key = strdup(spec);
    }
    if (!key) {
        free(ref);
        return false;
    }
    if (!key_chars_ok(key)) {
        conf_err(cx, path, "the key contains whitespace or control characters, or is longer than %d bytes",
                 LG_KEY_MAX);
        conf_free_secret(key);
        free(ref);
        return false;
    }
    lg_key_digest(key, acct->digest);
    if (!ref && asprintf(&ref, "literal:%s", acct->digest) < 0)
        ref = NULL;
    if (!ref) {
        conf_free_secret(key);
        return false;
    }
    acct->key = key;
    acct->key_ref = ref;
    return true;
}

#define GATEWAY_TOKENS_MAX 64

static const char *const gateway_keys[] = {"tokens", NULL};
static const char *const token_keys[] = {"name", "sha256", NULL};

/* Hex digit value, or -1. */
static int hex_value(char ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

void conf_parse_gateway(conf_ctx *cx, const cJSON *obj, lg_config *c)
{
    char kp[LG_CONF_PATH_MAX];
    const cJSON *arr, *e;
    if (!conf_expect_object(cx, obj, "gateway") || !conf_check_keys(cx, obj, "gateway", gateway_keys))
        return;
    if (!(arr = conf_member(obj, "gateway", "tokens", kp))) {
        conf_err(cx, kp, "missing (the clients' tokens: [{\"name\": ..., \"sha256\": ...}])");
        return;
    }
    if (!conf_array_at_most(cx, arr, kp, GATEWAY_TOKENS_MAX, "tokens", false))
        return;
    size_t n = (size_t)cJSON_GetArraySize(arr), i = 0;
    if (n == 0) {
        conf_err(cx, kp, "expected at least one token");
        return;
    }
    if (!(c->gateway_tokens = calloc(n, sizeof *c->gateway_tokens))) {
        conf_err(cx, kp, "out of memory");
        return;
    }
    cJSON_ArrayForEach(e, arr)
    {
        char ep[LG_CONF_PATH_MAX], vp[LG_CONF_PATH_MAX];
        const cJSON *v;
        const char *s;
        conf_path_index(ep, kp, i++);
        if (!conf_expect_object(cx, e, ep) || !conf_check_keys(cx, e, ep, token_keys))
            continue;
        lg_gateway_token *t = &c->gateway_tokens[c->n_gateway_tokens];
        if (!(v = conf_member(e, ep, "name", vp)))
            conf_err(cx, vp, "missing (a name for the client)");
        else if (conf_string(cx, v, vp, LG_NAME_MAX - 1, &s)) {
            if (conf_valid_name(s))
                strcpy(t->name, s);
            else
                conf_err(cx, vp, "expected a name of A-Z a-z 0-9 . _ - @ + :");
        }
        bool hex_ok = false;
        if (!(v = conf_member(e, ep, "sha256", vp)))
            conf_err(cx, vp, "missing (the token's SHA-256 in hex: printf %%s TOKEN | sha256sum)");
        else if (!cJSON_IsString(v) || strlen(v->valuestring) != 64)
            conf_err(cx, vp, "expected 64 hexadecimal digits (the token's SHA-256, never the token)");
        else {
            hex_ok = true;
            for (size_t k = 0; k < 32 && hex_ok; k++) {
                int hi = hex_value(v->valuestring[2 * k]), lo = hex_value(v->valuestring[2 * k + 1]);
                if ((hex_ok = hi >= 0 && lo >= 0))
                    t->sha256[k] = (unsigned char)(hi << 4 | lo);
            }
            if (!hex_ok)
                conf_err(cx, vp, "expected 64 hexadecimal digits (the token's SHA-256, never the token)");
        }
        if (t->name[0] && hex_ok)
            c->n_gateway_tokens++;
    }
}
