/* Unit tests for Java runtime options as the JVM reads them (src/util/java_opts.c): the last of an option
 * wins, values too long are skipped, and whether the trust store a JVM would use is the relay's (the one
 * `llmgate run` names, <relay CA>.java-<digest>), with _JAVA_OPTIONS read after JAVA_TOOL_OPTIONS. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "llmgate/java_opts.h"

#define RELAY_STORE "/home/u/.local/state/llmgate/relay-ca.pem.java-0a1b2c3d"

static void last_option_wins(void **state)
{
    (void)state;
    char v[64] = "unchanged";
    assert_false(lg_java_opt_last(NULL, LG_JAVA_OPT_STORE, v, sizeof v));
    assert_false(lg_java_opt_last("", LG_JAVA_OPT_STORE, v, sizeof v));
    assert_false(lg_java_opt_last("-Djavax.net.ssl.trustStore= -Dx=1", LG_JAVA_OPT_STORE, v, sizeof v));
    assert_string_equal(v, "unchanged");
    assert_true(lg_java_opt_last(" -Da=1\t-Djavax.net.ssl.trustStore=/a\n-Djavax.net.ssl.trustStore=/b -Dz=2",
                                 LG_JAVA_OPT_STORE, v, sizeof v));
    assert_string_equal(v, "/b");
    assert_true(lg_java_opt_last("-Djavax.net.ssl.trustStorePassword=pw", LG_JAVA_OPT_PASS, v, sizeof v));
    assert_string_equal(v, "pw");
    /* the password option is not read as the store option, nor the reverse */
    assert_false(lg_java_opt_last("-Djavax.net.ssl.trustStoreType=pkcs12", LG_JAVA_OPT_PASS, v, sizeof v));
    char small[4];
    assert_false(lg_java_opt_last("-Djavax.net.ssl.trustStore=/long", LG_JAVA_OPT_STORE, small, sizeof small));
}

static void relay_store_in_effect(void **state)
{
    (void)state;
    assert_false(lg_java_trusts_relay(NULL, NULL));
    assert_false(lg_java_trusts_relay("-Dllmgate.test=kept", NULL));
    assert_true(lg_java_trusts_relay("-Dk=v " LG_JAVA_OPT_STORE RELAY_STORE, NULL));
    /* the user's own store named after the relay's: the JVM uses the user's */
    assert_false(lg_java_trusts_relay(LG_JAVA_OPT_STORE RELAY_STORE " " LG_JAVA_OPT_STORE "/etc/my.p12", NULL));
    /* _JAVA_OPTIONS is read after JAVA_TOOL_OPTIONS: its store wins, either way */
    assert_false(lg_java_trusts_relay(LG_JAVA_OPT_STORE RELAY_STORE, LG_JAVA_OPT_STORE "/etc/my.p12"));
    assert_true(lg_java_trusts_relay(LG_JAVA_OPT_STORE "/etc/my.p12", LG_JAVA_OPT_STORE RELAY_STORE));
    assert_true(lg_java_trusts_relay(LG_JAVA_OPT_STORE RELAY_STORE, "-Dother=1"));
    /* the mark must be in the file's name, after the CA's */
    assert_false(lg_java_trusts_relay(LG_JAVA_OPT_STORE "/x/relay-ca.pem.java-1/store.p12", NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(last_option_wins),
        cmocka_unit_test(relay_store_in_effect),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
