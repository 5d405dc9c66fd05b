/* Tests for the pkg/api foundations: field errors, paths, typed decoding,
 * ObjectMeta, Conditions, LabelSelector, tolerations, names; and the util
 * containers and timestamps they rest on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/core.h"
#include "api/dec.h"
#include "api/enc.h"
#include "api/field.h"
#include "api/meta.h"
#include "api/names.h"
#include "util/alloc.h"
#include "util/time.h"
#include "json/json.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

static char *errors_text(const struct ts_field_errors *errs)
{
    struct ts_buf b = TS_BUF_INIT;

    ts_field_errors_format(errs, &b);
    return ts_buf_take(&b);
}

static void test_field_error_format(void **state)
{
    static const struct {
        enum ts_field_error_type type;
        const char *field, *value;
        int quote;
        const char *detail, *want, *reason;
    } cases[] = {
        {TS_FIELD_INVALID, "spec.resourceGroups[0].flavors[0].resources[1].name", "memory", 1,
         "must match the name in coveredResources",
         "spec.resourceGroups[0].flavors[0].resources[1].name: Invalid value: \"memory\": must "
         "match the name in coveredResources",
         "FieldValueInvalid"},
        {TS_FIELD_REQUIRED, "metadata.name", NULL, 0, NULL, "metadata.name: Required value",
         "FieldValueRequired"},
        {TS_FIELD_NOT_SUPPORTED, "spec.queueingStrategy", "X", 1,
         "supported values: \"StrictFIFO\", \"BestEffortFIFO\"",
         "spec.queueingStrategy: Unsupported value: \"X\": supported values: \"StrictFIFO\", "
         "\"BestEffortFIFO\"",
         "FieldValueNotSupported"},
        {TS_FIELD_TOO_MANY, "spec.resourceGroups", "17", 0, "must have at most 16 items",
         "spec.resourceGroups: Too many: 17: must have at most 16 items", "FieldValueTooMany"},
        {TS_FIELD_DUPLICATE, "spec.resourceGroups[1].coveredResources[0]", "cpu", 1, NULL,
         "spec.resourceGroups[1].coveredResources[0]: Duplicate value: \"cpu\"",
         "FieldValueDuplicate"},
        {TS_FIELD_FORBIDDEN, "spec", NULL, 0, "field is immutable",
         "spec: Forbidden: field is immutable", "FieldValueForbidden"},
    };

    (void)state;
    for (size_t i = 0; i < N_ELEMS(cases); i++) {
        struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
        char *text;

        if (cases[i].detail)
            ts_field_errors_add(&errs, cases[i].type, cases[i].field, cases[i].value,
                                cases[i].quote, "%s", cases[i].detail);
        else
            ts_field_errors_add(&errs, cases[i].type, cases[i].field, cases[i].value,
                                cases[i].quote, NULL);
        text = errors_text(&errs);
        if (strcmp(text, cases[i].want))
            fail_msg("case %zu: got '%s'\nwant '%s'", i, text, cases[i].want);
        assert_string_equal(ts_field_error_reason(cases[i].type), cases[i].reason);
        free(text);
        ts_field_errors_release(&errs);
    }
}

static void test_field_errors_aggregate(void **state)
{
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_field_errors copy = TS_FIELD_ERRORS_INIT;
    struct ts_err e = {0};
    char *text;

    (void)state;
    assert_int_equal(ts_field_errors_to_err(&errs, "x", &e), 0);
    ts_field_errors_add(&errs, TS_FIELD_REQUIRED, "a", NULL, 0, NULL);
    ts_field_errors_add(&errs, TS_FIELD_INVALID, "b", "1", 0, "%s", "bad");
    ts_field_errors_extend(&copy, &errs);
    text = errors_text(&copy);
    assert_string_equal(text, "[a: Required value, b: Invalid value: 1: bad]");
    free(text);
    assert_int_equal(ts_field_errors_to_err(&errs, "ClusterQueue.kueue.x-k8s.io \"cq\"", &e),
                     TS_EINVAL);
    assert_string_equal(e.msg, "ClusterQueue.kueue.x-k8s.io \"cq\" is invalid: [a: Required "
                               "value, b: Invalid value: 1: bad]");
    ts_field_errors_release(&errs);
    ts_field_errors_release(&copy);
}

static void test_path_push_pop(void **state)
{
    struct ts_path p;
    size_t m1, m2, m3;

    (void)state;
    ts_path_init(&p, NULL);
    m1 = ts_path_push(&p, "spec");
    m2 = ts_path_push(&p, "resourceGroups");
    ts_path_push_index(&p, 0);
    m3 = ts_path_push(&p, "flavors");
    ts_path_push_index(&p, 12);
    assert_string_equal(ts_path_str(&p), "spec.resourceGroups[0].flavors[12]");
    ts_path_pop(&p, m3);
    assert_string_equal(ts_path_str(&p), "spec.resourceGroups[0]");
    ts_path_pop(&p, m2);
    ts_path_push(&p, "nodeLabels");
    ts_path_push_mapkey(&p, "kubernetes.io/arch");
    assert_string_equal(ts_path_str(&p), "spec.nodeLabels[kubernetes.io/arch]");
    ts_path_pop(&p, m1);
    assert_string_equal(ts_path_str(&p), "");
    /* overlong paths are cut and marked, never overflow */
    for (int i = 0; i < 100; i++)
        ts_path_push(&p, "abcdefgh");
    assert_true(p.len < TS_PATH_MAX);
    assert_non_null(strstr(ts_path_str(&p), "..."));
}

static void test_dec_types_and_errors(void **state)
{
    const char *json = "{\"s\":\"x\",\"n\":5,\"f\":1.5,\"b\":true,\"nul\":null,"
                       "\"big\":3000000000,\"q\":\"1536Mi\",\"qn\":9,\"qbad\":\"1KB\","
                       "\"t\":\"2026-11-21T10:00:00Z\",\"m\":{\"a\":\"1\",\"b\":2},"
                       "\"l\":[\"x\",3],\"e\":\"Never\",\"ebad\":\"Sometimes\"}";
    static const char *const policies[] = {"Never", "LowerPriority", "Any", NULL};
    cJSON *o = cJSON_Parse(json);
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_dec d;
    char *s = NULL;
    int32_t i32 = -1;
    int b = 0, e = -1;
    struct ts_opt_i32 oi = {0, 0};
    struct ts_quantity q;
    ts_time t = 0;
    struct ts_strmap m = TS_STRMAP_INIT;
    struct ts_strlist l = TS_STRLIST_INIT;
    char qs[TS_QUANTITY_STR_MAX];
    char *text;

    (void)state;
    ts_dec_init(&d, &errs);
    ts_path_push(&d.path, "spec");
    assert_int_equal(ts_dec_string(&d, o, "s", &s), 1);
    assert_string_equal(s, "x");
    assert_int_equal(ts_dec_string(&d, o, "missing", &s), 0);
    assert_int_equal(ts_dec_string(&d, o, "nul", &s), 0); /* null = absent */
    assert_int_equal(ts_dec_string(&d, o, "n", &s), -1);
    assert_int_equal(ts_dec_i32(&d, o, "n", &i32), 1);
    assert_int_equal(i32, 5);
    assert_int_equal(ts_dec_i32(&d, o, "f", &i32), -1);
    assert_int_equal(ts_dec_i32(&d, o, "big", &i32), -1);
    assert_int_equal(ts_dec_opt_i32(&d, o, "missing", &oi), 0);
    assert_false(oi.set);
    assert_int_equal(ts_dec_bool(&d, o, "b", &b), 1);
    assert_true(b);
    assert_int_equal(ts_dec_quantity(&d, o, "q", &q), 1);
    assert_string_equal(ts_quantity_format(&q, qs, sizeof(qs)), "1536Mi");
    assert_int_equal(ts_dec_quantity(&d, o, "qn", &q), 1);
    assert_string_equal(ts_quantity_format(&q, qs, sizeof(qs)), "9");
    assert_int_equal(ts_dec_quantity(&d, o, "qbad", &q), -1);
    assert_int_equal(ts_dec_time(&d, o, "t", &t), 1);
    assert_int_equal(ts_dec_time(&d, o, "s", &t), -1);
    assert_int_equal(ts_dec_strmap(&d, o, "m", &m), -1);
    assert_string_equal(ts_strmap_get(&m, "a"), "1");
    assert_int_equal(ts_dec_strlist(&d, o, "l", &l), -1);
    assert_int_equal(l.n, 1);
    assert_int_equal(ts_dec_enum(&d, o, "e", policies, &e), 1);
    assert_int_equal(e, 0);
    assert_int_equal(ts_dec_enum(&d, o, "ebad", policies, &e), -1);
    text = errors_text(&errs);
    assert_int_equal(errs.n, 8);
    assert_non_null(
        strstr(text, "spec.n: Invalid value: \"5\": must be of type string, got number"));
    assert_non_null(strstr(text, "spec.f: Invalid value: \"1.5\": must be a whole number"));
    assert_non_null(strstr(text, "spec.qbad: Invalid value: \"1KB\""));
    assert_non_null(strstr(text, "spec.s: Invalid value: \"x\": must be an RFC 3339"));
    assert_non_null(strstr(text, "spec.m[b]: Invalid value: \"2\": must be of type string"));
    assert_non_null(strstr(text, "spec.l[1]: Invalid value: \"3\""));
    assert_non_null(strstr(text, "spec.ebad: Unsupported value: \"Sometimes\": supported "
                                 "values: \"Never\", \"LowerPriority\", \"Any\""));
    free(text);
    free(s);
    ts_strmap_release(&m);
    ts_strlist_release(&l);
    ts_field_errors_release(&errs);
    cJSON_Delete(o);
}

static const char meta_json[] =
    "{\"metadata\":{\"name\":\"job-pi-1a2b3\",\"namespace\":\"team-a\",\"uid\":\"u-1\","
    "\"resourceVersion\":\"42\",\"generation\":3,\"creationTimestamp\":\"2026-11-21T10:00:00Z\","
    "\"labels\":{\"kueue.x-k8s.io/job-uid\":\"j-1\",\"app\":\"pi\"},"
    "\"annotations\":{\"a\":\"b\"},\"finalizers\":[\"kueue.x-k8s.io/resource-in-use\"],"
    "\"ownerReferences\":[{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"name\":\"pi\","
    "\"uid\":\"j-1\",\"controller\":true,\"blockOwnerDeletion\":true}]}}";

static void test_object_meta_round_trip(void **state)
{
    cJSON *in = cJSON_Parse(meta_json);
    cJSON *out = cJSON_CreateObject();
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_object_meta m, m2;
    struct ts_dec d;
    const struct ts_owner_ref *ctl;

    (void)state;
    ts_object_meta_init(&m);
    ts_dec_init(&d, &errs);
    ts_object_meta_decode(&d, in, &m);
    assert_int_equal(errs.n, 0);
    assert_string_equal(m.namespace_, "team-a");
    assert_int_equal(m.generation, 3);
    ctl = ts_object_meta_controller(&m);
    assert_non_null(ctl);
    assert_string_equal(ctl->kind, "Job");
    ts_object_meta_copy(&m2, &m);
    ts_object_meta_release(&m);
    ts_object_meta_encode(&m2, out);
    if (!ts_json_equal(in, out)) {
        char *s = cJSON_PrintUnformatted(out);

        fail_msg("round trip differs: %s", s);
    }
    ts_object_meta_release(&m2);
    cJSON_Delete(in);
    cJSON_Delete(out);
}

static void test_conditions_set_semantics(void **state)
{
    struct ts_conditions c;
    const struct ts_condition *x;
    struct ts_conditions copy;

    (void)state;
    ts_conditions_init(&c);
    assert_int_equal(ts_conditions_set(&c, "QuotaReserved", "False", "Pending", "m1", 1, 100), 1);
    x = ts_conditions_find(&c, "QuotaReserved");
    assert_int_equal(x->last_transition_time, 100);
    /* same values: no change, time kept */
    assert_int_equal(ts_conditions_set(&c, "QuotaReserved", "False", "Pending", "m1", 1, 200), 0);
    /* message changes but status does not: time kept */
    assert_int_equal(ts_conditions_set(&c, "QuotaReserved", "False", "Pending", "m2", 1, 300), 1);
    assert_int_equal(ts_conditions_find(&c, "QuotaReserved")->last_transition_time, 100);
    /* status flips: time moves */
    assert_int_equal(ts_conditions_set(&c, "QuotaReserved", "True", "QuotaReserved", "ok", 1, 400),
                     1);
    assert_int_equal(ts_conditions_find(&c, "QuotaReserved")->last_transition_time, 400);
    assert_true(ts_conditions_is_true(&c, "QuotaReserved"));
    ts_conditions_set(&c, "Admitted", "True", "Admitted", "The workload is admitted", 1, 400);
    ts_conditions_init(&copy);
    ts_conditions_copy(&copy, &c);
    assert_int_equal(ts_conditions_remove(&c, "QuotaReserved"), 1);
    assert_int_equal(ts_conditions_remove(&c, "QuotaReserved"), 0);
    assert_null(ts_conditions_find(&c, "QuotaReserved"));
    assert_true(ts_conditions_is_true(&c, "Admitted"));
    assert_true(ts_conditions_is_true(&copy, "QuotaReserved"));
    ts_conditions_release(&c);
    ts_conditions_release(&copy);
}

static void test_conditions_round_trip(void **state)
{
    const char *json = "{\"conditions\":[{\"type\":\"Admitted\",\"status\":\"True\","
                       "\"observedGeneration\":2,\"lastTransitionTime\":\"2026-11-21T10:00:00Z\","
                       "\"reason\":\"Admitted\",\"message\":\"The workload is admitted\"}]}";
    cJSON *in = cJSON_Parse(json);
    cJSON *out = cJSON_CreateObject();
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_conditions c;
    struct ts_dec d;

    (void)state;
    ts_conditions_init(&c);
    ts_dec_init(&d, &errs);
    ts_conditions_decode(&d, in, "conditions", &c);
    assert_int_equal(errs.n, 0);
    ts_conditions_encode(&c, out, "conditions");
    assert_true(ts_json_equal(in, out));
    ts_conditions_release(&c);
    cJSON_Delete(in);
    cJSON_Delete(out);
}

static void test_label_selector_match_table(void **state)
{
    static const struct {
        const char *selector;
        const char *labels;
        int want;
    } cases[] = {
        {"{}", "{}", 1},
        {"{}", "{\"a\":\"1\"}", 1},
        {"{\"matchLabels\":{\"team\":\"a\"}}", "{\"team\":\"a\",\"x\":\"y\"}", 1},
        {"{\"matchLabels\":{\"team\":\"a\"}}", "{\"team\":\"b\"}", 0},
        {"{\"matchLabels\":{\"team\":\"a\"}}", "{}", 0},
        {"{\"matchExpressions\":[{\"key\":\"team\",\"operator\":\"In\",\"values\":[\"a\",\"b\"]}]}",
         "{\"team\":\"b\"}", 1},
        {"{\"matchExpressions\":[{\"key\":\"team\",\"operator\":\"In\",\"values\":[\"a\"]}]}", "{}",
         0},
        {"{\"matchExpressions\":[{\"key\":\"kubernetes.io/metadata.name\",\"operator\":\"NotIn\","
         "\"values\":[\"kube-system\",\"kueue-system\"]}]}",
         "{\"kubernetes.io/metadata.name\":\"team-a\"}", 1},
        {"{\"matchExpressions\":[{\"key\":\"kubernetes.io/metadata.name\",\"operator\":\"NotIn\","
         "\"values\":[\"kube-system\"]}]}",
         "{\"kubernetes.io/metadata.name\":\"kube-system\"}", 0},
        {"{\"matchExpressions\":[{\"key\":\"x\",\"operator\":\"NotIn\",\"values\":[\"1\"]}]}", "{}",
         1},
        {"{\"matchExpressions\":[{\"key\":\"gpu\",\"operator\":\"Exists\"}]}", "{\"gpu\":\"\"}", 1},
        {"{\"matchExpressions\":[{\"key\":\"gpu\",\"operator\":\"Exists\"}]}", "{}", 0},
        {"{\"matchExpressions\":[{\"key\":\"gpu\",\"operator\":\"DoesNotExist\"}]}", "{}", 1},
        {"{\"matchLabels\":{\"a\":\"1\"},\"matchExpressions\":[{\"key\":\"b\",\"operator\":"
         "\"DoesNotExist\"}]}",
         "{\"a\":\"1\",\"b\":\"2\"}", 0},
    };

    (void)state;
    for (size_t i = 0; i < N_ELEMS(cases); i++) {
        char doc[512];
        cJSON *sel_obj, *lab_obj;
        struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
        struct ts_label_selector s, s2;
        struct ts_strmap labels = TS_STRMAP_INIT;
        struct ts_dec d;

        snprintf(doc, sizeof(doc), "{\"sel\":%s}", cases[i].selector);
        sel_obj = cJSON_Parse(doc);
        snprintf(doc, sizeof(doc), "{\"l\":%s}", cases[i].labels);
        lab_obj = cJSON_Parse(doc);
        ts_label_selector_init(&s);
        ts_dec_init(&d, &errs);
        assert_int_equal(ts_label_selector_decode(&d, sel_obj, "sel", &s), 1);
        ts_dec_strmap(&d, lab_obj, "l", &labels);
        ts_label_selector_copy(&s2, &s);
        if (ts_label_selector_matches(&s2, &labels) != cases[i].want)
            fail_msg("case %zu: selector %s labels %s: want %d", i, cases[i].selector,
                     cases[i].labels, cases[i].want);
        ts_label_selector_release(&s);
        ts_label_selector_release(&s2);
        ts_strmap_release(&labels);
        ts_field_errors_release(&errs);
        cJSON_Delete(sel_obj);
        cJSON_Delete(lab_obj);
    }
}

static void test_label_selector_validate(void **state)
{
    const char *json = "{\"sel\":{\"matchLabels\":{\"bad key!\":\"v\"},\"matchExpressions\":["
                       "{\"key\":\"a\",\"operator\":\"In\"},"
                       "{\"key\":\"b\",\"operator\":\"Exists\",\"values\":[\"x\"]},"
                       "{\"key\":\"c\",\"operator\":\"Gt\",\"values\":[\"1\"]}]}}";
    cJSON *o = cJSON_Parse(json);
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_label_selector s;
    struct ts_dec d;
    char *text;

    (void)state;
    ts_label_selector_init(&s);
    ts_dec_init(&d, &errs);
    ts_path_push(&d.path, "spec");
    assert_int_equal(ts_label_selector_decode(&d, o, "sel", &s), -1);
    ts_label_selector_validate(&s, "spec.sel", &errs);
    text = errors_text(&errs);
    /* apimachinery's ValidateLabelSelector text */
    assert_non_null(strstr(text, "spec.sel.matchExpressions[2].operator: Invalid value: "
                                 "\"Gt\": not a valid selector operator"));
    assert_non_null(strstr(text, "spec.sel.matchLabels: Invalid value: \"bad key!\""));
    assert_non_null(strstr(text, "spec.sel.matchExpressions[0].values: Required value"));
    assert_non_null(strstr(text, "spec.sel.matchExpressions[1].values: Forbidden"));
    free(text);
    ts_label_selector_release(&s);
    ts_field_errors_release(&errs);
    cJSON_Delete(o);
}

static void test_toleration_table(void **state)
{
    static const struct {
        struct ts_toleration tol;
        struct ts_taint taint;
        int want;
    } cases[] = {
        {{"gpu", "Equal", "true", "NoSchedule", {0, 0}}, {"gpu", "true", "NoSchedule"}, 1},
        {{"gpu", NULL, "true", NULL, {0, 0}}, {"gpu", "true", "NoExecute"}, 1},
        {{"gpu", "Equal", "false", NULL, {0, 0}}, {"gpu", "true", "NoSchedule"}, 0},
        {{"gpu", "Exists", NULL, NULL, {0, 0}}, {"gpu", "anything", "NoSchedule"}, 1},
        {{"gpu", "Exists", NULL, "NoExecute", {0, 0}}, {"gpu", "x", "NoSchedule"}, 0},
        {{NULL, "Exists", NULL, NULL, {0, 0}}, {"spot", "true", "NoSchedule"}, 1},
        {{"other", "Exists", NULL, NULL, {0, 0}}, {"spot", "true", "NoSchedule"}, 0},
        {{"spot", "Bogus", "true", NULL, {0, 0}}, {"spot", "true", "NoSchedule"}, 0},
    };

    (void)state;
    for (size_t i = 0; i < N_ELEMS(cases); i++) {
        if (ts_toleration_tolerates(&cases[i].tol, &cases[i].taint) != cases[i].want)
            fail_msg("case %zu: want %d", i, cases[i].want);
    }
    {
        struct ts_toleration list[2];

        list[0] = cases[2].tol; /* does not tolerate cases[0].taint */
        list[1] = cases[0].tol; /* does */
        assert_true(ts_tolerations_tolerate(list, 2, &cases[0].taint));
        assert_false(ts_tolerations_tolerate(list, 1, &cases[0].taint));
    }
}

static void test_taints_tolerations_round_trip(void **state)
{
    const char *json = "{\"t\":[{\"key\":\"spot\",\"value\":\"true\",\"effect\":\"NoSchedule\"}],"
                       "\"o\":[{\"key\":\"spot\",\"operator\":\"Equal\",\"value\":\"true\","
                       "\"effect\":\"NoExecute\",\"tolerationSeconds\":30}]}";
    cJSON *in = cJSON_Parse(json);
    cJSON *out = cJSON_CreateObject();
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_taint *t;
    struct ts_toleration *o, copy;
    size_t nt, no;
    struct ts_dec d;

    (void)state;
    ts_dec_init(&d, &errs);
    ts_taints_decode(&d, in, "t", &t, &nt);
    ts_tolerations_decode(&d, in, "o", &o, &no);
    assert_int_equal(errs.n, 0);
    assert_int_equal(nt, 1);
    assert_int_equal(no, 1);
    assert_int_equal(o[0].toleration_seconds.v, 30);
    ts_toleration_copy(&copy, &o[0]);
    assert_true(ts_toleration_equal(&copy, &o[0]));
    ts_toleration_release(&copy);
    ts_taints_encode(t, nt, out, "t");
    ts_tolerations_encode(o, no, out, "o");
    assert_true(ts_json_equal(in, out));
    ts_taints_free(t, nt);
    ts_tolerations_free(o, no);
    cJSON_Delete(in);
    cJSON_Delete(out);
}

static void test_names_table(void **state)
{
    static const struct {
        const char *v;
        int sub, label, qual, lval;
    } cases[] = {
        {"team-a", 1, 1, 1, 1},
        {"a.b.c", 1, 0, 1, 1},
        {"Team", 0, 0, 1, 1},
        {"-a", 0, 0, 0, 0},
        {"a-", 0, 0, 0, 0},
        {"", 0, 0, 0, 1},
        {"nvidia.com/gpu", 0, 0, 1, 0},
        {"kubernetes.io/metadata.name", 0, 0, 1, 0},
        {"a/b/c", 0, 0, 0, 0},
        {"Bad.com/x", 0, 0, 0, 0},
        {"under_score", 0, 0, 1, 1},
        {"a..b", 0, 0, 1, 1},
        {"1234567890123456789012345678901234567890123456789012345678901234", 1, 0, 0, 0},
    };

    (void)state;
    for (size_t i = 0; i < N_ELEMS(cases); i++) {
        if (ts_names_is_dns1123_subdomain(cases[i].v) != cases[i].sub ||
            ts_names_is_dns1123_label(cases[i].v) != cases[i].label ||
            ts_names_is_qualified(cases[i].v) != cases[i].qual ||
            ts_names_is_label_value(cases[i].v) != cases[i].lval)
            fail_msg("case '%s': sub %d label %d qual %d lval %d", cases[i].v,
                     ts_names_is_dns1123_subdomain(cases[i].v),
                     ts_names_is_dns1123_label(cases[i].v), ts_names_is_qualified(cases[i].v),
                     ts_names_is_label_value(cases[i].v));
    }
}

static void test_names_messages(void **state)
{
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    char *text;

    (void)state;
    assert_int_equal(ts_names_dns1123_subdomain("ok-name", "metadata.name", &errs), 0);
    assert_int_equal(ts_names_dns1123_subdomain("Bad_Name", "metadata.name", &errs), 1);
    assert_int_equal(ts_names_dns1123_label("x.y", "spec.podSets[0].name", &errs), 1);
    assert_int_equal(ts_names_qualified("bad key", "spec.coveredResources[0]", &errs), 1);
    text = errors_text(&errs);
    assert_non_null(strstr(text, "metadata.name: Invalid value: \"Bad_Name\": a lowercase RFC "
                                 "1123 subdomain must consist of"));
    /* a valid subdomain that is not a label: apimachinery's own text */
    assert_non_null(strstr(text, "spec.podSets[0].name: Invalid value: \"x.y\": must not "
                                 "contain dots"));
    assert_non_null(strstr(text, "name part must consist of alphanumeric characters"));
    free(text);
    ts_field_errors_release(&errs);
}

static void test_time_parse_format(void **state)
{
    static const struct {
        const char *in;
        int rc;
        ts_time want;
        const char *out;
    } cases[] = {
        {"1970-01-01T00:00:00Z", 0, 0, "1970-01-01T00:00:00Z"},
        {"2026-11-21T10:00:00Z", 0, INT64_C(1795255200) * TS_TIME_SECOND, "2026-11-21T10:00:00Z"},
        {"2026-11-21T12:00:00+02:00", 0, INT64_C(1795255200) * TS_TIME_SECOND,
         "2026-11-21T10:00:00Z"},
        {"2026-11-21T10:00:00.5Z", 0, INT64_C(1795255200) * TS_TIME_SECOND + 500000000,
         "2026-11-21T10:00:00Z"},
        {"2000-02-29T23:59:59Z", 0, INT64_C(951868799) * TS_TIME_SECOND, "2000-02-29T23:59:59Z"},
        {"2026-11-21 10:00:00Z", TS_EPARSE, 0, NULL},
        {"2026-13-01T00:00:00Z", TS_EPARSE, 0, NULL},
        {"2026-11-21T10:00:00", TS_EPARSE, 0, NULL},
        {"yesterday", TS_EPARSE, 0, NULL},
        /* valid RFC 3339 but beyond int64 nanoseconds (found by fuzz_object) */
        {"1013-01-02T03:04:06Z", TS_EOVERFLOW, 0, NULL},
        {"9999-12-31T23:59:59Z", TS_EOVERFLOW, 0, NULL},
        {"2262-04-11T23:47:16Z", TS_EOVERFLOW, 0, NULL},
        {"1678-01-01T00:00:00Z", 0, INT64_C(-9214560000) * TS_TIME_SECOND, "1678-01-01T00:00:00Z"},
    };
    char buf[TS_TIME_STR_MAX];

    (void)state;
    for (size_t i = 0; i < N_ELEMS(cases); i++) {
        ts_time t = -1;
        int rc = ts_time_parse(cases[i].in, &t);

        if (rc != cases[i].rc)
            fail_msg("case '%s': rc %d", cases[i].in, rc);
        if (rc)
            continue;
        if (t != cases[i].want)
            fail_msg("case '%s': got %lld", cases[i].in, (long long)t);
        assert_string_equal(ts_time_format(t, buf, sizeof(buf)), cases[i].out);
    }
    assert_string_equal(
        ts_time_format_micro(INT64_C(1795255200) * TS_TIME_SECOND + 123456789, buf, sizeof(buf)),
        "2026-11-21T10:00:00.123456Z");
}

static void test_strmap_strlist(void **state)
{
    struct ts_strmap m = TS_STRMAP_INIT, m2 = TS_STRMAP_INIT;
    struct ts_strlist l = TS_STRLIST_INIT, l2 = TS_STRLIST_INIT;

    (void)state;
    ts_strmap_set(&m, "zeta", "1");
    ts_strmap_set(&m, "alpha", "2");
    ts_strmap_set(&m, "mid", "3");
    ts_strmap_set(&m, "alpha", "4");
    assert_int_equal(m.n, 3);
    assert_string_equal(m.items[0].key, "alpha"); /* sorted */
    assert_string_equal(ts_strmap_get(&m, "alpha"), "4");
    ts_strmap_copy(&m2, &m);
    assert_true(ts_strmap_equal(&m, &m2));
    assert_int_equal(ts_strmap_remove(&m, "mid"), 1);
    assert_int_equal(ts_strmap_remove(&m, "mid"), 0);
    assert_false(ts_strmap_equal(&m, &m2));
    assert_null(ts_strmap_get(&m, "mid"));
    ts_strlist_push(&l, "a");
    ts_strlist_push(&l, "b");
    ts_strlist_push(&l, "a");
    ts_strlist_copy(&l2, &l);
    assert_true(ts_strlist_equal(&l, &l2));
    assert_int_equal(ts_strlist_index(&l, "b"), 1);
    assert_int_equal(ts_strlist_remove(&l, "a"), 2);
    assert_int_equal(l.n, 1);
    assert_int_equal(ts_strlist_index(&l, "a"), -1);
    ts_strmap_release(&m);
    ts_strmap_release(&m2);
    ts_strlist_release(&l);
    ts_strlist_release(&l2);
}

/* metav1.Status as every server part writes it. */
static void test_status_new(void **state)
{
    cJSON *details = cJSON_CreateObject(), *fail, *ok;
    char *a, *b;

    (void)state;
    cJSON_AddStringToObject(details, "name", "cq");
    fail = ts_status_new(404, "NotFound", "clusterqueue \"cq\" not found", details);
    ok = ts_status_new(200, NULL, NULL, NULL);
    a = ts_json_dumps(fail, 0);
    b = ts_json_dumps(ok, 0);
    assert_string_equal(a, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
                           "\"status\":\"Failure\",\"message\":\"clusterqueue \\\"cq\\\" not "
                           "found\",\"reason\":\"NotFound\",\"details\":{\"name\":\"cq\"},"
                           "\"code\":404}");
    assert_string_equal(b, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
                           "\"status\":\"Success\",\"code\":200}");
    free(a);
    free(b);
    cJSON_Delete(fail);
    cJSON_Delete(ok);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_field_error_format),
        cmocka_unit_test(test_field_errors_aggregate),
        cmocka_unit_test(test_path_push_pop),
        cmocka_unit_test(test_dec_types_and_errors),
        cmocka_unit_test(test_object_meta_round_trip),
        cmocka_unit_test(test_conditions_set_semantics),
        cmocka_unit_test(test_conditions_round_trip),
        cmocka_unit_test(test_label_selector_match_table),
        cmocka_unit_test(test_label_selector_validate),
        cmocka_unit_test(test_toleration_table),
        cmocka_unit_test(test_taints_tolerations_round_trip),
        cmocka_unit_test(test_names_table),
        cmocka_unit_test(test_names_messages),
        cmocka_unit_test(test_time_parse_format),
        cmocka_unit_test(test_strmap_strlist),
        cmocka_unit_test(test_status_new),
    };

    ts_alloc_init();
    return cmocka_run_group_tests_name("api_core", tests, NULL, NULL);
}
