/* Tests for pkg/json/json.h: parse errors, printing, paths, get/set. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "json/json.h"
#include "util/buf.h"
#include "util/alloc.h"
#include "util/arena.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static cJSON *parse(const char *s)
{
    cJSON *v = NULL;
    struct ts_err e = {0};

    if (ts_json_parse(s, strlen(s), &v, &e))
        fail_msg("parse '%s': %s", s, e.msg);
    return v;
}

/* Compact text of v (exact numbers); the caller frees it. */
static char *text(const cJSON *v)
{
    char *s = ts_json_dumps(v, TS_JSON_COMPACT);

    assert_non_null(s);
    return s;
}

static void assert_text(const cJSON *v, const char *want, const char *what)
{
    char *got = text(v);

    if (strcmp(got, want))
        fail_msg("%s: got %s, want %s", what, got, want);
    free(got);
}

/* 1001 nested arrays: one more than cJSON's nesting limit */
#define D10   "[[[[[[[[[["
#define D100  D10 D10 D10 D10 D10 D10 D10 D10 D10 D10
#define D1000 D100 D100 D100 D100 D100 D100 D100 D100 D100 D100
#define DEEP  D1000 "[1]"

static void test_parse_table(void **state)
{
    static const struct {
        const char *name;
        const char *in;
        size_t len; /* 0: strlen */
        int rc;
        const char *want; /* compact text, or a fragment of the error */
    } cases[] = {
        {"object", "{\"a\": [1, 2.5, \"x\"]}", 0, 0, "{\"a\":[1,2.5,\"x\"]}"},
        {"surrounding space", " \n [true, null] \n\t", 0, 0, "[true,null]"},
        {"scalar", "\"s\"", 0, 0, "\"s\""},
        {"length bounds the input", "[1]garbage", 3, 0, "[1]"},
        {"empty", "", 0, TS_EPARSE, "unexpected end of input at line 1 column 1 (byte 0)"},
        {"only space", "  \n ", 0, TS_EPARSE, "unexpected end"},
        {"missing value", "{\"a\":}", 0, TS_EPARSE, "at line 1 column 6 (byte 5)"},
        {"bad literal line 2", "{\n  \"a\": tru\n}", 0, TS_EPARSE, "at line 2 column 8"},
        {"trailing garbage", "[1] x", 0, TS_EPARSE, "at line 1 column 5 (byte 4)"},
        {"truncated", "{\"a\": [1, 2", 0, TS_EPARSE, "at line 1 column 11 (byte 10)"},
        {"two values", "1 2", 0, TS_EPARSE, "column 3"},
        {"nested too deep", DEEP, 0, TS_EPARSE, "nested deeper than 1000 levels at line 1"},
        {"number beyond a double", "[1, {\"a\": -1e400}]", 0, TS_EPARSE,
         "number out of range at line 1"},
        /* duplicate keys: the last wins (Go's encoding/json), at any depth
         * and in big objects too (found by fuzz_object) */
        {"duplicate key, last wins", "{\"spec\":{\"a\":1},\"x\":0,\"spec\":{\"b\":2}}", 0, 0,
         "{\"x\":0,\"spec\":{\"b\":2}}"},
        {"duplicate keys nested", "[{\"a\":{\"k\":1,\"k\":2,\"k\":3}}]", 0, 0,
         "[{\"a\":{\"k\":3}}]"},
        {"duplicate keys in a big object",
         "{\"a\":1,\"b\":1,\"c\":1,\"d\":1,\"e\":1,\"f\":1,\"g\":1,\"h\":1,\"i\":1,"
         "\"j\":1,\"k\":1,\"l\":1,\"m\":1,\"n\":1,\"o\":1,\"p\":1,\"a\":2,\"q\":1,\"p\":2}",
         0, 0,
         "{\"b\":1,\"c\":1,\"d\":1,\"e\":1,\"f\":1,\"g\":1,\"h\":1,\"i\":1,\"j\":1,"
         "\"k\":1,\"l\":1,\"m\":1,\"n\":1,\"o\":1,\"a\":2,\"q\":1,\"p\":2}"},
    };

    (void)state;
    for (size_t i = 0; i < N(cases); i++) {
        struct ts_err e = {0};
        cJSON *v = (cJSON *)1;
        size_t len = cases[i].len ? cases[i].len : strlen(cases[i].in);
        int rc = ts_json_parse(cases[i].in, len, &v, &e);

        if (rc != cases[i].rc)
            fail_msg("%s: rc %d, want %d (%s)", cases[i].name, rc, cases[i].rc, e.msg);
        if (rc == 0) {
            assert_text(v, cases[i].want, cases[i].name);
            cJSON_Delete(v);
        } else {
            assert_null(v);
            if (!strstr(e.msg, cases[i].want))
                fail_msg("%s: message '%s' lacks '%s'", cases[i].name, e.msg, cases[i].want);
        }
    }
}

/* Strings: plain runs and escapes at the start, middle and end. */
static void test_print_strings(void **state)
{
    static const struct {
        const char *s, *want;
    } cases[] = {
        {"", "\"\""},
        {"plain", "\"plain\""},
        {"\"start", "\"\\\"start\""},
        {"end\\", "\"end\\\\\""},
        {"mid\ndle\ttab", "\"mid\\ndle\\ttab\""},
        {"\x01\x1f", "\"\\u0001\\u001f\""},
        {"é ok", "\"é ok\""},
    };

    (void)state;
    for (size_t i = 0; i < N(cases); i++) {
        cJSON *v = cJSON_CreateString(cases[i].s);

        assert_text(v, cases[i].want, cases[i].want);
        cJSON_Delete(v);
    }
}

static void test_print_numbers_exact(void **state)
{
    static const struct {
        double d;
        const char *want;
    } cases[] = {
        {0, "0"},
        {-3, "-3"},
        {1234567890123456.0, "1234567890123456"},
        {9007199254740993.0, "9007199254740992"},
        {1e20, "100000000000000000000"},
        {-0.0, "-0"},
        {10, "10"},
        {-9007199254740991.0, "-9007199254740991"},
        {999000000000000000.0, "999000000000000000"},
        {1e18, "1000000000000000000"},
        {1e21, "1e+21"},
        {0.1, "0.1"},
        {0.30000000000000004, "0.30000000000000004"},
        {1e-7, "1e-07"},
        {2.5, "2.5"},
        {-1.5e300, "-1.5e+300"},
    };

    (void)state;
    for (size_t i = 0; i < N(cases); i++) {
        cJSON *n = cJSON_CreateNumber(cases[i].d);

        assert_text(n, cases[i].want, cases[i].want);
        cJSON_Delete(n);
    }
}

static void test_print_pretty_and_escapes(void **state)
{
    const char *in = "{\"a\":{\"b\":[1,{},[]],\"c\":\"q\\\"\\\\\\n\\t\\u0001é\"},\"d\":[]}";
    const char *want = "{\n"
                       "    \"a\": {\n"
                       "        \"b\": [\n"
                       "            1,\n"
                       "            {},\n"
                       "            []\n"
                       "        ],\n"
                       "        \"c\": \"q\\\"\\\\\\n\\t\\u0001é\"\n"
                       "    },\n"
                       "    \"d\": []\n"
                       "}";
    cJSON *v = parse(in);
    char *got = ts_json_dumps(v, TS_JSON_PRETTY);

    (void)state;
    assert_string_equal(got, want);
    free(got);
    assert_text(v, in, "compact keeps escapes");
    cJSON_Delete(v);
}

static void test_print_errors_and_cap(void **state)
{
    struct ts_buf b;
    struct ts_err e = {0};
    cJSON *v = parse("[\"0123456789\"]");
    cJSON *inf = cJSON_CreateNumber(INFINITY);

    (void)state;
    ts_buf_init(&b, 8);
    assert_int_equal(ts_buf_adds(&b, "ab"), 0);
    assert_int_equal(ts_json_print(v, 0, &b, &e), TS_EOVERFLOW);
    assert_string_equal(b.ptr, "ab"); /* left as it was */
    assert_int_equal(ts_json_print(inf, 0, &b, &e), TS_EINVAL);
    assert_null(ts_json_dumps(inf, 0));
    assert_int_equal(ts_json_print(NULL, 0, &b, &e), TS_EINVAL);
    ts_buf_release(&b);
    cJSON_Delete(v);
    cJSON_Delete(inf);
}

static const struct {
    const char *path;
    const char *want; /* segments joined by '|', or "ERR" */
} path_segments_cases[] = {
    {"", ""},
    {"spec", "spec"},
    {".spec.x", "spec|x"},
    {"spec.resourceGroups[0].flavors[1].name", "spec|resourceGroups|0|flavors|1|name"},
    {"metadata.annotations[kueue.x-k8s.io/queue-name]",
     "metadata|annotations|kueue.x-k8s.io/queue-name"},
    {"a['b.c'][\"d\"]", "a|b.c|d"},
    {"[0][1]", "0|1"},
    {"a[''].b", "a||b"},
    {"a..b", "ERR"},
    {"a.", "ERR"},
    {"a[0", "ERR"},
    {"a[]", "ERR"},
    {"a[0]b", "ERR"},
};

/* A printed string is allocated at its size, not at the size its
 * printing buffer grew to (request bodies wait in queues by the
 * thousand). */
static void test_dumps_fits(void **state)
{
    cJSON *o = cJSON_CreateObject();
    char *s;

    (void)state;
    for (int i = 0; i < 40; i++) {
        char k[16];

        snprintf(k, sizeof(k), "key-%02d", i);
        cJSON_AddStringToObject(o, k, "a value of some length");
    }
    s = ts_json_dumps(o, TS_JSON_COMPACT);
    assert_non_null(s);
    assert_true(strlen(s) > 1000);
    /* the allocator rounds up to its alignment, never by hundreds */
    assert_true(malloc_usable_size(s) < strlen(s) + 1 + 64);
    free(s);
    cJSON_Delete(o);
}

static void test_path_segments(void **state)
{
    (void)state;
    for (size_t i = 0; i < N(path_segments_cases); i++) {
        const char *cur = path_segments_cases[i].path;
        struct ts_str seg;
        struct ts_buf got;
        int first = 1;
        int rc;

        ts_buf_init(&got, 0);
        while ((rc = ts_json_path_next(&cur, &seg)) == 1) {
            ts_buf_addf(&got, "%s%.*s", first ? "" : "|", (int)seg.len, seg.ptr);
            first = 0;
        }
        if (rc < 0) {
            ts_buf_reset(&got);
            ts_buf_adds(&got, "ERR");
        }
        if (strcmp(got.ptr, path_segments_cases[i].want))
            fail_msg("path '%s': got '%s', want '%s'", path_segments_cases[i].path, got.ptr,
                     path_segments_cases[i].want);
        ts_buf_release(&got);
    }
}

static void test_get_table(void **state)
{
    static const struct {
        const char *path;
        const char *want; /* compact text or NULL for missing */
    } cases[] = {
        {"", NULL /* whole doc, checked below */},
        {"spec.groups[0].flavors[1].name", "\"spot\""},
        {"spec.groups[0].flavors", "[{\"name\":\"default\"},{\"name\":\"spot\"}]"},
        {"metadata.annotations[kueue.x-k8s.io/queue-name]", "\"ai\""},
        {"metadata.annotations.kueue", NULL},
        {"spec.groups[2]", NULL},
        {"spec.groups[x]", NULL},
        {"spec.groups.0", "{\"flavors\":[{\"name\":\"default\"},{\"name\":\"spot\"}]}"},
        {"spec.count[0]", NULL},
        {"nope", NULL},
        {"spec..groups", NULL},
    };
    cJSON *doc = parse("{\"metadata\":{\"annotations\":{\"kueue.x-k8s.io/queue-name\":\"ai\"}},"
                       "\"spec\":{\"count\":3,\"groups\":[{\"flavors\":[{\"name\":\"default\"},"
                       "{\"name\":\"spot\"}]}]}}");

    (void)state;
    assert_ptr_equal(ts_json_get(doc, ""), doc);
    assert_null(ts_json_get(NULL, "a"));
    for (size_t i = 1; i < N(cases); i++) {
        cJSON *v = ts_json_get(doc, cases[i].path);

        if (!cases[i].want && v)
            fail_msg("path '%s': want missing", cases[i].path);
        if (cases[i].want && !v)
            fail_msg("path '%s': missing", cases[i].path);
        if (v)
            assert_text(v, cases[i].want, cases[i].path);
    }
    assert_string_equal(ts_json_get_string(doc, "spec.groups[0].flavors[0].name"), "default");
    assert_null(ts_json_get_string(doc, "spec.count"));
    cJSON_Delete(doc);
}

static void test_get_i64(void **state)
{
    static const struct {
        const char *in;
        int raw;
        int rc;
        int64_t want;
    } cases[] = {
        {"42", 0, 0, 42},
        {"-7", 0, 0, -7},
        {"1e15", 0, 0, 1000000000000000},
        {"1.5", 0, TS_EINVAL, 0},
        {"\"3\"", 0, TS_EINVAL, 0},
        {"1e19", 0, TS_EOVERFLOW, 0},
        {"-9223372036854775808", 1, 0, INT64_MIN},
        {"9223372036854775807", 1, 0, INT64_MAX},
        {"9223372036854775808", 1, TS_EOVERFLOW, 0},
    };

    (void)state;
    for (size_t i = 0; i < N(cases); i++) {
        cJSON *v = cases[i].raw ? cJSON_CreateRaw(cases[i].in) : parse(cases[i].in);
        int64_t got = 0;
        int rc = ts_json_get_i64(v, &got);

        if (rc != cases[i].rc || (rc == 0 && got != cases[i].want))
            fail_msg("'%s': rc %d value %lld", cases[i].in, rc, (long long)got);
        cJSON_Delete(v);
    }
    assert_int_equal(ts_json_get_i64(NULL, NULL), TS_EINVAL);
}

static void test_equal(void **state)
{
    static const struct {
        const char *a, *b;
        int want;
    } cases[] = {
        {"{\"a\":1,\"b\":[1,2]}", "{\"b\":[1,2],\"a\":1}", 1},
        {"[1,2]", "[2,1]", 0},
        {"{\"a\":1}", "{\"a\":1,\"b\":null}", 0},
        {"{\"a\":\"1\"}", "{\"a\":1}", 0},
        {"null", "null", 1},
        {"{\"a\":{\"b\":[{}]}}", "{\"a\":{\"b\":[{}]}}", 1},
        {"\"A\"", "\"a\"", 0},
        {"{\"a\":1,\"b\":2}", "{\"a\":1,\"c\":2}", 0},
        {"[1]", "[1,2]", 0},
        {"{\"a\":[true,false,null,1.5,\"s\"]}", "{\"a\":[true,false,null,1.5,\"s\"]}", 1},
        {"{\"a\":[true]}", "{\"a\":[false]}", 0},
        {"1e3", "1000", 1},
    };

    (void)state;
    for (size_t i = 0; i < N(cases); i++) {
        cJSON *a = parse(cases[i].a);
        cJSON *b = parse(cases[i].b);

        if (ts_json_equal(a, b) != cases[i].want || ts_json_equal(b, a) != cases[i].want)
            fail_msg("equal(%s, %s) != %d", cases[i].a, cases[i].b, cases[i].want);
        cJSON_Delete(a);
        cJSON_Delete(b);
    }
    assert_true(ts_json_equal(NULL, NULL));
    {
        cJSON *n = cJSON_CreateNull();

        assert_false(ts_json_equal(NULL, n));
        assert_false(ts_json_equal(n, NULL));
        cJSON_Delete(n);
    }
}

/* Equality is linear in the tree: a deep schema (a CRD's is ~20 levels)
 * must not cost 2^depth, as cJSON_Compare with its both-ways walk does. */
static void test_equal_deep(void **state)
{
    enum { DEPTH = 48 };
    cJSON *a = cJSON_CreateObject(), *b = cJSON_CreateObject(), *x = a, *y = b;
    struct timespec t0, t1;

    (void)state;
    for (int i = 0; i < DEPTH; i++) {
        cJSON_AddStringToObject(x, "type", "object");
        cJSON_AddStringToObject(y, "type", "object");
        x = cJSON_AddObjectToObject(x, "properties");
        y = cJSON_AddObjectToObject(y, "properties");
    }
    clock_gettime(CLOCK_MONOTONIC, &t0);
    assert_true(ts_json_equal(a, b));
    cJSON_AddNumberToObject(y, "leaf", 1);
    assert_false(ts_json_equal(a, b));
    clock_gettime(CLOCK_MONOTONIC, &t1);
    assert_true(t1.tv_sec - t0.tv_sec < 2);
    cJSON_Delete(a);
    cJSON_Delete(b);
}

static void test_mkpath_and_set(void **state)
{
    static const struct {
        const char *path;
        const char *value; /* JSON; NULL: use ts_json_set_string(.., "v") */
        int rc;
    } steps[] = {
        {"metadata.labels[app.kubernetes.io/name]", NULL, 0},
        {"metadata.name", "\"cq\"", 0},
        {"metadata.name", "\"cq2\"", 0},
        {"spec.list", "[1,2,3]", 0},
        {"spec.list[1]", "{\"x\":true}", 0},
        {"spec.list[1].y", "null", 0},
        {"spec.list[3]", "4", TS_EINVAL},
        {"spec.list.x", "4", TS_EINVAL},
        {"metadata.name.x", "1", TS_EINVAL},
        {"", "1", TS_EINVAL},
        {"a..b", "1", TS_EINVAL},
    };
    const char *want = "{\"metadata\":{\"labels\":{\"app.kubernetes.io/name\":\"v\"},"
                       "\"name\":\"cq2\"},\"spec\":{\"list\":[1,{\"x\":true,\"y\":null},3]}}";
    cJSON *doc = cJSON_CreateObject();
    struct ts_err e = {0};

    (void)state;
    for (size_t i = 0; i < N(steps); i++) {
        int rc = steps[i].value ? ts_json_set(doc, steps[i].path, parse(steps[i].value), &e)
                                : ts_json_set_string(doc, steps[i].path, "v", &e);

        if (rc != steps[i].rc)
            fail_msg("set '%s': rc %d (%s)", steps[i].path, rc, e.msg);
    }
    assert_text(doc, want, "after sets");
    assert_ptr_equal(ts_json_mkpath(doc, "metadata", &e), ts_json_get(doc, "metadata"));
    assert_non_null(ts_json_mkpath(doc, "status.conditions", &e));
    assert_non_null(ts_json_get(doc, "status.conditions"));
    assert_null(ts_json_mkpath(doc, "spec.list", &e));
    assert_non_null(strstr(e.msg, "spec.list"));
    assert_null(ts_json_mkpath(doc, "spec.list[0].z", &e));
    assert_non_null(ts_json_mkpath(doc, "spec.list[1].z", &e));
    cJSON_Delete(doc);
}

/* ts_json_scan_string agrees with a parse on every case where it answers,
 * and refuses what it cannot copy as written. */
static void test_scan_string(void **state)
{
    static const struct {
        const char *text, *path;
        int rc;
        const char *want;
    } cases[] = {
        {"{\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"42\"}}", "metadata.resourceVersion",
         0, "42"},
        /* earlier members of every kind are skipped, nested quotes and
         * brackets inside strings included */
        {"{\"apiVersion\":\"v1\",\"spec\":{\"x\":[1,{\"resourceVersion\":\"no\"},\"]}\\\"\"],"
         "\"n\":-1.5e3,\"t\":true,\"z\":null},\"metadata\":{\"managedFields\":[{\"a\":{\"b\":{}}}],"
         "\"resourceVersion\":\"7\"}}",
         "metadata.resourceVersion", 0, "7"},
        {" { \"a\" : { \"b\" : \"c d\" } } ", "a.b", 0, "c d"},
        {"{\"a\":{\"b\":\"\"}}", "a.b", 0, ""},
        {"{\"ab\":\"1\",\"a\":\"2\"}", "a", 0, "2"},            /* no prefix match */
        {"{\"a\":{\"b\":\"1\"}}", "a.c", TS_ENOTFOUND, NULL},   /* missing */
        {"{\"a\":{\"b\":1}}", "a.b", TS_ENOTFOUND, NULL},       /* not a string */
        {"{\"a\":\"x\"}", "a.b", TS_ENOTFOUND, NULL},           /* not an object */
        {"[{\"a\":\"1\"}]", "a", TS_ENOTFOUND, NULL},           /* not an object */
        {"{\"a\":\"x\\\"y\"}", "a", TS_EINVAL, NULL},           /* escapes */
        {"{\"a\":\"0123456789abcdef\"}", "a", TS_EINVAL, NULL}, /* over cap */
        {"{\"a\":{\"b\":\"1\"", "a.c", TS_ENOTFOUND, NULL},     /* truncated */
        {"{\"a\":\"unterminated", "a", TS_ENOTFOUND, NULL},
        {"{\"x\":[1,2", "a", TS_ENOTFOUND, NULL},
        {"", "a", TS_ENOTFOUND, NULL},
    };
    char out[16];

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int rc = ts_json_scan_string(cases[i].text, strlen(cases[i].text), cases[i].path, out,
                                     sizeof(out));

        if (rc != cases[i].rc)
            fail_msg("case %zu (%s in %s): rc %d, want %d", i, cases[i].path, cases[i].text, rc,
                     cases[i].rc);
        if (!rc) {
            cJSON *doc = cJSON_Parse(cases[i].text);

            assert_string_equal(out, cases[i].want);
            assert_string_equal(out, ts_json_get_string(doc, cases[i].path));
            cJSON_Delete(doc);
        }
    }
}

/* ts_json_scan_member: the text without the span it names is the same
 * JSON without that member (compared parsed), wherever the member sits. */
static void test_scan_member(void **state)
{
    static const struct {
        const char *text, *path;
        const char *want; /* the text without the member; NULL: not found, or (not a
                             validator) malformed text that stays malformed after the cut */
    } cases[] = {
        {"{\"metadata\":{\"name\":\"a\",\"managedFields\":[{\"f:x\":{}}],\"uid\":\"u\"}}",
         "metadata.managedFields", "{\"metadata\":{\"name\":\"a\",\"uid\":\"u\"}}"},
        /* first, last and only member; whitespace around */
        {"{\"m\":{\"managedFields\":[1],\"b\":2}}", "m.managedFields", "{\"m\":{\"b\":2}}"},
        {"{\"m\":{\"a\":1,\"managedFields\":[1]}}", "m.managedFields", "{\"m\":{\"a\":1}}"},
        {"{\"m\":{\"managedFields\":[1]}}", "m.managedFields", "{\"m\":{}}"},
        {" { \"m\" : { \"a\" : 1 , \"managedFields\" : [ 1 ] } } ", "m.managedFields",
         "{\"m\":{\"a\":1}}"},
        /* brackets, quotes and the key itself inside strings are not members */
        {"{\"m\":{\"s\":\"\\\"managedFields\\\":[\",\"managedFields\":[{\"k\":\"]}\\\"{\"}],"
         "\"t\":\"managedFields\"}}",
         "m.managedFields", "{\"m\":{\"s\":\"\\\"managedFields\\\":[\",\"t\":\"managedFields\"}}"},
        /* only at the path: a deeper or shallower one stays */
        {"{\"managedFields\":1,\"m\":{\"x\":{\"managedFields\":2}}}", "m.managedFields", NULL},
        {"{\"type\":\"MODIFIED\",\"object\":{\"kind\":\"W\",\"metadata\":{\"name\":\"w\","
         "\"managedFields\":[{\"manager\":\"m\",\"fieldsV1\":{\"f:status\":{\".\":{}}}}],"
         "\"resourceVersion\":\"9\"},\"status\":{}}}",
         "object.metadata.managedFields",
         "{\"type\":\"MODIFIED\",\"object\":{\"kind\":\"W\",\"metadata\":{\"name\":\"w\","
         "\"resourceVersion\":\"9\"},\"status\":{}}}"},
        {"{\"m\":{\"a\":1}}", "m.managedFields", NULL},
        {"{\"m\":{\"managedFields\":[1,2}}", "m.managedFields", NULL}, /* malformed */
        {"{\"m\":{\"managedFields\":[1]", "m.managedFields", NULL},    /* truncated */
        {"", "m.managedFields", NULL},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *t = cases[i].text;
        size_t off = 0, n = 0;
        int rc = ts_json_scan_member(t, strlen(t), cases[i].path, &off, &n);
        struct ts_buf b = TS_BUF_INIT;
        cJSON *got, *want;

        if (!cases[i].want) {
            if (!rc) {
                ts_buf_add(&b, t, off);
                ts_buf_adds(&b, t + off + n);
                if ((got = cJSON_Parse(b.ptr)))
                    fail_msg("case %zu: cut leaves valid '%s' of %s", i, b.ptr, t);
                ts_buf_release(&b);
            }
            continue;
        }
        if (rc)
            fail_msg("case %zu: not found in %s", i, t);
        ts_buf_add(&b, t, off);
        ts_buf_adds(&b, t + off + n);
        got = cJSON_Parse(b.ptr);
        want = cJSON_Parse(cases[i].want);
        if (!got || !want || !ts_json_equal(got, want))
            fail_msg("case %zu: cut leaves '%s', want '%s'", i, b.ptr, cases[i].want);
        cJSON_Delete(got);
        cJSON_Delete(want);
        ts_buf_release(&b);
    }
}

/* Whether every node of v, with its key and string, lives in a. */
static int all_in_arena(const struct ts_arena *a, const cJSON *v)
{
    for (; v; v = v->next) {
        if (!ts_arena_owns(a, v) || (v->string && !ts_arena_owns(a, v->string)) ||
            (v->valuestring && !ts_arena_owns(a, v->valuestring)) || !all_in_arena(a, v->child))
            return 0;
    }
    return 1;
}

/* A tree parsed into an arena reads as the heap's, lives in the arena
 * (duplicate keys dropped there too), and cJSON_Delete() frees only what
 * was added to it from the heap (the leak checkers of make asan and make
 * valgrind see the rest). */
static void test_parse_arena(void **state)
{
    static const char *const ins[] = {
        "{\"a\":1,\"b\":[true,null,\"x\"],\"c\":{\"d\":\"\xc3\xa9\"}}",
        "{\"k\":1,\"k\":2,\"l\":{\"m\":[],\"m\":{\"n\":\"o\"}}}", /* last wins */
        "[1.5,-2,\"s\",{}]",
        "\"only a string\"",
    };
    struct ts_arena a = TS_ARENA_INIT;
    struct ts_err e = {0};

    (void)state;
    assert_int_equal(ts_alloc_cjson_register(&a), 0);
    for (int round = 0; round < 3; round++) /* the first round spills: no block yet */
        for (size_t i = 0; i < N(ins); i++) {
            cJSON *heap = parse(ins[i]), *v = NULL;
            char *want = text(heap);

            assert_int_equal(ts_json_parse_arena(&a, ins[i], strlen(ins[i]), &v, &e), 0);
            assert_text(v, want, ins[i]);
            assert_true(all_in_arena(&a, v));
            if (cJSON_IsObject(v)) { /* added later: from the heap */
                cJSON_AddStringToObject(v, "added", "from the heap");
                assert_false(ts_arena_owns(&a, cJSON_GetObjectItem(v, "added")));
            }
            cJSON_Delete(v);
            cJSON_Delete(heap);
            free(want);
        }
    /* errors are the heap parser's */
    {
        cJSON *v = (cJSON *)1;
        struct ts_err he = {0};

        assert_int_equal(ts_json_parse("{\"a\":", 5, &v, &he), TS_EPARSE);
        v = (cJSON *)1;
        assert_int_equal(ts_json_parse_arena(&a, "{\"a\":", 5, &v, &e), TS_EPARSE);
        assert_null(v);
        assert_string_equal(e.msg, he.msg);
    }
    /* after the parse the heap serves cJSON again */
    {
        cJSON *o = cJSON_CreateObject();

        assert_false(ts_arena_owns(&a, o));
        cJSON_Delete(o);
    }
    ts_alloc_cjson_unregister(&a);
    ts_arena_release(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_table),
        cmocka_unit_test(test_print_numbers_exact),
        cmocka_unit_test(test_print_strings),
        cmocka_unit_test(test_print_pretty_and_escapes),
        cmocka_unit_test(test_print_errors_and_cap),
        cmocka_unit_test(test_dumps_fits),
        cmocka_unit_test(test_path_segments),
        cmocka_unit_test(test_get_table),
        cmocka_unit_test(test_get_i64),
        cmocka_unit_test(test_equal),
        cmocka_unit_test(test_equal_deep),
        cmocka_unit_test(test_mkpath_and_set),
        cmocka_unit_test(test_scan_string),
        cmocka_unit_test(test_scan_member),
        cmocka_unit_test(test_parse_arena),
    };

    ts_alloc_init();
    return cmocka_run_group_tests_name("json", tests, NULL, NULL);
}
