#include "controller/jobkind.h"

#include "api/jobset.h"
#include "api/pod.h"
#include "api/trainjob.h"
#include "json/json.h"
#include "util/alloc.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KF(version, plural, kind, framework, kf)                                                   \
    {                                                                                              \
        "kubeflow.org/" version, {"kubeflow.org", version, plural, kind, 1}, framework,            \
            "spec.runPolicy", kf, TS_JOBKIND_KUBEFLOW, NULL                                        \
    }

const struct ts_jobkind ts_jobkinds[TS_JOBKIND_N] = {
    {"batch/v1",
     {"batch", "v1", "jobs", "Job", 1},
     "batch/job",
     "spec",
     NULL,
     TS_JOBKIND_BATCH,
     NULL},
    KF("v1", "pytorchjobs", "PyTorchJob", "kubeflow.org/pytorchjob", &ts_kf_pytorchjob),
    KF("v1", "tfjobs", "TFJob", "kubeflow.org/tfjob", &ts_kf_tfjob),
    KF("v2beta1", "mpijobs", "MPIJob", "kubeflow.org/mpijob", &ts_kf_mpijob),
    KF("v1", "xgboostjobs", "XGBoostJob", "kubeflow.org/xgboostjob", &ts_kf_xgboostjob),
    KF("v1", "paddlejobs", "PaddleJob", "kubeflow.org/paddlejob", &ts_kf_paddlejob),
    KF("v1", "jaxjobs", "JAXJob", "kubeflow.org/jaxjob", &ts_kf_jaxjob),
    {TS_JOBSET_API_VERSION,
     {TS_JOBSET_GROUP, "v1alpha2", "jobsets", TS_JOBSET_KIND, 1},
     "jobset.x-k8s.io/jobset",
     "spec",
     NULL,
     TS_JOBKIND_JOBSET,
     NULL},
    {"v1", {"", "v1", "pods", "Pod", 1}, "pod", NULL, NULL, TS_JOBKIND_POD, NULL},
    {"ray.io/v1",
     {"ray.io", "v1", "rayjobs", "RayJob", 1},
     "ray.io/rayjob",
     "spec",
     NULL,
     TS_JOBKIND_RAY,
     ts__jobkind_rayjob_templates},
    {"ray.io/v1",
     {"ray.io", "v1", "rayclusters", "RayCluster", 1},
     "ray.io/raycluster",
     "spec",
     NULL,
     TS_JOBKIND_RAY,
     ts__jobkind_raycluster_templates},
    {TS_TRAINJOB_API_VERSION,
     {TS_TRAINER_GROUP, "v1alpha1", "trainjobs", TS_TRAINJOB_KIND, 1},
     "trainer.kubeflow.org/trainjob",
     "spec",
     NULL,
     TS_JOBKIND_TRAINJOB,
     ts__jobkind_trainjob_templates},
};

static const char *str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

    return cJSON_IsString(v) ? v->valuestring : NULL;
}

const struct ts_jobkind *ts_jobkind_of(const cJSON *job)
{
    const char *av = str(job, "apiVersion"), *kind = str(job, "kind");

    for (size_t i = 0; av && kind && i < TS_JOBKIND_N; i++) {
        if (!strcmp(av, ts_jobkinds[i].api_version) && !strcmp(kind, ts_jobkinds[i].res.kind))
            return &ts_jobkinds[i];
    }
    return NULL;
}

const struct ts_jobkind *ts_jobkind_by_kind(const char *kind)
{
    for (size_t i = 0; kind && i < TS_JOBKIND_N; i++) {
        if (!strcmp(kind, ts_jobkinds[i].res.kind))
            return &ts_jobkinds[i];
    }
    return NULL;
}

const struct ts_jobkind *ts_jobkind_of_owner(const char *api_version, const char *kind)
{
    const char *slash = api_version ? strchr(api_version, '/') : NULL;

    for (size_t i = 0; slash && kind && i < TS_JOBKIND_N; i++) {
        const char *g = ts_jobkinds[i].res.group;

        if (strlen(g) == (size_t)(slash - api_version) && !strncmp(api_version, g, strlen(g)) &&
            !strcmp(kind, ts_jobkinds[i].res.kind))
            return &ts_jobkinds[i];
    }
    return NULL;
}

/* A JobSet's replicated jobs: spec.replicatedJobs[i].template.spec.template,
 * named spec.replicatedJobs[i].name. */
static size_t jobset_templates(cJSON *spec, cJSON **tmpl, char names[][64])
{
    cJSON *rj;
    size_t n = 0;

    cJSON_ArrayForEach(rj, cJSON_GetObjectItemCaseSensitive(spec, "replicatedJobs"))
    {
        const char *name = str(rj, "name");

        if (n == TS_JOBKIND_MAX_PODSETS || !cJSON_IsObject(rj))
            continue;
        tmpl[n] = ts_json_mkpath(rj, "template.spec.template", NULL);
        if (!tmpl[n])
            continue; /* a non-object in the way: the API server refuses it */
        snprintf(names[n++], 64, "%s", name ? name : "");
    }
    return n;
}

int ts_jobkind_is_batch(const struct ts_jobkind *k)
{
    return k->shape == TS_JOBKIND_BATCH;
}

int ts_jobkind_stops_in_steps(const struct ts_jobkind *k)
{
    return k->shape == TS_JOBKIND_BATCH || k->shape == TS_JOBKIND_TRAINJOB;
}

size_t ts_jobkind_templates(const struct ts_jobkind *k, cJSON *job, cJSON **tmpl, char names[][64])
{
    cJSON *spec = cJSON_GetObjectItemCaseSensitive(job, "spec");
    cJSON *reps, *r, *order[TS_JOBKIND_MAX_PODSETS];
    size_t n = 0;

    if (k->shape == TS_JOBKIND_POD) {
        tmpl[0] = job; /* metadata and spec, as a PodTemplateSpec has them */
        snprintf(names[0], 64, "%s", TS_WL_DEFAULT_PODSET);
        return 1;
    }
    if (k->shape == TS_JOBKIND_JOBSET)
        return jobset_templates(spec, tmpl, names);
    if (k->templates)
        return k->templates(job, tmpl, names);
    if (k->shape == TS_JOBKIND_BATCH) {
        tmpl[0] = cJSON_GetObjectItemCaseSensitive(spec, "template");
        snprintf(names[0], 64, "%s", TS_WL_DEFAULT_PODSET);
        return tmpl[0] ? 1 : 0;
    }
    reps = cJSON_GetObjectItemCaseSensitive(spec, k->kf->replicas_key);
    cJSON_ArrayForEach(r, reps)
    {
        size_t j = n;

        if (n == TS_JOBKIND_MAX_PODSETS || !cJSON_IsObject(r))
            continue;
        for (; j > 0 && ts_kf_replica_cmp(k->kf, order[j - 1]->string, r->string) > 0; j--)
            order[j] = order[j - 1]; /* insertion in Kueue's order */
        order[j] = r;
        n++;
    }
    for (size_t i = 0; i < n; i++) {
        size_t j;

        tmpl[i] = cJSON_GetObjectItemCaseSensitive(order[i], "template");
        for (j = 0; order[i]->string[j] && j + 1 < 64; j++)
            names[i][j] = (char)tolower((unsigned char)order[i]->string[j]);
        names[i][j] = '\0';
    }
    return n;
}

int ts_jobkind_is_suspended(const struct ts_jobkind *k, const cJSON *job)
{
    if (k->shape == TS_JOBKIND_POD) {
        const char *phase = ts_json_get_string(job, "status.phase");

        return ts_pod_json_has_gate(job, TS_POD_GATE) ||
               (phase && (!strcmp(phase, "Succeeded") || !strcmp(phase, "Failed")));
    }
    return cJSON_IsTrue(
        cJSON_GetObjectItemCaseSensitive(ts_json_get(job, k->suspend_parent), "suspend"));
}

void ts_jobkind_set_suspend(const struct ts_jobkind *k, cJSON *job, int suspend)
{
    cJSON *p;

    if (k->shape == TS_JOBKIND_POD) {
        if (!suspend)
            ts_pod_json_remove_gate(job, TS_POD_GATE);
        return;
    }
    p = ts_json_mkpath(job, k->suspend_parent, NULL);
    if (!p)
        return; /* a non-object in the way: the API server would reject the job anyway */
    cJSON_DeleteItemFromObjectCaseSensitive(p, "suspend");
    cJSON_AddBoolToObject(p, "suspend", suspend ? 1 : 0);
}

/* Partial admission: a batch Job runs the admitted count of pods. */
static void set_parallelism(cJSON *job, int32_t count)
{
    cJSON *spec = cJSON_GetObjectItemCaseSensitive(job, "spec");

    if (!cJSON_IsObject(spec))
        return;
    cJSON_DeleteItemFromObjectCaseSensitive(spec, "parallelism");
    cJSON_AddNumberToObject(spec, "parallelism", count);
}

static int32_t admitted_count(const struct ts_workload *wl, const char *ps, int32_t dflt)
{
    const struct ts_admission *a = wl->status.admission;

    for (size_t i = 0; a && i < a->n_podset_assignments; i++) {
        const struct ts_podset_assignment *pa = &a->podset_assignments[i];

        if (!strcmp(pa->name ? pa->name : TS_WL_DEFAULT_PODSET, ps))
            return pa->count.set ? pa->count.v : dflt;
    }
    return dflt;
}

int ts_jobkind_start(const struct ts_jobkind *k, cJSON *job, const struct ts_workload *wl,
                     ts_flavor_lookup_fn lookup, void *ctx, struct ts_err *err)
{
    cJSON *copy = cJSON_Duplicate(job, 1), *tmpl[TS_JOBKIND_MAX_PODSETS];
    char names[TS_JOBKIND_MAX_PODSETS][64];
    size_t n = ts_jobkind_templates(k, copy, tmpl, names);
    int rc = 0;

    if (k->shape == TS_JOBKIND_TRAINJOB)
        rc = ts__jobkind_trainjob_start(copy, wl, lookup, ctx, err);
    for (size_t i = 0; i < n && !rc && k->shape != TS_JOBKIND_TRAINJOB; i++)
        rc = tmpl[i] ? ts_podset_inject(tmpl[i], wl, names[i], lookup, ctx, err) : 0;
    if (!rc && ts_jobkind_is_batch(k)) {
        const struct ts_podset *ps = ts_workload_find_podset(wl, TS_WL_DEFAULT_PODSET);

        if (ps && ps->min_count.set)
            set_parallelism(copy, admitted_count(wl, TS_WL_DEFAULT_PODSET, ps->count));
    }
    if (!rc) {
        if (k->shape != TS_JOBKIND_TRAINJOB ||
            ts_json_equal(ts_json_get(copy, "spec.runtimePatches"),
                          ts_json_get(job, "spec.runtimePatches")))
            ts_jobkind_set_suspend(k, copy, 0);
        /* swap the contents: the caller's pointer now holds the started job */
        cJSON_Delete(job->child);
        job->child = copy->child;
        copy->child = NULL;
    }
    cJSON_Delete(copy);
    return rc;
}

int ts_jobkind_stop(const struct ts_jobkind *k, cJSON *job, const struct ts_workload *wl,
                    int *changed, struct ts_err *err)
{
    cJSON *tmpl[TS_JOBKIND_MAX_PODSETS];
    char names[TS_JOBKIND_MAX_PODSETS][64];
    size_t n = ts_jobkind_templates(k, job, tmpl, names);
    int any = !ts_jobkind_is_suspended(k, job), c = 0, rc = 0;

    if (k->shape == TS_JOBKIND_POD) { /* nothing to restore: a Pod is deleted */
        if (changed)
            *changed = 0;
        return 0;
    }
    ts_jobkind_set_suspend(k, job, 1);
    if (k->shape == TS_JOBKIND_TRAINJOB) {
        any |= ts__jobkind_trainjob_restore(job);
        n = 0;
    }
    for (size_t i = 0; i < n && !rc; i++) {
        c = 0;
        rc = tmpl[i] ? ts_podset_restore(tmpl[i], wl, names[i], &c, err) : 0;
        any |= c;
    }
    if (!rc && ts_jobkind_is_batch(k)) {
        const struct ts_podset *ps = ts_workload_find_podset(wl, TS_WL_DEFAULT_PODSET);
        const cJSON *par = ts_json_get(job, "spec.parallelism");

        if (ps && ps->min_count.set && (!cJSON_IsNumber(par) || par->valueint != ps->count)) {
            set_parallelism(job, ps->count);
            any = 1;
        }
    }
    if (changed)
        *changed = any;
    return rc;
}
