/* Unit tests for the small-file reader (include/llmgate/small_file.h): whole files, the cap and the
 * prefix mode, what is not a regular file, a missing file, and a FIFO (read without blocking: refused). */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "llmgate/small_file.h"

/* A scratch directory per test. */
static int make_dir(void **state)
{
    char *dir = strdup("/tmp/lgt-small-file.XXXXXX");
    if (!dir || !mkdtemp(dir))
        return -1;
    *state = dir;
    return 0;
}

static int remove_dir(void **state)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", (char *)*state);
    int rc = system(cmd);
    free(*state);
    return rc == 0 ? 0 : -1;
}

/* dir/name holding len bytes of text; its path into path. */
static void write_file(const char *dir, const char *name, const char *text, size_t len, char *path, size_t size)
{
    snprintf(path, size, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

static void test_whole_file(void **state)
{
    char path[512], problem[128];
    write_file(*state, "a", "hello\nworld", 11, path, sizeof path);
    lg_small_file f;
    errno = 1234;
    assert_true(lg_small_file_read(path, 0, 64, 0, &f));
    assert_int_equal(errno, 1234);
    assert_int_equal(f.len, 11);
    assert_string_equal(f.data, "hello\nworld");
    assert_true(S_ISREG(f.st.st_mode));
    assert_string_equal(lg_small_file_problem(&f, problem, sizeof problem), "");
    lg_small_file_free(&f);
    assert_null(f.data);
    lg_small_file_free(&f); /* twice is harmless */
}

static void test_empty_file(void **state)
{
    char path[512];
    write_file(*state, "empty", "", 0, path, sizeof path);
    lg_small_file f;
    assert_true(lg_small_file_read(path, 0, 64, 0, &f));
    assert_int_equal(f.len, 0);
    assert_string_equal(f.data, "");
    lg_small_file_free(&f);
}

static void test_cap(void **state)
{
    char path[512], problem[128];
    write_file(*state, "big", "0123456789", 10, path, sizeof path);
    lg_small_file f;
    assert_true(lg_small_file_read(path, 0, 10, 0, &f)); /* exactly the cap */
    assert_int_equal(f.len, 10);
    lg_small_file_free(&f);
    assert_false(lg_small_file_read(path, 0, 9, 0, &f));
    assert_int_equal(f.status, LG_SMALL_FILE_TOO_LARGE);
    assert_null(f.data);
    assert_string_equal(lg_small_file_problem(&f, problem, sizeof problem), "larger than 9 bytes");
    assert_true(lg_small_file_read(path, 0, 4, LG_SMALL_FILE_PREFIX, &f));
    assert_int_equal(f.len, 4);
    assert_string_equal(f.data, "0123");
    lg_small_file_free(&f);
}

/* A file larger than the first buffer (fstat's size) is read whole through the growing buffer: /proc
 * files have size 0 and text. */
static void test_size_zero_with_text(void **state)
{
    lg_small_file f;
    assert_true(lg_small_file_read("/proc/self/status", 0, 1 << 20, 0, &f));
    assert_true(f.len > 1);
    assert_int_equal(strlen(f.data), f.len);
    assert_non_null(strstr(f.data, "Name:"));
    lg_small_file_free(&f);
    assert_false(lg_small_file_read("/proc/self/status", 0, 8, 0, &f));
    assert_int_equal(f.status, LG_SMALL_FILE_TOO_LARGE);
}

static void test_missing_and_not_regular(void **state)
{
    char path[512], problem[128];
    lg_small_file f;
    snprintf(path, sizeof path, "%s/missing", (char *)*state);
    assert_false(lg_small_file_read(path, 0, 64, 0, &f));
    assert_int_equal(f.status, LG_SMALL_FILE_CANNOT_OPEN);
    assert_int_equal(f.error, ENOENT);
    assert_string_equal(lg_small_file_problem(&f, problem, sizeof problem), "cannot open: No such file or directory");
    assert_false(lg_small_file_read(*state, 0, 64, 0, &f));
    assert_int_equal(f.status, LG_SMALL_FILE_NOT_REGULAR);
    assert_string_equal(lg_small_file_problem(&f, problem, sizeof problem), "not a regular file");
    snprintf(path, sizeof path, "%s/fifo", (char *)*state);
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_false(lg_small_file_read(path, 0, 64, 0, &f)); /* would block without O_NONBLOCK */
    assert_int_equal(f.status, LG_SMALL_FILE_NOT_REGULAR);
}

static void test_no_follow(void **state)
{
    char path[512], link[512];
    write_file(*state, "target", "x", 1, path, sizeof path);
    snprintf(link, sizeof link, "%s/link", (char *)*state);
    assert_int_equal(symlink(path, link), 0);
    lg_small_file f;
    assert_true(lg_small_file_read(link, 0, 64, 0, &f));
    lg_small_file_free(&f);
    assert_false(lg_small_file_read(link, O_NOFOLLOW, 64, 0, &f));
    assert_int_equal(f.status, LG_SMALL_FILE_CANNOT_OPEN);
    assert_int_equal(f.error, ELOOP);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_whole_file, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_empty_file, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_cap, make_dir, remove_dir),
        cmocka_unit_test(test_size_zero_with_text),
        cmocka_unit_test_setup_teardown(test_missing_and_not_regular, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_no_follow, make_dir, remove_dir),
    };
    return cmocka_run_group_tests_name("small_file", tests, NULL, NULL);
}
