/* Unit tests of the notice line: at most one per request (its flag), debounced per key in the process. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "llmgate/log.h"

/* Runs the notices of `calls` with stderr captured; returns what was written. */
static char *capture(void (*calls)(void))
{
    char path[] = "/tmp/lg-test-log.XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    int saved = dup(STDERR_FILENO);
    dup2(fd, STDERR_FILENO);
    calls();
    dup2(saved, STDERR_FILENO);
    close(saved);
    static char buf[4096];
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    buf[n > 0 ? n : 0] = '\0';
    close(fd);
    unlink(path);
    return buf;
}

static void one_request_waits_three_times(void)
{
    bool once = false;
    lg_notice(&once, "prov-a", 0, "wait %d", 1);
    lg_notice(&once, "prov-a", 0, "wait %d", 2);
    lg_notice(&once, "prov-a", 0, "wait %d", 3);
}

static void once_per_request(void **state)
{
    (void)state;
    lg_log_init(NULL);
    assert_string_equal(capture(one_request_waits_three_times), "llmgate: wait 1\n");
    /* Another request (its own flag) may notice again when the key's interval allows it. */
    assert_string_equal(capture(one_request_waits_three_times), "llmgate: wait 1\n");
}

static bool flags[3];

static void three_requests_one_key(void)
{
    lg_notice(&flags[0], "prov-b", 3600000, "first");
    lg_notice(&flags[1], "prov-b", 3600000, "second");
    lg_notice(&flags[2], "prov-c", 3600000, "other key");
}

static void debounced_per_key(void **state)
{
    (void)state;
    lg_log_init(NULL);
    assert_string_equal(capture(three_requests_one_key), "llmgate: first\nllmgate: other key\n");
    assert_true(flags[0]);
    assert_false(flags[1]); /* not printed: the request may still notice later */
    assert_true(flags[2]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(once_per_request),
        cmocka_unit_test(debounced_per_key),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
