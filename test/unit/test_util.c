/* Tests for pkg/util: errors, buffers, strict integer parsing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/hmap.h"
#include "util/parse.h"

static void test_err_set_returns_code_and_formats(void **state)
{
    struct ts_err e = {0};

    (void)state;
    assert_int_equal(ts_err_set(&e, TS_EINVAL, "spec.%s: bad '%d'", "x", 7), TS_EINVAL);
    assert_int_equal(e.code, TS_EINVAL);
    assert_string_equal(e.msg, "spec.x: bad '7'");
    assert_int_equal(ts_err_prefix(&e, "clusterqueue %s", "cq"), TS_EINVAL);
    assert_string_equal(e.msg, "clusterqueue cq: spec.x: bad '7'");
    assert_int_equal(ts_err_set(NULL, TS_EIO, "ignored"), TS_EIO);
    ts_err_clear(&e);
    assert_int_equal(e.code, 0);
    assert_string_equal(e.msg, "");
}

static void test_err_names_and_retryable(void **state)
{
    static const struct {
        int code;
        const char *name;
        int retry;
    } cases[] = {
        {TS_OK, "OK", 0},       {TS_EINVAL, "EINVAL", 0},     {TS_ECONFLICT, "ECONFLICT", 1},
        {TS_EGONE, "EGONE", 1}, {TS_ETOOMANY, "ETOOMANY", 1}, {TS_ENOTFOUND, "ENOTFOUND", 0},
        {TS_EIO, "EIO", 1},     {TS_EPARSE, "EPARSE", 0},     {-999, "UNKNOWN", 0},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        assert_string_equal(ts_err_name(cases[i].code), cases[i].name);
        assert_int_equal(ts_err_retryable(cases[i].code), cases[i].retry);
        assert_non_null(ts_strerror(cases[i].code));
    }
    assert_string_equal(ts_strerror(TS_ECONFLICT), "conflict");
    assert_string_equal(ts_strerror(-999), "unknown error");
}

static void test_err_message_truncates(void **state)
{
    struct ts_err e = {0};
    char big[600];

    (void)state;
    memset(big, 'a', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    ts_err_set(&e, TS_EINVAL, "%s", big);
    assert_int_equal(strlen(e.msg), TS_ERR_MSG_MAX - 1);
}

static void test_buf_grows_and_takes(void **state)
{
    struct ts_buf b;
    char *s;

    (void)state;
    ts_buf_init(&b, 0);
    assert_string_equal(b.ptr, "");
    for (int i = 0; i < 100; i++)
        assert_int_equal(ts_buf_addf(&b, "%d,", i % 10), 0);
    assert_int_equal(b.len, 200);
    assert_int_equal(b.ptr[b.len], '\0');
    assert_int_equal(ts_buf_adds(&b, "end"), 0);
    assert_memory_equal(b.ptr + 200, "end", 4);
    s = ts_buf_take(&b);
    assert_int_equal(strlen(s), 203);
    assert_int_equal(b.len, 0);
    assert_string_equal(b.ptr, "");
    free(s);
    s = ts_buf_take(&b); /* empty buffer still yields an owned "" */
    assert_string_equal(s, "");
    free(s);
    ts_buf_release(&b);
}

static void test_buf_cap_is_enforced(void **state)
{
    struct ts_buf b;

    (void)state;
    ts_buf_init(&b, 8);
    assert_int_equal(ts_buf_adds(&b, "12345678"), 0);
    assert_int_equal(ts_buf_addc(&b, '9'), TS_EOVERFLOW);
    assert_int_equal(ts_buf_addf(&b, "%s", "x"), TS_EOVERFLOW);
    assert_string_equal(b.ptr, "12345678");
    ts_buf_reset(&b);
    assert_int_equal(b.len, 0);
    assert_int_equal(ts_buf_adds(&b, "abc"), 0);
    ts_buf_release(&b);
}

static void test_str_views(void **state)
{
    struct ts_str v = ts_str_c("main");
    struct ts_str n = ts_str_c(NULL);

    (void)state;
    assert_true(ts_str_eq(v, "main"));
    assert_false(ts_str_eq(v, "mai"));
    assert_false(ts_str_eq(v, "mains"));
    assert_int_equal(n.len, 0);
    assert_true(ts_str_eq(n, ""));
}

static void test_parse_i64_table(void **state)
{
    static const struct {
        const char *in;
        int rc;
        int64_t want;
    } cases[] = {
        {"0", 0, 0},
        {"42", 0, 42},
        {"-42", 0, -42},
        {"+7", 0, 7},
        {"9223372036854775807", 0, INT64_MAX},
        {"-9223372036854775808", 0, INT64_MIN},
        {"9223372036854775808", TS_EOVERFLOW, 0},
        {"-9223372036854775809", TS_EOVERFLOW, 0},
        {"", TS_EINVAL, 0},
        {"-", TS_EINVAL, 0},
        {"12a", TS_EINVAL, 0},
        {" 1", TS_EINVAL, 0},
        {"1.0", TS_EINVAL, 0},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int64_t v = 0;
        int rc = ts_parse_i64_c(cases[i].in, &v);

        if (rc != cases[i].rc)
            fail_msg("case '%s': rc %d, want %d", cases[i].in, rc, cases[i].rc);
        if (rc == 0 && v != cases[i].want)
            fail_msg("case '%s': got %lld", cases[i].in, (long long)v);
    }
}

static void test_xgrow_doubles(void **state)
{
    int *arr = NULL;
    size_t cap = 0;

    (void)state;
    TS_GROW(arr, cap, 5);
    assert_true(cap >= 5);
    for (int i = 0; i < 5; i++)
        arr[i] = i;
    TS_GROW(arr, cap, 100);
    assert_true(cap >= 100);
    assert_int_equal(arr[4], 4);
    free(arr);
}

/* ts_hmap_release_free() frees each live value once and leaves an empty
 * map (make asan and make valgrind catch a leak or a double free). */
static void test_hmap_release_free(void **state)
{
    struct ts_hmap m = TS_HMAP_INIT;
    char key[32];

    (void)state;
    for (int i = 0; i < 100; i++) {
        snprintf(key, sizeof(key), "k%d", i);
        ts_hmap_put(&m, key, ts_xstrdup(key));
    }
    for (int i = 0; i < 100; i += 3) { /* tombstones hold no value */
        snprintf(key, sizeof(key), "k%d", i);
        free(ts_hmap_del(&m, key));
    }
    ts_hmap_release_free(&m);
    assert_int_equal(m.n, 0);
    assert_null(m.slots);
    assert_null(ts_hmap_get(&m, "k1"));
}

static void test_hmap_put_get_del_iterate(void **state)
{
    struct ts_hmap m = TS_HMAP_INIT;
    static int vals[2000];
    char key[32];
    size_t it = 0, seen = 0;
    const char *k;
    void *v;

    (void)state;
    assert_null(ts_hmap_get(&m, "absent"));
    for (int i = 0; i < 2000; i++) {
        vals[i] = i;
        snprintf(key, sizeof(key), "ns-%d/wl-%d", i % 7, i);
        assert_null(ts_hmap_put(&m, key, &vals[i]));
    }
    assert_int_equal(m.n, 2000);
    snprintf(key, sizeof(key), "ns-%d/wl-%d", 5 % 7, 5);
    assert_ptr_equal(ts_hmap_put(&m, key, &vals[6]), &vals[5]); /* replace returns old */
    assert_ptr_equal(ts_hmap_get(&m, key), &vals[6]);
    ts_hmap_put(&m, key, &vals[5]);
    /* delete every other key, reinsert a few: tombstones must not break lookups */
    for (int i = 0; i < 2000; i += 2) {
        snprintf(key, sizeof(key), "ns-%d/wl-%d", i % 7, i);
        assert_non_null(ts_hmap_del(&m, key));
        assert_null(ts_hmap_del(&m, key));
    }
    assert_int_equal(m.n, 1000);
    for (int i = 1; i < 2000; i += 2) {
        snprintf(key, sizeof(key), "ns-%d/wl-%d", i % 7, i);
        assert_ptr_equal(ts_hmap_get(&m, key), &vals[i]);
    }
    while (ts_hmap_next(&m, &it, &k, &v)) {
        assert_true(*(int *)v % 2 == 1);
        seen++;
    }
    assert_int_equal(seen, 1000);
    for (int round = 0; round < 50; round++) { /* churn: put/del the same keys */
        for (int i = 0; i < 100; i++) {
            snprintf(key, sizeof(key), "churn-%d", i);
            ts_hmap_put(&m, key, &vals[i]);
        }
        for (int i = 0; i < 100; i++) {
            snprintf(key, sizeof(key), "churn-%d", i);
            assert_ptr_equal(ts_hmap_del(&m, key), &vals[i]);
        }
    }
    assert_int_equal(m.n, 1000);
    assert_true(m.cap <= 4096);
    ts_hmap_release(&m);
}

/* The arena hands out aligned memory, reuses its block after a reset,
 * grows it to the last round's use after a spill, and knows its own. */
static void test_arena_rounds(void **state)
{
    struct ts_arena a = TS_ARENA_INIT;
    char *first[3], local;

    (void)state;
    for (int round = 0; round < 3; round++) {
        char *p[200];

        for (size_t i = 0; i < 200; i++) {
            p[i] = ts_arena_alloc(&a, 1 + i * 7); /* 140 KB in all */
            assert_int_equal((uintptr_t)p[i] % 16, 0);
            memset(p[i], (int)i, 1 + i * 7);
        }
        for (size_t i = 0; i < 200; i++) {
            assert_true(ts_arena_owns(&a, p[i]));
            assert_true(ts_arena_owns(&a, p[i] + i * 7));
            assert_int_equal((unsigned char)p[i][i * 7], i); /* no overlap */
        }
        first[round] = p[0];
        ts_arena_reset(&a);
    }
    /* round 0 had no block (all spilled); rounds 1 and 2 share one */
    assert_ptr_equal(first[1], first[2]);
    assert_ptr_equal(a.base, first[1]);
    assert_true(a.cap >= 140 * 1000 && !a.spill && !a.used);
    assert_false(ts_arena_owns(&a, &local));
    assert_non_null(ts_arena_alloc(&a, 0));
    ts_arena_release(&a);
    assert_null(a.base);
    assert_false(ts_arena_owns(&a, first[1]));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_err_set_returns_code_and_formats),
        cmocka_unit_test(test_err_names_and_retryable),
        cmocka_unit_test(test_err_message_truncates),
        cmocka_unit_test(test_buf_grows_and_takes),
        cmocka_unit_test(test_buf_cap_is_enforced),
        cmocka_unit_test(test_str_views),
        cmocka_unit_test(test_parse_i64_table),
        cmocka_unit_test(test_xgrow_doubles),
        cmocka_unit_test(test_hmap_release_free),
        cmocka_unit_test(test_hmap_put_get_del_iterate),
        cmocka_unit_test(test_arena_rounds),
    };

    ts_alloc_init();
    return cmocka_run_group_tests_name("util", tests, NULL, NULL);
}
