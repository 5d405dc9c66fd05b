/*
 * kueue.h - Kueue's controller metrics (pkg/metrics/metrics.go) on a
 * ts_metrics registry: the same names, label names, HELP texts and bucket
 * layouts, so Kueue's dashboards and alerts work unchanged.
 *
 * Every series carries `replica_role` ("standalone", "leader" or
 * "follower") except kueue_build_info, as in Kueue.  Histograms "exp(N)"
 * use Kueue's buckets {1, 2.5*2^k for k = 0..N-2}: exp(14) for the wait
 * times, exp(16) for admission_wait_time_seconds and the execution times.
 *
 * Registered (all prefixed kueue_): admission_attempts_total,
 * admission_attempt_duration_seconds, admission_cycle_preemption_skips,
 * preemption_target_recomputations_total, build_info, pending_workloads,
 * pending_scheduling_hashes, finished_workloads, {quota_reserved,admitted,
 * finished}_workloads_total, {quota_reserved,ready,admitted_until_ready,
 * admission_checks,admission}_wait_time_seconds, execution_time_seconds,
 * pods_ready_to_evicted_time_seconds, workload_creation_latency_seconds,
 * evicted_workloads_total, evicted_workloads_once_total,
 * replaced_workload_slices_total, preempted_workloads_total,
 * workload_eviction_latency_seconds, reserving_active_workloads,
 * admitted_active_workloads, cluster_queue_status, unadmitted_workloads,
 * cluster_queue_{resource_reservation,resource_usage,nominal_quota,
 * borrowing_limit,lending_limit,resource_pending,weighted_share},
 * cohort_weighted_share, cohort_subtree_{quota,resource_reservations,
 * admitted_workloads_total,admitted_active_workloads}, and the local_queue_*
 * twins of the LocalQueue-level ones (pending, finished, counters, wait and
 * execution times, evictions, active counts, status, unadmitted, resource
 * reservation/usage, admission_fair_sharing_usage).
 *
 * Skipped: multikueue_workloads_{dispatched,admitted}_total (no MultiKueue)
 * and pod_scheduling_gate_removal_seconds (pod groups and TAS ungating,
 * which Turnstile does not do); the custom_<name> labels of
 * metrics.customLabels (feature gate CustomMetricLabels, off by default).
 *
 * Which series exist is the caller's policy, as in Kueue: LocalQueue series
 * only for LocalQueues selected by localQueueMetrics (pass a NULL
 * lq_name otherwise), the cluster_queue_resource_* gauges only with
 * enableClusterQueueResources.  Resource values are in natural units (cpu
 * in cores, memory in bytes); times in seconds.  A NULL label value is "".
 *
 * Thread rule: call every ts_kmetrics_* from one thread (the controller's
 * loop); the registry's mutex makes that safe against the metrics server
 * rendering concurrently.
 *
 * Ownership: ts_kmetrics borrows the registry (it must outlive it) and
 * copies the replica role; label strings are never kept.
 */
#ifndef TS_METRICS_KUEUE_H
#define TS_METRICS_KUEUE_H

#include "metrics/registry.h"
#include "util/err.h"

struct ts_kmetrics;

/* A workload as its metrics see it. */
struct ts_kmetrics_wl {
    const char *cluster_queue;
    const char *priority_class; /* spec.priorityClassName; NULL = "" */
    const char *lq_namespace;   /* the LocalQueue, for local_queue_* series; */
    const char *lq_name;        /* NULL lq_name = no LocalQueue series */
};

enum ts_kmetrics_cq_status {
    TS_KMETRICS_CQ_PENDING = 0,
    TS_KMETRICS_CQ_ACTIVE,
    TS_KMETRICS_CQ_TERMINATING,
};

/* The LocalQueue's Active condition status. */
enum ts_kmetrics_lq_active {
    TS_KMETRICS_LQ_TRUE = 0,
    TS_KMETRICS_LQ_FALSE,
    TS_KMETRICS_LQ_UNKNOWN,
};

/* Registers Kueue's families on reg.  role: "standalone", "leader" or
 * "follower".  Returns 0, TS_EINVAL (unknown role) or TS_EEXIST (Kueue's
 * families are already on reg).  Ownership: *out is freed with
 * ts_kmetrics_free(); reg is borrowed and keeps the families. */
int ts_kmetrics_new(struct ts_metrics_registry *reg, const char *role, struct ts_kmetrics **out,
                    struct ts_err *err);
/* Frees the handle (the families stay on the registry).  NULL is fine. */
void ts_kmetrics_free(struct ts_kmetrics *m);

/* Changes replica_role (e.g. a follower won the election): every series
 * but build_info is dropped, because the new role starts its own state.
 * Returns 0 or TS_EINVAL. */
int ts_kmetrics_set_role(struct ts_kmetrics *m, const char *role);

/* kueue_build_info = 1 (no replica_role), once at start-up. */
void ts_kmetrics_build_info(struct ts_kmetrics *m, const char *git_version, const char *git_commit,
                            const char *build_date, const char *go_version, const char *compiler,
                            const char *platform);

/* --- scheduling cycle ------------------------------------------------------- */

/* After each cycle: result "success" if it admitted anything, else
 * "inadmissible"; duration in seconds. */
void ts_kmetrics_admission_attempt(struct ts_kmetrics *m, int admitted_any, double seconds);
/* Workloads of cq skipped this cycle because another queue took the
 * resources their preemption would free. */
void ts_kmetrics_preemption_skips(struct ts_kmetrics *m, const char *cq, double n);
/* Preemption targets recomputed: result "new_targets", "deferred_fit" or
 * "skipped". */
void ts_kmetrics_preemption_recomputed(struct ts_kmetrics *m, const char *cq, const char *result);

/* --- workload lifecycle (counters and histograms) ----------------------------- */

/* A Workload was created for a job of job_kind ("batch/job", ...). */
void ts_kmetrics_workload_created(struct ts_kmetrics *m, const char *job_kind, double latency_s);
/* Quota reserved: *_quota_reserved_workloads_total and
 * *_quota_reserved_wait_time_seconds (wait = since creation or requeue). */
void ts_kmetrics_quota_reserved(struct ts_kmetrics *m, const struct ts_kmetrics_wl *w,
                                double wait_s);
/* Admitted: *_admitted_workloads_total and *_admission_wait_time_seconds,
 * plus kueue_cohort_subtree_admitted_workloads_total for each of the
 * n_cohorts cohorts above the ClusterQueue (parent first). */
void ts_kmetrics_admitted(struct ts_kmetrics *m, const struct ts_kmetrics_wl *w, double wait_s,
                          const char *const *cohorts, size_t n_cohorts);
/* Admission checks passed: *_admission_checks_wait_time_seconds (time
 * from quota reservation to admission; only workloads with checks). */
void ts_kmetrics_admission_checks_waited(struct ts_kmetrics *m, const struct ts_kmetrics_wl *w,
                                         double wait_s);
/* PodsReady: *_ready_wait_time_seconds (since creation or requeue) and
 * *_admitted_until_ready_wait_time_seconds (since admission). */
void ts_kmetrics_pods_ready(struct ts_kmetrics *m, const struct ts_kmetrics_wl *w,
                            double ready_wait_s, double since_admitted_s);
/* Finished: *_finished_workloads_total and *_execution_time_seconds
 * (since admission). */
void ts_kmetrics_finished(struct ts_kmetrics *m, const struct ts_kmetrics_wl *w,
                          double execution_s);
/* Evicted with Kueue's reason ("Preempted", "PodsReadyTimeout",
 * "ClusterQueueStopped", "Deactivated", ...) and underlying cause (""
 * when the reason is the root cause): *_evicted_workloads_total, and
 * kueue_evicted_workloads_once_total when first is set (the workload's
 * first eviction). */
void ts_kmetrics_evicted(struct ts_kmetrics *m, const struct ts_kmetrics_wl *w, const char *reason,
                         const char *underlying_cause, int first);
/* Seconds from PodsReady=True to the eviction. */
void ts_kmetrics_pods_ready_to_evicted(struct ts_kmetrics *m, const char *cq, const char *reason,
                                       const char *underlying_cause, double seconds);
/* Seconds from deciding an eviction to the Workload's Evicted condition. */
void ts_kmetrics_eviction_latency(struct ts_kmetrics *m, const char *cq, const char *reason,
                                  double seconds);
/* A workload was preempted for a workload of preempting_cq; reason is
 * "InClusterQueue", "InCohortReclamation", "InCohortFairSharing" or
 * "InCohortReclaimWhileBorrowing". */
void ts_kmetrics_preempted(struct ts_kmetrics *m, const char *preempting_cq, const char *reason);
/* An elastic workload slice replaced its predecessor. */
void ts_kmetrics_slice_replaced(struct ts_kmetrics *m, const char *cq);

/* --- ClusterQueue gauges (set after each change of the queue) ------------------ */

/* kueue_pending_workloads{status="active"|"inadmissible"}. */
void ts_kmetrics_pending(struct ts_kmetrics *m, const char *cq, double active, double inadmissible);
/* kueue_pending_scheduling_hashes: distinct equivalence classes pending. */
void ts_kmetrics_pending_hashes(struct ts_kmetrics *m, const char *cq, double active,
                                double inadmissible);
void ts_kmetrics_reserving_active(struct ts_kmetrics *m, const char *cq, double n);
void ts_kmetrics_admitted_active(struct ts_kmetrics *m, const char *cq, double n);
void ts_kmetrics_finished_count(struct ts_kmetrics *m, const char *cq, double n);
/* Sets kueue_cluster_queue_status to 1 for status and 0 for the others. */
void ts_kmetrics_cq_status(struct ts_kmetrics *m, const char *cq, enum ts_kmetrics_cq_status st);
/* Workloads without quota for (reason, underlying_cause). */
void ts_kmetrics_unadmitted(struct ts_kmetrics *m, const char *cq, const char *reason,
                            const char *underlying_cause, double n);
/* The per flavor/resource gauges: usage (admitted), reservation (quota
 * reserved), nominal quota, and the borrowing and lending limits, which
 * are only reported when set (pass NAN for "no limit").  cohort is the
 * ClusterQueue's spec.cohort ("" or NULL without one). */
void ts_kmetrics_cq_resource(struct ts_kmetrics *m, const char *cq, const char *cohort,
                             const char *flavor, const char *resource, double usage,
                             double reservation, double nominal, double borrowing_limit,
                             double lending_limit);
/* Requests of pending workloads, per resource. */
void ts_kmetrics_cq_resource_pending(struct ts_kmetrics *m, const char *cq, const char *resource,
                                     double v);
/* kueue_cluster_queue_weighted_share (cohort: spec.cohort or ""). */
void ts_kmetrics_weighted_share(struct ts_kmetrics *m, const char *cq, const char *cohort,
                                double v);

/* --- Cohort gauges ------------------------------------------------------------ */

void ts_kmetrics_cohort_weighted_share(struct ts_kmetrics *m, const char *cohort, double v);
void ts_kmetrics_cohort_resource(struct ts_kmetrics *m, const char *cohort, const char *flavor,
                                 const char *resource, double subtree_quota, double reservations);
void ts_kmetrics_cohort_admitted_active(struct ts_kmetrics *m, const char *cohort, double n);

/* --- LocalQueue gauges -------------------------------------------------------- */

void ts_kmetrics_lq_pending(struct ts_kmetrics *m, const char *ns, const char *lq, double active,
                            double inadmissible);
void ts_kmetrics_lq_reserving_active(struct ts_kmetrics *m, const char *ns, const char *lq,
                                     double n);
void ts_kmetrics_lq_admitted_active(struct ts_kmetrics *m, const char *ns, const char *lq,
                                    double n);
void ts_kmetrics_lq_finished_count(struct ts_kmetrics *m, const char *ns, const char *lq, double n);
/* Sets kueue_local_queue_status{active=...} to 1 for st, 0 for the others. */
void ts_kmetrics_lq_status(struct ts_kmetrics *m, const char *ns, const char *lq,
                           enum ts_kmetrics_lq_active st);
void ts_kmetrics_lq_unadmitted(struct ts_kmetrics *m, const char *ns, const char *lq,
                               const char *cq, const char *reason, const char *underlying_cause,
                               double n);
void ts_kmetrics_lq_resource(struct ts_kmetrics *m, const char *ns, const char *lq,
                             const char *flavor, const char *resource, double usage,
                             double reservation);
void ts_kmetrics_lq_fair_sharing_usage(struct ts_kmetrics *m, const char *ns, const char *lq,
                                       const char *cq, double v);

/* --- deletion ----------------------------------------------------------------- */

/* A ClusterQueue was deleted: drops every series labelled with it
 * (cluster_queue or preempting_cluster_queue), counters included. */
void ts_kmetrics_forget_cq(struct ts_kmetrics *m, const char *cq);
/* Drops only cq's cluster_queue_resource_* and cluster_queue_weighted_share
 * series, before re-reporting them after a spec change (cohort, flavors
 * or resources may have gone). */
void ts_kmetrics_forget_cq_resources(struct ts_kmetrics *m, const char *cq);
/* A LocalQueue was deleted (or stopped matching localQueueMetrics). */
void ts_kmetrics_forget_lq(struct ts_kmetrics *m, const char *ns, const char *lq);
/* A Cohort was deleted: drops the kueue_cohort_* series of it. */
void ts_kmetrics_forget_cohort(struct ts_kmetrics *m, const char *cohort);

#endif
