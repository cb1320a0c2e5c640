/* Helpers shared by the config parser's files; not part of the public interface. */
#ifndef LLMGATE_CONF_INTERNAL_H
#define LLMGATE_CONF_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "llmgate/config.h"

#define LG_CONF_PATH_MAX 512
#define LG_CONF_MAX_BYTES (1024 * 1024) /* largest config file accepted */
#define LG_CONF_MS_MAX INT64_C(10000000000000) /* ~317 years: the largest duration accepted */
#define LG_CONF_COUNT_MAX INT64_C(1000000000000) /* largest rpm / tpm accepted */
#define LG_KEY_MAX 4096 /* longest API key accepted */
#define LG_CONF_MEMBERS_MAX 256 /* most members of one JSON object or array in a config */

/* One parse: where messages go and what is known about the file. */
typedef struct {
    const char *origin;    /* prefixes every message */
    bool others_can_read;  /* literal keys are refused when true */
    int mode;              /* the file's permission bits for messages, or -1 when unknown */
    lg_errors *errs;
    bool failed;           /* set by conf_err */
} conf_ctx;

/* Adds "origin: path: message" to the context's errors and marks the parse failed. */
void conf_err(conf_ctx *cx, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Appends ".name" (or "name" at the top) to base in out, with unprintable bytes escaped and long names
 * shortened, so user-supplied names can go into messages safely. */
void conf_path_key(char out[LG_CONF_PATH_MAX], const char *base, const char *name);
/* Appends "[i]" to base in out. */
void conf_path_index(char out[LG_CONF_PATH_MAX], const char *base, size_t i);

/* Describes a JSON value for "got ..." (a quoted string, a number, "an object"); strings are shown only
 * when show_strings is true, since a misplaced value may be a secret. */
void conf_describe(const cJSON *item, bool show_strings, char *out, size_t n);
/* True when arr is an array of at most max entries; else an error at path naming the limit and what came
 * ("expected an array of at most 64 accounts, got 200"; strings shown when show_strings). */
bool conf_array_at_most(conf_ctx *cx, const cJSON *arr, const char *path, int max, const char *what,
                        bool show_strings);

/* True when obj is an object; otherwise reports "expected an object". */
bool conf_expect_object(conf_ctx *cx, const cJSON *obj, const char *path);
/* Reports every member of obj whose name is not in allowed (NULL-terminated; NULL allows any name), every
 * duplicate. False (after reporting) when obj has more than LG_CONF_MEMBERS_MAX members. */
bool conf_check_keys(conf_ctx *cx, const cJSON *obj, const char *path, const char *const *allowed);

/* Integer in [min, max]; what names the expectation ("a positive integer"). False after reporting. */
bool conf_int(conf_ctx *cx, const cJSON *item, const char *path, int64_t min, int64_t max, const char *what,
              int64_t *out);
/* A finite number in [min, max], or in (min, max] when min_exclusive; what names the expectation ("a number
 * from 0 to 1"). False after reporting. */
bool conf_number(conf_ctx *cx, const cJSON *item, const char *path, double min, bool min_exclusive, double max,
                 const char *what, double *out);
bool conf_bool(conf_ctx *cx, const cJSON *item, const char *path, bool *out);
/* A string of 1..max_len bytes without control characters; *out points into the JSON tree. */
bool conf_string(conf_ctx *cx, const cJSON *item, const char *path, size_t max_len, const char **out);
/* One of names (NULL-terminated); *out receives its index. */
bool conf_enum(conf_ctx *cx, const cJSON *item, const char *path, const char *const *names, int *out);
/* A name for providers and accounts: 1..LG_NAME_MAX-1 characters from A-Z a-z 0-9 . _ - @ + : */
bool conf_valid_name(const char *s);

/* lg_config_parse with the file's permission bits known (mode, shown in messages) or not (-1). */
lg_config *conf_parse_mode(const char *json, size_t len, const char *origin, bool others_can_read, int mode,
                           lg_errors *errs);
/* Parses the "providers" object into c (explicit providers, then every preset not referenced). */
void conf_parse_providers(conf_ctx *cx, const cJSON *obj, lg_config *c);
/* Adds the provider entries for every preset for which referenced[i] is false (NULL: all). */
bool conf_add_default_presets(lg_config *c, const bool *referenced);
/* Gives p copies of the preset's hosts; false when memory runs out. */
bool conf_copy_preset_hosts(lg_provider *p, const lg_preset *pr);
/* The member of obj called name (NULL when absent), with its path base.name in kp. */
const cJSON *conf_member(const cJSON *obj, const char *base, const char *name, char kp[LG_CONF_PATH_MAX]);
/* The default auth style of a custom provider speaking this dialect. */
lg_auth_style conf_default_auth(lg_dialect d);
/* JSON names of the enumerations, in enum order, NULL-terminated. */
extern const char *const conf_auth_names[];
extern const char *const conf_boundary_names[];
extern const char *const conf_dialect_names[];
const char *conf_auth_name(lg_auth_style a);
const char *conf_boundary_name(lg_stream_boundary b);

/* Reads a provider's "fallback" array of provider names into p (names only; see conf_check_fallbacks). */
void conf_parse_fallback(conf_ctx *cx, const cJSON *arr, const char *path, lg_provider *p);
/* Checks every provider's fallback names against the whole configuration (presets included): each names
 * another provider, once, of the same dialect, with accounts of its own. */
void conf_check_fallbacks(conf_ctx *cx, const lg_config *c);
/* Reads a provider's "models" object (pattern: model) into p, in config order. */
/* True when s is 1..255 printable ASCII characters without space, quote or (unless backslash_ok)
 * backslash: a model name (or glob) safe to splice into a JSON string and a log line. */
bool conf_valid_model_text(const char *s, bool backslash_ok);

/* The top-level "routes" array (after the providers: its "to" names are checked against them). */
void conf_parse_routes(conf_ctx *cx, const cJSON *arr, lg_config *c);

/* "prices" (NULL: absent; the default price file is still read when it exists: $LLMGATE_PRICES or the
 * installed one) and "budgets" into c (src/conf/spend.c); conf_spend_free releases both. */
void conf_parse_prices(conf_ctx *cx, const cJSON *obj, lg_config *c);
void conf_parse_budgets(conf_ctx *cx, const cJSON *arr, lg_config *c);
void conf_spend_free(lg_config *c);
/* "gateway" (its "tokens": name and sha256 hex of each) into c (src/conf/keys.c). */
void conf_parse_gateway(conf_ctx *cx, const cJSON *obj, lg_config *c);
/* "ledger" into c (src/conf/spend.c). */
void conf_parse_ledger(conf_ctx *cx, const cJSON *obj, lg_config *c);

void conf_parse_models(conf_ctx *cx, const cJSON *obj, const char *path, lg_provider *p);
/* Orders p's accounts by pool (stable): the default pool (no "pool") first, then the named pools in the
 * order their first account appears. */
void conf_order_pools(lg_provider *p);

/* Fills the policy sections of c (conf_sections: retry, backoff, breaker, store, log, hold) with their
 * defaults and gives c its generation (every new config calls this first). */
void conf_policy_defaults(lg_config *c);
/* Frees one provider's contents (hosts, upstream, accounts with their keys wiped, fallback, models). */
void conf_provider_free(lg_provider *p);

/* Resolves a key reference ("env:NAME", "file:/path", "host", or a literal) into acct->key, key_ref
 * and digest. Reports problems at path without ever printing key material. */
bool conf_resolve_key(conf_ctx *cx, const char *spec, const char *path, lg_account *acct);
/* Overwrites then frees a string that may hold key material. */
void conf_free_secret(char *s);

#endif
