/* The CRD conversion webhook (/convert) through ts_webhook_handle():
 * lossless round trips v1beta2 -> v1beta1 -> v1beta2 and v1beta1 ->
 * v1beta2 -> v1beta1 for every kueue.x-k8s.io kind, several objects per
 * review, uid echo, and Failure results for bad reviews and objects. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "webhook_test.h"

/* Sends objects to /convert asking for `to`; returns the converted list
 * (owned) or NULL when the result is not Success (then *msg is set). */
static cJSON *convert(const struct ts_webhook *wh, const cJSON *objects, const char *to, char **msg)
{
    cJSON *rv = cJSON_CreateObject(), *rq, *out = NULL;
    char *body;
    struct wt_resp r;

    cJSON_AddStringToObject(rv, "apiVersion", "apiextensions.k8s.io/v1");
    cJSON_AddStringToObject(rv, "kind", "ConversionReview");
    rq = cJSON_AddObjectToObject(rv, "request");
    cJSON_AddStringToObject(rq, "uid", "c-1");
    cJSON_AddStringToObject(rq, "desiredAPIVersion", to);
    cJSON_AddItemToObject(rq, "objects", cJSON_Duplicate(objects, 1));
    body = cJSON_PrintUnformatted(rv);
    wt_call(wh, "/convert", body, strlen(body), &r);
    assert_int_equal(r.http, 200);
    assert_string_equal(ts_json_get_string(r.root, "kind"), "ConversionReview");
    assert_string_equal(ts_json_get_string(r.root, "apiVersion"), "apiextensions.k8s.io/v1");
    assert_string_equal(ts_json_get_string(r.resp, "uid"), "c-1");
    if (strcmp(ts_json_get_string(r.resp, "result.status"), "Success") == 0)
        out = cJSON_Duplicate(cJSON_GetObjectItem(r.resp, "convertedObjects"), 1);
    else if (msg)
        *msg = ts_xstrdup(ts_json_get_string(r.resp, "result.message"));
    wt_resp_release(&r);
    free(body);
    cJSON_Delete(rv);
    return out;
}

static const char *const files[] = {
    "test/data/api/clusterqueue-full.json",
    "test/data/api/cohort-full.json",
    "test/data/api/localqueue-full.json",
    "test/data/api/resourceflavor-full.json",
    "test/data/api/workloadpriorityclass.json",
    "test/data/api/workload-full.json",
    "test/data/api/workload-v1beta1.json",
    "test/data/api/workload-v1beta1-pc.json",
    "test/data/webhook/cq.json",
    "test/data/webhook/rf.json",
    "test/data/webhook/workload.json",
};

static const char *other_version(const char *v)
{
    return strcmp(v, "kueue.x-k8s.io/v1beta1") == 0 ? "kueue.x-k8s.io/v1beta2"
                                                    : "kueue.x-k8s.io/v1beta1";
}

/* obj -> other version -> back must give obj again, for one object. */
static void round_trip_one(const struct ts_webhook *wh, const char *name, const cJSON *obj)
{
    const char *v = ts_json_get_string(obj, "apiVersion");
    cJSON *list = cJSON_CreateArray(), *there, *back;

    cJSON_AddItemToArray(list, cJSON_Duplicate(obj, 1));
    there = convert(wh, list, other_version(v), NULL);
    if (!there)
        fail_msg("%s: conversion to %s failed", name, other_version(v));
    assert_string_equal(ts_json_get_string(cJSON_GetArrayItem(there, 0), "apiVersion"),
                        other_version(v));
    back = convert(wh, there, v, NULL);
    if (!back || !ts_json_equal(cJSON_GetArrayItem(back, 0), obj))
        fail_msg("%s: round trip through %s differs:\n%s\n%s", name, other_version(v),
                 cJSON_PrintUnformatted(obj),
                 back ? cJSON_PrintUnformatted(cJSON_GetArrayItem(back, 0)) : "(failed)");
    cJSON_Delete(list), cJSON_Delete(there), cJSON_Delete(back);
}

static void round_trips(void **state)
{
    struct ts_webhook_options o;
    struct ts_webhook *wh;
    cJSON *extra = wt_load("test/data/webhook/convert-extra.json");
    const cJSON *e;
    int n = 0;

    (void)state;
    ts_webhook_options_init(&o);
    wh = ts_webhook_new(&o);
    for (size_t i = 0; i < N_ELEMS(files); i++, n++) {
        cJSON *obj = wt_load(files[i]);

        round_trip_one(wh, files[i], obj);
        cJSON_Delete(obj);
    }
    cJSON_ArrayForEach(e, extra)
    {
        round_trip_one(wh, ts_json_get_string(e, "kind"), e);
        n++;
    }
    print_message("%d round trips\n", n);
    cJSON_Delete(extra);
    ts_webhook_free(wh);
}

/* A review with every object at once, in mixed versions. */
static void many_objects(void **state)
{
    struct ts_webhook_options o;
    struct ts_webhook *wh;
    cJSON *list = cJSON_CreateArray(), *out;
    const cJSON *x;

    (void)state;
    ts_webhook_options_init(&o);
    wh = ts_webhook_new(&o);
    for (size_t i = 0; i < N_ELEMS(files); i++)
        cJSON_AddItemToArray(list, wt_load(files[i]));
    out = convert(wh, list, "kueue.x-k8s.io/v1beta2", NULL);
    assert_non_null(out);
    assert_int_equal(cJSON_GetArraySize(out), N_ELEMS(files));
    cJSON_ArrayForEach(x, out)
        assert_string_equal(ts_json_get_string(x, "apiVersion"), "kueue.x-k8s.io/v1beta2");
    /* the v1beta1 spellings are gone in v1beta2 */
    assert_string_equal(
        ts_json_get_string(cJSON_GetArrayItem(out, 6), "spec.priorityClassRef.kind"),
        "WorkloadPriorityClass");
    assert_null(ts_json_get(cJSON_GetArrayItem(out, 6), "spec.priorityClassName"));
    cJSON_Delete(out);
    cJSON_Delete(list);
    list = cJSON_CreateArray();
    out = convert(wh, list, "kueue.x-k8s.io/v1beta1", NULL);
    assert_int_equal(cJSON_GetArraySize(out), 0);
    cJSON_Delete(out);
    cJSON_Delete(list);
    ts_webhook_free(wh);
}

/* Kueue's deprecated v1beta1 spellings
 * (apis/kueue/v1beta1/<kind>_conversion.go) come back in their v1beta2
 * meaning: admissionChecks as admissionChecksStrategy,
 * Borrow/Preempt as MayStopSearch; from there on the round trip is exact. */
static void deprecated_aliases(void **state)
{
    struct ts_webhook_options o;
    struct ts_webhook *wh;
    cJSON *list = cJSON_CreateArray(), *up, *down, *again;
    const cJSON *cq;

    (void)state;
    ts_webhook_options_init(&o);
    wh = ts_webhook_new(&o);
    cJSON_AddItemToArray(list, wt_load("test/data/webhook/cq-v1beta1.json"));
    up = convert(wh, list, "kueue.x-k8s.io/v1beta2", NULL);
    cq = cJSON_GetArrayItem(up, 0);
    assert_string_equal(ts_json_get_string(cq, "spec.cohortName"), "co");
    assert_string_equal(ts_json_get_string(cq, "spec.flavorFungibility.whenCanBorrow"),
                        "MayStopSearch");
    assert_string_equal(ts_json_get_string(cq, "spec.flavorFungibility.whenCanPreempt"),
                        "MayStopSearch");
    assert_string_equal(
        ts_json_get_string(cq, "spec.admissionChecksStrategy.admissionChecks[0].name"), "check");
    down = convert(wh, up, "kueue.x-k8s.io/v1beta1", NULL);
    assert_string_equal(ts_json_get_string(cJSON_GetArrayItem(down, 0), "spec.cohort"), "co");
    again = convert(wh, down, "kueue.x-k8s.io/v1beta2", NULL);
    assert_true(ts_json_equal(up, again));
    cJSON_Delete(list), cJSON_Delete(up), cJSON_Delete(down), cJSON_Delete(again);
    ts_webhook_free(wh);
}

static void failures(void **state)
{
    static const struct {
        const char *name, *body, *want;
    } cases[] = {
        {"not json", "{", "cannot decode ConversionReview"},
        {"admission review", "{'apiVersion':'admission.k8s.io/v1','kind':'AdmissionReview'}",
         "unsupported review"},
        {"no request", "{'apiVersion':'apiextensions.k8s.io/v1','kind':'ConversionReview'}",
         "has no request"},
        {"no uid",
         "{'apiVersion':'apiextensions.k8s.io/v1','kind':'ConversionReview','request':{"
         "'desiredAPIVersion':'kueue.x-k8s.io/v1beta1','objects':[]}}",
         "request.uid is missing"},
        {"no desired version",
         "{'apiVersion':'apiextensions.k8s.io/v1','kind':'ConversionReview','request':{"
         "'uid':'c-1','objects':[]}}",
         "desiredAPIVersion is missing"},
        {"objects not a list",
         "{'apiVersion':'apiextensions.k8s.io/v1','kind':'ConversionReview','request':{"
         "'uid':'c-1','desiredAPIVersion':'kueue.x-k8s.io/v1beta1','objects':{}}}",
         "must be a list"},
        {"unknown version",
         "{'apiVersion':'apiextensions.k8s.io/v1','kind':'ConversionReview','request':{"
         "'uid':'c-1','desiredAPIVersion':'kueue.x-k8s.io/v1alpha1','objects':[{'apiVersion':"
         "'kueue.x-k8s.io/v1beta1','kind':'ClusterQueue','metadata':{'name':'a'}}]}}",
         "objects[0]"},
        {"not a kueue object",
         "{'apiVersion':'apiextensions.k8s.io/v1','kind':'ConversionReview','request':{"
         "'uid':'c-1','desiredAPIVersion':'kueue.x-k8s.io/v1beta1','objects':[{'apiVersion':"
         "'kueue.x-k8s.io/v1beta2','kind':'Cohort','metadata':{'name':'a'}},{'apiVersion':"
         "'batch/v1','kind':'Job'}]}}",
         "objects[1]"},
        {"object not an object",
         "{'apiVersion':'apiextensions.k8s.io/v1','kind':'ConversionReview','request':{"
         "'uid':'c-1','desiredAPIVersion':'kueue.x-k8s.io/v1beta1','objects':[3]}}",
         "objects[0]: not an object"},
    };
    struct ts_webhook_options o;
    struct ts_webhook *wh;

    (void)state;
    ts_webhook_options_init(&o);
    wh = ts_webhook_new(&o);
    for (size_t i = 0; i < N_ELEMS(cases); i++) {
        char *body = ts_xstrdup(cases[i].body);
        struct wt_resp r;
        const char *msg;

        for (char *p = body; *p; p++)
            *p = *p == '\'' ? '"' : *p;
        wt_call(wh, "/convert", body, strlen(body), &r);
        assert_int_equal(r.http, 200);
        if (!r.resp || strcmp(ts_json_get_string(r.resp, "result.status"), "Failure") != 0)
            fail_msg("%s: %s", cases[i].name, r.text.ptr);
        msg = ts_json_get_string(r.resp, "result.message");
        if (!msg || !strstr(msg, cases[i].want))
            fail_msg("%s: message %s", cases[i].name, r.text.ptr);
        assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(r.resp, "convertedObjects")), 0);
        wt_resp_release(&r);
        free(body);
    }
    ts_webhook_free(wh);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(round_trips),
        cmocka_unit_test(many_objects),
        cmocka_unit_test(deprecated_aliases),
        cmocka_unit_test(failures),
    };

    ts_alloc_init();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
