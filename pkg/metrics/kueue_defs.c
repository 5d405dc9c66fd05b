/*
 * kueue_defs.c - Kueue's metric families: names, label names, HELP texts
 * and bucket layouts as pkg/metrics/metrics.go declares them (HELP texts
 * kept word for word where known, newlines included: the exposition
 * escapes them).  Labels are in Kueue's order; replica_role is added by
 * kueue.c.  Data only.
 */
#include "metrics/kueue_int.h"

#define CQ "cluster_queue"
#define PC "priority_class"
#define LQ "name", "namespace"
#define C  TS_METRICS_COUNTER
#define G  TS_METRICS_GAUGE
#define H  TS_METRICS_HISTOGRAM

#define RESULT_HELP                                                                                \
    "The label 'result' can have the following values:\n"                                          \
    "- 'success' means that at least one workload was admitted.,\n"                                \
    "- 'inadmissible' means that no workload was admitted."

#define PENDING_STATUS_HELP                                                                        \
    "'status' can have the following values:\n"                                                    \
    "- \"active\" means that the workloads are in the admission queue.\n"                          \
    "- \"inadmissible\" means there was a failed admission attempt for these workloads and they "  \
    "won't be retried until cluster conditions, which could make this workload admissible, change"

#define EVICTION_HELP                                                                              \
    "The label 'reason' can have the following values:\n"                                          \
    "- \"Preempted\" means that the workload was evicted in order to free resources for a "        \
    "workload with a higher priority or reclamation of nominal quota.\n"                           \
    "- \"PodsReadyTimeout\" means that the eviction took place due to a PodsReady timeout.\n"      \
    "- \"AdmissionCheck\" means that the workload was evicted because at least one admission "     \
    "check transitioned to False.\n"                                                               \
    "- \"ClusterQueueStopped\" means that the workload was evicted because the ClusterQueue is "   \
    "stopped.\n"                                                                                   \
    "- \"LocalQueueStopped\" means that the workload was evicted because the LocalQueue is "       \
    "stopped.\n"                                                                                   \
    "- \"NodeFailures\" means that the workload was evicted due to node failures when using "      \
    "TopologyAwareScheduling.\n"                                                                   \
    "- \"Deactivated\" means that the workload was evicted because spec.active is set to false.\n" \
    "The label 'underlying_cause' can have the following values:\n"                                \
    "- \"\" means that the value in 'reason' label is the root cause for eviction.\n"              \
    "- \"AdmissionCheck\" means that the workload was evicted by Kueue due to a rejected "         \
    "admission check.\n"                                                                           \
    "- \"MaximumExecutionTimeExceeded\" means that the workload was evicted by Kueue due to "      \
    "maximum execution time exceeded.\n"                                                           \
    "- \"RequeuingLimitExceeded\" means that the workload was evicted by Kueue due to requeuing "  \
    "limit exceeded."

#define PREEMPTION_HELP                                                                            \
    "The label 'reason' can have the following values:\n"                                          \
    "- \"InClusterQueue\" means that the workload was preempted by a workload in the same "        \
    "ClusterQueue.\n"                                                                              \
    "- \"InCohortReclamation\" means that the workload was preempted by a workload in the same "   \
    "cohort due to reclamation of nominal quota.\n"                                                \
    "- \"InCohortFairSharing\" means that the workload was preempted by a workload in the same "   \
    "cohort due to fair sharing.\n"                                                                \
    "- \"InCohortReclaimWhileBorrowing\" means that the workload was preempted by a workload in "  \
    "the same cohort due to reclamation of nominal quota while borrowing."

#define SHARE_HELP(who)                                                                            \
    "Reports a value that representing the maximum of the ratios of usage above nominal \n"        \
    "quota to the lendable resources in the cohort, among all the resources provided by \n"        \
    "the " who ", and divided by the weight.\n"                                                    \
    "If zero, it means that the usage of the " who " is below the nominal quota.\n"                \
    "If the " who " has a weight of zero and is borrowing, this will return NaN."

const struct ts__km_def ts__kmetrics_defs[TS__KM_N] = {
    [TS__KM_ATTEMPTS] =
        {.kind = C,
         .name = "kueue_admission_attempts_total",
         .labels = {"result"},
         .help = "The total number of attempts to admit workloads.\n"
                 "Each admission attempt might try to admit more than one workload.\n" RESULT_HELP},
    [TS__KM_ATTEMPT_DURATION] = {.kind = H,
                                 .name = "kueue_admission_attempt_duration_seconds",
                                 .labels = {"result"},
                                 .buckets = TS__KM_DEFAULT_BUCKETS,
                                 .help = "The latency of an admission attempt.\n" RESULT_HELP},
    [TS__KM_PREEMPTION_SKIPS] =
        {.kind = G,
         .name = "kueue_admission_cycle_preemption_skips",
         .labels = {CQ},
         .help = "The number of Workloads in the ClusterQueue that got preemption "
                 "candidates but had to be skipped because other ClusterQueues "
                 "needed the same resources in the same cycle"},
    [TS__KM_RECOMPUTATIONS] =
        {.kind = C,
         .name = "kueue_preemption_target_recomputations_total",
         .labels = {CQ, "result"},
         .help = "The total number of times the preemption targets of a workload "
                 "were recomputed because they overlapped with the targets of an "
                 "earlier workload in the same cycle, per 'cluster_queue'.\n"
                 "The label 'result' can have the following values:\n"
                 "- 'new_targets' means that new targets were found.\n"
                 "- 'deferred_fit' means that the workload may fit after the "
                 "earlier preemptions and was deferred.\n"
                 "- 'skipped' means that the workload was skipped in this cycle."},
    [TS__KM_BUILD_INFO] =
        {.kind = G,
         .name = "kueue_build_info",
         .labels = {"git_version", "git_commit", "build_date", "go_version", "compiler",
                    "platform"},
         .no_role = 1,
         .help = "Kueue build information. 1 labeled by git version, git commit, build "
                 "date, go version, compiler, platform"},
    [TS__KM_PENDING] = {.kind = G,
                        .name = "kueue_pending_workloads",
                        .labels = {CQ, "status"},
                        .help = "The number of pending workloads, per 'cluster_queue' and "
                                "'status'.\n" PENDING_STATUS_HELP},
    [TS__KM_PENDING_HASHES] =
        {.kind = G,
         .name = "kueue_pending_scheduling_hashes",
         .labels = {CQ, "status"},
         .help = "The number of distinct scheduling equivalence hashes among the "
                 "pending workloads, per 'cluster_queue' and 'status'.\n" PENDING_STATUS_HELP},
    [TS__KM_LQ_PENDING] = {.kind = G,
                           .name = "kueue_local_queue_pending_workloads",
                           .labels = {LQ, "status"},
                           .help = "The number of pending workloads, per 'local_queue' and "
                                   "'status'.\n" PENDING_STATUS_HELP},
    [TS__KM_FINISHED] = {.kind = G,
                         .name = "kueue_finished_workloads",
                         .labels = {CQ},
                         .help = "The number of finished workloads, per 'cluster_queue'"},
    [TS__KM_LQ_FINISHED] = {.kind = G,
                            .name = "kueue_local_queue_finished_workloads",
                            .labels = {LQ},
                            .help = "The number of finished workloads, per 'local_queue'"},
    [TS__KM_QR_TOTAL] = {.kind = C,
                         .name = "kueue_quota_reserved_workloads_total",
                         .labels = {CQ, PC},
                         .help =
                             "The total number of quota reserved workloads per 'cluster_queue'"},
    [TS__KM_ADMITTED_TOTAL] = {.kind = C,
                               .name = "kueue_admitted_workloads_total",
                               .labels = {CQ, PC},
                               .help =
                                   "The total number of admitted workloads per 'cluster_queue'"},
    [TS__KM_FINISHED_TOTAL] = {.kind = C,
                               .name = "kueue_finished_workloads_total",
                               .labels = {CQ, PC},
                               .help =
                                   "The total number of finished workloads per 'cluster_queue'"},
    [TS__KM_LQ_QR_TOTAL] = {.kind = C,
                            .name = "kueue_local_queue_quota_reserved_workloads_total",
                            .labels = {LQ, PC},
                            .help =
                                "The total number of quota reserved workloads per 'local_queue'"},
    [TS__KM_LQ_ADMITTED_TOTAL] = {.kind = C,
                                  .name = "kueue_local_queue_admitted_workloads_total",
                                  .labels = {LQ, PC},
                                  .help =
                                      "The total number of admitted workloads per 'local_queue'"},
    [TS__KM_LQ_FINISHED_TOTAL] = {.kind = C,
                                  .name = "kueue_local_queue_finished_workloads_total",
                                  .labels = {LQ, PC},
                                  .help =
                                      "The total number of finished workloads per 'local_queue'"},
    [TS__KM_QR_WAIT] =
        {.kind = H,
         .name = "kueue_quota_reserved_wait_time_seconds",
         .labels = {CQ, PC},
         .buckets = TS__KM_EXP14,
         .help = "The time between a workload was created or requeued until it got quota "
                 "reservation, per 'cluster_queue'"},
    [TS__KM_READY_WAIT] =
        {.kind = H,
         .name = "kueue_ready_wait_time_seconds",
         .labels = {CQ, PC},
         .buckets = TS__KM_EXP14,
         .help = "The time between a workload was created or requeued until ready, per "
                 "'cluster_queue'"},
    [TS__KM_ADMITTED_UNTIL_READY] =
        {.kind = H,
         .name = "kueue_admitted_until_ready_wait_time_seconds",
         .labels = {CQ, PC},
         .buckets = TS__KM_EXP14,
         .help = "The time between a workload was admitted until ready, per "
                 "'cluster_queue'"},
    [TS__KM_CHECKS_WAIT] = {.kind = H,
                            .name = "kueue_admission_checks_wait_time_seconds",
                            .labels = {CQ, PC},
                            .buckets = TS__KM_EXP14,
                            .help = "The time from when a workload got the quota reservation until "
                                    "admission, per 'cluster_queue'"},
    [TS__KM_ADMISSION_WAIT] = {.kind = H,
                               .name = "kueue_admission_wait_time_seconds",
                               .labels = {CQ, PC},
                               .buckets = TS__KM_EXP16,
                               .help = "The time between a workload was created or requeued until "
                                       "admission, per 'cluster_queue'"},
    [TS__KM_EXECUTION] = {.kind = H,
                          .name = "kueue_execution_time_seconds",
                          .labels = {CQ, PC},
                          .buckets = TS__KM_EXP16,
                          .help = "The time between a workload was admitted until finished, per "
                                  "'cluster_queue'"},
    [TS__KM_LQ_QR_WAIT] = {.kind = H,
                           .name = "kueue_local_queue_quota_reserved_wait_time_seconds",
                           .labels = {LQ, PC},
                           .buckets = TS__KM_EXP14,
                           .help =
                               "The time between a workload was created or requeued until it got "
                               "quota reservation, per 'local_queue'"},
    [TS__KM_LQ_ADMISSION_WAIT] = {.kind = H,
                                  .name = "kueue_local_queue_admission_wait_time_seconds",
                                  .labels = {LQ, PC},
                                  .buckets = TS__KM_EXP14,
                                  .help =
                                      "The time between a workload was created or requeued until "
                                      "admission, per 'local_queue'"},
    [TS__KM_LQ_CHECKS_WAIT] = {.kind = H,
                               .name = "kueue_local_queue_admission_checks_wait_time_seconds",
                               .labels = {LQ, PC},
                               .buckets = TS__KM_EXP14,
                               .help =
                                   "The time from when a workload got the quota reservation until "
                                   "admission, per 'local_queue'"},
    [TS__KM_LQ_READY_WAIT] =
        {.kind = H,
         .name = "kueue_local_queue_ready_wait_time_seconds",
         .labels = {LQ, PC},
         .buckets = TS__KM_EXP14,
         .help = "The time between a workload was created or requeued until ready, "
                 "per 'local_queue'"},
    [TS__KM_LQ_ADMITTED_UNTIL_READY] =
        {.kind = H,
         .name = "kueue_local_queue_admitted_until_ready_wait_time_seconds",
         .labels = {LQ, PC},
         .buckets = TS__KM_EXP14,
         .help = "The time between a workload was admitted until ready, per "
                 "'local_queue'"},
    [TS__KM_LQ_EXECUTION] = {.kind = H,
                             .name = "kueue_local_queue_execution_time_seconds",
                             .labels = {LQ, PC},
                             .buckets = TS__KM_EXP16,
                             .help = "The time between a workload was admitted until finished, per "
                                     "'local_queue'"},
    [TS__KM_READY_TO_EVICTED] =
        {.kind = H,
         .name = "kueue_pods_ready_to_evicted_time_seconds",
         .labels = {CQ, "reason", "underlying_cause"},
         .buckets = TS__KM_EXP14,
         .help = "The number of seconds between a workload's start until it was "
                 "evicted (PodsReady=True to Evicted=True), per 'cluster_queue'.\n" EVICTION_HELP},
    [TS__KM_CREATION_LATENCY] =
        {.kind = H,
         .name = "kueue_workload_creation_latency_seconds",
         .labels = {"job_kind"},
         .buckets = TS__KM_CREATION,
         .help = "The time from a job's creation until its Workload was created, "
                 "per 'job_kind'"},
    [TS__KM_EVICTED_TOTAL] =
        {.kind = C,
         .name = "kueue_evicted_workloads_total",
         .labels = {CQ, "reason", "underlying_cause", PC},
         .help = "The number of evicted workloads per 'cluster_queue',\n" EVICTION_HELP},
    [TS__KM_EVICTED_ONCE_TOTAL] =
        {.kind = C,
         .name = "kueue_evicted_workloads_once_total",
         .labels = {CQ, "reason", "underlying_cause", PC},
         .help = "The number of unique workload evictions per 'cluster_queue',\n" EVICTION_HELP},
    [TS__KM_LQ_EVICTED_TOTAL] =
        {.kind = C,
         .name = "kueue_local_queue_evicted_workloads_total",
         .labels = {LQ, "reason", "underlying_cause", PC},
         .help = "The number of evicted workloads per 'local_queue',\n" EVICTION_HELP},
    [TS__KM_SLICES_REPLACED] = {.kind = C,
                                .name = "kueue_replaced_workload_slices_total",
                                .labels = {CQ},
                                .help =
                                    "The number of replaced workload slices per 'cluster_queue'"},
    [TS__KM_PREEMPTED_TOTAL] = {.kind = C,
                                .name = "kueue_preempted_workloads_total",
                                .labels = {"preempting_cluster_queue", "reason"},
                                .help = "The number of preempted workloads per "
                                        "'preempting_cluster_queue',\n" PREEMPTION_HELP},
    [TS__KM_EVICTION_LATENCY] = {.kind = H,
                                 .name = "kueue_workload_eviction_latency_seconds",
                                 .labels = {CQ, "reason"},
                                 .buckets = TS__KM_EXP14,
                                 .help =
                                     "The time from the decision to evict a workload until it was "
                                     "evicted, per 'cluster_queue' and 'reason'"},
    [TS__KM_RESERVING_ACTIVE] = {.kind = G,
                                 .name = "kueue_reserving_active_workloads",
                                 .labels = {CQ},
                                 .help = "The number of Workloads that are reserving quota, per "
                                         "'cluster_queue'"},
    [TS__KM_ADMITTED_ACTIVE] = {.kind = G,
                                .name = "kueue_admitted_active_workloads",
                                .labels = {CQ},
                                .help =
                                    "The number of admitted Workloads that are active (unsuspended "
                                    "and not finished), per 'cluster_queue'"},
    [TS__KM_LQ_RESERVING_ACTIVE] = {.kind = G,
                                    .name = "kueue_local_queue_reserving_active_workloads",
                                    .labels = {LQ},
                                    .help = "The number of Workloads that are reserving quota, per "
                                            "'localQueue'"},
    [TS__KM_LQ_ADMITTED_ACTIVE] =
        {.kind = G,
         .name = "kueue_local_queue_admitted_active_workloads",
         .labels = {LQ},
         .help = "The number of admitted Workloads that are active (unsuspended "
                 "and not finished), per 'localQueue'"},
    [TS__KM_CQ_STATUS] = {.kind = G,
                          .name = "kueue_cluster_queue_status",
                          .labels = {CQ, "status"},
                          .help =
                              "Reports 'cluster_queue' with its 'status' (with possible values "
                              "'pending', 'active' or 'terminated').\n"
                              "For a ClusterQueue, the metric only reports a value of 1 for one of "
                              "the statuses."},
    [TS__KM_LQ_STATUS] =
        {.kind = G,
         .name = "kueue_local_queue_status",
         .labels = {LQ, "active"},
         .help = "Reports 'localQueue' with its 'active' status (with possible values "
                 "'True', 'False', or 'Unknown').\n"
                 "For a LocalQueue, the metric only reports a value of 1 for one of the "
                 "statuses."},
    [TS__KM_UNADMITTED] = {.kind = G,
                           .name = "kueue_unadmitted_workloads",
                           .labels = {CQ, "reason", "underlying_cause"},
                           .help = "The number of workloads without quota reservation, per "
                                   "'cluster_queue', 'reason' and 'underlying_cause'"},
    [TS__KM_LQ_UNADMITTED] =
        {.kind = G,
         .name = "kueue_local_queue_unadmitted_workloads",
         .labels = {LQ, CQ, "reason", "underlying_cause"},
         .help = "The number of workloads without quota reservation, per "
                 "'local_queue', 'cluster_queue', 'reason' and 'underlying_cause'"},
    [TS__KM_CQ_RESERVATION] =
        {.kind = G,
         .name = "kueue_cluster_queue_resource_reservation",
         .labels = {"cohort", CQ, "flavor", "resource"},
         .help = "Reports the cluster_queue's total resource reservation within all "
                 "the flavors"},
    [TS__KM_CQ_USAGE] = {.kind = G,
                         .name = "kueue_cluster_queue_resource_usage",
                         .labels = {"cohort", CQ, "flavor", "resource"},
                         .help = "Reports the cluster_queue's total resource usage within all the "
                                 "flavors"},
    [TS__KM_CQ_NOMINAL] = {.kind = G,
                           .name = "kueue_cluster_queue_nominal_quota",
                           .labels = {"cohort", CQ, "flavor", "resource"},
                           .help =
                               "Reports the cluster_queue's resource nominal quota within all the "
                               "flavors"},
    [TS__KM_CQ_BORROWING] =
        {.kind = G,
         .name = "kueue_cluster_queue_borrowing_limit",
         .labels = {"cohort", CQ, "flavor", "resource"},
         .help = "Reports the cluster_queue's resource borrowing limit within all the "
                 "flavors"},
    [TS__KM_CQ_LENDING] = {.kind = G,
                           .name = "kueue_cluster_queue_lending_limit",
                           .labels = {"cohort", CQ, "flavor", "resource"},
                           .help =
                               "Reports the cluster_queue's resource lending limit within all the "
                               "flavors"},
    [TS__KM_CQ_PENDING_RESOURCE] = {.kind = G,
                                    .name = "kueue_cluster_queue_resource_pending",
                                    .labels = {CQ, "resource"},
                                    .help =
                                        "Reports the cluster_queue's total resource requests of "
                                        "pending workloads"},
    [TS__KM_LQ_RESERVATION] = {.kind = G,
                               .name = "kueue_local_queue_resource_reservation",
                               .labels = {LQ, "flavor", "resource"},
                               .help =
                                   "Reports the localQueue's total resource reservation within all "
                                   "the flavors"},
    [TS__KM_LQ_USAGE] =
        {.kind = G,
         .name = "kueue_local_queue_resource_usage",
         .labels = {LQ, "flavor", "resource"},
         .help = "Reports the localQueue's total resource usage within all the flavors"},
    [TS__KM_LQ_FAIR_SHARING_USAGE] = {.kind = G,
                                      .name = "kueue_local_queue_admission_fair_sharing_usage",
                                      .labels = {LQ, CQ},
                                      .help =
                                          "Reports the localQueue's admission fair sharing usage"},
    [TS__KM_CQ_WEIGHTED_SHARE] = {.kind = G,
                                  .name = "kueue_cluster_queue_weighted_share",
                                  .labels = {CQ, "cohort"},
                                  .help = SHARE_HELP("ClusterQueue")},
    [TS__KM_COHORT_WEIGHTED_SHARE] = {.kind = G,
                                      .name = "kueue_cohort_weighted_share",
                                      .labels = {"cohort"},
                                      .help = SHARE_HELP("Cohort")},
    [TS__KM_COHORT_QUOTA] = {.kind = G,
                             .name = "kueue_cohort_subtree_quota",
                             .labels = {"cohort", "flavor", "resource"},
                             .help = "Reports the cohort's subtree quota within all the flavors"},
    [TS__KM_COHORT_RESERVATIONS] = {.kind = G,
                                    .name = "kueue_cohort_subtree_resource_reservations",
                                    .labels = {"cohort", "flavor", "resource"},
                                    .help =
                                        "Reports the cohort's subtree resource reservations within "
                                        "all the flavors"},
    [TS__KM_COHORT_ADMITTED_TOTAL] =
        {.kind = C,
         .name = "kueue_cohort_subtree_admitted_workloads_total",
         .labels = {"cohort", PC},
         .help = "The total number of admitted workloads in the subtree of "
                 "'cohort'"},
    [TS__KM_COHORT_ADMITTED_ACTIVE] =
        {.kind = G,
         .name = "kueue_cohort_subtree_admitted_active_workloads",
         .labels = {"cohort"},
         .help = "The number of admitted Workloads that are active "
                 "(unsuspended and not finished) in the subtree of 'cohort'"},
};
