/* Tests for pkg/controller/provreq*.c, the pure part of Kueue's
 * ProvisioningRequest admission check controller: names, backoff, the
 * AdmissionCheck's Active condition, the objects built for a Workload and
 * a check's state from the request's conditions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/object.h"
#include "controller/provreq.h"
#include "json/json.h"
#include "util/alloc.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* JSON written with ' for " */
static cJSON *J(const char *s)
{
    char *t = ts_xstrdup(s);
    cJSON *o;

    for (char *p = t; *p; p++)
        if (*p == '\'')
            *p = '"';
    o = cJSON_Parse(t);
    free(t);
    assert_non_null(o);
    return o;
}

static struct ts_resource_flavor flavor;

static const struct ts_resource_flavor *lookup(void *ctx, const char *name)
{
    (void)ctx;
    return !strcmp(name, "on-demand") ? &flavor : NULL;
}

static int setup(void **state)
{
    cJSON *o = J("{'apiVersion':'kueue.x-k8s.io/v1beta2','kind':'ResourceFlavor','metadata':{"
                 "'name':'on-demand'},'spec':{'nodeLabels':{'instance-type':'on-demand'}}}");
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_dec d;

    (void)state;
    ts_dec_init(&d, &errs);
    ts_resource_flavor_init(&flavor);
    ts_resource_flavor_decode(&d, o, &flavor);
    cJSON_Delete(o);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    ts_resource_flavor_release(&flavor);
    return 0;
}

#define WL_HEAD                                                                                    \
    "{'apiVersion':'kueue.x-k8s.io/v1beta2','kind':'Workload','metadata':{'name':'wl',"            \
    "'namespace':'ns','uid':'u1','annotations':{'provreq.kueue.x-k8s.io/BookingSeconds':'30'}},"   \
    "'spec':{'queueName':'lq','podSets':[{'name':'main','count':2,'template':{'spec':{"            \
    "'containers':[{'name':'c','resources':{'requests':{'cpu':'1'},'limits':{'memory':'1Gi'}}}]"   \
    "}}},{'name':'aux','count':1,'template':{'spec':{'containers':[{'name':'c','resources':{"      \
    "'requests':{'memory':'1Gi'}}}]}}}]},"                                                         \
    "'status':{'admission':{'clusterQueue':'cq','podSetAssignments':[{'name':'main','flavors':{"   \
    "'cpu':'on-demand'},'count':2},{'name':'aux','flavors':{'memory':'on-demand'},'count':1}]},"   \
    "'conditions':[{'type':'QuotaReserved','status':'True','reason':'QuotaReserved','message':"    \
    "'','lastTransitionTime':'2026-01-01T00:00:00Z'}]"

static void decode_wl(const char *checks, struct ts_workload *wl)
{
    char buf[4096];
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_object o;
    cJSON *obj;

    snprintf(buf, sizeof(buf), "%s,'admissionChecks':[%s]}}", WL_HEAD, checks);
    obj = J(buf);
    assert_int_equal(ts_object_decode(obj, &o, &errs, NULL), 0);
    ts_field_errors_release(&errs);
    *wl = o.u.wl;
    cJSON_Delete(obj);
}

static void config(const char *spec, struct ts_provreq_config *cfg)
{
    char buf[1024];
    cJSON *o;

    snprintf(buf, sizeof(buf), "{'metadata':{'name':'prc'},'spec':%s}", spec);
    o = J(buf);
    assert_int_equal(ts_provreq_config_read(o, cfg, NULL), 0);
    cJSON_Delete(o);
}

static void test_names(void **state)
{
    char longwl[300];
    char *n;

    (void)state;
    n = ts_provreq_name("job-a-1234", "prov", 3);
    assert_string_equal(n, "job-a-1234-prov-3");
    free(n);
    n = ts_provreq_template_name("job-a-1234-prov-3", "main");
    assert_string_equal(n, "ppt-job-a-1234-prov-3-main");
    free(n);
    memset(longwl, 'w', 250);
    longwl[250] = 0;
    n = ts_provreq_name(longwl, "prov", 1);
    assert_int_equal(strlen(n), 253); /* 247 characters, '-', 5 hex digits of the SHA-1 */
    assert_int_equal(n[247], '-');
    assert_int_equal(strspn(n + 248, "0123456789abcdef"), 5);
    assert_int_equal(ts_provreq_attempt(n, longwl, "prov"), 0); /* the hash hides the attempt */
    free(n);
}

static void test_attempt(void **state)
{
    static const struct {
        const char *pr;
        int32_t want;
    } cases[] = {
        {"wl-prov-1", 1},  {"wl-prov-12", 12},         {"wl-prov-", 0},   {"wl-prov-1x", 0},
        {"wl-other-1", 0}, {"wl-prov-99999999999", 1}, {"xwl-prov-1", 0}, {"wl-prov-007", 7},
    };

    (void)state;
    for (size_t i = 0; i < N(cases); i++) {
        if (ts_provreq_attempt(cases[i].pr, "wl", "prov") != cases[i].want)
            fail_msg("case %s: got %d", cases[i].pr, ts_provreq_attempt(cases[i].pr, "wl", "prov"));
    }
}

static void test_backoff(void **state)
{
    static const struct {
        int32_t base, max, n, want;
    } cases[] = {
        {60, 1800, 1, 60},
        {60, 1800, 2, 120},
        {60, 1800, 5, 960},
        {60, 1800, 6, 1800},
        {60, 1800, 60, 1800},
        {2, 10, 3, 8},
        {2, 10, 4, 10},
        {100, 10, 1, 100},
        {100, 10, 2, 10},
        {1, 0, 40, INT32_MAX},
        {INT32_MAX, 0, 3, INT32_MAX},
        {-5, 10, 2, 0},
    };

    (void)state;
    for (size_t i = 0; i < N(cases); i++) {
        int32_t got = ts_provreq_backoff(cases[i].base, cases[i].max, cases[i].n);

        if (got != cases[i].want)
            fail_msg("case %zu: backoff(%d,%d,%d) = %d, want %d", i, cases[i].base, cases[i].max,
                     cases[i].n, got, cases[i].want);
    }
}

static void test_ac_active(void **state)
{
    static const struct {
        const char *params;
        int cfg;
        const char *cur;                    /* current Active status, or NULL */
        const char *want_status, *want_msg; /* NULL: no write */
    } cases[] = {
        {"{'apiGroup':'kueue.x-k8s.io','kind':'ProvisioningRequestConfig','name':'prc'}", 1, NULL,
         "True", "The admission check is active"},
        {"{'apiGroup':'kueue.x-k8s.io','kind':'ProvisioningRequestConfig','name':'prc'}", 1, "True",
         NULL, NULL},
        {"{'apiGroup':'kueue.x-k8s.io','kind':'ProvisioningRequestConfig','name':'prc'}", 0, "True",
         "False", "provisioningrequestconfigs.kueue.x-k8s.io \"prc\" not found"},
        {"{'apiGroup':'kueue.x-k8s.io','kind':'Other','name':'prc'}", 1, NULL, "False",
         "wrong kind \"Other\", expecting \"ProvisioningRequestConfig\": bad parameters reference"},
        {"{'apiGroup':'x.io','kind':'ProvisioningRequestConfig','name':'prc'}", 1, NULL, "False",
         "wrong group \"x.io\", expecting \"kueue.x-k8s.io\": bad parameters reference"},
        {"{'apiGroup':'kueue.x-k8s.io','kind':'ProvisioningRequestConfig','name':''}", 1, NULL,
         "False", "empty name: bad parameters reference"},
        {"null", 1, NULL, "False", "missing parameters reference"},
        {"null", 1, "False", NULL, NULL},
    };

    (void)state;
    for (size_t i = 0; i < N(cases); i++) {
        char buf[1024];
        cJSON *ac, *cfg = J("{'metadata':{'name':'prc'}}"), *out;

        snprintf(buf, sizeof(buf),
                 "{'metadata':{'name':'prov','generation':2},'spec':{'controllerName':"
                 "'kueue.x-k8s.io/provisioning-request','parameters':%s},'status':{'conditions':"
                 "[%s%s%s]}}",
                 cases[i].params, cases[i].cur ? "{'type':'Active','status':'" : "",
                 cases[i].cur ? cases[i].cur : "", cases[i].cur ? "'}" : "");
        ac = J(buf);
        out = ts_provreq_ac_status(ac, cases[i].cfg ? cfg : NULL, 1000);
        if (!cases[i].want_status) {
            if (out)
                fail_msg("case %zu: a write where none is due", i);
        } else {
            const cJSON *c = cJSON_GetArrayItem(ts_json_get(out, "status.conditions"), 0);

            if (!out)
                fail_msg("case %zu: no write", i);
            assert_string_equal(ts_json_get_string(c, "status"), cases[i].want_status);
            assert_string_equal(ts_json_get_string(c, "message"), cases[i].want_msg);
            assert_string_equal(ts_json_get_string(c, "reason"),
                                cases[i].cfg && !strcmp(cases[i].want_status, "True")
                                    ? "Active"
                                    : "BadParametersRef");
            assert_int_equal(ts_json_get(c, "observedGeneration")->valueint, 2);
        }
        cJSON_Delete(out);
        cJSON_Delete(ac);
        cJSON_Delete(cfg);
    }
}

static void test_build(void **state)
{
    struct ts_provreq_config cfg;
    struct ts_workload wl;
    cJSON *pr, *pts, *pt;

    (void)state;
    decode_wl("{'name':'prov','state':'Pending'}", &wl);
    config("{'provisioningClassName':'queued-provisioning.gke.io','parameters':{'a':'b'},"
           "'managedResources':['cpu']}",
           &cfg);
    assert_int_equal(ts_provreq_build(&wl, &cfg, "prov", 2, lookup, NULL, &pr, &pts, NULL), 0);
    assert_string_equal(ts_json_get_string(pr, "metadata.name"), "wl-prov-2");
    assert_string_equal(ts_json_get_string(pr, "apiVersion"), "autoscaling.x-k8s.io/v1");
    assert_string_equal(ts_json_get_string(pr, "spec.provisioningClassName"),
                        "queued-provisioning.gke.io");
    assert_string_equal(ts_json_get_string(pr, "spec.parameters.a"), "b");
    assert_string_equal(ts_json_get_string(pr, "spec.parameters.BookingSeconds"), "30");
    assert_string_equal(
        ts_json_get_string(pr, "metadata.labels.kueue\\.x-k8s\\.io/managed") ?: "true", "true");
    assert_string_equal(
        ts_json_get_string(cJSON_GetArrayItem(ts_json_get(pr, "metadata.ownerReferences"), 0),
                           "uid"),
        "u1");
    /* only main uses cpu (managedResources) */
    assert_int_equal(cJSON_GetArraySize(ts_json_get(pr, "spec.podSets")), 1);
    assert_string_equal(ts_json_get_string(cJSON_GetArrayItem(ts_json_get(pr, "spec.podSets"), 0),
                                           "podTemplateRef.name"),
                        "ppt-wl-prov-2-main");
    assert_int_equal(
        ts_json_get(cJSON_GetArrayItem(ts_json_get(pr, "spec.podSets"), 0), "count")->valueint, 2);
    pt = cJSON_GetArrayItem(pts, 0);
    assert_int_equal(cJSON_GetArraySize(pts), 1);
    assert_string_equal(ts_json_get_string(pt, "metadata.name"), "ppt-wl-prov-2-main");
    assert_string_equal(ts_json_get_string(pt, "kind"), "PodTemplate");
    assert_string_equal(ts_json_get_string(pt, "template.spec.nodeSelector.instance-type"),
                        "on-demand");
    /* limits as missing requests */
    assert_string_equal(
        ts_json_get_string(cJSON_GetArrayItem(ts_json_get(pt, "template.spec.containers"), 0),
                           "resources.requests.memory"),
        "1Gi");
    cJSON_Delete(pr);
    cJSON_Delete(pts);
    ts_provreq_config_release(&cfg);
    /* merged: every pod set, identical scheduling requirements differ here */
    config("{'provisioningClassName':'c','podSetMergePolicy':'"
           "IdenticalWorkloadSchedulingRequirements'}",
           &cfg);
    assert_int_equal(ts_provreq_build(&wl, &cfg, "prov", 1, lookup, NULL, &pr, &pts, NULL), 0);
    assert_int_equal(cJSON_GetArraySize(ts_json_get(pr, "spec.podSets")), 2);
    cJSON_Delete(pr);
    cJSON_Delete(pts);
    ts_provreq_config_release(&cfg);
    ts_workload_release(&wl);
}

/* A request's conditions -> the check's state, message, requeueAfterSeconds. */
static void test_sync_check(void **state)
{
    static const struct {
        const char *name, *check, *pr, *conds;
        int want_rc;
        const char *want_state, *want_msg;
        int32_t want_requeue; /* -1: unset */
    } cases[] = {
        {"no request yet", "{'name':'prov','state':'Pending'}", NULL, NULL, -1, "Pending", "", -1},
        {"no condition", "{'name':'prov','state':'Pending'}", "wl-prov-1", "", 0, "Pending", "",
         -1},
        {"provisioned", "{'name':'prov','state':'Pending'}", "wl-prov-1",
         "{'type':'Provisioned','status':'True','message':'ok'}", 1, "Ready", "ok", -1},
        {"accepted with ETA", "{'name':'prov','state':'Pending'}", "wl-prov-1",
         "{'type':'Accepted','status':'True'},{'type':'Provisioned','status':'False','message':'"
         "eta 5m'}",
         1, "Pending", "eta 5m", -1},
        {"failed, retried", "{'name':'prov','state':'Pending'}", "wl-prov-1",
         "{'type':'Failed','status':'True','message':'boom'}", 1, "Retry",
         "Retrying after failure: boom", 2},
        {"failed, old attempt after reset", "{'name':'prov','state':'Pending','retryCount':1}",
         "wl-prov-1", "{'type':'Failed','status':'True','message':'boom'}", 1, "Pending",
         "Retrying after failure: boom", -1},
        {"failed, second retry backs off more", "{'name':'prov','state':'Pending','retryCount':1}",
         "wl-prov-2", "{'type':'Failed','status':'True','message':'boom'}", 1, "Rejected", "boom",
         -1},
        {"booking expired", "{'name':'prov','state':'Pending'}", "wl-prov-1",
         "{'type':'BookingExpired','status':'True','message':'late'}", 1, "Retry",
         "Retrying after booking expired: late", 2},
        {"capacity revoked", "{'name':'prov','state':'Ready'}", "wl-prov-1",
         "{'type':'CapacityRevoked','status':'True','message':'gone'}", 1, "Rejected", "gone", -1},
    };

    (void)state;
    for (size_t i = 0; i < N(cases); i++) {
        struct ts_provreq_config cfg;
        struct ts_strlist ev = TS_STRLIST_INIT;
        struct ts_workload wl;
        cJSON *pr = NULL;
        char buf[1024];
        int rc;

        decode_wl(cases[i].check, &wl);
        /* limit 1: attempt 2 is past it */
        config("{'provisioningClassName':'c','retryStrategy':{'backoffLimitCount':1,"
               "'backoffBaseSeconds':2,'backoffMaxSeconds':10},'podSetUpdates':{'nodeSelector':"
               "[{'key':'zone','valueFromProvisioningClassDetail':'z'}]}}",
               &cfg);
        if (cases[i].pr) {
            snprintf(buf, sizeof(buf),
                     "{'metadata':{'name':'%s'},'spec':{'provisioningClassName':'c','podSets':"
                     "[{'podTemplateRef':{'name':'ppt-%s-main'},'count':2}]},'status':{"
                     "'provisioningClassDetails':{'z':'z1'},'conditions':[%s]}}",
                     cases[i].pr, cases[i].pr, cases[i].conds);
            pr = J(buf);
        }
        rc = ts_provreq_sync_check(&wl, "prov", &cfg, pr, 5000, &ev);
        if (rc != cases[i].want_rc)
            fail_msg("case %s: rc %d, want %d", cases[i].name, rc, cases[i].want_rc);
        assert_string_equal(wl.status.admission_checks[0].state, cases[i].want_state);
        if (strcmp(wl.status.admission_checks[0].message ? wl.status.admission_checks[0].message
                                                         : "",
                   cases[i].want_msg))
            fail_msg("case %s: message '%s'", cases[i].name, wl.status.admission_checks[0].message);
        if (cases[i].want_requeue >= 0)
            assert_int_equal(wl.status.admission_checks[0].requeue_after_seconds.v,
                             cases[i].want_requeue);
        if (!strcmp(cases[i].want_state, "Ready")) {
            const struct ts_podset_update *u = wl.status.admission_checks[0].podset_updates;

            assert_int_equal(wl.status.admission_checks[0].n_podset_updates, 1);
            assert_string_equal(u->name, "main");
            assert_string_equal(ts_strmap_get(&u->annotations, TS_PROVREQ_CONSUME_ANNOT),
                                "wl-prov-1");
            assert_string_equal(ts_strmap_get(&u->annotations, TS_PROVREQ_CLASS_ANNOT), "c");
            assert_string_equal(ts_strmap_get(&u->node_selector, "zone"), "z1");
            assert_int_equal(ev.n, 1);
            assert_string_equal(ev.items[0], "Admission check prov updated state from Pending to "
                                             "Ready with message: ok");
        }
        ts_strlist_release(&ev);
        cJSON_Delete(pr);
        ts_provreq_config_release(&cfg);
        ts_workload_release(&wl);
    }
}

static void test_inactive_and_not_needed(void **state)
{
    struct ts_provreq_config cfg;
    struct ts_strlist ev = TS_STRLIST_INIT;
    struct ts_workload wl;

    (void)state;
    decode_wl("{'name':'prov','state':'Pending'}", &wl);
    assert_int_equal(ts_provreq_sync_check(&wl, "prov", NULL, NULL, 1, &ev), 1);
    assert_string_equal(wl.status.admission_checks[0].message, "the check is not active");
    config("{'provisioningClassName':'c','managedResources':['nvidia.com/gpu']}", &cfg);
    assert_int_equal(ts_provreq_needed(&wl, &cfg), 0);
    assert_int_equal(ts_provreq_sync_check(&wl, "prov", &cfg, NULL, 1, &ev), 1);
    assert_string_equal(wl.status.admission_checks[0].state, "Ready");
    assert_string_equal(wl.status.admission_checks[0].message,
                        "the provisioning request is not needed");
    ts_strlist_release(&ev);
    ts_provreq_config_release(&cfg);
    ts_workload_release(&wl);
}

static void test_should_create(void **state)
{
    static const struct {
        const char *check, *pr, *conds;
        int want;
        int32_t attempt;
    } cases[] = {
        {"{'name':'prov','state':'Pending'}", NULL, NULL, 1, 1},
        {"{'name':'prov','state':'Pending'}", "wl-prov-1", "", 0, 1},
        {"{'name':'prov','state':'Pending'}", "wl-prov-1", "{'type':'Failed','status':'True'}", 1,
         2},
        {"{'name':'prov','state':'Retry'}", "wl-prov-1", "{'type':'Failed','status':'True'}", 0, 1},
        {"{'name':'prov','state':'Pending'}", "wl-prov-3",
         "{'type':'BookingExpired','status':'True'}", 1, 4},
        {"{'name':'prov','state':'Ready'}", NULL, NULL, 0, 1},
    };

    (void)state;
    for (size_t i = 0; i < N(cases); i++) {
        struct ts_workload wl;
        cJSON *pr = NULL;
        char buf[512];
        int32_t attempt;

        decode_wl(cases[i].check, &wl);
        if (cases[i].pr) {
            snprintf(buf, sizeof(buf), "{'metadata':{'name':'%s'},'status':{'conditions':[%s]}}",
                     cases[i].pr, cases[i].conds);
            pr = J(buf);
        }
        if (ts_provreq_should_create(&wl, "prov", pr, &attempt) != cases[i].want)
            fail_msg("case %zu: wrong answer", i);
        assert_int_equal(attempt, cases[i].attempt);
        cJSON_Delete(pr);
        ts_workload_release(&wl);
    }
}

static void test_bad_config(void **state)
{
    static const char *const bad[] = {
        "{'metadata':{'name':'p'},'spec':{}}",
        "{'metadata':{'name':'p'},'spec':{'provisioningClassName':'c','retryStrategy':{'"
        "backoffLimitCount':'x'}}}",
        "{'metadata':{'name':'p'},'spec':{'provisioningClassName':'c','retryStrategy':{'"
        "backoffBaseSeconds':99999999999}}}",
        "{'metadata':{'name':'p'},'spec':{'provisioningClassName':'c','podSetMergePolicy':'Nope'}}",
        "{'metadata':{'name':'p'},'spec':{'provisioningClassName':'c','parameters':{'a':1}}}",
    };

    (void)state;
    for (size_t i = 0; i < N(bad); i++) {
        struct ts_provreq_config cfg;
        struct ts_err err = {0};
        cJSON *o = J(bad[i]);

        if (ts_provreq_config_read(o, &cfg, &err) != TS_EINVAL)
            fail_msg("case %zu accepted", i);
        assert_non_null(strstr(err.msg, "ProvisioningRequestConfig p: spec."));
        ts_provreq_config_release(&cfg);
        cJSON_Delete(o);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_attempt),
        cmocka_unit_test(test_backoff),
        cmocka_unit_test(test_ac_active),
        cmocka_unit_test(test_build),
        cmocka_unit_test(test_sync_check),
        cmocka_unit_test(test_inactive_and_not_needed),
        cmocka_unit_test(test_should_create),
        cmocka_unit_test(test_bad_config),
    };

    ts_alloc_init();
    return cmocka_run_group_tests_name("controller_provreq", tests, setup, teardown);
}
