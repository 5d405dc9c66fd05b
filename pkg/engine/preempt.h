/*
 * preempt.h - Kueue's classical preemption (pkg/scheduler/preemption,
 * classicalPreemptions()): which admitted workloads to evict so that a
 * pending one fits.
 *
 * Candidates are the workloads of the preemptor's own ClusterQueue that
 * withinClusterQueue allows, and those of other ClusterQueues in its cohort
 * tree that borrow in a needed flavor/resource and that
 * reclaimWithinCohort (and borrowWithinCohort) allow.  They are ordered as
 * Kueue orders them (already being evicted, other queues, lower priority,
 * most recently reserved, UID), removed one by one until the preemptor
 * fits, and then added back from the second-to-last while it still fits:
 * the minimal set.  A queue is never pushed under its nominal quota by
 * reclamation.
 *
 * Cost: the queues of the preemptor's tree, plus the candidates read.  Each
 * queue keeps its holders in candidate order between searches (sorted again
 * after a change); the classical search merges those orders and stops
 * reading a queue once it no longer borrows, and collects nothing from the
 * other queues when no attempt could take their workloads.  Fair sharing
 * collects and sorts every candidate.  The search removes and restores
 * usage on the live quota tree; it leaves the tree exactly as it found it.
 * The engine's cycle and oracle call it through memo.h, which remembers
 * answers while nothing the search reads has changed.
 *
 * Private to the engine.
 */
#ifndef TS_ENGINE_PREEMPT_H
#define TS_ENGINE_PREEMPT_H

#include "engine/engine_int.h"

struct ts__eng_target {
    struct ts__eng_wl *wl;
    const char *reason; /* InClusterQueue, InCohortReclamation, ... (static) */
};

/* Finds the victims that let wl take `need[i]` of flavor-resource `fr[i]`
 * (i < n: the whole assignment) in cq.  Returns the number of targets and
 * stores a malloc'd array in *out (NULL when 0).  *cross is set when some
 * target belongs to another ClusterQueue.  Ownership: caller frees *out. */
size_t ts__eng_preempt_targets(const struct ts_engine *e, struct ts__eng_cq *cq,
                               const struct ts__eng_wl *wl, const size_t *fr, const int64_t *need,
                               size_t n, struct ts__eng_target **out, int *cross);

/* Removes (sign < 0) or restores (sign > 0) the usage a holding workload
 * counts in its queue's quota tree, without touching any bookkeeping: for
 * what-if computations that restore before returning. */
void ts__eng_wl_quota(struct ts__eng_wl *w, int sign);

/* 0 when q's candidate order (kept between searches) holds exactly its
 * holders in order, or is due to be sorted again; -1 when it is stale
 * without saying so.  For ts_engine_check(). */
int ts__eng_order_check(const struct ts__eng_cq *q);

/* The victim's Preempted message, Kueue's wording:
 * "Preempted to accommodate a workload (UID: u, JobUID: j) due to <why>;
 *  preemptor path: /co/cq; preemptee path: /co/cq2".
 * Ownership: caller frees. */
char *ts__eng_preempt_message(const struct ts__eng_wl *preemptor, const struct ts__eng_cq *pcq,
                              const struct ts__eng_wl *victim, const char *reason);

#endif
