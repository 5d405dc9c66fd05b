/* Tests for pkg/json/patch.h: RFC 7386 merge patch, RFC 6902 JSON patch,
 * RFC 6901 pointers, and patch creation (apply(a, diff(a, b)) == b). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/json.h"
#include "json/patch.h"
#include "util/alloc.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static cJSON *parse(const char *s)
{
    cJSON *v = NULL;
    struct ts_err e = {0};

    if (ts_json_parse(s, strlen(s), &v, &e))
        fail_msg("parse '%s': %s", s, e.msg);
    return v;
}

static cJSON *load(const char *path)
{
    char buf[65536];
    FILE *f = fopen(path, "rb");
    size_t n;
    cJSON *v = NULL;
    struct ts_err e = {0};

    if (!f)
        fail_msg("cannot open %s (tests run from the repository root)", path);
    n = fread(buf, 1, sizeof(buf), f);
    fclose(f);
    if (n == sizeof(buf) || ts_json_parse(buf, n, &v, &e))
        fail_msg("%s: %s", path, n == sizeof(buf) ? "too large" : e.msg);
    return v;
}

static char *text(const cJSON *v)
{
    char *s = ts_json_dumps(v, TS_JSON_COMPACT);

    assert_non_null(s);
    return s;
}

/* Fails unless got and want are deep-equal; shows both texts. */
static void assert_json_equal(const cJSON *got, const cJSON *want, const char *what)
{
    char *g, *w;

    if (ts_json_equal(got, want))
        return;
    g = got ? text(got) : ts_xstrdup("(null)");
    w = want ? text(want) : ts_xstrdup("(null)");
    fail_msg("%s:\n got  %s\n want %s", what, g, w);
    free(g);
    free(w);
}

static void test_merge_patch_rfc7386(void **state)
{
    cJSON *cases = load("test/data/json/merge_patch_rfc7386.json");
    const cJSON *c;
    int count = 0;

    (void)state;
    cJSON_ArrayForEach(c, cases)
    {
        const char *name = ts_json_get_string(c, "name");
        const cJSON *target = ts_json_get(c, "target");
        char *before = text(target);
        cJSON *out = NULL;
        struct ts_err e = {0};

        if (ts_json_merge_patch_apply(target, ts_json_get(c, "patch"), &out, &e))
            fail_msg("%s: %s", name, e.msg);
        assert_json_equal(out, ts_json_get(c, "result"), name);
        {
            char *after = text(target);

            assert_string_equal(before, after); /* input untouched */
            free(after);
        }
        free(before);
        cJSON_Delete(out);
        count++;
    }
    assert_int_equal(count, 16);
    cJSON_Delete(cases);
}

static void test_merge_patch_absent_target(void **state)
{
    cJSON *patch = parse("{\"a\":{\"b\":null,\"c\":1}}");
    cJSON *want = parse("{\"a\":{\"c\":1}}");
    cJSON *out = NULL;

    (void)state;
    assert_int_equal(ts_json_merge_patch_apply(NULL, patch, &out, NULL), 0);
    assert_json_equal(out, want, "absent target");
    cJSON_Delete(out);
    assert_int_equal(ts_json_merge_patch_apply(want, NULL, &out, NULL), TS_EINVAL);
    assert_null(out);
    cJSON_Delete(patch);
    cJSON_Delete(want);
}

static int error_code(const char *name)
{
    if (!strcmp(name, "EINVAL"))
        return TS_EINVAL;
    if (!strcmp(name, "ECONFLICT"))
        return TS_ECONFLICT;
    fail_msg("unknown error name %s", name);
    return 0;
}

static void check_patch_case(const cJSON *c)
{
    const char *name = ts_json_get_string(c, "name");
    const char *want_err = ts_json_get_string(c, "error");
    const cJSON *doc = ts_json_get(c, "doc");
    char *before = text(doc);
    char *after;
    cJSON *out = (cJSON *)1;
    struct ts_err e = {0};
    int rc = ts_json_patch_apply(doc, ts_json_get(c, "patch"), &out, &e);

    if (!want_err) {
        if (rc)
            fail_msg("%s: %s", name, e.msg);
        assert_json_equal(out, ts_json_get(c, "result"), name);
    } else {
        const char *msg = ts_json_get_string(c, "message");

        if (rc != error_code(want_err))
            fail_msg("%s: rc %d (%s), want %s", name, rc, e.msg, want_err);
        if (e.code != rc || !strstr(e.msg, msg))
            fail_msg("%s: message '%s' lacks '%s'", name, e.msg, msg);
        assert_null(out);
    }
    after = text(doc);
    if (strcmp(before, after))
        fail_msg("%s: input changed to %s", name, after);
    free(before);
    free(after);
    if (!want_err)
        cJSON_Delete(out);
}

static void test_json_patch_rfc6902(void **state)
{
    cJSON *cases = load("test/data/json/json_patch_rfc6902.json");
    const cJSON *c;
    int count = 0;

    (void)state;
    cJSON_ArrayForEach(c, cases)
    {
        check_patch_case(c);
        count++;
    }
    assert_int_equal(count, 38);
    cJSON_Delete(cases);
}

static void test_json_patch_bad_documents(void **state)
{
    cJSON *doc = parse("{}");
    cJSON *obj = parse("{\"op\":\"add\"}");
    cJSON *out = NULL;
    struct ts_err e = {0};

    (void)state;
    assert_int_equal(ts_json_patch_apply(doc, obj, &out, &e), TS_EINVAL);
    assert_non_null(strstr(e.msg, "array of operations"));
    assert_int_equal(ts_json_patch_apply(NULL, obj, &out, &e), TS_EINVAL);
    assert_int_equal(ts_json_patch_apply(doc, NULL, &out, &e), TS_EINVAL);
    assert_null(out);
    cJSON_Delete(doc);
    cJSON_Delete(obj);
}

static const struct {
    const char *ptr;
    int rc;
    const char *want;
} pointer_get_cases[] = {
    {"", 0, NULL},
    {"/foo", 0, "[\"bar\",\"baz\"]"},
    {"/foo/0", 0, "\"bar\""},
    {"/", 0, "0"},
    {"/a~1b", 0, "1"},
    {"/c%d", 0, "2"},
    {"/e^f", 0, "3"},
    {"/g|h", 0, "4"},
    {"/i\\j", 0, "5"},
    {"/k\"l", 0, "6"},
    {"/ ", 0, "7"},
    {"/m~0n", 0, "8"},
    {"/foo/2", TS_ENOTFOUND, NULL},
    {"/foo/-", TS_ENOTFOUND, NULL},
    {"/foo/00", TS_ENOTFOUND, NULL},
    {"/nope", TS_ENOTFOUND, NULL},
    {"foo", TS_EINVAL, NULL},
    {"/m~2n", TS_EINVAL, NULL},
    {"/m~", TS_EINVAL, NULL},
};

static void test_pointer_get(void **state)
{
    /* RFC 6901 section 5 */
    cJSON *doc = parse("{\"foo\":[\"bar\",\"baz\"],\"\":0,\"a/b\":1,\"c%d\":2,\"e^f\":3,\"g|h\":4,"
                       "\"i\\\\j\":5,\"k\\\"l\":6,\" \":7,\"m~n\":8}");

    (void)state;
    for (size_t i = 0; i < N(pointer_get_cases); i++) {
        cJSON *v = NULL;
        struct ts_err e = {0};
        int rc = ts_json_pointer_get(doc, pointer_get_cases[i].ptr, &v, &e);

        if (rc != pointer_get_cases[i].rc)
            fail_msg("'%s': rc %d, want %d (%s)", pointer_get_cases[i].ptr, rc,
                     pointer_get_cases[i].rc, e.msg);
        if (rc == 0 && !pointer_get_cases[i].want)
            assert_ptr_equal(v, doc);
        if (rc == 0 && pointer_get_cases[i].want) {
            char *got = text(v);

            if (strcmp(got, pointer_get_cases[i].want))
                fail_msg("'%s': got %s, want %s", pointer_get_cases[i].ptr, got,
                         pointer_get_cases[i].want);
            free(got);
        }
        if (rc)
            assert_non_null(strstr(e.msg, pointer_get_cases[i].ptr));
    }
    cJSON_Delete(doc);
}

static void test_pointer_append(void **state)
{
    struct ts_buf b;

    (void)state;
    ts_buf_init(&b, 0);
    assert_int_equal(ts_json_pointer_append(&b, "a/b~c"), 0);
    assert_int_equal(ts_json_pointer_append(&b, ""), 0);
    assert_int_equal(ts_json_pointer_append(&b, "0"), 0);
    assert_string_equal(b.ptr, "/a~1b~0c//0");
    ts_buf_release(&b);
}

/* apply(a, create(a, b)) == b, for JSON patch and, where a merge patch can
 * express the change, for merge patch. */
static void check_pair(const cJSON *a, const cJSON *b, size_t i)
{
    cJSON *patch = NULL, *out = NULL;
    struct ts_err e = {0};
    char what[64];
    int rc;

    snprintf(what, sizeof(what), "pair %zu json patch", i);
    assert_int_equal(ts_json_patch_create(a, b, &patch, &e), 0);
    if (ts_json_patch_apply(a, patch, &out, &e))
        fail_msg("%s: %s", what, e.msg);
    assert_json_equal(out, b, what);
    cJSON_Delete(out);
    cJSON_Delete(patch);
    snprintf(what, sizeof(what), "pair %zu merge patch", i);
    rc = ts_json_merge_patch_create(a, b, &patch, &e);
    if (rc == TS_EUNSUPPORTED) {
        assert_non_null(strstr(e.msg, "to null"));
        assert_null(patch);
        return;
    }
    assert_int_equal(rc, 0);
    assert_int_equal(ts_json_merge_patch_apply(a, patch, &out, &e), 0);
    assert_json_equal(out, b, what);
    cJSON_Delete(out);
    cJSON_Delete(patch);
}

static void test_create_round_trip(void **state)
{
    cJSON *pairs = load("test/data/json/diff_pairs.json");
    const cJSON *p;
    size_t i = 0;

    (void)state;
    cJSON_ArrayForEach(p, pairs)
    {
        check_pair(cJSON_GetArrayItem(p, 0), cJSON_GetArrayItem(p, 1), i);
        check_pair(cJSON_GetArrayItem(p, 1), cJSON_GetArrayItem(p, 0), i);
        i++;
    }
    assert_int_equal(i, 20);
    cJSON_Delete(pairs);
}

static const struct {
    const char *a, *b;
    const char *json_patch;
    const char *merge_patch; /* NULL: TS_EUNSUPPORTED */
} create_shapes_cases[] = {
    {"{\"a\":1}", "{\"a\":1}", "[]", "{}"},
    {"{\"a\":1,\"b\":2}", "{\"b\":3}",
     "[{\"op\":\"remove\",\"path\":\"/a\"},{\"op\":\"replace\",\"path\":\"/b\",\"value\":3}]",
     "{\"a\":null,\"b\":3}"},
    {"{\"x\":[1,2,3]}", "{\"x\":[1]}",
     "[{\"op\":\"remove\",\"path\":\"/x/2\"},{\"op\":\"remove\",\"path\":\"/x/1\"}]",
     "{\"x\":[1]}"},
    {"{\"x\":[1]}", "{\"x\":[1,{\"y\":2}]}",
     "[{\"op\":\"add\",\"path\":\"/x/1\",\"value\":{\"y\":2}}]", "{\"x\":[1,{\"y\":2}]}"},
    {"{\"a/b\":{\"c~\":1}}", "{\"a/b\":{\"c~\":2}}",
     "[{\"op\":\"replace\",\"path\":\"/a~1b/c~0\",\"value\":2}]", "{\"a/b\":{\"c~\":2}}"},
    {"[1]", "\"s\"", "[{\"op\":\"replace\",\"path\":\"\",\"value\":\"s\"}]", "\"s\""},
    {"{}", "{\"a\":{\"b\":null}}", "[{\"op\":\"add\",\"path\":\"/a\",\"value\":{\"b\":null}}]",
     NULL},
    {"{}", "{\"a\":[null]}", "[{\"op\":\"add\",\"path\":\"/a\",\"value\":[null]}]",
     "{\"a\":[null]}"},
};

static void test_create_shapes(void **state)
{
    (void)state;
    for (size_t i = 0; i < N(create_shapes_cases); i++) {
        cJSON *a = parse(create_shapes_cases[i].a), *b = parse(create_shapes_cases[i].b);
        cJSON *p = NULL;
        char *got;
        int rc;

        assert_int_equal(ts_json_patch_create(a, b, &p, NULL), 0);
        got = text(p);
        if (strcmp(got, create_shapes_cases[i].json_patch))
            fail_msg("case %zu json patch: got %s", i, got);
        free(got);
        cJSON_Delete(p);
        rc = ts_json_merge_patch_create(a, b, &p, NULL);
        assert_int_equal(rc, create_shapes_cases[i].merge_patch ? 0 : TS_EUNSUPPORTED);
        if (p) {
            got = text(p);
            if (strcmp(got, create_shapes_cases[i].merge_patch))
                fail_msg("case %zu merge patch: got %s", i, got);
            free(got);
            cJSON_Delete(p);
        }
        cJSON_Delete(a);
        cJSON_Delete(b);
    }
    assert_int_equal(ts_json_patch_create(NULL, NULL, &(cJSON *){NULL}, NULL), TS_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_merge_patch_rfc7386),
        cmocka_unit_test(test_merge_patch_absent_target),
        cmocka_unit_test(test_json_patch_rfc6902),
        cmocka_unit_test(test_json_patch_bad_documents),
        cmocka_unit_test(test_pointer_get),
        cmocka_unit_test(test_pointer_append),
        cmocka_unit_test(test_create_round_trip),
        cmocka_unit_test(test_create_shapes),
    };

    ts_alloc_init();
    return cmocka_run_group_tests_name("json_patch", tests, NULL, NULL);
}
