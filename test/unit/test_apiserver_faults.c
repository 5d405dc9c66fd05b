/* Table tests for turnstile-apiserver --faults decisions (faults.h):
 * spec parsing (errors name the bad key), reproducible sequences from a
 * seed, fractions that hold, write failures only on writes, 410 only on
 * resumes, watch drops, pause windows and the counters' JSON. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "apiserver/faults.h"
#include "util/alloc.h"
#include "util/time.h"

#define MS (TS_TIME_SECOND / 1000)

static void test_parse(void **state)
{
    static const struct {
        const char *spec;
        const char *err; /* substring of the error, or NULL for success */
    } cases[] = {
        {"", NULL},
        {"seed=7,write-409=0.02,write-429=0.5,latency=0-20ms,pause=30s@60s", NULL},
        {"gone=1,cut=0,watch-drop=0.01,watch-drop-after=50,retry-after=2", NULL},
        {"latency=5ms", NULL},
        {"pause=1s@2s+10s", NULL},
        {"write-cut=0.5,watch-lag=2s", NULL},
        {"watch-lag=fast", "for key 'watch-lag'"},
        {"write-cut=2", "for key 'write-cut'"},
        {"seed=7,,write-500=1", NULL},
        {"bogus=1", "unknown key 'bogus'"},
        {"seed=7,write-410=0.1", "unknown key 'write-410'"},
        {"write-409=1.5", "for key 'write-409'"},
        {"write-503=-0.1", "for key 'write-503'"},
        {"cut=abc", "for key 'cut'"},
        {"seed=x", "for key 'seed'"},
        {"latency=20ms-5ms", "for key 'latency'"},
        {"latency=fast", "for key 'latency'"},
        {"watch-drop-after=0", "for key 'watch-drop-after'"},
        {"pause=30s", "for key 'pause'"},
        {"pause=10s@5s+5s", "for key 'pause'"},
        {"retry-after=-1", "for key 'retry-after'"},
        {"write-409", "'write-409': want KEY=VALUE"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct ts_faults_spec s;
        struct ts_err err = {0};
        int rc = ts_faults_parse(cases[i].spec, &s, &err);

        if (!cases[i].err) {
            if (rc)
                fail_msg("'%s': unexpected error %s", cases[i].spec, err.msg);
            continue;
        }
        assert_int_equal(rc, TS_EINVAL);
        if (!strstr(err.msg, cases[i].err))
            fail_msg("'%s': error '%s' lacks '%s'", cases[i].spec, err.msg, cases[i].err);
    }
}

static void test_parse_values(void **state)
{
    struct ts_faults_spec s;
    struct ts_err err = {0};

    (void)state;
    assert_int_equal(ts_faults_parse("", &s, &err), 0);
    assert_int_equal(s.seed, 1); /* defaults */
    assert_int_equal(s.retry_after, 1);
    assert_int_equal(s.watch_lag, 0);
    assert_int_equal(ts_faults_parse("seed=7,latency=0-20ms,pause=30s@60s+2m,watch-drop-after=50,"
                                     "write-429=0.25,retry-after=3,watch-lag=1500ms",
                                     &s, &err),
                     0);
    assert_int_equal(s.seed, 7);
    assert_int_equal(s.lat_min, 0);
    assert_int_equal(s.lat_max, 20 * MS);
    assert_int_equal(s.pause_len, 30 * TS_TIME_SECOND);
    assert_int_equal(s.pause_at, 60 * TS_TIME_SECOND);
    assert_int_equal(s.pause_every, 120 * TS_TIME_SECOND);
    assert_int_equal(s.watch_drop_after, 50);
    assert_int_equal(s.retry_after, 3);
    assert_int_equal(s.watch_lag, 1500 * MS);
    assert_true(s.p[TS_FAULT_WRITE_429] == 0.25);
}

/* Runs n decisions over a fixed mix of request classes and writes the
 * sequence of outcomes into out. */
static void run(const char *spec, size_t n, int *out, struct ts_faults *f)
{
    struct ts_faults_spec s;
    struct ts_err err = {0};

    assert_int_equal(ts_faults_parse(spec, &s, &err), 0);
    ts_faults_init(f, &s);
    for (size_t i = 0; i < n; i++) {
        struct ts_fault_decision d;

        ts_faults_decide(f, (enum ts_fault_req)(i % 4), &d);
        out[i] = d.fail * 1000 + d.cut * 100 + (int)(d.latency / MS);
        assert_true(d.latency >= s.lat_min && d.latency <= s.lat_max);
    }
}

static void test_same_seed_same_sequence(void **state)
{
    enum { N = 2000 };
    static int a[N], b[N], c[N];
    struct ts_faults fa, fb, fc;
    const char *base = "write-409=0.1,write-429=0.1,write-500=0.1,write-503=0.1,gone=0.3,cut=0.2,"
                       "latency=0-20ms";
    char s7[256], s8[256];

    (void)state;
    snprintf(s7, sizeof(s7), "seed=7,%s", base);
    snprintf(s8, sizeof(s8), "seed=8,%s", base);
    run(s7, N, a, &fa);
    run(s7, N, b, &fb);
    run(s8, N, c, &fc);
    assert_memory_equal(a, b, sizeof(a));
    assert_memory_equal(fa.count, fb.count, sizeof(fa.count));
    assert_true(memcmp(a, c, sizeof(a)) != 0);
}

static void test_fractions_and_classes(void **state)
{
    enum { N = 40000 };
    static const struct {
        const char *spec;
        enum ts_fault_req req;
        int kind;      /* the kind expected to be counted */
        double lo, hi; /* its observed fraction */
    } cases[] = {
        {"seed=3,write-409=0.1", TS_FAULT_REQ_WRITE, TS_FAULT_WRITE_409, 0.09, 0.11},
        {"seed=3,write-409=0.1", TS_FAULT_REQ_READ, TS_FAULT_WRITE_409, 0, 0},
        {"seed=3,write-429=0.3,write-503=0.3", TS_FAULT_REQ_WRITE, TS_FAULT_WRITE_503, 0.28, 0.32},
        {"seed=3,write-500=1", TS_FAULT_REQ_WRITE, TS_FAULT_WRITE_500, 1, 1},
        {"seed=3,write-500=1", TS_FAULT_REQ_WATCH, TS_FAULT_WRITE_500, 0, 0},
        {"seed=3,gone=0.2", TS_FAULT_REQ_RESUME, TS_FAULT_GONE, 0.18, 0.22},
        {"seed=3,gone=1", TS_FAULT_REQ_WATCH, TS_FAULT_GONE, 0, 0},
        {"seed=3,gone=1", TS_FAULT_REQ_READ, TS_FAULT_GONE, 0, 0},
        {"seed=3,cut=0.05", TS_FAULT_REQ_READ, TS_FAULT_CUT, 0.04, 0.06},
        {"seed=3,cut=1", TS_FAULT_REQ_WATCH, TS_FAULT_CUT, 0, 0},
        /* a failed write is never also cut */
        {"seed=3,write-409=1,cut=1", TS_FAULT_REQ_WRITE, TS_FAULT_CUT, 0, 0},
        {"seed=3,latency=1ms-2ms", TS_FAULT_REQ_READ, TS_FAULT_LATENCY, 1, 1},
        {"seed=3,write-cut=0.3", TS_FAULT_REQ_WRITE, TS_FAULT_WRITE_CUT, 0.28, 0.32},
        {"seed=3,write-cut=1", TS_FAULT_REQ_READ, TS_FAULT_WRITE_CUT, 0, 0},
        {"seed=3,write-cut=1", TS_FAULT_REQ_RESUME, TS_FAULT_WRITE_CUT, 0, 0},
        {"seed=3,write-409=1,write-cut=1", TS_FAULT_REQ_WRITE, TS_FAULT_WRITE_CUT, 0, 0},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct ts_faults_spec s;
        struct ts_faults f;
        struct ts_err err = {0};
        double frac;

        assert_int_equal(ts_faults_parse(cases[i].spec, &s, &err), 0);
        ts_faults_init(&f, &s);
        for (int k = 0; k < N; k++) {
            struct ts_fault_decision d;

            ts_faults_decide(&f, cases[i].req, &d);
            if (d.fail)
                assert_int_equal(d.cut, 0);
            if (d.fail == TS_FAULT_GONE)
                assert_int_equal(cases[i].req, TS_FAULT_REQ_RESUME);
            if (d.fail && d.fail != TS_FAULT_GONE)
                assert_int_equal(cases[i].req, TS_FAULT_REQ_WRITE);
        }
        frac = (double)f.count[cases[i].kind] / N;
        if (frac < cases[i].lo || frac > cases[i].hi)
            fail_msg("case %zu '%s': %s fraction %.4f not in [%.2f, %.2f]", i, cases[i].spec,
                     ts_faults_name(cases[i].kind), frac, cases[i].lo, cases[i].hi);
    }
}

static void test_watch_drop(void **state)
{
    struct ts_faults_spec s;
    struct ts_faults f;
    struct ts_err err = {0};
    int drops = 0;

    (void)state;
    assert_int_equal(ts_faults_parse("watch-drop-after=3", &s, &err), 0);
    ts_faults_init(&f, &s);
    assert_false(ts_faults_watch_drop(&f, 1));
    assert_false(ts_faults_watch_drop(&f, 2));
    assert_true(ts_faults_watch_drop(&f, 3));
    assert_int_equal(f.count[TS_FAULT_WATCH_DROP], 1);
    assert_int_equal(ts_faults_parse("seed=9,watch-drop=0.1", &s, &err), 0);
    ts_faults_init(&f, &s);
    for (uint64_t i = 1; i <= 10000; i++)
        drops += ts_faults_watch_drop(&f, i);
    assert_true(drops > 900 && drops < 1100);
    assert_int_equal(f.count[TS_FAULT_WATCH_DROP], (uint64_t)drops);
}

static void test_pause_windows(void **state)
{
    static const struct {
        const char *spec;
        int64_t at_ms, want_ms;
    } cases[] = {
        {"pause=2s@5s", 0, 0},
        {"pause=2s@5s", 4999, 0},
        {"pause=2s@5s", 5000, 2000},
        {"pause=2s@5s", 6500, 500},
        {"pause=2s@5s", 7000, 0},
        {"pause=2s@5s", 17000, 0},
        {"pause=2s@5s+10s", 15500, 1500},
        {"pause=2s@5s+10s", 18000, 0},
        {"seed=1", 5000, 0},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct ts_faults_spec s;
        struct ts_err err = {0};

        assert_int_equal(ts_faults_parse(cases[i].spec, &s, &err), 0);
        if (ts_faults_pause_left(&s, cases[i].at_ms * MS) != cases[i].want_ms * MS)
            fail_msg("case %zu '%s' at %lld ms: want %lld ms", i, cases[i].spec,
                     (long long)cases[i].at_ms, (long long)cases[i].want_ms);
    }
}

static void test_json(void **state)
{
    struct ts_faults_spec s;
    struct ts_faults f;
    struct ts_err err = {0};
    struct ts_buf b = TS_BUF_INIT;
    struct ts_fault_decision d;

    (void)state;
    assert_int_equal(ts_faults_parse("seed=5,write-503=1", &s, &err), 0);
    ts_faults_init(&f, &s);
    ts_faults_decide(&f, TS_FAULT_REQ_WRITE, &d);
    assert_int_equal(d.fail, TS_FAULT_WRITE_503);
    ts_faults_count_pause(&f);
    ts_faults_json(&f, &b);
    assert_string_equal(b.ptr, "{\"seed\":5,\"injected\":{\"write-409\":0,\"write-429\":0,"
                               "\"write-500\":0,\"write-503\":1,\"latency\":0,\"gone\":0,"
                               "\"cut\":0,\"watch-drop\":0,\"pause\":1,\"write-cut\":0,"
                               "\"watch-lag\":0},\"total\":2}");
    ts_buf_release(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_parse_values),
        cmocka_unit_test(test_same_seed_same_sequence),
        cmocka_unit_test(test_fractions_and_classes),
        cmocka_unit_test(test_watch_drop),
        cmocka_unit_test(test_pause_windows),
        cmocka_unit_test(test_json),
    };

    ts_alloc_init();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
