/* Unit tests for configuration parsing, validation, key references, loading, matching and rendering. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "llmgate/config.h"

static char tmpdir[64];

/* Writes content to tmpdir/name with the given mode; returns the path (static buffer per call site). */
static const char *write_file(const char *name, const char *content, mode_t mode)
{
    static char path[8][256];
    static int slot;
    char *p = path[slot++ % 8];
    snprintf(p, 256, "%s/%s", tmpdir, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(content, f);
    fclose(f);
    assert_int_equal(chmod(p, mode), 0);
    return p;
}

/* All error lines joined with newlines (caller frees). */
static char *joined(const lg_errors *e)
{
    size_t total = 1;
    for (size_t i = 0; i < e->n; i++)
        total += strlen(e->items[i]) + 1;
    char *out = calloc(1, total);
    assert_non_null(out);
    for (size_t i = 0; i < e->n; i++) {
        strcat(out, e->items[i]);
        strcat(out, "\n");
    }
    return out;
}

/* Parses json (not readable by others); asserts success. */
static lg_config *parse_ok(const char *json)
{
    lg_errors e = {0};
    lg_config *c = lg_config_parse(json, strlen(json), "test.json", false, &e);
    if (!c) {
        char *all = joined(&e);
        print_error("unexpected problems:\n%s", all);
        free(all);
    }
    assert_non_null(c);
    assert_int_equal(e.n, 0);
    return c;
}

/* Parses json; asserts failure and returns the joined problems (caller frees). */
static char *parse_err(const char *json, bool others_can_read)
{
    lg_errors e = {0};
    lg_config *c = lg_config_parse(json, strlen(json), "test.json", others_can_read, &e);
    assert_null(c);
    assert_true(e.n > 0);
    char *all = joined(&e);
    lg_errors_free(&e);
    return all;
}

#define assert_contains(hay, needle)                                                                     \
    do {                                                                                                 \
        if (!strstr((hay), (needle)))                                                                    \
            fail_msg("expected to find [%s] in:\n%s", (needle), (hay));                                 \
    } while (0)

static const lg_provider *find(const lg_config *c, const char *name)
{
    for (size_t i = 0; i < c->n_providers; i++)
        if (!strcmp(c->providers[i].name, name))
            return &c->providers[i];
    return NULL;
}

static void assert_default_policy(const lg_config *c)
{
    assert_true(c->retry.switch_on_first_rate_limit);
    assert_int_equal(c->retry.max_rate_limit_wait_ms, 300000);
    assert_int_equal(c->retry.max_attempts, 10);
    assert_int_equal(c->retry.switch_delay_ms, 1000);
    assert_int_equal(c->retry.same_key_retry_delay_ms, 1000);
    assert_int_equal(c->retry.switch_after_retry_ms, 5000);
    assert_int_equal(c->retry.max_server_retries, 2);
    assert_int_equal(c->backoff.n_quota_steps, 4);
    assert_int_equal(c->backoff.quota_exhausted_ms[0], 60000);
    assert_int_equal(c->backoff.quota_exhausted_ms[3], 7200000);
    assert_int_equal(c->backoff.rate_limit_exceeded_ms, 30000);
    assert_int_equal(c->backoff.model_capacity_exhausted_ms, 15000);
    assert_int_equal(c->backoff.server_error_ms, 20000);
    assert_int_equal(c->backoff.unknown_ms, 60000);
    assert_int_equal(c->backoff.dedup_window_ms, 2000);
    assert_int_equal(c->backoff.reset_after_ms, 120000);
    assert_int_equal(c->backoff.single_account_base_ms, 1000);
    assert_int_equal(c->backoff.single_account_max_ms, 60000);
    assert_int_equal(c->backoff.max_hint_ms, 86400000);
    assert_string_equal(c->store_backend, "shm");
    assert_null(c->store_path);
    assert_null(c->redis_url);
    assert_int_equal(c->log_level, LG_LOG_INFO);
    assert_null(c->log_file);
    assert_int_equal(c->max_held_body, 8 * 1024 * 1024);
}

static void assert_host_account(const lg_provider *p)
{
    assert_int_equal(p->n_accounts, 1);
    assert_string_equal(p->accounts[0].name, "host");
    assert_null(p->accounts[0].key);
    assert_string_equal(p->accounts[0].key_ref, "host");
    assert_string_equal(p->accounts[0].digest, "");
}

/* How many presets have hosts of their own: each is an entry of the defaults; a host-less preset
 * (openai-compatible, the last) serves only when the config gives its hosts. */
static size_t hosted_presets(void)
{
    size_t n, hosted = 0;
    const lg_preset *all = lg_preset_all(&n);
    for (size_t i = 0; i < n; i++)
        hosted += all[i].hosts[0] != NULL;
    return hosted;
}

static void test_defaults(void **state)
{
    size_t n = hosted_presets();
    const lg_preset *all = lg_preset_all(NULL);
    lg_config *c = lg_config_defaults();
    assert_non_null(c);
    assert_string_equal(c->source, "(defaults)");
    assert_int_equal(c->n_providers, n);
    for (size_t i = 0; i < n; i++) {
        const lg_provider *p = &c->providers[i];
        assert_string_equal(p->name, all[i].name);
        assert_ptr_equal(p->preset, &all[i]);
        assert_int_equal(p->dialect, all[i].dialect);
        assert_int_equal(p->auth, all[i].auth);
        assert_string_equal(p->hosts[0], all[i].hosts[0]);
        assert_int_equal(p->limits.window_ms, 60000);
        assert_int_equal(p->limits.rpm, 0);
        assert_host_account(p);
    }
    assert_default_policy(c);
    lg_config_free(c);
}

static void test_empty_object_is_defaults(void **state)
{
    size_t n = hosted_presets();
    lg_config *c = parse_ok("  {}\n");
    assert_string_equal(c->source, "test.json");
    assert_int_equal(c->n_providers, n);
    assert_default_policy(c);
    lg_config_free(c);
}

static void test_full_example(void **state)
{
    setenv("LGT_OPENAI_KEY", "sk-env-value-1", 1);
    char keyfile_json[1200];
    const char *kf = write_file("openai-2", "  sk-file-value-2 \t\r\nsecond line\n", 0600);
    snprintf(keyfile_json, sizeof keyfile_json,
             "{\"providers\": {\"openai\": {\"preset\": \"openai\", \"hosts\": [\"API.openai.com\"],"
             " \"upstream\": \"http://127.0.0.1:18080/\","
             " \"accounts\": [{\"name\": \"main\", \"key\": \"env:LGT_OPENAI_KEY\"},"
             "                {\"name\": \"backup\", \"key\": \"file:%s\"},"
             "                {\"name\": \"lit\", \"key\": \"sk-literal-3\"}],"
             " \"limits\": {\"rpm\": 500, \"tpm\": 30000, \"window_ms\": 60000, \"tier\": \"tier-2\"},"
             " \"stream\": {\"boundary\": \"event\"}}},"
             " \"retry\": {\"switch_on_first_rate_limit\": false, \"max_rate_limit_wait_seconds\": 0.5,"
             "   \"max_attempts\": 3, \"switch_delay_ms\": 0, \"same_key_retry_delay_ms\": 7,"
             "   \"switch_after_retry_ms\": 8, \"max_server_retries\": 0},"
             " \"backoff\": {\"quota_exhausted_ms\": [1, 2], \"rate_limit_exceeded_ms\": 3,"
             "   \"model_capacity_exhausted_ms\": 4, \"server_error_ms\": 5, \"unknown_ms\": 6,"
             "   \"dedup_window_ms\": 0, \"reset_after_ms\": 9, \"single_account_base_ms\": 10,"
             "   \"single_account_max_ms\": 10, \"max_hint_ms\": 11},"
             " \"store\": {\"backend\": \"redis\", \"redis_url\": \"redis://127.0.0.1:6379\"},"
             " \"log\": {\"level\": \"debug\", \"file\": \"/tmp/x.log\"}}",
             kf);
    lg_config *c = parse_ok(keyfile_json);
    size_t n = hosted_presets();
    assert_int_equal(c->n_providers, n); /* openai listed first, the other presets with hosts after it */
    const lg_provider *p = &c->providers[0];
    assert_string_equal(p->name, "openai");
    assert_ptr_equal(p->preset, lg_preset_find("openai"));
    assert_int_equal(p->n_hosts, 1);
    assert_string_equal(p->hosts[0], "api.openai.com");
    assert_string_equal(p->upstream, "http://127.0.0.1:18080");
    assert_int_equal(p->n_accounts, 3);
    assert_string_equal(p->accounts[0].name, "main");
    assert_string_equal(p->accounts[0].key, "sk-env-value-1");
    assert_string_equal(p->accounts[0].key_ref, "env:LGT_OPENAI_KEY");
    assert_string_equal(p->accounts[1].key, "sk-file-value-2");
    char ref[300];
    snprintf(ref, sizeof ref, "file:%s", kf);
    assert_string_equal(p->accounts[1].key_ref, ref);
    assert_string_equal(p->accounts[2].key, "sk-literal-3");
    char digest[LG_DIGEST_HEX];
    lg_key_digest("sk-literal-3", digest);
    assert_string_equal(p->accounts[2].digest, digest);
    snprintf(ref, sizeof ref, "literal:%s", digest);
    assert_string_equal(p->accounts[2].key_ref, ref);
    assert_int_equal(p->limits.rpm, 500);
    assert_int_equal(p->limits.tpm, 30000);
    assert_string_equal(p->limits.tier, "tier-2");
    assert_int_equal(p->boundary, LG_BOUNDARY_EVENT);
    assert_false(c->retry.switch_on_first_rate_limit);
    assert_int_equal(c->retry.max_rate_limit_wait_ms, 500);
    assert_int_equal(c->retry.max_attempts, 3);
    assert_int_equal(c->retry.switch_delay_ms, 0);
    assert_int_equal(c->retry.same_key_retry_delay_ms, 7);
    assert_int_equal(c->retry.switch_after_retry_ms, 8);
    assert_int_equal(c->retry.max_server_retries, 0);
    assert_int_equal(c->backoff.n_quota_steps, 2);
    assert_int_equal(c->backoff.quota_exhausted_ms[1], 2);
    assert_int_equal(c->backoff.unknown_ms, 6);
    assert_int_equal(c->backoff.single_account_max_ms, 10);
    assert_int_equal(c->backoff.max_hint_ms, 11);
    assert_string_equal(c->store_backend, "redis");
    assert_string_equal(c->redis_url, "redis://127.0.0.1:6379");
    assert_int_equal(c->log_level, LG_LOG_DEBUG);
    assert_string_equal(c->log_file, "/tmp/x.log");
    lg_config_free(c);
    unsetenv("LGT_OPENAI_KEY");
}

static void test_zero_wait_and_rounding(void **state)
{
    lg_config *c = parse_ok("{\"retry\": {\"max_rate_limit_wait_seconds\": 0}}");
    assert_int_equal(c->retry.max_rate_limit_wait_ms, 0);
    lg_config_free(c);
    c = parse_ok("{\"retry\": {\"max_rate_limit_wait_seconds\": 0.0001}}");
    assert_int_equal(c->retry.max_rate_limit_wait_ms, 1);
    lg_config_free(c);
}

static void test_alias_provider_replaces_its_preset(void **state)
{
    lg_config *c = parse_ok("{\"providers\": {\"qwen\": {\"limits\": {\"rpm\": 5}},"
                            " \"mine\": {\"preset\": \"kimi\"}}}");
    size_t n = hosted_presets();
    assert_int_equal(c->n_providers, n); /* qwen and mine replace dashscope and moonshot */
    assert_string_equal(c->providers[0].name, "qwen");
    assert_ptr_equal(c->providers[0].preset, lg_preset_find("dashscope"));
    assert_int_equal(c->providers[0].dialect, LG_DIALECT_DASHSCOPE);
    assert_string_equal(c->providers[0].hosts[1], "dashscope-intl.aliyuncs.com");
    assert_host_account(&c->providers[0]);
    assert_string_equal(c->providers[1].name, "mine");
    assert_null(find(c, "dashscope"));
    assert_null(find(c, "moonshot"));
    assert_non_null(find(c, "openai"));
    assert_ptr_equal(lg_config_match_host(c, "api.moonshot.cn"), &c->providers[1]);
    lg_config_free(c);
}

static void test_custom_and_plain_rules(void **state)
{
    setenv("LGT_CORP", "corp-key", 1);
    lg_config *c = parse_ok("{\"providers\": {"
                            " \"corp\": {\"hosts\": [\"*.corp.example\"], \"accounts\": [{\"key\": \"env:LGT_CORP\"}]},"
                            " \"claude-proxy\": {\"hosts\": [\"llm.example\"], \"dialect\": \"anthropic\","
                            "   \"accounts\": [{\"name\": \"a\", \"key\": \"host\"}, {\"name\": \"b\", \"key\": \"env:LGT_CORP\"}]},"
                            " \"search\": {\"hosts\": [\"api.search.example\"], \"limits\": {\"rpm\": 60}},"
                            " \"explicit\": {\"hosts\": [\"x.example\"], \"dialect\": \"none\", \"auth\": \"query-key\"}}}");
    const lg_provider *corp = find(c, "corp");
    assert_null(corp->preset);
    assert_int_equal(corp->dialect, LG_DIALECT_OPENAI);
    assert_int_equal(corp->auth, LG_AUTH_BEARER);
    assert_string_equal(corp->accounts[0].name, "account1");
    assert_string_equal(corp->accounts[0].key, "corp-key");
    const lg_provider *cp = find(c, "claude-proxy");
    assert_int_equal(cp->dialect, LG_DIALECT_ANTHROPIC);
    assert_int_equal(cp->auth, LG_AUTH_X_API_KEY);
    assert_null(cp->accounts[0].key);
    assert_string_equal(cp->accounts[0].key_ref, "host");
    const lg_provider *s = find(c, "search");
    assert_int_equal(s->dialect, LG_DIALECT_NONE);
    assert_int_equal(s->limits.rpm, 60);
    assert_host_account(s);
    const lg_provider *x = find(c, "explicit");
    assert_int_equal(x->dialect, LG_DIALECT_NONE);
    assert_int_equal(x->auth, LG_AUTH_QUERY_KEY);

    assert_ptr_equal(lg_config_match_host(c, "a.corp.example"), corp);
    assert_ptr_equal(lg_config_match_host(c, "A.B.CORP.EXAMPLE"), corp);
    assert_null(lg_config_match_host(c, "corp.example"));
    assert_ptr_equal(lg_config_match_host(c, "api.search.example"), s);
    assert_ptr_equal(lg_config_match_host(c, "api.search.example."), s);
    assert_ptr_equal(lg_config_match_host(c, "API.OPENAI.COM"), find(c, "openai"));
    assert_ptr_equal(lg_config_match_host(c, "res.openai.azure.com"), find(c, "azure-openai"));
    assert_null(lg_config_match_host(c, "example.com"));
    assert_null(lg_config_match_host(c, ""));
    assert_null(lg_config_match_host(NULL, "api.openai.com"));
    lg_config_free(c);
    /* The host-less preset of OpenAI-compatible servers serves the hosts the config gives it. */
    c = parse_ok("{\"providers\": {\"ollama\": {\"hosts\": [\"localhost\"]},"
                 " \"gpu\": {\"preset\": \"openai-compatible\", \"hosts\": [\"vllm.lan\"]},"
                 " \"spare\": {\"preset\": \"vllm\", \"upstream\": \"http://127.0.0.1:8000\"}}}");
    const lg_provider *ol = find(c, "ollama");
    assert_ptr_equal(ol->preset, lg_preset_find("openai-compatible"));
    assert_int_equal(ol->dialect, LG_DIALECT_OPENAI);
    assert_int_equal(ol->auth, LG_AUTH_BEARER);
    assert_ptr_equal(lg_config_match_host(c, "localhost"), ol);
    assert_ptr_equal(lg_config_match_host(c, "vllm.lan"), find(c, "gpu"));
    assert_int_equal(find(c, "spare")->n_hosts, 0);
    assert_null(find(c, "openai-compatible"));
    lg_config_free(c);
    c = parse_ok("{}");
    assert_null(find(c, "openai-compatible")); /* no default entry: it has no host to match */
    assert_ptr_equal(lg_config_match_host(c, "api.x.ai"), find(c, "xai"));
    assert_ptr_equal(lg_config_match_host(c, "open.bigmodel.cn"), find(c, "zhipu"));
    lg_config_free(c);
    unsetenv("LGT_CORP");
}

static void test_explicit_before_presets_in_matching(void **state)
{
    lg_config *c = parse_ok("{\"providers\": {\"gw\": {\"hosts\": [\"api.anthropic.com\"], \"dialect\": \"none\"}}}");
    assert_string_equal(lg_config_match_host(c, "api.anthropic.com")->name, "gw");
    lg_config_free(c);
}

static void test_errors_are_all_collected(void **state)
{
    unsetenv("OPENAI_KEY2");
    setenv("LGT_SET", "v", 1);
    char *all = parse_err("{\"providers\": {"
                          "  \"openai\": {\"limits\": {\"rpm\": \"fast\"},"
                          "     \"accounts\": [{\"name\": \"a\", \"key\": \"env:LGT_SET\"}, {\"name\": \"b\", \"key\": \"env:OPENAI_KEY2\"}]},"
                          "  \"foo\": {\"preset\": \"fooo\"}},"
                          " \"retry\": {\"max_atempts\": 3}}",
                          false);
    assert_contains(all, "test.json: providers.openai.limits.rpm: expected a positive integer, got \"fast\"\n");
    assert_contains(all, "test.json: retry.max_atempts: unknown key (did you mean \"max_attempts\"?)\n");
    assert_contains(all, "test.json: providers.foo: unknown preset \"fooo\"\n");
    assert_contains(all, "test.json: providers.openai.accounts[1].key: environment variable OPENAI_KEY2 is not set\n");
    free(all);
    unsetenv("LGT_SET");
}

static void test_type_and_range_errors(void **state)
{
    static const struct {
        const char *json, *want;
    } cases[] = {
        {"[]", "expected a JSON object at the top level, got an array"},
        {"null", "expected a JSON object at the top level, got null"},
        {"\"str\"", "expected a JSON object at the top level, got a string"},
        {"", "empty file"},
        {"{\"a\": 1,\n  }", "invalid JSON near line 2"},
        {"{} {}", "unexpected text after the JSON value near line 1, column 4"},
        {"{\"bogus\": 1}", "bogus: unknown key (expected one of: providers, retry, backoff, breaker, store, log, hold, spend, routes, prices, budgets, ledger, gateway)"},
        {"{\"providers\": []}", "providers: expected an object, got an array"},
        {"{\"retry\": 5}", "retry: expected an object, got 5"},
        {"{\"hold\": {\"max_body_bytes\": 100}}", "hold.max_body_bytes: expected an integer from 65536 to 1073741824 (bytes), got 100"},
        {"{\"hold\": {\"max\": 1}}", "hold.max: unknown key (expected one of: max_body_bytes)"},
        {"{\"retry\": {\"max_attempts\": 0}}", "retry.max_attempts: expected an integer from 1 to 1000, got 0"},
        {"{\"retry\": {\"max_attempts\": 1.5}}", "retry.max_attempts: expected an integer from 1 to 1000, got 1.5"},
        {"{\"retry\": {\"max_attempts\": 1e400}}", "retry.max_attempts: expected an integer from 1 to 1000, got a number too large"},
        {"{\"retry\": {\"switch_delay_ms\": -5}}", "retry.switch_delay_ms: expected a non-negative integer (milliseconds), got -5"},
        {"{\"retry\": {\"switch_delay_ms\": 1e300}}", "retry.switch_delay_ms: 1e+300 is too large"},
        {"{\"retry\": {\"max_rate_limit_wait_seconds\": -1}}", "expected a non-negative number of seconds, got -1"},
        {"{\"retry\": {\"max_rate_limit_wait_seconds\": \"5\"}}", "expected a non-negative number of seconds, got \"5\""},
        {"{\"retry\": {\"switch_on_first_rate_limit\": 1}}", "switch_on_first_rate_limit: expected true or false, got 1"},
        {"{\"retry\": {\"max_attempts\": 1, \"max_attempts\": 2}}", "retry.max_attempts: duplicate key"},
        {"{\"backoff\": {\"quota_exhausted_ms\": []}}", "backoff.quota_exhausted_ms: expected an array of 1 to 8"},
        {"{\"backoff\": {\"quota_exhausted_ms\": [1, -2]}}", "backoff.quota_exhausted_ms[1]: expected a non-negative integer"},
        {"{\"backoff\": {\"single_account_base_ms\": 5, \"single_account_max_ms\": 4}}",
         "backoff.single_account_base_ms: 5 exceeds single_account_max_ms (4)"},
        {"{\"backoff\": {\"max_hint_ms\": -1}}", "backoff.max_hint_ms: expected a non-negative integer (milliseconds), got -1"},
        {"{\"store\": {\"backend\": \"disk\"}}", "store.backend: expected one of \"shm\", \"redis\", got \"disk\""},
        {"{\"store\": {\"redis_url\": \"redis://h\"}}", "store.redis_url: only used with \"backend\": \"redis\""},
        {"{\"store\": {\"backend\": \"redis\", \"redis_url\": \"http://h\"}}", "store.redis_url: expected a redis://"},
        {"{\"store\": {\"path\": \"rel/state\"}}", "store.path: expected an absolute path"},
        {"{\"log\": {\"level\": \"loud\"}}", "log.level: expected one of \"error\", \"warn\", \"info\", \"debug\""},
        {"{\"log\": {\"file\": \"\"}}", "log.file: must not be empty"},
        {"{\"providers\": {\"openai\": 3}}", "providers.openai: expected an object, got 3"},
        {"{\"providers\": {\"opneai\": {}}}", "providers.opneai: \"opneai\" is not a preset; give \"preset\" or \"hosts\""},
        {"{\"providers\": {\"ollama\": {}}}", "providers.ollama: \"ollama\" runs on any host: give its \"hosts\""},
        {"{\"providers\": {\"gpu\": {\"preset\": \"vllm\"}}}", "providers.gpu: \"gpu\" runs on any host: give its \"hosts\""},
        {"{\"providers\": {\"bad name\": {}}}", "providers.bad name: provider names are 1 to 63 characters"},
        {"{\"providers\": {\"\": {}}}", "provider names are 1 to 63 characters"},
        {"{\"providers\": {\"openai\": {\"hosts\": []}}}", "providers.openai.hosts: expected an array of 1 to 64 host names"},
        {"{\"providers\": {\"openai\": {\"hosts\": [\"api.openai.com:443\"]}}}", "providers.openai.hosts[0]: expected a host name without scheme or port"},
        {"{\"providers\": {\"openai\": {\"hosts\": [\"https://x\"]}}}", "hosts[0]: expected a host name"},
        {"{\"providers\": {\"openai\": {\"hosts\": [\"a..b\"]}}}", "hosts[0]: expected a host name"},
        {"{\"providers\": {\"openai\": {\"upstream\": \"ftp://x\"}}}", "providers.openai.upstream: expected an http:// or https:// base URL"},
        {"{\"providers\": {\"openai\": {\"upstream\": \"http://\"}}}", "upstream: expected an http"},
        {"{\"providers\": {\"openai\": {\"upstream\": \"http://h:99999\"}}}", "upstream: expected an http"},
        {"{\"providers\": {\"openai\": {\"upstream\": \"https://u:p@h\"}}}", "upstream: expected an http"},
        {"{\"providers\": {\"openai\": {\"dialect\": \"cobol\"}}}", "providers.openai.dialect: expected one of \"none\", \"openai\""},
        {"{\"providers\": {\"openai\": {\"auth\": \"basic\"}}}", "providers.openai.auth: expected one of \"bearer\""},
        {"{\"providers\": {\"openai\": {\"limits\": {\"rpm\": 0}}}}", "limits.rpm: expected a positive integer, got 0"},
        {"{\"providers\": {\"openai\": {\"limits\": {\"tpm\": 1e20}}}}", "limits.tpm: 1e+20 is too large"},
        {"{\"providers\": {\"openai\": {\"limits\": {\"window_ms\": 0}}}}", "limits.window_ms: expected a positive integer"},
        {"{\"providers\": {\"openai\": {\"limits\": {\"tier\": \"t 2\"}}}}", "limits.tier: expected a tier name"},
        {"{\"providers\": {\"openai\": {\"limits\": {\"burst\": 1}}}}", "providers.openai.limits.burst: unknown key"},
        {"{\"providers\": {\"openai\": {\"stream\": {\"boundary\": \"word\"}}}}", "stream.boundary: expected one of \"utf8\", \"event\", \"none\""},
        {"{\"providers\": {\"openai\": {\"accounts\": {}}}}", "providers.openai.accounts: expected an array of at most 64 accounts, got an object"},
        {"{\"providers\": {\"openai\": {\"accounts\": [{\"name\": \"a\"}]}}}", "accounts[0].key: missing"},
        {"{\"providers\": {\"openai\": {\"accounts\": [{\"key\": 5}]}}}", "accounts[0].key: expected a string, got 5"},
        {"{\"providers\": {\"openai\": {\"accounts\": [7]}}}", "accounts[0]: expected an object, got 7"},
        {"{\"providers\": {\"openai\": {\"accounts\": [{\"key\": \"host\", \"nmae\": \"x\"}]}}}", "accounts[0].nmae: unknown key (did you mean \"name\"?)"},
        {"{\"providers\": {\"openai\": {\"accounts\": [{\"name\": \"a\", \"key\": \"host\"}, {\"name\": \"a\", \"key\": \"host\"}]}}}",
         "accounts[1].name: duplicate account name \"a\" (also accounts[0])"},
        {"{\"providers\": {\"openai\": {\"accounts\": [{\"name\": \"0123456789012345678901234567890123456789012345678901234567890123\", \"key\": \"host\"}]}}}",
         "accounts[0].name: too long"},
        {"{\"providers\": {\"openai\": {\"accounts\": [{\"name\": \"a b\", \"key\": \"host\"}]}}}", "accounts[0].name: expected 1 to 63 characters"},
        {"{\"providers\": {\"openai\": {\"accounts\": [{\"key\": \"env:1BAD\"}]}}}", "expected an environment variable name after \"env:\""},
        {"{\"providers\": {\"openai\": {\"accounts\": [{\"key\": \"file:relative/k\"}]}}}", "expected an absolute path after \"file:\""},
        {"{\"providers\": {\"openai\": {\"accounts\": [{\"key\": \"file:/nonexistent/lgt-key\"}]}}}",
         "accounts[0].key: cannot read key file /nonexistent/lgt-key: No such file or directory"},
        {"{\"providers\": {\"openai\": {\"accounts\": [{\"key\": \"sk a\"}]}}}", "accounts[0].key: the key contains whitespace"},
        {"{\"providers\": {\"openai\": {}, \"openai\": {}}}", "providers.openai: duplicate key"},
        {"{\"gateway\": {}}", "gateway.tokens: missing"},
        {"{\"gateway\": {\"tokens\": []}}", "gateway.tokens: expected at least one token"},
        {"{\"gateway\": {\"tokens\": [{\"name\": \"ci\", \"sha256\": \"abc\"}]}}",
         "gateway.tokens[0].sha256: expected 64 hexadecimal digits"},
        {"{\"gateway\": {\"tokens\": [{\"sha256\": \"0000000000000000000000000000000000000000000000000000000000000000\"}]}}",
         "gateway.tokens[0].name: missing"},
        {"{\"gateway\": {\"tokenz\": 1}}", "gateway.tokenz: unknown key"},
        {"{\"gateway\": {\"tokens\": [{\"name\": \"\", \"sha256\": \"0000000000000000000000000000000000000000000000000000000000000000\"}]}}",
         "gateway.tokens[0].name: must not be empty"},
        {"{\"ledger\": {\"path\": \"\"}}", "ledger.path: must not be empty"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *all = parse_err(cases[i].json, false);
        if (!strstr(all, cases[i].want))
            fail_msg("case %zu %s: expected [%s] in:\n%s", i, cases[i].json, cases[i].want, all);
        assert_int_equal(strncmp(all, "test.json: ", 11), 0);
        free(all);
    }
}

static void test_env_and_file_key_problems(void **state)
{
    setenv("LGT_EMPTY", "  ", 1);
    char *all = parse_err("{\"providers\": {\"openai\": {\"accounts\": [{\"key\": \"env:LGT_EMPTY\"}]}}}", false);
    assert_contains(all, "providers.openai.accounts[0].key: environment variable LGT_EMPTY is empty");
    free(all);
    unsetenv("LGT_EMPTY");

    setenv("LGT_CRLF", "sk-a\r\nX-Evil: 1", 1);
    lg_config *c = parse_ok("{\"providers\": {\"openai\": {\"accounts\": [{\"key\": \"env:LGT_CRLF\"}]}}}");
    assert_string_equal(c->providers[0].accounts[0].key, "sk-a"); /* first line only: no header injection */
    lg_config_free(c);
    unsetenv("LGT_CRLF");

    char json[512];
    const char *empty = write_file("empty-key", "\n\n", 0600);
    snprintf(json, sizeof json, "{\"providers\": {\"openai\": {\"accounts\": [{\"key\": \"file:%s\"}]}}}", empty);
    all = parse_err(json, false);
    char want[300];
    snprintf(want, sizeof want, "key file %s is empty", empty);
    assert_contains(all, want);
    free(all);

    snprintf(json, sizeof json, "{\"providers\": {\"openai\": {\"accounts\": [{\"key\": \"file:%s\"}]}}}", tmpdir);
    all = parse_err(json, false);
    assert_contains(all, "is not a regular file");
    free(all);
}

static void test_literal_key_refused_when_readable(void **state)
{
    const char *json = "{\"providers\": {\"openai\": {\"accounts\": [{\"name\": \"m\", \"key\": \"sk-very-secret-9\"}]}}}";
    char *all = parse_err(json, true);
    assert_contains(all, "test.json: providers.openai.accounts[0].key: literal API key in a config readable by "
                         "others; use env:NAME or file:PATH, or chmod 600 test.json");
    assert_null(strstr(all, "sk-very-secret-9"));
    free(all);

    /* A misplaced key is never echoed back either. */
    all = parse_err("{\"providers\": {\"openai\": {\"accounts\": [{\"name\": \"m\", \"key\": \"sk-very secret-9\"}]}}}",
                    false);
    assert_null(strstr(all, "secret"));
    free(all);
    all = parse_err("{\"providers\": {\"openai\": {\"accounts\": \"sk-very-secret-9\"}}}", false);
    assert_null(strstr(all, "secret"));
    free(all);

    lg_config *c = parse_ok(json);
    assert_string_equal(c->providers[0].accounts[0].key, "sk-very-secret-9");
    lg_config_free(c);
}

static void test_digest(void **state)
{
    char d[LG_DIGEST_HEX];
    lg_key_digest("abc", d); /* SHA-256("abc") = ba7816bf8f01cfea414140de5dae2223... */
    assert_string_equal(d, "ba7816bf8f01cfea");
    lg_key_digest("", d);
    assert_string_equal(d, "e3b0c44298fc1c14");
    lg_key_digest(NULL, d);
    assert_string_equal(d, "");
}

static void test_render_never_shows_keys(void **state)
{
    setenv("LGT_RENDER", "sk-env-secret-1", 1);
    lg_config *c = parse_ok("{\"providers\": {\"openai\": {\"upstream\": \"https://gw.example/v1\","
                            " \"accounts\": [{\"name\": \"e\", \"key\": \"env:LGT_RENDER\"},"
                            "              {\"name\": \"l\", \"key\": \"sk-literal-secret-2\"}]}},"
                            " \"retry\": {\"max_rate_limit_wait_seconds\": 1.5},"
                            " \"store\": {\"backend\": \"redis\", \"redis_url\": \"redis://:hunter2@db:6379\"}}");
    char *out = lg_config_render(c);
    assert_non_null(out);
    assert_null(strstr(out, "sk-env-secret-1"));
    assert_null(strstr(out, "sk-literal-secret-2"));
    assert_null(strstr(out, "hunter2"));
    cJSON *j = cJSON_Parse(out);
    assert_non_null(j);
    cJSON *openai = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "providers"), "openai");
    cJSON *accounts = cJSON_GetObjectItem(openai, "accounts");
    assert_int_equal(cJSON_GetArraySize(accounts), 2);
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(accounts, 0), "key")->valuestring, "env:LGT_RENDER");
    char ref[64];
    snprintf(ref, sizeof ref, "literal:%s", c->providers[0].accounts[1].digest);
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(accounts, 1), "key")->valuestring, ref);
    assert_string_equal(cJSON_GetObjectItem(openai, "upstream")->valuestring, "https://gw.example/v1");
    assert_string_equal(cJSON_GetObjectItem(openai, "dialect")->valuestring, "openai");
    assert_string_equal(cJSON_GetObjectItem(openai, "auth")->valuestring, "bearer");
    cJSON *retry = cJSON_GetObjectItem(j, "retry");
    assert_true(cJSON_GetObjectItem(retry, "max_rate_limit_wait_seconds")->valuedouble == 1.5);
    assert_true(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "backoff"), "max_hint_ms")->valuedouble == 86400000);
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "store"), "redis_url")->valuestring,
                        "redis://***@db:6379");
    cJSON *anthropic = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "providers"), "anthropic");
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(anthropic, "accounts"), 0), "key")
                            ->valuestring,
                        "host");
    cJSON_Delete(j);
    free(out);
    lg_config_free(c);
    unsetenv("LGT_RENDER");
}

static void assert_default_breaker(const lg_breaker_conf *b)
{
    assert_true(b->failure_ratio == 0.5);
    assert_int_equal(b->min_requests, 10);
    assert_int_equal(b->window_ms, 30000);
    assert_int_equal(b->consecutive_failures, 5);
    assert_int_equal(b->open_ms, 30000);
    assert_int_equal(b->open_max_ms, 300000);
}

/* The resilience defaults, with zero config and with an empty object: every preset carries them. */
static void test_resilience_defaults(void **state)
{
    lg_config *both[2] = {lg_config_defaults(), parse_ok("{}")};
    for (int k = 0; k < 2; k++) {
        lg_config *c = both[k];
        assert_non_null(c);
        assert_true(c->retry.budget_ratio == 0.2);
        assert_true(c->retry.budget_min_per_s == 0.5);
        assert_false(c->retry.pool_fallback);
        assert_string_equal(c->retry.pin_separator, ":");
        assert_default_breaker(&c->breaker);
        for (size_t i = 0; i < c->n_providers; i++) {
            const lg_provider *p = &c->providers[i];
            assert_default_breaker(&p->breaker);
            assert_int_equal(p->n_fallback, 0);
            assert_null(p->fallback);
            assert_int_equal(p->n_models, 0);
            assert_null(p->models);
            assert_string_equal(p->accounts[0].pool, "");
        }
        lg_config_free(c);
    }
}

/* Every new field read; a provider's breaker is the top-level one with its own members replaced. */
static void test_resilience_fields(void **state)
{
    setenv("LGT_R1", "sk-r1", 1);
    lg_config *c = parse_ok(
        "{\"breaker\": {\"failure_ratio\": 0.25, \"min_requests\": 4, \"window_ms\": 500,"
        "   \"consecutive_failures\": 0, \"open_ms\": 100, \"open_max_ms\": 800},"
        " \"retry\": {\"budget_ratio\": 0, \"budget_min_per_s\": 2.5, \"pool_fallback\": false,"
        "   \"pin_separator\": \"@@\"},"
        " \"providers\": {"
        "  \"openai\": {\"accounts\": [{\"name\": \"a\", \"key\": \"env:LGT_R1\", \"pool\": \"second\"},"
        "                             {\"name\": \"b\", \"key\": \"env:LGT_R1\"}],"
        "     \"breaker\": {\"failure_ratio\": 1, \"open_ms\": 800},"
        "     \"fallback\": [\"backup\", \"deepseek\"],"
        "     \"models\": {\"gpt-4o\": \"gpt-4o-2024-11-20\", \"gpt-4*\": \"gpt-4.1\", \"*\": \"gpt-4o-mini\"}},"
        "  \"backup\": {\"dialect\": \"openai\", \"upstream\": \"http://127.0.0.1:9\","
        "     \"accounts\": [{\"key\": \"env:LGT_R1\"}], \"fallback\": []},"
        "  \"deepseek\": {\"accounts\": [{\"key\": \"env:LGT_R1\"}], \"breaker\": {}, \"models\": {}}}}");
    assert_true(c->breaker.failure_ratio == 0.25);
    assert_int_equal(c->breaker.min_requests, 4);
    assert_int_equal(c->breaker.window_ms, 500);
    assert_int_equal(c->breaker.consecutive_failures, 0);
    assert_int_equal(c->breaker.open_ms, 100);
    assert_int_equal(c->breaker.open_max_ms, 800);
    assert_true(c->retry.budget_ratio == 0);
    assert_true(c->retry.budget_min_per_s == 2.5);
    assert_false(c->retry.pool_fallback);
    assert_string_equal(c->retry.pin_separator, "@@");

    const lg_provider *o = find(c, "openai");
    assert_true(o->breaker.failure_ratio == 1);
    assert_int_equal(o->breaker.open_ms, 800);
    assert_int_equal(o->breaker.min_requests, 4); /* the others from the top level */
    assert_int_equal(o->breaker.window_ms, 500);
    assert_int_equal(o->breaker.open_max_ms, 800);
    assert_int_equal(o->n_fallback, 2);
    assert_string_equal(o->fallback[0], "backup");
    assert_string_equal(o->fallback[1], "deepseek");
    assert_int_equal(o->n_models, 3);
    assert_string_equal(o->models[0].pattern, "gpt-4o");
    assert_string_equal(o->models[0].model, "gpt-4o-2024-11-20");
    assert_string_equal(o->models[2].pattern, "*");
    assert_string_equal(o->accounts[0].name, "a"); /* without pool_fallback: config order */
    assert_string_equal(o->accounts[0].pool, "second");
    assert_string_equal(o->accounts[1].pool, "");

    const lg_provider *b = find(c, "backup");
    assert_int_equal(b->n_fallback, 0);
    assert_true(b->breaker.failure_ratio == 0.25);
    assert_int_equal(b->breaker.open_ms, 100);
    const lg_provider *d = find(c, "deepseek");
    assert_int_equal(d->n_models, 0);
    assert_int_equal(d->breaker.open_ms, 100);
    assert_int_equal(find(c, "anthropic")->breaker.open_ms, 100); /* presets not listed: the top level's */
    assert_int_equal(find(c, "anthropic")->breaker.min_requests, 4);
    lg_config_free(c);
    unsetenv("LGT_R1");
}

/* A custom provider with "dialect" and "upstream" but no "hosts" is reached only through a fallback or a
 * pin: valid, never matched by host name. */
static void test_fallback_only_provider(void **state)
{
    setenv("LGT_R2", "sk-r2", 1);
    lg_config *c = parse_ok("{\"providers\": {"
                            " \"claude-eu\": {\"dialect\": \"anthropic\", \"upstream\": \"https://eu.example/v1\","
                            "   \"accounts\": [{\"key\": \"env:LGT_R2\"}]},"
                            " \"anthropic\": {\"accounts\": [{\"key\": \"env:LGT_R2\"}], \"fallback\": [\"claude-eu\"]}}}");
    const lg_provider *eu = lg_config_provider(c, "claude-eu");
    assert_non_null(eu);
    assert_int_equal(eu->n_hosts, 0);
    assert_int_equal(eu->dialect, LG_DIALECT_ANTHROPIC);
    assert_int_equal(eu->auth, LG_AUTH_X_API_KEY);
    assert_string_equal(eu->upstream, "https://eu.example/v1");
    assert_ptr_equal(lg_config_match_host(c, "api.anthropic.com"), lg_config_provider(c, "anthropic"));
    assert_null(lg_config_match_host(c, "eu.example"));
    lg_config_free(c);
    /* not referenced by any chain: still valid (a pin can reach it) */
    c = parse_ok("{\"providers\": {\"spare\": {\"dialect\": \"openai\", \"upstream\": \"http://127.0.0.1:9\"}}}");
    assert_int_equal(lg_config_provider(c, "spare")->n_hosts, 0);
    assert_host_account(lg_config_provider(c, "spare"));
    lg_config_free(c);
    /* a fallback of another translated dialect (openai -> anthropic, gemini) is valid */
    c = parse_ok("{\"providers\": {\"openai\": {\"fallback\": [\"anthropic\", \"gemini\"]},"
                 " \"anthropic\": {\"accounts\": [{\"key\": \"env:LGT_R2\"}]},"
                 " \"gemini\": {\"accounts\": [{\"key\": \"env:LGT_R2\"}]}}}");
    assert_int_equal(lg_config_provider(c, "openai")->n_fallback, 2);
    lg_config_free(c);
    unsetenv("LGT_R2");
}

static void test_resilience_errors(void **state)
{
    setenv("LGT_R3", "sk-r3", 1);
#define ACC "\"accounts\": [{\"key\": \"env:LGT_R3\"}]"
    static const struct {
        const char *json, *want;
    } cases[] = {
        {"{\"breaker\": 1}", "test.json: breaker: expected an object, got 1"},
        {"{\"breaker\": {\"failure_ratio\": 0}}", "breaker.failure_ratio: expected a number greater than 0 and at most 1, got 0"},
        {"{\"breaker\": {\"failure_ratio\": -0.5}}", "breaker.failure_ratio: expected a number greater than 0 and at most 1, got -0.5"},
        {"{\"breaker\": {\"failure_ratio\": 1.5}}", "breaker.failure_ratio: 1.5 is too large (at most 1)"},
        {"{\"breaker\": {\"failure_ratio\": \"half\"}}", "breaker.failure_ratio: expected a number greater than 0 and at most 1, got \"half\""},
        {"{\"breaker\": {\"min_requests\": 0}}", "breaker.min_requests: expected an integer from 1 to 1000000, got 0"},
        {"{\"breaker\": {\"min_requests\": 2.5}}", "breaker.min_requests: expected an integer from 1 to 1000000, got 2.5"},
        {"{\"breaker\": {\"consecutive_failures\": -1}}", "breaker.consecutive_failures: expected an integer from 0 (never) to 1000000, got -1"},
        {"{\"breaker\": {\"consecutive_failures\": 1000001}}", "breaker.consecutive_failures: 1000001 is too large (at most 1000000)"},
        {"{\"breaker\": {\"window_ms\": 0}}", "breaker.window_ms: expected a positive integer (milliseconds), got 0"},
        {"{\"breaker\": {\"open_ms\": 0}}", "breaker.open_ms: expected a positive integer (milliseconds), got 0"},
        {"{\"breaker\": {\"open_max_ms\": -1}}", "breaker.open_max_ms: expected a positive integer (milliseconds), got -1"},
        {"{\"breaker\": {\"open_ms\": 5000, \"open_max_ms\": 4000}}", "breaker.open_ms: 5000 exceeds open_max_ms (4000)"},
        {"{\"breaker\": {\"open_max_ms\": 4000}}", "breaker.open_max_ms: 4000 is less than open_ms (30000)"},
        {"{\"breaker\": {\"open_msx\": 1}}", "breaker.open_msx: unknown key (did you mean \"open_ms\"?)"},
        {"{\"breaker\": {\"open_ms\": 1, \"open_ms\": 2}}", "breaker.open_ms: duplicate key"},
        {"{\"providers\": {\"openai\": {\"breaker\": {\"open_ms\": 600000}}}}",
         "providers.openai.breaker.open_ms: 600000 exceeds open_max_ms (300000)"},
        {"{\"breaker\": {\"open_ms\": 1000}, \"providers\": {\"openai\": {\"breaker\": {\"open_max_ms\": 999}}}}",
         "providers.openai.breaker.open_max_ms: 999 is less than open_ms (1000)"},
        {"{\"providers\": {\"openai\": {\"breaker\": {\"min_requests\": 0}}}}",
         "providers.openai.breaker.min_requests: expected an integer from 1 to 1000000, got 0"},
        {"{\"providers\": {\"openai\": {\"breaker\": []}}}", "providers.openai.breaker: expected an object, got an array"},
        {"{\"retry\": {\"budget_ratio\": -0.1}}", "retry.budget_ratio: expected a non-negative number (0.2 = 20 %), got -0.1"},
        {"{\"retry\": {\"budget_ratio\": 101}}", "retry.budget_ratio: 101 is too large (at most 100)"},
        {"{\"retry\": {\"budget_ratio\": null}}", "retry.budget_ratio: expected a non-negative number (0.2 = 20 %), got null"},
        {"{\"retry\": {\"budget_min_per_s\": -1}}", "retry.budget_min_per_s: expected a non-negative number of retries per second, got -1"},
        {"{\"retry\": {\"budget_min_per_s\": 1e7}}", "retry.budget_min_per_s: 10000000 is too large (at most 1000000)"},
        {"{\"retry\": {\"pool_fallback\": \"yes\"}}", "retry.pool_fallback: expected true or false, got \"yes\""},
        {"{\"retry\": {\"pin_separator\": \"\"}}", "retry.pin_separator: must not be empty"},
        {"{\"retry\": {\"pin_separator\": \"12345678\"}}", "retry.pin_separator: too long (8 bytes, at most 7)"},
        {"{\"retry\": {\"pin_separator\": \": \"}}", "retry.pin_separator: expected 1 to 7 printable ASCII characters without spaces"},
        {"{\"retry\": {\"pin_separator\": \"\\u00e9\"}}", "retry.pin_separator: expected 1 to 7 printable ASCII characters without spaces"},
        {"{\"retry\": {\"pin_separator\": \"\\t\"}}", "retry.pin_separator: contains a control character"},
        {"{\"retry\": {\"pin_separator\": 58}}", "retry.pin_separator: expected a string, got 58"},
        {"{\"providers\": {\"openai\": {\"accounts\": [{\"key\": \"env:LGT_R3\", \"pool\": \"a b\"}]}}}",
         "providers.openai.accounts[0].pool: expected 1 to 63 characters from A-Z a-z 0-9 . _ - @ + :"},
        {"{\"providers\": {\"openai\": {\"accounts\": [{\"key\": \"env:LGT_R3\", \"pool\": 1}]}}}",
         "providers.openai.accounts[0].pool: expected a string, got 1"},
        {"{\"providers\": {\"openai\": {\"accounts\": [{\"key\": \"env:LGT_R3\", \"pool\": \"\"}]}}}",
         "providers.openai.accounts[0].pool: must not be empty"},
        {"{\"providers\": {\"openai\": {\"fallback\": \"backup\"}}}",
         "providers.openai.fallback: expected an array of at most 16 provider names, got \"backup\""},
        {"{\"providers\": {\"openai\": {\"fallback\": [\"a\",\"b\",\"c\",\"d\",\"e\",\"f\",\"g\",\"h\",\"i\",\"j\",\"k\",\"l\",\"m\",\"n\",\"o\",\"p\",\"q\"]}}}",
         "providers.openai.fallback: expected an array of at most 16 provider names, got 17"},
        {"{\"providers\": {\"openai\": {\"fallback\": [5]}}}", "providers.openai.fallback[0]: expected a string, got 5"},
        {"{\"providers\": {\"openai\": {\"fallback\": [\"a b\"]}}}",
         "providers.openai.fallback[0]: expected a provider name (1 to 63 characters"},
        {"{\"providers\": {\"openai\": {\"fallback\": [\"openai\"]}}}", "providers.openai.fallback[0]: \"openai\" names this provider itself"},
        {"{\"providers\": {\"openai\": {\"fallback\": [\"groq\", \"groq\"]}}, \"groq\": {" ACC "}}",
         "providers.openai.fallback[1]: \"groq\" is already in the chain"},
        {"{\"providers\": {\"openai\": {\"fallback\": [\"openai\", 7, \"nowhere\"]}}}", /* indexes kept past refused entries */
         "providers.openai.fallback[2]: no provider named \"nowhere\""},
        {"{\"providers\": {\"openai\": {\"fallback\": [\"nowhere\"]}}}",
         "providers.openai.fallback[0]: no provider named \"nowhere\" (neither in \"providers\" nor a preset)"},
        {"{\"providers\": {\"openai\": {\"fallback\": [\"kimi\"]}}}",
         "providers.openai.fallback[0]: no provider named \"kimi\" (did you mean \"moonshot\"?)"},
        {"{\"providers\": {\"openai\": {\"fallback\": [\"qwen\"]}, \"my-qwen\": {\"preset\": \"dashscope\"}}}",
         "providers.openai.fallback[0]: no provider named \"qwen\" (did you mean \"my-qwen\"?)"},
        {"{\"providers\": {\"openai\": {\"fallback\": [\"hook\"]}, \"hook\": {\"hosts\": [\"h.example\"]}}}",
         "providers.openai.fallback[0]: \"hook\" is a plain host rule (dialect \"none\"); it cannot serve another provider's requests"},
        {"{\"providers\": {\"openai\": {\"fallback\": [\"dashscope\"]}, \"dashscope\": {" ACC "}}}",
         "providers.openai.fallback[0]: \"dashscope\" speaks the dashscope dialect and \"openai\" the openai one: "
         "requests are translated only between the openai, anthropic and google dialects"},
        {"{\"providers\": {\"openai\": {\"fallback\": [\"deepseek\"]}}}",
         "providers.openai.fallback[0]: \"deepseek\" has an account (\"host\") using the key the program sent, which "
         "belongs to \"openai\" and never goes to another provider; give \"deepseek\" accounts with keys of its own"},
        {"{\"providers\": {\"openai\": {\"fallback\": [\"groq\"]}, \"groq\": {\"accounts\": [{\"key\": \"env:LGT_R3\"},"
         " {\"name\": \"mine\", \"key\": \"host\"}]}}}",
         "providers.openai.fallback[0]: \"groq\" has an account (\"mine\") using the key the program sent"},
        {"{\"providers\": {\"hook\": {\"hosts\": [\"h.example\"], \"fallback\": [\"openai\"]}}}",
         "providers.hook.fallback: only for a provider with a dialect: a plain host rule's responses are not read"},
        {"{\"providers\": {\"hook\": {\"hosts\": [\"h.example\"], \"breaker\": {}}}}",
         "providers.hook.breaker: only for a provider with a dialect"},
        {"{\"providers\": {\"hook\": {\"hosts\": [\"h.example\"], \"dialect\": \"none\", \"models\": {}}}}",
         "providers.hook.models: only for a provider with a dialect"},
        {"{\"providers\": {\"openai\": {\"models\": [\"gpt-4o\"]}}}", "providers.openai.models: expected an object, got an array"},
        {"{\"providers\": {\"openai\": {\"models\": {\"gpt-4o\": 4}}}}", "providers.openai.models.gpt-4o: expected a string, got 4"},
        {"{\"providers\": {\"openai\": {\"models\": {\"gpt-4o\": \"\"}}}}", "providers.openai.models.gpt-4o: must not be empty"},
        {"{\"providers\": {\"openai\": {\"models\": {\"gpt-4o\": \"a b\"}}}}",
         "providers.openai.models.gpt-4o: expected a model name: printable characters without spaces, quotes or backslashes"},
        {"{\"providers\": {\"openai\": {\"models\": {\"gpt-4o\": \"a\\\"b\"}}}}", "providers.openai.models.gpt-4o: expected a model name"},
        {"{\"providers\": {\"openai\": {\"models\": {\"gpt-4o\": \"a\\\\b\"}}}}", "providers.openai.models.gpt-4o: expected a model name"},
        {"{\"providers\": {\"openai\": {\"models\": {\"gpt 4\": \"x\"}}}}",
         "providers.openai.models.gpt 4: expected a model name or glob pattern: 1 to 255 printable characters without spaces or quotes"},
        {"{\"providers\": {\"openai\": {\"models\": {\"\": \"x\"}}}}", "providers.openai.models.: expected a model name or glob pattern"},
        {"{\"providers\": {\"openai\": {\"models\": {\"a\": \"x\", \"a\": \"y\"}}}}", "providers.openai.models.a: duplicate key"},
        {"{\"providers\": {\"openai\": {\"models\": {\"*\": \"x\", \"gpt-4o\": \"y\"}}}}",
         "providers.openai.models.gpt-4o: never used: \"*\" before it matches every model"},
        {"{\"providers\": {\"openai\": {\"models\": {\"**\": \"x\", \"o*\": \"y\"}}}}",
         "providers.openai.models.o*: never used: \"**\" before it matches every model"},
        {"{\"providers\": {\"spare\": {\"dialect\": \"openai\"}}}",
         "providers.spare: \"spare\" has no \"hosts\"; a provider reached only through a fallback or a pin needs \"upstream\""},
        {"{\"providers\": {\"spare\": {\"upstream\": \"http://h\"}}}",
         "providers.spare: \"spare\" is not a preset; give \"preset\" or \"hosts\" (or \"dialect\" and \"upstream\" for a "
         "provider reached only through a fallback or a pin)"},
        {"{\"providers\": {\"spare\": {\"dialect\": \"none\", \"upstream\": \"http://h\"}}}",
         "providers.spare: \"spare\" is not a preset; give \"preset\" or \"hosts\""},
        {"{\"providers\": {\"spare\": {" ACC ", \"upstream\": \"http://h\"}}}",
         "providers.spare: \"spare\" is not a preset; give \"preset\" or \"hosts\""},
    };
#undef ACC
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *all = parse_err(cases[i].json, false);
        if (!strstr(all, cases[i].want))
            fail_msg("case %zu %s: expected [%s] in:\n%s", i, cases[i].json, cases[i].want, all);
        free(all);
    }
    unsetenv("LGT_R3");
}

/* Names of p's accounts joined with spaces, in p's order (static buffer). */
static const char *account_order(const lg_provider *p)
{
    static char out[256];
    out[0] = '\0';
    for (size_t i = 0; i < p->n_accounts; i++) {
        strcat(out, i ? " " : "");
        strcat(out, p->accounts[i].name);
    }
    return out;
}

/* With pool_fallback, the default pool first, then the named pools by first appearance; stable inside. */
static void test_pool_order(void **state)
{
    static const char accounts[] =
        "\"accounts\": [{\"name\": \"a1\", \"key\": \"host\", \"pool\": \"first\"},"
        " {\"name\": \"d1\", \"key\": \"host\"}, {\"name\": \"b1\", \"key\": \"host\", \"pool\": \"second\"},"
        " {\"name\": \"a2\", \"key\": \"host\", \"pool\": \"first\"}, {\"name\": \"d2\", \"key\": \"host\"},"
        " {\"name\": \"b2\", \"key\": \"host\", \"pool\": \"second\"}]";
    char json[1024];
    snprintf(json, sizeof json, "{\"retry\": {\"pool_fallback\": true}, \"providers\": {\"openai\": {%s},"
             " \"groq\": {\"accounts\": [{\"name\": \"x\", \"key\": \"host\", \"pool\": \"z\"},"
             " {\"name\": \"y\", \"key\": \"host\", \"pool\": \"a\"}, {\"name\": \"w\", \"key\": \"host\", \"pool\": \"z\"}]}}}",
             accounts);
    lg_config *c = parse_ok(json);
    const lg_provider *o = find(c, "openai");
    assert_string_equal(account_order(o), "d1 d2 a1 a2 b1 b2");
    assert_string_equal(o->accounts[2].pool, "first");
    assert_string_equal(o->accounts[4].pool, "second");
    assert_string_equal(account_order(find(c, "groq")), "x w y"); /* "z" first appears first, not by name */
    lg_config_free(c);

    snprintf(json, sizeof json, "{\"providers\": {\"openai\": {%s}}}", accounts);
    c = parse_ok(json); /* without pool_fallback: config order */
    assert_string_equal(account_order(find(c, "openai")), "a1 d1 b1 a2 d2 b2");
    lg_config_free(c);
}

static void test_config_provider(void **state)
{
    lg_config *c = parse_ok("{\"providers\": {\"qwen\": {}, \"corp\": {\"hosts\": [\"c.example\"], \"dialect\": \"openai\"}}}");
    assert_ptr_equal(lg_config_provider(c, "qwen"), &c->providers[0]);
    assert_ptr_equal(lg_config_provider(c, "corp"), &c->providers[1]);
    assert_ptr_equal(lg_config_provider(c, "openai"), find(c, "openai")); /* a preset not listed */
    assert_non_null(lg_config_provider(c, "openai"));
    assert_null(lg_config_provider(c, "dashscope")); /* replaced by "qwen" */
    assert_null(lg_config_provider(c, "kimi"));      /* an alias is no provider name */
    assert_null(lg_config_provider(c, "OPENAI"));
    assert_null(lg_config_provider(c, ""));
    assert_null(lg_config_provider(c, NULL));
    assert_null(lg_config_provider(NULL, "openai"));
    lg_config_free(c);
}

static void test_map_model(void **state)
{
    lg_config *c = parse_ok("{\"providers\": {\"openai\": {\"models\": {"
                            " \"gpt-4o-mini\": \"small\", \"gpt-4o\": \"gpt-4o-2024-11-20\", \"gpt-4*\": \"gpt-4.1\","
                            " \"o[13]-?ini\": \"o-mini\", \"openai/*\": \"routed\", \"*\": \"default\"}},"
                            " \"groq\": {\"models\": {\"llama-*\": \"llama-3.3-70b\", \"llama-3\": \"never\","
                            "   \"mix[1]\": \"literal\"}}}}");
    const lg_provider *o = find(c, "openai");
    assert_string_equal(lg_provider_map_model(o, "gpt-4o"), "gpt-4o-2024-11-20"); /* exact */
    assert_string_equal(lg_provider_map_model(o, "gpt-4o-mini"), "small");        /* first match wins */
    assert_string_equal(lg_provider_map_model(o, "gpt-4-turbo"), "gpt-4.1");      /* glob */
    assert_string_equal(lg_provider_map_model(o, "gpt-4"), "gpt-4.1");            /* '*' matches nothing too */
    assert_string_equal(lg_provider_map_model(o, "o1-mini"), "o-mini");           /* [] and ? */
    assert_string_equal(lg_provider_map_model(o, "o3-mini"), "o-mini");
    assert_string_equal(lg_provider_map_model(o, "o2-mini"), "default");
    assert_string_equal(lg_provider_map_model(o, "openai/gpt-4o"), "routed"); /* '*' crosses '/' */
    assert_string_equal(lg_provider_map_model(o, "claude-3"), "default");      /* "*" */
    assert_string_equal(lg_provider_map_model(o, ""), "default");
    const lg_provider *g = find(c, "groq");
    assert_string_equal(lg_provider_map_model(g, "llama-3"), "llama-3.3-70b"); /* config order, not exactness */
    assert_string_equal(lg_provider_map_model(g, "mix[1]"), "literal"); /* exact, though not as a glob */
    assert_string_equal(lg_provider_map_model(g, "mix1"), "literal");   /* and as a glob */
    const char *m = "mixtral-8x7b";
    assert_ptr_equal(lg_provider_map_model(g, m), m);          /* no match: the model itself */
    assert_ptr_equal(lg_provider_map_model(find(c, "anthropic"), m), m); /* no "models" at all */
    assert_null(lg_provider_map_model(o, NULL));
    assert_ptr_equal(lg_provider_map_model(NULL, m), m);
    lg_config_free(c);
}

/* check-config's rendering shows every new field (and still no key). */
static void test_render_resilience(void **state)
{
    setenv("LGT_R4", "sk-render-secret-4", 1);
    lg_config *c = parse_ok("{\"breaker\": {\"open_ms\": 700}, \"retry\": {\"budget_ratio\": 0.3, \"pool_fallback\": true,"
                            " \"pin_separator\": \"#\"},"
                            " \"providers\": {\"openai\": {\"accounts\": [{\"name\": \"p\", \"key\": \"env:LGT_R4\", \"pool\": \"blue\"},"
                            "   {\"name\": \"q\", \"key\": \"env:LGT_R4\"}], \"breaker\": {\"min_requests\": 3},"
                            "   \"fallback\": [\"spare\"], \"models\": {\"gpt-4*\": \"gpt-4o\", \"*\": \"gpt-4o-mini\"}},"
                            " \"spare\": {\"dialect\": \"openai\", \"upstream\": \"http://127.0.0.1:9\", \"accounts\": [{\"key\": \"env:LGT_R4\"}]},"
                            " \"hook\": {\"hosts\": [\"h.example\"]}}}");
    char *out = lg_config_render(c);
    assert_non_null(out);
    assert_null(strstr(out, "sk-render-secret-4"));
    cJSON *j = cJSON_Parse(out);
    assert_non_null(j);
    cJSON *retry = cJSON_GetObjectItem(j, "retry");
    assert_true(cJSON_GetObjectItem(retry, "budget_ratio")->valuedouble == 0.3);
    assert_true(cJSON_GetObjectItem(retry, "budget_min_per_s")->valuedouble == 0.5);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(retry, "pool_fallback")));
    assert_string_equal(cJSON_GetObjectItem(retry, "pin_separator")->valuestring, "#");
    cJSON *top = cJSON_GetObjectItem(j, "breaker");
    assert_true(cJSON_GetObjectItem(top, "failure_ratio")->valuedouble == 0.5);
    assert_true(cJSON_GetObjectItem(top, "open_ms")->valuedouble == 700);
    assert_true(cJSON_GetObjectItem(top, "open_max_ms")->valuedouble == 300000);
    assert_true(cJSON_GetObjectItem(top, "consecutive_failures")->valuedouble == 5);
    assert_true(cJSON_GetObjectItem(top, "window_ms")->valuedouble == 30000);
    assert_true(cJSON_GetObjectItem(top, "min_requests")->valuedouble == 10);
    cJSON *providers = cJSON_GetObjectItem(j, "providers");
    cJSON *o = cJSON_GetObjectItem(providers, "openai");
    cJSON *ob = cJSON_GetObjectItem(o, "breaker");
    assert_true(cJSON_GetObjectItem(ob, "min_requests")->valuedouble == 3);
    assert_true(cJSON_GetObjectItem(ob, "open_ms")->valuedouble == 700);
    assert_string_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(o, "fallback"), 0)->valuestring, "spare");
    cJSON *models = cJSON_GetObjectItem(o, "models");
    assert_string_equal(models->child->string, "gpt-4*"); /* config order kept */
    assert_string_equal(models->child->valuestring, "gpt-4o");
    assert_string_equal(models->child->next->string, "*");
    cJSON *acc = cJSON_GetObjectItem(o, "accounts"); /* pool_fallback: the default pool first */
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(acc, 0), "name")->valuestring, "q");
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetArrayItem(acc, 0), "pool")));
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(acc, 1), "pool")->valuestring, "blue");
    cJSON *spare = cJSON_GetObjectItem(providers, "spare");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(spare, "hosts")), 0);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(spare, "fallback")), 0);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(spare, "models")), 0);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(providers, "hook"), "breaker")));
    cJSON_Delete(j);
    free(out);
    lg_config_free(c);
    unsetenv("LGT_R4");
}

static void test_load_search_order(void **state)
{
    lg_errors e = {0};
    char dir[300], path[400];
    /* An explicit file that does not exist is a problem. */
    snprintf(path, sizeof path, "%s/missing.json", tmpdir);
    assert_null(lg_config_load(path, &e));
    assert_int_equal(e.n, 1);
    assert_contains(e.items[0], "missing.json: cannot open: No such file or directory");
    lg_errors_free(&e);

    /* $LLMGATE_CONFIG wins over XDG; a missing one is a problem too. */
    const char *envfile = write_file("env.json", "{\"log\": {\"level\": \"warn\"}}", 0600);
    setenv("LLMGATE_CONFIG", envfile, 1);
    lg_config *c = lg_config_load(NULL, &e);
    assert_non_null(c);
    assert_string_equal(c->source, envfile);
    assert_int_equal(c->log_level, LG_LOG_WARN);
    lg_config_free(c);
    setenv("LLMGATE_CONFIG", path, 1);
    assert_null(lg_config_load(NULL, &e));
    assert_int_equal(e.n, 1);
    lg_errors_free(&e);
    unsetenv("LLMGATE_CONFIG");

    /* $XDG_CONFIG_HOME/llmgate/config.json. */
    snprintf(dir, sizeof dir, "%s/xdg", tmpdir);
    mkdir(dir, 0700);
    setenv("XDG_CONFIG_HOME", dir, 1);
    snprintf(dir, sizeof dir, "%s/xdg/llmgate", tmpdir);
    mkdir(dir, 0700);
    const char *xdgfile = write_file("xdg/llmgate/config.json", "{\"log\": {\"level\": \"error\"}}", 0600);
    c = lg_config_load(NULL, &e);
    assert_non_null(c);
    assert_string_equal(c->source, xdgfile);
    assert_int_equal(c->log_level, LG_LOG_ERROR);
    lg_config_free(c);
    unlink(xdgfile);

    /* Nothing in the default places: defaults (unless this machine has /etc/llmgate/config.json). */
    if (access("/etc/llmgate/config.json", F_OK) != 0) {
        c = lg_config_load(NULL, &e);
        assert_non_null(c);
        assert_string_equal(c->source, "(defaults)");
        lg_config_free(c);
    }
    assert_int_equal(e.n, 0);
    unsetenv("XDG_CONFIG_HOME");

    /* A directory is not a config file. */
    assert_null(lg_config_load(tmpdir, &e));
    assert_contains(e.items[0], "not a regular file");
    lg_errors_free(&e);
}

static void test_load_file_modes(void **state)
{
    lg_errors e = {0};
    const char *json = "{\"providers\": {\"openai\": {\"accounts\": [{\"key\": \"sk-mode-secret\"}]}}}";
    const char *open_file = write_file("open.json", json, 0644);
    assert_null(lg_config_load(open_file, &e));
    assert_int_equal(e.n, 1);
    char want[600];
    snprintf(want, sizeof want,
             "%s: providers.openai.accounts[0].key: literal API key in a config readable by others (mode 0644); "
             "use env:NAME or file:PATH, or chmod 600 %s",
             open_file, open_file);
    assert_string_equal(e.items[0], want);
    lg_errors_free(&e);

    const char *group_file = write_file("group.json", json, 0640);
    assert_null(lg_config_load(group_file, &e));
    assert_contains(e.items[0], "(mode 0640)");
    lg_errors_free(&e);

    const char *private_file = write_file("private.json", json, 0600);
    lg_config *c = lg_config_load(private_file, &e);
    assert_non_null(c);
    assert_string_equal(c->providers[0].accounts[0].key, "sk-mode-secret");
    lg_config_free(c);

    /* A file larger than 1 MiB is refused without being parsed. */
    char big_path[300];
    snprintf(big_path, sizeof big_path, "%s/big.json", tmpdir);
    FILE *f = fopen(big_path, "w");
    assert_non_null(f);
    fputc('{', f);
    for (int i = 0; i < 1100 * 1024; i++)
        fputc(' ', f);
    fputc('}', f);
    fclose(f);
    assert_null(lg_config_load(big_path, &e));
    assert_contains(e.items[0], "larger than");
    lg_errors_free(&e);
}

static void test_error_count_is_capped(void **state)
{
    size_t cap = 64 * 1024;
    char *json = malloc(cap);
    assert_non_null(json);
    size_t o = (size_t)snprintf(json, cap, "{\"retry\": {");
    for (int i = 0; i < 200; i++)
        o += (size_t)snprintf(json + o, cap - o, "%s\"k%d\": 1", i ? "," : "", i);
    snprintf(json + o, cap - o, "}}");
    lg_errors e = {0};
    assert_null(lg_config_parse(json, strlen(json), "t", false, &e));
    assert_true(e.n >= 100 && e.n <= 101);
    assert_string_equal(e.items[e.n - 1], "too many problems; the rest are not shown");
    lg_errors_free(&e);
    free(json);
}

/* Parses text of any shape; whatever comes back must render and free cleanly. */
static void parse_anything(const char *text, size_t len)
{
    lg_errors e = {0};
    lg_config *c = lg_config_parse(text, len, "fuzz", false, &e);
    if (c) {
        assert_int_equal(e.n, 0);
        free(lg_config_render(c));
        lg_config_free(c);
    } else {
        assert_true(e.n > 0);
    }
    lg_errors_free(&e);
}

static void test_fuzz_never_crashes(void **state)
{
    static const char valid[] =
        "{\"providers\": {\"openai\": {\"preset\": \"openai\", \"hosts\": [\"api.openai.com\"],"
        " \"upstream\": \"http://127.0.0.1:1\", \"accounts\": [{\"name\": \"m\", \"key\": \"sk-1\"},"
        " {\"name\": \"h\", \"key\": \"host\"}], \"limits\": {\"rpm\": 5, \"tpm\": 6, \"window_ms\": 7},"
        " \"stream\": {\"boundary\": \"utf8\"}, \"breaker\": {\"open_ms\": 5}, \"fallback\": [\"spare\"],"
        " \"models\": {\"gpt-4*\": \"g\", \"*\": \"h\"}}, \"plain\": {\"hosts\": [\"*.x.example\"]},"
        " \"spare\": {\"dialect\": \"openai\", \"upstream\": \"http://127.0.0.1:2\","
        " \"accounts\": [{\"key\": \"sk-2\", \"pool\": \"p\"}, {\"key\": \"sk-3\"}]}},"
        " \"retry\": {\"max_attempts\": 2, \"max_rate_limit_wait_seconds\": 0.5, \"budget_ratio\": 0.2,"
        " \"pool_fallback\": true, \"pin_separator\": \":\"}, \"breaker\": {\"failure_ratio\": 0.5},"
        " \"backoff\": {\"quota_exhausted_ms\": [1, 2, 3]}, \"store\": {\"backend\": \"shm\"},"
        " \"log\": {\"level\": \"info\", \"file\": null}}";
    size_t vlen = strlen(valid);
    assert_true(vlen < 1024);
    lg_errors ve = {0};
    lg_config *vc = lg_config_parse(valid, vlen, "fuzz", false, &ve);
    assert_non_null(vc); /* the seed itself is valid, so mutations reach every field's checks */
    lg_config_free(vc);
    parse_anything(valid, vlen);
    for (size_t cut = 0; cut <= vlen; cut++) /* every truncation */
        parse_anything(valid, cut);

    static const char mutations[] = "{}[]\":,0-9e.\\ x\x01\xff";
    unsigned seed = 12345;
    char buf[1024];
    for (int round = 0; round < 3000; round++) {
        size_t len = (size_t)(rand_r(&seed) % (int)sizeof buf);
        if (round % 2) { /* random bytes */
            for (size_t i = 0; i < len; i++)
                buf[i] = (char)(rand_r(&seed) & 0xff);
        } else { /* the valid config with a few bytes changed */
            len = vlen;
            memcpy(buf, valid, vlen);
            for (int k = 0; k < 1 + rand_r(&seed) % 4; k++)
                buf[rand_r(&seed) % (int)vlen] = mutations[rand_r(&seed) % (int)(sizeof mutations - 1)];
        }
        parse_anything(buf, len);
    }

    static const char *const odd[] = {
        "{\"retry\": {\"max_attempts\": 1e400}}",
        "{\"retry\": {\"max_attempts\": -1e400}}",
        "{\"retry\": {\"max_attempts\": 9223372036854775807}}",
        "{\"retry\": {\"switch_delay_ms\": 9223372036854775808}}",
        "{\"retry\": {\"max_rate_limit_wait_seconds\": 1e308}}",
        "{\"providers\": {\"openai\": {\"limits\": {\"rpm\": -0}}}}",
        "{\"providers\": {\"x\\u0000y\": {}}}",
        "{\"providers\": {\"openai\": {\"accounts\": [{\"key\": \"a\\u0000b\"}]}}}",
        "{\"providers\": {\"openai\": {\"hosts\": [\"\\u00e9.example\"]}}}",
        "{\"providers\": {\"openai\": null, \"anthropic\": true, \"gemini\": [1]}}",
        "\xef\xbb\xbf{}",
        "{\"a\"",
        "{\"a\":",
        "0",
        "-",
        "\"",
    };
    for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++)
        parse_anything(odd[i], strlen(odd[i]));
    parse_anything("{}\0{}", 5);

    /* Deeply nested arrays, in a value and at the top. */
    size_t depth = 100000;
    char *deep = malloc(2 * depth + 64);
    assert_non_null(deep);
    size_t o = (size_t)sprintf(deep, "{\"providers\": ");
    memset(deep + o, '[', depth);
    memset(deep + o + depth, ']', depth);
    strcpy(deep + o + 2 * depth, "}");
    parse_anything(deep, strlen(deep));
    parse_anything(deep + o, 2 * depth);
    free(deep);

    /* Hundreds of providers and accounts. */
    size_t cap = 256 * 1024;
    char *many = malloc(cap);
    assert_non_null(many);
    o = (size_t)snprintf(many, cap, "{\"providers\": {");
    for (int i = 0; i < 300; i++)
        o += (size_t)snprintf(many + o, cap - o, "%s\"p%d\": {\"hosts\": [\"h%d.example\"]}", i ? "," : "", i, i);
    snprintf(many + o, cap - o, "}}");
    parse_anything(many, strlen(many));
    o = (size_t)snprintf(many, cap, "{\"providers\": {\"openai\": {\"accounts\": [");
    for (int i = 0; i < 100; i++)
        o += (size_t)snprintf(many + o, cap - o, "%s{\"key\": \"host\"}", i ? "," : "");
    snprintf(many + o, cap - o, "]}}}");
    parse_anything(many, strlen(many));
    free(many);
}

static int setup(void **state)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/lgt-config.XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    unsetenv("LLMGATE_CONFIG");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_empty_object_is_defaults),
        cmocka_unit_test(test_full_example),
        cmocka_unit_test(test_zero_wait_and_rounding),
        cmocka_unit_test(test_alias_provider_replaces_its_preset),
        cmocka_unit_test(test_custom_and_plain_rules),
        cmocka_unit_test(test_explicit_before_presets_in_matching),
        cmocka_unit_test(test_errors_are_all_collected),
        cmocka_unit_test(test_type_and_range_errors),
        cmocka_unit_test(test_env_and_file_key_problems),
        cmocka_unit_test(test_literal_key_refused_when_readable),
        cmocka_unit_test(test_digest),
        cmocka_unit_test(test_render_never_shows_keys),
        cmocka_unit_test(test_resilience_defaults),
        cmocka_unit_test(test_resilience_fields),
        cmocka_unit_test(test_fallback_only_provider),
        cmocka_unit_test(test_resilience_errors),
        cmocka_unit_test(test_pool_order),
        cmocka_unit_test(test_config_provider),
        cmocka_unit_test(test_map_model),
        cmocka_unit_test(test_render_resilience),
        cmocka_unit_test(test_load_search_order),
        cmocka_unit_test(test_load_file_modes),
        cmocka_unit_test(test_error_count_is_capped),
        cmocka_unit_test(test_fuzz_never_crashes),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
