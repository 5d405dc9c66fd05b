/* Tests for Kubeflow Trainer's TrainJob (api/trainjob.c,
 * trainjob_jobset.c, the TrainJob row of controller/jobkind.c,
 * jobkind_trainjob.c, jobplan.c): the pod sets Kueue builds from the
 * runtime and the TrainJob's overrides, what Kueue reads of the status,
 * start through Kueue's runtime patch in two writes and stop restoring it,
 * and the plans (a missing runtime, a stop in steps). */
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

#define CONT(name, cpu)                                                                            \
    "{'name':'" name "','image':'img','resources':{'requests':{'cpu':'" cpu "'}}}"
/* a replicated job: name, ancestor label, extra job spec, containers */
#define RJ(name, anc, extra, conts)                                                                \
    "{'name':'" name "','template':{'metadata':{'labels':{'trainer.kubeflow.org/"                  \
    "trainjob-ancestor-step':'" anc "'}},'spec':{" extra                                           \
    "'template':{'spec':{'containers':[" conts "]}}}}}"
#define RUNTIME(policy, rjs)                                                                       \
    "{'apiVersion':'trainer.kubeflow.org/v1alpha1','kind':'ClusterTrainingRuntime','metadata':{"   \
    "'name':'rt'},'spec':{" policy "'template':{'spec':{'replicatedJobs':[" rjs "]}}}}"
#define TORCH_RJS                                                                                  \
    RJ("dataset-initializer", "dataset-initializer", "", CONT("dataset-initializer", "100m"))      \
    "," RJ("node", "trainer", "", CONT("node", "1"))
#define TRAINJOB(spec)                                                                             \
    "{'apiVersion':'trainer.kubeflow.org/v1alpha1','kind':'TrainJob','metadata':{'name':'tj',"     \
    "'namespace':'ns','uid':'u1','labels':{'kueue.x-k8s.io/queue-name':'lq'}},'spec':{"            \
    "'runtimeRef':{'name':'rt'}" spec "}}"
#define KUEUE_PATCH                                                                                \
    ",'runtimePatches':[{'manager':'kueue.x-k8s.io/manager','trainingRuntimeSpec':{'template':{"   \
    "'spec':{}}}}]"

/* The TrainJob decoded and resolved with runtime text (NULL: missing). */
static int decode(const char *job, const char *runtime, struct ts_object *o, struct ts_err *err)
{
    cJSON *obj = jk_json(job), *rt = runtime ? jk_json(runtime) : NULL;
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    int rc;

    assert_int_equal(ts_object_decode(obj, o, &errs, NULL), 0);
    assert_int_equal(o->kind, TS_KIND_TRAINJOB);
    assert_int_equal(errs.n, 0);
    rc = ts_trainjob_resolve(&o->u.trainjob, rt, err);
    cJSON_Delete(obj);
    cJSON_Delete(rt);
    return rc;
}

static int build(const char *job, const char *runtime, struct ts_workload *wl, struct ts_err *err)
{
    struct ts_object o;
    int rc;

    ts_workload_init(wl);
    decode(job, runtime, &o, err);
    rc = ts_jobworkload_from_object(&o, NULL, wl, err);
    ts_object_release(&o);
    return rc;
}

/* "name/count ..." of wl's pod sets, then "|" and the value at `path` in
 * the encoded Workload when path is set. */
static void podsets_text(const struct ts_workload *wl, const char *path, struct ts_buf *b)
{
    for (size_t i = 0; i < wl->spec.n_podsets; i++)
        ts_buf_addf(b, "%s%s/%d", i ? " " : "", wl->spec.podsets[i].name,
                    (int)wl->spec.podsets[i].count);
    if (path) {
        cJSON *enc = ts_workload_encode(wl);
        const cJSON *v = ts_json_get(enc, path);
        char *s = v ? cJSON_PrintUnformatted(v) : NULL;

        ts_buf_addf(b, "|%s", s ? s : "(none)");
        free(s);
        cJSON_Delete(enc);
    }
}

static void test_podsets(void **state)
{
    static const struct {
        const char *name, *job, *runtime, *path, *want; /* want: pod sets, or the error */
    } cases[] = {
        {"torch: the runtime's numNodes", TRAINJOB(""),
         RUNTIME("'mlPolicy':{'numNodes':2,'torch':{}},", TORCH_RJS), NULL,
         "dataset-initializer/1 node/2"},
        {"torch: trainer.numNodes wins", TRAINJOB(",'trainer':{'numNodes':4}"),
         RUNTIME("'mlPolicy':{'numNodes':2,'torch':{}},", TORCH_RJS), NULL,
         "dataset-initializer/1 node/4"},
        {"no mlPolicy: the trainer job's parallelism, then numNodes", TRAINJOB(""),
         RUNTIME("", RJ("node", "trainer", "'parallelism':3,", CONT("node", "1"))), NULL, "node/3"},
        {"no mlPolicy: trainer.numNodes", TRAINJOB(",'trainer':{'numNodes':5}"),
         RUNTIME("", RJ("node", "trainer", "'parallelism':3,", CONT("node", "1"))), NULL, "node/5"},
        {"mpi: numNodes counts the job named node", TRAINJOB(",'trainer':{'numNodes':3}"),
         RUNTIME("'mlPolicy':{'numNodes':1,'mpi':{}},",
                 RJ("launcher", "trainer", "", CONT("node", "1")) "," RJ("node", "x", "",
                                                                         CONT("node", "1"))),
         NULL, "launcher/1 node/3"},
        {"mpi runLauncherAsNode: one node fewer", TRAINJOB(",'trainer':{'numNodes':3}"),
         RUNTIME("'mlPolicy':{'numNodes':1,'mpi':{'runLauncherAsNode':true}},",
                 RJ("launcher", "trainer", "", CONT("node", "1")) "," RJ("node", "x", "",
                                                                         CONT("node", "1"))),
         NULL, "launcher/1 node/2"},
        {"another job: replicas x parallelism", TRAINJOB(""),
         RUNTIME("", "{'name':'aux','replicas':2,'template':{'spec':{'parallelism':3,"
                     "'template':{'spec':{'containers':[" CONT("a", "1") "]}}}}}"),
         NULL, "aux/6"},
        {"resourcesPerNode replaces the node container's resources",
         TRAINJOB(",'trainer':{'resourcesPerNode':{'requests':{'cpu':'3'}}}"),
         RUNTIME("'mlPolicy':{'torch':{}},", TORCH_RJS),
         "spec.podSets[1].template.spec.containers[0].resources",
         "dataset-initializer/1 node/1|{\"requests\":{\"cpu\":\"3\"}}"},
        {"trainer image, command and env on the node container",
         TRAINJOB(",'trainer':{'image':'mine','command':['run'],'env':[{'name':'A','value':'1'}]}"),
         RUNTIME("'mlPolicy':{'torch':{}},", TORCH_RJS),
         "spec.podSets[1].template.spec.containers[0]",
         "dataset-initializer/1 node/1|{\"name\":\"node\",\"image\":\"mine\",\"resources\":{"
         "\"requests\":{\"cpu\":\"1\"}},\"command\":[\"run\"],\"env\":[{\"name\":\"A\",\"value\":"
         "\"1\"}]}"},
        {"the dataset initializer gets STORAGE_URI",
         TRAINJOB(",'initializer':{'dataset':{'storageUri':'hf://d'}}"),
         RUNTIME("'mlPolicy':{'torch':{}},", TORCH_RJS),
         "spec.podSets[0].template.spec.containers[0].env",
         "dataset-initializer/1 node/1|[{\"name\":\"STORAGE_URI\",\"value\":\"hf://d\"}]"},
        {"runtime patches merge into the templates (nodeSelector, containers by name)",
         TRAINJOB(
             ",'runtimePatches':[{'manager':'example.com/m','trainingRuntimeSpec':{'template':{"
             "'spec':{'replicatedJobs':[{'name':'node','template':{'spec':{'template':{"
             "'spec':{'nodeSelector':{'zone':'a'},'containers':[{'name':'node','env':[{"
             "'name':'B','value':'2'}]}]}}}}}]}}}}]"),
         RUNTIME("'mlPolicy':{'torch':{}},", TORCH_RJS), "spec.podSets[1].template.spec",
         "dataset-initializer/1 node/1|{\"containers\":[{\"name\":\"node\",\"image\":\"img\","
         "\"resources\":{\"requests\":{\"cpu\":\"1\"}},\"env\":[{\"name\":\"B\",\"value\":"
         "\"2\"}]}],\"nodeSelector\":{\"zone\":\"a\"}}"},
        {"coscheduling: the pod-group label", TRAINJOB(""),
         RUNTIME("'podGroupPolicy':{'coscheduling':{}},",
                 RJ("node", "trainer", "", CONT("node", "1"))),
         "spec.podSets[0].template.metadata.labels",
         "node/1|{\"scheduling.x-k8s.io/pod-group\":\"tj\"}"},
        {"a missing runtime", TRAINJOB(""), NULL, NULL, "runtime 'rt' not found"},
        {"an unsupported runtime kind",
         "{'apiVersion':'trainer.kubeflow.org/v1alpha1','kind':'TrainJob','metadata':{'name':'tj',"
         "'namespace':'ns'},'spec':{'runtimeRef':{'name':'rt','kind':'Foo'}}}",
         RUNTIME("", TORCH_RJS), NULL, "unsupported runtime: Foo.trainer.kubeflow.org"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct ts_buf b = TS_BUF_INIT;
        struct ts_workload wl;
        struct ts_err err = {0};
        int rc = build(cases[i].job, cases[i].runtime, &wl, &err);

        if (rc)
            ts_buf_adds(&b, err.msg);
        else
            podsets_text(&wl, cases[i].path, &b);
        if (strcmp(b.ptr, cases[i].want))
            fail_msg("%s: got '%s', want '%s'", cases[i].name, b.ptr, cases[i].want);
        if (!rc && strncmp(wl.meta.name, "trainjob-tj-", 12))
            fail_msg("%s: workload name %s", cases[i].name, wl.meta.name);
        ts_buf_release(&b);
        ts_workload_release(&wl);
    }
}

static void test_status(void **state)
{
    static const struct {
        const char *name, *status;
        int finished, success, active, ready;
    } cases[] = {
        {"no status", "{}", 0, 0, 0, 0},
        /* JobSet counts jobs: each replicated job is one job here */
        {"running, both jobs ready or succeeded",
         "{'jobsStatus':[{'name':'dataset-initializer','succeeded':1},{'name':'node','active':1,"
         "'ready':1}]}",
         0, 0, 1, 1},
        {"running, 1 of 2 jobs ready", "{'jobsStatus':[{'name':'node','active':1,'ready':1}]}", 0,
         0, 1, 0},
        {"Complete",
         "{'conditions':[{'type':'Complete','status':'True','message':'done'}],'jobsStatus':[{"
         "'name':'node','succeeded':2}]}",
         1, 1, 0, 1},
        {"Failed", "{'conditions':[{'type':'Failed','status':'True'}]}", 1, 0, 0, 0},
        {"Complete False is not finished", "{'conditions':[{'type':'Complete','status':'False'}]}",
         0, 0, 0, 0},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cJSON *obj = jk_json(TRAINJOB(",'trainer':{'numNodes':2}"));
        cJSON *rt = jk_json(RUNTIME("'mlPolicy':{'torch':{}},", TORCH_RJS));
        struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
        struct ts_object o;
        int success = -1;

        cJSON_AddItemToObject(obj, "status", jk_json(cases[i].status));
        assert_int_equal(ts_object_decode(obj, &o, &errs, NULL), 0);
        assert_int_equal(ts_trainjob_resolve(&o.u.trainjob, rt, NULL), 0);
        if (ts_trainjob_is_finished(&o.u.trainjob, &success, NULL) != cases[i].finished ||
            (cases[i].finished && success != cases[i].success) ||
            ts_trainjob_is_active(&o.u.trainjob) != cases[i].active ||
            ts_trainjob_pods_ready(&o.u.trainjob) != cases[i].ready)
            fail_msg("%s: finished %d success %d active %d ready %d", cases[i].name,
                     ts_trainjob_is_finished(&o.u.trainjob, NULL, NULL), success,
                     ts_trainjob_is_active(&o.u.trainjob), ts_trainjob_pods_ready(&o.u.trainjob));
        ts_object_release(&o);
        ts_field_errors_release(&errs);
        cJSON_Delete(obj);
        cJSON_Delete(rt);
    }
}

/* Start writes Kueue's patch first (still suspended), then unsuspends;
 * the pod sets of the patched TrainJob carry the flavor; stop suspends
 * and drops the patch's replicated jobs. */
static void test_start_stop(void **state)
{
    static const struct {
        const char *name, *job;
    } cases[] = {
        {"with Kueue's patch entry", TRAINJOB(",'suspend':true" KUEUE_PATCH)},
        {"without it (created without the webhook): added",
         TRAINJOB(",'suspend':true,'runtimePatches':[{'manager':'example.com/m'}]")},
    };
    const char *rt = RUNTIME("'mlPolicy':{'torch':{}},", TORCH_RJS);

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cJSON *job = jk_json(cases[i].job), *orig = cJSON_Duplicate(job, 1), *after;
        const struct ts_jobkind *k = ts_jobkind_of(job);
        struct ts_workload wl, started;
        struct ts_err err = {0};
        char *text;
        int changed = 0;

        assert_non_null(k);
        assert_true(ts_jobkind_stops_in_steps(k));
        assert_int_equal(build(cases[i].job, rt, &wl, &err), 0);
        jk_admit(&wl);
        if (ts_jobkind_start(k, job, &wl, jk_lookup, NULL, &err))
            fail_msg("%s: start: %s", cases[i].name, err.msg);
        if (!ts_jobkind_is_suspended(k, job))
            fail_msg("%s: unsuspended with the patch's first write", cases[i].name);
        after = cJSON_Duplicate(job, 1);
        assert_int_equal(ts_jobkind_start(k, job, &wl, jk_lookup, NULL, &err), 0);
        if (ts_jobkind_is_suspended(k, job))
            fail_msg("%s: still suspended once the patch was written", cases[i].name);
        ts_jobkind_set_suspend(k, after, 0);
        if (!ts_json_equal(job, after))
            fail_msg("%s: the second write changed more than suspend", cases[i].name);
        text = cJSON_PrintUnformatted(ts_trainjob_json_patch(job, TS_TRAINJOB_PATCH_MANAGER));
        assert_non_null(strstr(text, "{\"name\":\"node\",\"template\":{\"spec\":{\"template\":{"));
        assert_non_null(strstr(text, "\"nodeSelector\":{\"pool\":\"gpu\"}"));
        assert_non_null(strstr(text, "\"kueue.x-k8s.io/podset\":\"dataset-initializer\""));
        free(text);
        /* the Trainer merges the patch: the pod sets now carry the flavor */
        text = cJSON_PrintUnformatted(job);
        assert_int_equal(build(text, rt, &started, &err), 0);
        free(text);
        assert_string_equal(ts_strmap_get(&started.spec.podsets[1].template.node_selector, "pool"),
                            "gpu");
        assert_int_equal(ts_jobkind_stop(k, job, &wl, &changed, &err), 0);
        assert_true(changed);
        if (i == 0 && !ts_json_equal(job, orig))
            fail_msg("%s: not restored as submitted", cases[i].name);
        assert_null(ts_json_get(ts_trainjob_json_patch(job, TS_TRAINJOB_PATCH_MANAGER),
                                "trainingRuntimeSpec.template.spec.replicatedJobs"));
        assert_int_equal(ts_jobkind_stop(k, job, &wl, &changed, &err), 0);
        assert_false(changed);
        ts_workload_release(&wl);
        ts_workload_release(&started);
        cJSON_Delete(job);
        cJSON_Delete(after);
        cJSON_Delete(orig);
    }
}

static const char *runtime_text;

static cJSON *runtime_of(void *ctx, int cluster, const char *ns, const char *name)
{
    (void)ctx, (void)ns;
    assert_int_equal(cluster, 1);
    assert_string_equal(name, "rt");
    return runtime_text ? jk_json(runtime_text) : NULL;
}

/* The plans: a missing runtime creates nothing and says why; with it, the
 * Workload; an evicted running TrainJob is suspended alone first, then
 * restored once none of its jobs is active. */
static void test_plan(void **state)
{
    static const struct {
        const char *name, *job;
        int runtime, evicted;
        unsigned ops;
        const char *event;   /* "reason: message" */
        const char *patched; /* the planned job's kueue patch replicatedJobs, or NULL: none */
    } cases[] = {
        {"missing runtime: no Workload, a Warning", TRAINJOB(",'suspend':true" KUEUE_PATCH), 0, 0,
         0, "ErrWorkloadCompose: runtime 'rt' not found", NULL},
        {"with its runtime: the Workload", TRAINJOB(",'suspend':true" KUEUE_PATCH), 1, 0,
         TS_JOBPLAN_CREATE_WORKLOAD, "CreatedWorkload: Created Workload: ns/", NULL},
        {"evicted while running: suspended alone",
         TRAINJOB(
             ",'suspend':false,'runtimePatches':[{'manager':'kueue.x-k8s.io/manager',"
             "'trainingRuntimeSpec':{'template':{'spec':{'replicatedJobs':[{'name':'node'}]}}}}"
             "]"),
         1, 1, TS_JOBPLAN_UPDATE_JOB, "Stopped: ", "[{\"name\":\"node\"}]"},
        {"evicted, suspended, jobs still active: waits",
         TRAINJOB(
             ",'suspend':true,'runtimePatches':[{'manager':'kueue.x-k8s.io/manager',"
             "'trainingRuntimeSpec':{'template':{'spec':{'replicatedJobs':[{'name':'node'}]}}}}"
             "]},'status':{'jobsStatus':[{'name':'node','active':1}]"),
         1, 1, 0, NULL, NULL},
        {"evicted, suspended, no job active: the patch restored",
         TRAINJOB(
             ",'suspend':true,'runtimePatches':[{'manager':'kueue.x-k8s.io/manager',"
             "'trainingRuntimeSpec':{'template':{'spec':{'replicatedJobs':[{'name':'node'}]}}}}"
             "]"),
         1, 1, TS_JOBPLAN_UPDATE_JOB, NULL, "(none)"},
    };
    struct ts_jobplan_env env;

    (void)state;
    memset(&env, 0, sizeof(env));
    env.flavor = jk_lookup;
    env.runtime = runtime_of;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cJSON *job = jk_json(cases[i].job);
        struct ts_workload wl, *has = NULL;
        struct ts_jobplan p;
        struct ts_err err = {0};
        char ev[700];

        runtime_text = cases[i].runtime ? RUNTIME("'mlPolicy':{'torch':{}},", TORCH_RJS) : NULL;
        ts_workload_init(&wl);
        if (cases[i].evicted) {
            char *text = cJSON_PrintUnformatted(job);

            assert_int_equal(build(text, runtime_text, &wl, &err), 0);
            free(text);
            jk_admit(&wl);
            ts_conditions_set(&wl.status.conditions, TS_WL_COND_QUOTA_RESERVED, "True", "r", "", 0,
                              0);
            ts_conditions_set(&wl.status.conditions, TS_WL_COND_ADMITTED, "True", "r", "", 0, 0);
            ts_conditions_set(&wl.status.conditions, TS_WL_COND_EVICTED, "True", "Deactivated", "",
                              0, 0);
            has = &wl;
        }
        ts_jobplan_init(&p);
        assert_int_equal(ts_jobplan_make(job, has, &env, 0, &p, &err), 0);
        snprintf(ev, sizeof(ev), "%s: %s", p.event_reason ? p.event_reason : "", p.event_message);
        if (p.ops != cases[i].ops)
            fail_msg("%s: ops %#x, want %#x", cases[i].name, p.ops, cases[i].ops);
        if (cases[i].event && strncmp(ev, cases[i].event, strlen(cases[i].event)))
            fail_msg("%s: event '%s', want '%s'", cases[i].name, ev, cases[i].event);
        if (cases[i].patched) {
            const cJSON *rjs = ts_json_get(ts_trainjob_json_patch(p.job, TS_TRAINJOB_PATCH_MANAGER),
                                           "trainingRuntimeSpec.template.spec.replicatedJobs");
            char *s = rjs ? cJSON_PrintUnformatted(rjs) : ts_xstrdup("(none)");

            if (strcmp(s, cases[i].patched))
                fail_msg("%s: patch %s, want %s", cases[i].name, s, cases[i].patched);
            assert_true(cJSON_IsTrue(ts_json_get(p.job, "spec.suspend")));
            free(s);
        }
        ts_jobplan_release(&p);
        ts_workload_release(&wl);
        cJSON_Delete(job);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_podsets),
        cmocka_unit_test(test_status),
        cmocka_unit_test(test_start_stop),
        cmocka_unit_test(test_plan),
    };

    return cmocka_run_group_tests(tests, jk_setup, jk_teardown);
}
