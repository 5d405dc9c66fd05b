/* Tests for pkg/metrics/registry and expfmt: the text exposition format
 * byte for byte (as client_golang writes it), float formatting, escaping,
 * ordering, deletion and histogram bucket math. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/expfmt.h"
#include "metrics/registry.h"
#include "util/alloc.h"

#define V(...) ((const char *const[]){__VA_ARGS__})

static struct ts_metrics_family *add(struct ts_metrics_registry *reg, enum ts_metrics_kind kind,
                                     const char *name, const char *help, const char *const *labels,
                                     size_t n, const double *b, size_t nb)
{
    struct ts_metrics_desc d = {kind, name, help, labels, n, b, nb};
    struct ts_metrics_family *f = NULL;
    struct ts_err err = {0};

    if (ts_metrics_family_add(reg, &d, &f, &err))
        fail_msg("registering %s: %s", name, err.msg);
    return f;
}

/* Compares texts and names the first differing line (cmocka cuts long
 * strings). */
static void expect_text(const char *got, const char *want)
{
    size_t line = 1, i = 0, start = 0;

    for (; got[i] && got[i] == want[i]; i++)
        if (got[i] == '\n')
            line++, start = i + 1;
    if (got[i] || want[i])
        fail_msg("line %zu differs:\n got: %.80s\nwant: %.80s", line, got + start, want + start);
}

static void expect_render(struct ts_metrics_registry *reg, const char *want)
{
    struct ts_buf b = TS_BUF_INIT;

    assert_int_equal(ts_metrics_render(reg, &b), 0);
    expect_text(b.ptr, want);
    ts_buf_release(&b);
}

/* Expected strings are strconv.FormatFloat(v, 'g', -1, 64) in Go. */
static void test_fmt_float(void **state)
{
    static const struct {
        double v;
        const char *want;
    } cases[] = {
        {0, "0"},
        {-0.0, "0"},
        {1, "1"},
        {-1, "-1"},
        {0.5, "0.5"},
        {2.5, "2.5"},
        {-2.5, "-2.5"},
        {0.1, "0.1"},
        {0.1 + 0.2, "0.30000000000000004"},
        {1.0 / 3, "0.3333333333333333"},
        {2.0 / 3, "0.6666666666666666"},
        {100, "100"},
        {40960, "40960"},
        {10.24, "10.24"},
        {999999, "999999"},
        {123456.7, "123456.7"},
        {1e6, "1e+06"},
        {1234567, "1.234567e+06"},
        {1073741824, "1.073741824e+09"},
        {1e21, "1e+21"},
        {1e100, "1e+100"},
        {0.0001, "0.0001"},
        {0.00012345, "0.00012345"},
        {0.00001, "1e-05"},
        {1.5e-5, "1.5e-05"},
        {1e-7, "1e-07"},
        {DBL_MAX, "1.7976931348623157e+308"},
        {5e-324, "5e-324"},
        {9007199254740993.0, "9.007199254740992e+15"},
        {NAN, "NaN"},
        {INFINITY, "+Inf"},
        {-INFINITY, "-Inf"},
    };
    char buf[TS_METRICS_FLOAT_MAX];

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t n = ts_metrics_fmt_float(cases[i].v, buf);

        if (strcmp(buf, cases[i].want) != 0 || n != strlen(buf))
            fail_msg("case %zu (%.17g): got '%s' (len %zu), want '%s'", i, cases[i].v, buf, n,
                     cases[i].want);
    }
}

/* Every double printed must read back as itself (round trip), and a
 * doubling series keeps short digits (Go's ExponentialBuckets(0.01, 2)). */
static void test_fmt_float_round_trip(void **state)
{
    char buf[TS_METRICS_FLOAT_MAX];
    double b = 0.01;
    static const char *const doubling[] = {"0.01", "0.02", "0.04", "0.08", "0.16", "0.32",
                                           "0.64", "1.28", "2.56", "5.12", "10.24"};

    (void)state;
    srand(7);
    for (int i = 0; i < 20000; i++) {
        double v = ((double)rand() / RAND_MAX - 0.5) * pow(10, rand() % 40 - 20);

        ts_metrics_fmt_float(v, buf);
        if (strtod(buf, NULL) != v)
            fail_msg("%.17g printed as '%s'", v, buf);
    }
    for (size_t i = 0; i < 11; i++, b *= 2) {
        ts_metrics_fmt_float(b, buf);
        assert_string_equal(buf, doubling[i]);
    }
}

static void test_escape(void **state)
{
    static const struct {
        const char *in, *label, *help;
    } cases[] = {
        {"plain", "plain", "plain"},
        {"", "", ""},
        {"a\"b", "a\\\"b", "a\"b"},
        {"back\\slash", "back\\\\slash", "back\\\\slash"},
        {"two\nlines", "two\\nlines", "two\\nlines"},
        {"\\\"\n", "\\\\\\\"\\n", "\\\\\"\\n"},
        {"tab\tstays", "tab\tstays", "tab\tstays"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct ts_buf a = TS_BUF_INIT, h = TS_BUF_INIT;

        assert_int_equal(ts_metrics_escape_label(&a, cases[i].in), 0);
        assert_int_equal(ts_metrics_escape_help(&h, cases[i].in), 0);
        if (strcmp(a.ptr, cases[i].label) || strcmp(h.ptr, cases[i].help))
            fail_msg("case %zu: label '%s' help '%s'", i, a.ptr, h.ptr);
        ts_buf_release(&a);
        ts_buf_release(&h);
    }
}

/* Families by name, labels by name, series by label values in that order,
 * empty families left out, values in Go's format, HELP escaped. */
static void test_counter_gauge_exposition(void **state)
{
    struct ts_metrics_registry *reg = ts_metrics_registry_new();
    struct ts_metrics_family *req = add(reg, TS_METRICS_COUNTER, "http_requests_total",
                                        "Requests.\nBy code.", V("method", "code"), 2, NULL, 0);
    struct ts_metrics_family *temp =
        add(reg, TS_METRICS_GAUGE, "a_temperature", "A \\ gauge", V("zone", "app"), 2, NULL, 0);
    struct ts_metrics_family *up = add(reg, TS_METRICS_GAUGE, "up", "Up.", NULL, 0, NULL, 0);

    (void)state;
    add(reg, TS_METRICS_GAUGE, "empty_gauge", "never set", V("x"), 1, NULL, 0);
    ts_metrics_counter_add(req, V("POST", "500"), 1);
    ts_metrics_counter_add(req, V("GET", "200"), 2);
    ts_metrics_counter_add(req, V("GET", "200"), 0.5);
    ts_metrics_counter_add(req, V("GET", "404"), 1e6);
    ts_metrics_gauge_set(temp, V("z1", "b"), -3.25);
    ts_metrics_gauge_set(temp, V("z2", "a"), 7);
    ts_metrics_gauge_set(temp, V("z0", "b"), 1);
    ts_metrics_gauge_add(temp, V("z0", "b"), 0.5);
    ts_metrics_gauge_set(temp, V("q\"\\\n", NULL), 0);
    ts_metrics_gauge_set(up, NULL, 1);
    expect_render(reg, "# HELP a_temperature A \\\\ gauge\n"
                       "# TYPE a_temperature gauge\n"
                       "a_temperature{app=\"\",zone=\"q\\\"\\\\\\n\"} 0\n"
                       "a_temperature{app=\"a\",zone=\"z2\"} 7\n"
                       "a_temperature{app=\"b\",zone=\"z0\"} 1.5\n"
                       "a_temperature{app=\"b\",zone=\"z1\"} -3.25\n"
                       "# HELP http_requests_total Requests.\\nBy code.\n"
                       "# TYPE http_requests_total counter\n"
                       "http_requests_total{code=\"200\",method=\"GET\"} 2.5\n"
                       "http_requests_total{code=\"404\",method=\"GET\"} 1e+06\n"
                       "http_requests_total{code=\"500\",method=\"POST\"} 1\n"
                       "# HELP up Up.\n"
                       "# TYPE up gauge\n"
                       "up 1\n");
    ts_metrics_registry_free(reg);
}

static void test_histogram_exposition(void **state)
{
    static const double bounds[] = {1, 2.5, 5};
    struct ts_metrics_registry *reg = ts_metrics_registry_new();
    struct ts_metrics_family *h =
        add(reg, TS_METRICS_HISTOGRAM, "wait_seconds", "Wait.", V("q"), 1, bounds, 3);
    struct ts_metrics_family *bare =
        add(reg, TS_METRICS_HISTOGRAM, "bare_seconds", "No labels.", NULL, 0, NULL, 0);
    static const double obs[] = {0.5, 1, 3, 100, 2.5000001};
    double count;

    (void)state;
    for (size_t i = 0; i < sizeof(obs) / sizeof(obs[0]); i++)
        ts_metrics_histogram_observe(h, V("a"), obs[i]);
    ts_metrics_histogram_observe(h, V("b"), 5); /* upper bounds are inclusive */
    ts_metrics_histogram_observe(bare, NULL, 0.25);
    assert_int_equal(ts_metrics_value(h, V("a"), &count), 0);
    assert_true(count == 5);
    expect_render(reg, "# HELP bare_seconds No labels.\n"
                       "# TYPE bare_seconds histogram\n"
                       "bare_seconds_bucket{le=\"+Inf\"} 1\n"
                       "bare_seconds_sum 0.25\n"
                       "bare_seconds_count 1\n"
                       "# HELP wait_seconds Wait.\n"
                       "# TYPE wait_seconds histogram\n"
                       "wait_seconds_bucket{q=\"a\",le=\"1\"} 2\n"
                       "wait_seconds_bucket{q=\"a\",le=\"2.5\"} 2\n"
                       "wait_seconds_bucket{q=\"a\",le=\"5\"} 4\n"
                       "wait_seconds_bucket{q=\"a\",le=\"+Inf\"} 5\n"
                       "wait_seconds_sum{q=\"a\"} 107.0000001\n"
                       "wait_seconds_count{q=\"a\"} 5\n"
                       "wait_seconds_bucket{q=\"b\",le=\"1\"} 0\n"
                       "wait_seconds_bucket{q=\"b\",le=\"2.5\"} 0\n"
                       "wait_seconds_bucket{q=\"b\",le=\"5\"} 1\n"
                       "wait_seconds_bucket{q=\"b\",le=\"+Inf\"} 1\n"
                       "wait_seconds_sum{q=\"b\"} 5\n"
                       "wait_seconds_count{q=\"b\"} 1\n");
    ts_metrics_registry_free(reg);
}

/* Each observation lands in exactly the first bucket whose bound is >= it;
 * cumulative counts then match a brute-force count per bound. */
static void test_histogram_bucket_math(void **state)
{
    size_t nb;
    const double *b = ts_metrics_default_buckets(&nb);
    struct ts_metrics_registry *reg = ts_metrics_registry_new();
    struct ts_metrics_family *h = add(reg, TS_METRICS_HISTOGRAM, "h", "h", NULL, 0, b, nb);
    uint64_t want[16] = {0};
    struct ts_buf out = TS_BUF_INIT;
    char line[128], num[TS_METRICS_FLOAT_MAX];

    (void)state;
    assert_int_equal(nb, 11);
    srand(3);
    for (int i = 0; i < 5000; i++) {
        double v = i % 50 == 0 ? b[rand() % 11] : (double)rand() / RAND_MAX * 12;

        ts_metrics_histogram_observe(h, NULL, v);
        for (size_t k = 0; k < nb; k++)
            want[k] += v <= b[k];
    }
    ts_metrics_render(reg, &out);
    for (size_t k = 0; k < nb; k++) {
        ts_metrics_fmt_float(b[k], num);
        snprintf(line, sizeof(line), "\nh_bucket{le=\"%s\"} %llu\n", num,
                 (unsigned long long)want[k]);
        if (!strstr(out.ptr, line))
            fail_msg("missing '%s' in\n%s", line + 1, out.ptr);
    }
    assert_non_null(strstr(out.ptr, "\nh_bucket{le=\"+Inf\"} 5000\nh_sum "));
    assert_non_null(strstr(out.ptr, "\nh_count 5000\n"));
    ts_buf_release(&out);
    ts_metrics_registry_free(reg);
}

static void test_deletion(void **state)
{
    struct ts_metrics_registry *reg = ts_metrics_registry_new();
    struct ts_metrics_family *g =
        add(reg, TS_METRICS_GAUGE, "g", "G.", V("cq", "flavor"), 2, NULL, 0);
    double v;

    (void)state;
    ts_metrics_gauge_set(g, V("a", "x"), 1);
    ts_metrics_gauge_set(g, V("a", "y"), 2);
    ts_metrics_gauge_set(g, V("b", "x"), 3);
    ts_metrics_gauge_set(g, V("c", "a"), 4);
    assert_int_equal(ts_metrics_series_count(g), 4);
    assert_int_equal(ts_metrics_delete_series(g, V("a", "z")), 0);
    assert_int_equal(ts_metrics_delete_series(g, V("a", "y")), 1);
    assert_int_equal(ts_metrics_value(g, V("a", "y"), &v), TS_ENOTFOUND);
    assert_int_equal(ts_metrics_delete_matching(g, V("nope"), V("x"), 1), 0);
    assert_int_equal(ts_metrics_delete_matching(g, V("flavor"), V("x"), 1), 2);
    expect_render(reg, "# HELP g G.\n# TYPE g gauge\ng{cq=\"c\",flavor=\"a\"} 4\n");
    ts_metrics_gauge_set(g, V("d", "x"), 5);
    assert_int_equal(ts_metrics_delete_matching(g, V("cq", "flavor"), V("d", "x"), 2), 1);
    assert_int_equal(ts_metrics_value(g, V("c", "a"), &v), 0);
    assert_true(v == 4);
    assert_int_equal(ts_metrics_delete_matching(g, NULL, NULL, 0), 1); /* no filter: all */
    expect_render(reg, "");
    ts_metrics_gauge_set(g, V("a", "x"), 6); /* a deleted series starts afresh */
    assert_int_equal(ts_metrics_value(g, V("a", "x"), &v), 0);
    assert_true(v == 6);
    assert_int_equal(ts_metrics_series_count(g), 1);
    expect_render(reg, "# HELP g G.\n# TYPE g gauge\ng{cq=\"a\",flavor=\"x\"} 6\n");
    assert_int_equal(ts_metrics_delete_series(g, V("a", "x")), 1);
    ts_metrics_gauge_add(g, V("a", "x"), 2); /* not the deleted one's 6 */
    assert_int_equal(ts_metrics_value(g, V("a", "x"), &v), 0);
    assert_true(v == 2);
    ts_metrics_registry_free(reg);
}

/* Series are found by their values however the values read when joined:
 * separators inside values, empty and missing values, values too long
 * for the lookup's stack buffer. */
static void test_series_lookup(void **state)
{
    static char long_a[600], long_b[600];
    struct {
        const char *a, *b;
        double v;
    } rows[] = {
        {"x:1", "y", 1},   {"x", "1:y", 2},  {"x:1y", "", 3},  {"", "x:1y", 4},
        {"1:x", "1:y", 5}, {long_a, "b", 6}, {long_b, "b", 7}, {long_a, long_b, 8},
    };
    struct ts_metrics_registry *reg = ts_metrics_registry_new();
    struct ts_metrics_family *g = add(reg, TS_METRICS_GAUGE, "g", "G.", V("a", "b"), 2, NULL, 0);
    double v;

    (void)state;
    memset(long_a, 'a', sizeof(long_a) - 1);
    memset(long_b, 'a', sizeof(long_b) - 1);
    long_b[sizeof(long_b) - 2] = 'b'; /* differs in the last byte only */
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
        ts_metrics_gauge_set(g, V(rows[i].a, rows[i].b), rows[i].v);
    assert_int_equal(ts_metrics_series_count(g), sizeof(rows) / sizeof(rows[0]));
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        assert_int_equal(ts_metrics_value(g, V(rows[i].a, rows[i].b), &v), 0);
        assert_true(v == rows[i].v);
    }
    ts_metrics_gauge_set(g, V(NULL, "x:1y"), 9); /* a missing value reads as "" */
    assert_int_equal(ts_metrics_value(g, V("", "x:1y"), &v), 0);
    assert_true(v == 9);
    assert_int_equal(ts_metrics_value(g, V("x", "1y"), &v), TS_ENOTFOUND);
    assert_int_equal(ts_metrics_delete_matching(g, V("b"), V("b"), 1), 2);
    assert_int_equal(ts_metrics_value(g, V(long_a, "b"), &v), TS_ENOTFOUND);
    assert_int_equal(ts_metrics_value(g, V(long_a, long_b), &v), 0);
    assert_true(v == 8);
    ts_metrics_registry_free(reg);
}

static void test_counter_refuses_decrease(void **state)
{
    struct ts_metrics_registry *reg = ts_metrics_registry_new();
    struct ts_metrics_family *c = add(reg, TS_METRICS_COUNTER, "c_total", "C.", NULL, 0, NULL, 0);
    double v;

    (void)state;
    assert_int_equal(ts_metrics_counter_add(c, NULL, 2), 0);
    assert_int_equal(ts_metrics_counter_add(c, NULL, -1), TS_EINVAL);
    assert_int_equal(ts_metrics_counter_add(c, NULL, NAN), TS_EINVAL);
    assert_int_equal(ts_metrics_value(c, NULL, &v), 0);
    assert_true(v == 2);
    ts_metrics_registry_free(reg);
}

static void test_registration_errors(void **state)
{
    static const double up[] = {1, 2}, down[] = {2, 1}, inf[] = {1, INFINITY}, nan[] = {NAN};
    const struct { /* automatic: the label lists are compound literals */
        const char *name;
        enum ts_metrics_kind kind;
        const char *metric;
        const char *const *labels;
        size_t n;
        const double *b;
        size_t nb;
        int want;
    } cases[] = {
        {"ok", TS_METRICS_HISTOGRAM, "ok_seconds", V("a"), 1, up, 2, 0},
        {"trailing +Inf dropped", TS_METRICS_HISTOGRAM, "inf_seconds", NULL, 0, inf, 2, 0},
        {"taken", TS_METRICS_GAUGE, "ok_seconds", NULL, 0, NULL, 0, TS_EEXIST},
        {"colon ok", TS_METRICS_GAUGE, "job:rate5m", NULL, 0, NULL, 0, 0},
        {"empty name", TS_METRICS_GAUGE, "", NULL, 0, NULL, 0, TS_EINVAL},
        {"digit first", TS_METRICS_GAUGE, "1x", NULL, 0, NULL, 0, TS_EINVAL},
        {"dash", TS_METRICS_GAUGE, "a-b", NULL, 0, NULL, 0, TS_EINVAL},
        {"label colon", TS_METRICS_GAUGE, "g1", V("a:b"), 1, NULL, 0, TS_EINVAL},
        {"label reserved", TS_METRICS_GAUGE, "g2", V("__x"), 1, NULL, 0, TS_EINVAL},
        {"label twice", TS_METRICS_GAUGE, "g3", V("a", "a"), 2, NULL, 0, TS_EINVAL},
        {"le on histogram", TS_METRICS_HISTOGRAM, "h1", V("le"), 1, up, 2, TS_EINVAL},
        {"le on gauge", TS_METRICS_GAUGE, "g4", V("le"), 1, NULL, 0, 0},
        {"decreasing", TS_METRICS_HISTOGRAM, "h2", NULL, 0, down, 2, TS_EINVAL},
        {"nan bound", TS_METRICS_HISTOGRAM, "h3", NULL, 0, nan, 1, TS_EINVAL},
        {"too many", TS_METRICS_GAUGE, "g5", V("a", "b", "c", "d", "e", "f", "g", "h", "i"), 9,
         NULL, 0, TS_EINVAL},
    };
    struct ts_metrics_registry *reg = ts_metrics_registry_new();

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct ts_metrics_desc d = {cases[i].kind, cases[i].metric, "help",     cases[i].labels,
                                    cases[i].n,    cases[i].b,      cases[i].nb};
        struct ts_err err = {0};
        int rc = ts_metrics_family_add(reg, &d, NULL, &err);

        if (rc != cases[i].want)
            fail_msg("%s: got %d (%s), want %d", cases[i].name, rc, err.msg, cases[i].want);
    }
    assert_non_null(ts_metrics_family_find(reg, "job:rate5m"));
    assert_null(ts_metrics_family_find(reg, "g1"));
    ts_metrics_histogram_observe(ts_metrics_family_find(reg, "inf_seconds"), NULL, 7);
    expect_render(reg, "# HELP inf_seconds help\n# TYPE inf_seconds histogram\n"
                       "inf_seconds_bucket{le=\"1\"} 0\ninf_seconds_bucket{le=\"+Inf\"} 1\n"
                       "inf_seconds_sum 7\ninf_seconds_count 1\n");
    ts_metrics_registry_free(reg);
}

/* Series come out sorted whatever the insertion order: compare with a
 * qsort of the same label tuples (bytewise, as Go compares strings). */
static int cmp_pair(const void *a, const void *b)
{
    const char *const *x = a, *const *y = b;
    int c = strcmp(x[1], y[1]); /* "app" sorts before "zone" */

    return c ? c : strcmp(x[0], y[0]);
}

static void test_random_order(void **state)
{
    enum { N = 400 };
    static char vals[N][2][8];
    const char *pairs[N][2];
    struct ts_metrics_registry *reg = ts_metrics_registry_new();
    struct ts_metrics_family *g =
        add(reg, TS_METRICS_GAUGE, "g", "G.", V("zone", "app"), 2, NULL, 0);
    struct ts_buf out = TS_BUF_INIT, want = TS_BUF_INIT;
    size_t n = 0;

    (void)state;
    srand(11);
    for (int i = 0; i < N; i++) {
        snprintf(vals[i][0], 8, "z%c%d", "AZaz_09"[rand() % 7], rand() % 5);
        snprintf(vals[i][1], 8, "%c", 'a' + rand() % 26);
        ts_metrics_gauge_set(g, V(vals[i][0], vals[i][1]), 1);
    }
    for (int i = 0; i < N; i++) { /* distinct tuples, as the registry keeps them */
        int seen = 0;

        for (int k = 0; k < i && !seen; k++)
            seen = !strcmp(vals[k][0], vals[i][0]) && !strcmp(vals[k][1], vals[i][1]);
        if (!seen) {
            pairs[n][0] = vals[i][0], pairs[n][1] = vals[i][1];
            n++;
        }
    }
    assert_int_equal(ts_metrics_series_count(g), n);
    qsort(pairs, n, sizeof(pairs[0]), cmp_pair);
    ts_buf_adds(&want, "# HELP g G.\n# TYPE g gauge\n");
    for (size_t i = 0; i < n; i++)
        ts_buf_addf(&want, "g{app=\"%s\",zone=\"%s\"} 1\n", pairs[i][1], pairs[i][0]);
    ts_metrics_render(reg, &out);
    expect_text(out.ptr, want.ptr);
    ts_buf_release(&out);
    ts_buf_release(&want);
    ts_metrics_registry_free(reg);
}

static void test_render_cap(void **state)
{
    struct ts_metrics_registry *reg = ts_metrics_registry_new();
    struct ts_metrics_family *g = add(reg, TS_METRICS_GAUGE, "g", "G.", V("a"), 1, NULL, 0);
    struct ts_buf out;

    (void)state;
    for (int i = 0; i < 100; i++) {
        char v[16];

        snprintf(v, sizeof(v), "%d", i);
        ts_metrics_gauge_set(g, V(v), i);
    }
    ts_buf_init(&out, 200);
    assert_int_equal(ts_metrics_render(reg, &out), TS_EOVERFLOW);
    assert_true(out.len <= 200);
    ts_buf_release(&out);
    ts_metrics_registry_free(reg);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fmt_float),
        cmocka_unit_test(test_fmt_float_round_trip),
        cmocka_unit_test(test_escape),
        cmocka_unit_test(test_counter_gauge_exposition),
        cmocka_unit_test(test_histogram_exposition),
        cmocka_unit_test(test_histogram_bucket_math),
        cmocka_unit_test(test_deletion),
        cmocka_unit_test(test_series_lookup),
        cmocka_unit_test(test_counter_refuses_decrease),
        cmocka_unit_test(test_registration_errors),
        cmocka_unit_test(test_random_order),
        cmocka_unit_test(test_render_cap),
    };

    ts_alloc_init();
    if (argc > 1)
        cmocka_set_test_filter(argv[1]);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
