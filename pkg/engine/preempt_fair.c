/* preempt_fair.c - Kueue's fair-sharing preemption
 * (pkg/scheduler/preemption/preemption.go, fairPreemptions, and
 * pkg/scheduler/preemption/fairsharing/): which queue to take a victim
 * from next, and whether its share allows it.
 *
 * The preemptor's request is added to its queue's usage for the whole
 * search (so every share counts it), and taken out again to test whether
 * it fits.  Queues are visited by the tree ordering of ordering.go: from
 * the root down, at each cohort the child (queue or cohort) with the
 * highest share, a cohort winning ties; a queue that does not borrow (but
 * the preemptor's) and a queue without candidates are pruned, and so is a
 * cohort that does not borrow and is not an ancestor of the preemptor's
 * queue, and a cohort whose children are all pruned.  Shares are compared
 * at the children of the least common ancestor of the preemptor's queue
 * and the target's (least_common_ancestor.go).
 *
 * First strategy: the preemptor's own candidates are taken as they come;
 * when the preemptor stays within its nominal quota in every pair needing
 * preemption (FairSharingPreemptWithinNominal, on by default), every
 * queue's candidates are taken as they come, for reclamation; otherwise a
 * queue's candidates are read in order, the first the strategy allows is
 * taken (then the ordering starts again: the shares moved), the ones
 * before it are set aside.  Second strategy (always LessThanInitialShare
 * there): the set-aside candidates in a fresh ordering, at most the first
 * of each queue, if the queue's share before is above the preemptor's.
 * Then the fill-back of preempt.c. */
#include "engine/preempt.h"
#include "engine/preempt_int.h"

#include "util/alloc.h"

#include <stdlib.h>
#include <string.h>

#define NONE ((size_t)-1)

/* A node of the preemptor's cohort tree as the ordering sees it. */
struct tnode {
    struct ts_quota_node *n;
    size_t kid0, nkids; /* children: [kid0, kid0 + nkids), breadth first */
    int pruned;
    long head, tail; /* a queue's candidates (indices into s->c), by next[] */
};

struct order {
    struct ts__eng_search *s;
    struct tnode *t; /* t[0] is the root */
    size_t nt, pre;  /* pre: the preemptor's queue */
    size_t *tq;      /* per candidate: its queue's tnode */
    long *next;      /* per candidate: the next of its queue, -1 at the end */
};

static size_t tnode_of(const struct order *o, const struct ts_quota_node *n)
{
    for (size_t i = 0; i < o->nt; i++) {
        if (o->t[i].n == n)
            return i;
    }
    return NONE;
}

/* Lays the tree out breadth first from the root, so that each node's
 * children are contiguous. */
static void order_init(struct order *o, struct ts__eng_search *s)
{
    struct ts_quota_node *root = ts_quota_root(&s->cq->node);
    size_t cap = 1;

    memset(o, 0, sizeof(*o));
    o->s = s;
    o->t = ts_xcalloc(cap, sizeof(*o->t));
    o->t[o->nt++].n = root;
    for (size_t i = 0; i < o->nt; i++) {
        struct ts_quota_node *n = o->t[i].n;

        o->t[i].kid0 = o->nt;
        o->t[i].nkids = n->n_children;
        TS_GROW(o->t, cap, o->nt + n->n_children);
        for (size_t k = 0; k < n->n_children; k++) {
            memset(&o->t[o->nt], 0, sizeof(o->t[o->nt]));
            o->t[o->nt++].n = n->children[k];
        }
    }
    o->pre = tnode_of(o, &s->cq->node);
    o->tq = ts_xcalloc(s->nc + 1, sizeof(*o->tq));
    o->next = ts_xcalloc(s->nc + 1, sizeof(*o->next));
    for (size_t i = 0; i < s->nc; i++)
        o->tq[i] = tnode_of(o, &s->c[i].wl->cq->node);
}

static void order_release(struct order *o)
{
    free(o->t);
    free(o->tq);
    free(o->next);
}

/* A fresh ordering (MakeClusterQueueOrdering) over candidates idx[0..n),
 * each queue's in the order given. */
static void order_reset(struct order *o, const long *idx, size_t n)
{
    for (size_t i = 0; i < o->nt; i++) {
        o->t[i].pruned = 0;
        o->t[i].head = o->t[i].tail = -1;
    }
    for (size_t k = 0; k < n; k++) {
        struct tnode *q = &o->t[o->tq[idx[k]]];

        o->next[idx[k]] = -1;
        if (q->tail >= 0)
            o->next[q->tail] = idx[k];
        else
            q->head = idx[k];
        q->tail = idx[k];
    }
}

static long pop(struct order *o, size_t q)
{
    long i = o->t[q].head;

    o->t[q].head = o->next[i];
    if (o->t[q].head < 0)
        o->t[q].tail = -1;
    return i;
}

static int on_path(const struct order *o, const struct ts_quota_node *n)
{
    for (const struct ts_quota_node *a = o->s->cq->node.parent; a; a = a->parent) {
        if (a == n)
            return 1;
    }
    return 0;
}

static void share(const struct order *o, size_t i, struct ts__eng_share *out)
{
    ts__eng_share(o->s->e, o->t[i].n, out);
}

/* Kueue's nextTarget: the queue to take from next under cohort c, or NONE
 * when this call only pruned. */
static size_t next_target(struct order *o, size_t c)
{
    static const struct ts__eng_share negative = {-1, 1000, 0};
    struct ts__eng_share best_q = negative, best_c = negative, sh;
    size_t hq = NONE, hc = NONE;

    for (size_t k = o->t[c].kid0; k < o->t[c].kid0 + o->t[c].nkids; k++) {
        struct tnode *q = &o->t[k];
        int r;

        if (q->pruned || q->n->is_cohort)
            continue;
        share(o, k, &sh);
        r = ts__eng_share_cmp(&sh, &best_q);
        if ((!sh.borrowing && k != o->pre) || q->head < 0) {
            q->pruned = 1;
        } else if (r > 0 || (r == 0 && ts__eng_pre_cand_cmp(&o->s->c[q->head],
                                                            &o->s->c[o->t[hq].head]) < 0)) {
            best_q = sh;
            hq = k;
        }
    }
    for (size_t k = o->t[c].kid0; k < o->t[c].kid0 + o->t[c].nkids; k++) {
        struct tnode *q = &o->t[k];

        if (q->pruned || !q->n->is_cohort)
            continue;
        share(o, k, &sh);
        if (!sh.borrowing && !on_path(o, q->n)) {
            q->pruned = 1;
        } else if (ts__eng_share_cmp(&sh, &best_c) >= 0) {
            best_c = sh;
            hc = k;
        }
    }
    if (hq == NONE && hc == NONE) {
        o->t[c].pruned = 1;
        return NONE;
    }
    /* a cohort wins a tie: the most unfair node within it is chosen */
    if (hc != NONE && ts__eng_share_cmp(&best_c, &best_q) >= 0)
        return next_target(o, hc);
    return hq;
}

/* The ordering's next queue, NONE at the end.  A queue without a cohort
 * has only its own candidates.  (Kueue v0.17.0 then goes on to its
 * missing cohort and crashes: ordering.go, Iter.) */
static size_t order_next(struct order *o)
{
    if (!o->s->cq->node.parent)
        return o->t[o->pre].head >= 0 ? o->pre : NONE;
    while (!o->t[0].pruned) {
        size_t q = next_target(o, 0);

        if (q != NONE)
            return q;
    }
    return NONE;
}

/* The child of the preemptor's and q's least common ancestor on the way
 * to n (n itself when its parent is that ancestor). */
static const struct ts_quota_node *almost_lca(const struct order *o, size_t q,
                                              const struct ts_quota_node *n)
{
    const struct ts_quota_node *lca = o->t[q].n->parent;

    while (lca && !on_path(o, lca))
        lca = lca->parent;
    while (n->parent && n->parent != lca)
        n = n->parent;
    return n;
}

/* Kueue's ComputeShares: the preemptor's side and q's side, now. */
static void shares(const struct order *o, size_t q, struct ts__eng_share *mine,
                   struct ts__eng_share *theirs)
{
    ts__eng_share(o->s->e, almost_lca(o, q, &o->s->cq->node), mine);
    ts__eng_share(o->s->e, almost_lca(o, q, o->t[q].n), theirs);
}

/* q's side once candidate i is gone (ComputeTargetShareAfterRemoval). */
static void share_without(const struct order *o, size_t q, long i, struct ts__eng_share *out)
{
    ts__eng_wl_quota(o->s->c[i].wl, -1);
    ts__eng_share(o->s->e, almost_lca(o, q, o->t[q].n), out);
    ts__eng_wl_quota(o->s->c[i].wl, 1);
}

/* Adds (sign > 0) or removes the preemptor's request at its queue. */
static void simulate(const struct ts__eng_search *s, int sign)
{
    for (size_t i = 0; i < s->n; i++) {
        if (sign > 0)
            ts_quota_add_usage(&s->cq->node, s->fr[i], s->need[i]);
        else
            ts_quota_remove_usage(&s->cq->node, s->fr[i], s->need[i]);
    }
}

/* Kueue's queueWithinNominalInResourcesNeedingPreemption, request added. */
static int within_nominal(const struct ts__eng_search *s)
{
    const struct ts_quota_node *n = &s->cq->node;

    for (size_t i = 0; i < s->n; i++) {
        if (s->lacking[i] && n->usage_sum[s->fr[i]] > n->nominal[s->fr[i]])
            return 0;
    }
    return 1;
}

struct targets {
    struct ts__eng_cand *t;
    size_t n;
};

/* Takes candidate i as a victim of kind k; returns whether the preemptor
 * fits now (workloadFitsForFairSharing: its own request out). */
static int take(struct order *o, long i, enum ts__eng_vkind k, struct targets *tg)
{
    int ok;

    ts__eng_wl_quota(o->s->c[i].wl, -1);
    tg->t[tg->n] = o->s->c[i];
    tg->t[tg->n++].kind = k;
    simulate(o->s, -1);
    ok = ts__eng_pre_fits(o->s, 1);
    simulate(o->s, 1);
    return ok;
}

static int strategy_allows(enum ts_fs_strategy st, const struct ts__eng_share *mine,
                           const struct ts__eng_share *before, const struct ts__eng_share *after)
{
    if (st == TS_FS_LESS_THAN_OR_EQUAL_TO_FINAL_SHARE)
        return ts__eng_share_cmp(mine, after) <= 0;
    return ts__eng_share_cmp(mine, before) < 0;
}

/* Kueue's runFirstFsStrategy; the candidates it sets aside go to retry. */
static int first_strategy(struct order *o, enum ts_fs_strategy st, struct targets *tg, long *retry,
                          size_t *nretry)
{
    int nominal = within_nominal(o->s);
    size_t q;

    while ((q = order_next(o)) != NONE) {
        struct ts__eng_share mine, before, after;

        if (q == o->pre || nominal) {
            if (take(o, pop(o, q), q == o->pre ? TS__ENG_V_SAME_QUEUE : TS__ENG_V_HIER_RECLAIM, tg))
                return 1;
            continue;
        }
        shares(o, q, &mine, &before);
        while (o->t[q].head >= 0) {
            long i = pop(o, q);

            share_without(o, q, i, &after);
            if (strategy_allows(st, &mine, &before, &after)) {
                if (take(o, i, TS__ENG_V_FAIR_SHARING, tg))
                    return 1;
                break; /* the shares moved: the ordering starts again */
            }
            retry[(*nretry)++] = i;
        }
    }
    return 0;
}

/* Kueue's runSecondFsStrategy: LessThanInitialShare does not depend on
 * the candidate, so at most a queue's first is taken. */
static int second_strategy(struct order *o, struct targets *tg)
{
    size_t q;

    while ((q = order_next(o)) != NONE) {
        struct ts__eng_share mine, before;

        shares(o, q, &mine, &before);
        if (ts__eng_share_cmp(&mine, &before) < 0 && take(o, pop(o, q), TS__ENG_V_FAIR_SHARING, tg))
            return 1;
        o->t[q].pruned = 1;
    }
    return 0;
}

size_t ts__eng_pre_fair(struct ts__eng_search *s, struct ts__eng_cand **out)
{
    const struct ts_engine_config *cfg = &s->e->config;
    enum ts_fs_strategy st0 =
        cfg->n_strategies ? cfg->strategies[0] : TS_FS_LESS_THAN_OR_EQUAL_TO_FINAL_SHARE;
    size_t nst = cfg->n_strategies ? cfg->n_strategies : 2, nretry = 0;
    long *idx = ts_xcalloc(s->nc + 1, sizeof(*idx));
    struct targets tg = {ts_xcalloc(s->nc + 1, sizeof(*tg.t)), 0};
    struct order o;
    int ok;

    qsort(s->c, s->nc, sizeof(*s->c), ts__eng_pre_cand_cmp);
    order_init(&o, s);
    for (size_t i = 0; i < s->nc; i++)
        idx[i] = (long)i;
    order_reset(&o, idx, s->nc);
    simulate(s, 1);
    ok = first_strategy(&o, st0, &tg, idx, &nretry);
    if (!ok && nst > 1) {
        order_reset(&o, idx, nretry);
        ok = second_strategy(&o, &tg);
    }
    simulate(s, -1);
    order_release(&o);
    free(idx);
    tg.n = ts__eng_pre_fill_back(s, ok, 1, tg.t, tg.n);
    if (!tg.n) {
        free(tg.t);
        tg.t = NULL;
    }
    *out = tg.t;
    return tg.n;
}
