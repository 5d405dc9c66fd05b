/*
 * jobkind.h - the job kinds Turnstile manages, behind one small adapter
 * (Kueue's GenericJob): where a kind keeps its suspend flag and its pod
 * templates, and what starting and stopping it means.  batch/v1 Job; the
 * Kubeflow jobs that share one shape (a map of replica specs and
 * spec.runPolicy, api/pytorchjob.h): kubeflow.org/v1 PyTorchJob, TFJob,
 * XGBoostJob, PaddleJob, JAXJob and kubeflow.org/v2beta1 MPIJob; and
 * jobset.x-k8s.io/v1alpha2 JobSet (a list of replicated jobs, each a Job
 * template: api/jobset.h); and core/v1 Pod (Kueue's pod integration: a
 * Pod's "suspend" is the scheduling gate kueue.x-k8s.io/admission, which
 * can only be removed: a Pod is never suspended again, it is deleted); and
 * KubeRay's ray.io/v1 RayJob and RayCluster, whose templates are in a
 * cluster spec (jobkind_ray.c); and Kubeflow Trainer's
 * trainer.kubeflow.org/v1alpha1 TrainJob, whose templates are its
 * runtime's: admission goes into Kueue's spec.runtimePatches entry
 * (jobkind_trainjob.c).
 *
 * This table is the one list of the kinds the controller manages: its
 * informers, work queue keys and integrations.frameworks names come from
 * it.
 *
 * All functions work on the job's JSON (the object as the API server
 * returned it), so fields Turnstile does not model survive every write.
 */
#ifndef TS_CONTROLLER_JOBKIND_H
#define TS_CONTROLLER_JOBKIND_H

#include <cJSON.h>
#include <stddef.h>

#include "api/pytorchjob.h"
#include "api/workload.h"
#include "controller/podset.h"
#include "kube/client.h"
#include "util/err.h"

#define TS_JOBKIND_MAX_PODSETS 18

/* Where a kind keeps its pod templates. */
enum ts_jobkind_shape {
    TS_JOBKIND_BATCH = 0, /* spec.template; partial admission; stopped in steps */
    TS_JOBKIND_KUBEFLOW,  /* spec.<kf->replicas_key>.<Type>.template */
    TS_JOBKIND_JOBSET,    /* spec.replicatedJobs[i].template.spec.template */
    TS_JOBKIND_POD,       /* the Pod is its own template; its gate is "suspended" */
    TS_JOBKIND_RAY,       /* the kind's templates function (jobkind_ray.c) */
    TS_JOBKIND_TRAINJOB,  /* Kueue's spec.runtimePatches entry (jobkind_trainjob.c) */
};

/* A kind's own pod template shape (see ts_jobkind_templates()). */
typedef size_t (*ts_jobkind_templates_fn)(cJSON *job, cJSON **tmpl, char names[][64]);

struct ts_jobkind {
    const char *api_version;     /* "batch/v1" */
    struct ts_kube_resource res; /* batch, v1, jobs, Job, namespaced */
    const char *framework;       /* integrations.frameworks name: "batch/job" */
    const char *suspend_parent;  /* object holding "suspend": "spec" or "spec.runPolicy" */
    const struct ts_kf_kind *kf; /* replica specs of a Kubeflow job, else NULL */
    enum ts_jobkind_shape shape;
    ts_jobkind_templates_fn templates; /* TS_JOBKIND_RAY's and TrainJob's, else NULL */
};

/* Every kind, in a fixed order: Job, PyTorchJob, TFJob, MPIJob,
 * XGBoostJob, PaddleJob, JAXJob, JobSet, Pod, RayJob, RayCluster,
 * TrainJob. */
#define TS_JOBKIND_N 12
extern const struct ts_jobkind ts_jobkinds[TS_JOBKIND_N];

/* The adapter for the job's apiVersion/kind, or NULL when not managed. */
const struct ts_jobkind *ts_jobkind_of(const cJSON *job);
/* The adapter of kind name `kind` ("TFJob"), or NULL. */
const struct ts_jobkind *ts_jobkind_by_kind(const char *kind);
/* The adapter an ownerReference names (its apiVersion's group and its
 * kind), or NULL. */
const struct ts_jobkind *ts_jobkind_of_owner(const char *api_version, const char *kind);

/* 1 for batch/v1 Job, whose stop takes several writes (jobplan.c). */
int ts_jobkind_is_batch(const struct ts_jobkind *k);
/* 1 for the kinds whose stop suspends first, alone, and restores the
 * templates in a later write: batch/v1 Job (its templates are immutable
 * while it runs) and TrainJob (the Trainer's webhook takes runtimePatches
 * changes only while suspended, and Kueue restores once no job is
 * active). */
int ts_jobkind_stops_in_steps(const struct ts_jobkind *k);

/* Pod templates of a job in pod set order (Kueue's for the kind, then the
 * other replica types alphabetically; a JobSet's replicated jobs in
 * order), with their pod set names ("main", the lower-cased replica type,
 * or the replicated job's name).  A JobSet's replicated job without a pod
 * template gets an empty one.  A pod set whose template the job does not
 * hold (a RayJob's default submitter) has tmpl NULL: start and stop leave
 * it alone, as Kueue merges into a throwaway copy.  Returns the count (at
 * most TS_JOBKIND_MAX_PODSETS).  Borrowed: pointers into job. */
size_t ts_jobkind_templates(const struct ts_jobkind *k, cJSON *job, cJSON **tmpl, char names[][64]);

/* A Pod is suspended while gated or once terminated (Kueue's podSuspended). */
int ts_jobkind_is_suspended(const struct ts_jobkind *k, const cJSON *job);
/* A Pod can only be unsuspended (its gate removed); suspend=1 leaves it. */
void ts_jobkind_set_suspend(const struct ts_jobkind *k, cJSON *job, int suspend);

/* Admission (Kueue's GenericJob.RunWithPodSetsInfo): injects every pod
 * set's flavors and labels, sets the admitted parallelism for partial
 * admission, and unsuspends.  A TrainJob takes two writes, as Kueue's:
 * while its runtime patch is not yet the admitted one it is written with
 * the job still suspended; once it is, the job is unsuspended.  On error
 * the job is left unchanged. */
int ts_jobkind_start(const struct ts_jobkind *k, cJSON *job, const struct ts_workload *wl,
                     ts_flavor_lookup_fn lookup, void *ctx, struct ts_err *err);

/* Eviction (Kueue's GenericJob.RestorePodSetsInfo): suspends and restores
 * every pod template (and, with partial admission, the parallelism) to the
 * Workload's original.  *changed tells whether the job JSON differs now. */
int ts_jobkind_stop(const struct ts_jobkind *k, cJSON *job, const struct ts_workload *wl,
                    int *changed, struct ts_err *err);

/* jobkind_ray.c: the shapes of RayJob (rayClusterSpec, submitter) and
 * RayCluster (spec): head, then the worker groups in order. */
size_t ts__jobkind_rayjob_templates(cJSON *job, cJSON **tmpl, char names[][64]);
size_t ts__jobkind_raycluster_templates(cJSON *job, cJSON **tmpl, char names[][64]);

/* jobkind_trainjob.c: the templates of Kueue's runtime patch entry (named
 * by their replicated jobs); _start writes one entry per pod set of wl
 * with its admission injected (adding Kueue's patch entry when missing);
 * _restore drops the entries and returns 1 when there were any. */
size_t ts__jobkind_trainjob_templates(cJSON *job, cJSON **tmpl, char names[][64]);
int ts__jobkind_trainjob_start(cJSON *job, const struct ts_workload *wl, ts_flavor_lookup_fn lookup,
                               void *ctx, struct ts_err *err);
int ts__jobkind_trainjob_restore(cJSON *job);

#endif
