/* Tests for pkg/kube/ratelimit and backoff, driven by a fake clock:
 * time is passed in, nothing sleeps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "kube/backoff.h"
#include "kube/ratelimit.h"
#include "util/alloc.h"

#define MS  INT64_C(1000000)
#define SEC INT64_C(1000000000)

/* Kueue's 20 QPS / burst 30: 30 requests go at once, then one every 50 ms
 * in order; after a pause the bucket refills but never beyond the burst. */
static void test_bucket_kueue_defaults(void **state)
{
    struct ts_ratelimit rl;
    int64_t t0 = 1000 * SEC;

    (void)state;
    ts_ratelimit_init(&rl, TS_RATELIMIT_KUEUE_QPS, TS_RATELIMIT_KUEUE_BURST, t0);
    for (int i = 0; i < 30; i++)
        assert_int_equal(ts_ratelimit_reserve(&rl, t0), 0);
    for (int i = 1; i <= 10; i++)
        assert_int_equal(ts_ratelimit_reserve(&rl, t0), i * 50 * MS);
    /* 1 s later: 20 tokens came back, 10 were already promised */
    assert_int_equal(ts_ratelimit_reserve(&rl, t0 + SEC), 0);
    for (int i = 0; i < 9; i++)
        assert_int_equal(ts_ratelimit_reserve(&rl, t0 + SEC), 0);
    assert_int_equal(ts_ratelimit_reserve(&rl, t0 + SEC), 50 * MS);
    /* an hour of silence refills only up to the burst */
    for (int i = 0; i < 30; i++)
        assert_int_equal(ts_ratelimit_reserve(&rl, t0 + 3600 * SEC), 0);
    assert_int_equal(ts_ratelimit_reserve(&rl, t0 + 3600 * SEC), 50 * MS);
}

static void test_bucket_throughput_over_time(void **state)
{
    struct ts_ratelimit rl;
    int64_t now = 0, last_start = 0;
    int n = 0;

    (void)state;
    /* 1000 requests submitted 1 ms apart at 100 QPS, burst 10: starts are
     * never closer than 10 ms after the burst, and the last one starts at
     * about (1000 - 10) / 100 s */
    ts_ratelimit_init(&rl, 100, 10, 0);
    for (int i = 0; i < 1000; i++, now += MS) {
        int64_t start = now + ts_ratelimit_reserve(&rl, now);

        if (i >= 20 && start - last_start < 10 * MS - 1)
            fail_msg("request %d starts %lld ns after the previous", i,
                     (long long)(start - last_start));
        if (start > last_start)
            last_start = start;
        n++;
    }
    assert_int_equal(n, 1000);
    assert_true(last_start >= 9899 * MS && last_start <= 9901 * MS);
}

static void test_bucket_try_cancel_unlimited(void **state)
{
    struct ts_ratelimit rl;

    (void)state;
    ts_ratelimit_init(&rl, 1, 2, 0);
    assert_true(ts_ratelimit_try(&rl, 0));
    assert_true(ts_ratelimit_try(&rl, 0));
    assert_false(ts_ratelimit_try(&rl, 0));
    assert_false(ts_ratelimit_try(&rl, 999 * MS));
    assert_true(ts_ratelimit_try(&rl, SEC));
    assert_int_equal(ts_ratelimit_reserve(&rl, SEC), SEC);
    ts_ratelimit_cancel(&rl); /* a cancelled request gives its token back */
    assert_int_equal(ts_ratelimit_reserve(&rl, SEC), SEC);
    ts_ratelimit_init(&rl, 0, 0, 0);
    for (int i = 0; i < 1000; i++)
        assert_int_equal(ts_ratelimit_reserve(&rl, 0), 0);
}

static void test_backoff(void **state)
{
    struct ts_backoff b, c;

    (void)state;
    /* no jitter: 100 ms doubling to the 1 s cap */
    ts_backoff_init(&b, 100 * MS, SEC, 2, 0, 42);
    assert_int_equal(ts_backoff_next(&b), 100 * MS);
    assert_int_equal(ts_backoff_next(&b), 200 * MS);
    assert_int_equal(ts_backoff_next(&b), 400 * MS);
    assert_int_equal(ts_backoff_next(&b), 800 * MS);
    assert_int_equal(ts_backoff_next(&b), SEC);
    assert_int_equal(ts_backoff_next(&b), SEC);
    ts_backoff_reset(&b);
    assert_int_equal(ts_backoff_next(&b), 100 * MS);
    /* jitter 0.5: within [d/2, d], reproducible for a seed, spread out */
    ts_backoff_init(&b, 800 * MS, 30 * SEC, 2, 0.5, 7);
    ts_backoff_init(&c, 800 * MS, 30 * SEC, 2, 0.5, 7);
    for (int i = 0; i < 10; i++) {
        int64_t d = 800 * MS << i, got = ts_backoff_next(&b);

        if (d > 30 * SEC)
            d = 30 * SEC;
        assert_true(got >= d / 2 && got <= d);
        assert_int_equal(got, ts_backoff_next(&c));
    }
}

/* ts_ratelimit_has() looks without taking: informing writes wait until
 * the bucket holds what the deciding writes may need (pkg/controller). */
static void test_bucket_has(void **state)
{
    static const struct {
        double qps;
        int burst;
        int taken;     /* reserved at t0 */
        int64_t later; /* asked at t0 + later */
        double n;
        int want;
    } cases[] = {
        {50, 100, 0, 0, 50, 1},         /* full bucket */
        {50, 100, 60, 0, 50, 0},        /* 40 left */
        {50, 100, 60, 200 * MS, 50, 1}, /* 10 came back */
        {50, 100, 110, 0, 1, 0},        /* promised beyond the bucket */
        {50, 100, 110, SEC, 1, 1},      /* ...until they refill */
        {-1, 0, 1000, 0, 1e9, 1},       /* unlimited */
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct ts_ratelimit rl;

        ts_ratelimit_init(&rl, cases[i].qps, cases[i].burst, 0);
        for (int t = 0; t < cases[i].taken; t++)
            ts_ratelimit_reserve(&rl, 0);
        if (ts_ratelimit_has(&rl, cases[i].later, cases[i].n) != cases[i].want)
            fail_msg("case %zu: has(%g) != %d", i, cases[i].n, cases[i].want);
        /* looking takes nothing */
        if (ts_ratelimit_has(&rl, cases[i].later, cases[i].n) != cases[i].want)
            fail_msg("case %zu: a second look differs", i);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bucket_kueue_defaults),
        cmocka_unit_test(test_bucket_throughput_over_time),
        cmocka_unit_test(test_bucket_try_cancel_unlimited),
        cmocka_unit_test(test_bucket_has),
        cmocka_unit_test(test_backoff),
    };

    ts_alloc_init();
    return cmocka_run_group_tests_name("kube_ratelimit", tests, NULL, NULL);
}
