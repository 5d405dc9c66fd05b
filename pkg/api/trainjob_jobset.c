/*
 * trainjob_jobset.c - the JobSet a TrainJob runs as, built the way Kueue's
 * trainjob integration builds it to take its pod sets (trainjob_controller
 * .go getChildJobSet, through the Trainer's runtime/core/trainingruntime.go
 * newRuntimeInfo, the EnforceMLPolicy plugins and the jobset plugin's
 * builder.go):
 *
 *  1. the runtime's spec.template.spec, each replicated job's template
 *     strategic-merge-patched with every spec.runtimePatches entry's
 *     trainingRuntimeSpec.template.spec.replicatedJobs[] of the same name;
 *  2. a pod count per replicated job: its parallelism (default 1); for the
 *     one labelled trainer.kubeflow.org/trainjob-ancestor-step=trainer, the
 *     runtime's mlPolicy.numNodes (default 1) when it has an mlPolicy; at
 *     least 1; then spec.trainer.numNodes overrides the first trainer
 *     job's count, or with an MPI policy the count of the job named "node"
 *     (numNodes - 1, at least 1, with runLauncherAsNode);
 *  3. parallelism and completions set to that count;
 *  4. the builder: replicas 1 for the trainer and the dataset/model
 *     initializer jobs; the trainer's "node" container gets
 *     spec.trainer.image, command, args, resourcesPerNode (also the "node"
 *     job's with MPI runLauncherAsNode) and env; the initializer
 *     containers get STORAGE_URI, env and envFrom of
 *     spec.initializer.dataset / model; with podGroupPolicy.coscheduling
 *     every pod template gets the label scheduling.x-k8s.io/pod-group.
 *
 * The environment the ML plugins compute (PET_*, hostfiles) never reaches
 * Kueue's JobSet, so it is not computed here either.  Pure.
 */
#include "api/trainjob.h"

#include "json/json.h"
#include "json/smp.h"

#include <string.h>

#define ANCESTOR_TRAINER "trainer"
#define NODE             "node"
#define DATASET_INIT     "dataset-initializer"
#define MODEL_INIT       "model-initializer"
#define POD_GROUP_LABEL  "scheduling.x-k8s.io/pod-group"

static int eq(const char *a, const char *b)
{
    return a && b && !strcmp(a, b);
}

static const char *ancestor(const cJSON *rj)
{
    return ts_json_get_string(rj, "template.metadata.labels[" TS_TRAINER_ANCESTOR_LABEL "]");
}

static int64_t num(const cJSON *o, const char *path, int64_t dflt)
{
    int64_t v;

    return ts_json_get_i64(ts_json_get(o, path), &v) ? dflt : v;
}

/* Step 1: every patch's replicated job templates merged into rjs. */
static int merge_patches(const cJSON *job, cJSON *rjs, struct ts_err *err)
{
    const cJSON *patch, *rjp;

    cJSON_ArrayForEach(patch, ts_json_get(job, "spec.runtimePatches"))
    {
        cJSON_ArrayForEach(rjp,
                           ts_json_get(patch, "trainingRuntimeSpec.template.spec.replicatedJobs"))
        {
            const cJSON *tp = cJSON_GetObjectItemCaseSensitive(rjp, "template");
            cJSON *rj;

            if (!cJSON_IsObject(tp))
                continue;
            cJSON_ArrayForEach(rj, rjs)
            {
                cJSON *merged;

                if (!eq(ts_json_get_string(rj, "name"), ts_json_get_string(rjp, "name")))
                    continue;
                if (ts_smp_apply(cJSON_GetObjectItemCaseSensitive(rj, "template"), tp, &merged,
                                 err))
                    return TS_EINVAL;
                cJSON_DeleteItemFromObjectCaseSensitive(rj, "template");
                cJSON_AddItemToObject(rj, "template", merged);
            }
        }
    }
    return 0;
}

/* Step 2: the pod count of each replicated job, into counts[]. */
static void pod_counts(const cJSON *job, const cJSON *policy, const cJSON *rjs, int64_t *counts)
{
    const cJSON *nn = ts_json_get(job, "spec.trainer.numNodes"), *mpi = ts_json_get(policy, "mpi");
    const cJSON *rj;
    int64_t n = 0, numnodes = 0;
    size_t i = 0;
    int done = 0;

    cJSON_ArrayForEach(rj, rjs)
    {
        int64_t c = num(rj, "template.spec.parallelism", 1);

        if (eq(ancestor(rj), ANCESTOR_TRAINER) && policy)
            c = num(policy, "numNodes", 1);
        counts[i++] = c > 1 ? c : 1;
    }
    if (ts_json_get_i64(nn, &numnodes))
        return;
    i = 0;
    cJSON_ArrayForEach(rj, rjs)
    {
        if (!done && mpi && eq(ts_json_get_string(rj, "name"), NODE)) {
            /* runLauncherAsNode: one node is the launcher's */
            n = cJSON_IsTrue(ts_json_get(mpi, "runLauncherAsNode")) ? numnodes - 1 : numnodes;
            counts[i] = cJSON_IsTrue(ts_json_get(mpi, "runLauncherAsNode")) && n < 1 ? 1 : n;
            done = 1;
        } else if (!done && !mpi && eq(ancestor(rj), ANCESTOR_TRAINER)) {
            counts[i] = numnodes;
            done = 1;
        }
        i++;
    }
}

/* The container `name` of a replicated job's pod template, or NULL. */
static cJSON *container(cJSON *rj, const char *name)
{
    cJSON *c;

    cJSON_ArrayForEach(c, ts_json_get(rj, "template.spec.template.spec.containers"))
    {
        if (eq(ts_json_get_string(c, "name"), name))
            return c;
    }
    return NULL;
}

/* obj[key] = v (in place when present: the object keeps its order). */
static void set(cJSON *obj, const char *key, cJSON *v)
{
    if (cJSON_GetObjectItemCaseSensitive(obj, key))
        cJSON_ReplaceItemInObjectCaseSensitive(obj, key, v);
    else
        cJSON_AddItemToObject(obj, key, v);
}

/* The Trainer's apply.UpsertEnvVars: same name replaced, else appended. */
static void upsert_env(cJSON *c, const cJSON *env)
{
    cJSON *list = cJSON_GetObjectItemCaseSensitive(c, "env"), *e;
    const cJSON *add;

    if (!cJSON_IsArray(env))
        return;
    if (!cJSON_IsArray(list))
        list = cJSON_AddArrayToObject(c, "env");
    cJSON_ArrayForEach(add, env)
    {
        cJSON_ArrayForEach(e, list)
        {
            if (eq(ts_json_get_string(e, "name"), ts_json_get_string(add, "name")))
                break;
        }
        if (e)
            cJSON_ReplaceItemViaPointer(list, e, cJSON_Duplicate(add, 1));
        else
            cJSON_AddItemToArray(list, cJSON_Duplicate(add, 1));
    }
}

/* Builder.Initializer for one initializer container `c` from spec.initializer.<which>. */
static void initializer(cJSON *c, const cJSON *init)
{
    const char *uri = ts_json_get_string(init, "storageUri");
    const char *secret = ts_json_get_string(init, "secretRef.name");

    if (!c || !init)
        return;
    if (uri) {
        cJSON *env = cJSON_CreateArray(), *e = cJSON_CreateObject();

        cJSON_AddStringToObject(e, "name", "STORAGE_URI");
        cJSON_AddStringToObject(e, "value", uri);
        cJSON_AddItemToArray(env, e);
        upsert_env(c, env);
        cJSON_Delete(env);
    }
    upsert_env(c, cJSON_GetObjectItemCaseSensitive(init, "env"));
    if (secret) {
        cJSON *from = cJSON_GetObjectItemCaseSensitive(c, "envFrom"), *ref = cJSON_CreateObject();

        if (!cJSON_IsArray(from))
            from = cJSON_AddArrayToObject(c, "envFrom");
        cJSON_AddStringToObject(cJSON_AddObjectToObject(ref, "secretRef"), "name", secret);
        cJSON_AddItemToArray(from, ref);
    }
}

/* Builder.Trainer's container part for the "node" container c. */
static void trainer_node(cJSON *c, const cJSON *tr, int image_too)
{
    static const char *const fields[] = {"image", "command", "args"};
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(tr, "resourcesPerNode");

    if (!c || !tr)
        return;
    for (size_t i = 0; image_too && i < sizeof(fields) / sizeof(fields[0]); i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(tr, fields[i]);

        if (v && !cJSON_IsNull(v))
            set(c, fields[i], cJSON_Duplicate(v, 1));
    }
    if (ts_json_get(res, "limits") || ts_json_get(res, "requests")) {
        cJSON *r = cJSON_CreateObject();

        if (ts_json_get(res, "limits"))
            cJSON_AddItemToObject(r, "limits", cJSON_Duplicate(ts_json_get(res, "limits"), 1));
        if (ts_json_get(res, "requests"))
            cJSON_AddItemToObject(r, "requests", cJSON_Duplicate(ts_json_get(res, "requests"), 1));
        set(c, "resources", r);
    }
    upsert_env(c, cJSON_GetObjectItemCaseSensitive(tr, "env"));
}

/* Steps 3 and 4 for replicated job rj of pod count `count`. */
static void build_one(const cJSON *job, const cJSON *rspec, cJSON *rj, int64_t count)
{
    const cJSON *tr = ts_json_get(job, "spec.trainer");
    const char *anc = ancestor(rj);
    cJSON *spec = ts_json_mkpath(rj, "template.spec", NULL), *tmpl;
    int launcher_as_node = cJSON_IsTrue(ts_json_get(rspec, "mlPolicy.mpi.runLauncherAsNode"));

    if (!spec)
        return; /* a non-object in the way: the JobSet API would refuse it */
    set(spec, "parallelism", cJSON_CreateNumber((double)count));
    set(spec, "completions", cJSON_CreateNumber((double)count));
    if (eq(anc, DATASET_INIT) || eq(anc, MODEL_INIT) || eq(anc, ANCESTOR_TRAINER))
        set(rj, "replicas", cJSON_CreateNumber(1));
    if (eq(anc, DATASET_INIT))
        initializer(container(rj, DATASET_INIT), ts_json_get(job, "spec.initializer.dataset"));
    if (eq(anc, MODEL_INIT))
        initializer(container(rj, MODEL_INIT), ts_json_get(job, "spec.initializer.model"));
    if (eq(anc, ANCESTOR_TRAINER) || (launcher_as_node && eq(ts_json_get_string(rj, "name"), NODE)))
        trainer_node(container(rj, NODE), tr, eq(anc, ANCESTOR_TRAINER));
    if (ts_json_get(rspec, "podGroupPolicy.coscheduling") &&
        (tmpl = ts_json_mkpath(spec, "template.metadata.labels", NULL)))
        set(tmpl, POD_GROUP_LABEL,
            cJSON_CreateString(ts_json_get_string(job, "metadata.name")
                                   ? ts_json_get_string(job, "metadata.name")
                                   : ""));
}

int ts_trainjob_jobset_build(const cJSON *job, const cJSON *runtime, cJSON **out,
                             struct ts_err *err)
{
    const cJSON *rspec = ts_json_get(runtime, "spec");
    const cJSON *tmpl = ts_json_get(rspec, "template.spec"),
                *policy = ts_json_get(rspec, "mlPolicy");
    cJSON *js, *meta, *rjs, *rj;
    int64_t counts[64];
    size_t i = 0;

    *out = NULL;
    if (tmpl && !cJSON_IsObject(tmpl))
        return ts_err_set(err, TS_EINVAL, "runtime '%s': spec.template.spec: must be an object",
                          ts_json_get_string(runtime, "metadata.name"));
    js = cJSON_CreateObject();
    cJSON_AddStringToObject(js, "apiVersion", TS_JOBSET_API_VERSION);
    cJSON_AddStringToObject(js, "kind", TS_JOBSET_KIND);
    meta = cJSON_AddObjectToObject(js, "metadata");
    if (ts_json_get_string(job, "metadata.name"))
        cJSON_AddStringToObject(meta, "name", ts_json_get_string(job, "metadata.name"));
    if (ts_json_get_string(job, "metadata.namespace"))
        cJSON_AddStringToObject(meta, "namespace", ts_json_get_string(job, "metadata.namespace"));
    cJSON_AddItemToObject(js, "spec", tmpl ? cJSON_Duplicate(tmpl, 1) : cJSON_CreateObject());
    rjs = ts_json_get(js, "spec.replicatedJobs");
    if (cJSON_GetArraySize(rjs) > (int)(sizeof(counts) / sizeof(counts[0]))) {
        cJSON_Delete(js);
        return ts_err_set(err, TS_EINVAL,
                          "runtime '%s': spec.template.spec.replicatedJobs: "
                          "Too many: %d: must have at most %zu items",
                          ts_json_get_string(runtime, "metadata.name"), cJSON_GetArraySize(rjs),
                          sizeof(counts) / sizeof(counts[0]));
    }
    if (merge_patches(job, rjs, err)) {
        cJSON_Delete(js);
        return TS_EINVAL;
    }
    pod_counts(job, policy, rjs, counts);
    cJSON_ArrayForEach(rj, rjs)
    {
        if (cJSON_IsObject(rj))
            build_one(job, rspec, rj, counts[i]);
        i++;
    }
    *out = js;
    return 0;
}
