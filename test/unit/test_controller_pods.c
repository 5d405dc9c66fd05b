/* Tests for Kueue's pod integration in the job reconciler's plan
 * (controller/jobplan.c with the Pod shape of controller/jobkind.c): a
 * plain Pod the webhook marked managed gets a Workload of one pod set; it
 * is started by removing its scheduling gate (with the flavor injected),
 * stopped by deleting it, finished from its phase, and its finalizer goes
 * once it is done.  Table-driven: each row is a Pod state and a Workload
 * state, and the writes the plan must make. */
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
#include "api/pod.h"
#include "controller/jobkind.h"
#include "controller/jobplan.h"
#include "json/json.h"
#include "util/alloc.h"

#define NOW (INT64_C(1795255200) * TS_TIME_SECOND)

static struct ts_resource_flavor gpu;

static const struct ts_resource_flavor *lookup(void *ctx, const char *name)
{
    (void)ctx;
    return !strcmp(name, "gpu") ? &gpu : NULL;
}

static const struct ts_jobplan_env env = {
    .flavor = lookup, .backoff_base_s = 60, .backoff_max_s = 3600};

static int setup(void **state)
{
    cJSON *o = cJSON_Parse("{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"ResourceFlavor\","
                           "\"metadata\":{\"name\":\"gpu\"},\"spec\":{\"nodeLabels\":{"
                           "\"instance-type\":\"gpu\"},\"tolerations\":[{\"key\":\"gpu\","
                           "\"operator\":\"Exists\",\"effect\":\"NoSchedule\"}]}}");
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_dec d;

    (void)state;
    ts_dec_init(&d, &errs);
    ts_resource_flavor_init(&gpu);
    ts_resource_flavor_decode(&d, o, &gpu);
    cJSON_Delete(o);
    return errs.n != 0;
}

static int teardown(void **state)
{
    (void)state;
    ts_resource_flavor_release(&gpu);
    return 0;
}

/* A Pod as the webhook leaves it: managed label, finalizer, gate. */
static const char pod_json[] =
    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"sleeper\",\"namespace\":"
    "\"team-a\",\"uid\":\"p1\",\"labels\":{\"kueue.x-k8s.io/queue-name\":\"lq\","
    "\"kueue.x-k8s.io/managed\":\"true\"},\"finalizers\":[\"kueue.x-k8s.io/managed\"]},"
    "\"spec\":{\"schedulingGates\":[{\"name\":\"kueue.x-k8s.io/admission\"}],\"containers\":[{"
    "\"name\":\"c\",\"image\":\"busybox\",\"resources\":{\"requests\":{\"cpu\":\"1\"}}}]},"
    "\"status\":{\"phase\":\"Pending\"}}";

enum pod_state { GATED, RUNNING, SUCCEEDED, FAILED, DELETING, UNMANAGED, NO_FINALIZER };
enum wl_state { NONE, PENDING, ADMITTED, EVICTED_RESERVED, FINISHED };

static cJSON *make_pod(enum pod_state s)
{
    cJSON *pod = cJSON_Parse(pod_json);

    if (s != GATED && s != UNMANAGED && s != NO_FINALIZER)
        ts_pod_json_remove_gate(pod, TS_POD_GATE);
    if (s == RUNNING || s == DELETING)
        ts_json_set_string(pod, "status.phase", "Running", NULL);
    if (s == SUCCEEDED || s == FAILED) {
        ts_json_set_string(pod, "status.phase", s == SUCCEEDED ? "Succeeded" : "Failed", NULL);
        ts_json_set_string(pod, "status.message", "exit 3", NULL);
    }
    if (s == DELETING)
        ts_json_set_string(pod, "metadata.deletionTimestamp", "2026-11-28T08:00:00Z", NULL);
    if (s == UNMANAGED)
        cJSON_DeleteItemFromObjectCaseSensitive(ts_json_get(pod, "metadata.labels"),
                                                TS_POD_LABEL_MANAGED);
    if (s == NO_FINALIZER) {
        cJSON_DeleteItemFromObjectCaseSensitive(ts_json_get(pod, "metadata"), "finalizers");
        ts_json_set_string(pod, "status.phase", "Succeeded", NULL);
    }
    return pod;
}

static void make_workload(const cJSON *pod, enum wl_state s, struct ts_workload *wl)
{
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_podset_assignment *pa;
    struct ts_object o;
    struct ts_err err = {0};

    assert_int_equal(ts_object_decode(pod, &o, &errs, &err), 0);
    assert_int_equal(o.kind, TS_KIND_POD);
    ts_workload_init(wl);
    assert_int_equal(ts_jobworkload_from_pod(&o.u.pod, NULL, wl, &err), 0);
    ts_object_release(&o);
    ts_field_errors_release(&errs);
    if (s == PENDING)
        return;
    wl->status.admission = ts_admission_new();
    free(wl->status.admission->cluster_queue);
    wl->status.admission->cluster_queue = ts_xstrdup("cq");
    pa = ts_admission_add(wl->status.admission, TS_WL_DEFAULT_PODSET);
    ts_strmap_set(&pa->flavors, "cpu", "gpu");
    pa->count.set = 1;
    pa->count.v = 1;
    ts_conditions_set(&wl->status.conditions, TS_WL_COND_QUOTA_RESERVED, "True", "QuotaReserved",
                      "Quota reserved in ClusterQueue cq", 1, NOW);
    ts_conditions_set(&wl->status.conditions, TS_WL_COND_ADMITTED, "True", "Admitted",
                      "The workload is admitted", 1, NOW);
    if (s == EVICTED_RESERVED)
        ts_conditions_set(&wl->status.conditions, TS_WL_COND_EVICTED, "True", "Preempted",
                          "Preempted to accommodate a workload", 1, NOW);
    if (s == FINISHED)
        ts_conditions_set(&wl->status.conditions, TS_WL_COND_FINISHED, "True", "Succeeded", "", 1,
                          NOW);
}

static int has_finalizer(const cJSON *pod)
{
    const cJSON *f;

    cJSON_ArrayForEach(f, ts_json_get(pod, "metadata.finalizers"))
    {
        if (cJSON_IsString(f) && !strcmp(f->valuestring, TS_POD_FINALIZER))
            return 1;
    }
    return 0;
}

static const struct {
    const char *name;
    enum pod_state pod;
    enum wl_state wl;
    unsigned ops;
    const char *event;     /* NULL: none */
    const char *wl_finish; /* the Finished reason written, or NULL */
    int released;          /* the status write drops the admission */
    int finalizer_dropped; /* the job write removes kueue.x-k8s.io/managed */
} rows[] = {
    {"not marked by the webhook: skipped", UNMANAGED, NONE, 0, NULL, NULL, 0, 0},
    {"gated, no Workload: created", GATED, NONE, TS_JOBPLAN_CREATE_WORKLOAD, "CreatedWorkload",
     NULL, 0, 0},
    {"running, no Workload: created, the Pod is not gated again", RUNNING, NONE,
     TS_JOBPLAN_CREATE_WORKLOAD, "CreatedWorkload", NULL, 0, 0},
    {"gated and pending: nothing", GATED, PENDING, 0, NULL, NULL, 0, 0},
    {"gated and admitted: ungated with the flavor", GATED, ADMITTED, TS_JOBPLAN_UPDATE_JOB,
     "Started", NULL, 0, 0},
    {"running and admitted: nothing", RUNNING, ADMITTED, 0, NULL, NULL, 0, 0},
    {"running without admission: deleted", RUNNING, PENDING, TS_JOBPLAN_DELETE_JOB, "Stopped", NULL,
     0, 0},
    {"running and evicted: deleted, then the quota goes", RUNNING, EVICTED_RESERVED,
     TS_JOBPLAN_DELETE_JOB | TS_JOBPLAN_WORKLOAD_STATUS, "Stopped", NULL, 1, 0},
    {"gated and evicted: only the quota goes", GATED, EVICTED_RESERVED, TS_JOBPLAN_WORKLOAD_STATUS,
     NULL, NULL, 1, 0},
    {"succeeded: Workload finished, finalizer removed", SUCCEEDED, ADMITTED,
     TS_JOBPLAN_WORKLOAD_STATUS | TS_JOBPLAN_UPDATE_JOB, "FinishedWorkload", "Succeeded", 0, 1},
    {"failed: Workload finished Failed", FAILED, ADMITTED,
     TS_JOBPLAN_WORKLOAD_STATUS | TS_JOBPLAN_UPDATE_JOB, "FinishedWorkload", "Failed", 0, 1},
    {"finished Workload: finalizer removed", SUCCEEDED, FINISHED, TS_JOBPLAN_UPDATE_JOB, NULL, NULL,
     0, 1},
    {"finished Workload, no finalizer left: nothing", NO_FINALIZER, FINISHED, 0, NULL, NULL, 0, 0},
    {"terminated before it had a Workload: finalizer removed, no Workload", SUCCEEDED, NONE,
     TS_JOBPLAN_UPDATE_JOB, NULL, NULL, 0, 1},
    {"deleting: finalizer removed", DELETING, ADMITTED, TS_JOBPLAN_UPDATE_JOB, NULL, NULL, 0, 1},
};

static void test_pod_plan_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        cJSON *pod = make_pod(rows[i].pod);
        struct ts_workload wl;
        struct ts_jobplan p;
        struct ts_err err = {0};
        int has_wl = rows[i].wl != NONE;

        print_message("row: %s\n", rows[i].name);
        if (has_wl)
            make_workload(pod, rows[i].wl, &wl);
        ts_jobplan_init(&p);
        assert_int_equal(ts_jobplan_make(pod, has_wl ? &wl : NULL, &env, NOW, &p, &err), 0);
        assert_int_equal(p.ops, rows[i].ops);
        if (rows[i].event)
            assert_string_equal(p.event_reason, rows[i].event);
        else
            assert_null(p.event_reason);
        if (rows[i].wl_finish)
            assert_string_equal(
                ts_conditions_find(&p.workload.status.conditions, "Finished")->reason,
                rows[i].wl_finish);
        if (p.ops & TS_JOBPLAN_WORKLOAD_STATUS)
            assert_int_equal(p.workload.status.admission == NULL, rows[i].released);
        if (p.ops & TS_JOBPLAN_UPDATE_JOB)
            assert_int_equal(!has_finalizer(p.job), rows[i].finalizer_dropped);
        ts_jobplan_release(&p);
        if (has_wl)
            ts_workload_release(&wl);
        cJSON_Delete(pod);
    }
}

/* The Workload of a Pod: Kueue's name, an owner reference to the Pod,
 * one pod set "main" of count 1 holding the Pod's spec. */
static void test_pod_workload(void **state)
{
    cJSON *pod = make_pod(GATED);
    struct ts_jobplan p;
    struct ts_err err = {0};
    char *name = ts_jobworkload_name("Pod", "", "sleeper", "p1");

    (void)state;
    ts_jobplan_init(&p);
    assert_int_equal(ts_jobplan_make(pod, NULL, &env, NOW, &p, &err), 0);
    assert_string_equal(p.workload.meta.name, name);
    assert_int_equal(strncmp(name, "pod-sleeper-", 12), 0);
    assert_string_equal(p.workload.meta.owner_refs[0].kind, "Pod");
    assert_string_equal(p.workload.meta.owner_refs[0].api_version, "v1");
    assert_string_equal(p.workload.spec.queue_name, "lq");
    assert_int_equal(p.workload.spec.n_podsets, 1);
    assert_string_equal(p.workload.spec.podsets[0].name, "main");
    assert_int_equal(p.workload.spec.podsets[0].count, 1);
    assert_int_equal(p.workload.spec.podsets[0].template.n_containers, 1);
    free(name);
    ts_jobplan_release(&p);
    cJSON_Delete(pod);
}

/* Start: the gate goes, the flavor's node labels and tolerations and
 * Kueue's pod labels come in; other gates stay. */
static void test_pod_start_injects(void **state)
{
    cJSON *pod = make_pod(GATED);
    struct ts_workload wl;
    struct ts_jobplan p;
    struct ts_err err = {0};

    (void)state;
    ts_pod_json_add_gate(pod, "other");
    make_workload(pod, ADMITTED, &wl);
    ts_jobplan_init(&p);
    assert_int_equal(ts_jobplan_make(pod, &wl, &env, NOW, &p, &err), 0);
    assert_false(ts_pod_json_has_gate(p.job, TS_POD_GATE));
    assert_true(ts_pod_json_has_gate(p.job, "other"));
    assert_string_equal(ts_json_get_string(p.job, "spec.nodeSelector[instance-type]"), "gpu");
    assert_string_equal(ts_json_get_string(p.job, "spec.tolerations[0].key"), "gpu");
    assert_string_equal(ts_json_get_string(p.job, "metadata.labels[kueue.x-k8s.io/podset]"),
                        "main");
    assert_true(has_finalizer(p.job)); /* kept while it runs */
    ts_workload_release(&wl);
    ts_jobplan_release(&p);
    cJSON_Delete(pod);
}

/* The webhook's marking, and the role hash: stable, from the fields that
 * matter to admission only, the annotation winning. */
static void test_pod_mark_and_role_hash(void **state)
{
    cJSON *a =
        cJSON_Parse("{\"metadata\":{\"name\":\"a\"},\"spec\":{\"containers\":[{\"name\":"
                    "\"c\",\"image\":\"x\",\"resources\":{\"requests\":{\"cpu\":\"1\"}}}]}}");
    cJSON *b = cJSON_Duplicate(a, 1);
    char ha[9], hb[9];

    (void)state;
    assert_int_equal(ts_pod_role_hash(a, ha), 0);
    assert_int_equal(strlen(ha), 8);
    ts_json_set_string(b, "spec.containers[0].image", "y", NULL); /* not part of the role */
    ts_json_set_string(b, "metadata.name", "b", NULL);
    assert_int_equal(ts_pod_role_hash(b, hb), 0);
    assert_string_equal(ha, hb);
    ts_json_set_string(b, "spec.containers[0].resources.requests.cpu", "2", NULL);
    assert_int_equal(ts_pod_role_hash(b, hb), 0);
    assert_string_not_equal(ha, hb);
    ts_pod_json_mark_managed(a, 1);
    assert_string_equal(ts_json_get_string(a, "metadata.labels[kueue.x-k8s.io/managed]"), "true");
    assert_string_equal(ts_json_get_string(a, "metadata.annotations[kueue.x-k8s.io/role-hash]"),
                        ha);
    assert_true(ts_pod_json_has_gate(a, TS_POD_GATE));
    assert_true(has_finalizer(a));
    ts_pod_json_mark_managed(a, 1); /* idempotent */
    assert_int_equal(cJSON_GetArraySize(ts_json_get(a, "metadata.finalizers")), 1);
    assert_int_equal(cJSON_GetArraySize(ts_json_get(a, "spec.schedulingGates")), 1);
    assert_int_equal(ts_pod_json_remove_gate(a, TS_POD_GATE), 1);
    assert_null(ts_json_get(a, "spec.schedulingGates")); /* the emptied list goes */
    assert_int_equal(ts_pod_json_remove_gate(a, TS_POD_GATE), 0);
    cJSON_Delete(a);
    cJSON_Delete(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pod_plan_table),
        cmocka_unit_test(test_pod_workload),
        cmocka_unit_test(test_pod_start_injects),
        cmocka_unit_test(test_pod_mark_and_role_hash),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
