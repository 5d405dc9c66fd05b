/*
 * Tests for pkg/resource/resource_list.  Lists are written as
 * "name=quantity,name=quantity" in the tables and rendered back the same
 * way (in list order, canonical quantities) for comparison.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "resource/resource_list.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/err.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

/* Fills l (initialised here) from "a=1,b=2Gi"; "" is the empty list. */
static void list_from(struct ts_resource_list *l, const char *spec)
{
    ts_resource_list_init(l);
    while (*spec) {
        const char *eq = strchr(spec, '='), *end = strchr(spec, ',');
        char name[64];
        struct ts_quantity q;
        struct ts_err e = {0};

        if (!end)
            end = spec + strlen(spec);
        if (!eq || eq > end || (size_t)(eq - spec) >= sizeof(name))
            fail_msg("bad list spec '%s'", spec);
        memcpy(name, spec, (size_t)(eq - spec));
        name[eq - spec] = '\0';
        if (ts_quantity_parse((struct ts_str){eq + 1, (size_t)(end - eq - 1)}, &q, &e))
            fail_msg("bad quantity in '%s': %s", spec, e.msg);
        ts_resource_list_set(l, name, &q);
        spec = *end ? end + 1 : end;
    }
}

/* Renders l as "a=1,b=2Gi" into out. */
static const char *list_str(const struct ts_resource_list *l, char *out, size_t len)
{
    size_t pos = 0;

    out[0] = '\0';
    for (size_t i = 0; i < l->n && pos < len; i++) {
        char q[TS_QUANTITY_STR_MAX];
        int n = snprintf(out + pos, len - pos, "%s%s=%s", i ? "," : "", l->items[i].name,
                         ts_quantity_format(&l->items[i].q, q, sizeof(q)));

        if (n < 0 || (size_t)n >= len - pos)
            fail_msg("list too long to render");
        pos += (size_t)n;
    }
    return out;
}

static void expect_list(const struct ts_resource_list *l, const char *want, const char *ctx)
{
    char buf[512];

    if (strcmp(list_str(l, buf, sizeof(buf)), want) != 0)
        fail_msg("%s: got '%s', want '%s'", ctx, buf, want);
}

static void test_set_get_remove_order(void **state)
{
    struct ts_resource_list l = TS_RESOURCE_LIST_INIT;
    char name[16] = "pods";
    struct ts_quantity q;
    char buf[TS_QUANTITY_STR_MAX];

    (void)state;
    list_from(&l, "memory=1Gi,cpu=2,nvidia.com/gpu=1");
    q = ts_quantity_from_int(110, TS_QUANTITY_DECIMAL_SI);
    ts_resource_list_set(&l, name, &q);
    memcpy(name, "xxxx", 4); /* the list keeps its own copy */
    expect_list(&l, "cpu=2,memory=1Gi,nvidia.com/gpu=1,pods=110", "sorted insert");
    q = ts_quantity_from_milli(500);
    ts_resource_list_set(&l, "cpu", &q);
    expect_list(&l, "cpu=500m,memory=1Gi,nvidia.com/gpu=1,pods=110", "replace");
    assert_int_equal(l.n, 4);
    assert_string_equal(ts_quantity_format(ts_resource_list_get(&l, "memory"), buf, sizeof(buf)),
                        "1Gi");
    assert_null(ts_resource_list_get(&l, "xxxx"));
    assert_null(ts_resource_list_get(&l, "Memory"));
    assert_null(ts_resource_list_get(&l, ""));
    ts_resource_list_remove(&l, "memory");
    ts_resource_list_remove(&l, "absent");
    expect_list(&l, "cpu=500m,nvidia.com/gpu=1,pods=110", "remove middle");
    ts_resource_list_remove(&l, "pods");
    ts_resource_list_remove(&l, "cpu");
    expect_list(&l, "nvidia.com/gpu=1", "remove ends");
    ts_resource_list_remove(&l, "nvidia.com/gpu");
    assert_int_equal(l.n, 0);
    assert_null(ts_resource_list_get(&l, "cpu"));
    ts_resource_list_release(&l);
    ts_resource_list_release(&l); /* release leaves an empty, reusable list */
    assert_null(l.items);
}

/* name and q may point into the list even when the insert moves it. */
static void test_set_from_own_items(void **state)
{
    struct ts_resource_list l;
    char want[512] = "";
    size_t pos = 0;

    (void)state;
    list_from(&l, "a00=1Ki");
    for (int i = 1; i < 40; i++) {
        char name[16];

        snprintf(name, sizeof(name), "a%02d", i);
        ts_resource_list_set(&l, name, ts_resource_list_get(&l, "a00"));
    }
    ts_resource_list_set(&l, l.items[3].name, ts_resource_list_get(&l, "a39"));
    for (int i = 0; i < 40; i++)
        pos += (size_t)snprintf(want + pos, sizeof(want) - pos, "%sa%02d=1Ki", i ? "," : "", i);
    expect_list(&l, want, "self-referencing set");
    ts_resource_list_release(&l);
}

static void test_copy_is_deep(void **state)
{
    struct ts_resource_list a, b, empty = TS_RESOURCE_LIST_INIT, c;

    (void)state;
    list_from(&a, "cpu=1,memory=1Gi");
    ts_resource_list_copy(&b, &a);
    assert_ptr_not_equal(a.items[0].name, b.items[0].name);
    ts_resource_list_remove(&a, "cpu");
    ts_resource_list_release(&a);
    expect_list(&b, "cpu=1,memory=1Gi", "copy outlives source");
    ts_resource_list_copy(&c, &empty);
    assert_int_equal(c.n, 0);
    ts_resource_list_release(&b);
    ts_resource_list_release(&c);
}

static void test_add_sub_table(void **state)
{
    static const struct {
        const char *dst;
        char op;
        const char *src;
        const char *want;
        int rc;
    } cases[] = {
        {"cpu=1,memory=1Gi", '+', "memory=512Mi,nvidia.com/gpu=2",
         "cpu=1,memory=1536Mi,nvidia.com/gpu=2", 0},
        {"", '+', "memory=1Gi,cpu=250m", "cpu=250m,memory=1Gi", 0},
        {"cpu=1", '+', "", "cpu=1", 0},
        {"a=1,c=3", '+', "b=2,d=4", "a=1,b=2,c=3,d=4", 0},
        {"cpu=100m", '+', "cpu=900m", "cpu=1", 0},
        {"cpu=1", '-', "cpu=1500m,memory=1Gi", "cpu=-500m,memory=-1Gi", 0},
        {"cpu=1,memory=2Gi", '-', "cpu=1,memory=1Gi", "cpu=0,memory=1Gi", 0},
        {"", '-', "", "", 0},
        {"cpu=9223372036854775807", '+', "cpu=1", NULL, TS_EOVERFLOW},
        {"cpu=-9223372036854775807", '-', "cpu=2", NULL, TS_EOVERFLOW},
        {"x=999999999E", '+', "x=1E", NULL, TS_EOVERFLOW},
    };

    (void)state;
    for (size_t i = 0; i < N_ELEMS(cases); i++) {
        struct ts_resource_list dst, src;
        char ctx[160];
        int rc;

        list_from(&dst, cases[i].dst);
        list_from(&src, cases[i].src);
        rc = cases[i].op == '+' ? ts_resource_list_add(&dst, &src)
                                : ts_resource_list_sub(&dst, &src);
        snprintf(ctx, sizeof(ctx), "{%s} %c {%s}", cases[i].dst, cases[i].op, cases[i].src);
        if (rc != cases[i].rc)
            fail_msg("%s: rc %s, want %s", ctx, ts_err_name(rc), ts_err_name(cases[i].rc));
        if (rc == 0)
            expect_list(&dst, cases[i].want, ctx);
        ts_resource_list_release(&dst);
        ts_resource_list_release(&src);
    }
}

static void test_add_keeps_source_format(void **state)
{
    struct ts_resource_list dst = TS_RESOURCE_LIST_INIT, src;

    (void)state;
    list_from(&src, "memory=1Gi");
    assert_int_equal(ts_resource_list_add(&dst, &src), 0);
    assert_int_equal(ts_resource_list_get(&dst, "memory")->format, TS_QUANTITY_BINARY_SI);
    /* dst may be src */
    assert_int_equal(ts_resource_list_add(&dst, &dst), 0);
    expect_list(&dst, "memory=2Gi", "self add");
    assert_int_equal(ts_resource_list_sub(&dst, &dst), 0);
    expect_list(&dst, "memory=0", "self sub");
    ts_resource_list_release(&dst);
    ts_resource_list_release(&src);
}

static void test_scale_table(void **state)
{
    static const struct {
        const char *src;
        int64_t factor;
        const char *want;
        int rc;
    } cases[] = {
        {"cpu=500m,memory=1Gi", 3, "cpu=1500m,memory=3Gi", 0},
        {"cpu=500m,memory=1Gi", 0, "cpu=0,memory=0", 0},
        {"cpu=500m", -2, "cpu=-1", 0},
        {"", 7, "", 0},
        {"cpu=1,memory=9223372036854775807", 2, NULL, TS_EOVERFLOW},
        {"pods=1E", 1000000000, NULL, TS_EOVERFLOW},
        {"a=-1", INT64_MIN, NULL, TS_EOVERFLOW},
    };

    (void)state;
    for (size_t i = 0; i < N_ELEMS(cases); i++) {
        struct ts_resource_list src, dst;
        char ctx[160];
        int rc;

        list_from(&src, cases[i].src);
        list_from(&dst, "old=1"); /* replaced on success, kept on overflow */
        rc = ts_resource_list_scale(&dst, &src, cases[i].factor);
        snprintf(ctx, sizeof(ctx), "{%s} * %lld", cases[i].src, (long long)cases[i].factor);
        if (rc != cases[i].rc)
            fail_msg("%s: rc %s, want %s", ctx, ts_err_name(rc), ts_err_name(cases[i].rc));
        expect_list(&dst, rc == 0 ? cases[i].want : "old=1", ctx);
        expect_list(&src, cases[i].src, "source unchanged");
        ts_resource_list_release(&src);
        ts_resource_list_release(&dst);
    }
}

static void test_scale_in_place(void **state)
{
    struct ts_resource_list l;

    (void)state;
    list_from(&l, "cpu=250m,memory=512Mi");
    assert_int_equal(ts_resource_list_scale(&l, &l, 4), 0);
    expect_list(&l, "cpu=1,memory=2Gi", "in place");
    assert_int_equal(ts_resource_list_scale(&l, &l, INT64_MAX), TS_EOVERFLOW);
    expect_list(&l, "cpu=1,memory=2Gi", "unchanged after overflow");
    ts_resource_list_release(&l);
}

static void test_fits_table(void **state)
{
    static const struct {
        const char *req;
        const char *avail;
        int fits;
        const char *short_name;
    } cases[] = {
        {"cpu=2,memory=1Gi", "cpu=4,memory=2Gi", 1, NULL},
        {"cpu=2,memory=1Gi", "cpu=4,memory=512Mi", 0, "memory"},
        {"cpu=2,nvidia.com/gpu=1", "cpu=4", 0, "nvidia.com/gpu"},
        {"cpu=5,memory=2Gi", "cpu=4,memory=1Gi", 0, "cpu"},       /* first by name */
        {"cpu=4,memory=1Gi", "cpu=4,memory=1073741824", 1, NULL}, /* equal fits */
        {"cpu=4001m", "cpu=4", 0, "cpu"},
        {"cpu=1n", "", 0, "cpu"},
        {"gpu=0", "", 1, NULL}, /* absent counts as zero */
        {"", "", 1, NULL},
        {"", "cpu=1", 1, NULL},
        {"cpu=-1", "", 1, NULL},
        {"cpu=1", "cpu=-1", 0, "cpu"},
        {"memory=12E", "memory=9223372036854775807", 0, "memory"},
    };

    (void)state;
    for (size_t i = 0; i < N_ELEMS(cases); i++) {
        struct ts_resource_list req, avail;
        const char *short_name = "untouched";
        int got;

        list_from(&req, cases[i].req);
        list_from(&avail, cases[i].avail);
        got = ts_resource_list_fits(&req, &avail, &short_name);
        if (got != cases[i].fits)
            fail_msg("{%s} in {%s}: fits %d, want %d", cases[i].req, cases[i].avail, got,
                     cases[i].fits);
        if (strcmp(short_name, cases[i].short_name ? cases[i].short_name : "untouched") != 0)
            fail_msg("{%s} in {%s}: short '%s', want '%s'", cases[i].req, cases[i].avail,
                     short_name, cases[i].short_name ? cases[i].short_name : "untouched");
        assert_int_equal(ts_resource_list_fits(&req, &avail, NULL), cases[i].fits);
        ts_resource_list_release(&req);
        ts_resource_list_release(&avail);
    }
}

static void test_equal_table(void **state)
{
    static const struct {
        const char *a;
        const char *b;
        int want;
    } cases[] = {
        {"", "", 1},
        {"cpu=1,memory=0", "cpu=1000m", 1},
        {"a=0", "b=0", 1},
        {"a=0,b=0,c=0", "", 1},
        {"memory=1Gi", "memory=1073741824", 1},
        {"cpu=1", "cpu=1,gpu=1", 0},
        {"cpu=1", "cpu=2", 0},
        {"a=1", "", 0},
        {"", "z=1n", 0},
        {"a=0,b=1", "b=1,c=0", 1},
        {"a=0,b=1", "b=1,c=-1", 0},
        {"a=1,b=2,c=3", "a=1,b=2,c=3", 1},
        {"a=1,b=2,c=3", "a=1,b=2,c=4", 0},
    };

    (void)state;
    for (size_t i = 0; i < N_ELEMS(cases); i++) {
        struct ts_resource_list a, b;
        int ab, ba;

        list_from(&a, cases[i].a);
        list_from(&b, cases[i].b);
        ab = ts_resource_list_equal(&a, &b);
        ba = ts_resource_list_equal(&b, &a);
        if (ab != cases[i].want || ba != cases[i].want)
            fail_msg("equal({%s}, {%s}) = %d / %d, want %d", cases[i].a, cases[i].b, ab, ba,
                     cases[i].want);
        ts_resource_list_release(&a);
        ts_resource_list_release(&b);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_set_get_remove_order),
        cmocka_unit_test(test_set_from_own_items),
        cmocka_unit_test(test_copy_is_deep),
        cmocka_unit_test(test_add_sub_table),
        cmocka_unit_test(test_add_keeps_source_format),
        cmocka_unit_test(test_scale_table),
        cmocka_unit_test(test_scale_in_place),
        cmocka_unit_test(test_fits_table),
        cmocka_unit_test(test_equal_table),
    };

    ts_alloc_init();
    return cmocka_run_group_tests_name("resource_list", tests, NULL, NULL);
}
