/*
 * jobplan.h - the job reconciler's decisions (Kueue's ReconcileGenericJob,
 * pkg/controller/jobframework/reconciler.go), as a pure function: given a
 * job and the Workload it owns (or none), what must be written.  The
 * controller executes the plan through the API; the tests check it table
 * by table.
 *
 * Order of rules (as Kueue's): job deleting; its controller is a managed
 * job with a queue name (the child gets no Workload); not managed; no
 * workload yet
 * (create it, and suspend a job that slipped past the webhook); workload
 * finished; job finished (finish the workload); workload evicted (stop the
 * job, then release the quota once the job has no active pods); job
 * suspended (start it when admitted, else keep the pending workload in
 * step with the job); job running without admission (stop it); job
 * running admitted: with waitForPodsReady, keep the Workload's PodsReady
 * condition current (False WaitForStart until its pods are ready or
 * succeeded, True Started; after losing them False WaitForRecovery, then
 * True Recovered); not ready for pods_ready_timeout since admission (or
 * since the pods were lost) evicts it with PodsReadyTimeout and a requeue
 * backoff of base * 2^(count-1) capped at max; once requeueAt passes the
 * Workload gets Requeued=True BackoffFinished and queues again.  The
 * timeout after a loss is recoveryTimeout; with backoffLimitCount set, the
 * timeout that would be eviction number limit+1 deactivates the Workload
 * instead, in Kueue's steps (pkg/controller/core/workload_controller.go):
 * condition DeactivationTarget (RequeuingLimitExceeded), then
 * spec.active=false, then Evicted DeactivatedDueTo<cause> with
 * DeactivationTarget and requeueState dropped; the job is stopped and the
 * quota released as for any eviction, and nothing admits it again until
 * spec.active is true again (Requeued True Reactivated).  A Workload a
 * user deactivates goes the same way with reason Deactivated.  An admitted
 * Workload whose LocalQueue or ClusterQueue has stopPolicy HoldAndDrain is
 * evicted (LocalQueueStopped / ClusterQueueStopped, Requeued False once
 * released); when the queue runs again it gets Requeued=True
 * LocalQueueRestarted / ClusterQueueRestarted (Kueue's
 * pkg/controller/core/workload_controller.go).
 *
 * A TrainJob's pod sets are its runtime's (api/trainjob.h), looked up
 * through env->runtime: without it no Workload is created and a Warning
 * ErrWorkloadCompose event says why ("runtime 'NAME' not found").
 *
 * A Pod (Kueue's pod integration) follows the same rules with its own
 * meaning of suspend and stop: it is managed when the webhook labelled it
 * kueue.x-k8s.io/managed=true; it is started by removing its scheduling
 * gate and stopped by deleting it (a gated or terminated Pod is already
 * stopped); it never counts as active, so an evicted Pod's quota goes with
 * the delete; and its finalizer kueue.x-k8s.io/managed is removed once it
 * is deleting, terminated with its Workload finished, or terminated
 * without a Workload (Kueue's Pod.Finalize).
 */
#ifndef TS_CONTROLLER_JOBPLAN_H
#define TS_CONTROLLER_JOBPLAN_H

#include <cJSON.h>

#include "api/jobworkload.h"
#include "api/resourcegroup.h"
#include "api/workload.h"
#include "controller/podset.h"
#include "util/time.h"

struct ts_jobkind;

enum ts_jobplan_ops {
    TS_JOBPLAN_CREATE_WORKLOAD = 1 << 0,   /* create plan->workload */
    TS_JOBPLAN_UPDATE_WORKLOAD = 1 << 1,   /* update plan->workload (spec/metadata) */
    TS_JOBPLAN_WORKLOAD_STATUS = 1 << 2,   /* write plan->workload's status */
    TS_JOBPLAN_UPDATE_JOB = 1 << 3,        /* update the job to plan->job */
    TS_JOBPLAN_UPDATE_JOB_STATUS = 1 << 4, /* write plan->job's status (its startTime cleared) */
    TS_JOBPLAN_DELETE_JOB = 1 << 5,        /* delete the job (a Pod's stop; plan->job: it) */
};

struct ts_jobplan_env {
    const struct ts_priority_lookup *prio;
    ts_flavor_lookup_fn flavor;
    void *flavor_ctx;
    int manage_jobs_without_queue_name;
    int wait_for_pods_ready;                     /* maintain the PodsReady condition */
    int64_t pods_ready_timeout;                  /* ns; evict after it (0: never) */
    int32_t backoff_base_s, backoff_max_s;       /* requeue backoff after such an eviction */
    int64_t pods_ready_recovery_timeout;         /* ns; after a loss (0: pods_ready_timeout) */
    struct ts_opt_i32 backoff_limit_count;       /* evictions before deactivation; unset: none */
    const struct ts_strlist *label_keys_to_copy; /* onto a new Workload; NULL: none */
    /* the stopPolicy of the Workload's LocalQueue and of the ClusterQueue
     * that LocalQueue names: HoldAndDrain evicts it */
    enum ts_stop_policy lq_stop, cq_stop;
    /* 1: the LocalQueue does not exist; 1: the ClusterQueue is not reached
     * (no LocalQueue, a stopped one, or no such ClusterQueue).  Kueue's
     * workload controller then neither drains nor requeues for that queue. */
    int lq_missing, cq_unreached;
    /* the admission checks the Workload must have (its ClusterQueue's, for
     * its flavors); NULL: its ClusterQueue is not known */
    const struct ts_strlist *checks;
    /* integrations.frameworks has "deployment" but not "pod": only the
     * Pods of a managed Deployment are the pod integration's (Kueue's
     * implicitly enabled framework) */
    int pods_parent_only;
    /* The object of kind k ns/name (a job's controller), for the rule that
     * a job whose controller Turnstile manages gets no Workload of its own;
     * sets *on to 0 when kind k is not managed (not in
     * integrations.frameworks, or not served).  Returns NULL when it is not
     * cached.  Ownership: the caller cJSON_Delete()s the result.  NULL
     * callback: no owner is managed. */
    cJSON *(*owner)(void *ctx, const struct ts_jobkind *k, const char *ns, const char *name,
                    int *on);
    void *owner_ctx;
    /* A TrainJob's runtime: the ClusterTrainingRuntime `name` (cluster 1,
     * ns NULL) or the TrainingRuntime ns/name, NULL when it does not
     * exist.  Ownership: the caller cJSON_Delete()s the result.  NULL
     * callback: no runtime exists. */
    cJSON *(*runtime)(void *ctx, int cluster, const char *ns, const char *name);
    void *runtime_ctx;
    /* integrations.externalFrameworks: a job whose controller is of one of
     * these kinds gets no Workload of its own; NULL: none */
    const struct ts_strlist *external_frameworks;
};

/* What a landed WORKLOAD_STATUS write means for Kueue's metrics. */
enum ts_jobplan_metric {
    TS_JOBPLAN_METRIC_NONE = 0,
    TS_JOBPLAN_METRIC_FINISHED,           /* finished_workloads_total, execution time */
    TS_JOBPLAN_METRIC_PODS_READY_TIMEOUT, /* evicted_workloads_total{PodsReadyTimeout} */
    TS_JOBPLAN_METRIC_DEACTIVATED,        /* evicted_workloads_total{Deactivated} */
    TS_JOBPLAN_METRIC_QUEUE_STOPPED,      /* evicted_workloads_total{metric_cause} */
    TS_JOBPLAN_METRIC_EVICTED = TS_JOBPLAN_METRIC_QUEUE_STOPPED,
    TS_JOBPLAN_METRIC_ADMITTED, /* admitted_workloads_total, admission checks wait time */
};

struct ts_jobplan {
    unsigned ops;
    cJSON *job;                  /* owned; the job to write (UPDATE_JOB) */
    struct ts_workload workload; /* what to create / update / write status of */
    const char *event_type;      /* "Normal" / "Warning", NULL when no event */
    const char *event_reason;    /* Kueue's job event reasons */
    char event_message[512];
    char event_reason_buf[160]; /* event_reason when made up ("EvictedDueTo...") */
    int event_on_workload;      /* the event is about plan->workload, not the job */
    int64_t requeue_after;      /* ns: reconcile again then (a timeout or a backoff ends); 0: no */
    enum ts_jobplan_metric metric;
    /* static: the eviction's underlying cause ("" none); for QUEUE_STOPPED
     * the eviction's reason */
    const char *metric_cause;
    int metric_first;            /* the workload's first eviction */
    double metric_checks_wait_s; /* ADMITTED: since the quota reservation */
};

void ts_jobplan_init(struct ts_jobplan *p);
void ts_jobplan_release(struct ts_jobplan *p);

/* Plans the reconciliation of `job` (JSON as the API server returned it)
 * owning `wl` (NULL when it has none).  Returns 0 (p->ops may be 0: nothing
 * to do), or TS_EINVAL when the job cannot be read (message names the
 * field).  Ownership: p owns everything it holds. */
int ts_jobplan_make(const cJSON *job, const struct ts_workload *wl,
                    const struct ts_jobplan_env *env, ts_time now, struct ts_jobplan *p,
                    struct ts_err *err);

/* Plans what Kueue's workload controller does for a Workload no job owns
 * (created directly): deactivation, the end of a requeue backoff and its
 * admission checks (Admitted once all are Ready, Rejected, Retry).  Only
 * plan->workload's writes and events on it are planned. */
void ts_jobplan_make_standalone(const struct ts_workload *wl, const struct ts_jobplan_env *env,
                                ts_time now, struct ts_jobplan *p);

#endif
