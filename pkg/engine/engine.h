/*
 * engine.h - the admission engine: Kueue's queueing and quota decisions as
 * a pure library.
 *
 * The engine holds the state of flavors, ClusterQueues, Cohorts,
 * LocalQueues, priority classes, namespaces and Workloads, and decides one
 * scheduling cycle at a time which pending Workloads get quota.  It does no
 * I/O, reads no clock (time is passed in) and has no globals: the
 * controller, `turnstilectl simulate`, the benchmarks and the tests drive
 * the same code.
 *
 * Cycle contract (Kueue's assume/forget):
 *   ts_engine_cycle() returns decisions.  An ADMIT decision has already
 *   been *assumed*: its usage counts in the engine, so a later head in the
 *   same cycle (or the next cycle, while the caller's API write is in
 *   flight) can never over-commit the same quota.  The caller then either
 *   confirms it (ts_engine_admit_confirm(): the simulator at once, the
 *   controller when the status write succeeded) or forgets it
 *   (ts_engine_admit_forget(): the write failed or conflicted; the usage is
 *   released and the workload requeued, never double-counted).
 *   PENDING decisions carry Kueue's QuotaReserved=False reason and a
 *   message saying exactly why; they are emitted only when the message of
 *   a workload changes, so a controller never floods the API server.
 *
 * Usage accounting is incremental: admitting, finishing, deleting or
 * evicting a workload changes its queue's and cohorts' usage in O(depth).
 * A cycle costs O(heads × flavors × resources), independent of the number
 * of admitted workloads.
 *
 * Ownership: objects given to ts_engine_put_*() are copied (the caller
 * keeps theirs).  Strings in decisions are borrowed from the engine and
 * valid until the next call that changes the engine.  Thread rule: an
 * engine belongs to one thread.
 */
#ifndef TS_ENGINE_H
#define TS_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "api/resource_transform.h"
#include "util/err.h"
#include "util/strlist.h"
#include "util/strmap.h"
#include "util/time.h"

struct ts_engine;
struct ts_resource_flavor;
struct ts_cluster_queue;
struct ts_cohort;
struct ts_local_queue;
struct ts_workload;
struct ts_admission;

/* Kueue's fairSharing.preemptionStrategies. */
enum ts_fs_strategy {
    TS_FS_LESS_THAN_OR_EQUAL_TO_FINAL_SHARE = 0,
    TS_FS_LESS_THAN_INITIAL_SHARE,
};

struct ts_engine_config {
    int partial_admission; /* PartialAdmission gate (default on) */
    /* PriorityBoost gate: a workload's priority is spec.priority plus its
     * kueue.x-k8s.io/priority-boost annotation (Kueue's EffectivePriority,
     * for queue order and preemption alike) */
    int priority_boost;
    int fair_sharing;    /* Configuration fairSharing present */
    size_t n_strategies; /* 0 = Kueue's default: both, in order */
    enum ts_fs_strategy strategies[2];
    /* waitForPodsReady.blockAdmission: no admission while an admitted
     * workload is not PodsReady (checks the holders once per cycle) */
    int block_admission;
    /* tests: every preemption search answered from memory is made again
     * and compared; ts_engine_check() reports a difference (memo.h) */
    int check_memo;
    /* resources.excludeResourcePrefixes and .transformations: applied to
     * each pod's requests when a workload is put (owned; empty: none) */
    struct ts_resource_transforms resources;
};

/* Kueue's defaults.  c is overwritten, not released. */
void ts_engine_config_init(struct ts_engine_config *c);
/* Frees what c owns (its resource transformations) and re-initialises it. */
void ts_engine_config_release(struct ts_engine_config *c);

struct ts_config;
/* The engine settings a Kueue Configuration implies (api/config.h).  out
 * is overwritten, not released.  Ownership: out holds copies of c's
 * resource transformations; release with ts_engine_config_release() (it
 * may be released as soon as ts_engine_new() has returned). */
void ts_engine_config_from(struct ts_engine_config *out, const struct ts_config *c);

/* Ownership: the engine keeps its own copy of config (NULL: Kueue's
 * defaults); caller frees the engine with ts_engine_free(). */
struct ts_engine *ts_engine_new(const struct ts_engine_config *config);
void ts_engine_free(struct ts_engine *e);

/* --- state -------------------------------------------------------------- */

/* Upsert / delete by name.  Upserts validate nothing (the webhook does);
 * they return TS_EINVAL only for input the engine cannot represent, with
 * the object and field named in err, and leave the previous state. */
int ts_engine_put_flavor(struct ts_engine *e, const struct ts_resource_flavor *rf,
                         struct ts_err *err);
void ts_engine_delete_flavor(struct ts_engine *e, const char *name);
int ts_engine_put_cluster_queue(struct ts_engine *e, const struct ts_cluster_queue *cq,
                                struct ts_err *err);
void ts_engine_delete_cluster_queue(struct ts_engine *e, const char *name);
int ts_engine_put_cohort(struct ts_engine *e, const struct ts_cohort *co, struct ts_err *err);
void ts_engine_delete_cohort(struct ts_engine *e, const char *name);
int ts_engine_put_local_queue(struct ts_engine *e, const struct ts_local_queue *lq,
                              struct ts_err *err);
void ts_engine_delete_local_queue(struct ts_engine *e, const char *ns, const char *name);
/* Namespace labels (for namespaceSelector). A namespace the engine never
 * saw is treated as existing with only kubernetes.io/metadata.name. */
void ts_engine_put_namespace(struct ts_engine *e, const char *name, const struct ts_strmap *labels);
void ts_engine_delete_namespace(struct ts_engine *e, const char *name);
/* kueue.x-k8s.io WorkloadPriorityClass and scheduling.k8s.io PriorityClass
 * values, used for workloads that name a class but carry no priority. */
void ts_engine_put_workload_priority_class(struct ts_engine *e, const char *name, int32_t value);
void ts_engine_delete_workload_priority_class(struct ts_engine *e, const char *name);
void ts_engine_put_priority_class(struct ts_engine *e, const char *name, int32_t value,
                                  int global_default);
void ts_engine_delete_priority_class(struct ts_engine *e, const char *name);

/* AdmissionChecks by name: the controller that answers them
 * (spec.controllerName) and whether status condition Active is True.  A
 * ClusterQueue naming a missing or inactive check admits nothing (Kueue's
 * AdmissionCheckNotFound / AdmissionCheckInactive). */
void ts_engine_put_admission_check(struct ts_engine *e, const char *name, const char *controller,
                                   int active);
void ts_engine_delete_admission_check(struct ts_engine *e, const char *name);

/* The checks a workload of ClusterQueue `cq` must pass (Kueue's
 * AdmissionChecksForWorkload): every check of the queue when each applies
 * to all its flavors; otherwise, with an admission, the checks whose
 * onFlavors hold a flavor it was assigned, and none without one.  Names
 * are pushed onto out sorted.  Returns TS_ENOTFOUND for an unknown queue. */
int ts_engine_checks_for(const struct ts_engine *e, const char *cq,
                         const struct ts_admission *admission, struct ts_strlist *out);
/* 1 when ClusterQueue `cq` is known and names admission checks. */
int ts_engine_cq_has_checks(const struct ts_engine *e, const char *cq);

/* Looks up a WorkloadPriorityClass (wpc = 1) or PriorityClass value;
 * returns 1 when found.  ts_engine_default_priority_class() finds the
 * globalDefault PriorityClass (the lowest value if several); *name is
 * borrowed from the engine. */
int ts_engine_priority_class(const struct ts_engine *e, int wpc, const char *name, int32_t *value);
int ts_engine_default_priority_class(const struct ts_engine *e, const char **name, int32_t *value);

/* Adds or updates a workload.  One with status.admission and
 * QuotaReserved=True counts as usage of its flavors; an inactive one holds
 * nothing and is not queued; a finished one is forgotten, as if deleted;
 * any other is queued in its LocalQueue's ClusterQueue.  Returns TS_EINVAL
 * (object and field in err) for a workload the engine cannot account, e.g.
 * an admission naming a flavor/resource pair its queue does not cover. */
int ts_engine_put_workload(struct ts_engine *e, const struct ts_workload *wl, ts_time now,
                           struct ts_err *err);
/* The same, with `inadmissible` (NULL: none, else copied): why the
 * workload may not be admitted as it stands, found by the caller (Kueue's
 * scheduler check against the namespace's LimitRanges,
 * api/limitrange.h).  A queued workload with one waits with that message
 * (after the requests-above-limits check, as in Kueue) and is not
 * considered for quota. */
int ts_engine_put_workload_checked(struct ts_engine *e, const struct ts_workload *wl, ts_time now,
                                   const char *inadmissible, struct ts_err *err);
/* Removes a workload, releasing its usage. */
void ts_engine_delete_workload(struct ts_engine *e, const char *ns, const char *name);
/* How many workloads the engine knows (finished ones are not kept). */
size_t ts_engine_workload_count(const struct ts_engine *e);

/* --- the cycle ------------------------------------------------------------ */

enum ts_decision_kind {
    TS_DECISION_ADMIT = 0,
    TS_DECISION_PENDING,
    /* The workload stays pending (reason/message as PENDING) and the
     * targets must be evicted for it: Evicted=True reason Preempted and
     * Preempted=True with the target's reason and message.  Its usage is
     * released when the victims' quota reservations are (the controller:
     * once their jobs stopped; the simulator: at once). */
    TS_DECISION_PREEMPT,
};

struct ts_decision_target {
    const char *ns;
    const char *name;
    const char *reason; /* InClusterQueue, InCohortReclamation, ... */
    char *message;      /* owned by the cycle */
};

struct ts_decision_podset {
    const char *name;
    int32_t count;
    size_t n_resources;
    const char **resources; /* resource names (sorted) */
    const char **flavors;   /* flavor chosen for each resource */
    int64_t *usage;         /* total amount per resource (cpu in milli-units) */
};

struct ts_decision {
    enum ts_decision_kind kind;
    const char *ns;
    const char *name;
    const char *cluster_queue; /* NULL when the workload has no queue */
    const char *reason;        /* PENDING: Kueue's QuotaReserved=False reason */
    const char *message;       /* PENDING: why, in words */
    int borrows;               /* ADMIT: the assignment borrows from the cohort */
    size_t n_podsets;
    struct ts_decision_podset *podsets; /* ADMIT only */
    size_t n_targets;
    struct ts_decision_target *targets; /* PREEMPT only */
    /* ADMIT: the admission checks the workload must pass before it is
     * Admitted (the queue's checks that apply to its flavors), sorted */
    size_t n_checks;
    const char **checks;
};

struct ts_cycle {
    struct ts_decision *items;
    size_t n;
    size_t cap;
    size_t heads; /* heads considered in this cycle */
};

void ts_cycle_init(struct ts_cycle *c);
/* Frees what ts_engine_cycle() allocated for the decisions. */
void ts_cycle_release(struct ts_cycle *c);

/* Runs one scheduling cycle at time `now`, appending decisions to out.
 * Returns how much the queues moved: admissions, preemptions and heads
 * parked (0 = a cycle now would decide the same again; pending verdicts
 * alone do not count). */
size_t ts_engine_cycle(struct ts_engine *e, ts_time now, struct ts_cycle *out);

/* Confirms an assumed admission / forgets it (releasing its usage and
 * requeueing the workload).  Unknown or not-assumed workloads are ignored. */
void ts_engine_admit_confirm(struct ts_engine *e, const char *ns, const char *name);
void ts_engine_admit_forget(struct ts_engine *e, const char *ns, const char *name);
/* Forgets an assumed admission that the API server refused for good (the
 * write was invalid, not merely late): its usage is released and the
 * workload waits outside the queues until its object is put again, so
 * cycles do not admit and refuse it in a loop. */
void ts_engine_admit_refused(struct ts_engine *e, const char *ns, const char *name);

/* The latest pending verdict (QuotaReserved=False reason and message) of a
 * workload that is still pending: 0 and *reason, *message set, or
 * TS_ENOTFOUND (unknown, admitted, or no verdict yet).  The strings are
 * the engine's, valid until the next call that changes the engine: the
 * controller writes a verdict late (coalesced) and asks for it then. */
int ts_engine_verdict(const struct ts_engine *e, const char *ns, const char *name,
                      const char **reason, const char **message);

/* The eviction a cycle chose for a victim was not written (the write
 * failed, or the Workload was gone from the cache): the victim counts as
 * running again, so a later cycle can choose it, or others, anew.
 * Without this its preemptor would wait for good for an eviction that
 * never comes.  Unknown names are ignored.  (A victim whose stored status
 * says Evicted=True stays on its way out: it is never evicted twice.) */
void ts_engine_evict_forget(struct ts_engine *e, const char *ns, const char *name);

/* An evicted workload's job has stopped: its quota is released and it is
 * queued again (what ts_engine_put_workload() does when the workload's
 * QuotaReserved turns False).  Unknown names are ignored. */
void ts_engine_release(struct ts_engine *e, const char *ns, const char *name);

/* --- introspection (status writers, tests, explain) ------------------------ */

struct ts_engine_cq_stats {
    size_t pending;
    size_t reserving; /* holding quota (incl. assumed) */
    size_t admitted;  /* confirmed */
};

/* Counts for a ClusterQueue; returns TS_ENOTFOUND when unknown. */
int ts_engine_cq_stats(const struct ts_engine *e, const char *cq, struct ts_engine_cq_stats *out);
/* Fair sharing: the weighted dominant resource share of a ClusterQueue
 * or Cohort (Kueue's pkg/cache/scheduler/fair_sharing.go), as its
 * status.fairSharing.weightedShare shows it (INT64_MAX for weight 0 while
 * borrowing).  TS_ENOTFOUND when unknown. */
int ts_engine_weighted_share(const struct ts_engine *e, const char *node, int is_cohort,
                             int64_t *out);

/* Usage of one flavor/resource in a ClusterQueue or Cohort (cpu in
 * milli-units); returns TS_ENOTFOUND when unknown. */
int ts_engine_usage(const struct ts_engine *e, const char *node, int is_cohort, const char *flavor,
                    const char *resource, int64_t *out);

/* Self-check: recomputes every queue's usage from the workloads holding
 * quota and verifies nominal/borrowing/lending limits and cohort
 * capacities.  Returns 0, or -1 with the first violation in msg.
 * O(admitted workloads): for tests and invariant checkers. */
int ts_engine_check(const struct ts_engine *e, char *msg, size_t len);

#endif
