/* Conversion of kueue.x-k8s.io objects between v1beta1 and v1beta2
 * (ts_convert_kueue and the queue hooks): round trips in both directions
 * equal to the input (stashed fields included), the v1beta2 shapes Kueue
 * produces (also for the seed files), Kueue's lossy mappings, lists,
 * errors, and the conversion-data annotation helpers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "api/convert.h"
#include "api/convert_int.h"
#include "api_queue_test.h"
#include "yaml/yaml.h"
#include "json/json.h"

#define V1 TS_KUEUE_V1BETA1
#define V2 TS_KUEUE_V1BETA2

static void assert_json_equal(const char *what, const cJSON *a, const cJSON *b)
{
    if (!ts_json_equal(a, b)) {
        char *sa = cJSON_Print(a);
        char *sb = cJSON_Print(b);

        fail_msg("%s: JSON differs:\n%s\n---\n%s", what, sa, sb);
        free(sa);
        free(sb);
    }
}

static void convert_ok(const char *what, cJSON *obj, const char *to)
{
    struct ts_err err = {0};

    if (ts_convert_kueue(obj, to, &err))
        fail_msg("%s: conversion to %s failed: %s", what, to, err.msg);
}

/* from -> other version -> from must give the input back. */
static void assert_round_trip(const char *what, const cJSON *in, const char *from,
                              const char *other)
{
    cJSON *x = cJSON_Duplicate(in, 1);

    convert_ok(what, x, other);
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(x, "apiVersion")),
                        other);
    convert_ok(what, x, from);
    assert_json_equal(what, in, x);
    cJSON_Delete(x);
}

/* v1beta1 objects whose fields all survive v1beta1 -> v1beta2 -> v1beta1. */
static const char *const v1_objects[] = {
    "{'apiVersion':'kueue.x-k8s.io/v1beta1','kind':'ClusterQueue','metadata':{'name':'cq'},"
    "'spec':{'cohort':'ai-cohort','namespaceSelector':{},'queueingStrategy':'StrictFIFO',"
    "'resourceGroups':[{'coveredResources':['cpu'],'flavors':[{'name':'f','resources':[{'name':"
    "'cpu','nominalQuota':9,'borrowingLimit':'1'}]}]}],'admissionChecksStrategy':{"
    "'admissionChecks':[{'name':'prov','onFlavors':['f']}]},'flavorFungibility':{"
    "'whenCanBorrow':'TryNextFlavor','whenCanPreempt':'MayStopSearch'},'stopPolicy':'Hold',"
    "'fairSharing':{'weight':'2'},'admissionScope':{'admissionMode':'NoAdmissionFairSharing'}},"
    "'status':{'pendingWorkloads':3,'flavorsUsage':[{'name':'f','resources':[{'name':'cpu',"
    "'total':'1','borrowed':'0'}]}],'conditions':[{'type':'Active','status':'True','reason':"
    "'Ready','message':'Can admit new workloads','lastTransitionTime':'2026-01-01T00:00:00Z'}]}}",
    "{'apiVersion':'kueue.x-k8s.io/v1beta1','kind':'LocalQueue','metadata':{'name':'lq',"
    "'namespace':'a','annotations':{'keep':'me'}},'spec':{'clusterQueue':'cq','stopPolicy':"
    "'None'},'status':{'pendingWorkloads':1,'flavorsReservation':[{'name':'f','resources':[{"
    "'name':'cpu','total':'2'}]}],'flavorUsage':[{'name':'f','resources':[{'name':'cpu','total':"
    "'1'}]}],'flavors':[{'name':'f','resources':['cpu'],'nodeLabels':{'a':'b'},'nodeTaints':[{"
    "'key':'k','effect':'NoSchedule'}],'topology':{'name':'t','levels':['zone']}}]}}",
    "{'apiVersion':'kueue.x-k8s.io/v1beta1','kind':'Cohort','metadata':{'name':'co'},'spec':{"
    "'parentName':'root','resourceGroups':[{'coveredResources':['cpu'],'flavors':[{'name':'f',"
    "'resources':[{'name':'cpu','nominalQuota':'1','lendingLimit':'5'}]}]}]},'status':{"
    "'fairSharing':{'weightedShare':3}}}",
    "{'apiVersion':'kueue.x-k8s.io/v1beta1','kind':'ResourceFlavor','metadata':{'name':'spot'},"
    "'spec':{'nodeLabels':{'instance-type':'spot'},'tolerations':[{'key':'spot','operator':"
    "'Exists','effect':'NoSchedule'}]}}",
    "{'apiVersion':'kueue.x-k8s.io/v1beta1','kind':'WorkloadPriorityClass','metadata':{'name':"
    "'high'},'value':1000,'description':'d'}",
    "{'apiVersion':'kueue.x-k8s.io/v1beta1','kind':'AdmissionCheck','metadata':{'name':'prov'},"
    "'spec':{'controllerName':'kueue.x-k8s.io/provisioning-request','retryDelayMinutes':15,"
    "'parameters':{'apiGroup':'kueue.x-k8s.io','kind':'ProvisioningRequestConfig','name':'c'}}}",
    "{'apiVersion':'kueue.x-k8s.io/v1beta1','kind':'Topology','metadata':{'name':'t'},'spec':{"
    "'levels':[{'nodeLabel':'topology.kubernetes.io/zone'},{'nodeLabel':"
    "'kubernetes.io/hostname'}]}}",
};

static void test_round_trip_v1beta1(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ELEMS(v1_objects); i++) {
        cJSON *in = tq_json(v1_objects[i]);

        assert_round_trip(v1_objects[i], in, V1, V2);
        cJSON_Delete(in);
    }
}

/* The canonical v1beta2 files (every field, concurrentAdmissionPolicy
 * included) survive v1beta2 -> v1beta1 -> v1beta2. */
static void test_round_trip_v1beta2(void **state)
{
    static const char *const files[] = {
        "test/data/api/clusterqueue-full.json",     "test/data/api/localqueue-full.json",
        "test/data/api/cohort-full.json",           "test/data/api/resourceflavor-full.json",
        "test/data/api/workloadpriorityclass.json",
    };

    (void)state;
    for (size_t i = 0; i < N_ELEMS(files); i++) {
        cJSON *in = tq_json_file(files[i]);

        assert_round_trip(files[i], in, V2, V1);
        cJSON_Delete(in);
    }
}

/* Every kueue document of the seeds: v1beta1 -> v1beta2 -> v1beta1. */
static void test_round_trip_seeds(void **state)
{
    static const char *const files[] = {
        "../shared/samples/seeds/ai-cluster-queue.yaml",
        "../shared/samples/seeds/borrowing-and-reclaim.yaml",
        "../shared/samples/seeds/cluster-queue-gpu.yaml",
        "../shared/samples/seeds/multi-team.yaml",
    };
    int n = 0;

    (void)state;
    for (size_t f = 0; f < N_ELEMS(files); f++) {
        struct ts_yaml_stream s = TS_YAML_STREAM_INIT;
        struct ts_err err = {0};

        if (ts_yaml_decode_file(files[f], &s, &err))
            fail_msg("%s", err.msg);
        for (size_t i = 0; i < s.n; i++, n++)
            assert_round_trip(files[f], s.docs[i].root, V1, V2);
        ts_yaml_stream_release(&s);
    }
    assert_int_equal(n, 11);
}

static const struct shape {
    const char *name, *in, *to, *want;
} shapes[] = {
    {"cohort becomes cohortName",
     "{'apiVersion':'kueue.x-k8s.io/v1beta1','kind':'ClusterQueue','spec':{'cohort':'ai-cohort'}}",
     V2,
     "{'apiVersion':'kueue.x-k8s.io/v1beta2','kind':'ClusterQueue','spec':{'cohortName':"
     "'ai-cohort'}}"},
    {"cohortName becomes cohort",
     "{'apiVersion':'kueue.x-k8s.io/v1beta2','kind':'ClusterQueue','spec':{'cohortName':'c'}}", V1,
     "{'apiVersion':'kueue.x-k8s.io/v1beta1','kind':'ClusterQueue','spec':{'cohort':'c'}}"},
    {"admissionChecks fold into the strategy",
     "{'apiVersion':'kueue.x-k8s.io/v1beta1','kind':'ClusterQueue','spec':{'admissionChecks':"
     "['a','b']}}",
     V2,
     "{'apiVersion':'kueue.x-k8s.io/v1beta2','kind':'ClusterQueue','spec':{"
     "'admissionChecksStrategy':{'admissionChecks':[{'name':'a'},{'name':'b'}]}}}"},
    {"admissionChecks merge into an existing strategy",
     "{'apiVersion':'kueue.x-k8s.io/v1beta1','kind':'ClusterQueue','spec':{'admissionChecks':"
     "['a','b'],'admissionChecksStrategy':{'admissionChecks':[{'name':'a','onFlavors':['f']}]}}}",
     V2,
     "{'apiVersion':'kueue.x-k8s.io/v1beta2','kind':'ClusterQueue','spec':{"
     "'admissionChecksStrategy':{'admissionChecks':[{'name':'a','onFlavors':['f']},{'name':"
     "'b'}]}}}"},
    {"empty admissionChecks vanish",
     "{'apiVersion':'kueue.x-k8s.io/v1beta1','kind':'ClusterQueue','spec':{'admissionChecks':[]}}",
     V2, "{'apiVersion':'kueue.x-k8s.io/v1beta2','kind':'ClusterQueue','spec':{}}"},
    {"Borrow and Preempt become MayStopSearch",
     "{'apiVersion':'kueue.x-k8s.io/v1beta1','kind':'ClusterQueue','spec':{'flavorFungibility':{"
     "'whenCanBorrow':'Borrow','whenCanPreempt':'Preempt'}}}",
     V2,
     "{'apiVersion':'kueue.x-k8s.io/v1beta2','kind':'ClusterQueue','spec':{'flavorFungibility':{"
     "'whenCanBorrow':'MayStopSearch','whenCanPreempt':'MayStopSearch'}}}"},
    {"pendingWorkloadsStatus is dropped",
     "{'apiVersion':'kueue.x-k8s.io/v1beta1','kind':'ClusterQueue','status':{'pendingWorkloads':"
     "2,'pendingWorkloadsStatus':{'clusterQueuePendingWorkload':[],'lastChangeTime':"
     "'2026-01-01T00:00:00Z'}}}",
     V2,
     "{'apiVersion':'kueue.x-k8s.io/v1beta2','kind':'ClusterQueue','status':{"
     "'pendingWorkloads':2}}"},
    {"concurrentAdmissionPolicy is stashed for v1beta1",
     "{'apiVersion':'kueue.x-k8s.io/v1beta2','kind':'ClusterQueue','metadata':{'name':'cq'},"
     "'spec':{'concurrentAdmissionPolicy':{'migration':{'mode':'RetainFirstAdmission'}}}}",
     V1,
     "{'apiVersion':'kueue.x-k8s.io/v1beta1','kind':'ClusterQueue','metadata':{'name':'cq',"
     "'annotations':{'turnstile.dev/conversion-data':'{\\'spec.concurrentAdmissionPolicy\\':{"
     "\\'migration\\':{\\'mode\\':\\'RetainFirstAdmission\\'}}}'}},'spec':{}}"},
    {"LocalQueue flavorUsage becomes flavorsUsage, flavors stashed",
     "{'apiVersion':'kueue.x-k8s.io/v1beta1','kind':'LocalQueue','metadata':{'name':'lq'},"
     "'status':{'flavorUsage':[{'name':'f','resources':[]}],'flavors':[{'name':'f'}]}}",
     V2,
     "{'apiVersion':'kueue.x-k8s.io/v1beta2','kind':'LocalQueue','metadata':{'name':'lq',"
     "'annotations':{'turnstile.dev/conversion-data':'{\\'status.flavors\\':[{\\'name\\':"
     "\\'f\\'}]}'}},'status':{'flavorsUsage':[{'name':'f','resources':[]}]}}"},
    {"LocalQueue flavorsUsage becomes flavorUsage",
     "{'apiVersion':'kueue.x-k8s.io/v1beta2','kind':'LocalQueue','status':{'flavorsUsage':[]}}", V1,
     "{'apiVersion':'kueue.x-k8s.io/v1beta1','kind':'LocalQueue','status':{'flavorUsage':[]}}"},
    {"identical schemas only change apiVersion",
     "{'apiVersion':'kueue.x-k8s.io/v1beta1','kind':'ResourceFlavor','spec':{'cohort':'x'}}", V2,
     "{'apiVersion':'kueue.x-k8s.io/v1beta2','kind':'ResourceFlavor','spec':{'cohort':'x'}}"},
    {"AdmissionCheck retryDelayMinutes is stashed",
     "{'apiVersion':'kueue.x-k8s.io/v1beta1','kind':'AdmissionCheck','spec':{"
     "'retryDelayMinutes':15}}",
     V2,
     "{'apiVersion':'kueue.x-k8s.io/v1beta2','kind':'AdmissionCheck','metadata':{'annotations':"
     "{'turnstile.dev/conversion-data':'{\\'spec.retryDelayMinutes\\':15}'}},'spec':{}}"},
    {"same version is a no-op",
     "{'apiVersion':'kueue.x-k8s.io/v1beta1','kind':'ClusterQueue','spec':{'cohort':'c'}}", V1,
     "{'apiVersion':'kueue.x-k8s.io/v1beta1','kind':'ClusterQueue','spec':{'cohort':'c'}}"},
    {"lists convert every item",
     "{'apiVersion':'kueue.x-k8s.io/v1beta1','kind':'ClusterQueueList','items':[{'apiVersion':"
     "'kueue.x-k8s.io/v1beta1','kind':'ClusterQueue','spec':{'cohort':'a'}},{'spec':{'cohort':"
     "'b'}}]}",
     V2,
     "{'apiVersion':'kueue.x-k8s.io/v1beta2','kind':'ClusterQueueList','items':[{'apiVersion':"
     "'kueue.x-k8s.io/v1beta2','kind':'ClusterQueue','spec':{'cohortName':'a'}},{'apiVersion':"
     "'kueue.x-k8s.io/v1beta2','spec':{'cohortName':'b'}}]}"},
};

/* tq_json() turns ' into ", so the JSON-in-a-string annotations above are
 * written with \' and fixed up here to \". */
static cJSON *shape_json(const char *text)
{
    char *s = ts_xstrdup(text);
    cJSON *j;

    for (char *p = s; *p; p++) {
        if (p[0] == '\\' && p[1] == '\'') {
            p[1] = '"';
            p++;
        } else if (*p == '\'') {
            *p = '"';
        }
    }
    j = cJSON_Parse(s);
    if (!j)
        fail_msg("test JSON does not parse: %s", s);
    free(s);
    return j;
}

static void test_shapes(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ELEMS(shapes); i++) {
        cJSON *x = shape_json(shapes[i].in);
        cJSON *want = shape_json(shapes[i].want);

        convert_ok(shapes[i].name, x, shapes[i].to);
        assert_json_equal(shapes[i].name, want, x);
        cJSON_Delete(x);
        cJSON_Delete(want);
    }
}

/* Kueue's one-way mappings: a v1beta1 read of a converted object shows the
 * v1beta2 meaning (apis/kueue/v1beta1/<kind>_conversion.go). */
static void test_lossy_as_kueue(void **state)
{
    cJSON *x = tq_json("{'apiVersion':'kueue.x-k8s.io/v1beta1','kind':'ClusterQueue','spec':{"
                       "'admissionChecks':['a'],'flavorFungibility':{'whenCanBorrow':'Borrow'}}}");
    cJSON *want = tq_json("{'apiVersion':'kueue.x-k8s.io/v1beta1','kind':'ClusterQueue','spec':{"
                          "'admissionChecksStrategy':{'admissionChecks':[{'name':'a'}]},"
                          "'flavorFungibility':{'whenCanBorrow':'MayStopSearch'}}}");

    (void)state;
    convert_ok("up", x, V2);
    convert_ok("down", x, V1);
    assert_json_equal("lossy", want, x);
    cJSON_Delete(x);
    cJSON_Delete(want);
}

/* The seeds decode as v1beta2 ClusterQueues after conversion. */
static void test_seed_shapes(void **state)
{
    struct ts_yaml_stream s = TS_YAML_STREAM_INIT;
    struct ts_err err = {0};
    cJSON *spec;

    (void)state;
    assert_int_equal(
        ts_yaml_decode_file("../shared/samples/seeds/borrowing-and-reclaim.yaml", &s, &err), 0);
    for (size_t i = 0; i < 2; i++) {
        convert_ok("seed", s.docs[i].root, V2);
        spec = cJSON_GetObjectItemCaseSensitive(s.docs[i].root, "spec");
        assert_string_equal(
            cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(spec, "cohortName")),
            "ai-cohort");
        assert_null(cJSON_GetObjectItemCaseSensitive(spec, "cohort"));
        assert_string_equal(ts_json_get_string(s.docs[i].root, "apiVersion"), V2);
    }
    convert_ok("rf", s.docs[2].root, V2);
    assert_string_equal(
        ts_json_get_string(s.docs[2].root, "spec.nodeLabels[kueue.x-k8s.io/machine-type]"),
        "autoscale");
    ts_yaml_stream_release(&s);
}

static void test_errors(void **state)
{
    static const struct {
        const char *in, *to;
        int code;
        const char *want;
    } cases[] = {
        {"[1]", V2, TS_EINVAL, "must be a JSON object"},
        {"{'kind':'ClusterQueue'}", V2, TS_EINVAL, "apiVersion: Required value"},
        {"{'apiVersion':'batch/v1','kind':'Job'}", V2, TS_EINVAL,
         "apiVersion: not a kueue.x-k8s.io object: \"batch/v1\""},
        {"{'apiVersion':'kueue.x-k8s.io/v1alpha1','kind':'Cohort'}", V2, TS_EINVAL,
         "apiVersion: unsupported version \"kueue.x-k8s.io/v1alpha1\""},
        {"{'apiVersion':'kueue.x-k8s.io/v1beta1'}", V2, TS_EINVAL, "kind: Required value"},
        {"{'apiVersion':'kueue.x-k8s.io/v1beta1','kind':'Frobnicator'}", V2, TS_EUNSUPPORTED,
         "kind: unsupported kind \"Frobnicator\" in kueue.x-k8s.io"},
        {"{'apiVersion':'kueue.x-k8s.io/v1beta1','kind':'FrobnicatorList','items':[]}", V2,
         TS_EUNSUPPORTED, "unsupported kind \"FrobnicatorList\""},
        {"{'apiVersion':'kueue.x-k8s.io/v1beta1','kind':'ClusterQueue'}", "kueue.x-k8s.io/v2",
         TS_EINVAL, "unsupported target version \"kueue.x-k8s.io/v2\""},
        {"{'apiVersion':'kueue.x-k8s.io/v1beta1','kind':'ClusterQueue','spec':{"
         "'admissionChecks':'a'}}",
         V2, TS_EINVAL, "spec.admissionChecks: must be an array of strings"},
        {"{'apiVersion':'kueue.x-k8s.io/v1beta1','kind':'ClusterQueue','spec':{"
         "'admissionChecks':['a',2]}}",
         V2, TS_EINVAL, "spec.admissionChecks[1]: must be a string"},
        {"{'apiVersion':'kueue.x-k8s.io/v1beta1','kind':'ClusterQueueList','items':[{'kind':"
         "'ClusterQueue','apiVersion':'kueue.x-k8s.io/v9'}]}",
         V2, TS_EINVAL, "items[0]: apiVersion: unsupported version"},
    };

    (void)state;
    for (size_t i = 0; i < N_ELEMS(cases); i++) {
        cJSON *x = tq_json(cases[i].in);
        struct ts_err err = {0};

        assert_int_equal(ts_convert_kueue(x, cases[i].to, &err), cases[i].code);
        if (!strstr(err.msg, cases[i].want))
            fail_msg("%s: want ...%s..., got %s", cases[i].in, cases[i].want, err.msg);
        cJSON_Delete(x);
    }
    assert_int_equal(ts_convert_kueue(NULL, V2, NULL), TS_EINVAL);
}

/* The Workload hooks are dispatched (their behaviour is tested with them). */
static void test_workload_dispatch(void **state)
{
    cJSON *x = tq_json("{'apiVersion':'kueue.x-k8s.io/v1beta1','kind':'Workload','metadata':{"
                       "'name':'w','namespace':'n'},'spec':{'queueName':'q'}}");

    (void)state;
    convert_ok("workload", x, V2);
    assert_string_equal(ts_json_get_string(x, "apiVersion"), V2);
    assert_string_equal(ts_json_get_string(x, "spec.queueName"), "q");
    convert_ok("workload", x, V1);
    assert_string_equal(ts_json_get_string(x, "apiVersion"), V1);
    cJSON_Delete(x);
}

static void test_stash_restore(void **state)
{
    cJSON *x = tq_json("{'metadata':{'annotations':{'other':'1'}},'spec':{'a':{'b':[1,2]},'c':3}}");
    cJSON *orig = cJSON_Duplicate(x, 1);
    const char *an;

    (void)state;
    ts__convert_stash(x, "spec.missing");
    ts__convert_stash(x, "nothere.at.all");
    assert_json_equal("stash of absent fields is a no-op", orig, x);
    ts__convert_stash(x, "spec.a.b");
    ts__convert_stash(x, "spec.c");
    assert_null(ts_json_get(x, "spec.a.b"));
    assert_null(ts_json_get(x, "spec.c"));
    an = ts_json_get_string(x, "metadata.annotations[turnstile.dev/conversion-data]");
    assert_non_null(an);
    assert_non_null(strstr(an, "\"spec.a.b\":[1,2]"));
    assert_string_equal(ts_json_get_string(x, "metadata.annotations.other"), "1");
    ts__convert_restore(x, "spec.c");
    ts__convert_restore(x, "spec.a.b");
    ts__convert_restore(x, "spec.a.b"); /* nothing left: no-op */
    assert_json_equal("restore gives the object back", orig, x);
    cJSON_Delete(x);
    cJSON_Delete(orig);
}

static void test_restore_edges(void **state)
{
    cJSON *x = tq_json("{'metadata':{'annotations':{'turnstile.dev/conversion-data':"
                       "'not json'}},'spec':{}}");
    cJSON *y = shape_json("{'metadata':{'annotations':{'turnstile.dev/conversion-data':"
                          "'{\\'status.flavors\\':[1]}'}}}");
    cJSON *want = tq_json("{'metadata':{},'status':{'flavors':[1]}}");

    (void)state;
    ts__convert_restore(x, "spec.a"); /* unreadable data: left alone */
    assert_string_equal(
        ts_json_get_string(x, "metadata.annotations[turnstile.dev/conversion-data]"), "not json");
    ts__convert_restore(y, "status.flavors"); /* creates status, drops empty annotations */
    assert_json_equal("restore creates parents", want, y);
    cJSON_Delete(x);
    cJSON_Delete(y);
    cJSON_Delete(want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_v1beta1),
        cmocka_unit_test(test_round_trip_v1beta2),
        cmocka_unit_test(test_round_trip_seeds),
        cmocka_unit_test(test_shapes),
        cmocka_unit_test(test_lossy_as_kueue),
        cmocka_unit_test(test_seed_shapes),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_workload_dispatch),
        cmocka_unit_test(test_stash_restore),
        cmocka_unit_test(test_restore_edges),
    };

    ts_alloc_init();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
