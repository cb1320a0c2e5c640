#!/usr/bin/env bash
# The dlopen hook (src/hook/base/dlopen.c): RTLD_DEEPBIND is dropped only for an object that needs libcurl, so
# its libcurl calls are gated; a deep-bound plugin without libcurl keeps binding to its own dependencies
# first; and a host library's bare-name dlopen still searches that library's DT_RPATH (glibc still sees it
# as the caller).
source "$(dirname "$0")/../lib.sh"
lg_start_mock
D=$LG_TMP/dl
mkdir -p "$D/rpath"
# probe() is defined by the host (exported) and by the plugin's own dependency: DEEPBIND picks the latter
cc -shared -fPIC -o "$D/libdep.so" -x c - <<<'const char *probe(void){return "dependency";}'
cc -shared -fPIC -o "$D/plugin.so" -x c - -L"$D" -ldep -Wl,-rpath,"$D" <<<'const char *probe(void); const char *which(void){return probe();}'
# a plugin on libcurl: one request to a provider with the host's key
cc -shared -fPIC -o "$D/curlplugin.so" -x c - -lcurl <<'C'
#include <curl/curl.h>
static size_t sink(char *p, size_t s, size_t n, void *u) { (void)p; (void)u; return s * n; }
long call(const char *url) {
    CURL *h = curl_easy_init();
    struct curl_slist *l = curl_slist_append(NULL, "Authorization: Bearer sk-host");
    long code = 0;
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, l);
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, "{\"model\":\"gpt-4o-mini\",\"max_tokens\":8}");
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, sink);
    if (curl_easy_perform(h) == CURLE_OK)
        curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
    curl_easy_cleanup(h);
    curl_slist_free_all(l);
    return code;
}
C
cc -shared -fPIC -o "$D/rpath/libbare.so" -x c - <<<'int bare(void){return 42;}'
# a library with a DT_RPATH that dlopens a bare name only that RPATH finds (glibc searches the caller's)
cc -shared -fPIC -o "$D/libloader.so" -Wl,--disable-new-dtags,-rpath,"$D/rpath" -x c - <<'C'
#include <dlfcn.h>
int load_bare(void) {
    void *b = dlopen("libbare.so", RTLD_NOW);
    int (*bare)(void) = b ? (int (*)(void))dlsym(b, "bare") : (int (*)(void))0;
    return bare ? bare() : -1;
}
C
cc -rdynamic -o "$D/host" -L"$D" -Wl,-rpath,"$D" -x c - -lloader <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
const char *probe(void) { return "host"; }
int load_bare(void);
int main(int argc, char **argv) {
    char path[4096];
    snprintf(path, sizeof path, "%s/plugin.so", argv[1]);
    void *p = dlopen(path, RTLD_NOW | RTLD_GLOBAL | RTLD_DEEPBIND);
    const char *(*which)(void) = p ? (const char *(*)(void))dlsym(p, "which") : NULL;
    printf("deepbind plugin: %s\n", which ? which() : dlerror());
    snprintf(path, sizeof path, "%s/curlplugin.so", argv[1]);
    void *c = dlopen(path, RTLD_NOW | RTLD_GLOBAL | RTLD_DEEPBIND);
    long (*call)(const char *) = c ? (long (*)(const char *))dlsym(c, "call") : NULL;
    printf("curl plugin: %ld\n", call ? call(argv[2]) : -1L);
    printf("bare name via the host's rpath: %d\n", load_bare());
    return 0;
}
C
cat >"$LG_TMP/config.json" <<JSON
{"providers": {"openai": {"upstream": "$MOCK_URL", "accounts": [{"name": "a", "key": "sk-acct"}]}}}
JSON
chmod 600 "$LG_TMP/config.json"
want=$("$D/host" "$D" "$MOCK_URL/v1/chat/completions" 2>&1)
check_eq "without llmgate: the host's view" "deepbind plugin: dependency
curl plugin: 200
bare name via the host's rpath: 42" "$want"
check_eq "without llmgate: the plugin's request carried the host's key" sk-host "$(curl -s "$MOCK_URL/__requests" | lg_json 'j[-1]["key"]')"
got=$(LLMGATE_CONFIG=$LG_TMP/config.json LD_PRELOAD=$LG_LIB "$D/host" "$D" http://api.openai.com/v1/chat/completions 2>&1)
check_eq "under the preload: the same view (DEEPBIND kept without libcurl, the host's rpath searched)" "$want" "$got"
check_eq "under the preload: the deep-bound libcurl plugin was gated (the account's key)" sk-acct \
    "$(curl -s "$MOCK_URL/__requests" | lg_json 'j[-1]["key"]')"
lg_done
