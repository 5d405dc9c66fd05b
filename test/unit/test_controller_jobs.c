/* Tests for pkg/controller podset/jobkind: starting a job injects its
 * flavors' node labels and tolerations, stopping restores the template the
 * job was submitted with, for batch Jobs and the Kubeflow kinds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/jobworkload.h"
#include "api/object.h"
#include "controller/jobkind.h"
#include "api/workload_checks.h"
#include "controller/jobplan.h"
#include "engine/apply.h"
#include "json/json.h"
#include "util/alloc.h"

static struct ts_resource_flavor flavors[2];

static const struct ts_resource_flavor *lookup(void *ctx, const char *name)
{
    (void)ctx;
    for (size_t i = 0; i < 2; i++) {
        if (flavors[i].meta.name && !strcmp(flavors[i].meta.name, name))
            return &flavors[i];
    }
    return NULL;
}

static void decode_flavor(struct ts_resource_flavor *rf, const char *json)
{
    cJSON *o = cJSON_Parse(json);
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_dec d;

    ts_dec_init(&d, &errs);
    ts_resource_flavor_init(rf);
    ts_resource_flavor_decode(&d, o, rf);
    assert_int_equal(errs.n, 0);
    cJSON_Delete(o);
}

static int setup(void **state)
{
    (void)state;
    decode_flavor(&flavors[0],
                  "{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"ResourceFlavor\","
                  "\"metadata\":{\"name\":\"gpu\"},\"spec\":{\"nodeLabels\":{\"instance-type\":"
                  "\"gpu\"},\"tolerations\":[{\"key\":\"gpu\",\"operator\":\"Equal\",\"value\":"
                  "\"true\",\"effect\":\"NoSchedule\"}]}}");
    decode_flavor(&flavors[1], "{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":"
                               "\"ResourceFlavor\",\"metadata\":{\"name\":\"plain\"}}");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    ts_resource_flavor_release(&flavors[0]);
    ts_resource_flavor_release(&flavors[1]);
    return 0;
}

static const char job_json[] =
    "{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"pi\",\"namespace\":"
    "\"default\",\"uid\":\"u1\",\"labels\":{\"kueue.x-k8s.io/queue-name\":\"lq\"}},\"spec\":{"
    "\"suspend\":true,\"parallelism\":4,\"completions\":4,\"template\":{\"metadata\":{\"labels\":"
    "{\"app\":\"pi\",\"controller-uid\":\"u1\",\"job-name\":\"pi\"}},\"spec\":{\"nodeSelector\":"
    "{\"zone\":\"a\"},\"containers\":[{\"name\":\"c\",\"image\":\"perl\",\"args\":[\"x\"],"
    "\"resources\":{\"requests\":{\"cpu\":\"1\"}}}],\"restartPolicy\":\"Never\"}}}}";

/* The Workload of a job, admitted to cq with `flavor` for every resource. */
static void admitted_workload(cJSON *job, const char *flavor, int32_t count, struct ts_workload *wl)
{
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_object o;
    struct ts_err err = {0};

    assert_int_equal(ts_object_decode(job, &o, &errs, &err), 0);
    assert_int_equal(errs.n, 0);
    ts_workload_init(wl);
    if (o.kind == TS_KIND_JOB)
        assert_int_equal(ts_jobworkload_from_job(&o.u.job, NULL, wl, &err), 0);
    else
        assert_int_equal(ts_jobworkload_from_pytorchjob(&o.u.ptj, NULL, wl, &err), 0);
    ts_object_release(&o);
    wl->status.admission = ts_admission_new();
    free(wl->status.admission->cluster_queue);
    wl->status.admission->cluster_queue = ts_xstrdup("cq");
    for (size_t i = 0; i < wl->spec.n_podsets; i++) {
        struct ts_podset_assignment *pa =
            ts_admission_add(wl->status.admission, wl->spec.podsets[i].name);

        ts_strmap_set(&pa->flavors, "cpu", flavor);
        pa->count.set = 1;
        pa->count.v = count ? count : wl->spec.podsets[i].count;
    }
}

static const char *at(const cJSON *job, const char *path)
{
    const cJSON *v = ts_json_get(job, path);

    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void test_job_start_injects_and_stop_restores(void **state)
{
    cJSON *job = cJSON_Parse(job_json), *orig = cJSON_Duplicate(job, 1);
    const struct ts_jobkind *k = ts_jobkind_of(job);
    struct ts_workload wl;
    struct ts_err err = {0};
    int changed = 0;

    (void)state;
    assert_non_null(k);
    admitted_workload(job, "gpu", 0, &wl);
    assert_int_equal(ts_jobkind_start(k, job, &wl, lookup, NULL, &err), 0);
    assert_false(ts_jobkind_is_suspended(k, job));
    assert_string_equal(at(job, "spec.template.spec.nodeSelector[instance-type]"), "gpu");
    assert_string_equal(at(job, "spec.template.spec.nodeSelector.zone"), "a");
    assert_string_equal(at(job, "spec.template.spec.tolerations[0].key"), "gpu");
    assert_string_equal(at(job, "spec.template.metadata.labels[kueue.x-k8s.io/podset]"), "main");
    assert_string_equal(at(job, "spec.template.metadata.labels[kueue.x-k8s.io/local-queue-name]"),
                        "lq");
    assert_string_equal(at(job, "spec.template.metadata.labels[kueue.x-k8s.io/cluster-queue-name]"),
                        "cq");
    assert_string_equal(at(job, "spec.template.spec.containers[0].args[0]"), "x"); /* kept */
    /* starting twice changes nothing more (tolerations are not duplicated) */
    assert_int_equal(ts_jobkind_start(k, job, &wl, lookup, NULL, &err), 0);
    assert_int_equal(cJSON_GetArraySize(ts_json_get(job, "spec.template.spec.tolerations")), 1);
    assert_int_equal(ts_jobkind_stop(k, job, &wl, &changed, &err), 0);
    assert_true(changed);
    assert_true(ts_jobkind_is_suspended(k, job));
    if (!ts_json_equal(job, orig)) /* back exactly as submitted */
        fail_msg("restored job differs: %s", ts_json_dumps(job, 0));
    assert_int_equal(ts_jobkind_stop(k, job, &wl, &changed, &err), 0);
    assert_false(changed);
    ts_workload_release(&wl);
    cJSON_Delete(job);
    cJSON_Delete(orig);
}

static void test_job_start_conflict_leaves_job(void **state)
{
    cJSON *job = cJSON_Parse(job_json), *orig;
    const struct ts_jobkind *k = ts_jobkind_of(job);
    struct ts_workload wl;
    struct ts_err err = {0};

    (void)state;
    cJSON_AddStringToObject(ts_json_get(job, "spec.template.spec.nodeSelector"), "instance-type",
                            "cpu");
    orig = cJSON_Duplicate(job, 1);
    admitted_workload(job, "gpu", 0, &wl);
    assert_int_equal(ts_jobkind_start(k, job, &wl, lookup, NULL, &err), TS_ECONFLICT);
    assert_non_null(strstr(err.msg, "nodeSelector \"instance-type\" is already \"cpu\""));
    assert_true(ts_json_equal(job, orig));
    ts_workload_release(&wl);
    cJSON_Delete(job);
    cJSON_Delete(orig);
}

static void test_job_missing_flavor(void **state)
{
    cJSON *job = cJSON_Parse(job_json);
    struct ts_workload wl;
    struct ts_err err = {0};

    (void)state;
    admitted_workload(job, "ghost", 0, &wl);
    assert_int_equal(ts_jobkind_start(ts_jobkind_of(job), job, &wl, lookup, NULL, &err),
                     TS_ENOTFOUND);
    assert_non_null(strstr(err.msg, "resourceflavor \"ghost\" not found"));
    assert_true(ts_jobkind_is_suspended(ts_jobkind_of(job), job));
    ts_workload_release(&wl);
    cJSON_Delete(job);
}

static void test_job_partial_admission_parallelism(void **state)
{
    cJSON *job = cJSON_Parse(job_json);
    const struct ts_jobkind *k = ts_jobkind_of(job);
    struct ts_workload wl;
    struct ts_err err = {0};
    int changed;

    (void)state;
    cJSON_AddItemToObject(cJSON_AddObjectToObject(ts_json_get(job, "metadata"), "annotations"),
                          "kueue.x-k8s.io/job-min-parallelism", cJSON_CreateString("2"));
    admitted_workload(job, "plain", 3, &wl);
    assert_true(wl.spec.podsets[0].min_count.set);
    assert_int_equal(ts_jobkind_start(k, job, &wl, lookup, NULL, &err), 0);
    assert_int_equal(ts_json_get(job, "spec.parallelism")->valueint, 3);
    assert_int_equal(ts_jobkind_stop(k, job, &wl, &changed, &err), 0);
    assert_int_equal(ts_json_get(job, "spec.parallelism")->valueint, 4);
    ts_workload_release(&wl);
    cJSON_Delete(job);
}

static const char ptj_json[] =
    "{\"apiVersion\":\"kubeflow.org/v1\",\"kind\":\"PyTorchJob\",\"metadata\":{\"name\":\"mnist\","
    "\"namespace\":\"ai\",\"uid\":\"u2\",\"annotations\":{\"kueue.x-k8s.io/queue-name\":\"lq\"}},"
    "\"spec\":{\"runPolicy\":{\"suspend\":true},\"pytorchReplicaSpecs\":{\"Worker\":{\"replicas\":"
    "2,\"template\":{\"spec\":{\"containers\":[{\"name\":\"w\",\"image\":\"pt\"}]}}},\"Master\":"
    "{\"replicas\":1,\"template\":{\"spec\":{\"containers\":[{\"name\":\"m\",\"image\":\"pt\"}]}}"
    "}}}}";

/* One replica spec of `n` pods. */
#define REPLICA(type, n)                                                                           \
    "\"" type "\":{\"replicas\":" #n ",\"template\":{\"spec\":{\"containers\":[{\"name\":\"c\","   \
    "\"image\":\"i\"}]}}}"

/* Replica types listed out of order on purpose. */
static const char tfj_json[] =
    "{\"apiVersion\":\"kubeflow.org/v1\",\"kind\":\"TFJob\",\"metadata\":{\"name\":\"dist\","
    "\"namespace\":\"ai\",\"uid\":\"u3\",\"labels\":{\"kueue.x-k8s.io/queue-name\":\"lq\"}},"
    "\"spec\":{\"runPolicy\":{\"suspend\":true},\"tfReplicaSpecs\":{" REPLICA(
        "Worker", 2) "," REPLICA("Evaluator", 1) "," REPLICA("PS", 1) "," REPLICA("Chief", 1) "}}}";

static const char mpij_json[] =
    "{\"apiVersion\":\"kubeflow.org/v2beta1\",\"kind\":\"MPIJob\",\"metadata\":{\"name\":\"pi\","
    "\"namespace\":\"ai\",\"uid\":\"u4\",\"labels\":{\"kueue.x-k8s.io/queue-name\":\"lq\"}},"
    "\"spec\":{\"slotsPerWorker\":1,\"runPolicy\":{\"suspend\":true,\"cleanPodPolicy\":\"Running\"}"
    ","
    "\"mpiReplicaSpecs\":{" REPLICA("Worker", 4) "," REPLICA("Launcher", 1) "}}}";

/* The Kubeflow kinds through the one adapter: pod sets in Kueue's order
 * for the kind, named by the lower-cased replica type, Kueue's Workload
 * name and owner, runPolicy.suspend, and a stop that restores the job. */
static const struct {
    const char *json, *replicas_key;
    const char *wl_name; /* Kueue's: SHA-1 of kind, group, name, uid (python3 hashlib) */
    const char *owner_api_version;
    size_t n;
    const char *podsets[4], *types[4];
    int32_t counts[4];
} kf_cases[] = {
    {ptj_json,
     "pytorchReplicaSpecs",
     "pytorchjob-mnist-1ecad",
     "kubeflow.org/v1",
     2,
     {"master", "worker"},
     {"Master", "Worker"},
     {1, 2}},
    {tfj_json,
     "tfReplicaSpecs",
     "tfjob-dist-aa028",
     "kubeflow.org/v1",
     4,
     {"chief", "ps", "worker", "evaluator"},
     {"Chief", "PS", "Worker", "Evaluator"},
     {1, 1, 2, 1}},
    {mpij_json,
     "mpiReplicaSpecs",
     "mpijob-pi-59144",
     "kubeflow.org/v2beta1",
     2,
     {"launcher", "worker"},
     {"Launcher", "Worker"},
     {1, 4}},
};

static void test_kubeflow_kinds(void **state)
{
    (void)state;
    for (size_t c = 0; c < sizeof(kf_cases) / sizeof(kf_cases[0]); c++) {
        cJSON *job = cJSON_Parse(kf_cases[c].json), *orig = cJSON_Duplicate(job, 1), *tmpl[18];
        const struct ts_jobkind *k = ts_jobkind_of(job);
        char names[18][64], path[200];
        struct ts_workload wl;
        struct ts_err err = {0};
        int changed;

        assert_non_null(k);
        assert_true(ts_jobkind_is_suspended(k, job));
        assert_int_equal(ts_jobkind_templates(k, job, tmpl, names), kf_cases[c].n);
        admitted_workload(job, "gpu", 0, &wl);
        assert_int_equal(wl.spec.n_podsets, kf_cases[c].n);
        assert_string_equal(wl.meta.name, kf_cases[c].wl_name);
        assert_string_equal(wl.meta.owner_refs[0].api_version, kf_cases[c].owner_api_version);
        assert_string_equal(wl.meta.owner_refs[0].kind, ts_json_get_string(job, "kind"));
        assert_string_equal(wl.spec.queue_name, "lq");
        for (size_t i = 0; i < kf_cases[c].n; i++) {
            assert_string_equal(names[i], kf_cases[c].podsets[i]);
            assert_string_equal(wl.spec.podsets[i].name, kf_cases[c].podsets[i]);
            assert_int_equal(wl.spec.podsets[i].count, kf_cases[c].counts[i]);
        }
        assert_int_equal(ts_jobkind_start(k, job, &wl, lookup, NULL, &err), 0);
        assert_false(ts_jobkind_is_suspended(k, job));
        assert_true(cJSON_IsFalse(ts_json_get(job, "spec.runPolicy.suspend")));
        for (size_t i = 0; i < kf_cases[c].n; i++) {
            snprintf(path, sizeof(path),
                     "spec.%s.%s.template.metadata.labels[kueue.x-k8s.io/podset]",
                     kf_cases[c].replicas_key, kf_cases[c].types[i]);
            assert_string_equal(at(job, path), kf_cases[c].podsets[i]);
            snprintf(path, sizeof(path), "spec.%s.%s.template.spec.nodeSelector[instance-type]",
                     kf_cases[c].replicas_key, kf_cases[c].types[i]);
            assert_string_equal(at(job, path), "gpu");
        }
        assert_int_equal(ts_jobkind_stop(k, job, &wl, &changed, &err), 0);
        assert_true(changed);
        if (!ts_json_equal(job, orig))
            fail_msg("%s: restored job differs: %s", wl.meta.name, ts_json_dumps(job, 0));
        ts_workload_release(&wl);
        cJSON_Delete(job);
        cJSON_Delete(orig);
    }
}

/* --- the reconciler's plans ------------------------------------------------ */

#define NOW (INT64_C(1795255200) * TS_TIME_SECOND)

static int wpc_lookup(void *ctx, const char *name, int32_t *value)
{
    (void)ctx;
    if (strcmp(name, "high"))
        return 0;
    *value = 1000;
    return 1;
}

static const struct ts_priority_lookup prio = {wpc_lookup, NULL, NULL, NULL};
static const struct ts_jobplan_env env = {
    .prio = &prio, .flavor = lookup, .backoff_base_s = 60, .backoff_max_s = 3600};
static const struct ts_jobplan_env env_wfpr = {.prio = &prio,
                                               .flavor = lookup,
                                               .wait_for_pods_ready = 1,
                                               .backoff_base_s = 60,
                                               .backoff_max_s = 3600};
static const struct ts_jobplan_env env_timeout = {.prio = &prio,
                                                  .flavor = lookup,
                                                  .wait_for_pods_ready = 1,
                                                  .pods_ready_timeout = 30 * 60 * TS_TIME_SECOND,
                                                  .backoff_base_s = 60,
                                                  .backoff_max_s = 3600};

static void reserve(struct ts_workload *wl, int admitted)
{
    ts_conditions_set(&wl->status.conditions, TS_WL_COND_QUOTA_RESERVED, "True", "QuotaReserved",
                      "Quota reserved in ClusterQueue cq", 1, NOW);
    if (admitted)
        ts_conditions_set(&wl->status.conditions, TS_WL_COND_ADMITTED, "True", "Admitted",
                          "The workload is admitted", 1, NOW);
}

static void set(cJSON *job, const char *path, cJSON *v)
{
    assert_int_equal(ts_json_set(job, path, v, NULL), 0);
}

static void test_plan_new_job(void **state)
{
    cJSON *job = cJSON_Parse(job_json);
    struct ts_jobplan p;
    struct ts_err err = {0};

    (void)state;
    ts_jobplan_init(&p);
    assert_int_equal(ts_jobplan_make(job, NULL, &env, NOW, &p, &err), 0);
    assert_int_equal(p.ops, TS_JOBPLAN_CREATE_WORKLOAD); /* suspended already: job untouched */
    assert_string_equal(p.event_reason, "CreatedWorkload");
    assert_string_equal(p.workload.spec.queue_name, "lq");
    assert_int_equal(p.workload.spec.podsets[0].count, 4);
    /* slipped past the webhook unsuspended: suspend it too */
    set(job, "spec.suspend", cJSON_CreateFalse());
    assert_int_equal(ts_jobplan_make(job, NULL, &env, NOW, &p, &err), 0);
    assert_int_equal(p.ops, TS_JOBPLAN_CREATE_WORKLOAD | TS_JOBPLAN_UPDATE_JOB);
    assert_true(cJSON_IsTrue(ts_json_get(p.job, "spec.suspend")));
    /* integrations.labelKeysToCopy: those job labels (when present) */
    {
        struct ts_strlist keys = TS_STRLIST_INIT;
        struct ts_jobplan_env e = env;

        ts_strlist_push(&keys, "team");
        ts_strlist_push(&keys, "absent");
        e.label_keys_to_copy = &keys;
        set(job, "metadata.labels.team", cJSON_CreateString("ml"));
        assert_int_equal(ts_jobplan_make(job, NULL, &e, NOW, &p, &err), 0);
        assert_string_equal(ts_strmap_get(&p.workload.meta.labels, "team"), "ml");
        assert_null(ts_strmap_get(&p.workload.meta.labels, "absent"));
        assert_null(ts_strmap_get(&p.workload.meta.labels, "kueue.x-k8s.io/queue-name"));
        assert_int_equal(ts_jobplan_make(job, NULL, &env, NOW, &p, &err), 0);
        assert_null(ts_strmap_get(&p.workload.meta.labels, "team")); /* not asked for */
        ts_strlist_release(&keys);
    }
    /* no queue name: not Turnstile's */
    cJSON_DeleteItemFromObjectCaseSensitive(ts_json_get(job, "metadata"), "labels");
    assert_int_equal(ts_jobplan_make(job, NULL, &env, NOW, &p, &err), 0);
    assert_int_equal(p.ops, 0);
    ts_jobplan_release(&p);
    cJSON_Delete(job);
}

static void test_plan_missing_priority_class(void **state)
{
    cJSON *job = cJSON_Parse(job_json);
    struct ts_jobplan p;
    struct ts_err err = {0};

    (void)state;
    set(job, "metadata.labels[kueue.x-k8s.io/priority-class]", cJSON_CreateString("nope"));
    ts_jobplan_init(&p);
    assert_int_equal(ts_jobplan_make(job, NULL, &env, NOW, &p, &err), 0);
    assert_int_equal(p.ops, 0);
    assert_string_equal(p.event_reason, "WorkloadPriorityClassNotFound");
    set(job, "metadata.labels[kueue.x-k8s.io/priority-class]", cJSON_CreateString("high"));
    assert_int_equal(ts_jobplan_make(job, NULL, &env, NOW, &p, &err), 0);
    assert_int_equal(p.workload.spec.priority.v, 1000);
    ts_jobplan_release(&p);
    cJSON_Delete(job);
}

static void test_plan_start_stop_finish(void **state)
{
    cJSON *job = cJSON_Parse(job_json);
    struct ts_workload wl;
    struct ts_jobplan p;
    struct ts_err err = {0};

    (void)state;
    ts_jobplan_init(&p);
    admitted_workload(job, "gpu", 0, &wl);
    reserve(&wl, 1);
    assert_int_equal(ts_jobplan_make(job, &wl, &env, NOW, &p, &err), 0);
    assert_int_equal(p.ops, TS_JOBPLAN_UPDATE_JOB);
    assert_string_equal(p.event_reason, "Started");
    assert_false(cJSON_IsTrue(ts_json_get(p.job, "spec.suspend")));
    assert_string_equal(at(p.job, "spec.template.spec.nodeSelector[instance-type]"), "gpu");
    /* running and admitted: nothing to do */
    set(job, "spec.suspend", cJSON_CreateFalse());
    assert_int_equal(ts_jobplan_make(job, &wl, &env, NOW, &p, &err), 0);
    assert_int_equal(p.ops, 0);
    /* finished: the Workload is finished with the job's reason */
    set(job, "status",
        cJSON_Parse("{\"conditions\":[{\"type\":\"Complete\",\"status\":"
                    "\"True\",\"message\":\"done\"}]}"));
    assert_int_equal(ts_jobplan_make(job, &wl, &env, NOW, &p, &err), 0);
    assert_int_equal(p.ops, TS_JOBPLAN_WORKLOAD_STATUS);
    assert_true(ts_workload_is_finished(&p.workload));
    assert_string_equal(ts_conditions_find(&p.workload.status.conditions, "Finished")->reason,
                        "Succeeded");
    ts_workload_copy(&wl, &p.workload);
    assert_int_equal(ts_jobplan_make(job, &wl, &env, NOW, &p, &err), 0);
    assert_int_equal(p.ops, 0); /* finished workloads are left alone */
    ts_workload_release(&wl);
    ts_jobplan_release(&p);
    cJSON_Delete(job);
}

/* waitForPodsReady: the condition follows the job's ready pods through
 * start, loss and recovery, and is written only when it changes. */
static void test_plan_pods_ready(void **state)
{
    static const struct {
        int ready, succeeded;
        const char *status, *reason; /* NULL: no write */
    } steps[] = {
        {0, 0, "False", "WaitForStart"}, {0, 0, NULL, NULL}, {2, 1, NULL, NULL},
        {3, 1, "True", "Started"},       {4, 0, NULL, NULL}, {1, 0, "False", "WaitForRecovery"},
        {4, 0, "True", "Recovered"},     {4, 0, NULL, NULL},
    };
    cJSON *job = cJSON_Parse(job_json); /* parallelism 4 */
    struct ts_workload wl;
    struct ts_jobplan p;
    struct ts_err err = {0};

    (void)state;
    ts_jobplan_init(&p);
    admitted_workload(job, "gpu", 0, &wl);
    reserve(&wl, 1);
    set(job, "spec.suspend", cJSON_CreateFalse());
    assert_int_equal(ts_jobplan_make(job, &wl, &env, NOW, &p, &err), 0);
    assert_int_equal(p.ops, 0); /* without waitForPodsReady nothing is written */
    for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
        const struct ts_condition *c;

        set(job, "status.ready", cJSON_CreateNumber(steps[i].ready));
        set(job, "status.succeeded", cJSON_CreateNumber(steps[i].succeeded));
        assert_int_equal(ts_jobplan_make(job, &wl, &env_wfpr, NOW, &p, &err), 0);
        if (p.ops == TS_JOBPLAN_WORKLOAD_STATUS &&
            p.workload.status.n_reclaimable_pods > wl.status.n_reclaimable_pods) {
            /* a succeeded pod is reclaimable first: that write lands */
            ts_workload_copy(&wl, &p.workload);
            assert_int_equal(ts_jobplan_make(job, &wl, &env_wfpr, NOW, &p, &err), 0);
        }
        if (!steps[i].status) {
            if (p.ops)
                fail_msg("step %zu: unexpected write", i);
            continue;
        }
        assert_int_equal(p.ops, TS_JOBPLAN_WORKLOAD_STATUS);
        c = ts_conditions_find(&p.workload.status.conditions, "PodsReady");
        assert_non_null(c);
        if (strcmp(c->status, steps[i].status) || strcmp(c->reason, steps[i].reason))
            fail_msg("step %zu: PodsReady %s/%s, want %s/%s", i, c->status, c->reason,
                     steps[i].status, steps[i].reason);
        ts_workload_copy(&wl, &p.workload); /* the write landed */
    }
    ts_workload_release(&wl);
    ts_jobplan_release(&p);
    cJSON_Delete(job);
}

/* The plan is one status write that sets condition `type` to
 * status/reason; returns that condition (in p). */
static const struct ts_condition *status_write(const cJSON *job, const struct ts_workload *wl,
                                               const struct ts_jobplan_env *e, ts_time now,
                                               struct ts_jobplan *p, const char *type,
                                               const char *status, const char *reason)
{
    const struct ts_condition *c;
    struct ts_err err = {0};

    assert_int_equal(ts_jobplan_make(job, wl, e, now, p, &err), 0);
    assert_int_equal(p->ops, TS_JOBPLAN_WORKLOAD_STATUS);
    c = ts_conditions_find(&p->workload.status.conditions, type);
    assert_non_null(c);
    assert_string_equal(c->status, status);
    assert_string_equal(c->reason, reason);
    return c;
}

/* An evicted Workload's job (still with active pods) is stopped first;
 * once its pods are gone the quota is released with Requeued=False and the
 * eviction's reason.  Returns the stopped job (job is freed); wl becomes
 * the released Workload. */
static cJSON *stop_then_release(cJSON *job, struct ts_workload *wl, const struct ts_jobplan_env *e,
                                ts_time now, struct ts_jobplan *p, const char *reason)
{
    const struct ts_condition *rq;
    struct ts_err err = {0};

    set(job, "status.active", cJSON_CreateNumber(4));
    assert_int_equal(ts_jobplan_make(job, wl, e, now, p, &err), 0);
    assert_int_equal(p->ops, TS_JOBPLAN_UPDATE_JOB);
    assert_true(cJSON_IsTrue(ts_json_get(p->job, "spec.suspend")));
    cJSON_Delete(job);
    job = cJSON_Duplicate(p->job, 1);
    set(job, "status.active", cJSON_CreateNumber(0)); /* its pods are gone */
    assert_int_equal(ts_jobplan_make(job, wl, e, now, p, &err), 0);
    if (p->ops == TS_JOBPLAN_UPDATE_JOB) { /* its templates restored, then released */
        cJSON_Delete(job);
        job = cJSON_Duplicate(p->job, 1);
        assert_int_equal(ts_jobplan_make(job, wl, e, now, p, &err), 0);
    }
    assert_int_equal(p->ops, TS_JOBPLAN_WORKLOAD_STATUS);
    assert_null(p->workload.status.admission);
    rq = ts_conditions_find(&p->workload.status.conditions, "Requeued");
    assert_string_equal(rq->status, "False");
    assert_string_equal(rq->reason, reason);
    ts_workload_copy(wl, &p->workload);
    return job;
}

/* PodsReady timeout: a reconcile is asked for at the deadline; past it the
 * Workload is evicted (PodsReadyTimeout, backoff 60 s, 120 s, ... capped
 * at 3600 s); once the job stopped and the quota is released the backoff
 * keeps it out of the queue until requeueAt, then BackoffFinished. */
static void test_plan_pods_ready_timeout(void **state)
{
    static const struct {
        int32_t count;
        int64_t backoff_s;
    } backoffs[] = {{1, 60}, {2, 120}, {3, 240}, {7, 3600}, {8, 3600}};
    cJSON *job = cJSON_Parse(job_json);
    const struct ts_condition *ev, *rq;
    struct ts_workload wl;
    struct ts_jobplan p;
    struct ts_err err = {0};
    ts_time later = NOW + 31 * 60 * TS_TIME_SECOND;

    (void)state;
    ts_jobplan_init(&p);
    admitted_workload(job, "gpu", 0, &wl);
    reserve(&wl, 1); /* Admitted at NOW */
    set(job, "spec.suspend", cJSON_CreateFalse());
    assert_int_equal(ts_jobplan_make(job, &wl, &env_timeout, NOW + 60 * TS_TIME_SECOND, &p, &err),
                     0);
    assert_int_equal(p.requeue_after, 29 * 60 * TS_TIME_SECOND); /* the deadline */
    ts_workload_copy(&wl, &p.workload);
    assert_int_equal(ts_jobplan_make(job, &wl, &env_timeout, later, &p, &err), 0);
    assert_int_equal(p.ops, TS_JOBPLAN_WORKLOAD_STATUS);
    ev = ts_conditions_find(&p.workload.status.conditions, "Evicted");
    assert_non_null(ev);
    assert_string_equal(ev->reason, "PodsReadyTimeout");
    assert_non_null(strstr(ev->message, "Exceeded the PodsReady timeout"));
    assert_int_equal(p.workload.status.requeue_state.count.v, 1);
    assert_int_equal(p.workload.status.requeue_state.requeue_at, later + 60 * TS_TIME_SECOND);
    /* counted as Kueue counts it: reason and underlying cause */
    assert_int_equal(p.workload.status.n_evictions, 1);
    assert_string_equal(p.workload.status.evictions[0].reason, "PodsReadyTimeout");
    assert_string_equal(p.workload.status.evictions[0].underlying_cause, "WaitForStart");
    ts_workload_copy(&wl, &p.workload);
    /* evicted: the job is stopped, then the quota released */
    job = stop_then_release(job, &wl, &env_timeout, later, &p, "PodsReadyTimeout");
    /* in backoff: nothing yet, a reconcile at requeueAt; then it is over */
    assert_int_equal(ts_jobplan_make(job, &wl, &env_timeout, later + TS_TIME_SECOND, &p, &err), 0);
    assert_int_equal(p.ops, 0);
    assert_int_equal(p.requeue_after, 59 * TS_TIME_SECOND);
    assert_int_equal(ts_jobplan_make(job, &wl, &env_timeout, later + 60 * TS_TIME_SECOND, &p, &err),
                     0);
    assert_int_equal(p.ops, TS_JOBPLAN_WORKLOAD_STATUS);
    rq = ts_conditions_find(&p.workload.status.conditions, "Requeued");
    assert_string_equal(rq->status, "True");
    assert_string_equal(rq->reason, "BackoffFinished");
    assert_int_equal(p.workload.status.requeue_state.requeue_at, 0);
    assert_int_equal(p.workload.status.requeue_state.count.v, 1);
    /* the backoff doubles per eviction up to the maximum */
    for (size_t i = 0; i < sizeof(backoffs) / sizeof(backoffs[0]); i++) {
        struct ts_workload w2;

        set(job, "spec.suspend", cJSON_CreateTrue());
        admitted_workload(job, "gpu", 0, &w2);
        reserve(&w2, 1);
        w2.status.requeue_state.set = 1;
        w2.status.requeue_state.count.set = 1;
        w2.status.requeue_state.count.v = backoffs[i].count - 1;
        set(job, "spec.suspend", cJSON_CreateFalse());
        assert_int_equal(ts_jobplan_make(job, &w2, &env_timeout, later, &p, &err), 0);
        assert_int_equal(p.workload.status.requeue_state.requeue_at,
                         later + backoffs[i].backoff_s * TS_TIME_SECOND);
        ts_workload_release(&w2);
    }
    ts_workload_release(&wl);
    ts_jobplan_release(&p);
    cJSON_Delete(job);
}

/* recoveryTimeout, not timeout, bounds WaitForRecovery. */
static void test_plan_recovery_timeout(void **state)
{
    static const struct {
        int64_t after_loss_s;
        int evicted;
        int64_t requeue_after_s;
    } steps[] = {{60, 0, 60}, {119, 0, 1}, {120, 1, 0}};
    struct ts_jobplan_env e = env_timeout;
    cJSON *job = cJSON_Parse(job_json);
    ts_time lost = NOW + 3600 * TS_TIME_SECOND; /* long after admission */
    struct ts_workload wl;
    struct ts_jobplan p;
    struct ts_err err = {0};

    (void)state;
    e.pods_ready_recovery_timeout = 120 * TS_TIME_SECOND;
    ts_jobplan_init(&p);
    admitted_workload(job, "gpu", 0, &wl);
    reserve(&wl, 1);
    ts_conditions_set(&wl.status.conditions, TS_WL_COND_PODS_READY, "False", "WaitForRecovery",
                      "At least one pod has failed, waiting for recovery", 1, lost);
    set(job, "spec.suspend", cJSON_CreateFalse());
    for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
        ts_time now = lost + steps[i].after_loss_s * TS_TIME_SECOND;
        const struct ts_condition *ev;

        assert_int_equal(ts_jobplan_make(job, &wl, &e, now, &p, &err), 0);
        ev = ts_conditions_find(&p.workload.status.conditions, "Evicted");
        if (steps[i].evicted != (ev != NULL) ||
            p.requeue_after != steps[i].requeue_after_s * TS_TIME_SECOND)
            fail_msg("step %zu: evicted %d requeue_after %lld", i, ev != NULL,
                     (long long)p.requeue_after);
    }
    assert_string_equal(p.metric_cause, "WaitForRecovery");
    assert_int_equal(p.metric, TS_JOBPLAN_METRIC_PODS_READY_TIMEOUT);
    /* the same loss under the plain timeout (30m) is not over yet */
    assert_int_equal(ts_jobplan_make(job, &wl, &env_timeout, lost + 120 * TS_TIME_SECOND, &p, &err),
                     0);
    assert_int_equal(p.ops, 0);
    ts_workload_release(&wl);
    ts_jobplan_release(&p);
    cJSON_Delete(job);
}

/* backoffLimitCount: the timeout that would be eviction limit+1
 * deactivates instead. */
static void test_plan_requeuing_limit(void **state)
{
    static const struct {
        int set;
        int32_t limit, count;
        int deactivates;
    } cases[] = {{0, 0, 5, 0}, {1, 0, 0, 1}, {1, 1, 0, 0},
                 {1, 1, 1, 1}, {1, 3, 2, 0}, {1, 3, 3, 1}};
    cJSON *job = cJSON_Parse(job_json);
    ts_time later = NOW + 31 * 60 * TS_TIME_SECOND;
    struct ts_jobplan p;
    struct ts_err err = {0};

    (void)state;
    ts_jobplan_init(&p);
    set(job, "spec.suspend", cJSON_CreateFalse());
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct ts_jobplan_env e = env_timeout;
        const struct ts_condition *dt, *ev;
        struct ts_workload wl;

        e.backoff_limit_count.set = cases[i].set;
        e.backoff_limit_count.v = cases[i].limit;
        set(job, "spec.suspend", cJSON_CreateTrue());
        admitted_workload(job, "gpu", 0, &wl);
        set(job, "spec.suspend", cJSON_CreateFalse());
        reserve(&wl, 1);
        wl.status.requeue_state.set = cases[i].count > 0;
        wl.status.requeue_state.count.set = cases[i].count > 0;
        wl.status.requeue_state.count.v = cases[i].count;
        assert_int_equal(ts_jobplan_make(job, &wl, &e, later, &p, &err), 0);
        assert_int_equal(p.ops, TS_JOBPLAN_WORKLOAD_STATUS);
        dt = ts_conditions_find(&p.workload.status.conditions, "DeactivationTarget");
        ev = ts_conditions_find(&p.workload.status.conditions, "Evicted");
        if (cases[i].deactivates != (dt != NULL) || cases[i].deactivates == (ev != NULL))
            fail_msg("case %zu: DeactivationTarget %d Evicted %d", i, dt != NULL, ev != NULL);
        if (dt) {
            assert_string_equal(dt->reason, "RequeuingLimitExceeded");
            assert_int_equal(p.workload.status.requeue_state.count.v, cases[i].count);
            assert_int_equal(p.metric, TS_JOBPLAN_METRIC_NONE);
        }
        ts_workload_release(&wl);
    }
    ts_jobplan_release(&p);
    cJSON_Delete(job);
}

/* Deactivation in Kueue's steps, from the DeactivationTarget to the quota
 * released, held while inactive, then reactivated; and a user's
 * spec.active=false on a running job. */
static void test_plan_deactivation(void **state)
{
    cJSON *job = cJSON_Parse(job_json);
    struct ts_jobplan_env e = env_timeout;
    ts_time later = NOW + 31 * 60 * TS_TIME_SECOND;
    const struct ts_condition *ev;
    struct ts_workload wl;
    struct ts_jobplan p;
    struct ts_err err = {0};

    (void)state;
    e.backoff_limit_count.set = 1;
    e.backoff_limit_count.v = 0;
    ts_jobplan_init(&p);
    admitted_workload(job, "gpu", 0, &wl);
    reserve(&wl, 1);
    set(job, "spec.suspend", cJSON_CreateFalse());
    set(job, "status.active", cJSON_CreateNumber(4)); /* running, not ready */
    assert_int_equal(ts_jobplan_make(job, &wl, &e, later, &p, &err), 0);
    ts_workload_copy(&wl, &p.workload);
    /* 1. DeactivationTarget -> spec.active=false */
    assert_int_equal(ts_jobplan_make(job, &wl, &e, later, &p, &err), 0);
    assert_int_equal(p.ops, TS_JOBPLAN_UPDATE_WORKLOAD);
    assert_false(ts_workload_is_active(&p.workload));
    ts_workload_copy(&wl, &p.workload);
    /* 2. inactive -> Evicted with Kueue's reason and message */
    wl.status.requeue_state.set = wl.status.requeue_state.count.set = 1;
    wl.status.requeue_state.count.v = 3;
    ev = status_write(job, &wl, &e, later, &p, "Evicted", "True",
                      "DeactivatedDueToRequeuingLimitExceeded");
    assert_string_equal(ev->message, "The workload is deactivated due to exceeding the maximum "
                                     "number of re-queuing retries");
    assert_null(ts_conditions_find(&p.workload.status.conditions, "DeactivationTarget"));
    assert_false(p.workload.status.requeue_state.set);
    assert_int_equal(p.metric, TS_JOBPLAN_METRIC_DEACTIVATED);
    assert_string_equal(p.metric_cause, "RequeuingLimitExceeded");
    assert_false(p.metric_first);
    assert_string_equal(p.event_reason, "EvictedDueToDeactivatedDueToRequeuingLimitExceeded");
    assert_true(p.event_on_workload);
    ts_workload_copy(&wl, &p.workload);
    /* 3. the job is stopped, 4. then the quota released */
    job = stop_then_release(job, &wl, &e, later, &p, "DeactivatedDueToRequeuingLimitExceeded");
    /* 5. held: nothing to do, however long it waits */
    assert_int_equal(ts_jobplan_make(job, &wl, &e, later + 86400 * TS_TIME_SECOND, &p, &err), 0);
    assert_int_equal(p.ops, 0);
    /* 6. reactivated: Requeued=True Reactivated, once */
    wl.spec.active.v = 1;
    status_write(job, &wl, &e, later, &p, "Requeued", "True", "Reactivated");
    ts_workload_copy(&wl, &p.workload);
    assert_int_equal(ts_jobplan_make(job, &wl, &e, later, &p, &err), 0);
    assert_int_equal(p.ops, 0);
    ts_workload_release(&wl);

    /* a user deactivates an admitted, running job: reason Deactivated */
    set(job, "spec.suspend", cJSON_CreateTrue());
    admitted_workload(job, "gpu", 0, &wl);
    reserve(&wl, 1);
    set(job, "spec.suspend", cJSON_CreateFalse());
    wl.spec.active.v = 0;
    ev = status_write(job, &wl, &env, NOW, &p, "Evicted", "True", "Deactivated");
    assert_string_equal(ev->message, "The workload is deactivated");
    assert_string_equal(p.metric_cause, "");
    assert_true(p.metric_first);
    ts_workload_release(&wl);
    ts_jobplan_release(&p);
    cJSON_Delete(job);
}

static void test_plan_running_without_admission_is_stopped(void **state)
{
    cJSON *job = cJSON_Parse(job_json);
    struct ts_workload wl;
    struct ts_jobplan p;
    struct ts_err err = {0};

    (void)state;
    ts_jobplan_init(&p);
    admitted_workload(job, "gpu", 0, &wl);
    ts_admission_free(wl.status.admission);
    wl.status.admission = NULL;
    set(job, "spec.suspend", cJSON_CreateFalse());
    assert_int_equal(ts_jobplan_make(job, &wl, &env, NOW, &p, &err), 0);
    assert_int_equal(p.ops, TS_JOBPLAN_UPDATE_JOB);
    assert_true(cJSON_IsTrue(ts_json_get(p.job, "spec.suspend")));
    assert_string_equal(p.event_message, "Not admitted by cluster queue");
    ts_workload_release(&wl);
    ts_jobplan_release(&p);
    cJSON_Delete(job);
}

static void test_plan_evicted_stops_then_releases(void **state)
{
    cJSON *job = cJSON_Parse(job_json);
    struct ts_workload wl;
    struct ts_jobplan p;
    struct ts_err err = {0};

    (void)state;
    ts_jobplan_init(&p);
    admitted_workload(job, "gpu", 0, &wl);
    reserve(&wl, 1);
    assert_int_equal(ts_jobkind_start(ts_jobkind_of(job), job, &wl, lookup, NULL, &err), 0);
    set(job, "status", cJSON_Parse("{\"active\":4,\"startTime\":\"2026-11-21T08:00:00Z\"}"));
    ts_conditions_set(&wl.status.conditions, TS_WL_COND_EVICTED, "True", "Preempted",
                      "Preempted to accommodate a workload", 1, NOW);
    /* 1. suspended alone: kube-apiserver refuses a template change of a
     * running Job (the template keeps the flavor until step 3) */
    assert_int_equal(ts_jobplan_make(job, &wl, &env, NOW, &p, &err), 0);
    assert_int_equal(p.ops, TS_JOBPLAN_UPDATE_JOB); /* pods still running: quota kept */
    assert_true(cJSON_IsTrue(ts_json_get(p.job, "spec.suspend")));
    assert_non_null(ts_json_get(p.job, "spec.template.spec.nodeSelector[instance-type]"));
    assert_string_equal(p.event_reason, "Stopped");
    cJSON_Delete(job);
    job = cJSON_Duplicate(p.job, 1);
    set(job, "status.active", cJSON_CreateNumber(0));
    /* 2. a started Job's startTime is cleared through its status */
    assert_int_equal(ts_jobplan_make(job, &wl, &env, NOW, &p, &err), 0);
    assert_int_equal(p.ops, TS_JOBPLAN_UPDATE_JOB_STATUS);
    assert_null(ts_json_get(p.job, "status.startTime"));
    assert_non_null(ts_json_get(p.job, "spec.template.spec.nodeSelector[instance-type]"));
    cJSON_Delete(job);
    job = cJSON_Duplicate(p.job, 1);
    /* 3. the templates restored; the quota is still held */
    assert_int_equal(ts_jobplan_make(job, &wl, &env, NOW, &p, &err), 0);
    assert_int_equal(p.ops, TS_JOBPLAN_UPDATE_JOB);
    assert_null(ts_json_get(p.job, "spec.template.spec.nodeSelector[instance-type]"));
    cJSON_Delete(job);
    job = cJSON_Duplicate(p.job, 1);
    /* 4. stopped and restored, its pods gone: the quota is released */
    assert_int_equal(ts_jobplan_make(job, &wl, &env, NOW, &p, &err), 0);
    assert_int_equal(p.ops, TS_JOBPLAN_WORKLOAD_STATUS);
    assert_null(p.workload.status.admission);
    assert_string_equal(ts_conditions_find(&p.workload.status.conditions, "Requeued")->reason,
                        "Preempted");
    ts_workload_release(&wl);
    ts_jobplan_release(&p);
    cJSON_Delete(job);
}

/* stopPolicy HoldAndDrain on the LocalQueue (first) or the ClusterQueue
 * evicts an admitted Workload with Kueue's reason, message and event; Hold
 * does not; the job is then stopped and the quota released with
 * Requeued=False and that reason; a queue running again requeues it, when
 * the workload reaches it. */
static void test_plan_queue_stop_policy(void **state)
{
    static const struct {
        enum ts_stop_policy lq, cq;
        const char *reason, *message, *restarted;
    } rows[] = {
        {TS_STOP_HOLD_AND_DRAIN, TS_STOP_NONE, "LocalQueueStopped", "The LocalQueue is stopped",
         "LocalQueueRestarted"},
        {TS_STOP_NONE, TS_STOP_HOLD_AND_DRAIN, "ClusterQueueStopped", "The ClusterQueue is stopped",
         "ClusterQueueRestarted"},
        {TS_STOP_HOLD_AND_DRAIN, TS_STOP_HOLD_AND_DRAIN, "LocalQueueStopped",
         "The LocalQueue is stopped", "LocalQueueRestarted"},
        {TS_STOP_HOLD, TS_STOP_HOLD, NULL, NULL, NULL},
        {TS_STOP_NONE, TS_STOP_NONE, NULL, NULL, NULL},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        struct ts_jobplan_env e = env;
        cJSON *job = cJSON_Parse(job_json);
        struct ts_workload wl;
        struct ts_jobplan p;
        struct ts_err err = {0};
        const struct ts_condition *c;

        ts_jobplan_init(&p);
        admitted_workload(job, "gpu", 0, &wl);
        reserve(&wl, 1);
        assert_int_equal(ts_jobkind_start(ts_jobkind_of(job), job, &wl, lookup, NULL, &err), 0);
        e.lq_stop = rows[i].lq;
        e.cq_stop = rows[i].cq;
        assert_int_equal(ts_jobplan_make(job, &wl, &e, NOW, &p, &err), 0);
        if (!rows[i].reason) {
            if (p.ops)
                fail_msg("row %zu: planned ops %u for a queue that does not drain", i, p.ops);
            goto next;
        }
        c = status_write(job, &wl, &e, NOW, &p, "Evicted", "True", rows[i].reason);
        assert_string_equal(c->message, rows[i].message);
        assert_int_equal(p.metric, TS_JOBPLAN_METRIC_QUEUE_STOPPED);
        assert_string_equal(p.metric_cause, rows[i].reason);
        assert_true(p.event_on_workload);
        assert_string_equal(p.event_reason, rows[i].lq == TS_STOP_HOLD_AND_DRAIN
                                                ? "EvictedDueToLocalQueueStopped"
                                                : "EvictedDueToClusterQueueStopped");
        ts_workload_copy(&wl, &p.workload);
        /* evicted once: the job is stopped, then the quota released */
        job = stop_then_release(job, &wl, &e, NOW, &p, rows[i].reason);
        /* still stopped: it stays as it is */
        assert_int_equal(ts_jobplan_make(job, &wl, &e, NOW, &p, &err), 0);
        assert_int_equal(p.ops, 0);
        /* the queue runs again but Kueue's workload controller does not
         * reach it (LocalQueue missing, ClusterQueue through none or a
         * stopped one): it stays as it is */
        e.lq_stop = e.cq_stop = TS_STOP_NONE;
        e.lq_missing = e.cq_unreached = 1;
        assert_int_equal(ts_jobplan_make(job, &wl, &e, NOW, &p, &err), 0);
        assert_int_equal(p.ops, 0);
        /* the queue runs again: requeued */
        e.lq_missing = e.cq_unreached = 0;
        c = status_write(job, &wl, &e, NOW, &p, "Requeued", "True", rows[i].restarted);
    next:
        ts_workload_release(&wl);
        ts_jobplan_release(&p);
        cJSON_Delete(job);
    }
}

/* Sets check `name` of wl to state (lastTransitionTime now). */
static void check_state(struct ts_workload *wl, const char *name, const char *state,
                        int32_t requeue_after, ts_time now)
{
    for (size_t i = 0; i < wl->status.n_admission_checks; i++) {
        struct ts_admission_check_state *c = &wl->status.admission_checks[i];

        if (strcmp(c->name, name))
            continue;
        free(c->state);
        c->state = ts_xstrdup(state);
        c->last_transition_time = now;
        c->requeue_after_seconds.set = requeue_after > 0;
        c->requeue_after_seconds.v = requeue_after;
        return;
    }
    fail_msg("no check %s", name);
}

/* Admission checks (Kueue's workload controller): the Workload's checks
 * follow its queue's; quota reserved with checks Pending keeps the job
 * suspended; all Ready admits it (event, metric) and the job starts with
 * the checks' podSetUpdates; a Rejected check deactivates it; a Retry
 * check first sets requeueAt from requeueAfterSeconds, then evicts it
 * (checks reset to Pending, retryCount 1), and once released the backoff
 * ends with Requeued=True BackoffFinished. */
static void test_plan_admission_checks(void **state)
{
    cJSON *job = cJSON_Parse(job_json);
    struct ts_strlist checks = TS_STRLIST_INIT;
    struct ts_jobplan_env e = env;
    struct ts_workload wl, base;
    struct ts_jobplan p;
    struct ts_err err = {0};
    const struct ts_condition *c;

    (void)state;
    ts_jobplan_init(&p);
    ts_strlist_push(&checks, "zeta");
    ts_strlist_push(&checks, "alpha");
    e.checks = &checks;
    admitted_workload(job, "gpu", 0, &base);
    reserve(&base, 0);
    ts_workload_init(&wl);
    ts_workload_copy(&wl, &base);
    /* the queue's checks are added Pending, sorted */
    assert_int_equal(ts_jobplan_make(job, &wl, &e, NOW, &p, &err), 0);
    assert_int_equal(p.ops, TS_JOBPLAN_WORKLOAD_STATUS);
    assert_int_equal(p.workload.status.n_admission_checks, 2);
    assert_string_equal(p.workload.status.admission_checks[0].name, "alpha");
    assert_string_equal(p.workload.status.admission_checks[1].state, "Pending");
    ts_workload_copy(&wl, &p.workload);
    /* Pending: the job stays suspended, nothing to write */
    assert_int_equal(ts_jobplan_make(job, &wl, &e, NOW, &p, &err), 0);
    assert_int_equal(p.ops, 0);
    /* one Ready is not enough */
    check_state(&wl, "alpha", "Ready", 0, NOW);
    assert_int_equal(ts_jobplan_make(job, &wl, &e, NOW, &p, &err), 0);
    assert_int_equal(p.ops, 0);
    /* all Ready: Admitted, with Kueue's event and the metric */
    check_state(&wl, "zeta", "Ready", 0, NOW);
    {
        struct ts_admission_check_state *z = &wl.status.admission_checks[1];

        z->podset_updates = ts_xcalloc(1, sizeof(*z->podset_updates));
        z->n_podset_updates = 1;
        z->podset_updates[0].name = ts_xstrdup("main");
        ts_strmap_set(&z->podset_updates[0].node_selector, "provisioned", "yes");
        ts_strmap_set(&z->podset_updates[0].annotations, "booking", "b-1");
    }
    c = status_write(job, &wl, &e, NOW + 7 * TS_TIME_SECOND, &p, "Admitted", "True", "Admitted");
    assert_string_equal(c->message, "The workload is admitted");
    assert_string_equal(p.event_reason, "Admitted");
    assert_string_equal(p.event_message,
                        "Admitted by ClusterQueue cq, wait time since reservation was 7s");
    assert_true(p.event_on_workload);
    assert_int_equal(p.metric, TS_JOBPLAN_METRIC_ADMITTED);
    ts_workload_copy(&wl, &p.workload);
    /* admitted: the job starts with the flavor's and the check's updates */
    assert_int_equal(ts_jobplan_make(job, &wl, &e, NOW, &p, &err), 0);
    assert_int_equal(p.ops, TS_JOBPLAN_UPDATE_JOB);
    assert_string_equal(at(p.job, "spec.template.spec.nodeSelector[instance-type]"), "gpu");
    assert_string_equal(at(p.job, "spec.template.spec.nodeSelector[provisioned]"), "yes");
    assert_string_equal(at(p.job, "spec.template.metadata.annotations[booking]"), "b-1");
    /* an update contradicting the template cannot start: FailedToStart */
    ts_strmap_set(&wl.status.admission_checks[1].podset_updates[0].node_selector, "zone", "b");
    assert_int_equal(ts_jobplan_make(job, &wl, &e, NOW, &p, &err), 0);
    assert_int_equal(p.ops, TS_JOBPLAN_WORKLOAD_STATUS);
    assert_string_equal(p.event_reason, "FailedToStart");
    assert_non_null(strstr(p.event_message, "admission check zeta"));

    /* any eviction resets the checks: admitted again, they run again */
    {
        struct ts_jobplan_env drain = e;

        drain.cq_stop = TS_STOP_HOLD_AND_DRAIN;
        c = status_write(job, &wl, &drain, NOW, &p, "Evicted", "True", "ClusterQueueStopped");
        assert_string_equal(p.workload.status.admission_checks[0].state, "Pending");
        assert_string_equal(p.workload.status.admission_checks[1].message,
                            "Reset to Pending after eviction. Previously: Ready");
    }

    /* Rejected: DeactivationTarget with Kueue's message, then deactivation */
    ts_workload_copy(&wl, &base);
    ts_workload_sync_checks(&wl, &checks, NOW);
    check_state(&wl, "alpha", "Rejected", 0, NOW);
    free(wl.status.admission_checks[0].message);
    wl.status.admission_checks[0].message = ts_xstrdup("no capacity");
    c = status_write(job, &wl, &e, NOW, &p, "DeactivationTarget", "True", "AdmissionCheck");
    assert_string_equal(c->message, "Admission check(s): alpha, were rejected");
    assert_string_equal(p.event_reason, "AdmissionCheckRejected");
    assert_string_equal(p.event_message, "Deactivating workload because AdmissionCheck for alpha "
                                         "was Rejected: no capacity");
    ts_workload_copy(&wl, &p.workload);
    assert_int_equal(ts_jobplan_make(job, &wl, &e, NOW, &p, &err), 0);
    assert_int_equal(p.ops, TS_JOBPLAN_UPDATE_WORKLOAD);
    assert_int_equal(p.workload.spec.active.v, 0);

    /* Retry with requeueAfterSeconds: requeueAt first, then the eviction */
    ts_workload_copy(&wl, &base);
    ts_workload_sync_checks(&wl, &checks, NOW);
    check_state(&wl, "zeta", "Retry", 30, NOW);
    assert_int_equal(ts_jobplan_make(job, &wl, &e, NOW + TS_TIME_SECOND, &p, &err), 0);
    assert_int_equal(p.ops, TS_JOBPLAN_WORKLOAD_STATUS);
    assert_int_equal(p.workload.status.requeue_state.requeue_at, NOW + 30 * TS_TIME_SECOND);
    ts_workload_copy(&wl, &p.workload);
    c = status_write(job, &wl, &e, NOW + TS_TIME_SECOND, &p, "Evicted", "True", "AdmissionCheck");
    assert_string_equal(c->message, "At least one admission check is false");
    assert_string_equal(p.event_reason, "EvictedDueToAdmissionCheck");
    assert_int_equal(p.metric, TS_JOBPLAN_METRIC_EVICTED);
    assert_string_equal(p.workload.status.admission_checks[1].state, "Pending");
    assert_string_equal(p.workload.status.admission_checks[1].message,
                        "Reset to Pending after eviction. Previously: Retry");
    assert_int_equal(p.workload.status.admission_checks[1].retry_count.v, 1);
    assert_int_equal(p.workload.status.n_evictions, 1);
    assert_string_equal(p.workload.status.evictions[0].reason, "AdmissionCheck");
    ts_workload_copy(&wl, &p.workload);
    assert_int_equal(ts_jobkind_start(ts_jobkind_of(job), job, &wl, lookup, NULL, &err), 0);
    job = stop_then_release(job, &wl, &e, NOW + TS_TIME_SECOND, &p, "AdmissionCheck");
    /* never Admitted: Kueue leaves the Admitted condition unset */
    assert_null(ts_conditions_find(&wl.status.conditions, "Admitted"));
    /* in backoff until requeueAt, then requeued */
    assert_int_equal(ts_jobplan_make(job, &wl, &e, NOW + 2 * TS_TIME_SECOND, &p, &err), 0);
    assert_int_equal(p.ops, 0);
    assert_int_equal(p.requeue_after, 28 * TS_TIME_SECOND);
    status_write(job, &wl, &e, NOW + 30 * TS_TIME_SECOND, &p, "Requeued", "True",
                 "BackoffFinished");
    assert_int_equal(p.workload.status.requeue_state.requeue_at, 0);

    /* the queue dropped its checks: the Workload's go too */
    ts_strlist_release(&checks);
    ts_workload_copy(&wl, &base);
    ts_workload_sync_checks(&wl, &(struct ts_strlist)TS_STRLIST_INIT, NOW);
    ts_strlist_push(&checks, "alpha");
    ts_workload_sync_checks(&wl, &checks, NOW);
    ts_strlist_release(&checks);
    assert_int_equal(ts_jobplan_make(job, &wl, &e, NOW, &p, &err), 0);
    assert_int_equal(p.ops, TS_JOBPLAN_WORKLOAD_STATUS);
    assert_int_equal(p.workload.status.n_admission_checks, 0);
    assert_null(p.workload.status.admission_checks);

    ts_workload_release(&wl);
    ts_workload_release(&base);
    ts_jobplan_release(&p);
    cJSON_Delete(job);
}

/* A Workload no job owns gets the workload controller's steps only: its
 * checks synced, Admitted once they are Ready, deactivated when one is
 * Rejected; nothing about a job is planned. */
static void test_plan_standalone_workload(void **state)
{
    cJSON *job = cJSON_Parse(job_json);
    struct ts_strlist checks = TS_STRLIST_INIT;
    struct ts_jobplan_env e = env;
    struct ts_workload wl;
    struct ts_jobplan p;

    (void)state;
    ts_jobplan_init(&p);
    ts_strlist_push(&checks, "capacity");
    e.checks = &checks;
    admitted_workload(job, "gpu", 0, &wl);
    reserve(&wl, 0);
    ts_jobplan_make_standalone(&wl, &e, NOW, &p);
    assert_int_equal(p.ops, TS_JOBPLAN_WORKLOAD_STATUS);
    assert_int_equal(p.workload.status.n_admission_checks, 1);
    ts_workload_copy(&wl, &p.workload);
    ts_jobplan_make_standalone(&wl, &e, NOW, &p);
    assert_int_equal(p.ops, 0); /* Pending: nothing to do */
    check_state(&wl, "capacity", "Ready", 0, NOW);
    ts_jobplan_make_standalone(&wl, &e, NOW, &p);
    assert_int_equal(p.ops, TS_JOBPLAN_WORKLOAD_STATUS);
    assert_true(ts_workload_is_admitted(&p.workload));
    assert_null(p.job);
    check_state(&wl, "capacity", "Rejected", 0, NOW);
    ts_jobplan_make_standalone(&wl, &e, NOW, &p);
    assert_non_null(ts_conditions_find(&p.workload.status.conditions, "DeactivationTarget"));
    ts_workload_copy(&wl, &p.workload);
    ts_jobplan_make_standalone(&wl, &e, NOW, &p);
    assert_int_equal(p.ops, TS_JOBPLAN_UPDATE_WORKLOAD);
    assert_int_equal(p.workload.spec.active.v, 0);
    ts_strlist_release(&checks);
    ts_workload_release(&wl);
    ts_jobplan_release(&p);
    cJSON_Delete(job);
}

/* kueue.x-k8s.io/max-exec-time-seconds on the job becomes the Workload's
 * spec.maximumExecutionTimeSeconds (a bad value is ignored); an admitted
 * Workload is watched until its time, counting the time it was admitted
 * before an eviction, runs out; then it becomes a DeactivationTarget
 * (MaximumExecutionTimeExceeded) with a Warning event, which deactivates
 * it. */
static void test_plan_maximum_execution_time(void **state)
{
    static const struct {
        const char *label;
        int set;
        int32_t want;
    } labels[] = {{"60", 1, 60}, {"0", 0, 0}, {"-5", 0, 0}, {"x", 0, 0}, {"2147483648", 0, 0}};
    static const struct {
        int32_t past;           /* accumulatedPastExecutionTimeSeconds, -1 unset */
        int64_t admitted_for_s; /* since Admitted turned True */
        int64_t left_s;         /* requeue_after; -1: deactivated now */
    } steps[] = {{-1, 10, 50}, {-1, 59, 1}, {-1, 60, -1}, {30, 20, 10}, {30, 31, -1}, {70, 0, -1}};
    cJSON *job = cJSON_Parse(job_json);
    struct ts_jobplan p;
    struct ts_err err = {0};
    struct ts_workload wl;

    (void)state;
    ts_jobplan_init(&p);
    for (size_t i = 0; i < sizeof(labels) / sizeof(labels[0]); i++) {
        set(job, "metadata.labels[kueue.x-k8s.io/max-exec-time-seconds]",
            cJSON_CreateString(labels[i].label));
        assert_int_equal(ts_jobplan_make(job, NULL, &env, NOW, &p, &err), 0);
        if (p.workload.spec.maximum_execution_time_seconds.set != labels[i].set ||
            (labels[i].set && p.workload.spec.maximum_execution_time_seconds.v != labels[i].want))
            fail_msg("label %s: got set=%d v=%d", labels[i].label,
                     p.workload.spec.maximum_execution_time_seconds.set,
                     p.workload.spec.maximum_execution_time_seconds.v);
    }
    set(job, "metadata.labels[kueue.x-k8s.io/max-exec-time-seconds]", cJSON_CreateString("60"));
    admitted_workload(job, "gpu", 0, &wl);
    reserve(&wl, 1);
    assert_int_equal(ts_jobkind_start(ts_jobkind_of(job), job, &wl, lookup, NULL, &err), 0);
    wl.spec.maximum_execution_time_seconds.set = 1;
    wl.spec.maximum_execution_time_seconds.v = 60;
    for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
        ts_time now = NOW + steps[i].admitted_for_s * TS_TIME_SECOND;
        const struct ts_condition *dt;

        wl.status.accumulated_past_execution_time_seconds.set = steps[i].past >= 0;
        wl.status.accumulated_past_execution_time_seconds.v = steps[i].past;
        assert_int_equal(ts_jobplan_make(job, &wl, &env, now, &p, &err), 0);
        dt = ts_conditions_find(&p.workload.status.conditions, "DeactivationTarget");
        if (steps[i].left_s >= 0) {
            if (p.ops || p.requeue_after != steps[i].left_s * TS_TIME_SECOND)
                fail_msg("step %zu: ops %u requeue_after %lld, want none and %lld s", i, p.ops,
                         (long long)p.requeue_after, (long long)steps[i].left_s);
            continue;
        }
        if (p.ops != TS_JOBPLAN_WORKLOAD_STATUS || !dt)
            fail_msg("step %zu: not deactivated (ops %u)", i, p.ops);
        assert_string_equal(dt->reason, "MaximumExecutionTimeExceeded");
        assert_string_equal(dt->message, "exceeding the maximum execution time");
        assert_false(p.workload.status.accumulated_past_execution_time_seconds.set);
        assert_string_equal(p.event_type, "Warning");
        assert_string_equal(p.event_message, "The maximum execution time (60s) exceeded");
    }
    /* the target deactivates it: spec.active=false, then the eviction */
    ts_workload_copy(&wl, &p.workload);
    assert_int_equal(ts_jobplan_make(job, &wl, &env, NOW, &p, &err), 0);
    assert_int_equal(p.ops, TS_JOBPLAN_UPDATE_WORKLOAD);
    assert_false(p.workload.spec.active.v);
    /* deactivated and evicted, still admitted until its job stops: never a
     * target again (that wrote the condition back and forth) */
    ts_workload_copy(&wl, &p.workload);
    ts_conditions_remove(&wl.status.conditions, "DeactivationTarget");
    ts_conditions_set(&wl.status.conditions, TS_WL_COND_EVICTED, "True",
                      "DeactivatedDueToMaximumExecutionTimeExceeded", "x", 1, NOW);
    set(job, "status", cJSON_Parse("{\"active\":1}"));
    assert_int_equal(ts_jobplan_make(job, &wl, &env, NOW + 3600 * TS_TIME_SECOND, &p, &err), 0);
    assert_null(ts_conditions_find(&p.workload.status.conditions, "DeactivationTarget"));
    ts_workload_release(&wl);
    ts_jobplan_release(&p);
    cJSON_Delete(job);
}

/* Releasing an evicted Workload's quota adds the time it was admitted to
 * status.accumulatedPastExecutionTimeSeconds. */
static void test_release_accumulates_execution_time(void **state)
{
    cJSON *job = cJSON_Parse(job_json);
    struct ts_workload wl, again;

    (void)state;
    admitted_workload(job, "gpu", 0, &wl);
    reserve(&wl, 1);
    ts_conditions_set(&wl.status.conditions, TS_WL_COND_EVICTED, "True", "Preempted", "x", 1, NOW);
    ts_workload_init(&again);
    ts_workload_copy(&again, &wl);
    assert_int_equal(ts_apply_quota_released(&wl, NOW + 40 * TS_TIME_SECOND + 999), 1);
    assert_true(wl.status.accumulated_past_execution_time_seconds.set);
    assert_int_equal(wl.status.accumulated_past_execution_time_seconds.v, 40);
    /* admitted again (at NOW) after those 40 s, evicted 5 s later */
    again.status.accumulated_past_execution_time_seconds =
        wl.status.accumulated_past_execution_time_seconds;
    assert_int_equal(ts_apply_quota_released(&again, NOW + 5 * TS_TIME_SECOND), 1);
    assert_int_equal(again.status.accumulated_past_execution_time_seconds.v, 45);
    ts_workload_release(&again);
    ts_workload_release(&wl);
    cJSON_Delete(job);
}

/* Kueue's Job.ReclaimablePods: once fewer completions remain than the
 * parallelism, parallelism - remaining pods of "main" are reclaimable;
 * the Workload's status follows as the count grows, never back. */
static void test_plan_reclaimable_pods(void **state)
{
    static const struct {
        int par, completions, succeeded, have; /* completions 0: unset */
        int want;                              /* -1: no write */
    } rows[] = {
        {4, 0, 0, 0, -1}, {4, 0, 1, 0, 1},   {4, 0, 3, 1, 3},  {4, 0, 3, 3, -1},
        {4, 0, 4, 3, 4},  {4, 10, 6, 0, -1}, {4, 10, 7, 0, 1}, {4, 10, 9, 1, 3},
        {1, 0, 1, 0, -1}, {4, 0, 2, 3, -1},  {4, 2, 5, 0, 4},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        cJSON *job = cJSON_Parse(job_json);
        struct ts_workload wl;
        struct ts_jobplan p;
        struct ts_err err = {0};

        ts_jobplan_init(&p);
        set(job, "spec.parallelism", cJSON_CreateNumber(rows[i].par));
        if (rows[i].completions)
            set(job, "spec.completions", cJSON_CreateNumber(rows[i].completions));
        admitted_workload(job, "gpu", 0, &wl);
        reserve(&wl, 1);
        assert_int_equal(ts_jobkind_start(ts_jobkind_of(job), job, &wl, lookup, NULL, &err), 0);
        set(job, "status.succeeded", cJSON_CreateNumber(rows[i].succeeded));
        set(job, "status.active", cJSON_CreateNumber(rows[i].par));
        if (rows[i].have) {
            wl.status.reclaimable_pods = ts_xcalloc(1, sizeof(*wl.status.reclaimable_pods));
            wl.status.reclaimable_pods[0].name = ts_xstrdup("main");
            wl.status.reclaimable_pods[0].count = rows[i].have;
            wl.status.n_reclaimable_pods = 1;
        }
        assert_int_equal(ts_jobplan_make(job, &wl, &env, NOW, &p, &err), 0);
        if (rows[i].want < 0 ? p.ops != 0
                             : p.ops != TS_JOBPLAN_WORKLOAD_STATUS ||
                                   p.workload.status.n_reclaimable_pods != 1 ||
                                   strcmp(p.workload.status.reclaimable_pods[0].name, "main") ||
                                   p.workload.status.reclaimable_pods[0].count != rows[i].want)
            fail_msg("row %zu: ops %u, %zu reclaimable (first %d), want %d", i, p.ops,
                     p.workload.status.n_reclaimable_pods,
                     p.workload.status.n_reclaimable_pods
                         ? p.workload.status.reclaimable_pods[0].count
                         : 0,
                     rows[i].want);
        ts_workload_release(&wl);
        ts_jobplan_release(&p);
        cJSON_Delete(job);
    }
}

static void test_plan_pending_workload_follows_job(void **state)
{
    cJSON *job = cJSON_Parse(job_json);
    struct ts_workload wl;
    struct ts_jobplan p;
    struct ts_err err = {0};

    (void)state;
    ts_jobplan_init(&p);
    admitted_workload(job, "gpu", 0, &wl);
    ts_admission_free(wl.status.admission);
    wl.status.admission = NULL;
    assert_int_equal(ts_jobplan_make(job, &wl, &env, NOW, &p, &err), 0);
    assert_int_equal(p.ops, 0); /* in step */
    /* the server prunes nulls from the stored Workload: still in step */
    set(job, "spec.template.metadata.creationTimestamp", cJSON_CreateNull());
    assert_int_equal(ts_jobplan_make(job, &wl, &env, NOW, &p, &err), 0);
    assert_int_equal(p.ops, 0);
    set(job, "spec.parallelism", cJSON_CreateNumber(2));
    assert_int_equal(ts_jobplan_make(job, &wl, &env, NOW, &p, &err), 0);
    assert_int_equal(p.ops, TS_JOBPLAN_UPDATE_WORKLOAD);
    assert_int_equal(p.workload.spec.podsets[0].count, 2);
    assert_string_equal(p.workload.meta.name, wl.meta.name);
    ts_workload_release(&wl);
    ts_jobplan_release(&p);
    cJSON_Delete(job);
}

static void test_plan_conflict_fails_to_start(void **state)
{
    cJSON *job = cJSON_Parse(job_json);
    struct ts_workload wl;
    struct ts_jobplan p;
    struct ts_err err = {0};

    (void)state;
    ts_jobplan_init(&p);
    set(job, "spec.template.spec.nodeSelector[instance-type]", cJSON_CreateString("cpu"));
    admitted_workload(job, "gpu", 0, &wl);
    reserve(&wl, 1);
    assert_int_equal(ts_jobplan_make(job, &wl, &env, NOW, &p, &err), 0);
    assert_int_equal(p.ops, TS_JOBPLAN_WORKLOAD_STATUS);
    assert_string_equal(ts_conditions_find(&p.workload.status.conditions, "Finished")->reason,
                        "FailedToStart");
    ts_workload_release(&wl);
    ts_jobplan_release(&p);
    cJSON_Delete(job);
}

/* integrations.externalFrameworks: a Job controlled by such a kind is the
 * external integration's (no Workload of its own); other owners do not
 * count. */
static void test_plan_external_owner(void **state)
{
    cJSON *job = cJSON_Parse(job_json);
    struct ts_strlist ext = TS_STRLIST_INIT;
    struct ts_jobplan_env e = env;
    struct ts_jobplan p;
    struct ts_err err = {0};

    (void)state;
    ts_strlist_push(&ext, "AppWrapper.v1beta2.workload.codeflare.dev");
    e.external_frameworks = &ext;
    set(job, "metadata.ownerReferences",
        cJSON_Parse("[{\"apiVersion\":\"workload.codeflare.dev/v1beta2\",\"kind\":"
                    "\"AppWrapper\",\"name\":\"aw\",\"uid\":\"u9\",\"controller\":true}]"));
    ts_jobplan_init(&p);
    assert_int_equal(ts_jobplan_make(job, NULL, &e, NOW, &p, &err), 0);
    assert_int_equal(p.ops, 0);
    assert_int_equal(ts_jobplan_make(job, NULL, &env, NOW, &p, &err), 0); /* not listed */
    assert_int_equal(p.ops, TS_JOBPLAN_CREATE_WORKLOAD);
    ts_jobplan_release(&p);
    ts_strlist_release(&ext);
    cJSON_Delete(job);
}

static void test_unmanaged_kinds(void **state)
{
    cJSON *rs = cJSON_Parse("{\"apiVersion\":\"apps/v1\",\"kind\":\"ReplicaSet\"}");
    cJSON *pod = cJSON_Parse("{\"apiVersion\":\"v1\",\"kind\":\"Pod\"}");

    (void)state;
    assert_null(ts_jobkind_of(rs));
    assert_int_equal(ts_jobkind_of(pod)->shape, TS_JOBKIND_POD);
    cJSON_Delete(rs);
    cJSON_Delete(pod);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_job_start_injects_and_stop_restores),
        cmocka_unit_test(test_job_start_conflict_leaves_job),
        cmocka_unit_test(test_job_missing_flavor),
        cmocka_unit_test(test_job_partial_admission_parallelism),
        cmocka_unit_test(test_kubeflow_kinds),
        cmocka_unit_test(test_unmanaged_kinds),
        cmocka_unit_test(test_plan_external_owner),
        cmocka_unit_test(test_plan_new_job),
        cmocka_unit_test(test_plan_missing_priority_class),
        cmocka_unit_test(test_plan_start_stop_finish),
        cmocka_unit_test(test_plan_pods_ready),
        cmocka_unit_test(test_plan_pods_ready_timeout),
        cmocka_unit_test(test_plan_recovery_timeout),
        cmocka_unit_test(test_plan_requeuing_limit),
        cmocka_unit_test(test_plan_deactivation),
        cmocka_unit_test(test_plan_running_without_admission_is_stopped),
        cmocka_unit_test(test_plan_evicted_stops_then_releases),
        cmocka_unit_test(test_plan_queue_stop_policy),
        cmocka_unit_test(test_plan_admission_checks),
        cmocka_unit_test(test_plan_standalone_workload),
        cmocka_unit_test(test_plan_maximum_execution_time),
        cmocka_unit_test(test_plan_reclaimable_pods),
        cmocka_unit_test(test_release_accumulates_execution_time),
        cmocka_unit_test(test_plan_pending_workload_follows_job),
        cmocka_unit_test(test_plan_conflict_fails_to_start),
    };

    ts_alloc_init();
    return cmocka_run_group_tests_name("controller_jobs", tests, setup, teardown);
}
