/* Pins the shm store file's layout: offsets, sizes and version (as libfaketime's shm_layout_test.c does).
 * A change here must come with a new LG_STORE_VERSION: processes of the old and the new build then rebuild
 * the file rather than read each other's bytes. Values for x86_64 / glibc. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "store/layout.h"

static void header_is_pinned(void **state)
{
    assert_int_equal(LG_STORE_MAGIC, UINT64_C(0x31455441474d4c4c));
    assert_int_equal(LG_STORE_VERSION, 12);
    assert_int_equal(offsetof(lg_store_layout, magic), 0);
    assert_int_equal(offsetof(lg_store_layout, version), 8);
    assert_int_equal(offsetof(lg_store_layout, retired), 12);
    assert_int_equal(offsetof(lg_store_layout, size), 16);
    assert_int_equal(offsetof(lg_store_layout, created_ms), 24);
    assert_int_equal(offsetof(lg_store_layout, stalled_ms), 32);
    assert_int_equal(offsetof(lg_store_layout, lock), 40);
    assert_int_equal(offsetof(lg_store_layout, providers), 80);
    assert_int_equal(offsetof(lg_store_layout, accounts), 35408);
    assert_int_equal(offsetof(lg_store_layout, holds), 3455568);
    assert_int_equal(sizeof(lg_store_layout), 3465816);
    assert_int_equal(LG_STORE_PROVIDERS, 64);
    assert_int_equal(LG_STORE_ACCOUNTS, 256);
}

static void entries_are_pinned(void **state)
{
    assert_int_equal(sizeof(lg_store_provider_entry), 552);
    assert_int_equal(offsetof(lg_store_provider_entry, name), 4);
    assert_int_equal(offsetof(lg_store_provider_entry, slot), 72);
    assert_int_equal(sizeof(lg_store_account_entry), 13360);
    assert_int_equal(offsetof(lg_store_account_entry, provider), 4);
    assert_int_equal(offsetof(lg_store_account_entry, name), 68);
    assert_int_equal(offsetof(lg_store_account_entry, digest), 132);
    assert_int_equal(offsetof(lg_store_account_entry, slot), 152);
    assert_int_equal(LG_STORE_HOLDS, 256);
    assert_int_equal(sizeof(lg_store_hold), 40);
    assert_int_equal(offsetof(lg_store_hold, pid), 0);
    assert_int_equal(offsetof(lg_store_hold, entry), 4);
    assert_int_equal(offsetof(lg_store_hold, start), 8);
    assert_int_equal(offsetof(lg_store_hold, bucket), 16);
    assert_int_equal(offsetof(lg_store_hold, tokens), 24);
    assert_int_equal(offsetof(lg_store_hold, checked_ms), 32);
    assert_int_equal(sizeof(lg_store_holds), 10248);
    assert_int_equal(offsetof(lg_store_holds, rec), 8);
}

static void slots_are_pinned(void **state)
{
    assert_int_equal(sizeof(lg_account_state), 40);
    assert_int_equal(offsetof(lg_account_state, cooldown_until_ms), 0);
    assert_int_equal(offsetof(lg_account_state, reason), 8);
    assert_int_equal(offsetof(lg_account_state, failures), 12);
    assert_int_equal(offsetof(lg_account_state, last_event_ms), 16);
    assert_int_equal(offsetof(lg_account_state, probe_until_ms), 24);
    assert_int_equal(offsetof(lg_account_state, aside), 32);
    assert_int_equal(sizeof(lg_account_counters), 56);
    assert_int_equal(sizeof(lg_account_slot), 13208);
    assert_int_equal(offsetof(lg_account_slot, lease), 12712);
    assert_int_equal(sizeof(lg_lease), 496);
    assert_int_equal(offsetof(lg_lease, takers), 368);
    assert_int_equal(sizeof(lg_store_owner), 16);
    assert_int_equal(offsetof(lg_store_owner, start), 8);
    assert_int_equal(LG_LEASE_TAKERS, 8);
    assert_int_equal(offsetof(lg_lease, skew_err_ms), 32);
    assert_int_equal(LG_LEASE_BUCKETS, 16);
    assert_int_equal(offsetof(lg_account_slot, counters), 40);
    assert_int_equal(offsetof(lg_account_slot, window), 96);
    assert_int_equal(sizeof(lg_bucket), 24);
    assert_int_equal(LG_WINDOW_RING, 512);
    assert_int_equal(LG_WINDOW_BUCKETS, 64);
    assert_int_equal(sizeof(lg_window), 12616);
    assert_int_equal(offsetof(lg_window, ring), 8);
    assert_int_equal(offsetof(lg_window, cap_left), 12296);
    assert_int_equal(offsetof(lg_window, cap_until_ms), 12312);
    assert_int_equal(offsetof(lg_window, learned_limit), 12328);
    assert_int_equal(offsetof(lg_window, limit), 12344);
    assert_int_equal(offsetof(lg_window, window_ms), 12360);
    assert_int_equal(LG_CALIB_MODELS, 8);
    assert_int_equal(sizeof(lg_calibration), 16);
    assert_int_equal(offsetof(lg_window, calib), 12368);
    assert_int_equal(offsetof(lg_window, seen_remaining), 12496);
    assert_int_equal(offsetof(lg_window, seen_until_ms), 12512);
    assert_int_equal(offsetof(lg_window, run_end), 12520);
    assert_int_equal(offsetof(lg_window, run_sum), 12528);
    assert_int_equal(offsetof(lg_window, top), 12544);
    assert_int_equal(offsetof(lg_window, at_start), 12552);
    assert_int_equal(sizeof(lg_provider_slot), 480);
    assert_int_equal(offsetof(lg_provider_slot, current), 0);
    assert_int_equal(offsetof(lg_provider_slot, notice_ms), 8);
    assert_int_equal(offsetof(lg_provider_slot, budget), 16);
    assert_int_equal(offsetof(lg_provider_slot, breaker), 176);
    assert_int_equal(offsetof(lg_provider_slot, fell_back), 368);
    assert_int_equal(offsetof(lg_provider_slot, ungated), 376);
    assert_int_equal(offsetof(lg_provider_slot, ungated_notice_ms), 384);
    assert_int_equal(LG_UNGATED_ROOM, 12);
    assert_int_equal(sizeof(lg_budget), 160);
    assert_int_equal(LG_BUDGET_BUCKETS, 10);
    assert_int_equal(sizeof(lg_breaker), 192);
    assert_int_equal(LG_BREAKER_BUCKETS, 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(header_is_pinned),
        cmocka_unit_test(entries_are_pinned),
        cmocka_unit_test(slots_are_pinned),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
