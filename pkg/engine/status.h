/*
 * status.h - ClusterQueue and Cohort status as Kueue's controllers write it
 * (pkg/controller/core/clusterqueue_controller.go, cohort_controller.go),
 * computed from the engine's state: the controller writes it to the API
 * server, the simulator prints it.
 *
 * Pure; `now` is passed in for condition transition times.
 */
#ifndef TS_ENGINE_STATUS_H
#define TS_ENGINE_STATUS_H

#include "api/clusterqueue.h"
#include "api/cohort.h"
#include "api/localqueue.h"
#include "engine/engine.h"

/* Replaces st's counts, flavorsReservation (quota held, assumed admissions
 * included) and flavorsUsage (admitted) in the queue's flavor/resource
 * order with borrowed = max(0, total - nominal), sets the Active condition
 * (True/Ready "Can admit new workloads", or False with Kueue's reason and
 * "Can't admit new workloads: ...") and, with fair sharing, the weighted
 * share.  st must be initialised; returns TS_ENOTFOUND for unknown queues. */
int ts_engine_cq_status(const struct ts_engine *e, const char *cq, ts_time now,
                        struct ts_cluster_queue_status *st);

/* Pending workloads of a ClusterQueue split as Kueue's pending_workloads
 * metric does: in the heap (active) and parked (inadmissible).  Returns
 * TS_ENOTFOUND for unknown queues. */
int ts_engine_cq_pending(const struct ts_engine *e, const char *cq, size_t *active,
                         size_t *inadmissible);

/* Sets a Cohort's status.fairSharing.weightedShare (fair sharing only;
 * left untouched otherwise).  Returns TS_ENOTFOUND for unknown cohorts. */
int ts_engine_cohort_status(const struct ts_engine *e, const char *cohort,
                            struct ts_cohort_status *st);

/* Replaces a LocalQueue's counts (pending, reserving, admitted workloads
 * submitted through it), flavorsReservation and flavorsUsage (totals over
 * its ClusterQueue's flavors and resources) and the Active condition
 * (True/Ready "Can submit new workloads to localQueue"; False/Stopped;
 * False/ClusterQueueDoesNotExist or ClusterQueueIsInactive "Can't submit
 * new workloads to clusterQueue").  O(its workloads).  Returns TS_ENOTFOUND
 * for unknown queues. */
int ts_engine_lq_status(const struct ts_engine *e, const char *ns, const char *name, ts_time now,
                        struct ts_local_queue_status *st);

/* Pending workloads of a LocalQueue split as ts_engine_cq_pending() does
 * (Kueue's local_queue_pending_workloads).  O(its workloads). */
void ts_engine_lq_pending(const struct ts_engine *e, const char *ns, const char *name,
                          size_t *active, size_t *inadmissible);

/* What a queue's status and metrics above are computed from, as a version:
 * equal versions mean equal inputs, so a caller that computed the status at
 * one version need not compute it again until the version changes (the
 * controller's queue status loop: thousands of queues, most of them
 * unchanged each second). */
struct ts_status_version {
    uint64_t epoch; /* flavors, namespaces, cohorts and queues */
    uint64_t seq;   /* the queue's own workloads */
    /* pending workloads moved between active and inadmissible: only the
     * pending metrics (ts_engine_cq_pending(), ts_engine_lq_pending())
     * show it, not the status */
    uint64_t parking;
};

/* Sets *v for ClusterQueue cq.  Returns 0, TS_ENOTFOUND for unknown queues,
 * or 1 when the status has no version and must be computed every time
 * (fair sharing: a queue's share moves with its whole cohort tree). */
int ts_engine_cq_status_version(const struct ts_engine *e, const char *cq,
                                struct ts_status_version *v);

/* Sets *v for LocalQueue ns/name (known or not). */
void ts_engine_lq_status_version(const struct ts_engine *e, const char *ns, const char *name,
                                 struct ts_status_version *v);

/* A queue named by ts_engine_status_moved(): ns is NULL for a
 * ClusterQueue.  The strings live for the call. */
typedef void (*ts_engine_queue_fn)(const char *ns, const char *name, void *data);

/* Calls fn for each queue whose status version moved since the last call
 * (LocalQueues known or not), each once, and returns 0; or calls it for
 * none and returns 1 when every queue's may have moved (the first call,
 * a change of flavors, namespaces, cohorts or queues since, or always
 * with fair sharing, see ts_engine_cq_status_version()).  With it
 * a caller that keeps thousands of queue statuses visits only the queues
 * that changed, not every queue to compare its version.  O(queues). */
int ts_engine_status_moved(struct ts_engine *e, ts_engine_queue_fn fn, void *data);

#endif
