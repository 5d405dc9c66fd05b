/*
 * jobset.h - jobset.x-k8s.io/v1alpha2 JobSet as Kueue's JobSet integration
 * sees it (pkg/controller/jobs/jobset/jobset_controller.go): the original
 * JSON (`raw`, the source of truth for everything not modelled) plus typed
 * metadata, spec.suspend, the replicated jobs (name, replicas, the job
 * template's parallelism and completions, its pod template) and the
 * status Kueue watches (conditions, replicatedJobsStatus).
 *
 * One pod set per replicated job, named after it, with replicas x
 * min(parallelism, completions) pods (parallelism defaults to 1,
 * completions to parallelism).  Finished when the Completed or Failed
 * condition is True.
 *
 * Ownership: struct ts_jobset owns raw and every typed field; _release()
 * frees them and re-initialises.  Pure functions, no shared state.
 */
#ifndef TS_API_JOBSET_H
#define TS_API_JOBSET_H

#include <cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "api/dec.h"
#include "api/job.h"
#include "api/meta.h"
#include "api/opt.h"
#include "api/podtemplate.h"

#define TS_JOBSET_API_VERSION "jobset.x-k8s.io/v1alpha2"
#define TS_JOBSET_GROUP       "jobset.x-k8s.io"
#define TS_JOBSET_KIND        "JobSet"

struct ts_replicated_job {
    char *name;
    int32_t replicas; /* default 1 */
    struct ts_opt_i32 parallelism, completions;
    struct ts_pod_template template; /* template.spec.template */
};

struct ts_replicated_job_status {
    char *name;
    int32_t ready, succeeded, failed, active, suspended;
};

struct ts_jobset {
    cJSON *raw; /* owned original object; NULL = {} */
    struct ts_object_meta meta;
    struct ts_opt_bool suspend;
    struct ts_replicated_job *jobs; /* spec.replicatedJobs, in order */
    size_t n_jobs;
    struct ts_job_condition *conditions; /* metav1.Condition: no lastProbeTime */
    size_t n_conditions;
    struct ts_replicated_job_status *statuses;
    size_t n_statuses;
};

/* Initialises an empty JobSet (allocates nothing). */
void ts_jobset_init(struct ts_jobset *j);
/* Frees everything j owns and re-initialises it. */
void ts_jobset_release(struct ts_jobset *j);

/* Decodes a JobSet object into j (initialised; previous content released),
 * applying replicas default 1; problems (a negative replicas, parallelism or
 * completions, a replicated job without a name) go to d's error list with
 * field paths.  Ownership: j keeps a deep copy of obj. */
void ts_jobset_decode(struct ts_dec *d, const cJSON *obj, struct ts_jobset *j);

/* Kueue's PodsCountPerReplica: min(parallelism, completions), parallelism
 * 1 when unset, completions = parallelism when unset. */
int32_t ts_jobset_pods_per_replica(const struct ts_replicated_job *rj);
/* Kueue's podsCount: replicas x pods per replica; -1 when it does not fit
 * an int32 (the JobSet operator refuses such a JobSet). */
int32_t ts_jobset_pod_count(const struct ts_replicated_job *rj);

/* Decodes the array `key` of status (a JobSet's replicatedJobsStatus, a
 * TrainJob's jobsStatus: the same fields) into a new array *out of *n
 * (left alone when absent).  Ownership: the caller frees each name and
 * the array. */
void ts_jobset_statuses_decode(struct ts_dec *d, const cJSON *status, const char *key,
                               struct ts_replicated_job_status **out, size_t *n);
/* 1 when some status has active > 0. */
int ts_jobset_statuses_active(const struct ts_replicated_job_status *s, size_t n);
/* 1 when the metav1.Condition `type` of conds is True; *message (may be
 * NULL) gets its message.  Borrowed. */
int ts_jobset_cond_true(const struct ts_job_condition *conds, size_t n, const char *type,
                        const char **message);

/* 1 when spec.suspend is true. */
int ts_jobset_is_suspended(const struct ts_jobset *j);
/* 1 when the Completed or Failed condition is True (*success: Completed;
 * *message: the condition's; outputs may be NULL). */
int ts_jobset_is_finished(const struct ts_jobset *j, int *success, const char **message);
/* 1 when some replicated job status has active > 0. */
int ts_jobset_is_active(const struct ts_jobset *j);
/* Kueue's PodsReady: ready + succeeded over the replicated job statuses
 * equals the sum of replicas. */
int ts_jobset_pods_ready(const struct ts_jobset *j);
/* Kueue's priority class for a JobSet: the priorityClassName of the first
 * replicated job template that has one, else NULL.  Borrowed. */
const char *ts_jobset_priority_class(const struct ts_jobset *j);

#endif
