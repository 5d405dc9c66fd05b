/*
 * workload.h - the kueue.x-k8s.io Workload in its internal (v1beta2)
 * shape: typed spec and status, JSON decode (with Kueue's defaults) and
 * encode, the validating webhook's create and update rules, and the state
 * predicates the engine asks about (Kueue's pkg/workload/workload.go).
 *
 * v1beta1 objects are converted to v1beta2 JSON first (convert.h); the
 * typed struct only ever sees v1beta2.  Parts Turnstile does not interpret
 * (topologyRequest, topologyAssignment, preemptionGates) are kept as owned
 * cJSON copies and written back unchanged.
 *
 * Ownership: a struct ts_workload owns every string, list and cJSON copy
 * inside it.  _init() prepares one, _release() frees it and re-initialises,
 * _copy() deep-copies.  status.admission is NULL when absent.  Not
 * thread-safe on the same object; every function is pure (no I/O, no
 * clock: callers pass `now`).
 */
#ifndef TS_API_WORKLOAD_H
#define TS_API_WORKLOAD_H

#include <cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "api/core.h"
#include "api/dec.h"
#include "api/field.h"
#include "api/meta.h"
#include "api/opt.h"
#include "api/podtemplate.h"
#include "resource/resource_list.h"
#include "util/strlist.h"
#include "util/strmap.h"
#include "util/time.h"

#define TS_WL_API_VERSION    "kueue.x-k8s.io/v1beta2"
#define TS_WL_KIND           "Workload"
#define TS_WL_DEFAULT_PODSET "main"
#define TS_WL_MAX_PODSETS    8
#define TS_WL_FINALIZER      "kueue.x-k8s.io/resource-in-use"

/* priorityClassRef groups / kinds and their v1beta1 priorityClassSource. */
#define TS_WL_PRIO_GROUP_KUEUE      "kueue.x-k8s.io"
#define TS_WL_PRIO_GROUP_SCHEDULING "scheduling.k8s.io"
#define TS_WL_PRIO_KIND_WPC         "WorkloadPriorityClass"
#define TS_WL_PRIO_KIND_PC          "PriorityClass"
#define TS_WL_PRIO_SOURCE_WPC       "kueue.x-k8s.io/workloadpriorityclass"
#define TS_WL_PRIO_SOURCE_PC        "scheduling.k8s.io/priorityclass"

/* --- condition types ----------------------------------------------------- */
#define TS_WL_COND_QUOTA_RESERVED               "QuotaReserved"
#define TS_WL_COND_ADMITTED                     "Admitted"
#define TS_WL_COND_EVICTED                      "Evicted"
#define TS_WL_COND_PREEMPTED                    "Preempted"
#define TS_WL_COND_REQUEUED                     "Requeued"
#define TS_WL_COND_PODS_READY                   "PodsReady"
#define TS_WL_COND_FINISHED                     "Finished"
#define TS_WL_COND_DEACTIVATION_TARGET          "DeactivationTarget"
#define TS_WL_COND_WAITING_FOR_REPLACEMENT_PODS "WaitingForReplacementPods"
#define TS_WL_COND_BLOCKED_ON_PREEMPTION_GATES  "BlockedOnPreemptionGates"

/* --- QuotaReserved reasons ----------------------------------------------- */
#define TS_WL_REASON_QUOTA_RESERVED                  "QuotaReserved"
#define TS_WL_REASON_PENDING_EVALUATION              "PendingEvaluation"
#define TS_WL_REASON_WAITING_FOR_QUOTA               "WaitingForQuota"
#define TS_WL_REASON_NO_MATCHING_FLAVOR              "NoMatchingFlavor"
#define TS_WL_REASON_EXCEEDS_MAX_QUOTA               "ExceedsMaxQuota"
#define TS_WL_REASON_TOPOLOGY_PLACEMENT_FAILED       "TopologyPlacementFailed"
#define TS_WL_REASON_WAITING_FOR_PREEMPTED_WORKLOADS "WaitingForPreemptedWorkloads"
#define TS_WL_REASON_MISCONFIGURED                   "Misconfigured"
#define TS_WL_REASON_SUSPENDED                       "Suspended"
#define TS_WL_REASON_WAITING_FOR_PODS_READY          "WaitingForPodsReady"
#define TS_WL_REASON_ADMISSION_GATED                 "AdmissionGated"
#define TS_WL_REASON_ON_HOLD                         "OnHold"
/* legacy fallbacks when UnadmittedWorkloadsObservability is off */
#define TS_WL_REASON_PENDING      "Pending"
#define TS_WL_REASON_INADMISSIBLE "Inadmissible"
#define TS_WL_REASON_WAITING      "Waiting"

/* --- PodsReady (waitForPodsReady) --------------------------------------- */
#define TS_WL_REASON_WAIT_FOR_START "WaitForStart"
#define TS_WL_MSG_WAIT_FOR_START    "Not all pods are ready or succeeded"
#define TS_WL_MSG_REACTIVATED       "The workload was reactivated"

/* --- Admitted reasons ----------------------------------------------------- */
#define TS_WL_REASON_ADMITTED                          "Admitted"
#define TS_WL_REASON_NO_RESERVATION                    "NoReservation"
#define TS_WL_REASON_UNSATISFIED_ADMISSION_CHECKS      "UnsatisfiedAdmissionChecks"
#define TS_WL_REASON_UNSATISFIED_CHECKS                "UnsatisfiedChecks"
#define TS_WL_REASON_NO_RESERVATION_UNSATISFIED_CHECKS "NoReservationUnsatisfiedChecks"
#define TS_WL_REASON_PENDING_DELAYED_TOPOLOGY_REQUESTS "PendingDelayedTopologyRequests"

/* --- Evicted reasons (also Requeued=False reasons) ------------------------ */
#define TS_WL_REASON_PREEMPTED               "Preempted"
#define TS_WL_REASON_PODS_READY_TIMEOUT      "PodsReadyTimeout"
#define TS_WL_REASON_ADMISSION_CHECK         "AdmissionCheck"
#define TS_WL_REASON_CLUSTER_QUEUE_STOPPED   "ClusterQueueStopped"
#define TS_WL_REASON_LOCAL_QUEUE_STOPPED     "LocalQueueStopped"
#define TS_WL_REASON_NODE_FAILURES           "NodeFailures"
#define TS_WL_REASON_DEACTIVATED             "Deactivated"
#define TS_WL_REASON_DEACTIVATED_DUE_TO      "DeactivatedDueTo" /* + cause */
#define TS_WL_REASON_FLAVOR_MIGRATION        "FlavorMigration"
#define TS_WL_REASON_WORKLOAD_SLICE_REPLACED "WorkloadSliceReplaced"
/* deactivation causes (DeactivationTarget reasons) */
#define TS_WL_REASON_REQUEUING_LIMIT_EXCEEDED        "RequeuingLimitExceeded"
#define TS_WL_REASON_MAXIMUM_EXECUTION_TIME_EXCEEDED "MaximumExecutionTimeExceeded"

/* --- Preempted reasons ---------------------------------------------------- */
#define TS_WL_REASON_IN_CLUSTER_QUEUE                  "InClusterQueue"
#define TS_WL_REASON_IN_COHORT_RECLAMATION             "InCohortReclamation"
#define TS_WL_REASON_IN_COHORT_FAIR_SHARING            "InCohortFairSharing"
#define TS_WL_REASON_IN_COHORT_RECLAIM_WHILE_BORROWING "InCohortReclaimWhileBorrowing"

/* --- Requeued=True reasons ------------------------------------------------ */
#define TS_WL_REASON_BACKOFF_FINISHED        "BackoffFinished"
#define TS_WL_REASON_REACTIVATED             "Reactivated"
#define TS_WL_REASON_CLUSTER_QUEUE_RESTARTED "ClusterQueueRestarted"
#define TS_WL_REASON_LOCAL_QUEUE_RESTARTED   "LocalQueueRestarted"

/* --- PodsReady reasons ---------------------------------------------------- */
#define TS_WL_REASON_STARTED           "Started"
#define TS_WL_REASON_RECOVERED         "Recovered"
#define TS_WL_REASON_WAIT_FOR_START    "WaitForStart"
#define TS_WL_REASON_WAIT_FOR_RECOVERY "WaitForRecovery"

/* --- Finished reasons ----------------------------------------------------- */
#define TS_WL_REASON_SUCCEEDED       "Succeeded"
#define TS_WL_REASON_FAILED          "Failed"
#define TS_WL_REASON_OUT_OF_SYNC     "OutOfSync"
#define TS_WL_REASON_OWNER_NOT_FOUND "OwnerNotFound"
#define TS_WL_REASON_FAILED_TO_START "FailedToStart"

/* --- admission check states, delayed topology request states ------------- */
#define TS_WL_CHECK_PENDING            "Pending"
#define TS_WL_CHECK_READY              "Ready"
#define TS_WL_CHECK_RETRY              "Retry"
#define TS_WL_CHECK_REJECTED           "Rejected"
#define TS_WL_DELAYED_TOPOLOGY_PENDING "Pending"
#define TS_WL_DELAYED_TOPOLOGY_READY   "Ready"

/* --- events (reason field) ------------------------------------------------ */
#define TS_WL_EVENT_PREEMPTED_WORKLOAD       "PreemptedWorkload"
#define TS_WL_EVENT_EVICTED_DUE_TO           "EvictedDueTo" /* + eviction reason */
#define TS_WL_EVENT_ADMISSION_CHECK_REJECTED "AdmissionCheckRejected"
#define TS_WL_EVENT_ADMISSION_GATE_CLEARED   "AdmissionGateCleared"
#define TS_WL_EVENT_SECOND_PASS_FAILED       "SecondPassFailed"
#define TS_WL_EVENT_DELETED                  "Deleted"

/* --- spec ------------------------------------------------------------------ */

struct ts_podset {
    char *name; /* default "main" */
    struct ts_pod_template template;
    int32_t count; /* default 1 */
    struct ts_opt_i32 min_count;
    cJSON *topology_request; /* owned copy or NULL */
};

struct ts_priority_class_ref {
    int set;
    char *group;
    char *kind;
    char *name;
};

struct ts_workload_spec {
    struct ts_podset *podsets;
    size_t n_podsets;
    char *queue_name;
    struct ts_priority_class_ref priority_class_ref;
    struct ts_opt_i32 priority;
    struct ts_opt_bool active; /* defaulted to true by decode */
    struct ts_opt_i32 maximum_execution_time_seconds;
    cJSON *preemption_gates; /* owned copy or NULL (v1beta2 only) */
};

/* --- status ---------------------------------------------------------------- */

struct ts_podset_assignment {
    char *name;               /* default "main" */
    struct ts_strmap flavors; /* resource -> flavor */
    struct ts_resource_list resource_usage;
    struct ts_opt_i32 count;
    cJSON *topology_assignment;     /* owned copy or NULL (v1beta2 compressed form) */
    char *delayed_topology_request; /* "Pending" | "Ready" | NULL */
};

struct ts_admission {
    char *cluster_queue;
    struct ts_podset_assignment *podset_assignments;
    size_t n_podset_assignments;
};

struct ts_requeue_state {
    int set;
    struct ts_opt_i32 count;
    ts_time requeue_at; /* 0 = unset */
};

struct ts_reclaimable_pod {
    char *name;
    int32_t count;
};

struct ts_podset_update {
    char *name;
    struct ts_strmap labels;
    struct ts_strmap annotations;
    struct ts_strmap node_selector;
    struct ts_toleration *tolerations;
    size_t n_tolerations;
};

struct ts_admission_check_state {
    char *name;
    char *state; /* Pending | Ready | Retry | Rejected */
    ts_time last_transition_time;
    char *message;
    struct ts_opt_i32 requeue_after_seconds;
    struct ts_opt_i32 retry_count;
    struct ts_podset_update *podset_updates;
    size_t n_podset_updates;
};

struct ts_podset_request {
    char *name;
    struct ts_resource_list resources;
};

struct ts_eviction_stat {
    char *reason;
    char *underlying_cause;
    int32_t count;
};

struct ts_workload_status {
    struct ts_conditions conditions;
    struct ts_admission *admission; /* NULL when absent */
    struct ts_requeue_state requeue_state;
    struct ts_reclaimable_pod *reclaimable_pods;
    size_t n_reclaimable_pods;
    struct ts_admission_check_state *admission_checks;
    size_t n_admission_checks;
    struct ts_podset_request *resource_requests;
    size_t n_resource_requests;
    struct ts_opt_i32 accumulated_past_execution_time_seconds;
    struct ts_eviction_stat *evictions; /* schedulingStats.evictions */
    size_t n_evictions;
    struct ts_strlist nominated_cluster_names;
    char *cluster_name;
    struct ts_strlist unhealthy_nodes; /* unhealthyNodes[].name */
    cJSON *preemption_gates;           /* owned copy or NULL (v1beta2 only) */
};

struct ts_workload {
    struct ts_object_meta meta;
    struct ts_workload_spec spec;
    struct ts_workload_status status;
};

/* --- lifecycle ------------------------------------------------------------- */

/* Initialises an empty workload (no pod sets, nothing allocated). */
void ts_workload_init(struct ts_workload *w);
/* Frees everything w owns and re-initialises it. */
void ts_workload_release(struct ts_workload *w);
/* dst = deep copy of src; dst must be initialised (its content is released
 * first).  Ownership: dst owns the copy. */
void ts_workload_copy(struct ts_workload *dst, const struct ts_workload *src);

/* Appends a pod set named `name` (copied; NULL = "main") with count 1 and
 * an empty template; returns it.  Borrowed: valid until the next append. */
struct ts_podset *ts_workload_add_podset(struct ts_workload *w, const char *name);
/* The pod set named `name`, or NULL.  Borrowed. */
const struct ts_podset *ts_workload_find_podset(const struct ts_workload *w, const char *name);

/* A new empty admission.  Ownership: caller frees with ts_admission_free(). */
struct ts_admission *ts_admission_new(void);
/* Frees a, NULL allowed. */
void ts_admission_free(struct ts_admission *a);
/* Deep copy; NULL in, NULL out.  Ownership: caller frees. */
struct ts_admission *ts_admission_dup(const struct ts_admission *a);
/* Appends an assignment named `name` (copied); returns it.  Borrowed until
 * the next append. */
struct ts_podset_assignment *ts_admission_add(struct ts_admission *a, const char *name);
/* Free what an admission check state / pod set update owns (not the
 * struct itself). */
void ts_podset_update_release(struct ts_podset_update *u);
void ts_admission_check_state_release(struct ts_admission_check_state *c);

/* --- JSON ------------------------------------------------------------------ */

/* Decodes a v1beta2 Workload object into w (initialised; previous content
 * released) and applies Kueue's defaults (pod set name "main", count 1,
 * active true, assignment name "main").  Problems go to d's error list
 * with their field paths; decoding never stops early.  Ownership: w owns
 * copies; obj stays the caller's. */
void ts_workload_decode(struct ts_dec *d, const cJSON *obj, struct ts_workload *w);

/* Encodes w as a v1beta2 Workload (apiVersion, kind, metadata, spec,
 * status), fields in Kueue's order, absent optionals omitted.
 * Ownership: caller cJSON_Delete()s the result. */
cJSON *ts_workload_encode(const struct ts_workload *w);

/* 1 when a and b encode to the same JSON. */
int ts_workload_equal(const struct ts_workload *a, const struct ts_workload *b);

/* --- validation (Kueue's workload webhook + CRD rules) --------------------- */

/* Create rules: pod sets 1..8, unique DNS-label names, count >= 0,
 * 1 <= minCount <= count, at most one pod set with minCount, template
 * metadata, reserved "pods" resource, non-negative quantities, queueName,
 * priorityClassRef, maximumExecutionTimeSeconds >= 1; while QuotaReserved
 * the admission rules (present, same number of assignments, names exist,
 * usage divisible by count); conditions (metav1); reclaimablePods;
 * admission check podSetUpdates; clusterName vs nominatedClusterNames.
 * Errors are appended to errs. */
void ts_workload_validate(const struct ts_workload *w, struct ts_field_errors *errs);

/* With feature gate PriorityBoost, Kueue's workload webhook refuses an
 * annotation kueue.x-k8s.io/priority-boost that is empty or not a base-10
 * int32 (metadata.annotations[kueue.x-k8s.io/priority-boost]: Invalid
 * value).  Errors are appended to errs. */
void ts_workload_validate_priority_boost(const struct ts_workload *w, struct ts_field_errors *errs);

/* Update rules: everything ts_workload_validate() checks on nw, plus the
 * immutability rules of Kueue's webhook and CRD between old and nw (pod
 * sets, queueName and priority class while QuotaReserved,
 * maximumExecutionTime while Admitted, reclaimablePods monotonic,
 * admission set-or-cleared, Ready checks' podSetUpdates, clusterName). */
void ts_workload_validate_update(const struct ts_workload *old, const struct ts_workload *nw,
                                 struct ts_field_errors *errs);

/* --- predicates ------------------------------------------------------------ */

int ts_workload_has_quota_reservation(const struct ts_workload *w); /* QuotaReserved=True */
int ts_workload_is_admitted(const struct ts_workload *w);           /* Admitted=True */
int ts_workload_is_finished(const struct ts_workload *w);           /* Finished=True */
int ts_workload_is_evicted(const struct ts_workload *w);            /* Evicted=True */
/* spec.active unset or true. */
int ts_workload_is_active(const struct ts_workload *w);
/* spec.priority, 0 when unset. */
int32_t ts_workload_priority(const struct ts_workload *w);
/* The priority the scheduler orders by: spec.priority (0 when unset) plus,
 * when `boost_enabled` (gate PriorityBoost), the integer in annotation
 * kueue.x-k8s.io/priority-boost (ignored when not an integer); saturates
 * at the int32 range. */
int32_t ts_workload_effective_priority(const struct ts_workload *w, int boost_enabled);
/* The integer of annotation kueue.x-k8s.io/priority-boost; 0 when absent
 * or not a base-10 int32 (Kueue's webhook refuses those, see
 * ts_workload_validate_priority_boost(); its scheduler then ignores them). */
int32_t ts_workload_priority_boost(const struct ts_workload *w);
/* priority + boost, saturating at the int32 range. */
int32_t ts_priority_add(int32_t priority, int32_t boost);

#define TS_WL_ANNOTATION_PRIORITY_BOOST "kueue.x-k8s.io/priority-boost"

#endif
