/* Tests for the job kinds added to the one adapter (controller/jobkind.h):
 * kubeflow.org/v1 XGBoostJob, PaddleJob, JAXJob and jobset.x-k8s.io
 * JobSet.  Their pod sets (Kueue's order, a JobSet's counts), the start
 * that injects the flavor and the stop that restores each template, the
 * reconciler's plans for a JobSet (suspend, finish, evict), and the rule
 * that a job whose controller is a managed job gets no Workload.  Job
 * objects are in test/data/kinds/. */
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
#include "controller/jobplan.h"
#include "json/json.h"
#include "util/alloc.h"
#include "util/buf.h"

#define NOW (INT64_C(1795255200) * TS_TIME_SECOND)

static struct ts_resource_flavor gpu;

static const struct ts_resource_flavor *lookup(void *ctx, const char *name)
{
    (void)ctx;
    return strcmp(name, "gpu") ? NULL : &gpu;
}

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
    assert_int_equal(errs.n, 0);
    cJSON_Delete(o);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    ts_resource_flavor_release(&gpu);
    return 0;
}

/* test/data/kinds/<file>, with `path` set to the JSON `value` when path
 * is not NULL. */
static cJSON *load(const char *file, const char *path, const char *value)
{
    struct ts_buf b = TS_BUF_INIT;
    char name[256], chunk[4096];
    FILE *f;
    size_t n;
    cJSON *o;

    snprintf(name, sizeof(name), "test/data/kinds/%s", file);
    f = fopen(name, "r");
    if (!f)
        fail_msg("cannot open %s", name);
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        ts_buf_add(&b, chunk, n);
    fclose(f);
    o = cJSON_Parse(b.ptr);
    ts_buf_release(&b);
    if (!o)
        fail_msg("%s is not JSON", name);
    if (path && ts_json_set(o, path, cJSON_Parse(value), NULL))
        fail_msg("%s: cannot set %s", name, path);
    return o;
}

/* The Workload of job (0), or the build's error code with its message. */
static int build(const cJSON *job, struct ts_workload *wl, struct ts_err *err)
{
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_object o;
    int rc;

    ts_workload_init(wl);
    if ((rc = ts_object_decode(job, &o, &errs, err)) == 0) {
        rc = errs.n ? ts_field_errors_to_err(&errs, ts_kind_name(o.kind), err)
                    : ts_jobworkload_from_object(&o, NULL, wl, err);
        ts_object_release(&o);
    }
    ts_field_errors_release(&errs);
    return rc;
}

/* "name:count name:count" of wl's pod sets. */
static void podsets_of(const struct ts_workload *wl, char *out, size_t len)
{
    size_t w = 0;

    out[0] = '\0';
    for (size_t i = 0; i < wl->spec.n_podsets && w < len; i++)
        w += (size_t)snprintf(out + w, len - w, "%s%s:%d", i ? " " : "", wl->spec.podsets[i].name,
                              (int)wl->spec.podsets[i].count);
}

/* Pod sets in Kueue's order and counts; the Workload's name and owner. */
static void test_podsets(void **state)
{
    static const struct {
        const char *file, *path, *value;
        const char *want, *wl_prefix, *owner_api;
    } cases[] = {
        {"xgboostjob.json", NULL, NULL, "master:1 worker:3", "xgboostjob-xgb-", "kubeflow.org/v1"},
        {"paddlejob.json", NULL, NULL, "master:1 worker:2", "paddlejob-paddle-", "kubeflow.org/v1"},
        {"jaxjob.json", NULL, NULL, "worker:4", "jaxjob-jax-", "kubeflow.org/v1"},
        /* replicas x min(parallelism, completions) */
        {"jobset.json", NULL, NULL, "driver:1 workers:4", "jobset-trainer-",
         "jobset.x-k8s.io/v1alpha2"},
        {"jobset.json", "spec.replicatedJobs[1].template.spec.completions", "null",
         "driver:1 workers:6", "jobset-trainer-", "jobset.x-k8s.io/v1alpha2"},
        {"jobset.json", "spec.replicatedJobs[1].template.spec.parallelism", "null",
         "driver:1 workers:2", "jobset-trainer-", "jobset.x-k8s.io/v1alpha2"},
        {"jobset.json", "spec.replicatedJobs[1].replicas", "0", "driver:1 workers:0",
         "jobset-trainer-", "jobset.x-k8s.io/v1alpha2"},
        {"jobset.json", "spec.replicatedJobs[0].replicas", "null", "driver:1 workers:4",
         "jobset-trainer-", "jobset.x-k8s.io/v1alpha2"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cJSON *job = load(cases[i].file, cases[i].path, cases[i].value);
        struct ts_workload wl;
        struct ts_err err = {0};
        char got[256];

        if (build(job, &wl, &err))
            fail_msg("%s %s: %s", cases[i].file, cases[i].path ? cases[i].path : "", err.msg);
        podsets_of(&wl, got, sizeof(got));
        if (strcmp(got, cases[i].want))
            fail_msg("%s %s: pod sets %s, want %s", cases[i].file,
                     cases[i].path ? cases[i].path : "", got, cases[i].want);
        assert_int_equal(strncmp(wl.meta.name, cases[i].wl_prefix, strlen(cases[i].wl_prefix)), 0);
        assert_string_equal(wl.meta.owner_refs[0].api_version, cases[i].owner_api);
        assert_string_equal(wl.meta.owner_refs[0].kind, ts_json_get_string(job, "kind"));
        assert_string_equal(wl.spec.queue_name, "lq");
        ts_workload_release(&wl);
        cJSON_Delete(job);
    }
}

/* A JobSet Kueue could not count is refused with the field named. */
static void test_jobset_errors(void **state)
{
    static const struct {
        const char *path, *value, *want;
    } cases[] = {
        {"spec.replicatedJobs[1].replicas", "-1",
         "spec.replicatedJobs[1].replicas: Invalid value: \"-1\": must be greater than or equal "
         "to 0"},
        {"spec.replicatedJobs[0].template.spec.parallelism", "-2",
         "spec.replicatedJobs[0].template.spec.parallelism: Invalid value: \"-2\""},
        {"spec.replicatedJobs[1].replicas", "2147483647",
         "JobSet \"trainer\": spec.replicatedJobs[1]: Invalid value: 2147483647 replicas of 2 "
         "pods do not fit an int32"},
        {"spec.replicatedJobs[0].name", "null", "spec.replicatedJobs[0].name: Required value"},
        {"spec.replicatedJobs[0]", "3", "spec.replicatedJobs[0]: Invalid value"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cJSON *job = load("jobset.json", cases[i].path, cases[i].value);
        struct ts_workload wl;
        struct ts_err err = {0};

        if (build(job, &wl, &err) != TS_EINVAL || !strstr(err.msg, cases[i].want))
            fail_msg("%s=%s: got \"%s\", want \"%s\"", cases[i].path, cases[i].value, err.msg,
                     cases[i].want);
        ts_workload_release(&wl);
        cJSON_Delete(job);
    }
}

/* wl admitted to cq with flavor gpu for every pod set. */
static void admit(struct ts_workload *wl)
{
    wl->status.admission = ts_admission_new();
    free(wl->status.admission->cluster_queue);
    wl->status.admission->cluster_queue = ts_xstrdup("cq");
    for (size_t i = 0; i < wl->spec.n_podsets; i++) {
        struct ts_podset_assignment *pa =
            ts_admission_add(wl->status.admission, wl->spec.podsets[i].name);

        ts_strmap_set(&pa->flavors, "cpu", "gpu");
        pa->count.set = 1;
        pa->count.v = wl->spec.podsets[i].count;
    }
    ts_conditions_set(&wl->status.conditions, TS_WL_COND_QUOTA_RESERVED, "True", "QuotaReserved",
                      "Quota reserved in ClusterQueue cq", 1, NOW);
    ts_conditions_set(&wl->status.conditions, TS_WL_COND_ADMITTED, "True", "Admitted",
                      "The workload is admitted", 1, NOW);
}

static const char *at(const cJSON *job, const char *path)
{
    const char *v = ts_json_get_string(job, path);

    return v ? v : "(none)";
}

/* Start injects every template (found where the kind keeps it) and
 * unsuspends; stop gives the job back exactly as submitted. */
static void test_start_stop(void **state)
{
    static const struct {
        const char *file, *suspend;
        const char *tmpl[3]; /* the pod templates, in pod set order */
        const char *podset[3];
    } cases[] = {
        {"xgboostjob.json",
         "spec.runPolicy.suspend",
         {"spec.xgbReplicaSpecs.Master.template", "spec.xgbReplicaSpecs.Worker.template"},
         {"master", "worker"}},
        {"paddlejob.json",
         "spec.runPolicy.suspend",
         {"spec.paddleReplicaSpecs.Master.template", "spec.paddleReplicaSpecs.Worker.template"},
         {"master", "worker"}},
        {"jaxjob.json",
         "spec.runPolicy.suspend",
         {"spec.jaxReplicaSpecs.Worker.template"},
         {"worker"}},
        {"jobset.json",
         "spec.suspend",
         {"spec.replicatedJobs[0].template.spec.template",
          "spec.replicatedJobs[1].template.spec.template"},
         {"driver", "workers"}},
    };

    (void)state;
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        cJSON *job = load(cases[c].file, NULL, NULL), *orig = cJSON_Duplicate(job, 1);
        const struct ts_jobkind *k = ts_jobkind_of(job);
        struct ts_workload wl;
        struct ts_err err = {0};
        char path[300];
        int changed = 0;

        assert_non_null(k);
        assert_int_equal(build(job, &wl, &err), 0);
        admit(&wl);
        assert_true(ts_jobkind_is_suspended(k, job));
        assert_int_equal(ts_jobkind_start(k, job, &wl, lookup, NULL, &err), 0);
        assert_true(cJSON_IsFalse(ts_json_get(job, cases[c].suspend)));
        for (size_t i = 0; i < 3 && cases[c].tmpl[i]; i++) {
            snprintf(path, sizeof(path), "%s.spec.nodeSelector[instance-type]", cases[c].tmpl[i]);
            if (strcmp(at(job, path), "gpu"))
                fail_msg("%s: %s is %s", cases[c].file, path, at(job, path));
            snprintf(path, sizeof(path), "%s.spec.tolerations[0].key", cases[c].tmpl[i]);
            assert_string_equal(at(job, path), "gpu");
            snprintf(path, sizeof(path), "%s.metadata.labels[kueue.x-k8s.io/podset]",
                     cases[c].tmpl[i]);
            assert_string_equal(at(job, path), cases[c].podset[i]);
        }
        assert_int_equal(ts_jobkind_stop(k, job, &wl, &changed, &err), 0);
        assert_true(changed);
        if (!ts_json_equal(job, orig))
            fail_msg("%s: restored job differs: %s", cases[c].file, ts_json_dumps(job, 0));
        ts_workload_release(&wl);
        cJSON_Delete(job);
        cJSON_Delete(orig);
    }
}

static const struct ts_jobplan_env env = {
    .flavor = lookup, .backoff_base_s = 60, .backoff_max_s = 3600};

/* A JobSet through the reconciler: a Workload on creation (and suspend
 * when it slipped past the webhook), start, finish from its Completed or
 * Failed condition, and an eviction taken in one write. */
static void test_plan_jobset(void **state)
{
    cJSON *job = load("jobset.json", "spec.suspend", "false");
    struct ts_workload wl;
    struct ts_jobplan p;
    struct ts_err err = {0};

    (void)state;
    ts_jobplan_init(&p);
    assert_int_equal(ts_jobplan_make(job, NULL, &env, NOW, &p, &err), 0);
    assert_int_equal(p.ops, TS_JOBPLAN_CREATE_WORKLOAD | TS_JOBPLAN_UPDATE_JOB);
    assert_true(cJSON_IsTrue(ts_json_get(p.job, "spec.suspend")));
    assert_int_equal(p.workload.spec.podsets[1].count, 4);
    ts_workload_init(&wl);
    ts_workload_copy(&wl, &p.workload);
    admit(&wl);
    cJSON_ReplaceItemInObjectCaseSensitive(ts_json_get(job, "spec"), "suspend", cJSON_CreateTrue());
    assert_int_equal(ts_jobplan_make(job, &wl, &env, NOW, &p, &err), 0);
    assert_int_equal(p.ops, TS_JOBPLAN_UPDATE_JOB);
    assert_string_equal(p.event_reason, "Started");
    assert_string_equal(at(p.job, "spec.replicatedJobs[1].template.spec.template.spec."
                                  "nodeSelector[instance-type]"),
                        "gpu");
    cJSON_Delete(job);
    job = cJSON_Duplicate(p.job, 1);
    /* evicted while its jobs run: suspended and restored in one write */
    assert_int_equal(ts_json_set(job, "status",
                                 cJSON_Parse("{\"replicatedJobsStatus\":[{\"name\":"
                                             "\"workers\",\"active\":2}]}"),
                                 NULL),
                     0);
    ts_conditions_set(&wl.status.conditions, TS_WL_COND_EVICTED, "True", "Preempted",
                      "Preempted to accommodate a workload", 1, NOW);
    assert_int_equal(ts_jobplan_make(job, &wl, &env, NOW, &p, &err), 0);
    assert_int_equal(p.ops, TS_JOBPLAN_UPDATE_JOB); /* jobs still active: quota kept */
    assert_true(cJSON_IsTrue(ts_json_get(p.job, "spec.suspend")));
    assert_null(ts_json_get(p.job, "spec.replicatedJobs[1].template.spec.template.spec."
                                   "nodeSelector"));
    cJSON_Delete(job);
    job = cJSON_Duplicate(p.job, 1);
    assert_int_equal(
        ts_json_set(job, "status.replicatedJobsStatus[0].active", cJSON_CreateNumber(0), NULL), 0);
    assert_int_equal(ts_jobplan_make(job, &wl, &env, NOW, &p, &err), 0);
    assert_int_equal(p.ops, TS_JOBPLAN_WORKLOAD_STATUS); /* stopped: the quota goes */
    assert_null(p.workload.status.admission);
    /* finished: Completed (Succeeded) or Failed, with the condition's message */
    ts_conditions_remove(&wl.status.conditions, TS_WL_COND_EVICTED);
    for (int failed = 0; failed < 2; failed++) {
        char st[200];

        snprintf(st, sizeof(st),
                 "{\"conditions\":[{\"type\":\"%s\",\"status\":\"True\",\"message\":\"m%d\"}]}",
                 failed ? "Failed" : "Completed", failed);
        assert_int_equal(ts_json_set(job, "status", cJSON_Parse(st), NULL), 0);
        assert_int_equal(ts_jobplan_make(job, &wl, &env, NOW, &p, &err), 0);
        assert_int_equal(p.ops, TS_JOBPLAN_WORKLOAD_STATUS);
        assert_string_equal(ts_conditions_find(&p.workload.status.conditions, "Finished")->reason,
                            failed ? "Failed" : "Succeeded");
        assert_string_equal(ts_conditions_find(&p.workload.status.conditions, "Finished")->message,
                            failed ? "m1" : "m0");
    }
    ts_workload_release(&wl);
    ts_jobplan_release(&p);
    cJSON_Delete(job);
}

/* The owners the reconciler can see: kind JobSet is managed, its
 * "trainer" has a queue name, "plain" has none, "gone" is not cached;
 * JAXJobs are not managed (not a framework). */
static cJSON *owner(void *ctx, const struct ts_jobkind *k, const char *ns, const char *name,
                    int *on)
{
    (void)ctx;
    assert_string_equal(ns, "team-a");
    *on = !strcmp(k->res.kind, "JobSet") || !strcmp(k->res.kind, "Job");
    if (!*on || !strcmp(name, "gone"))
        return NULL;
    if (!strcmp(name, "plain"))
        return cJSON_Parse("{\"metadata\":{\"name\":\"plain\",\"labels\":{"
                           "\"kueue.x-k8s.io/queue-name\":\"\"}}}");
    return cJSON_Parse("{\"metadata\":{\"name\":\"trainer\",\"labels\":{"
                       "\"kueue.x-k8s.io/queue-name\":\"lq\"}}}");
}

/* Kueue's IsOwnerManagedByKueue/FindAncestorJobManagedByKueue: a Job whose
 * controller is a managed job with a queue name gets no Workload. */
static void test_owner_managed(void **state)
{
    static const struct {
        const char *name, *ref;
        int manage_without_queue;
        unsigned want;
    } cases[] = {
        {"owned by a JobSet with a queue name",
         "{\"apiVersion\":\"jobset.x-k8s.io/v1alpha2\",\"kind\":\"JobSet\",\"name\":\"trainer\","
         "\"uid\":\"1\",\"controller\":true}",
         0, 0},
        {"owned by a batch Job with a queue name",
         "{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"name\":\"trainer\",\"uid\":\"1\","
         "\"controller\":true}",
         0, 0},
        {"owner not cached yet",
         "{\"apiVersion\":\"jobset.x-k8s.io/v1alpha2\",\"kind\":\"JobSet\",\"name\":\"gone\","
         "\"uid\":\"1\",\"controller\":true}",
         0, 0},
        {"owner without a queue name: the job is top level",
         "{\"apiVersion\":\"jobset.x-k8s.io/v1alpha2\",\"kind\":\"JobSet\",\"name\":\"plain\","
         "\"uid\":\"1\",\"controller\":true}",
         0, TS_JOBPLAN_CREATE_WORKLOAD},
        {"owner without a queue name, manageJobsWithoutQueueName",
         "{\"apiVersion\":\"jobset.x-k8s.io/v1alpha2\",\"kind\":\"JobSet\",\"name\":\"plain\","
         "\"uid\":\"1\",\"controller\":true}",
         1, 0},
        {"owner kind not managed",
         "{\"apiVersion\":\"kubeflow.org/v1\",\"kind\":\"JAXJob\",\"name\":\"trainer\","
         "\"uid\":\"1\",\"controller\":true}",
         0, TS_JOBPLAN_CREATE_WORKLOAD},
        {"owner not a job kind",
         "{\"apiVersion\":\"batch/v1\",\"kind\":\"CronJob\",\"name\":\"trainer\",\"uid\":\"1\","
         "\"controller\":true}",
         0, TS_JOBPLAN_CREATE_WORKLOAD},
        {"a JobSet owner of another group",
         "{\"apiVersion\":\"example.com/v1\",\"kind\":\"JobSet\",\"name\":\"trainer\","
         "\"uid\":\"1\",\"controller\":true}",
         0, TS_JOBPLAN_CREATE_WORKLOAD},
        {"not the controller",
         "{\"apiVersion\":\"jobset.x-k8s.io/v1alpha2\",\"kind\":\"JobSet\",\"name\":\"trainer\","
         "\"uid\":\"1\"}",
         0, TS_JOBPLAN_CREATE_WORKLOAD},
    };
    static const char job_json[] =
        "{\"apiVersion\":\"batch/"
        "v1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"trainer-workers-0\","
        "\"namespace\":\"team-a\",\"uid\":\"u2\",\"labels\":{\"kueue.x-k8s.io/"
        "queue-name\":\"lq\"}},"
        "\"spec\":{\"suspend\":true,\"template\":{\"spec\":{\"restartPolicy\":\"Never\","
        "\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]}}}}";

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cJSON *job = cJSON_Parse(job_json), *refs = cJSON_CreateArray();
        struct ts_jobplan_env e = env;
        struct ts_jobplan p;
        struct ts_err err = {0};

        e.owner = owner;
        e.manage_jobs_without_queue_name = cases[i].manage_without_queue;
        cJSON_AddItemToArray(refs, cJSON_Parse(cases[i].ref));
        assert_int_equal(ts_json_set(job, "metadata.ownerReferences", refs, NULL), 0);
        ts_jobplan_init(&p);
        assert_int_equal(ts_jobplan_make(job, NULL, &e, NOW, &p, &err), 0);
        if (p.ops != cases[i].want)
            fail_msg("%s: ops %u, want %u", cases[i].name, p.ops, cases[i].want);
        ts_jobplan_release(&p);
        cJSON_Delete(job);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_podsets),       cmocka_unit_test(test_jobset_errors),
        cmocka_unit_test(test_start_stop),    cmocka_unit_test(test_plan_jobset),
        cmocka_unit_test(test_owner_managed),
    };

    ts_alloc_init();
    return cmocka_run_group_tests_name("controller_kinds", tests, setup, teardown);
}
