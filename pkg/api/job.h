/*
 * job.h - batch/v1 Job as Kueue's job integration sees it
 * (pkg/controller/jobs/job): the original JSON (`raw`, source of truth
 * for everything not modelled)
 * plus typed metadata, the spec fields Kueue reads or writes (suspend,
 * parallelism, completions, completionMode, backoffLimit, template) and
 * the status fields it watches.
 *
 * ts_job_encode() writes the typed fields into a copy of raw, so image,
 * command, env, volumes, activeDeadlineSeconds, podFailurePolicy, ... come
 * back unchanged.  The same queue-name rule serves every integration
 * (ts_job_meta_queue_name()).
 *
 * Ownership: struct ts_job owns raw and every typed field; _release()
 * frees them and re-initialises.  Pure functions, no shared state.
 */
#ifndef TS_API_JOB_H
#define TS_API_JOB_H

#include <cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "api/dec.h"
#include "api/meta.h"
#include "api/opt.h"
#include "api/podtemplate.h"
#include "util/time.h"

#define TS_JOB_API_VERSION      "batch/v1"
#define TS_JOB_KIND             "Job"
#define TS_LABEL_QUEUE_NAME     "kueue.x-k8s.io/queue-name"
#define TS_LABEL_PRIORITY_CLASS "kueue.x-k8s.io/priority-class"

/* Event reasons the job integration emits on the job (Kueue's
 * pkg/controller/jobframework/events.go). */
#define TS_JOB_EVENT_CREATED_WORKLOAD        "CreatedWorkload"
#define TS_JOB_EVENT_DELETED_WORKLOAD        "DeletedWorkload"
#define TS_JOB_EVENT_UPDATED_WORKLOAD        "UpdatedWorkload"
#define TS_JOB_EVENT_FINISHED_WORKLOAD       "FinishedWorkload"
#define TS_JOB_EVENT_STARTED                 "Started"
#define TS_JOB_EVENT_STOPPED                 "Stopped"
#define TS_JOB_EVENT_SUSPENDED               "Suspended"
#define TS_JOB_EVENT_ERR_WORKLOAD_COMPOSE    "ErrWorkloadCompose"
#define TS_JOB_EVENT_UPDATED_ADMISSION_CHECK "UpdatedAdmissionCheck"
#define TS_JOB_EVENT_NESTING_TOO_DEEP        "JobNestingTooDeep"             /* Warning */
#define TS_JOB_EVENT_WPC_NOT_FOUND           "WorkloadPriorityClassNotFound" /* Warning */

/* batch/v1 JobCondition (Complete, Failed, Suspended, FailureTarget, ...). */
struct ts_job_condition {
    char *type;
    char *status;
    char *reason;
    char *message;
    ts_time last_probe_time;
    ts_time last_transition_time;
};

struct ts_job {
    cJSON *raw; /* owned original object; NULL = {} */
    struct ts_object_meta meta;
    struct ts_opt_bool suspend;
    struct ts_opt_i32 parallelism;
    struct ts_opt_i32 completions;
    char *completion_mode; /* "NonIndexed" | "Indexed" | NULL */
    struct ts_opt_i32 backoff_limit;
    struct ts_pod_template template;
    struct ts_job_condition *conditions;
    size_t n_conditions;
    int32_t active;
    struct ts_opt_i32 ready;
    int32_t succeeded;
    int32_t failed;
    ts_time start_time;
    ts_time completion_time;
};

/* Decodes status.conditions of a batch/v1 Job (or metav1.Conditions, which
 * have no lastProbeTime, as JobSet's) into a new array *out of *n.
 * Ownership: the caller frees it with ts_job_conditions_free(). */
void ts_job_conditions_decode(struct ts_dec *d, const cJSON *status, struct ts_job_condition **out,
                              size_t *n);
void ts_job_conditions_free(struct ts_job_condition *c, size_t n);

/* Initialises an empty job (allocates nothing). */
void ts_job_init(struct ts_job *j);
/* Frees everything j owns and re-initialises it. */
void ts_job_release(struct ts_job *j);
/* dst = deep copy of src; dst must be initialised (released first). */
void ts_job_copy(struct ts_job *dst, const struct ts_job *src);

/* Decodes a batch/v1 Job object into j (initialised; previous content
 * released); problems go to d's error list with field paths.  Ownership:
 * j keeps a deep copy of obj. */
void ts_job_decode(struct ts_dec *d, const cJSON *obj, struct ts_job *j);
/* A copy of raw with every modelled field written back (apiVersion and
 * kind set when missing).  Ownership: caller cJSON_Delete()s. */
cJSON *ts_job_encode(const struct ts_job *j);

/* The LocalQueue of an object: the kueue.x-k8s.io/queue-name label when
 * non-empty, else the legacy annotation of the same key when non-empty
 * (older Kueue's QueueNameForObject; the customer's seeds use the
 * annotation), else NULL.  Borrowed from m. */
const char *ts_job_meta_queue_name(const struct ts_object_meta *m);
/* ts_job_meta_queue_name() of the job.  Borrowed. */
const char *ts_job_queue_name(const struct ts_job *j);

/* The JobCondition of `type`, or NULL.  Borrowed. */
const struct ts_job_condition *ts_job_condition(const struct ts_job *j, const char *type);
/* Kueue's Finished(): 1 when a Complete or Failed condition is True; then
 * *success says which and *message (borrowed, may be NULL) is the
 * condition's message.  Outputs may be NULL. */
int ts_job_is_finished(const struct ts_job *j, int *success, const char **message);
/* 1 when spec.suspend is true. */
int ts_job_is_suspended(const struct ts_job *j);
/* Pods Kueue accounts for: parallelism (default 1), lowered to completions
 * when completions is set and smaller. */
int32_t ts_job_pod_count(const struct ts_job *j);

#endif
