/* Who is at the other end of a loopback connection (src/relay/peer.c), as a loopback gateway without
 * tokens checks it: a row of the kernel's TCP table is read only when both of its addresses match (as the
 * table prints them, any case), its uid column taken; a real loopback connection's peer is this user. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "relay/relay.h"

static const char *const rows[] = {
    "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n",
    "   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 12345 1 0 100 0 0 10 0\n",
    "   1: 0100007F:A1B2 0100007F:1F90 01 00000000:00000000 00:00000000 00000000 65534        0 22222 1 0 20 4 30 10 -1\n",
    "   2: 0000000000000000FFFF00000100007F:A1B2 0000000000000000FFFF00000100007F:1F90 01 00000000:00000000 "
    "02:000000A0 00000000  1000        0 33333 2 0 20 4 30 10 -1\n",
};

static void rows_match_both_addresses(void **state)
{
    (void)state;
    assert_int_equal(lg_relay_tcp_line_uid(rows[2], "0100007F:A1B2", "0100007F:1F90"), 65534);
    assert_int_equal(lg_relay_tcp_line_uid(rows[2], "0100007f:a1b2", "0100007f:1f90"), 65534);
    assert_int_equal(lg_relay_tcp_line_uid(rows[2], "0100007F:1F90", "0100007F:A1B2"), -1); /* the other end */
    assert_int_equal(lg_relay_tcp_line_uid(rows[2], "0100007F:A1B2", "0100007F:1F91"), -1);
    assert_int_equal(lg_relay_tcp_line_uid(rows[3], "0000000000000000FFFF00000100007F:A1B2",
                                           "0000000000000000FFFF00000100007F:1F90"), 1000);
    assert_int_equal(lg_relay_tcp_line_uid(rows[1], "0100007F:1F90", "00000000:0000"), 0);
    assert_int_equal(lg_relay_tcp_line_uid(rows[0], "local_address", "rem_address"), -1); /* the heading */
    assert_int_equal(lg_relay_tcp_line_uid("   3: 0100007F:A1B2 0100007F:1F90", "0100007F:A1B2", "0100007F:1F90"), -1);
}

static void a_loopback_peer_is_this_user(void **state)
{
    (void)state;
    int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    assert_int_equal(bind(l, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(l, 1), 0);
    assert_int_equal(getsockname(l, (struct sockaddr *)&a, &len), 0);
    assert_int_equal(connect(c, (struct sockaddr *)&a, sizeof a), 0);
    int s = accept(l, NULL, NULL);
    assert_true(s >= 0);
    assert_int_equal(lg_relay_peer_uid(s), (long)geteuid());
    assert_int_equal(lg_relay_peer_uid(l), -1); /* a listener has no peer */
    close(s), close(c), close(l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rows_match_both_addresses),
        cmocka_unit_test(a_loopback_peer_is_this_user),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
