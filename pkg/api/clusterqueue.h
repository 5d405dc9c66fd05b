/*
 * clusterqueue.h - the kueue.x-k8s.io ClusterQueue (cluster-scoped,
 * shortName cq), internal shape = v1beta2 (the storage version).
 *
 * Decoding applies the CRD defaults Kueue's controllers rely on, so a
 * decoded ClusterQueue always has: queueingStrategy BestEffortFIFO,
 * flavorFungibility {whenCanBorrow MayStopSearch, whenCanPreempt
 * TryNextFlavor}, preemption {Never, Never, borrowWithinCohort {Never}},
 * stopPolicy None, and fairSharing.weight 1 when fairSharing is present.
 * ts_cluster_queue_init() gives the same defaults, so decode(encode(x))
 * equals x.  namespaceSelector keeps Kueue's distinction: absent (nil)
 * selects no namespace, {} selects every namespace.
 *
 * Validation (ts_cluster_queue_validate) = CRD schema + CEL, then, only if
 * those passed, the validating webhook (pkg/webhooks/clusterqueue_webhook.go)
 * - kube-apiserver never calls a webhook for an object its schema rejects.
 * Messages and field paths are Kueue's / Kubernetes'.
 *
 * Ownership: the struct owns everything it points to; release with
 * ts_cluster_queue_release().  Thread rule: none (plain value).
 */
#ifndef TS_API_CLUSTERQUEUE_H
#define TS_API_CLUSTERQUEUE_H

#include <cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "api/core.h"
#include "api/dec.h"
#include "api/field.h"
#include "api/meta.h"
#include "api/resourcegroup.h"
#include "util/strlist.h"
#include "util/strmap.h"

#define TS_CLUSTER_QUEUE_KIND "ClusterQueue"
/* Finalizer the mutating webhook adds (and the controller removes). */
#define TS_RESOURCE_IN_USE_FINALIZER "kueue.x-k8s.io/resource-in-use"

enum ts_queueing_strategy {
    TS_QUEUEING_STRICT_FIFO = 0,
    TS_QUEUEING_BEST_EFFORT_FIFO,
};

enum ts_fungibility_policy {
    TS_FUNGIBILITY_MAY_STOP_SEARCH = 0,
    TS_FUNGIBILITY_TRY_NEXT_FLAVOR,
};

enum ts_fungibility_preference {
    TS_PREFERENCE_UNSET = 0,
    TS_PREFERENCE_BORROWING_OVER_PREEMPTION,
    TS_PREFERENCE_PREEMPTION_OVER_BORROWING,
};

enum ts_reclaim_policy { /* reclaimWithinCohort */
                         TS_RECLAIM_NEVER = 0,
                         TS_RECLAIM_LOWER_PRIORITY,
                         TS_RECLAIM_ANY,
};

enum ts_within_cq_policy { /* withinClusterQueue */
                           TS_WITHIN_CQ_NEVER = 0,
                           TS_WITHIN_CQ_LOWER_PRIORITY,
                           TS_WITHIN_CQ_LOWER_OR_NEWER_EQUAL_PRIORITY,
};

enum ts_borrow_policy { /* borrowWithinCohort.policy */
                        TS_BORROW_NEVER = 0,
                        TS_BORROW_LOWER_PRIORITY,
};

enum ts_admission_mode {
    TS_ADMISSION_MODE_USAGE_BASED = 0, /* UsageBasedAdmissionFairSharing */
    TS_ADMISSION_MODE_NONE,            /* NoAdmissionFairSharing */
};

enum ts_migration_mode {
    TS_MIGRATION_UNSET = 0,
    TS_MIGRATION_TRY_PREFERRED_FLAVORS,
    TS_MIGRATION_RETAIN_FIRST_ADMISSION,
};

struct ts_flavor_fungibility {
    enum ts_fungibility_policy when_can_borrow;
    enum ts_fungibility_policy when_can_preempt;
    enum ts_fungibility_preference preference;
};

struct ts_cq_preemption {
    enum ts_reclaim_policy reclaim_within_cohort;
    enum ts_within_cq_policy within_cluster_queue;
    enum ts_borrow_policy borrow_within_cohort;
    struct ts_opt_i32 max_priority_threshold; /* borrowWithinCohort.maxPriorityThreshold */
};

struct ts_admission_check_rule {
    char *name;
    struct ts_strlist on_flavors; /* empty = every flavor */
};

struct ts_admission_checks_strategy {
    int set; /* spec.admissionChecksStrategy present */
    struct ts_admission_check_rule *items;
    size_t n;
};

struct ts_admission_scope {
    int set;
    enum ts_admission_mode mode;
};

/* spec.concurrentAdmissionPolicy (alpha gate ConcurrentAdmission). */
struct ts_concurrent_admission_policy {
    int set;
    int has_migration;
    enum ts_migration_mode mode;
    int has_constraints;
    char *last_acceptable_flavor_name;
};

struct ts_cluster_queue_spec {
    struct ts_resource_groups resource_groups;
    char *cohort_name; /* NULL = no cohort */
    enum ts_queueing_strategy queueing_strategy;
    int has_namespace_selector; /* 0 = nil: no namespace is selected */
    struct ts_label_selector namespace_selector;
    struct ts_flavor_fungibility flavor_fungibility;
    struct ts_cq_preemption preemption;
    struct ts_admission_checks_strategy admission_checks_strategy;
    enum ts_stop_policy stop_policy;
    struct ts_fair_sharing fair_sharing;
    struct ts_admission_scope admission_scope;
    struct ts_concurrent_admission_policy concurrent_admission_policy;
};

struct ts_cluster_queue_status {
    struct ts_conditions conditions; /* type Active */
    struct ts_flavor_usages flavors_reservation;
    struct ts_flavor_usages flavors_usage;
    int32_t pending_workloads;
    int32_t reserving_workloads;
    int32_t admitted_workloads;
    struct ts_fair_sharing_status fair_sharing;
};

struct ts_cluster_queue {
    struct ts_object_meta meta;
    struct ts_cluster_queue_spec spec;
    struct ts_cluster_queue_status status;
};

/* Initialises an empty ClusterQueue carrying the CRD defaults. */
void ts_cluster_queue_init(struct ts_cluster_queue *cq);
/* Frees everything and re-initialises (defaults included). */
void ts_cluster_queue_release(struct ts_cluster_queue *cq);

/* Decodes v1beta2 JSON into cq (initialised by the caller), applying the
 * CRD defaults.  Wrong types, unknown enum values, missing required
 * fields and an apiVersion/kind other than v1beta2 ClusterQueue are
 * appended to d->errs (convert v1beta1 objects with ts_convert_kueue()
 * first).  cq is always left releasable.  Ownership: obj is borrowed;
 * cq owns copies of everything decoded (ts_cluster_queue_release()). */
void ts_cluster_queue_decode(struct ts_dec *d, const cJSON *obj, struct ts_cluster_queue *cq);
/* v1beta2 JSON with apiVersion and kind.  Ownership: caller deletes the
 * result with cJSON_Delete(). */
cJSON *ts_cluster_queue_encode(const struct ts_cluster_queue *cq);

/* Create validation: metadata.name, CRD schema and CEL rules, then (if
 * they passed) Kueue's webhook rules.  Appends to errs. */
void ts_cluster_queue_validate(const struct ts_cluster_queue *cq, struct ts_field_errors *errs);
/* Update validation of new_cq against old_cq: the create rules on new_cq
 * plus the update rules (concurrentAdmissionPolicy immutable; invalid
 * onFlavors already present in old_cq are tolerated). */
void ts_cluster_queue_validate_update(const struct ts_cluster_queue *old_cq,
                                      const struct ts_cluster_queue *new_cq,
                                      struct ts_field_errors *errs);

/* 1 when the ClusterQueue admits workloads from a namespace with these
 * labels: nil selector = none, {} = all. */
int ts_cluster_queue_selects_namespace(const struct ts_cluster_queue *cq,
                                       const struct ts_strmap *ns_labels);

/* Enum spellings as in the API ("BestEffortFIFO", "MayStopSearch", ...).
 * Static strings. */
const char *ts_queueing_strategy_name(enum ts_queueing_strategy s);
/* "MayStopSearch" / "TryNextFlavor". */
const char *ts_fungibility_policy_name(enum ts_fungibility_policy p);
/* "" for TS_PREFERENCE_UNSET. */
const char *ts_fungibility_preference_name(enum ts_fungibility_preference p);
/* "Never" / "LowerPriority" / "Any". */
const char *ts_reclaim_policy_name(enum ts_reclaim_policy p);
/* "Never" / "LowerPriority" / "LowerOrNewerEqualPriority". */
const char *ts_within_cq_policy_name(enum ts_within_cq_policy p);

#endif
