/* The ALPN offer on a provider's connection (src/hook/tls/alpn.c): which program offers are reduced to
 * http/1.1, which are left alone (h2 alone passes through), malformed lists, and building a list. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "hook/tls/alpn.h"

/* The plan of a list given as a string literal in wire format (its length without the terminator). */
#define PLAN(lit) lg_alpn_plan_of((const unsigned char *)(lit), sizeof(lit) - 1)

static void test_reduced(void **state)
{
    assert_int_equal(PLAN("\x02h2\x08http/1.1"), LG_ALPN_H1); /* httpx http2=True, curl */
    assert_int_equal(PLAN("\x08http/1.1\x02h2"), LG_ALPN_H1); /* the order does not matter */
    assert_int_equal(PLAN("\x08http/1.1\x08http/1.0"), LG_ALPN_H1); /* anything beside http/1.1 */
    assert_int_equal(PLAN("\x02h3\x02h2\x08http/1.1"), LG_ALPN_H1);
    assert_int_equal(lg_alpn_h1[0], 8);
    assert_memory_equal(lg_alpn_h1 + 1, "http/1.1", 8);
}

static void test_left_alone(void **state)
{
    assert_int_equal(lg_alpn_plan_of(NULL, 0), LG_ALPN_AS_IS);          /* no offer */
    assert_int_equal(PLAN("\x08http/1.1"), LG_ALPN_AS_IS);              /* already http/1.1 alone */
    assert_int_equal(PLAN("\x08http/1.0"), LG_ALPN_AS_IS);              /* neither */
    assert_int_equal(PLAN("\x02h2"), LG_ALPN_H2_ONLY);                  /* HTTP/2 only: passes through */
    assert_int_equal(PLAN("\x02h2\x06spdy/3"), LG_ALPN_H2_ONLY);
    assert_int_equal(PLAN("\x03h2c\x07http/1x"), LG_ALPN_AS_IS);        /* near names are other names */
    assert_int_equal(PLAN("\x02h2\x08http/1.2"), LG_ALPN_H2_ONLY);
}

static void test_malformed(void **state)
{
    assert_int_equal(PLAN("\x02h2\x09http/1.1"), LG_ALPN_AS_IS);  /* a name past the end */
    assert_int_equal(PLAN("\x02h2\x00\x08http/1.1"), LG_ALPN_AS_IS); /* an empty name */
    assert_int_equal(PLAN("\x08http/1.1\x02h"), LG_ALPN_AS_IS);
    unsigned char *exact = malloc(3); /* read to its end exactly, no further (ASan) */
    memcpy(exact, "\x02h2", 3);
    assert_int_equal(lg_alpn_plan_of(exact, 3), LG_ALPN_H2_ONLY);
    assert_int_equal(lg_alpn_plan_of(exact, 2), LG_ALPN_AS_IS);
    free(exact);
}

static void test_wire_add(void **state)
{
    unsigned char buf[12];
    size_t len = 0;
    assert_true(lg_alpn_wire_add(buf, sizeof buf, &len, "h2", 2));
    assert_true(lg_alpn_wire_add(buf, sizeof buf, &len, "http/1.1", 8));
    assert_int_equal(len, 12);
    assert_memory_equal(buf, "\x02h2\x08http/1.1", 12);
    assert_int_equal(lg_alpn_plan_of(buf, len), LG_ALPN_H1);
    assert_false(lg_alpn_wire_add(buf, sizeof buf, &len, "x", 1)); /* full */
    assert_int_equal(len, 12);
    len = 0;
    assert_false(lg_alpn_wire_add(buf, sizeof buf, &len, "", 0)); /* empty name */
    char big[256];
    memset(big, 'a', sizeof big);
    unsigned char wide[600];
    assert_false(lg_alpn_wire_add(wide, sizeof wide, &len, big, 256)); /* over one length byte */
    assert_true(lg_alpn_wire_add(wide, sizeof wide, &len, big, 255));
    assert_int_equal(len, 256);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reduced),
        cmocka_unit_test(test_left_alone),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_wire_add),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
