/* Tests for pkg/yaml: scalar typing, streams, anchors and merges, errors
 * with positions, the path -> line map, encoding goldens and the round
 * trip decode(encode(x)) == x. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/json.h"
#include "util/alloc.h"
#include "yaml/yaml.h"

#define N(a)       (sizeof(a) / sizeof((a)[0]))
#define STR_LEN(s) (s), strlen(s)

/* Reads a whole file; the caller frees the result. */
static char *slurp(const char *path, size_t *len)
{
    struct ts_buf b;
    char chunk[4096];
    size_t n;
    FILE *f = fopen(path, "rb");

    if (!f)
        fail_msg("cannot open %s (tests run from the repository root)", path);
    ts_buf_init(&b, 0);
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        ts_buf_add(&b, chunk, n);
    fclose(f);
    *len = b.len;
    return ts_buf_take(&b);
}

static cJSON *load_json(const char *path)
{
    size_t len;
    char *s = slurp(path, &len);
    cJSON *v = NULL;
    struct ts_err e = {0};

    if (ts_json_parse(s, len, &v, &e))
        fail_msg("%s: %s", path, e.msg);
    free(s);
    return v;
}

static char *text(const cJSON *v)
{
    char *s = ts_json_dumps(v, TS_JSON_COMPACT);

    assert_non_null(s);
    return s;
}

static cJSON *decode_one(const char *yaml)
{
    cJSON *v = NULL;
    struct ts_err e = {0};

    if (ts_yaml_decode_one(yaml, strlen(yaml), &v, &e))
        fail_msg("decode '%s': %s", yaml, e.msg);
    return v;
}

static char *encode(const cJSON *v, unsigned flags)
{
    struct ts_buf b;
    struct ts_err e = {0};

    ts_buf_init(&b, 0);
    if (ts_yaml_encode(v, flags, &b, &e))
        fail_msg("encode: %s", e.msg);
    return ts_buf_take(&b);
}

/* "v: <scalar>" decodes to {"v": want}. */
/* clang-format off */
static const struct {
    const char *in;
    const char *want;
} scalar_typing_cases[] = {
    {"1", "1"}, {"-1", "-1"}, {"+1", "1"}, {"0", "0"}, {"-0", "0"}, {"0x1F", "31"}, {"0X1f", "31"},
    {"+0x10", "16"}, {"-0x10", "-16"}, {"0o17", "15"}, {"017", "15"}, {"0755", "493"},
    {"0b101", "5"}, {"-0b11", "-3"}, {"1_000", "1000"}, {"1__0_", "10"}, {"08", "8"},
    {"09.5", "9.5"}, {"1.5", "1.5"}, {"-1.5", "-1.5"}, {".5", "0.5"}, {"-.5", "-0.5"}, {"1.", "1"},
    {"1e3", "1000"}, {"1E3", "1000"}, {"12e+03", "12000"}, {"1.5e-3", "0.0015"}, {"0.1", "0.1"},
    {"1e-7", "1e-07"}, {"1e-400", "0"}, {"true", "true"}, {"True", "true"}, {"TRUE", "true"},
    {"yes", "true"}, {"Yes", "true"}, {"YES", "true"}, {"y", "true"}, {"Y", "true"}, {"on", "true"},
    {"On", "true"}, {"ON", "true"}, {"false", "false"}, {"False", "false"}, {"FALSE", "false"},
    {"no", "false"}, {"No", "false"}, {"NO", "false"}, {"n", "false"}, {"N", "false"},
    {"off", "false"}, {"Off", "false"}, {"OFF", "false"}, {"~", "null"}, {"null", "null"},
    {"Null", "null"}, {"NULL", "null"}, {"", "null"}, {"tRUE", "\"tRUE\""}, {"nULL", "\"nULL\""},
    {"yES", "\"yES\""}, {"oN", "\"oN\""}, {"abc", "\"abc\""}, {"_1", "\"_1\""}, {"0x", "\"0x\""},
    {"0xG", "\"0xG\""}, {"0o", "\"0o\""}, {"1e", "\"1e\""}, {"1.5.6", "\"1.5.6\""},
    {"1e3.5", "\"1e3.5\""}, {"1e400", "\"1e400\""}, {"-.inf2", "\"-.inf2\""}, {".INf", "\".INf\""},
    {"1:20", "\"1:20\""}, {"2001-12-14", "\"2001-12-14\""},
    {"2001-12-14T21:59:43.10-05:00", "\"2001-12-14T21:59:43.10-05:00\""},
    {"-0x8000000000000001", "\"-0x8000000000000001\""}, {"'1'", "\"1\""}, {"\"true\"", "\"true\""},
    {"'~'", "\"~\""}, {"''", "\"\""}, {"'it''s'", "\"it's\""},
    {"\"\\t\\u00e9\"", "\"\\t\xc3\xa9\""}, {"|\n  1\n", "\"1\\n\""}, {">-\n  a\n  b\n", "\"a b\""},
    {"!!str 5", "\"5\""}, {"!!str true", "\"true\""}, {"!!float 1", "1"}, {"!!int 0x1F", "31"},
    {"!!int \"7\"", "7"}, {"!!bool yes", "true"}, {"!!null ''", "null"}, {"!custom 5", "\"5\""},
    {"! 5", "\"5\""}, {"!!timestamp 2001-12-14", "\"2001-12-14\""},
};
/* clang-format on */

static void test_scalar_typing(void **state)
{
    (void)state;
    for (size_t i = 0; i < N(scalar_typing_cases); i++) {
        char yaml[128], want[160];
        cJSON *v;
        char *got;

        snprintf(yaml, sizeof(yaml), "v: %s\n", scalar_typing_cases[i].in);
        snprintf(want, sizeof(want), "{\"v\":%s}", scalar_typing_cases[i].want);
        v = decode_one(yaml);
        got = text(v);
        if (strcmp(got, want))
            fail_msg("scalar '%s': got %s, want %s", scalar_typing_cases[i].in, got, want);
        free(got);
        cJSON_Delete(v);
    }
}

/* Integers beyond 2^53 are raw nodes with the exact text. */
static void test_big_integers_exact(void **state)
{
    static const struct {
        const char *in;
        const char *want;
        int raw;
    } cases[] = {
        {"9007199254740992", "9007199254740992", 0},
        {"-9007199254740992", "-9007199254740992", 0},
        {"9007199254740993", "9007199254740993", 1},
        {"9223372036854775807", "9223372036854775807", 1},
        {"-9223372036854775808", "-9223372036854775808", 1},
        {"0x7fffffffffffffff", "9223372036854775807", 1},
        {"18446744073709551615", "18446744073709551615", 1},
        {"18446744073709551616", "18446744073709551616", 0}, /* a float, as go-yaml reads it */
    };

    (void)state;
    for (size_t i = 0; i < N(cases); i++) {
        char yaml[64];
        cJSON *v;
        char *got;

        snprintf(yaml, sizeof(yaml), "%s\n", cases[i].in);
        v = decode_one(yaml);
        got = text(v);
        if (strcmp(got, cases[i].want) || cJSON_IsRaw(v) != cases[i].raw)
            fail_msg("'%s': got %s (raw %d)", cases[i].in, got, cJSON_IsRaw(v));
        free(got);
        cJSON_Delete(v);
    }
    {
        int64_t x = 0;
        cJSON *v = decode_one("9223372036854775807");

        assert_int_equal(ts_json_get_i64(v, &x), 0);
        assert_true(x == INT64_MAX);
        assert_true(v->valuedouble == 9223372036854775807.0);
        cJSON_Delete(v);
    }
}

/* "<key>: v" gives the key string sigs.k8s.io/yaml gives. */
static void test_key_conversion(void **state)
{
    /* clang-format off */
    static const struct {
        const char *in;
        const char *want;
    } cases[] = {
        {"1", "1"}, {"0x10", "16"}, {"-3", "-3"}, {"1.5", "1.5"}, {"1e6", "1e+06"},
        {"1e-5", "1e-05"}, {"0.1", "0.1"}, {"123456.7", "123456.7"}, {"1234567.0", "1.234567e+06"},
        {"3.14159265358979", "3.1415927"}, {"-0.0", "-0"}, {"y", "true"}, {"on", "true"},
        {"No", "false"}, {".inf", ".inf"}, {"-.Inf", "-.inf"}, {".nan", ".nan"}, {"'y'", "y"},
        {"2001-12-14", "2001-12-14"}, {"18446744073709551615", "18446744073709551615"},
        {"\"<<\"", "<<"}, {"'~'", "~"}, {"''", ""},
        /* finite doubles past float32 (crashed, found by fuzz_yaml) */
        {"1e300", ".inf"}, {"-4e38", "-.inf"}, {"3e38", "3e+38"},
    };
    /* clang-format on */

    (void)state;
    for (size_t i = 0; i < N(cases); i++) {
        char yaml[128];
        cJSON *v;

        snprintf(yaml, sizeof(yaml), "%s: v\n", cases[i].in);
        v = decode_one(yaml);
        if (!v->child || strcmp(v->child->string, cases[i].want))
            fail_msg("key '%s': got '%s', want '%s'", cases[i].in,
                     v->child ? v->child->string : "(none)", cases[i].want);
        cJSON_Delete(v);
    }
}

static void test_multi_document_stream(void **state)
{
    static const struct {
        int line;
        const char *name;
    } want[] = {{4, "team-a"}, {12, "team-b"}, {22, "lq"}};
    struct ts_yaml_stream s = TS_YAML_STREAM_INIT;
    struct ts_err e = {0};

    (void)state;
    assert_int_equal(ts_yaml_decode_file("test/data/yaml/multi.yaml", &s, &e), 0);
    assert_int_equal(s.n, N(want));
    for (size_t i = 0; i < N(want); i++) {
        assert_int_equal(s.docs[i].line, want[i].line);
        assert_string_equal(ts_json_get_string(s.docs[i].root, "metadata.name"), want[i].name);
        assert_string_equal(s.docs[i].name, "test/data/yaml/multi.yaml");
    }
    /* a second decode appends; a failing one keeps what was there */
    assert_int_equal(ts_yaml_decode(STR_LEN("a: 1\n---\nb: 2\n"), NULL, &s, &e), 0);
    assert_int_equal(s.n, 5);
    assert_null(s.docs[4].name);
    assert_int_equal(ts_yaml_decode(STR_LEN("a: 1\n---\nb: [\n"), NULL, &s, &e), TS_EPARSE);
    assert_int_equal(s.n, 5);
    ts_yaml_stream_release(&s);
    assert_int_equal(s.n, 0);
    assert_int_equal(ts_yaml_decode(STR_LEN(""), NULL, &s, &e), 0);
    assert_int_equal(ts_yaml_decode(STR_LEN("# only\n---\n...\n"), NULL, &s, &e), 0);
    assert_int_equal(s.n, 0);
    ts_yaml_stream_release(&s);
}

static void test_anchors_and_merges(void **state)
{
    static const struct {
        const char *path;
        int line;
    } lines[] = {
        {"master.restartPolicy", 2}, /* merged: where it was written */
        {"master.replicas", 12},     /* explicit key overrides the merge */
        {"worker.priority", 9},      {"worker.replicas", 14}, {"limits", 17},
        {"limits.cpu", 5},           {"names[1]", 20},        {"alpha", 25},
    };
    struct ts_yaml_stream s = TS_YAML_STREAM_INIT;
    cJSON *want = load_json("test/data/yaml/anchors.json");
    struct ts_err e = {0};
    char *got;

    (void)state;
    assert_int_equal(ts_yaml_decode_file("test/data/yaml/anchors.yaml", &s, &e), 0);
    assert_int_equal(s.n, 1);
    if (!ts_json_equal(s.docs[0].root, want)) {
        got = text(s.docs[0].root);
        fail_msg("anchors: got %s", got);
    }
    for (size_t i = 0; i < N(lines); i++)
        if (ts_yaml_doc_line(&s.docs[0], lines[i].path) != lines[i].line)
            fail_msg("line of %s: got %d, want %d", lines[i].path,
                     ts_yaml_doc_line(&s.docs[0], lines[i].path), lines[i].line);
    /* aliases are independent copies */
    assert_ptr_not_equal(ts_json_get(s.docs[0].root, "limits"),
                         ts_json_get(s.docs[0].root, "defaults.resources"));
    cJSON_Delete(want);
    ts_yaml_stream_release(&s);
}

static const struct {
    const char *in;
    int rc;
    int line, col;
    const char *msg;
} decode_errors_cases[] = {
    {"a: 1\na: 2\n", TS_EPARSE, 2, 1, "key \"a\" already set in map"},
    {"1: a\n\"1\": b\n", TS_EPARSE, 2, 1, "key \"1\" already set"},
    {"y: 1\ntrue: 2\n", TS_EPARSE, 2, 1, "key \"true\" already set"},
    {"a: [1,\n  2\nc: 3\n", TS_EPARSE, 3, 2, "did not find expected ',' or ']'"},
    {"a: b: c\n", TS_EPARSE, 1, 5, "mapping values are not allowed"},
    {"a:\n\t- x\n", TS_EPARSE, 2, 1, "cannot start any token"},
    {"a: 1\n  b: 2\n", TS_EPARSE, 2, 4, "mapping values"},
    {"x: .inf\n", TS_EPARSE, 1, 4, "not representable in JSON"},
    {"x: [1, -.INF]\n", TS_EPARSE, 1, 8, "not representable"},
    {"x: .NaN\n", TS_EPARSE, 1, 4, "not representable"},
    {"x: *nope\n", TS_EPARSE, 1, 4, "unknown anchor 'nope'"},
    {"x: &a [*a]\n", TS_EPARSE, 1, 8, "unknown anchor 'a'"},
    {"a: &a x\n---\nb: *a\n", TS_EPARSE, 3, 4, "unknown anchor"},
    {"x: !!int abc\n", TS_EPARSE, 1, 4, "cannot decode !!str `abc` as a !!int"},
    {"x: !!bool 1\n", TS_EPARSE, 1, 4, "cannot decode !!int `1` as a !!bool"},
    {"x: !!binary aGk=\n", TS_EUNSUPPORTED, 1, 4, "!!binary"},
    {"? [a]\n: 1\n", TS_EPARSE, 1, 3, "a sequence cannot be a map key"},
    {"{a: 1}: 1\n", TS_EPARSE, 1, 1, "a mapping cannot be a map key"},
    {"~: 1\n", TS_EPARSE, 1, 1, "null is not a valid map key"},
    {"x:\n  <<: 5\n", TS_EPARSE, 2, 3, "map merge requires"},
    {"x:\n  <<: [{a: 1}, b]\n", TS_EPARSE, 2, 3, "map merge requires"},
    {"x: \"a\\0b\"\n", TS_EPARSE, 1, 4, "NUL"},
    {"\xff: 1\n", TS_EPARSE, 1, 1, "invalid leading UTF-8 octet"},
    {"a: 1\n\xc3", TS_EPARSE, 2, 1, "incomplete UTF-8"},
    {"a: 'open\n", TS_EPARSE, 2, 1, "found unexpected end of stream"},
};

static void test_decode_errors(void **state)
{
    (void)state;
    for (size_t i = 0; i < N(decode_errors_cases); i++) {
        struct ts_yaml_stream s = TS_YAML_STREAM_INIT;
        struct ts_err e = {0};
        char where[64];
        int rc = ts_yaml_decode(decode_errors_cases[i].in, strlen(decode_errors_cases[i].in), NULL,
                                &s, &e);

        snprintf(where, sizeof(where), "yaml: line %d column %d: ", decode_errors_cases[i].line,
                 decode_errors_cases[i].col);
        if (rc != decode_errors_cases[i].rc || e.code != rc)
            fail_msg("case %zu: rc %d, want %d (%s)", i, rc, decode_errors_cases[i].rc, e.msg);
        if (s.err_line != decode_errors_cases[i].line || s.err_col != decode_errors_cases[i].col ||
            s.n != 0)
            fail_msg("case %zu: at %d:%d, want %d:%d (%s)", i, s.err_line, s.err_col,
                     decode_errors_cases[i].line, decode_errors_cases[i].col, e.msg);
        if (strncmp(e.msg, where, strlen(where)) || !strstr(e.msg, decode_errors_cases[i].msg))
            fail_msg("case %zu: message '%s', want '%s...%s'", i, e.msg, where,
                     decode_errors_cases[i].msg);
        ts_yaml_stream_release(&s);
    }
}

static void test_error_names_file(void **state)
{
    struct ts_yaml_stream s = TS_YAML_STREAM_INIT;
    struct ts_err e = {0};
    cJSON *v = (cJSON *)1;

    (void)state;
    assert_int_equal(ts_yaml_decode(STR_LEN("a: 1\na: 2\n"), "cq.yaml", &s, &e), TS_EPARSE);
    assert_string_equal(e.msg, "cq.yaml:2:1: key \"a\" already set in map");
    assert_int_equal(ts_yaml_decode_file("test/data/yaml/no-such-file.yaml", &s, &e), TS_EIO);
    assert_non_null(strstr(e.msg, "no-such-file.yaml"));
    assert_int_equal(ts_yaml_decode_one(STR_LEN("a: 1\n---\nb: 2\n"), &v, &e), TS_EINVAL);
    assert_null(v);
    assert_non_null(strstr(e.msg, "found 2"));
    assert_int_equal(ts_yaml_decode_one(STR_LEN("# nothing\n"), &v, &e), TS_EINVAL);
    assert_int_equal(ts_yaml_decode_one(STR_LEN("["), &v, &e), TS_EPARSE);
    ts_yaml_stream_release(&s);
}

/* Mappings past the size where a key index takes over behave the same. */
static void test_large_mappings(void **state)
{
    struct ts_buf b;
    struct ts_err e = {0};
    cJSON *v = NULL;

    (void)state;
    ts_buf_init(&b, 0);
    ts_buf_adds(&b, "base: &b {");
    for (int i = 0; i < 100; i++)
        ts_buf_addf(&b, "%sk%d: %d", i ? ", " : "", i, i);
    ts_buf_adds(&b, "}\nm:\n  k5: explicit\n  <<: *b\n  k70: override\n  extra: 1\n");
    assert_int_equal(ts_yaml_decode_one(b.ptr, b.len, &v, &e), 0);
    assert_int_equal(cJSON_GetArraySize(ts_json_get(v, "m")), 101);
    assert_string_equal(ts_json_get_string(v, "m.k5"), "explicit");
    assert_string_equal(ts_json_get_string(v, "m.k70"), "override");
    assert_int_equal(ts_json_get(v, "m.k99")->valuedouble, 99);
    cJSON_Delete(v);
    ts_buf_adds(&b, "  k42: merged keys may be overridden\n  k70: again\n");
    assert_int_equal(ts_yaml_decode_one(b.ptr, b.len, &v, &e), TS_EPARSE);
    assert_non_null(strstr(e.msg, "line 8 column 3: key \"k70\" already set"));
    ts_buf_adds(&b, "  extra: 2\n"); /* still the first error */
    assert_int_equal(ts_yaml_decode_one(b.ptr, b.len, &v, &e), TS_EPARSE);
    assert_non_null(strstr(e.msg, "\"k70\""));
    ts_buf_release(&b);
}

static void test_limits(void **state)
{
    struct ts_buf b;
    struct ts_err e = {0};
    cJSON *v = NULL;

    (void)state;
    ts_buf_init(&b, 0);
    for (int i = 0; i < TS_YAML_MAX_DEPTH; i++)
        ts_buf_addc(&b, '[');
    assert_int_equal(ts_yaml_decode_one(b.ptr, b.len, &v, &e), TS_EPARSE); /* unclosed */
    ts_buf_addc(&b, '[');
    assert_int_equal(ts_yaml_decode_one(b.ptr, b.len, &v, &e), TS_EOVERFLOW);
    assert_non_null(strstr(e.msg, "nesting deeper than 1000"));
    ts_buf_reset(&b);
    /* the "billion laughs": each level has ten aliases of the one before */
    ts_buf_adds(&b, "a: &a [x, x, x, x, x, x, x, x, x, x]\n");
    for (char c = 'b'; c <= 'j'; c++)
        ts_buf_addf(&b, "%c: &%c [*%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c]\n", c, c, c - 1,
                    c - 1, c - 1, c - 1, c - 1, c - 1, c - 1, c - 1, c - 1, c - 1);
    assert_int_equal(ts_yaml_decode_one(b.ptr, b.len, &v, &e), TS_EOVERFLOW);
    assert_non_null(strstr(e.msg, "expands the document too much"));
    assert_null(v);
    ts_buf_release(&b);
}

/* clang-format off */
static const struct {
    size_t doc;
    const char *path;
    int line;
} path_to_line_cases[] = {
    {0, "", 2}, {0, "apiVersion", 2}, {0, "metadata.name", 5},
    {0, "metadata.annotations[kueue.x-k8s.io/queue-name]", 7},
    {0, "metadata.annotations['kueue.x-k8s.io/queue-name']", 7}, {0, "spec.resourceGroups", 10},
    {0, "spec.resourceGroups[0]", 11}, {0, "spec.resourceGroups[0].coveredResources[1]", 11},
    {0, "spec.resourceGroups[0].flavors[1].name", 17},
    {0, "spec.resourceGroups[0].flavors[0].resources[0].nominalQuota", 16},
    {0, "spec.resourceGroups[0].flavors[1].resources[0].nominalQuota", 20}, {0, "spec.cohort", 21},
    {0, "spec.resourceGroups[0].flavors[5].name", 12}, /* missing: the parent */
    {0, "spec.missing", 8},
    {0, "spec.resourceGroups[0].flavors[0].resources[0].nominalQuota.x", 16},
    {0, "metadata.annotations.kueue", 6}, {0, "spec..x", 8}, {0, "spec.resourceGroups.name", 10},
    {1, "", 25}, {1, "data.script", 28}, {1, "data.after", 31},
};
/* clang-format on */

static void test_path_to_line(void **state)
{
    struct ts_yaml_stream s = TS_YAML_STREAM_INIT;
    struct ts_err e = {0};

    (void)state;
    assert_int_equal(ts_yaml_decode_file("test/data/yaml/lines.yaml", &s, &e), 0);
    assert_int_equal(s.n, 2);
    for (size_t i = 0; i < N(path_to_line_cases); i++) {
        int got = ts_yaml_doc_line(&s.docs[path_to_line_cases[i].doc], path_to_line_cases[i].path);

        if (got != path_to_line_cases[i].line)
            fail_msg("doc %zu '%s': line %d, want %d", path_to_line_cases[i].doc,
                     path_to_line_cases[i].path, got, path_to_line_cases[i].line);
    }
    assert_int_equal(s.docs[0].line, 2);
    assert_int_equal(ts_yaml_doc_err(&s.docs[0], "spec.resourceGroups[0].flavors[1].name", &e,
                                     TS_EINVAL, "flavor '%s' not found", "spot"),
                     TS_EINVAL);
    assert_string_equal(e.msg, "test/data/yaml/lines.yaml:17: "
                               "spec.resourceGroups[0].flavors[1].name: flavor 'spot' not found");
    ts_yaml_doc_err(&s.docs[1], "", &e, TS_EINVAL, "bad");
    assert_string_equal(e.msg, "test/data/yaml/lines.yaml:25: bad");
    ts_yaml_stream_release(&s);
}

/* The line map does not depend on the tree: take it and change it. */
static void test_line_map_survives_take(void **state)
{
    struct ts_yaml_stream s = TS_YAML_STREAM_INIT;
    struct ts_err e = {0};
    cJSON *root;

    (void)state;
    assert_int_equal(ts_yaml_decode(STR_LEN("a:\n  b: 1\n\n  c:\n  - x\n  - y\n"), NULL, &s, &e),
                     0);
    root = ts_yaml_doc_take(&s.docs[0]);
    assert_null(s.docs[0].root);
    cJSON_DeleteItemFromObject(root, "a");
    cJSON_Delete(root);
    assert_int_equal(ts_yaml_doc_line(&s.docs[0], "a.c[1]"), 6);
    assert_int_equal(ts_yaml_doc_line(&s.docs[0], "a.c"), 4);
    ts_yaml_doc_err(&s.docs[0], "a.b", &e, TS_EINVAL, "x");
    assert_string_equal(e.msg, "line 2: a.b: x");
    ts_yaml_stream_release(&s);
}

static void check_golden(const char *json_path, const char *yaml_path, unsigned flags)
{
    cJSON *v = load_json(json_path);
    size_t len;
    char *want = slurp(yaml_path, &len);
    char *got = encode(v, flags);

    if (strcmp(got, want))
        fail_msg("%s: encoding differs from %s:\n%s", json_path, yaml_path, got);
    free(got);
    free(want);
    cJSON_Delete(v);
}

/* encode-quoting.yaml and encode-structure.yaml are kubectl's own output
 * (kubectl create configmap --dry-run=client -o yaml; kubectl config view
 * -o yaml) for the matching .json. */
static void test_encode_goldens(void **state)
{
    (void)state;
    check_golden("test/data/yaml/encode-quoting.json", "test/data/yaml/encode-quoting.yaml",
                 TS_YAML_SORT_KEYS);
    check_golden("test/data/yaml/encode-structure.json", "test/data/yaml/encode-structure.yaml",
                 TS_YAML_SORT_KEYS);
    check_golden("test/data/yaml/encode-unsorted.json", "test/data/yaml/encode-unsorted.yaml", 0);
}

static void test_encode_table(void **state)
{
    static const struct {
        const char *json;
        unsigned flags;
        const char *want;
    } cases[] = {
        {"\"\"", 0, "\"\"\n"},
        {"\"x\"", 0, "x\n"},
        {"{}", 0, "{}\n"},
        {"[]", 0, "[]\n"},
        {"{\"a\":\"\",\"b\":[],\"c\":{}}", 0, "a: \"\"\nb: []\nc: {}\n"},
        {"[1.5e300,1e-7,0.1,-0.0,9007199254740992,1e16,-2]", 0,
         "- 1.5e+300\n- 1e-07\n- 0.1\n- 0\n- 9007199254740992\n- 1e+16\n- -2\n"},
        {"{\"b\":1,\"a10\":2,\"a9\":3,\"_\":4,\"Z\":5}", 0, "b: 1\na10: 2\na9: 3\n_: 4\nZ: 5\n"},
        {"{\"b\":1,\"a10\":2,\"a9\":3,\"_\":4,\"Z\":5}", TS_YAML_SORT_KEYS,
         "_: 4\nZ: 5\na9: 3\na10: 2\nb: 1\n"},
        {"[[1,[2]],{\"a\":[{\"b\":{}}]}]", 0, "- - 1\n  - - 2\n- a:\n  - b: {}\n"},
        {"{\"<<\":\"<<\",\"y\":\"n\"}", 0, "\"<<\": <<\n\"y\": \"n\"\n"},
        {"{\"s\":\"a\\nb\",\"t\":\"a\\n\",\"u\":\"a\\n\\n\",\"v\":\" a\\nb\"}", 0,
         "s: |-\n  a\n  b\nt: |\n  a\nu: |+\n  a\n\nv: |2-\n   a\n  b\n"},
        {"{\"cr\":\"a\\r\\nb\",\"nel\":\"a\\u0085b\"}", 0, "cr: \"a\\r\\nb\"\nnel: \"a\\Nb\"\n"},
    };

    (void)state;
    for (size_t i = 0; i < N(cases); i++) {
        cJSON *v = NULL;
        char *got;

        assert_int_equal(ts_json_parse(cases[i].json, strlen(cases[i].json), &v, NULL), 0);
        got = encode(v, cases[i].flags);
        if (strcmp(got, cases[i].want))
            fail_msg("%s:\n got  '%s'\n want '%s'", cases[i].json, got, cases[i].want);
        free(got);
        cJSON_Delete(v);
    }
}

static void test_encode_raw_and_errors(void **state)
{
    struct ts_buf b;
    struct ts_err e = {0};
    cJSON *v = cJSON_CreateObject();
    cJSON *bad;

    (void)state;
    cJSON_AddRawToObject(v, "big", "12345678901234567890");
    ts_buf_init(&b, 0);
    assert_int_equal(ts_yaml_encode(v, 0, &b, &e), 0);
    assert_string_equal(b.ptr, "big: 12345678901234567890\n");
    bad = cJSON_CreateRaw("1.5");
    assert_int_equal(ts_yaml_encode(bad, 0, &b, &e), TS_EINVAL);
    cJSON_Delete(bad);
    bad = cJSON_CreateNumber(NAN);
    assert_int_equal(ts_yaml_encode(bad, 0, &b, &e), TS_EINVAL);
    cJSON_Delete(bad);
    bad = cJSON_CreateString("\xff\xfe");
    assert_int_equal(ts_yaml_encode(bad, 0, &b, &e), TS_EINVAL);
    cJSON_Delete(bad);
    assert_int_equal(ts_yaml_encode(NULL, 0, &b, &e), TS_EINVAL);
    assert_string_equal(b.ptr, "big: 12345678901234567890\n"); /* failures append nothing */
    ts_buf_release(&b);
    ts_buf_init(&b, 10);
    assert_int_equal(ts_yaml_encode(v, 0, &b, &e), TS_EOVERFLOW);
    assert_int_equal(b.len, 0);
    ts_buf_release(&b);
    cJSON_Delete(v);
}

static void test_encode_stream(void **state)
{
    cJSON *docs[3];
    struct ts_buf b;
    struct ts_yaml_stream s = TS_YAML_STREAM_INIT;

    (void)state;
    docs[0] = decode_one("{a: 1}");
    docs[1] = decode_one("[x]");
    docs[2] = decode_one("b: {c: true}");
    ts_buf_init(&b, 0);
    assert_int_equal(ts_yaml_encode_stream((const cJSON *const *)docs, 3, 0, &b, NULL), 0);
    assert_string_equal(b.ptr, "a: 1\n---\n- x\n---\nb:\n  c: true\n");
    assert_int_equal(ts_yaml_decode(b.ptr, b.len, NULL, &s, NULL), 0);
    assert_int_equal(s.n, 3);
    for (size_t i = 0; i < 3; i++) {
        assert_true(ts_json_equal(s.docs[i].root, docs[i]));
        cJSON_Delete(docs[i]);
    }
    assert_int_equal(s.docs[2].line, 5);
    ts_yaml_stream_release(&s);
    ts_buf_release(&b);
}

/* Exact equality: same types, same key order, numbers compared with ==
 * (ts_json_equal allows a relative epsilon; -0 == 0 here too). */
static int same(const cJSON *a, const cJSON *b)
{
    if ((a->type & 0xff) != (b->type & 0xff))
        return 0;
    if (cJSON_IsNumber(a))
        return a->valuedouble == b->valuedouble;
    if (cJSON_IsString(a) || cJSON_IsRaw(a))
        return !strcmp(a->valuestring, b->valuestring);
    for (a = a->child, b = b->child; a && b; a = a->next, b = b->next)
        if ((a->string && strcmp(a->string, b->string)) || !same(a, b))
            return 0;
    return !a && !b;
}

/* decode(encode(v)) == v, exactly (same key order, same numbers) unsorted,
 * and deep-equal when keys are sorted. */
static void check_round_trip(const cJSON *v, const char *what)
{
    static const unsigned modes[] = {0, TS_YAML_SORT_KEYS};

    for (size_t m = 0; m < N(modes); m++) {
        char *yaml = encode(v, modes[m]);
        cJSON *back = NULL;
        struct ts_err e = {0};
        char *a, *b;

        if (ts_yaml_decode_one(yaml, strlen(yaml), &back, &e))
            fail_msg("%s: cannot decode its encoding (%s):\n%s", what, e.msg, yaml);
        a = text(v);
        b = text(back);
        if (modes[m] ? !ts_json_equal(v, back) : !same(v, back))
            fail_msg("%s (mode %u):\n in  %s\n out %s\nyaml:\n%s", what, modes[m], a, b, yaml);
        free(a);
        free(b);
        free(yaml);
        cJSON_Delete(back);
    }
}

static void test_round_trip_corpus(void **state)
{
    cJSON *corpus = load_json("test/data/yaml/roundtrip.json");
    const cJSON *c;
    char what[32];
    int i = 0;

    (void)state;
    cJSON_ArrayForEach(c, corpus)
    {
        snprintf(what, sizeof(what), "corpus[%d]", i++);
        check_round_trip(c, what);
    }
    assert_int_equal(i, 16);
    cJSON_Delete(corpus);
}

/* Deterministic pseudo-random trees built from fragments that stress the
 * quoting rules. */
static uint64_t rnd(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 33;
}

static char *random_string(uint64_t *seed)
{
    /* clang-format off */
    static const char *const frags[] = {
        "", " ", "a", "y", "n", "true", "1", "0x1F", "1e3", ":", ": ", " #", "#", "-", "- ", "?",
        "*", "&", "!", "|", ">", "'", "\"", "\\", "\n", "\t", "\r", "é", "€", "😀", "\x01", "~",
        "null", ".", "...", "---", "<<", "%", "@", "`", "{", "}", "[", "]", ",", "0", "08", "1_000",
        ".inf", "2001-12-14", "1:20", "  ", "\n\n", "x", "\xc2\x85", "\xe2\x80\xa8", "\xef\xbb\xbf",
        "\xc2\xa0", "word word word word word ",
    };
    /* clang-format on */
    struct ts_buf b;
    uint64_t n = rnd(seed) % 5;

    ts_buf_init(&b, 0);
    for (uint64_t i = 0; i < n; i++)
        ts_buf_adds(&b, frags[rnd(seed) % N(frags)]);
    return ts_buf_take(&b);
}

static cJSON *random_tree(uint64_t *seed, int depth)
{
    uint64_t kind = rnd(seed) % (depth > 3 ? 5 : 7);
    cJSON *v;
    char *s;

    switch (kind) {
    case 0:
        return cJSON_CreateNumber((double)(int64_t)(rnd(seed) - (1ULL << 30)));
    case 1:
        return cJSON_CreateNumber(ldexp((double)rnd(seed), (int)(rnd(seed) % 120) - 60));
    case 2:
        return rnd(seed) % 3 ? cJSON_CreateBool(rnd(seed) % 2) : cJSON_CreateNull();
    case 3:
    case 4:
        s = random_string(seed);
        v = cJSON_CreateString(s);
        free(s);
        return v;
    case 5:
        v = cJSON_CreateArray();
        for (uint64_t i = rnd(seed) % 4; i > 0; i--)
            cJSON_AddItemToArray(v, random_tree(seed, depth + 1));
        return v;
    default:
        v = cJSON_CreateObject();
        for (uint64_t i = rnd(seed) % 5; i > 0; i--) {
            s = random_string(seed);
            if (!cJSON_GetObjectItemCaseSensitive(v, s))
                cJSON_AddItemToObject(v, s, random_tree(seed, depth + 1));
            free(s);
        }
        return v;
    }
}

static void test_round_trip_random(void **state)
{
    uint64_t seed = 20240601;
    char what[32];

    (void)state;
    for (int i = 0; i < 3000; i++) {
        cJSON *v = random_tree(&seed, 0);

        snprintf(what, sizeof(what), "random tree %d", i);
        if (!cJSON_IsNull(v)) /* a null document is skipped, by design */
            check_round_trip(v, what);
        cJSON_Delete(v);
    }
}

/* Every sample manifest decodes, and survives encode + decode. */
static void round_trip_dir(const char *dir, int *files)
{
    DIR *d = opendir(dir);
    struct dirent *ent;

    if (!d)
        fail_msg("cannot open %s", dir);
    while ((ent = readdir(d))) {
        struct ts_yaml_stream s = TS_YAML_STREAM_INIT;
        struct ts_err e = {0};
        char path[512];
        size_t n = strlen(ent->d_name);

        if (n < 5 || strcmp(ent->d_name + n - 5, ".yaml"))
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, ent->d_name);
        if (ts_yaml_decode_file(path, &s, &e))
            fail_msg("%s", e.msg);
        assert_true(s.n > 0);
        for (size_t i = 0; i < s.n; i++) {
            assert_non_null(ts_json_get_string(s.docs[i].root, "kind"));
            check_round_trip(s.docs[i].root, path);
        }
        ts_yaml_stream_release(&s);
        (*files)++;
    }
    closedir(d);
}

static void test_samples_round_trip(void **state)
{
    int files = 0;

    (void)state;
    round_trip_dir("../shared/samples/seeds", &files);
    round_trip_dir("../shared/samples/kueue-examples", &files);
    assert_true(files >= 20);
}

int main(void)
{
    /* clang-format off */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scalar_typing),
        cmocka_unit_test(test_big_integers_exact),
        cmocka_unit_test(test_key_conversion),
        cmocka_unit_test(test_multi_document_stream),
        cmocka_unit_test(test_anchors_and_merges),
        cmocka_unit_test(test_decode_errors),
        cmocka_unit_test(test_error_names_file),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_large_mappings),
        cmocka_unit_test(test_path_to_line),
        cmocka_unit_test(test_line_map_survives_take),
        cmocka_unit_test(test_encode_goldens),
        cmocka_unit_test(test_encode_table),
        cmocka_unit_test(test_encode_raw_and_errors),
        cmocka_unit_test(test_encode_stream),
        cmocka_unit_test(test_round_trip_corpus),
        cmocka_unit_test(test_round_trip_random),
        cmocka_unit_test(test_samples_round_trip),
    };
    /* clang-format on */

    ts_alloc_init();
    return cmocka_run_group_tests_name("yaml", tests, NULL, NULL);
}
