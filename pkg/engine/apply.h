/*
 * apply.h - writing the engine's decisions into a Workload's status the way
 * Kueue writes them (pkg/workload/workload.go): the controller sends the
 * result to the API server, the simulator prints it.
 *
 * Pure functions on typed objects; `now` is passed in.
 */
#ifndef TS_ENGINE_APPLY_H
#define TS_ENGINE_APPLY_H

#include "api/workload.h"
#include "engine/engine.h"

/* Admission (Kueue's SetQuotaReservation + SyncAdmittedCondition with no
 * admission checks): status.admission from the decision, QuotaReserved=True
 * "Quota reserved in ClusterQueue X", Admitted=True "The workload is
 * admitted", and any active Evicted/Preempted condition set False with
 * reason QuotaReserved and message "Previously: <old message>".
 * Returns 1 when the status changed. */
int ts_apply_admit(struct ts_workload *wl, const struct ts_decision *d, ts_time now);

/* Pending: QuotaReserved=False with the decision's reason and message
 * (the workload's generation as observedGeneration).  Returns 1 when the
 * status changed. */
int ts_apply_pending(struct ts_workload *wl, const struct ts_decision *d, ts_time now);

/* Dispatches on d->kind (PREEMPT: the preemptor's pending status; the
 * victims are separate workloads, see ts_apply_preempted()). */
int ts_apply_decision(struct ts_workload *wl, const struct ts_decision *d, ts_time now);

/* A preemption victim (Kueue's IssuePreemptions + evict): Evicted=True
 * reason Preempted and Preempted=True with t->reason, both with
 * t->message; schedulingStats.evictions counts it.  Quota stays reserved
 * until the job has stopped (ts_apply_quota_released()).  Returns 1. */
int ts_apply_preempted(struct ts_workload *wl, const struct ts_decision_target *t, ts_time now);

/* What every eviction does besides setting its Evicted condition (Kueue's
 * prepareForEviction and workloadEvictionStateInc): admission checks reset
 * to Pending, and the eviction counted in status.schedulingStats.evictions
 * by reason and underlying cause (NULL or "": none). */
void ts_apply_evicting(struct ts_workload *wl, const char *reason, const char *cause, ts_time now);

/* The job of an evicted workload has stopped (Kueue's workload controller,
 * pkg/controller/core/workload_controller.go): Requeued (True for
 * Preempted/NodeFailures, else False with the eviction reason),
 * QuotaReserved=False PendingEvaluation with the eviction message,
 * status.admission cleared, Admitted=False NoReservation, the time it was
 * admitted added to status.accumulatedPastExecutionTimeSeconds.  Returns 1 when
 * the workload was evicted and holding quota, 0 otherwise. */
int ts_apply_quota_released(struct ts_workload *wl, ts_time now);

#endif
