/*
 * preempt_int.h - what the preemption search's files share (preempt.c:
 * candidates and the classical search; preempt_fair.c: Kueue's fair-sharing
 * search).  Private to the engine.
 */
#ifndef TS_ENGINE_PREEMPT_INT_H
#define TS_ENGINE_PREEMPT_INT_H

#include "engine/engine_int.h"

enum ts__eng_vkind {
    TS__ENG_V_SAME_QUEUE = 0,
    TS__ENG_V_FAIR_SHARING,      /* another queue, chosen by dominant resource share */
    TS__ENG_V_HIER_RECLAIM,      /* the preemptor fits its own quota */
    TS__ENG_V_RECLAIM_NO_BORROW, /* usable only if the preemptor then does not borrow */
    TS__ENG_V_RECLAIM_BORROWING, /* borrowWithinCohort allows it */
};

struct ts__eng_cand {
    struct ts__eng_wl *wl;
    enum ts__eng_vkind kind;
    /* Kueue's candidate order, copied by cand_fill() (ts__eng_pre_cand_cmp
     * runs very often on a large cohort, and chasing wl would be most of it) */
    int out;  /* evicting or evicted */
    int same; /* kind == TS__ENG_V_SAME_QUEUE */
    int32_t priority;
    ts_time reserved_at;
    uint64_t id_prefix; /* the first 8 bytes of id, big-endian: strcmp's order */
    const char *id;     /* uid, or the key */
};

struct ts__eng_run;

struct ts__eng_search {
    const struct ts_engine *e;
    struct ts__eng_cq *cq;
    const struct ts__eng_wl *pre;
    const size_t *fr;
    const int64_t *need;
    size_t n;
    int advantage; /* the preemptor fits its own nominal quota */
    /* classical: it has the hierarchical advantage over some queue (its
     * request fits its queue or a cohort below the root) */
    int adv_any;
    unsigned char *lacking; /* need[i] > what is available now */
    uint64_t lacking_mask;  /* bit fr for each lacking fr < 64 */
    int any_cross, any_hier;
    /* fair sharing: every candidate, sorted */
    struct ts__eng_cand *c;
    size_t nc, cap;
    /* classical: one run per queue with candidates, merged (minimal()) */
    struct ts__eng_run *runs;
    size_t nruns, cap_runs;
};

/* Kueue's candidate order (common/ordering.go), for qsort. */
int ts__eng_pre_cand_cmp(const void *pa, const void *pb);

/* Whether the preemptor's request fits its queue now (usage as the search
 * left it), within its nominal quota unless allow_borrowing. */
int ts__eng_pre_fits(const struct ts__eng_search *s, int allow_borrowing);

/* Whether queue node n uses more than its nominal quota in a pair the
 * preemptor lacks (Kueue's cqIsBorrowing over frsNeedPreemption). */
int ts__eng_pre_borrows_lacking(const struct ts__eng_search *s, const struct ts_quota_node *n);

/* With the nt targets t[] removed from the tree and ok set: adds back all
 * but the last while the preemptor still fits (Kueue's
 * fillBackWorkloads), restores every target's usage and keeps the needed
 * ones first in t[].  Returns their count (0 when !ok). */
size_t ts__eng_pre_fill_back(struct ts__eng_search *s, int ok, int allow_borrowing,
                             struct ts__eng_cand *t, size_t nt);

/* Kueue's fairPreemptions over s's candidates (s->c, any order).  Returns
 * the count of targets stored in *out (malloc'd; caller frees, NULL when
 * 0); the tree's usage is left as it was found. */
size_t ts__eng_pre_fair(struct ts__eng_search *s, struct ts__eng_cand **out);

#endif
