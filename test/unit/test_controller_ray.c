/* Tests for KubeRay's RayJob and RayCluster (api/rayjob.c, the Ray rows of
 * controller/jobkind.c, jobkind_ray.c, jobplan.c): the pod sets Kueue
 * builds (head, worker groups with replicas x numOfHosts, the submitter),
 * what Kueue reads of the status (finished, active, pods ready), start
 * injecting every template and stop restoring them, and the jobs Kueue
 * leaves alone (a RayJob on an existing cluster, a RayJob's RayCluster). */
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

#include "jobkind_test.h"

#define TMPL(img, cpu)                                                                             \
    "{'spec':{'containers':[{'name':'c','image':'" img "','resources':{'requests':{'cpu':'" cpu    \
    "'}}}]}}"
#define META                                                                                       \
    "'metadata':{'name':'r','namespace':'ns','uid':'u1','labels':{'kueue.x-k8s.io/"                \
    "queue-name':'lq'}}"
#define HEAD               "'headGroupSpec':{'template':" TMPL("ray:2.9", "1") "}"
#define CLUSTER(workers)   "{" HEAD ",'workerGroupSpecs':[" workers "]}"
#define GROUP(name, extra) "{'groupName':'" name "'" extra ",'template':" TMPL("ray:2.9", "2") "}"
#define RAYJOB(extra, workers)                                                                     \
    "{'apiVersion':'ray.io/v1','kind':'RayJob'," META                                              \
    ",'spec':{'shutdownAfterJobFinishes':true" extra ",'rayClusterSpec':" CLUSTER(workers) "}}"
#define RAYCLUSTER(workers)                                                                        \
    "{'apiVersion':'ray.io/v1','kind':'RayCluster'," META ",'spec':" CLUSTER(workers) "}"

/* PriorityClass "high" (100) exists. */
static int pc(void *ctx, const char *name, int32_t *value)
{
    (void)ctx;
    *value = 100;
    return !strcmp(name, "high");
}

static const struct ts_priority_lookup prio = {NULL, pc, NULL, NULL};

/* The Workload of a Ray job: 0 or the error code. */
static int build(const char *text, struct ts_workload *wl, struct ts_err *err)
{
    cJSON *obj = jk_json(text);
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_object o;
    int rc;

    assert_int_equal(ts_object_decode(obj, &o, &errs, err), 0);
    assert_true(TS_KIND_IS_RAY(o.kind));
    assert_int_equal(errs.n, 0);
    ts_workload_init(wl);
    rc = ts_jobworkload_from_ray(&o.u.ray, &prio, wl, err);
    ts_object_release(&o);
    cJSON_Delete(obj);
    return rc;
}

/* "name/count name/count ..." of wl's pod sets. */
static void podsets_text(const struct ts_workload *wl, struct ts_buf *b)
{
    for (size_t i = 0; i < wl->spec.n_podsets; i++)
        ts_buf_addf(b, "%s%s/%d", i ? " " : "", wl->spec.podsets[i].name,
                    (int)wl->spec.podsets[i].count);
}

static void test_podsets(void **state)
{
    static const struct {
        const char *name, *job, *want; /* want: pod sets, or the error */
        const char *wl_prefix;
    } cases[] = {
        {"raycluster: replicas absent counts 1, numOfHosts multiplies",
         RAYCLUSTER(GROUP("Small", "") "," GROUP("tpu", ",'replicas':3,'numOfHosts':2")),
         "head/1 small/1 tpu/6", "raycluster-r-"},
        {"raycluster: replicas 0, min/max replicas do not count",
         RAYCLUSTER(GROUP("w", ",'replicas':0,'minReplicas':2,'maxReplicas':9,'numOfHosts':1")),
         "head/1 w/0", "raycluster-r-"},
        {"rayjob K8sJobMode: the submitter last",
         RAYJOB(",'submissionMode':'K8sJobMode'", GROUP("g", ",'replicas':2")),
         "head/1 g/2 submitter/1", "rayjob-r-"},
        {"rayjob HTTPMode: no submitter", RAYJOB(",'submissionMode':'HTTPMode'", GROUP("g", "")),
         "head/1 g/1", "rayjob-r-"},
        {"rayjob without submissionMode (no CRD default): no submitter", RAYJOB("", ""), "head/1",
         "rayjob-r-"},
        {"rayjob without rayClusterSpec",
         "{'apiVersion':'ray.io/v1','kind':'RayJob'," META ",'spec':{}}",
         "RayJob: spec.rayClusterSpec: Required value", NULL},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct ts_buf b = TS_BUF_INIT;
        struct ts_workload wl;
        struct ts_err err = {0};
        int rc = build(cases[i].job, &wl, &err);

        if (rc)
            ts_buf_adds(&b, err.msg);
        else
            podsets_text(&wl, &b);
        if (strcmp(b.ptr, cases[i].want))
            fail_msg("%s: want %s, got %s", cases[i].name, cases[i].want, b.ptr);
        if (cases[i].wl_prefix &&
            strncmp(wl.meta.name, cases[i].wl_prefix, strlen(cases[i].wl_prefix)))
            fail_msg("%s: Workload name %s", cases[i].name, wl.meta.name);
        ts_buf_release(&b);
        ts_workload_release(&wl);
    }
}

/* The submitter: KubeRay's default (the head's image), or the RayJob's
 * template; the priority class is the first template's that has one. */
static void test_submitter_and_priority(void **state)
{
    struct ts_workload wl;
    struct ts_err err = {0};
    const struct ts_podset *ps;

    (void)state;
    assert_int_equal(build(RAYJOB(",'submissionMode':'K8sJobMode'", ""), &wl, &err), 0);
    ps = ts_workload_find_podset(&wl, "submitter");
    assert_non_null(ps);
    assert_string_equal(ts_json_get_string(ps->template.raw, "spec.containers[0].name"),
                        "ray-job-submitter");
    assert_string_equal(ts_json_get_string(ps->template.raw, "spec.containers[0].image"),
                        "ray:2.9");
    assert_string_equal(
        ts_json_get_string(ps->template.raw, "spec.containers[0].resources.requests.memory"),
        "200Mi");
    assert_string_equal(ts_json_get_string(ps->template.raw, "spec.restartPolicy"), "Never");
    assert_string_equal(wl.meta.owner_refs[0].api_version, "ray.io/v1");
    assert_string_equal(wl.meta.owner_refs[0].kind, "RayJob");
    ts_workload_release(&wl);

    assert_int_equal(
        build(RAYJOB(",'submissionMode':'K8sJobMode','submitterPodTemplate':" TMPL("submit:1", "3"),
                     GROUP("g", ",'template':{'spec':{'priorityClassName':'high'}}")),
              &wl, &err),
        0);
    ps = ts_workload_find_podset(&wl, "submitter");
    assert_string_equal(ts_json_get_string(ps->template.raw, "spec.containers[0].image"),
                        "submit:1");
    assert_string_equal(wl.spec.priority_class_ref.name, "high");
    assert_int_equal(wl.spec.priority.v, 100);
    ts_workload_release(&wl);
}

/* What Kueue reads of the status (Finished, IsActive, PodsReady). */
static void test_status(void **state)
{
    static const struct {
        const char *name, *status;
        int job; /* RayJob, else RayCluster */
        int finished, success, active, ready;
    } cases[] = {
        {"rayjob without status is active", "{}", 1, 0, 0, 1, 0},
        {"rayjob New", "{'jobDeploymentStatus':'New'}", 1, 0, 0, 0, 0},
        {"rayjob Suspended", "{'jobDeploymentStatus':'Suspended'}", 1, 0, 0, 0, 0},
        {"rayjob Running, cluster ready",
         "{'jobDeploymentStatus':'Running','jobStatus':'RUNNING','rayClusterStatus':{'state':"
         "'ready'}}",
         1, 0, 0, 1, 1},
        {"rayjob Complete SUCCEEDED", "{'jobDeploymentStatus':'Complete','jobStatus':'SUCCEEDED'}",
         1, 1, 1, 1, 0},
        {"rayjob Failed", "{'jobDeploymentStatus':'Failed','jobStatus':'FAILED'}", 1, 1, 0, 1, 0},
        {"rayjob SUCCEEDED still Running is not finished",
         "{'jobDeploymentStatus':'Running','jobStatus':'SUCCEEDED'}", 1, 0, 1, 1, 0},
        {"raycluster ready", "{'state':'ready'}", 0, 0, 0, 1, 1},
        {"raycluster failed never finishes", "{'state':'failed'}", 0, 0, 0, 0, 0},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
        cJSON *obj = jk_json(cases[i].job ? RAYJOB("", "") : RAYCLUSTER(""));
        struct ts_object o;
        int success = -1;

        cJSON_AddItemToObject(obj, "status", jk_json(cases[i].status));
        assert_int_equal(ts_object_decode(obj, &o, &errs, NULL), 0);
        if (ts_rayjob_is_finished(&o.u.ray, &success, NULL) != cases[i].finished ||
            (cases[i].finished && success != cases[i].success) ||
            ts_rayjob_is_active(&o.u.ray) != cases[i].active ||
            ts_rayjob_pods_ready(&o.u.ray) != cases[i].ready)
            fail_msg("%s: finished %d success %d active %d ready %d", cases[i].name,
                     ts_rayjob_is_finished(&o.u.ray, NULL, NULL), success,
                     ts_rayjob_is_active(&o.u.ray), ts_rayjob_pods_ready(&o.u.ray));
        ts_object_release(&o);
        ts_field_errors_release(&errs);
        cJSON_Delete(obj);
    }
}

/* Start injects every template the job holds (head, worker groups, its
 * own submitter) and unsuspends; stop suspends and restores the job as it
 * was submitted. */
static void test_start_stop(void **state)
{
    static const struct {
        const char *name, *job;
        const char *paths[4]; /* templates that get the flavor */
    } cases[] = {
        {"rayjob with its submitter template",
         RAYJOB(
             ",'suspend':true,'submissionMode':'K8sJobMode','submitterPodTemplate':" TMPL("s", "1"),
             GROUP("a", "") "," GROUP("B", "")),
         {"spec.rayClusterSpec.headGroupSpec.template",
          "spec.rayClusterSpec.workerGroupSpecs[0].template",
          "spec.rayClusterSpec.workerGroupSpecs[1].template", "spec.submitterPodTemplate"}},
        {"rayjob with KubeRay's default submitter: nothing to write for it",
         RAYJOB(",'suspend':true,'submissionMode':'K8sJobMode'", GROUP("a", "")),
         {"spec.rayClusterSpec.headGroupSpec.template",
          "spec.rayClusterSpec.workerGroupSpecs[0].template", NULL, NULL}},
        {"raycluster",
         "{'apiVersion':'ray.io/v1','kind':'RayCluster'," META ",'spec':{'suspend':true," HEAD
         ",'workerGroupSpecs':[" GROUP("a", "") "]}}",
         {"spec.headGroupSpec.template", "spec.workerGroupSpecs[0].template", NULL, NULL}},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cJSON *job = jk_json(cases[i].job), *orig = cJSON_Duplicate(job, 1);
        const struct ts_jobkind *k = ts_jobkind_of(job);
        struct ts_workload wl;
        struct ts_err err = {0};
        char path[160];
        int changed = 0;

        assert_non_null(k);
        assert_false(ts_jobkind_is_batch(k));
        assert_int_equal(build(cases[i].job, &wl, &err), 0);
        jk_admit(&wl);
        if (ts_jobkind_start(k, job, &wl, jk_lookup, NULL, &err))
            fail_msg("%s: start: %s", cases[i].name, err.msg);
        assert_false(ts_jobkind_is_suspended(k, job));
        for (size_t j = 0; j < 4 && cases[i].paths[j]; j++) {
            snprintf(path, sizeof(path), "%s.spec.nodeSelector.pool", cases[i].paths[j]);
            if (!ts_json_get_string(job, path) || strcmp(ts_json_get_string(job, path), "gpu"))
                fail_msg("%s: %s not injected", cases[i].name, path);
        }
        if (!strstr(cases[i].name, "its submitter") &&
            ts_json_get(job, "spec.submitterPodTemplate"))
            fail_msg("%s: a submitter template was written", cases[i].name);
        assert_int_equal(ts_jobkind_stop(k, job, &wl, &changed, &err), 0);
        assert_true(changed);
        if (!ts_json_equal(job, orig))
            fail_msg("%s: not restored as submitted", cases[i].name);
        ts_workload_release(&wl);
        cJSON_Delete(job);
        cJSON_Delete(orig);
    }
}

/* Kueue leaves alone a RayJob on an existing cluster (Skip) and the
 * RayCluster a RayJob made (its owner's Workload covers it); a plain RayJob
 * gets its Workload. */
/* The owner lookup of the reconciler: every kind on, nothing cached (an
 * owner not cached yet counts as managed). */
static cJSON *owner_not_cached(void *ctx, const struct ts_jobkind *k, const char *ns,
                               const char *name, int *on)
{
    (void)ctx, (void)k, (void)ns, (void)name;
    *on = 1;
    return NULL;
}

static void test_plan_skips(void **state)
{
    static const struct {
        const char *name, *job;
        unsigned ops;
    } cases[] = {
        {"rayjob: Workload created", RAYJOB(",'suspend':true", ""), TS_JOBPLAN_CREATE_WORKLOAD},
        {"rayjob not suspended: suspended too", RAYJOB("", ""),
         TS_JOBPLAN_CREATE_WORKLOAD | TS_JOBPLAN_UPDATE_JOB},
        {"rayjob with clusterSelector: skipped",
         RAYJOB(",'clusterSelector':{'ray.io/cluster':'c'}", ""), 0},
        {"raycluster owned by a rayjob: skipped",
         "{'apiVersion':'ray.io/v1','kind':'RayCluster','metadata':{'name':'r','namespace':'ns',"
         "'uid':'u2','labels':{'kueue.x-k8s.io/queue-name':'lq'},'ownerReferences':[{"
         "'apiVersion':'ray.io/v1','kind':'RayJob','name':'rj','uid':'u1','controller':true}]},"
         "'spec':" CLUSTER("") "}",
         0},
    };
    struct ts_jobplan_env env;

    (void)state;
    memset(&env, 0, sizeof(env));
    env.flavor = jk_lookup;
    env.owner = owner_not_cached;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cJSON *job = jk_json(cases[i].job);
        struct ts_jobplan p;
        struct ts_err err = {0};

        ts_jobplan_init(&p);
        assert_int_equal(ts_jobplan_make(job, NULL, &env, 0, &p, &err), 0);
        if (p.ops != cases[i].ops)
            fail_msg("%s: ops %#x, want %#x", cases[i].name, p.ops, cases[i].ops);
        ts_jobplan_release(&p);
        cJSON_Delete(job);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_podsets),    cmocka_unit_test(test_submitter_and_priority),
        cmocka_unit_test(test_status),     cmocka_unit_test(test_start_stop),
        cmocka_unit_test(test_plan_skips),
    };

    ts_alloc_init();
    return cmocka_run_group_tests(tests, jk_setup, jk_teardown);
}
