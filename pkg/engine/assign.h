/*
 * assign.h - flavor assignment for one workload in one ClusterQueue
 * (Kueue's pkg/scheduler/flavorassigner): per pod set and resource
 * group, walk the group's flavors in order, skip flavors whose taints the
 * pods do not tolerate or whose node labels their node selector/affinity
 * rejects, check quota (nominal, then what the cohort tree can lend within
 * the limits), and stop or go on as flavorFungibility says.
 *
 * Private to the engine.  Ownership: a ts__eng_assignment owns its arrays
 * and message; release with ts__eng_assignment_release().
 */
#ifndef TS_ENGINE_ASSIGN_H
#define TS_ENGINE_ASSIGN_H

#include "engine/engine_int.h"

/* Per resource / flavor modes, worst first (so "worst" = minimum). */
enum ts__eng_mode {
    TS__ENG_NOFIT = 0,
    TS__ENG_NO_CANDIDATES, /* would need preemption, nothing to preempt */
    TS__ENG_PREEMPT,       /* preempting in its own queue */
    TS__ENG_RECLAIM,       /* reclaiming from other queues */
    TS__ENG_FIT,
};

/* Severity of a NoFit for the QuotaReserved=False reason. */
enum ts__eng_nofit {
    TS__ENG_NOFIT_FLAVOR = 0, /* NoMatchingFlavor */
    TS__ENG_NOFIT_QUOTA,      /* WaitingForQuota */
    TS__ENG_NOFIT_MAX,        /* ExceedsMaxQuota */
};

struct ts__eng_assignment {
    enum ts__eng_mode mode; /* worst over pod sets */
    int borrow_level;       /* highest over chosen flavors */
    enum ts__eng_nofit nofit;
    size_t n_podsets;
    struct ts__eng_psa *ps;
    char *message; /* NULL when mode is FIT */
    /* the flavor index each pod set's group search stopped at (see
     * ts__eng_wl.tried), n_podsets * cq->n_rgs entries */
    int32_t *tried;
};

/* Computes the assignment of wl in cq with the given per-pod-set counts
 * (NULL = the pod sets' own counts) against the engine's current usage. */
void ts__eng_assign(const struct ts_engine *e, struct ts__eng_cq *cq, const struct ts__eng_wl *wl,
                    const int32_t *counts, struct ts__eng_assignment *out);
/* Partial admission (Kueue's flavorassigner/podset_reducer.go): when the
 * full assignment does not fit and a pod set has minCount, binary-searches
 * the largest counts that fit.  Replaces *a when a reduced assignment
 * fits. */
void ts__eng_assign_partial(const struct ts_engine *e, struct ts__eng_cq *cq,
                            const struct ts__eng_wl *wl, struct ts__eng_assignment *a);
/* Keeps a's tried flavor indexes on wl for its next attempt in cq (Kueue
 * keeps the last assignment's state after an attempt that did not admit
 * and issued no preemption); returns 1 when a group has flavors left to
 * try (Kueue's PendingFlavors: the workload is retried at once instead of
 * waiting as inadmissible). */
int ts__eng_keep_tried(const struct ts_engine *e, const struct ts__eng_cq *cq,
                       struct ts__eng_wl *wl, struct ts__eng_assignment *a);
/* Forgets wl's tried flavor indexes: its next attempt starts at the first
 * flavor of every group. */
void ts__eng_forget_tried(struct ts__eng_wl *wl);
/* 1 when every fr total of a still fits cq's available quota now. */
int ts__eng_assignment_fits(const struct ts__eng_cq *cq, const struct ts__eng_assignment *a);
void ts__eng_assignment_release(struct ts__eng_assignment *a);

/* Frees the arrays of n pod set assignments and the array itself. */
void ts__eng_psa_free(struct ts__eng_psa *ps, size_t n);

#endif
