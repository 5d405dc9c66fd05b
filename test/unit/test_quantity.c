/*
 * Tests for pkg/resource/quantity: parse, canonical format, compare,
 * arithmetic and integer views.  Most cases come from the tables of
 * Kubernetes' quantity_test.go (TestQuantityParse, TestQuantityString,
 * the invalid list) with the canonical text Kubernetes prints for them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "resource/quantity.h"
#include "util/alloc.h"
#include "util/err.h"

#define D          TS_QUANTITY_DECIMAL_SI
#define B          TS_QUANTITY_BINARY_SI
#define X          TS_QUANTITY_DECIMAL_EXP
#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

/* Parses s or fails the test naming the input. */
static struct ts_quantity q_(const char *s)
{
    struct ts_quantity q = {0, 0, D};
    struct ts_err e = {0};

    if (ts_quantity_parse_c(s, &q, &e) != 0)
        fail_msg("parse '%s': %s", s, e.msg);
    return q;
}

static const struct {
    const char *in;
    const char *want;
    enum ts_quantity_format format;
} canonical[] = {
    /* TestQuantityParse: zeros in every family */
    {"0", "0", D},
    {"0n", "0", D},
    {"0u", "0", D},
    {"0m", "0", D},
    {"0Ki", "0", B},
    {"0k", "0", D},
    {"0Mi", "0", B},
    {"0M", "0", D},
    {"0Gi", "0", B},
    {"0G", "0", D},
    {"0Ti", "0", B},
    {"0T", "0", D},
    {"00", "0", D},
    {"0e3", "0", X},
    /* quantity-less numbers and binary suffixes */
    {"1", "1", D},
    {"1Ki", "1Ki", B},
    {"8Ki", "8Ki", B},
    {"7Mi", "7Mi", B},
    {"6Gi", "6Gi", B},
    {"5Ti", "5Ti", B},
    {"4Pi", "4Pi", B},
    {"3Ei", "3Ei", B},
    {"7Ei", "7Ei", B},
    {"10Ti", "10Ti", B},
    {"100Ti", "100Ti", B},
    /* decimal suffixes */
    {"5n", "5n", D},
    {"4u", "4u", D},
    {"3m", "3m", D},
    {"9", "9", D},
    {"8k", "8k", D},
    {"50k", "50k", D},
    {"7M", "7M", D},
    {"6G", "6G", D},
    {"5T", "5T", D},
    {"40T", "40T", D},
    {"300T", "300T", D},
    {"2P", "2P", D},
    {"1E", "1E", D},
    {"12E", "12E", D},
    /* decimal exponents; the exponent is lowered to a multiple of 3 */
    {"1E-3", "1e-3", X},
    {"1e3", "1e3", X},
    {"1E6", "1e6", X},
    {"1e9", "1e9", X},
    {"1E12", "1e12", X},
    {"1e15", "1e15", X},
    {"1E18", "1e18", X},
    {"1e14", "100e12", X},
    {"1e13", "10e12", X},
    {"1e+3", "1e3", X},
    {"1E+03", "1e3", X},
    {"1e0", "1", X},
    {"1e1", "10", X},
    {"5.e3", "5e3", X},
    {".5e3", "500", X},
    {"1.5e3", "1500", X},
    {".001e12", "1e9", X},
    {"0.001e0", "1e-3", X},
    {"1000e-12", "1e-9", X},
    {"1e26", "100e24", X},
    /* things that look like floating point */
    {"100.035k", "100035", D},
    {"0.001", "1m", D},
    {"0.0005k", "500m", D},
    {"0.005", "5m", D},
    {"0.05", "50m", D},
    {"0.5", "500m", D},
    {"0.00050k", "500m", D},
    {"0.00500", "5m", D},
    {"0.05000", "50m", D},
    {"0.50000", "500m", D},
    {"0.5e0", "500e-3", X},
    {"0.5e-1", "50e-3", X},
    {"0.5e-2", "5e-3", X},
    {"10.035M", "10035k", D},
    {"1.2e3", "1200", X},
    {"1.3E+6", "1300e3", X},
    {"1.40e9", "1400e6", X},
    {"1.53E12", "1530e9", X},
    {"1.6e15", "1600e12", X},
    {"1.7E18", "1700e15", X},
    {"9.01", "9010m", D},
    {"8.1k", "8100", D},
    {"7.123456M", "7123456", D},
    {"6.987654321G", "6987654321", D},
    {"5.444T", "5444G", D},
    {"40.1T", "40100G", D},
    {"300.2T", "300200G", D},
    {"2.5P", "2500T", D},
    {"1.01E", "1010P", D},
    /* things that round up to 1n */
    {"3.001n", "4n", D},
    {"1.1E-9", "2e-9", X},
    {"0.0000000001", "1n", D},
    {"0.0000000005", "1n", D},
    {"0.00000000050", "1n", D},
    {"0.5e-9", "1e-9", X},
    {"0.9n", "1n", D},
    {"0.00000012345", "124n", D},
    {"0.00000012354", "124n", D},
    {"1.0000000001", "1000000001n", D},
    {"0.1234567891", "123456790n", D},
    {"1.5n", "2n", D},
    {"1e-10", "1e-9", X},
    {"1e-99999999999999999999", "1e-9", X},
    {"0.1000000000000000000000000000000000000000000000000001", "100000001n", D},
    /* fractional binary stays binary (>= 1) but prints in decimal SI */
    {"100.035Ki", "102435840m", B},
    {"0.5Mi", "512Ki", B},
    {"0.05Gi", "53687091200m", B},
    {"0.025Ti", "27487790694400m", B},
    {"1.5Gi", "1536Mi", B},
    {"0.5Gi", "512Mi", B},
    {"0.5Ki", "512", B},
    {"1.5Ki", "1536", B},
    {"0.1Ki", "102400m", B},
    {"1.0000000000000000000000000000000000000000000000001Ki", "1024000000001n", B},
    /* things written by trolls */
    {"0.000000000001Ki", "2n", D},
    {"0.0001Ki", "102400u", D},
    {".001", "1m", D},
    {".0001k", "100m", D},
    {"1.", "1", D},
    {"1.G", "1G", D},
    {"000001", "1", D},
    {"0001.5000Mi", "1536Ki", B},
    {"+1Ki", "1Ki", B},
    {"+0.5", "500m", D},
    {"-0", "0", D},
    {"-0.0Gi", "0", B},
    /* TestQuantityString alternates: the same value in another spelling */
    {"1024Mi", "1Gi", B},
    {"307200Ki", "300Mi", B},
    {"1025024Mi", "1001Gi", B},
    {"1024Gi", "1Ti", B},
    {"2048Ki", "2Mi", B},
    {"1536Mi", "1536Mi", B},
    {"1023Ki", "1023Ki", B},
    {"1000M", "1G", D},
    {"0.001T", "1G", D},
    {"1000000k", "1G", D},
    {"1000000000", "1G", D},
    {"1000u", "1m", D},
    {"1.08", "1080m", D},
    {"1080000000n", "1080m", D},
    {"1234567M", "1234567M", D},
    {"1025", "1025", D},
    {"1000m", "1", D},
    {"1500m", "1500m", D},
    {"1.5", "1500m", D},
    {"1k", "1k", D},
    {"1000", "1k", D},
    {"100n", "100n", D},
    {"1000000000n", "1", D},
    {"0.1", "100m", D},
    {"128974848", "128974848", D},
    {"129e6", "129e6", X},
    {"129M", "129M", D},
    {"123Mi", "123Mi", B},
    {"128974848000m", "128974848", D},
    /* the edges of the representable range */
    {"9223372036854775807", "9223372036854775807", D},
    {"-9223372036854775808", "-9223372036854775808", D},
    {"9223372036854775807m", "9223372036854775807m", D},
    {"12345678901234567890", "12345678901234567890", D},
    {"999999999E", "999999999E", D},
    {"1000000000000000000000000", "1000000E", D},
    {"0e99999999999999999999", "0", X},
};

static void check_canonical(const char *in, const char *want, enum ts_quantity_format format)
{
    char buf[TS_QUANTITY_STR_MAX];
    struct ts_quantity q, back;
    struct ts_err e = {0};
    int rc = ts_quantity_parse_c(in, &q, &e);

    if (rc != 0)
        fail_msg("'%s': rc %s (%s), want ok", in, ts_err_name(rc), e.msg);
    ts_quantity_format(&q, buf, sizeof(buf));
    if (strcmp(buf, want) != 0)
        fail_msg("'%s': formatted '%s', want '%s'", in, buf, want);
    if (q.format != format)
        fail_msg("'%s': format %d, want %d", in, (int)q.format, (int)format);
    /* the canonical text must mean the same number */
    back = q_(buf);
    if (ts_quantity_cmp(&q, &back) != 0)
        fail_msg("'%s': '%s' parses back to a different value", in, buf);
}

static void test_parse_canonical(void **state)
{
    (void)state;
    assert_true(N_ELEMS(canonical) >= 80);
    for (size_t i = 0; i < N_ELEMS(canonical); i++)
        check_canonical(canonical[i].in, canonical[i].want, canonical[i].format);
}

/* Kubernetes' test also runs every case negated: the sign just carries. */
static void test_parse_canonical_negated(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ELEMS(canonical); i++) {
        char in[128], want[64];
        const char *s = canonical[i].in;

        if (s[0] == '-' || s[0] == '+' || strcmp(canonical[i].want, "0") == 0)
            continue;
        snprintf(in, sizeof(in), "-%s", s);
        snprintf(want, sizeof(want), "-%s", canonical[i].want);
        check_canonical(in, want, canonical[i].format);
    }
}

static void test_parse_fields(void **state)
{
    /* decQuantity(value, scale, format) from TestQuantityParse, normalised */
    static const struct {
        const char *in;
        int64_t value;
        int32_t scale;
        enum ts_quantity_format format;
    } cases[] = {
        {"50k", 5, 4, D},
        {"100.035k", 100035, 0, D},
        {"0.0005k", 5, -1, D},
        {"3.001n", 4, -9, D},
        {"0.00000012345", 124, -9, D},
        {"1.G", 1, 9, D},
        {"12E", 12, 18, D},
        {"100.035Ki", 10243584, -2, B},
        {"0.05Gi", 536870912, -1, B},
        {"0.000000000001Ki", 2, -9, D},
        {"1.53E12", 153, 10, X},
        {"-0.0Mi", 0, 0, B},
        {"1Ki", 1024, 0, B},
        {"-1.5", -15, -1, D},
        {"0.5Mi", 524288, 0, B},
    };

    (void)state;
    for (size_t i = 0; i < N_ELEMS(cases); i++) {
        struct ts_quantity q = q_(cases[i].in);

        if (q.value != cases[i].value || q.scale != cases[i].scale || q.format != cases[i].format)
            fail_msg("'%s': got {%lld, %d, %d}, want {%lld, %d, %d}", cases[i].in,
                     (long long)q.value, (int)q.scale, (int)q.format, (long long)cases[i].value,
                     (int)cases[i].scale, (int)cases[i].format);
    }
}

static void test_parse_rejects(void **state)
{
    static const char *const bad[] = {
        /* Kubernetes' invalid list */
        "1.1.M",
        "1+1.0M",
        "0.1mi",
        "0.1am",
        "aoeu",
        ".5i",
        "1i",
        "-3.01i",
        "-3.01e-",
        " 1",
        "1 ",
        /* more shapes the apiserver pattern refuses */
        "",
        ".",
        "-",
        "+",
        "-.",
        "+.e3",
        "1.2.3",
        "1KB",
        "1 Gi",
        "Mi",
        "k",
        "--1",
        "+-1",
        "1e",
        "1E+",
        "1e-",
        "1e+-3",
        "1e3.5",
        "1ee3",
        "1e3e3",
        "0x10",
        "1ki",
        "1K",
        "1k8",
        "1Mi2",
        "1MiB",
        "1m1",
        "e3",
        "E",
        "1_000",
        "1,5",
        "1\n",
        "\t1",
        "inf",
        "NaN",
        "1Gi ",
        "1.e",
        "1i1",
        "1Zi",
        "1Y",
        "1.5.",
        "..5",
        "\xd9\xa1",
    };

    (void)state;
    for (size_t i = 0; i < N_ELEMS(bad); i++) {
        struct ts_quantity q = {42, 1, X};
        struct ts_err e = {0};
        char quoted[64];
        int rc = ts_quantity_parse_c(bad[i], &q, &e);

        if (rc != TS_EPARSE)
            fail_msg("'%s': rc %s, want EPARSE", bad[i], ts_err_name(rc));
        snprintf(quoted, sizeof(quoted), "'%s'", bad[i]);
        if (e.code != TS_EPARSE || !strstr(e.msg, quoted))
            fail_msg("'%s': message '%s' does not quote the input", bad[i], e.msg);
        if (q.value != 42 || q.scale != 1 || q.format != X)
            fail_msg("'%s': out written on error", bad[i]);
    }
}

static void test_parse_overflow(void **state)
{
    static const char *const big[] = {
        "8Ei",
        "9Ei",
        "9223372036854775807Ki",
        "1e27",
        "-1e27",
        "1000000000E",
        "1e30",
        "9223372036854775808",
        "-9223372036854775809",
        "92233720368547758071",
        "12345678901234567891",
        "9223372036.854775808",
        "1000000000000000000000000001n",
        "1e99999999999999999999",
        "1.0000000001Ei",
    };

    (void)state;
    for (size_t i = 0; i < N_ELEMS(big); i++) {
        struct ts_quantity q = {42, 1, X};
        struct ts_err e = {0};
        int rc = ts_quantity_parse_c(big[i], &q, &e);

        if (rc != TS_EOVERFLOW)
            fail_msg("'%s': rc %s, want EOVERFLOW", big[i], ts_err_name(rc));
        if (!strstr(e.msg, big[i]) || q.value != 42)
            fail_msg("'%s': message '%s' or out wrong", big[i], e.msg);
    }
}

static void test_parse_views(void **state)
{
    struct ts_quantity q;
    struct ts_err e = {0};
    char buf[TS_QUANTITY_STR_MAX];
    char long_in[200];

    (void)state;
    /* only len bytes count: the view needs no NUL */
    assert_int_equal(ts_quantity_parse((struct ts_str){"1Gixyz", 3}, &q, NULL), 0);
    assert_string_equal(ts_quantity_format(&q, buf, sizeof(buf)), "1Gi");
    assert_int_equal(ts_quantity_parse((struct ts_str){"1.5e", 3}, &q, NULL), 0);
    assert_string_equal(ts_quantity_format(&q, buf, sizeof(buf)), "1500m");
    assert_int_equal(ts_quantity_parse((struct ts_str){NULL, 0}, &q, &e), TS_EPARSE);
    assert_int_equal(ts_quantity_parse((struct ts_str){"1\0", 2}, &q, NULL), TS_EPARSE);
    /* messages quote long input only in part and never overrun */
    memset(long_in, '9', sizeof(long_in) - 2);
    long_in[sizeof(long_in) - 2] = 'x';
    long_in[sizeof(long_in) - 1] = '\0';
    assert_int_equal(ts_quantity_parse_c(long_in, &q, &e), TS_EPARSE);
    assert_true(strlen(e.msg) < TS_ERR_MSG_MAX);
    assert_non_null(strstr(e.msg, "'9999"));
}

/* TestQuantityString: hand-built, partly unnormalised values */
static const struct {
    struct ts_quantity q;
    const char *want;
} format_cases[] = {
    {{1024 * 1024 * 1024, 0, B}, "1Gi"},
    {{300 * 1024 * 1024, 0, B}, "300Mi"},
    {{6 * 1024, 0, B}, "6Ki"},
    {{1001LL * 1024 * 1024 * 1024, 0, B}, "1001Gi"},
    {{1024LL * 1024 * 1024 * 1024, 0, B}, "1Ti"},
    {{5, 0, B}, "5"},
    {{500, -3, B}, "500m"},
    {{1, 9, D}, "1G"},
    {{1000, 6, D}, "1G"},
    {{1000000, 3, D}, "1G"},
    {{1000000000, 0, D}, "1G"},
    {{1, -3, D}, "1m"},
    {{80, -3, D}, "80m"},
    {{1080, -3, D}, "1080m"},
    {{108, -2, D}, "1080m"},
    {{10800, -4, D}, "1080m"},
    {{300, 6, D}, "300M"},
    {{1, 12, D}, "1T"},
    {{1234567, 6, D}, "1234567M"},
    {{1234567, -3, B}, "1234567m"},
    {{3, 3, D}, "3k"},
    {{1025, 0, B}, "1025"},
    {{0, 0, D}, "0"},
    {{0, 0, B}, "0"},
    {{1, 9, X}, "1e9"},
    {{1, -3, X}, "1e-3"},
    {{1, -9, X}, "1e-9"},
    {{80, -3, X}, "80e-3"},
    {{300, 6, X}, "300e6"},
    {{1, 12, X}, "1e12"},
    {{1, 3, X}, "1e3"},
    {{3, 3, X}, "3e3"},
    {{0, 0, X}, "0"},
    {{0, 7, D}, "0"},
    {{1, -9, D}, "1n"},
    {{80, -9, D}, "80n"},
    {{1080, -9, D}, "1080n"},
    {{108, -8, D}, "1080n"},
    {{1, -6, D}, "1u"},
    {{80, -6, D}, "80u"},
    {{1080, -6, D}, "1080u"},
    {{-1023, 0, B}, "-1023"},
    {{-1024, 0, B}, "-1Ki"},
    {{1, 21, D}, "1000E"},
    {{INT64_MIN, 0, D}, "-9223372036854775808"},
    {{INT64_MAX, -9, D}, "9223372036854775807n"},
    /* 2^62 × 10^8 = 390625 × 1024^7: no suffix past Ei, so the mantissa grows */
    {{4611686018427387904LL, 8, B}, "400000000Ei"},
    {{1, 3, (enum ts_quantity_format)7}, "1e3"}, /* unknown family: exponent form */
};

static void test_format_structs(void **state)
{
    char buf[TS_QUANTITY_STR_MAX];

    (void)state;
    for (size_t i = 0; i < N_ELEMS(format_cases); i++) {
        ts_quantity_format(&format_cases[i].q, buf, sizeof(buf));
        if (strcmp(buf, format_cases[i].want) != 0)
            fail_msg("case %zu {%lld, %d}: '%s', want '%s'", i, (long long)format_cases[i].q.value,
                     (int)format_cases[i].q.scale, buf, format_cases[i].want);
    }
}

static void test_format_truncates(void **state)
{
    struct ts_quantity q = q_("1536Mi");
    char buf[8];

    (void)state;
    memset(buf, 'x', sizeof(buf));
    assert_string_equal(ts_quantity_format(&q, buf, 4), "153");
    assert_int_equal(buf[4], 'x');
    assert_string_equal(ts_quantity_format(&q, buf, 1), "");
    buf[0] = 'x';
    assert_ptr_equal(ts_quantity_format(&q, buf, 0), buf);
    assert_int_equal(buf[0], 'x');
    q = q_("1000000E");
    assert_string_equal(ts_quantity_format(&q, buf, sizeof(buf)), "1000000");
}

static void test_from_int_and_milli(void **state)
{
    static const struct {
        struct ts_quantity q;
        int64_t value;
        int32_t scale;
        const char *want;
    } cases[] = {
        {{0, 0, D}, 1073741824, 0, "1Gi"}, /* q filled in below */
        {{0, 0, D}, 1000, 0, "1k"},
        {{0, 0, D}, 0, 0, "0"},
        {{0, 0, D}, INT64_MIN, 0, "-9223372036854775808"},
        {{0, 0, D}, 1500, -3, "1500m"},
        {{0, 0, D}, -250, -3, "-250m"},
        {{0, 0, D}, INT64_MAX, -3, "9223372036854775807m"},
    };
    struct ts_quantity got[N_ELEMS(cases)];
    char buf[TS_QUANTITY_STR_MAX];

    (void)state;
    got[0] = ts_quantity_from_int(1073741824, B);
    got[1] = ts_quantity_from_int(1000, D);
    got[2] = ts_quantity_from_int(0, B);
    got[3] = ts_quantity_from_int(INT64_MIN, D);
    got[4] = ts_quantity_from_milli(1500);
    got[5] = ts_quantity_from_milli(-250);
    got[6] = ts_quantity_from_milli(INT64_MAX);
    for (size_t i = 0; i < N_ELEMS(cases); i++) {
        ts_quantity_format(&got[i], buf, sizeof(buf));
        if (got[i].value != cases[i].value || got[i].scale != cases[i].scale ||
            strcmp(buf, cases[i].want) != 0)
            fail_msg("case %zu: {%lld, %d} '%s', want '%s'", i, (long long)got[i].value,
                     (int)got[i].scale, buf, cases[i].want);
    }
    assert_int_equal(got[4].format, D);
}

static void test_cmp_table(void **state)
{
    static const struct {
        const char *a;
        const char *b;
        int want;
    } cases[] = {
        {"1Gi", "1073741824", 0},
        {"1Gi", "1G", 1},
        {"999m", "1", -1},
        {"1E", "1n", 1},
        {"-1", "1n", -1},
        {"0", "-0", 0},
        {"1e3", "1k", 0},
        {"-1Gi", "-1G", -1},
        {"12E", "9223372036854775807", 1},
        {"100m", "0.1", 0},
        {"1n", "0", 1},
        {"0", "1n", -1},
        {"-1n", "0", -1},
        {"1.0000000001", "1", 1},
        {"9223372036854775807", "9223372036854775806", 1},
        {"9223372036854775807n", "9223372036854775807u", -1},
        {"999999999E", "999999999999999999", 1},
        {"-999999999E", "-1n", -1},
        {"1536Mi", "1.5Gi", 0},
        {"123456789n", "123456790n", -1},
        {"10e-9", "1e-8", 0},
        {"5", "5000m", 0},
    };

    (void)state;
    for (size_t i = 0; i < N_ELEMS(cases); i++) {
        struct ts_quantity a = q_(cases[i].a), b = q_(cases[i].b);
        int got = ts_quantity_cmp(&a, &b), back = ts_quantity_cmp(&b, &a);

        if (got != cases[i].want || back != -cases[i].want)
            fail_msg("cmp('%s', '%s') = %d / %d, want %d", cases[i].a, cases[i].b, got, back,
                     cases[i].want);
    }
}

static void test_cmp_unnormalised(void **state)
{
    static const struct {
        struct ts_quantity a, b;
        int want;
    } cases[] = {
        {{10, 0, D}, {1, 1, D}, 0},
        {{1000, -3, D}, {1, 0, B}, 0},
        {{INT64_MIN, 0, D}, {INT64_MAX, 0, D}, -1},
        {{INT64_MAX, -9, D}, {INT64_MAX, -3, D}, -1},
        {{1, 20, D}, {INT64_MAX, 0, D}, 1},
        {{-1, 20, D}, {INT64_MIN, 0, D}, -1},
        {{0, 5, D}, {0, -9, D}, 0},
        {{10, -1, D}, {1000000000, -9, D}, 0},
    };

    (void)state;
    for (size_t i = 0; i < N_ELEMS(cases); i++) {
        int got = ts_quantity_cmp(&cases[i].a, &cases[i].b);

        if (got != cases[i].want)
            fail_msg("case %zu: cmp %d, want %d", i, got, cases[i].want);
    }
}

static void test_sign_min_max(void **state)
{
    struct ts_quantity a = q_("1Gi"), b = q_("1073741824"), c = q_("-1n"), z = q_("0Ki");

    (void)state;
    assert_int_equal(ts_quantity_sign(&a), 1);
    assert_int_equal(ts_quantity_sign(&c), -1);
    assert_int_equal(ts_quantity_sign(&z), 0);
    assert_true(ts_quantity_is_zero(&z));
    assert_false(ts_quantity_is_zero(&c));
    /* ties return a */
    assert_ptr_equal(ts_quantity_min(&a, &b), &a);
    assert_ptr_equal(ts_quantity_max(&a, &b), &a);
    assert_ptr_equal(ts_quantity_min(&b, &a), &b);
    assert_ptr_equal(ts_quantity_min(&a, &c), &c);
    assert_ptr_equal(ts_quantity_max(&c, &a), &a);
    assert_ptr_equal(ts_quantity_max(&c, &z), &z);
}

static const struct {
    const char *a;
    char op;
    const char *b; /* for '*': the factor as a decimal integer */
    const char *want;
    int rc;
} arith_cases[] = {
    {"1Gi", '+', "512Mi", "1536Mi", 0},
    {"100m", '+', "900m", "1", 0},
    {"1", '+', "500m", "1500m", 0},
    {"0", '+', "1Gi", "1Gi", 0}, /* zero takes the other's format */
    {"1k", '+', "1Ki", "2024", 0},
    {"1Ki", '+', "1Ki", "2Ki", 0},
    {"1e3", '+', "1", "1001", 0},
    {"1.5", '+', "-2", "-500m", 0},
    {"1Mi", '+', "1n", "1048576000000001n", 0},
    {"9E", '+', "9E", "18E", 0},
    {"-1", '+', "1", "0", 0},
    {"1n", '+', "1E", NULL, TS_EOVERFLOW},
    {"9223372036854775807", '+', "1", NULL, TS_EOVERFLOW},
    {"999999999E", '+', "1E", NULL, TS_EOVERFLOW},
    {"1Gi", '-', "512Mi", "512Mi", 0},
    {"1", '-', "1500m", "-500m", 0},
    {"0", '-', "1Gi", "-1Gi", 0},
    {"1Gi", '-', "1Gi", "0", 0},
    {"-9223372036854775807", '-', "1", "-9223372036854775808", 0},
    {"-9223372036854775807", '-', "2", NULL, TS_EOVERFLOW},
    {"1", '-', "-9223372036854775808", NULL, TS_EOVERFLOW},
    {"1E", '-', "1n", NULL, TS_EOVERFLOW},
    {"1Gi", '*', "3", "3Gi", 0},
    {"500m", '*', "4", "2", 0},
    {"250m", '*', "-2", "-500m", 0},
    {"1E", '*', "9", "9E", 0},
    {"1Ki", '*', "0", "0", 0},
    {"100m", '*', "10", "1", 0},
    {"1", '*', "-9223372036854775808", "-9223372036854775808", 0},
    {"1E", '*', "1000000000", NULL, TS_EOVERFLOW},
    {"9223372036854775807", '*', "2", NULL, TS_EOVERFLOW},
    {"-1", '*', "-9223372036854775808", NULL, TS_EOVERFLOW},
    {"-9223372036854775808", '*', "-9223372036854775808", NULL, TS_EOVERFLOW},
};

/* Runs arith_cases[i] into *out; returns the operation's rc. */
static int run_arith(size_t i, struct ts_quantity *out)
{
    struct ts_quantity a = q_(arith_cases[i].a), b = q_(arith_cases[i].b);
    int64_t factor = 0;

    switch (arith_cases[i].op) {
    case '+':
        return ts_quantity_add(&a, &b, out);
    case '-':
        return ts_quantity_sub(&a, &b, out);
    default:
        assert_int_equal(ts_quantity_value(&b, &factor), 0);
        return ts_quantity_mul(&a, factor, out);
    }
}

static void test_arith_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ELEMS(arith_cases); i++) {
        struct ts_quantity out = {7, 7, X};
        char buf[TS_QUANTITY_STR_MAX];
        char ctx[128];
        int rc = run_arith(i, &out);

        snprintf(ctx, sizeof(ctx), "%s %c %s", arith_cases[i].a, arith_cases[i].op,
                 arith_cases[i].b);
        if (rc != arith_cases[i].rc)
            fail_msg("%s: rc %s, want %s", ctx, ts_err_name(rc), ts_err_name(arith_cases[i].rc));
        if (rc != 0 && (out.value != 7 || out.scale != 7))
            fail_msg("%s: out written on error", ctx);
        ts_quantity_format(&out, buf, sizeof(buf));
        if (rc == 0 && strcmp(buf, arith_cases[i].want) != 0)
            fail_msg("%s = '%s', want '%s'", ctx, buf, arith_cases[i].want);
    }
}

static void test_arith_formats_and_aliasing(void **state)
{
    struct ts_quantity a = q_("1Gi"), b = q_("1G"), z = q_("0");
    struct ts_quantity out;
    char buf[TS_QUANTITY_STR_MAX];

    (void)state;
    assert_int_equal(ts_quantity_add(&a, &b, &out), 0);
    assert_int_equal(out.format, B);
    assert_int_equal(ts_quantity_add(&b, &a, &out), 0);
    assert_int_equal(out.format, D);
    assert_int_equal(ts_quantity_sub(&z, &a, &out), 0);
    assert_int_equal(out.format, B);
    /* out may be an operand */
    assert_int_equal(ts_quantity_add(&a, &a, &a), 0);
    assert_string_equal(ts_quantity_format(&a, buf, sizeof(buf)), "2Gi");
    assert_int_equal(ts_quantity_sub(&a, &a, &a), 0);
    assert_true(ts_quantity_is_zero(&a));
    assert_int_equal(ts_quantity_mul(&b, 3, &b), 0);
    assert_string_equal(ts_quantity_format(&b, buf, sizeof(buf)), "3G");
    /* results are normalised */
    assert_int_equal(ts_quantity_add(&(struct ts_quantity){500, -3, D},
                                     &(struct ts_quantity){1500, -3, D}, &out),
                     0);
    assert_int_equal(out.value, 2);
    assert_int_equal(out.scale, 0);
}

static const struct {
    const char *in;
    int v_rc;
    int64_t v;
    int m_rc;
    int64_t m;
} value_cases[] = {
    {"0", 0, 0, 0, 0},
    {"1", 0, 1, 0, 1000},
    {"1.5", 0, 2, 0, 1500},
    {"100m", 0, 1, 0, 100},
    {"1n", 0, 1, 0, 1},
    {"1500u", 0, 1, 0, 2},
    {"123456789n", 0, 1, 0, 124},
    {"-1.5", 0, -2, 0, -1500},
    {"-1n", 0, -1, 0, -1},
    {"-1500u", 0, -1, 0, -2},
    {"1Gi", 0, 1073741824, 0, 1073741824000LL},
    {"1.5Ki", 0, 1536, 0, 1536000},
    {"0.1Ki", 0, 103, 0, 102400},
    {"1E", 0, 1000000000000000000LL, TS_EOVERFLOW, 0},
    {"9223372036854775807", 0, INT64_MAX, TS_EOVERFLOW, 0},
    {"-9223372036854775808", 0, INT64_MIN, TS_EOVERFLOW, 0},
    {"9223372036854775807m", 0, 9223372036854776LL, 0, INT64_MAX},
    {"9223372036854775807n", 0, 9223372037LL, 0, 9223372036855LL},
    {"9223372036854775807u", 0, 9223372036855LL, 0, 9223372036854776LL},
    {"12E", TS_EOVERFLOW, 0, TS_EOVERFLOW, 0},
    {"999999999E", TS_EOVERFLOW, 0, TS_EOVERFLOW, 0},
    {"9223372036854775.807", 0, 9223372036854776LL, 0, INT64_MAX},
    {"9223372036854775.81", 0, 9223372036854776LL, TS_EOVERFLOW, 0},
};

static void test_value_rounding(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ELEMS(value_cases); i++) {
        struct ts_quantity q = q_(value_cases[i].in);
        int64_t v = 77, m = 77;
        int vrc = ts_quantity_value(&q, &v), mrc = ts_quantity_milli_value(&q, &m);

        if (vrc != value_cases[i].v_rc || (vrc == 0 && v != value_cases[i].v) || (vrc && v != 77))
            fail_msg("'%s': value rc %d %lld, want rc %d %lld", value_cases[i].in, vrc,
                     (long long)v, value_cases[i].v_rc, (long long)value_cases[i].v);
        if (mrc != value_cases[i].m_rc || (mrc == 0 && m != value_cases[i].m) || (mrc && m != 77))
            fail_msg("'%s': milli rc %d %lld, want rc %d %lld", value_cases[i].in, mrc,
                     (long long)m, value_cases[i].m_rc, (long long)value_cases[i].m);
    }
}

static void test_value_unnormalised(void **state)
{
    int64_t v;

    (void)state;
    assert_int_equal(ts_quantity_value(&(struct ts_quantity){1, 18, D}, &v), 0);
    assert_int_equal(v, 1000000000000000000LL);
    assert_int_equal(ts_quantity_value(&(struct ts_quantity){1, 19, D}, &v), TS_EOVERFLOW);
    assert_int_equal(ts_quantity_value(&(struct ts_quantity){1, 40, D}, &v), TS_EOVERFLOW);
    assert_int_equal(ts_quantity_value(&(struct ts_quantity){0, 40, D}, &v), 0);
    assert_int_equal(v, 0);
    assert_int_equal(ts_quantity_value(&(struct ts_quantity){3000, -3, D}, &v), 0);
    assert_int_equal(v, 3);
    assert_int_equal(ts_quantity_value(&(struct ts_quantity){INT64_MIN, -9, D}, &v), 0);
    assert_int_equal(v, -9223372037LL);
    assert_int_equal(ts_quantity_milli_value(&(struct ts_quantity){INT64_MIN, -9, D}, &v), 0);
    assert_int_equal(v, -9223372036855LL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_canonical),
        cmocka_unit_test(test_parse_canonical_negated),
        cmocka_unit_test(test_parse_fields),
        cmocka_unit_test(test_parse_rejects),
        cmocka_unit_test(test_parse_overflow),
        cmocka_unit_test(test_parse_views),
        cmocka_unit_test(test_format_structs),
        cmocka_unit_test(test_format_truncates),
        cmocka_unit_test(test_from_int_and_milli),
        cmocka_unit_test(test_cmp_table),
        cmocka_unit_test(test_cmp_unnormalised),
        cmocka_unit_test(test_sign_min_max),
        cmocka_unit_test(test_arith_table),
        cmocka_unit_test(test_arith_formats_and_aliasing),
        cmocka_unit_test(test_value_rounding),
        cmocka_unit_test(test_value_unnormalised),
    };

    ts_alloc_init();
    return cmocka_run_group_tests_name("quantity", tests, NULL, NULL);
}
