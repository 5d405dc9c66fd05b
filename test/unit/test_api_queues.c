/* Decoding, defaults, encoding and round trips of the queue kinds
 * (ClusterQueue, Cohort, LocalQueue, ResourceFlavor, WorkloadPriorityClass,
 * PriorityClass, Namespace), including the real sample files of
 * ../shared/samples.  Validation rules are in test_api_queues_validate.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "api/convert.h"
#include "api_queue_test.h"
#include "yaml/yaml.h"
#include "json/json.h"

/* Fails unless a and b are equal JSON, printing both. */
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

/* decode(obj) must be error-free; then encode(decode(encode(x))) ==
 * encode(x).  Returns encode(x).  Ownership: caller deletes. */
static cJSON *round_trip(const char *what, const struct tq_kind *k, const cJSON *obj)
{
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    union tq_any x, y;
    cJSON *e1, *e2;

    tq_decode(k, obj, &x, &errs);
    tq_assert_no_errors(what, &errs);
    e1 = k->encode(&x);
    tq_decode(k, e1, &y, &errs);
    tq_assert_no_errors(what, &errs);
    e2 = k->encode(&y);
    assert_json_equal(what, e1, e2);
    cJSON_Delete(e2);
    k->release(&x);
    k->release(&y);
    ts_field_errors_release(&errs);
    return e1;
}

/* Canonical files: every field set; encode(decode(file)) == file and the
 * object is valid. */
static void test_round_trip_files(void **state)
{
    static const struct {
        const char *kind, *path;
    } files[] = {
        {"ClusterQueue", "test/data/api/clusterqueue-full.json"},
        {"Cohort", "test/data/api/cohort-full.json"},
        {"LocalQueue", "test/data/api/localqueue-full.json"},
        {"ResourceFlavor", "test/data/api/resourceflavor-full.json"},
        {"WorkloadPriorityClass", "test/data/api/workloadpriorityclass.json"},
        {"PriorityClass", "test/data/api/priorityclass.json"},
        {"Namespace", "test/data/api/namespace.json"},
    };

    (void)state;
    for (size_t i = 0; i < N_ELEMS(files); i++) {
        const struct tq_kind *k = tq_kind_of(files[i].kind);
        cJSON *in = tq_json_file(files[i].path);
        cJSON *out = round_trip(files[i].path, k, in);
        struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
        union tq_any x;

        assert_json_equal(files[i].path, in, out);
        tq_decode(k, in, &x, &errs);
        k->validate(&x, &errs);
        tq_assert_no_errors(files[i].path, &errs);
        k->release(&x);
        ts_field_errors_release(&errs);
        cJSON_Delete(in);
        cJSON_Delete(out);
    }
}

/* Decoding an object that leaves fields out yields the defaulted object. */
static const struct {
    const char *kind, *in, *want;
} default_cases[] = {
    {"ClusterQueue", "{'metadata':{'name':'cq'}}",
     "{'apiVersion':'kueue.x-k8s.io/v1beta2','kind':'ClusterQueue','metadata':{'name':'cq'},"
     "'spec':{'queueingStrategy':'BestEffortFIFO','flavorFungibility':{'whenCanBorrow':"
     "'MayStopSearch','whenCanPreempt':'TryNextFlavor'},'preemption':{'reclaimWithinCohort':"
     "'Never','borrowWithinCohort':{'policy':'Never'},'withinClusterQueue':'Never'},"
     "'stopPolicy':'None'}}"},
    {"ClusterQueue",
     "{'metadata':{'name':'cq'},'spec':{'flavorFungibility':{'whenCanBorrow':"
     "'TryNextFlavor'},'preemption':{'withinClusterQueue':'LowerPriority',"
     "'borrowWithinCohort':{}},'fairSharing':{},'namespaceSelector':{}}}",
     "{'apiVersion':'kueue.x-k8s.io/v1beta2','kind':'ClusterQueue','metadata':{'name':'cq'},"
     "'spec':{'queueingStrategy':'BestEffortFIFO','namespaceSelector':{},"
     "'flavorFungibility':{'whenCanBorrow':'TryNextFlavor','whenCanPreempt':"
     "'TryNextFlavor'},'preemption':{'reclaimWithinCohort':'Never','borrowWithinCohort':"
     "{'policy':'Never'},'withinClusterQueue':'LowerPriority'},'stopPolicy':'None',"
     "'fairSharing':{'weight':'1'}}}"},
    {"LocalQueue", "{'metadata':{'name':'lq','namespace':'a'},'spec':{'fairSharing':{}}}",
     "{'apiVersion':'kueue.x-k8s.io/v1beta2','kind':'LocalQueue','metadata':{'name':'lq',"
     "'namespace':'a'},'spec':{'stopPolicy':'None','fairSharing':{'weight':'1'}}}"},
    {"Cohort", "{'metadata':{'name':'co'},'spec':{'fairSharing':{}}}",
     "{'apiVersion':'kueue.x-k8s.io/v1beta2','kind':'Cohort','metadata':{'name':'co'},"
     "'spec':{'fairSharing':{'weight':'1'}}}"},
    {"ResourceFlavor", "{'metadata':{'name':'default-flavor'}}",
     "{'apiVersion':'kueue.x-k8s.io/v1beta2','kind':'ResourceFlavor','metadata':{'name':"
     "'default-flavor'}}"},
    {"PriorityClass", "{'metadata':{'name':'p'},'value':5}",
     "{'apiVersion':'scheduling.k8s.io/v1','kind':'PriorityClass','metadata':{'name':'p'},"
     "'value':5,'preemptionPolicy':'PreemptLowerPriority'}"},
};

static void test_defaults_applied(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ELEMS(default_cases); i++) {
        cJSON *in = tq_json(default_cases[i].in);
        cJSON *want = tq_json(default_cases[i].want);
        cJSON *out = round_trip(default_cases[i].in, tq_kind_of(default_cases[i].kind), in);

        assert_json_equal(default_cases[i].in, want, out);
        cJSON_Delete(in);
        cJSON_Delete(want);
        cJSON_Delete(out);
    }
}

static void test_cq_defaults_in_struct(void **state)
{
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    cJSON *j = tq_json("{'metadata':{'name':'cq'},'spec':{'fairSharing':{}}}");
    union tq_any x;
    struct ts_quantity w;
    int64_t v;

    (void)state;
    tq_decode(tq_kind_of("ClusterQueue"), j, &x, &errs);
    tq_assert_no_errors("decode", &errs);
    assert_int_equal(x.cq.spec.queueing_strategy, TS_QUEUEING_BEST_EFFORT_FIFO);
    assert_int_equal(x.cq.spec.flavor_fungibility.when_can_borrow, TS_FUNGIBILITY_MAY_STOP_SEARCH);
    assert_int_equal(x.cq.spec.flavor_fungibility.when_can_preempt, TS_FUNGIBILITY_TRY_NEXT_FLAVOR);
    assert_int_equal(x.cq.spec.flavor_fungibility.preference, TS_PREFERENCE_UNSET);
    assert_int_equal(x.cq.spec.preemption.reclaim_within_cohort, TS_RECLAIM_NEVER);
    assert_int_equal(x.cq.spec.preemption.within_cluster_queue, TS_WITHIN_CQ_NEVER);
    assert_int_equal(x.cq.spec.preemption.borrow_within_cohort, TS_BORROW_NEVER);
    assert_false(x.cq.spec.preemption.max_priority_threshold.set);
    assert_int_equal(x.cq.spec.stop_policy, TS_STOP_NONE);
    assert_null(x.cq.spec.cohort_name);
    assert_false(x.cq.spec.has_namespace_selector);
    assert_true(x.cq.spec.fair_sharing.set);
    w = ts_fair_sharing_weight(&x.cq.spec.fair_sharing);
    assert_int_equal(ts_quantity_value(&w, &v), 0);
    assert_int_equal(v, 1);
    x.cq.spec.fair_sharing.set = 0; /* absent fairSharing still weighs 1 */
    w = ts_fair_sharing_weight(&x.cq.spec.fair_sharing);
    assert_int_equal(ts_quantity_value(&w, &v), 0);
    assert_int_equal(v, 1);
    ts_cluster_queue_release(&x.cq);
    cJSON_Delete(j);
}

/* Status counts are not omitempty (Kueue's Go types): a status with an
 * Active condition and nothing pending prints 0, for CQ and LQ alike. */
static void test_status_counts_zero(void **state)
{
    static const char *const kinds[] = {"ClusterQueue", "LocalQueue"};

    (void)state;
    for (size_t i = 0; i < 2; i++) {
        struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
        cJSON *j = tq_json("{'metadata':{'name':'q','namespace':'ns'},'spec':{'clusterQueue':"
                           "'cq'},'status':{'conditions':[{'type':'Active','status':'True',"
                           "'reason':'Ready','message':'m','lastTransitionTime':"
                           "'2026-01-01T00:00:00Z'}]}}");
        const struct tq_kind *k = tq_kind_of(kinds[i]);
        union tq_any x;
        cJSON *e;

        tq_decode(k, j, &x, &errs);
        e = k->encode(&x);
        assert_true(cJSON_IsNumber(ts_json_get(e, "status.pendingWorkloads")));
        assert_int_equal(ts_json_get(e, "status.pendingWorkloads")->valueint, 0);
        assert_true(cJSON_IsNumber(ts_json_get(e, "status.admittedWorkloads")));
        assert_true(cJSON_IsNumber(ts_json_get(e, "status.reservingWorkloads")));
        cJSON_Delete(e);
        k->release(&x);
        ts_field_errors_release(&errs);
        cJSON_Delete(j);
    }
}

/* namespaceSelector: absent = no namespace, {} = every namespace. */
static void test_namespace_selector(void **state)
{
    static const struct {
        const char *spec;
        int team_a, other;
    } cases[] = {
        {"{}", 0, 0},
        {"{'namespaceSelector':{}}", 1, 1},
        {"{'namespaceSelector':null}", 0, 0},
        {"{'namespaceSelector':{'matchLabels':{'team':'a'}}}", 1, 0},
        {"{'namespaceSelector':{'matchExpressions':[{'key':'team','operator':'NotIn','values':"
         "['a']}]}}",
         0, 1},
    };
    struct ts_strmap a = TS_STRMAP_INIT, other = TS_STRMAP_INIT;

    (void)state;
    ts_strmap_set(&a, "team", "a");
    ts_strmap_set(&other, "kubernetes.io/metadata.name", "other");
    for (size_t i = 0; i < N_ELEMS(cases); i++) {
        struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
        cJSON *j = tq_json("{'metadata':{'name':'cq'}}");
        union tq_any x;

        cJSON_AddItemToObject(j, "spec", tq_json(cases[i].spec));
        tq_decode(tq_kind_of("ClusterQueue"), j, &x, &errs);
        tq_assert_no_errors(cases[i].spec, &errs);
        assert_int_equal(ts_cluster_queue_selects_namespace(&x.cq, &a), cases[i].team_a);
        assert_int_equal(ts_cluster_queue_selects_namespace(&x.cq, &other), cases[i].other);
        ts_cluster_queue_release(&x.cq);
        cJSON_Delete(j);
    }
    ts_strmap_release(&a);
    ts_strmap_release(&other);
}

#define R0 "spec.resourceGroups[0]"

static const struct dcase {
    const char *kind, *in, *path, *want;
} dcases[] = {
    {"ClusterQueue", "{'spec':{'queueingStrategy':'Bogus'}}", "spec.queueingStrategy",
     "Unsupported value: \"Bogus\": supported values: \"StrictFIFO\", \"BestEffortFIFO\""},
    {"ClusterQueue", "{'spec':{'flavorFungibility':{'whenCanBorrow':'Borrow'}}}",
     "spec.flavorFungibility.whenCanBorrow",
     "Unsupported value: \"Borrow\": supported values: \"MayStopSearch\", \"TryNextFlavor\""},
    {"ClusterQueue", "{'spec':{'flavorFungibility':{'whenCanPreempt':'Preempt'}}}",
     "spec.flavorFungibility.whenCanPreempt", "Unsupported value: \"Preempt\""},
    {"ClusterQueue", "{'spec':{'flavorFungibility':{'preference':'Both'}}}",
     "spec.flavorFungibility.preference",
     "supported values: \"BorrowingOverPreemption\", \"PreemptionOverBorrowing\""},
    {"ClusterQueue", "{'spec':{'stopPolicy':'Pause'}}", "spec.stopPolicy",
     "supported values: \"None\", \"Hold\", \"HoldAndDrain\""},
    {"ClusterQueue", "{'spec':{'preemption':{'reclaimWithinCohort':'All'}}}",
     "spec.preemption.reclaimWithinCohort",
     "supported values: \"Never\", \"LowerPriority\", \"Any\""},
    {"ClusterQueue", "{'spec':{'preemption':{'withinClusterQueue':'Any'}}}",
     "spec.preemption.withinClusterQueue",
     "supported values: \"Never\", \"LowerPriority\", \"LowerOrNewerEqualPriority\""},
    {"ClusterQueue", "{'spec':{'preemption':{'borrowWithinCohort':{'policy':'Any'}}}}",
     "spec.preemption.borrowWithinCohort.policy", "supported values: \"Never\", \"LowerPriority\""},
    {"ClusterQueue", "{'spec':{'preemption':{'borrowWithinCohort':{'maxPriorityThreshold':1.5}}}}",
     "spec.preemption.borrowWithinCohort.maxPriorityThreshold", "must be a whole number"},
    {"ClusterQueue", "{'spec':{'admissionScope':{}}}", "spec.admissionScope.admissionMode",
     "Required value"},
    {"ClusterQueue", "{'spec':{'admissionScope':{'admissionMode':'Fair'}}}",
     "spec.admissionScope.admissionMode",
     "supported values: \"UsageBasedAdmissionFairSharing\", \"NoAdmissionFairSharing\""},
    {"ClusterQueue", "{'spec':{'concurrentAdmissionPolicy':{'migration':{'mode':'Always'}}}}",
     "spec.concurrentAdmissionPolicy.migration.mode",
     "supported values: \"TryPreferredFlavors\", \"RetainFirstAdmission\""},
    {"ClusterQueue", "{'spec':{'resourceGroups':{}}}", "spec.resourceGroups",
     "must be of type array"},
    {"ClusterQueue", "{'spec':{'resourceGroups':[7]}}", R0, "must be of type object"},
    {"ClusterQueue", "{'spec':{'resourceGroups':[{'flavors':[]}]}}", R0 ".coveredResources",
     "Required value"},
    {"ClusterQueue", "{'spec':{'resourceGroups':[{'coveredResources':['cpu']}]}}", R0 ".flavors",
     "Required value"},
    {"ClusterQueue",
     "{'spec':{'resourceGroups':[{'coveredResources':['cpu'],'flavors':[{'name':'f'}]}]}}",
     R0 ".flavors[0].resources", "Required value"},
    {"ClusterQueue",
     "{'spec':{'resourceGroups':[{'coveredResources':['cpu'],'flavors':[{'resources':[]}]}]}}",
     R0 ".flavors[0].name", "Required value"},
    {"ClusterQueue",
     "{'spec':{'resourceGroups':[{'coveredResources':['cpu'],'flavors':[{'name':'f',"
     "'resources':[{'name':'cpu'}]}]}]}}",
     R0 ".flavors[0].resources[0].nominalQuota", "Required value"},
    {"ClusterQueue",
     "{'spec':{'resourceGroups':[{'coveredResources':['cpu'],'flavors':[{'name':'f',"
     "'resources':[{'name':'cpu','nominalQuota':'lots'}]}]}]}}",
     R0 ".flavors[0].resources[0].nominalQuota", "Invalid value: \"lots\""},
    {"ClusterQueue", "{'apiVersion':'kueue.x-k8s.io/v1beta1','kind':'ClusterQueue'}", "apiVersion",
     "Invalid value: \"kueue.x-k8s.io/v1beta1\": must be kueue.x-k8s.io/v1beta2 (convert the "
     "object first)"},
    {"ClusterQueue", "{'kind':'LocalQueue'}", "kind",
     "Invalid value: \"LocalQueue\": must be "
     "ClusterQueue"},
    {"ClusterQueue", "{'spec':{'cohortName':7}}", "spec.cohortName", "must be of type string"},
    {"ClusterQueue", "{'status':{'pendingWorkloads':'3'}}", "status.pendingWorkloads",
     "must be of type int32"},
    {"LocalQueue", "{'spec':{'stopPolicy':'Stop'}}", "spec.stopPolicy",
     "Unsupported value: \"Stop\""},
    {"LocalQueue", "{'spec':{'fairSharing':{'weight':'x1'}}}", "spec.fairSharing.weight",
     "Invalid value: \"x1\""},
    {"LocalQueue", "{'status':{'flavorsUsage':[{'resources':[]}]}}", "status.flavorsUsage[0].name",
     "Required value"},
    {"Cohort", "{'spec':{'parentName':['a']}}", "spec.parentName", "must be of type string"},
    {"ResourceFlavor", "{'spec':{'nodeLabels':{'a':1}}}", "spec.nodeLabels[a]",
     "must be of type string"},
    {"WorkloadPriorityClass", "{'metadata':{'name':'w'}}", "value", "Required value"},
    {"WorkloadPriorityClass", "{'value':3000000000}", "value",
     "must be a whole number of type int32"},
    {"PriorityClass", "{'metadata':{'name':'p'}}", "value", "Required value"},
    {"PriorityClass", "{'value':1,'globalDefault':'yes'}", "globalDefault",
     "must be of type boolean"},
    {"Namespace", "{'apiVersion':'v2'}", "apiVersion", "must be v1"},
};

static void test_decode_errors(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ELEMS(dcases); i++) {
        const struct tq_kind *k = tq_kind_of(dcases[i].kind);
        struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
        cJSON *j = tq_json(dcases[i].in);
        union tq_any x;

        tq_decode(k, j, &x, &errs);
        tq_assert_error(dcases[i].in, &errs, dcases[i].path, dcases[i].want);
        k->release(&x);
        ts_field_errors_release(&errs);
        cJSON_Delete(j);
    }
}

static void test_lookups(void **state)
{
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    cJSON *j = tq_json_file("test/data/api/clusterqueue-full.json");
    const struct ts_flavor_quotas *f;
    struct ts_resource_usage *u;
    union tq_any x;
    size_t g = 99;

    (void)state;
    tq_decode(tq_kind_of("ClusterQueue"), j, &x, &errs);
    tq_assert_no_errors("decode", &errs);
    f = ts_resource_groups_find_flavor(&x.cq.spec.resource_groups, "a100", &g);
    assert_non_null(f);
    assert_int_equal(g, 1);
    assert_null(ts_resource_groups_find_flavor(&x.cq.spec.resource_groups, "nope", NULL));
    assert_int_equal(ts_resource_groups_group_of(&x.cq.spec.resource_groups, "memory"), 0);
    assert_int_equal(ts_resource_groups_group_of(&x.cq.spec.resource_groups, "nvidia.com/gpu"), 1);
    assert_int_equal(ts_resource_groups_group_of(&x.cq.spec.resource_groups, "pods"), -1);
    f = ts_resource_groups_find_flavor(&x.cq.spec.resource_groups, "on-demand", NULL);
    assert_true(ts_flavor_quotas_find(f, "cpu")->borrowing_limit.set);
    assert_false(ts_flavor_quotas_find(f, "memory")->borrowing_limit.set);
    assert_true(ts_flavor_quotas_find(f, "memory")->lending_limit.set);
    assert_null(ts_flavor_quotas_find(f, "gpu"));
    assert_true(ts_resource_groups_has_borrowing_limit(&x.cq.spec.resource_groups));
    u = ts_flavor_usages_at(&x.cq.status.flavors_usage, "on-demand", "cpu");
    assert_string_equal(u->name, "cpu");
    assert_int_equal(x.cq.status.flavors_usage.n, 1);
    u = ts_flavor_usages_at(&x.cq.status.flavors_usage, "spot", "nvidia.com/gpu");
    u->total = ts_quantity_from_int(2, TS_QUANTITY_DECIMAL_SI);
    assert_int_equal(x.cq.status.flavors_usage.n, 2);
    assert_int_equal(x.cq.status.flavors_usage.items[1].n_resources, 1);
    ts_cluster_queue_release(&x.cq);
    cJSON_Delete(j);
}

static void test_enum_names(void **state)
{
    (void)state;
    assert_string_equal(ts_queueing_strategy_name(TS_QUEUEING_STRICT_FIFO), "StrictFIFO");
    assert_string_equal(ts_queueing_strategy_name(TS_QUEUEING_BEST_EFFORT_FIFO), "BestEffortFIFO");
    assert_string_equal(ts_stop_policy_name(TS_STOP_HOLD_AND_DRAIN), "HoldAndDrain");
    assert_string_equal(ts_stop_policy_name(TS_STOP_HOLD), "Hold");
    assert_string_equal(ts_fungibility_policy_name(TS_FUNGIBILITY_TRY_NEXT_FLAVOR),
                        "TryNextFlavor");
    assert_string_equal(ts_fungibility_preference_name(TS_PREFERENCE_BORROWING_OVER_PREEMPTION),
                        "BorrowingOverPreemption");
    assert_string_equal(ts_fungibility_preference_name(TS_PREFERENCE_UNSET), "");
    assert_string_equal(ts_reclaim_policy_name(TS_RECLAIM_ANY), "Any");
    assert_string_equal(ts_within_cq_policy_name(TS_WITHIN_CQ_LOWER_OR_NEWER_EQUAL_PRIORITY),
                        "LowerOrNewerEqualPriority");
}

static void test_namespace_default(void **state)
{
    struct ts_namespace ns;

    (void)state;
    ts_namespace_init(&ns);
    ts_namespace_default(&ns);
    assert_int_equal(ns.meta.labels.n, 0);
    ns.meta.name = ts_xstrdup("team-a");
    ts_namespace_default(&ns);
    assert_string_equal(ts_strmap_get(&ns.meta.labels, TS_NAMESPACE_NAME_LABEL), "team-a");
    ts_namespace_release(&ns);
}

/* --- the real sample files --------------------------------------------------- */

#define SEEDS    "../shared/samples/seeds/"
#define EXAMPLES "../shared/samples/kueue-examples/"

static const char *const sample_files[] = {
    SEEDS "ai-cluster-queue.yaml",
    SEEDS "borrowing-and-reclaim.yaml",
    SEEDS "cluster-queue-gpu.yaml",
    SEEDS "job-preprocessing.yaml",
    SEEDS "multi-team.yaml",
    SEEDS "priority.yaml",
    SEEDS "pytorchjob-annotated.yaml",
    EXAMPLES "admin-minimal-cq.yaml",
    EXAMPLES "admin-resource-flavor-empty.yaml",
    EXAMPLES "admin-resource-flavor-taints.yaml",
    EXAMPLES "admin-resource-flavor-tolerations.yaml",
    EXAMPLES "admin-shared-quota-sample-job.yaml",
    EXAMPLES "admin-shared-quota-setup.yaml",
    EXAMPLES "admin-single-clusterqueue-setup.yaml",
    EXAMPLES "admission-fs-admission-fair-sharing-setup.yaml",
    EXAMPLES "getting-started-quick-start-job.yaml",
    EXAMPLES "getting-started-quick-start-setup.yaml",
};

/* Every documentation example validates, including admin-minimal-cq.yaml,
 * whose onFlavors names a flavor before the queue declares any resource
 * group (Kueue's webhook rejects it; its docs apply it, and so do we). */
static void sample_validate(const struct tq_kind *k, const union tq_any *x, const char *name,
                            const char *file)
{
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;

    (void)name;
    k->validate(x, &errs);
    tq_assert_no_errors(file, &errs);
    ts_field_errors_release(&errs);
}

/* Converts (kueue objects) to v1beta2, decodes, validates and round-trips
 * one document; returns 1 when its kind is one of ours. */
static int sample_doc(cJSON *doc, const char *file)
{
    const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(doc, "kind"));
    const char *av = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(doc, "apiVersion"));
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_err err = {0};
    const struct tq_kind *k = NULL;
    union tq_any x;

    for (size_t i = 0; kind && i < N_ELEMS(tq_kinds); i++)
        k = strcmp(tq_kinds[i].kind, kind) == 0 ? &tq_kinds[i] : k;
    if (!k)
        return 0;
    if (av && strncmp(av, TS_KUEUE_GROUP "/", strlen(TS_KUEUE_GROUP) + 1) == 0 &&
        ts_convert_kueue(doc, TS_KUEUE_V1BETA2, &err))
        fail_msg("%s: %s", file, err.msg);
    cJSON_Delete(round_trip(file, k, doc));
    tq_decode(k, doc, &x, &errs);
    tq_assert_no_errors(file, &errs);
    sample_validate(k, &x, x.cq.meta.name ? x.cq.meta.name : "", file);
    k->release(&x);
    ts_field_errors_release(&errs);
    return 1;
}

static void test_samples(void **state)
{
    /* ClusterQueue, LocalQueue, ResourceFlavor, PriorityClass documents */
    static const char *const kinds[] = {"ClusterQueue", "LocalQueue", "ResourceFlavor",
                                        "PriorityClass"};
    static const int want[] = {10, 9, 11, 2};
    int got[4] = {0};

    (void)state;
    for (size_t f = 0; f < N_ELEMS(sample_files); f++) {
        struct ts_yaml_stream s = TS_YAML_STREAM_INIT;
        struct ts_err err = {0};

        if (ts_yaml_decode_file(sample_files[f], &s, &err))
            fail_msg("%s", err.msg);
        for (size_t i = 0; i < s.n; i++) {
            const char *kind =
                cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s.docs[i].root, "kind"));

            if (!sample_doc(s.docs[i].root, sample_files[f]))
                continue;
            for (size_t k = 0; k < N_ELEMS(kinds); k++)
                got[k] += strcmp(kinds[k], kind) == 0;
        }
        ts_yaml_stream_release(&s);
    }
    for (size_t k = 0; k < N_ELEMS(kinds); k++)
        assert_int_equal(got[k], want[k]);
}

/* Decoded values of the seeds (v1beta1 files, converted first). */
static void test_seed_values(void **state)
{
    struct ts_yaml_stream s = TS_YAML_STREAM_INIT;
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_err err = {0};
    const struct ts_resource_quota *q;
    union tq_any x;
    int64_t v;

    (void)state;
    assert_int_equal(ts_yaml_decode_file(SEEDS "borrowing-and-reclaim.yaml", &s, &err), 0);
    assert_int_equal(s.n, 3);
    assert_int_equal(ts_convert_kueue(s.docs[0].root, TS_KUEUE_V1BETA2, &err), 0);
    tq_decode(tq_kind_of("ClusterQueue"), s.docs[0].root, &x, &errs);
    tq_assert_no_errors("reserved-cq", &errs);
    assert_string_equal(x.cq.meta.name, "reserved-cq");
    assert_string_equal(x.cq.spec.cohort_name, "ai-cohort");
    assert_true(x.cq.spec.has_namespace_selector);
    q = ts_flavor_quotas_find(&x.cq.spec.resource_groups.items[0].flavors[0], "memory");
    assert_int_equal(ts_quantity_value(&q->nominal_quota, &v), 0);
    assert_int_equal(v, INT64_C(640) << 30);
    assert_true(q->borrowing_limit.set);
    assert_int_equal(ts_quantity_value(&q->borrowing_limit.q, &v), 0);
    assert_int_equal(v, INT64_C(160) << 30);
    q = ts_flavor_quotas_find(&x.cq.spec.resource_groups.items[0].flavors[0], "cpu");
    assert_int_equal(ts_quantity_milli_value(&q->nominal_quota, &v), 0);
    assert_int_equal(v, 160000);
    assert_false(q->lending_limit.set);
    ts_cluster_queue_release(&x.cq);
    assert_int_equal(ts_convert_kueue(s.docs[1].root, TS_KUEUE_V1BETA2, &err), 0);
    tq_decode(tq_kind_of("ClusterQueue"), s.docs[1].root, &x, &errs);
    assert_int_equal(x.cq.spec.preemption.reclaim_within_cohort, TS_RECLAIM_ANY);
    assert_int_equal(x.cq.spec.preemption.within_cluster_queue, TS_WITHIN_CQ_LOWER_PRIORITY);
    assert_int_equal(x.cq.spec.preemption.borrow_within_cohort, TS_BORROW_NEVER);
    assert_int_equal(x.cq.spec.queueing_strategy, TS_QUEUEING_BEST_EFFORT_FIFO);
    ts_cluster_queue_release(&x.cq);
    tq_assert_no_errors("autoscaling-cq", &errs);
    ts_yaml_stream_release(&s);
}

static void test_sample_values_v1beta2(void **state)
{
    struct ts_yaml_stream s = TS_YAML_STREAM_INIT;
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_err err = {0};
    union tq_any x;

    (void)state;
    assert_int_equal(
        ts_yaml_decode_file(EXAMPLES "admin-resource-flavor-tolerations.yaml", &s, &err), 0);
    tq_decode(tq_kind_of("ResourceFlavor"), s.docs[0].root, &x, &errs);
    tq_assert_no_errors("rf", &errs);
    assert_int_equal(x.rf.spec.n_tolerations, 1);
    assert_string_equal(x.rf.spec.tolerations[0].key, "spot-taint");
    assert_string_equal(x.rf.spec.tolerations[0].op, "Exists");
    assert_string_equal(ts_strmap_get(&x.rf.spec.node_labels, "instance-type"), "spot");
    ts_resource_flavor_release(&x.rf);
    ts_yaml_stream_release(&s);
    assert_int_equal(
        ts_yaml_decode_file(EXAMPLES "admission-fs-admission-fair-sharing-setup.yaml", &s, &err),
        0);
    tq_decode(tq_kind_of("ClusterQueue"), s.docs[1].root, &x, &errs);
    assert_int_equal(x.cq.spec.queueing_strategy, TS_QUEUEING_STRICT_FIFO);
    assert_true(x.cq.spec.admission_scope.set);
    assert_int_equal(x.cq.spec.admission_scope.mode, TS_ADMISSION_MODE_USAGE_BASED);
    ts_cluster_queue_release(&x.cq);
    tq_decode(tq_kind_of("LocalQueue"), s.docs[2].root, &x, &errs);
    assert_string_equal(x.lq.spec.cluster_queue, "cluster-queue");
    assert_true(x.lq.spec.fair_sharing.set);
    ts_local_queue_release(&x.lq);
    tq_assert_no_errors("afs", &errs);
    ts_yaml_stream_release(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_files),
        cmocka_unit_test(test_defaults_applied),
        cmocka_unit_test(test_cq_defaults_in_struct),
        cmocka_unit_test(test_status_counts_zero),
        cmocka_unit_test(test_namespace_selector),
        cmocka_unit_test(test_decode_errors),
        cmocka_unit_test(test_lookups),
        cmocka_unit_test(test_enum_names),
        cmocka_unit_test(test_namespace_default),
        cmocka_unit_test(test_samples),
        cmocka_unit_test(test_seed_values),
        cmocka_unit_test(test_sample_values_v1beta2),
    };

    ts_alloc_init();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
