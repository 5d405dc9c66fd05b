/* Table tests for the pure parts of turnstile-apiserver: label/field
 * selectors, the kubectl JSONPath subset, strategic merge patch, structural
 * schema pruning/defaulting/validation, base64 and the managedFields of an
 * Update. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "apiserver/b64.h"
#include "apiserver/jsonpath.h"
#include "api/schema.h"
#include "apiserver/sel.h"
#include "json/smp.h"
#include "apiserver/ssa.h"
#include "json/json.h"
#include "util/alloc.h"

static cJSON *parse(const char *s)
{
    cJSON *v = NULL;

    if (ts_json_parse(s, strlen(s), &v, NULL))
        fail_msg("bad test JSON: %s", s);
    return v;
}

static const char *get_label(const void *ctx, const char *key)
{
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ctx, key));
}

static void test_label_selectors(void **state)
{
    static const struct {
        const char *sel, *labels;
        int want; /* 1 match, 0 no match, -1 parse error */
    } cases[] = {
        {"", "{}", 1},
        {"a=b", "{\"a\":\"b\"}", 1},
        {"a==b", "{\"a\":\"c\"}", 0},
        {"a!=b", "{}", 1},
        {"a!=b", "{\"a\":\"b\"}", 0},
        {"env in (prod,dev),!foo", "{\"env\":\"dev\"}", 1},
        {"env in (prod,dev),!foo", "{\"env\":\"dev\",\"foo\":\"x\"}", 0},
        {"env notin (prod)", "{}", 1},
        {"env notin (prod)", "{\"env\":\"prod\"}", 0},
        {"team", "{\"team\":\"\"}", 1},
        {"team", "{}", 0},
        {"n>3", "{\"n\":\"4\"}", 1},
        {"n<3", "{\"n\":\"4\"}", 0},
        {"  a = b ,  c  ", "{\"a\":\"b\",\"c\":\"1\"}", 1},
        {"kueue.x-k8s.io/queue-name=q", "{\"kueue.x-k8s.io/queue-name\":\"q\"}", 1},
        {"a b", "{}", -1},
        {"a in (x", "{}", -1},
        {"a=b=c", "{}", -1},
        {"n>x", "{}", -1},
        {"-bad=1", "{}", -1},
        {"a=", "{\"a\":\"\"}", 1},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct ts_sel sel = TS_SEL_INIT;
        struct ts_err err = {0};
        cJSON *labels = parse(cases[i].labels);
        int rc = ts_sel_parse_labels(cases[i].sel, &sel, &err);
        int got = rc ? -1 : ts_sel_matches(&sel, get_label, labels);

        if (got != cases[i].want)
            fail_msg("selector '%s' on %s: want %d got %d (%s)", cases[i].sel, cases[i].labels,
                     cases[i].want, got, err.msg);
        ts_sel_release(&sel);
        cJSON_Delete(labels);
    }
}

static void test_field_selectors(void **state)
{
    static const struct {
        const char *sel, *fields;
        int want;
    } cases[] = {
        {"metadata.name=a", "{\"metadata.name\":\"a\"}", 1},
        {"metadata.name==a,metadata.namespace!=x",
         "{\"metadata.name\":\"a\",\"metadata.namespace\":\"y\"}", 1},
        {"involvedObject.namespace=", "{\"involvedObject.namespace\":\"\"}", 1},
        {"a\\,b=c", "{\"a,b\":\"c\"}", 1},
        {"nonsense", "{}", -1},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct ts_sel sel = TS_SEL_INIT;
        cJSON *f = parse(cases[i].fields);
        int rc = ts_sel_parse_fields(cases[i].sel, &sel, NULL);
        int got = rc ? -1 : ts_sel_matches(&sel, get_label, f);

        if (got != cases[i].want)
            fail_msg("field selector '%s': want %d got %d", cases[i].sel, cases[i].want, got);
        ts_sel_release(&sel);
        cJSON_Delete(f);
    }
}

static void test_jsonpath(void **state)
{
    static const char *doc =
        "{\"spec\":{\"queueName\":\"q\",\"n\":3,\"a.b\":1},\"status\":{\"conditions\":["
        "{\"type\":\"QuotaReserved\",\"status\":\"True\"},{\"type\":\"Admitted\",\"status\":"
        "\"False\"}],\"admission\":{\"clusterQueue\":\"cq\"}},\"items\":[1,2,3,4]}";
    static const struct {
        const char *path, *want; /* results joined by ' ', or "ERR" */
    } cases[] = {
        {".spec.queueName", "q"},
        {"{.spec.n}", "3"},
        {".status.conditions[?(@.type=='Admitted')].status", "False"},
        {".status.conditions[?(@.type==\"QuotaReserved\")].status", "True"},
        {".status.conditions[?(@.status!='True')].type", "Admitted"},
        {".status.conditions[*].type", "QuotaReserved Admitted"},
        {".status.conditions[-1:].type", "Admitted"},
        {".status.conditions[0].type", "QuotaReserved"},
        {".items[1:3]", "2 3"},
        {".items[-1]", "4"},
        {".items[?(@>2)]", "3 4"},
        {"..clusterQueue", "cq"},
        {".spec['a.b']", "1"},
        {".status.missing.x", ""},
        {".status.conditions[?(@.reason)].type", ""},
        {".status.admission", "{\"clusterQueue\":\"cq\"}"},
        {".items[x]", "ERR"},
        {".status.conditions[?(@.type=='A'", "ERR"},
    };
    cJSON *root = parse(doc);

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct ts_jsonpath *p;
        const cJSON *res[8];
        struct ts_buf got = TS_BUF_INIT;
        size_t n;

        if (ts_jsonpath_compile(cases[i].path, &p, NULL)) {
            ts_buf_adds(&got, "ERR");
        } else {
            n = ts_jsonpath_find(p, root, res, 8);
            for (size_t j = 0; j < n && j < 8; j++) {
                if (j)
                    ts_buf_addc(&got, ' ');
                ts_jsonpath_print(res[j], &got);
            }
            ts_jsonpath_free(p);
        }
        if (strcmp(got.ptr, cases[i].want))
            fail_msg("jsonpath '%s': want '%s' got '%s'", cases[i].path, cases[i].want, got.ptr);
        ts_buf_release(&got);
    }
    cJSON_Delete(root);
}

static void test_smp(void **state)
{
    static const struct {
        const char *name, *orig, *patch, *want;
    } cases[] = {
        {"containers merge by name",
         "{\"c\":{\"containers\":[{\"name\":\"a\",\"image\":\"1\",\"args\":[\"x\"]},{\"name\":"
         "\"b\"}]}}",
         "{\"c\":{\"$setElementOrder/containers\":[{\"name\":\"a\"},{\"name\":\"b\"}],"
         "\"containers\":[{\"name\":\"a\",\"image\":\"2\"}]}}",
         "{\"c\":{\"containers\":[{\"name\":\"a\",\"image\":\"2\",\"args\":[\"x\"]},{\"name\":"
         "\"b\"}]}}"},
        {"setElementOrder reorders", "{\"containers\":[{\"name\":\"a\"},{\"name\":\"b\"}]}",
         "{\"$setElementOrder/containers\":[{\"name\":\"b\"},{\"name\":\"a\"}]}",
         "{\"containers\":[{\"name\":\"b\"},{\"name\":\"a\"}]}"},
        {"delete element", "{\"env\":[{\"name\":\"A\",\"value\":\"1\"},{\"name\":\"B\"}]}",
         "{\"env\":[{\"name\":\"A\",\"$patch\":\"delete\"}]}", "{\"env\":[{\"name\":\"B\"}]}"},
        {"append new element", "{\"env\":[{\"name\":\"A\"}]}", "{\"env\":[{\"name\":\"B\"}]}",
         "{\"env\":[{\"name\":\"A\"},{\"name\":\"B\"}]}"},
        {"ports by containerPort", "{\"ports\":[{\"containerPort\":80,\"name\":\"http\"}]}",
         "{\"ports\":[{\"containerPort\":80,\"protocol\":\"TCP\"}]}",
         "{\"ports\":[{\"containerPort\":80,\"name\":\"http\",\"protocol\":\"TCP\"}]}"},
        {"tolerations replaced", "{\"tolerations\":[{\"key\":\"a\"}]}",
         "{\"tolerations\":[{\"key\":\"b\"}]}", "{\"tolerations\":[{\"key\":\"b\"}]}"},
        {"finalizers union", "{\"finalizers\":[\"a\"]}", "{\"finalizers\":[\"b\",\"a\"]}",
         "{\"finalizers\":[\"a\",\"b\"]}"},
        {"deleteFromPrimitiveList", "{\"finalizers\":[\"a\",\"b\"]}",
         "{\"$deleteFromPrimitiveList/finalizers\":[\"a\"]}", "{\"finalizers\":[\"b\"]}"},
        {"null deletes", "{\"a\":1,\"b\":2}", "{\"a\":null}", "{\"b\":2}"},
        {"map $patch replace", "{\"m\":{\"a\":1,\"b\":2}}",
         "{\"m\":{\"$patch\":\"replace\",\"c\":3}}", "{\"m\":{\"c\":3}}"},
        {"retainKeys", "{\"s\":{\"type\":\"A\",\"a\":{},\"b\":{}}}",
         "{\"s\":{\"$retainKeys\":[\"type\",\"b\"],\"type\":\"B\"}}",
         "{\"s\":{\"type\":\"B\",\"b\":{}}}"},
        {"list $patch replace", "{\"volumes\":[{\"name\":\"a\"}]}",
         "{\"volumes\":[{\"$patch\":\"replace\"},{\"name\":\"b\"}]}",
         "{\"volumes\":[{\"name\":\"b\"}]}"},
        {"conditions by type", "{\"conditions\":[{\"type\":\"A\",\"status\":\"False\"}]}",
         "{\"conditions\":[{\"type\":\"A\",\"status\":\"True\"}]}",
         "{\"conditions\":[{\"type\":\"A\",\"status\":\"True\"}]}"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cJSON *o = parse(cases[i].orig), *p = parse(cases[i].patch), *w = parse(cases[i].want);
        cJSON *out = NULL;
        struct ts_err err = {0};

        if (ts_smp_apply(o, p, &out, &err))
            fail_msg("%s: %s", cases[i].name, err.msg);
        if (!ts_json_equal(out, w)) {
            char *g = ts_json_dumps(out, 0);
            fail_msg("%s: want %s got %s", cases[i].name, cases[i].want, g);
        }
        cJSON_Delete(o);
        cJSON_Delete(p);
        cJSON_Delete(w);
        cJSON_Delete(out);
    }
}

static const char *schema_text =
    "{\"type\":\"object\",\"properties\":{\"spec\":{\"type\":\"object\",\"required\":[\"name\"],"
    "\"properties\":{\"name\":{\"type\":\"string\",\"maxLength\":5,\"pattern\":\"^[a-z]+$\"},"
    "\"mode\":{\"type\":\"string\",\"enum\":[\"A\",\"B\"],\"default\":\"A\"},"
    "\"n\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":10},"
    "\"re2\":{\"type\":\"string\",\"pattern\":\"a(?=b)\"},"
    "\"ci\":{\"type\":\"string\",\"pattern\":\"^(?i)a$\"},"
    "\"q\":{\"x-kubernetes-int-or-string\":true},"
    "\"opt\":{\"type\":\"object\",\"default\":{},\"properties\":{\"w\":{\"type\":\"integer\","
    "\"default\":1}}},"
    "\"free\":{\"type\":\"object\",\"x-kubernetes-preserve-unknown-fields\":true},"
    "\"labels\":{\"type\":\"object\",\"additionalProperties\":{\"type\":\"string\"}},"
    "\"items\":{\"type\":\"array\",\"maxItems\":2,\"x-kubernetes-list-type\":\"map\","
    "\"x-kubernetes-list-map-keys\":[\"k\"],\"items\":{\"type\":\"object\",\"properties\":{"
    "\"k\":{\"type\":\"string\"}}}}}}}}";

static void test_schema(void **state)
{
    static const struct {
        const char *obj, *want_obj, *want_errs, *want_pruned;
    } cases[] = {
        {"{\"kind\":\"X\",\"metadata\":{\"name\":\"a\",\"bogus\":1},\"spec\":{\"name\":\"ab\","
         "\"zz\":1,\"free\":{\"u\":1}}}",
         "{\"kind\":\"X\",\"metadata\":{\"name\":\"a\"},\"spec\":{\"name\":\"ab\",\"mode\":\"A\","
         "\"opt\":{\"w\":1},\"free\":{\"u\":1}}}",
         "", "spec.zz,metadata.bogus"},
        /* a pattern POSIX cannot compile is not checked */
        {"{\"spec\":{\"name\":\"ab\",\"re2\":\"zzz\"}}", NULL, "", ""},
        /* RE2's leading case-insensitive flag */
        {"{\"spec\":{\"name\":\"ab\",\"ci\":\"A\"}}", NULL, "", ""},
        {"{\"spec\":{\"name\":\"ab\",\"ci\":\"zzz\"}}", NULL,
         "spec.ci: Invalid value: \"zzz\": spec.ci in body should match '^(?i)a$'", ""},
        {"{\"spec\":{\"mode\":\"C\",\"n\":0,\"q\":\"1Gi\"}}", NULL,
         "spec.name: Required value|spec.mode: Unsupported value: \"C\": supported values: "
         "\"A\", \"B\"|spec.n: Invalid value: 0: spec.n in body should be greater than or equal "
         "to 1",
         ""},
        {"{\"spec\":{\"name\":\"TooLongName\",\"q\":true,\"n\":11}}", NULL,
         "spec.name: Too long: may not be more than 5 bytes|spec.name: Invalid value: "
         "\"TooLongName\": spec.name in body should match '^[a-z]+$'|spec.q: Invalid value: "
         "\"boolean\": spec.q in body must be of type int-or-string: \"boolean\"|spec.n: Invalid "
         "value: 11: spec.n in body should be less than or equal to 10",
         ""},
        {"{\"spec\":{\"name\":\"a\",\"labels\":{\"x\":1},\"items\":[{\"k\":\"a\"},{\"k\":\"a\"},"
         "{\"k\":\"b\"}]}}",
         NULL,
         "spec.labels.x: Invalid value: \"integer\": spec.labels.x in body must be of type "
         "string: \"integer\"|spec.items: Too many: 3: must have at most 2 items|spec.items[1]: "
         "Duplicate value: {\"k\":\"a\"}",
         ""},
    };
    cJSON *schema = parse(schema_text);
    struct ts_schema_patterns *pats = ts_schema_patterns_new(schema);

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cJSON *obj = parse(cases[i].obj);
        struct ts_strlist pruned = TS_STRLIST_INIT;
        struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
        struct ts_buf got = TS_BUF_INIT, pr = TS_BUF_INIT;

        ts_schema_prune(schema, obj, 1, &pruned);
        ts_schema_default(schema, obj);
        ts_schema_validate(schema, obj, "", &errs);
        for (size_t j = 0; j < errs.n; j++) {
            if (j)
                ts_buf_addc(&got, '|');
            ts_field_error_format(&errs.items[j], &got);
        }
        for (size_t j = 0; j < pruned.n; j++)
            ts_buf_addf(&pr, "%s%s", j ? "," : "", pruned.items[j]);
        if (strcmp(got.ptr, cases[i].want_errs))
            fail_msg("case %zu errors:\n want %s\n got  %s", i, cases[i].want_errs, got.ptr);
        /* the same with the schema's patterns compiled once */
        ts_field_errors_release(&errs);
        ts_buf_reset(&got);
        ts_schema_validate_with(schema, pats, obj, "", &errs);
        for (size_t j = 0; j < errs.n; j++) {
            if (j)
                ts_buf_addc(&got, '|');
            ts_field_error_format(&errs.items[j], &got);
        }
        if (strcmp(got.ptr, cases[i].want_errs))
            fail_msg("case %zu errors (compiled patterns):\n want %s\n got  %s", i,
                     cases[i].want_errs, got.ptr);
        if (strcmp(pr.ptr, cases[i].want_pruned))
            fail_msg("case %zu pruned: want %s got %s", i, cases[i].want_pruned, pr.ptr);
        if (cases[i].want_obj) {
            cJSON *w = parse(cases[i].want_obj);
            if (!ts_json_equal(w, obj))
                fail_msg("case %zu object: got %s", i, ts_json_dumps(obj, 0));
            cJSON_Delete(w);
        }
        ts_buf_release(&got);
        ts_buf_release(&pr);
        ts_strlist_release(&pruned);
        ts_field_errors_release(&errs);
        cJSON_Delete(obj);
    }
    ts_schema_patterns_free(pats);
    cJSON_Delete(schema);
}

static void test_b64(void **state)
{
    static const char *const in[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    static const char *const out[] = {"",         "Zg==",     "Zm8=",    "Zm9v",
                                      "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};

    (void)state;
    for (size_t i = 0; i < 7; i++) {
        struct ts_buf e = TS_BUF_INIT, d = TS_BUF_INIT;

        ts_b64_encode(in[i], strlen(in[i]), &e);
        assert_string_equal(e.ptr, out[i]);
        assert_int_equal(ts_b64_decode(e.ptr, &d), 0);
        assert_string_equal(d.ptr, in[i]);
        ts_buf_release(&e);
        ts_buf_release(&d);
    }
    struct ts_buf bad = TS_BUF_INIT;
    assert_int_equal(ts_b64_decode("a*b", &bad), TS_EINVAL);
    ts_buf_release(&bad);
}

/* ts_ssa_track: the fields an Update writer comes to own are those it
 * changed (a map list's items by key), and a path is compared where
 * kube-apiserver's lookup finds it: below the second of two items with the
 * same key, in the first one. */
static void test_ssa_track(void **state)
{
    static const char *sch =
        "{\"properties\":{\"status\":{\"properties\":{\"conditions\":{\"type\":\"array\","
        "\"x-kubernetes-list-type\":\"map\",\"x-kubernetes-list-map-keys\":[\"type\"],"
        "\"items\":{\"type\":\"object\"}}}}}}";
#define QR(st, msg) "{\"type\":\"QR\",\"status\":\"" st "\",\"message\":\"" msg "\"}"
#define EV          "{\"type\":\"Ev\",\"status\":\"False\"}"
#define OBJ(conds)                                                                                 \
    "{\"kind\":\"W\",\"metadata\":{\"name\":\"w\"},\"status\":{\"conditions\":[" conds "]}}"
    static const struct {
        const char *old, *obj;
        const char *want; /* the writer's fieldsV1, or NULL for no entry */
    } cases[] = {
        {OBJ(QR("True", "m")), OBJ(QR("True", "m")), NULL},
        {OBJ(QR("True", "m")), OBJ(QR("True", "n")),
         "{\"f:status\":{\"f:conditions\":{\"k:{\\\"type\\\":\\\"QR\\\"}\":{\".\":{},\"f:message\":"
         "{}}}}}"},
        {OBJ(QR("True", "m")), OBJ(QR("True", "m") "," EV),
         "{\"f:status\":{\"f:conditions\":{\"k:{\\\"type\\\":\\\"Ev\\\"}\":{\".\":{},\"f:type\":{},"
         "\"f:status\":{}}}}}"},
        {OBJ(QR("True", "m")), OBJ(""), "{\"f:status\":{\"f:conditions\":{}}}"},
        /* duplicates: unchanged, and a change only in the second item, which
         * the lookup never reaches */
        {OBJ(QR("True", "m") "," QR("False", "n")), OBJ(QR("True", "m") "," QR("False", "n")),
         NULL},
        {OBJ(QR("True", "m") "," QR("False", "n")), OBJ(QR("True", "m") "," QR("False", "x")),
         NULL},
    };
    cJSON *schema = parse(sch);

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct ts_ssa_ctx c = {"writer", "g/v1", "2026-01-01T00:00:00Z", "status", schema};
        cJSON *old = parse(cases[i].old), *obj = parse(cases[i].obj);
        const cJSON *mf = ts_json_get(obj, "metadata.managedFields");
        char *got;

        ts_ssa_track(old, obj, &c);
        mf = ts_json_get(obj, "metadata.managedFields");
        got =
            cJSON_GetArraySize(mf)
                ? ts_json_dumps(ts_json_get(cJSON_GetArrayItem(mf, 0), "fieldsV1"), TS_JSON_COMPACT)
                : NULL;
        if (!cases[i].want != !got || (got && strcmp(got, cases[i].want)))
            fail_msg("case %zu: want %s got %s", i, cases[i].want ? cases[i].want : "no entry",
                     got ? got : "no entry");
        free(got);
        cJSON_Delete(old);
        cJSON_Delete(obj);
    }
    cJSON_Delete(schema);
#undef QR
#undef EV
#undef OBJ
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_label_selectors), cmocka_unit_test(test_field_selectors),
        cmocka_unit_test(test_jsonpath),        cmocka_unit_test(test_smp),
        cmocka_unit_test(test_schema),          cmocka_unit_test(test_b64),
        cmocka_unit_test(test_ssa_track),
    };

    ts_alloc_init();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
