/*
 * jobworkload.h - building the Workload of a job the way Kueue's
 * jobframework does (pkg/controller/jobframework/reconciler.go): name
 * "<kind>-<job>-<5 hex of SHA-1>", controller ownerReference, the
 * resource-in-use finalizer, the job-uid label, queue name from the label
 * (or the legacy annotation), pod sets from the job, priority from the
 * WorkloadPriorityClass label (or, in older YAML, annotation), else the pods' PriorityClass, else
 * the cluster's default PriorityClass.
 *
 * The controller, the simulator and the webhook all build Workloads here,
 * so a Workload the simulator shows is the one the controller creates.
 * Pure: priority classes are looked up through the caller's callbacks.
 */
#ifndef TS_API_JOBWORKLOAD_H
#define TS_API_JOBWORKLOAD_H

#include <stdint.h>

#include "api/job.h"
#include "api/pod.h"
#include "api/jobset.h"
#include "api/object.h"
#include "api/pytorchjob.h"
#include "api/rayjob.h"
#include "api/trainjob.h"
#include "api/workload.h"
#include "util/err.h"

#define TS_LABEL_QUEUE_NAME     "kueue.x-k8s.io/queue-name"
#define TS_LABEL_PRIORITY_CLASS "kueue.x-k8s.io/priority-class"
#define TS_LABEL_JOB_UID        "kueue.x-k8s.io/job-uid"
/* a positive int32: the Workload's spec.maximumExecutionTimeSeconds */
#define TS_LABEL_MAX_EXEC_TIME_SECONDS    "kueue.x-k8s.io/max-exec-time-seconds"
#define TS_ANNOTATION_JOB_MIN_PARALLELISM "kueue.x-k8s.io/job-min-parallelism"

/* Priority classes known to the caller.  Each lookup returns 1 and sets
 * *value when the class exists, 0 otherwise.  default_pc returns the
 * cluster's globalDefault PriorityClass (lowest value if several). */
struct ts_priority_lookup {
    int (*wpc)(void *ctx, const char *name, int32_t *value);
    int (*pc)(void *ctx, const char *name, int32_t *value);
    int (*default_pc)(void *ctx, const char **name, int32_t *value);
    void *ctx;
};

/* Kueue's Workload name for a job: lower(kind) + "-" + name, cut to 247
 * bytes, + "-" + the first 5 hex digits of SHA-1(kind "\n" group "\n"
 * name "\n" uid).  Ownership: caller frees the result. */
char *ts_jobworkload_name(const char *kind, const char *group, const char *name, const char *uid);

/* Builds the Workload of a batch/v1 Job into out (initialised; previous
 * content released).  Returns 0, or TS_ENOTFOUND when the job names a
 * WorkloadPriorityClass that does not exist (Kueue then creates nothing and
 * emits WorkloadPriorityClassNotFound), or TS_EINVAL for a job without a
 * name.  Ownership: out owns copies. */
int ts_jobworkload_from_job(const struct ts_job *job, const struct ts_priority_lookup *prio,
                            struct ts_workload *out, struct ts_err *err);

/* Kueue's integrations.labelKeysToCopy: the job labels with those keys
 * become labels of the Workload (keys the job lacks are skipped). */
void ts_jobworkload_copy_labels(const struct ts_object_meta *job, const struct ts_strlist *keys,
                                struct ts_workload *wl);

/* Same for a Kubeflow job (any kind of api/pytorchjob.h: job->kf): named
 * "pytorchjob-...", "tfjob-...", "mpijob-...", "xgboostjob-...", one pod set
 * per replica type in Kueue's order for the kind (master, worker; chief,
 * master, ps, worker, evaluator; launcher, worker; ...), named by the
 * lower-cased type. */
int ts_jobworkload_from_pytorchjob(const struct ts_pytorch_job *job,
                                   const struct ts_priority_lookup *prio, struct ts_workload *out,
                                   struct ts_err *err);

/* Same for a plain Pod (Kueue's pod integration, a Pod outside any group):
 * named "pod-<name>-<hash>", one pod set "main" of count 1 whose template
 * is the Pod's spec. */
int ts_jobworkload_from_pod(const struct ts_pod *pod, const struct ts_priority_lookup *prio,
                            struct ts_workload *out, struct ts_err *err);
/* Same for a pod group (Kueue's pod integration, pods labelled
 * kueue.x-k8s.io/pod-group-name): named after the group, owned by every
 * member (not as controller), annotated kueue.x-k8s.io/is-group-workload,
 * one pod set per role (the role-hash annotation, else ts_pod_role_hash())
 * sorted by name, counting the members of that role, whose template is
 * the first such member's spec.  pods are the group's members that will
 * run (the caller leaves failed and excess ones out).  TS_EINVAL for no
 * pods or more than 8 roles. */
int ts_jobworkload_from_pod_group(const struct ts_pod *pods, size_t n, const char *group,
                                  const struct ts_priority_lookup *prio, struct ts_workload *out,
                                  struct ts_err *err);

/* The prebuilt Workload of an apps/v1 StatefulSet whose Pods run as one
 * group (Kueue's jobs/statefulset constructWorkload): named
 * "statefulset-<name>-<hash>", owned by the set (not as controller),
 * annotated kueue.x-k8s.io/is-group-workload, one pod set "main" of
 * spec.replicas (1 when unset) holding the template's spec.  The set's
 * Pods name it in their pod-group-name label.  Ownership: sts borrowed. */
int ts_jobworkload_from_statefulset(const cJSON *sts, const struct ts_priority_lookup *prio,
                                    struct ts_workload *out, struct ts_err *err);

/* Same for a JobSet (Kueue's pkg/controller/jobs/jobset): named
 * "jobset-...", one pod set per replicated job, named after it, of
 * ts_jobset_pod_count() pods; the priority class of its first template
 * that names one.  TS_EINVAL (message names the JobSet and the field) when
 * a pod set's count does not fit an int32. */
int ts_jobworkload_from_jobset(const struct ts_jobset *job, const struct ts_priority_lookup *prio,
                               struct ts_workload *out, struct ts_err *err);

/* The Workload of any job kind o holds (TS_KIND_IS_JOB()): one of the
 * builders here.  TS_EUNSUPPORTED for another kind. */
int ts_jobworkload_from_object(const struct ts_object *o, const struct ts_priority_lookup *prio,
                               struct ts_workload *out, struct ts_err *err);
/* Same for a RayJob or a RayCluster (Kueue's jobs/rayjob, jobs/raycluster):
 * named "rayjob-..." or "raycluster-...", pod sets head, one per worker
 * group, and a RayJob's submitter (api/rayjob.h); the priority class is
 * the first pod set template's that names one.  TS_EINVAL also for a
 * RayJob without rayClusterSpec. */
int ts_jobworkload_from_ray(const struct ts_ray_job *job, const struct ts_priority_lookup *prio,
                            struct ts_workload *out, struct ts_err *err);
/* Same for a TrainJob (Kueue's jobs/trainjob): named "trainjob-...", the
 * pod sets of its child JobSet (ts_trainjob_resolve() must have run: its
 * error, TS_ENOTFOUND for a missing runtime, is returned otherwise); the
 * priority class of the first pod set template that names one. */
int ts_jobworkload_from_trainjob(const struct ts_trainjob *job,
                                 const struct ts_priority_lookup *prio, struct ts_workload *out,
                                 struct ts_err *err);

#endif
