/* Where the socket/TLS front end sends an attempt for another provider (src/front/h1_target.c): the
 * provider's upstream (scheme, host, port, path prefix) or its first host over https:443, the Host header
 * it gets, and the request-target with the upstream's path prefix. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "front/h1_target.h"

static void check_target(const char *upstream, const char *host0, const char *host, const char *port, bool tls,
                         const char *authority, bool ip)
{
    char *hosts[] = {(char *)host0};
    lg_provider p = {.upstream = (char *)upstream, .hosts = host0 ? hosts : NULL, .n_hosts = host0 ? 1 : 0};
    lg_h1_target t;
    assert_true(lg_h1_target_of(&p, &t));
    assert_string_equal(t.host, host);
    assert_string_equal(t.port, port);
    assert_int_equal(t.tls, tls);
    assert_string_equal(t.authority, authority);
    assert_int_equal(t.ip, ip);
}

static void test_targets(void **state)
{
    /* the upstream wins; the scheme's port is left out of Host, any other is named */
    check_target("https://localhost:8443/bk", "api.openai.com", "localhost", "8443", true, "localhost:8443", false);
    check_target("http://127.0.0.1:80/", NULL, "127.0.0.1", "80", false, "127.0.0.1", true);
    check_target("HTTPS://Proxy.example", NULL, "Proxy.example", "443", true, "Proxy.example", false);
    check_target("http://[::1]:9000", NULL, "::1", "9000", false, "[::1]:9000", true);
    /* no upstream: the first host, over https:443 */
    check_target(NULL, "api.anthropic.com", "api.anthropic.com", "443", true, "api.anthropic.com", false);
    lg_provider none = {0};
    lg_h1_target t;
    assert_false(lg_h1_target_of(&none, &t));
}

static void test_paths(void **state)
{
    lg_provider p = {.upstream = "https://localhost:8443/bk/"};
    char *s = lg_h1_target_path(&p, "/v1/chat/completions?key=k");
    assert_string_equal(s, "/bk/v1/chat/completions?key=k");
    free(s);
    p.upstream = "http://127.0.0.1:9000";
    s = lg_h1_target_path(&p, "/v1/messages");
    assert_string_equal(s, "/v1/messages");
    free(s);
    char *hosts[] = {"api.openai.com"};
    lg_provider q = {.hosts = hosts, .n_hosts = 1};
    s = lg_h1_target_path(&q, "/v1/x");
    assert_string_equal(s, "/v1/x");
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_targets),
        cmocka_unit_test(test_paths),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
