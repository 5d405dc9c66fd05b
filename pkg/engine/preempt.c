#include "engine/preempt.h"
#include "engine/preempt_int.h"

#include "api/workload.h"
#include "util/alloc.h"
#include "util/buf.h"

#include <stdlib.h>
#include <string.h>

/* Whether holder w uses a flavor-resource the preemptor lacks.  This runs
 * for every holder of every borrowing queue in the cohort, for every
 * waiting preemptor, every cycle: walking each holder's admission there
 * would dominate the cycle, hence the masks. */
static int uses_needed(const struct ts__eng_search *s, const struct ts__eng_wl *w)
{
    if (!w->fr_wide)
        return (w->fr_mask & s->lacking_mask) != 0;
    for (size_t p = 0; w->admission && p < w->n_podsets; p++) {
        for (size_t j = 0; j < w->admission[p].n; j++) {
            for (size_t i = 0; i < s->n; i++) {
                if (w->admission[p].fr[j] == s->fr[i] && s->lacking[i])
                    return 1;
            }
        }
    }
    return 0;
}

void ts__eng_wl_quota(struct ts__eng_wl *w, int sign)
{
    for (size_t p = 0; p < w->n_podsets; p++) {
        for (size_t j = 0; j < w->admission[p].n; j++) {
            if (sign > 0)
                ts_quota_add_usage(&w->cq->node, w->admission[p].fr[j], w->admission[p].amount[j]);
            else
                ts_quota_remove_usage(&w->cq->node, w->admission[p].fr[j],
                                      w->admission[p].amount[j]);
        }
    }
}

static void cand_fill(struct ts__eng_cand *c, struct ts__eng_wl *w, enum ts__eng_vkind k)
{
    c->wl = w;
    c->kind = k;
    c->out = w->evicting || w->evicted;
    c->same = k == TS__ENG_V_SAME_QUEUE;
    c->priority = w->priority;
    c->reserved_at = w->reserved_at;
    c->id = w->uid ? w->uid : w->key;
    c->id_prefix = w->id_prefix;
}

static void push(struct ts__eng_search *s, struct ts__eng_wl *w, enum ts__eng_vkind k)
{
    TS_GROW(s->c, s->cap, s->nc + 1);
    cand_fill(&s->c[s->nc++], w, k);
    s->any_cross |= k != TS__ENG_V_SAME_QUEUE;
}

static int within_cq_allows(const struct ts__eng_cq *cq, const struct ts__eng_wl *pre,
                            const struct ts__eng_wl *c)
{
    switch (cq->preemption.within_cluster_queue) {
    case TS_WITHIN_CQ_LOWER_PRIORITY:
        return c->priority < pre->priority;
    case TS_WITHIN_CQ_LOWER_OR_NEWER_EQUAL_PRIORITY:
        return c->priority < pre->priority ||
               (c->priority == pre->priority && c->queue_ts > pre->queue_ts);
    case TS_WITHIN_CQ_NEVER:
        break;
    }
    return 0;
}

/* The preemptor stays within its queue's nominal quota for every needed
 * pair (Kueue's "hierarchical advantage" at the queue level). */
static int fits_own_nominal(const struct ts__eng_search *s)
{
    const struct ts_quota_node *n = &s->cq->node;

    for (size_t i = 0; i < s->n; i++) {
        if (n->usage_sum[s->fr[i]] + s->need[i] > n->nominal[s->fr[i]])
            return 0;
    }
    return 1;
}

int ts__eng_pre_borrows_lacking(const struct ts__eng_search *s, const struct ts_quota_node *n)
{
    for (size_t i = 0; i < s->n; i++) {
        if (s->lacking[i] && n->usage_sum[s->fr[i]] > n->nominal[s->fr[i]])
            return 1;
    }
    return 0;
}

static int borrowing_needed(const struct ts__eng_search *s, const struct ts_quota_node *n)
{
    for (size_t i = 0; i < s->n; i++) {
        if (s->fr[i] < n->nfr && n->usage_sum[s->fr[i]] > n->nominal[s->fr[i]])
            return 1;
    }
    return 0;
}

static enum ts__eng_vkind classify(const struct ts__eng_search *s, const struct ts__eng_wl *c,
                                   int advantage)
{
    const struct ts_cq_preemption *p = &s->cq->preemption;

    if (advantage)
        return TS__ENG_V_HIER_RECLAIM;
    if (p->borrow_within_cohort == TS_BORROW_NEVER || c->priority >= s->pre->priority ||
        (p->max_priority_threshold.set && c->priority > p->max_priority_threshold.v))
        return TS__ENG_V_RECLAIM_NO_BORROW;
    return TS__ENG_V_RECLAIM_BORROWING;
}

/* The preemptor's queue is strictly under nominal in every needed pair. */
static int under_nominal(const struct ts__eng_search *s)
{
    const struct ts_quota_node *node = &s->cq->node;

    for (size_t i = 0; i < s->n; i++) {
        if (node->usage_sum[s->fr[i]] >= node->nominal[s->fr[i]])
            return 0;
    }
    return 1;
}

/* Whether, classically, another queue's candidate may be taken by an
 * attempt that allows borrowing.  Without the hierarchical advantage and
 * with borrowWithinCohort Never, every such candidate is
 * ReclaimWithoutBorrowing, which that attempt skips. */
static int cross_while_borrowing(const struct ts__eng_search *s)
{
    return s->advantage || s->adv_any || s->cq->preemption.borrow_within_cohort != TS_BORROW_NEVER;
}

/* Whether some attempt could take another queue's workload.  A preemptor
 * not under its nominal quota gets only the attempt that allows
 * borrowing.  At large scale most searches are of this kind, and
 * collecting the cohort's candidates is most of their cost. */
static int cross_takeable(const struct ts__eng_search *s)
{
    return s->e->config.fair_sharing || cross_while_borrowing(s) || under_nominal(s);
}

/* Whether holder w of the preemptor's queue (same) or of another queue is
 * a candidate. */
static int is_candidate(const struct ts__eng_search *s, const struct ts__eng_wl *w, int same)
{
    if (same)
        return within_cq_allows(s->cq, s->pre, w) && uses_needed(s, w);
    if (s->cq->preemption.reclaim_within_cohort == TS_RECLAIM_LOWER_PRIORITY &&
        w->priority >= s->pre->priority)
        return 0; /* the cheap test first: this runs for every holder */
    return uses_needed(s, w);
}

static enum ts__eng_vkind kind_of(const struct ts__eng_search *s, const struct ts__eng_wl *w,
                                  int same, int adv)
{
    if (same)
        return TS__ENG_V_SAME_QUEUE;
    return s->e->config.fair_sharing ? TS__ENG_V_FAIR_SHARING : classify(s, w, adv);
}

/* Kueue's candidate order (common/ordering.go). */
int ts__eng_pre_cand_cmp(const void *pa, const void *pb)
{
    const struct ts__eng_cand *a = pa, *b = pb;
    int r;

    if (a->out != b->out) /* Kueue: evicted workloads first */
        return a->out ? -1 : 1;
    if (a->same != b->same) /* other queues' first */
        return a->same ? 1 : -1;
    /* Kueue's candidate iterator (classical/candidate_generator.go): those
     * the preemptor has the hierarchical advantage over come before the
     * others of other queues */
    if ((a->kind == TS__ENG_V_HIER_RECLAIM) != (b->kind == TS__ENG_V_HIER_RECLAIM))
        return a->kind == TS__ENG_V_HIER_RECLAIM ? -1 : 1;
    if (a->priority != b->priority)
        return a->priority < b->priority ? -1 : 1;
    if (a->reserved_at != b->reserved_at)
        return a->reserved_at > b->reserved_at ? -1 : 1;
    if (a->id_prefix != b->id_prefix)
        return a->id_prefix < b->id_prefix ? -1 : 1;
    if ((r = strcmp(a->id, b->id)))
        return r;
    return strcmp(a->wl->key, b->wl->key); /* UIDs copied by hand: still one order */
}

/* q's holders in candidate order (the queue's own part of Kueue's order),
 * sorted again on first use after a change.  Searches outnumber a queue's
 * changes by far: at large scale a cohort of 100 queues sees a search per
 * waiting head for each workload that finishes in it. */
static void sort_holders(struct ts__eng_cq *q)
{
    if (q->order_stale) {
        struct ts__eng_cand *tmp = ts_xcalloc(q->n_holders + 1, sizeof(*tmp));

        for (size_t i = 0; i < q->n_holders; i++)
            cand_fill(&tmp[i], q->holders[i], TS__ENG_V_SAME_QUEUE);
        qsort(tmp, q->n_holders, sizeof(*tmp), ts__eng_pre_cand_cmp);
        TS_GROW(q->order, q->cap_order, q->n_holders + 1);
        for (size_t i = 0; i < q->n_holders; i++)
            q->order[i] = tmp[i].wl;
        free(tmp);
        q->order_stale = 0;
    }
}

int ts__eng_order_check(const struct ts__eng_cq *q)
{
    struct ts__eng_cand a = {0}, b;

    if (q->order_stale)
        return 0;
    for (size_t i = 0; i < q->n_holders; i++) {
        struct ts__eng_wl *w = q->order[i];

        if (w->cq != q || w->holder_pos >= q->n_holders || q->holders[w->holder_pos] != w)
            return -1; /* not a holder of q */
        cand_fill(&b, w, TS__ENG_V_SAME_QUEUE);
        if (i && ts__eng_pre_cand_cmp(&a, &b) >= 0)
            return -1; /* out of order, or twice */
        a = b;
    }
    return 0;
}

/* --- the queues whose workloads are candidates ---------------------------- */

/* One queue's candidates, in order, read one at a time. */
struct ts__eng_run {
    struct ts__eng_cq *q;
    int same; /* the preemptor's own queue */
    int adv;  /* the preemptor has the hierarchical advantage over q */
    /* the lowest cohort q shares with the preemptor (NULL: same queue) */
    const struct ts_quota_node *lca;
    size_t first, next; /* q->order index of the first candidate, after the head */
    struct ts__eng_cand head;
};

/* Whether neither w nor any holder after it in its queue's candidate
 * order can be a candidate: past the workloads on their way out the order
 * is by priority, and these policies take only lower (or, newer, equal)
 * priorities.  So a waiting head of the lowest priority need not read
 * every holder of its queue at every requeue. */
static int past_candidates(const struct ts__eng_search *s, const struct ts__eng_wl *w, int same)
{
    const struct ts_cq_preemption *p = &s->cq->preemption;

    if (w->evicting || w->evicted)
        return 0;
    if (same && p->within_cluster_queue == TS_WITHIN_CQ_LOWER_OR_NEWER_EQUAL_PRIORITY)
        return w->priority > s->pre->priority;
    if (same || p->reclaim_within_cohort == TS_RECLAIM_LOWER_PRIORITY)
        return w->priority >= s->pre->priority;
    return 0;
}

/* Moves r to its first candidate at q->order index i or later; returns 0
 * when there is none. */
static int run_seek(const struct ts__eng_search *s, struct ts__eng_run *r, size_t i)
{
    for (; i < r->q->n_holders; i++) {
        struct ts__eng_wl *w = r->q->order[i];

        if (past_candidates(s, w, r->same))
            return 0;
        if (is_candidate(s, w, r->same)) {
            cand_fill(&r->head, w, kind_of(s, w, r->same, r->adv));
            r->next = i + 1;
            return 1;
        }
    }
    return 0;
}

/* Adds q's candidates: every one for fair sharing, else q's run. */
static void add_queue(struct ts__eng_search *s, struct ts__eng_cq *q, int same, int adv,
                      const struct ts_quota_node *lca)
{
    struct ts__eng_run r = {0};

    if (s->e->config.fair_sharing) {
        for (size_t i = 0; i < q->n_holders; i++) {
            if (is_candidate(s, q->holders[i], same))
                push(s, q->holders[i], kind_of(s, q->holders[i], same, 0));
        }
        return;
    }
    sort_holders(q);
    r.q = q;
    r.same = same;
    r.adv = adv;
    r.lca = lca;
    if (!run_seek(s, &r, 0))
        return; /* most queues: grow the runs only for one kept */
    r.first = r.next - 1;
    TS_GROW(s->runs, s->cap_runs, s->nruns + 1);
    s->runs[s->nruns++] = r;
    s->any_cross |= !same;
    s->any_hier |= !same && adv;
}

/* Whether node n uses no more than its quota (nominal for a queue) in
 * every pair the preemptor lacks (Kueue's IsWithinNominalInResources over
 * frsNeedPreemption). */
static int within_nominal(const struct ts__eng_search *s, const struct ts_quota_node *n)
{
    for (size_t i = 0; i < s->n; i++) {
        if (s->lacking[i] && s->fr[i] < n->nfr && n->usage_sum[s->fr[i]] > n->subtree_sum[s->fr[i]])
            return 0;
    }
    return 1;
}

/* Classical: the queues under cohort n (but not in subtree skip) that use
 * more than their quota where the preemptor lacks, not descending into a
 * cohort within its quota (Kueue's collectCandidatesInSubtree). */
static void collect_subtree(struct ts__eng_search *s, const struct ts_quota_node *n,
                            const struct ts_quota_node *skip, int adv,
                            const struct ts_quota_node *lca)
{
    for (size_t i = 0; i < n->n_children; i++) {
        struct ts_quota_node *c = n->children[i];

        if (c == skip || c == &s->cq->node || within_nominal(s, c))
            continue;
        if (c->is_cohort)
            collect_subtree(s, c, NULL, adv, lca);
        else if (!ts__eng_cq_inactive(s->e, ts__eng_cq_of_node(c)))
            add_queue(s, ts__eng_cq_of_node(c), 0, adv, lca);
    }
}

/* Whether n's usage plus req fits its quota in every needed pair, and
 * req less what n keeps for itself (Kueue's QuantitiesFitInQuota). */
static int fits_in_quota(const struct ts__eng_search *s, const struct ts_quota_node *n,
                         int64_t *req)
{
    int fits = 1;

    for (size_t i = 0; i < s->n; i++) {
        size_t fr = s->fr[i];
        int64_t local_avail = ts_quota_local_avail(n, fr);

        if (n->usage_sum[fr] + req[i] > n->subtree_sum[fr])
            fits = 0;
        req[i] = req[i] > local_avail ? req[i] - local_avail : 0;
    }
    return fits;
}

/* Classical: walks up from the preemptor's queue, each cohort's other
 * subtrees giving candidates; the preemptor has the hierarchical advantage
 * over those of a cohort when its request fits the quota of its own queue
 * or of a cohort below that one (Kueue's
 * collectCandidatesForHierarchicalReclaim). */
static void collect_hierarchy(struct ts__eng_search *s)
{
    const struct ts_quota_node *prev = &s->cq->node;
    int64_t *req = ts_xcalloc(s->n + 1, sizeof(*req));
    size_t depth = 0, k = 0;
    unsigned char *adv;

    for (const struct ts_quota_node *p = prev->parent; p; p = p->parent)
        depth++;
    adv = ts_xcalloc(depth + 1, 1);
    memcpy(req, s->need, s->n * sizeof(*req));
    adv[0] = (unsigned char)fits_in_quota(s, prev, req);
    for (const struct ts_quota_node *p = prev->parent; p && p->parent; p = p->parent, k++)
        adv[k + 1] = adv[k] || fits_in_quota(s, p, req);
    s->adv_any = adv[depth - 1];
    /* nothing another queue holds can help (see cross_takeable()): most
     * searches at large scale, and collecting is most of their cost */
    if (cross_takeable(s)) {
        k = 0;
        for (const struct ts_quota_node *p = prev->parent; p; prev = p, p = p->parent, k++)
            collect_subtree(s, p, prev, adv[k], p);
    }
    free(adv);
    free(req);
}

static void collect_cross(struct ts__eng_search *s, struct ts_quota_node *n)
{
    if (n->is_cohort) {
        for (size_t i = 0; i < n->n_children; i++)
            collect_cross(s, n->children[i]);
        return;
    }
    if (n == &s->cq->node)
        return;
    /* an inactive queue's workloads are no candidates: Kueue's snapshot
     * leaves inactive ClusterQueues out while their usage stays in the
     * cohort (pkg/cache/scheduler/snapshot.go, Snapshot) */
    if (ts__eng_cq_inactive(s->e, ts__eng_cq_of_node(n)))
        return;
    /* fair sharing: Kueue's cqIsBorrowing, in the pairs needing preemption */
    if (s->e->config.fair_sharing ? ts__eng_pre_borrows_lacking(s, n) : borrowing_needed(s, n))
        add_queue(s, ts__eng_cq_of_node(n), 0, 0, NULL);
}

static void collect(struct ts__eng_search *s)
{
    struct ts__eng_cq *cq = s->cq;

    /* usage does not change while candidates are collected: what is
     * lacking is computed once, not per candidate up the cohort tree */
    s->lacking = ts_xcalloc(s->n + 1, 1);
    for (size_t i = 0; i < s->n; i++) {
        s->lacking[i] = s->need[i] > ts_quota_available(&cq->node, s->fr[i]);
        if (s->lacking[i] && s->fr[i] < 64)
            s->lacking_mask |= UINT64_C(1) << s->fr[i];
    }
    s->advantage = fits_own_nominal(s);
    if (cq->preemption.within_cluster_queue != TS_WITHIN_CQ_NEVER)
        add_queue(s, cq, 1, 0, NULL);
    if (!cq->node.parent || cq->preemption.reclaim_within_cohort == TS_RECLAIM_NEVER)
        return;
    if (s->e->config.fair_sharing)
        collect_cross(s, ts_quota_root(&cq->node));
    else
        collect_hierarchy(s);
}

int ts__eng_pre_fits(const struct ts__eng_search *s, int allow_borrowing)
{
    const struct ts_quota_node *n = &s->cq->node;

    /* the cheap test first: while only other queues' workloads are taken,
     * the preemptor's own usage stays above what no borrowing allows */
    for (size_t i = 0; !allow_borrowing && i < s->n; i++) {
        if (n->usage_sum[s->fr[i]] + s->need[i] > n->nominal[s->fr[i]])
            return 0;
    }
    for (size_t i = 0; i < s->n; i++) {
        if (s->need[i] > ts_quota_available(n, s->fr[i]))
            return 0;
    }
    return 1;
}

/* --- the classical minimal set: the runs merged in Kueue's order -------- */

static int run_before(const struct ts__eng_run *a, const struct ts__eng_run *b)
{
    return ts__eng_pre_cand_cmp(&a->head, &b->head) < 0;
}

static void runs_sift_down(struct ts__eng_run **h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        struct ts__eng_run *t;

        if (l < n && run_before(h[l], h[m]))
            m = l;
        if (l + 1 < n && run_before(h[l + 1], h[m]))
            m = l + 1;
        if (m == i)
            return;
        t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

/* Adds back all targets but the last while the preemptor still fits (the
 * fill-back), restores usage, and keeps the targets needed in t[0..]. */
size_t ts__eng_pre_fill_back(struct ts__eng_search *s, int ok, int allow_borrowing,
                             struct ts__eng_cand *t, size_t nt)
{
    size_t kept = 0;

    for (size_t k = nt - (nt > 0); ok && k-- > 0;) {
        ts__eng_wl_quota(t[k].wl, 1);
        if (ts__eng_pre_fits(s, allow_borrowing))
            t[k].wl = NULL; /* not needed: stays back in */
        else
            ts__eng_wl_quota(t[k].wl, -1);
    }
    for (size_t k = 0; k < nt; k++) {
        if (!t[k].wl)
            continue;
        ts__eng_wl_quota(t[k].wl, 1);
        if (ok)
            t[kept++] = t[k];
    }
    return ok ? kept : 0;
}

/* Whether r's queue, and every cohort above it below the cohort it shares
 * with the preemptor, still uses more than its quota where the preemptor
 * lacks (Kueue's candidateIsValid). */
static int still_borrows(const struct ts__eng_search *s, const struct ts__eng_run *r)
{
    if (!r->lca) /* fair sharing keeps its own test */
        return borrowing_needed(s, &r->q->node);
    if (within_nominal(s, &r->q->node))
        return 0;
    for (const struct ts_quota_node *n = r->q->node.parent; n && n != r->lca; n = n->parent) {
        if (within_nominal(s, n))
            return 0;
    }
    return 1;
}

/* Removes candidates in Kueue's order until the preemptor fits, then fills
 * back.  A cross-queue candidate counts only while its queue still borrows
 * (reclamation never pushes a queue under its nominal quota); usage only
 * falls while candidates are removed, so the first candidate of a queue
 * that no longer borrows ends that queue's run.  Returns the count of
 * targets stored in *out (malloc'd; caller frees); usage is restored. */
static size_t minimal(struct ts__eng_search *s, int allow_borrowing, struct ts__eng_cand **out)
{
    int cross = !allow_borrowing || cross_while_borrowing(s);
    struct ts__eng_run **h = ts_xcalloc(s->nruns + 1, sizeof(*h));
    struct ts__eng_cand *t = NULL;
    size_t nh = 0, nt = 0, cap = 0;
    int ok = 0;

    for (size_t i = 0; i < s->nruns; i++) {
        struct ts__eng_run *r = &s->runs[i];

        if ((r->same || cross) && run_seek(s, r, r->first))
            h[nh++] = r;
    }
    for (size_t i = nh / 2; i-- > 0;)
        runs_sift_down(h, nh, i);
    while (!ok && nh) {
        struct ts__eng_run *r = h[0];
        struct ts__eng_cand c = r->head;

        if (!r->same && !still_borrows(s, r)) {
            h[0] = h[--nh]; /* its queue no longer borrows */
            runs_sift_down(h, nh, 0);
            continue;
        }
        if (!run_seek(s, r, r->next))
            h[0] = h[--nh];
        runs_sift_down(h, nh, 0);
        if (allow_borrowing && c.kind == TS__ENG_V_RECLAIM_NO_BORROW)
            continue;
        ts__eng_wl_quota(c.wl, -1);
        TS_GROW(t, cap, nt + 1);
        t[nt++] = c;
        ok = ts__eng_pre_fits(s, allow_borrowing);
    }
    free(h);
    nt = ts__eng_pre_fill_back(s, ok, allow_borrowing, t, nt);
    if (!nt) {
        free(t);
        t = NULL;
    }
    *out = t;
    return nt;
}

static const char *reason_of(enum ts__eng_vkind k)
{
    switch (k) {
    case TS__ENG_V_SAME_QUEUE:
        return TS_WL_REASON_IN_CLUSTER_QUEUE;
    case TS__ENG_V_FAIR_SHARING:
        return TS_WL_REASON_IN_COHORT_FAIR_SHARING;
    case TS__ENG_V_RECLAIM_BORROWING:
        return TS_WL_REASON_IN_COHORT_RECLAIM_WHILE_BORROWING;
    case TS__ENG_V_HIER_RECLAIM:
    case TS__ENG_V_RECLAIM_NO_BORROW:
        break;
    }
    return TS_WL_REASON_IN_COHORT_RECLAMATION;
}

/* Kueue's attempts: with borrowing allowed first unless only reclaiming
 * without borrowing can help (pkg/scheduler/preemption/preemption.go,
 * classicalPreemptions()). */
static void attempts(const struct ts__eng_search *s, int *order, int *n)
{
    int cross = s->any_cross, hier = s->any_hier, under = under_nominal(s);

    *n = 2;
    order[0] = 1;
    order[1] = 0;
    if (!cross || (s->cq->preemption.borrow_within_cohort == TS_BORROW_NEVER && !under)) {
        *n = 1;
    } else if (s->cq->preemption.borrow_within_cohort == TS_BORROW_NEVER && !hier) {
        order[0] = 0;
        order[1] = 1;
    }
}

size_t ts__eng_preempt_targets(const struct ts_engine *e, struct ts__eng_cq *cq,
                               const struct ts__eng_wl *wl, const size_t *fr, const int64_t *need,
                               size_t n, struct ts__eng_target **out, int *cross)
{
    struct ts__eng_search s = {.e = e, .cq = cq, .pre = wl, .fr = fr, .need = need, .n = n};
    struct ts__eng_cand *t = NULL;
    size_t nt = 0;
    int order[2], na;

    *out = NULL;
    *cross = 0;
    collect(&s);
    if (e->config.fair_sharing) {
        if (s.nc)
            nt = ts__eng_pre_fair(&s, &t);
    } else if (s.nruns) {
        attempts(&s, order, &na);
        for (int a = 0; a < na && !nt; a++)
            nt = minimal(&s, order[a], &t);
    }
    if (nt) {
        *out = ts_xcalloc(nt, sizeof(**out));
        for (size_t i = 0; i < nt; i++) {
            (*out)[i].wl = t[i].wl;
            (*out)[i].reason = reason_of(t[i].kind);
            *cross |= t[i].kind != TS__ENG_V_SAME_QUEUE;
        }
    }
    free(t);
    free(s.lacking);
    free(s.c);
    free(s.runs);
    return nt;
}

static void path_of(struct ts_buf *b, const struct ts_quota_node *n)
{
    if (n->parent)
        path_of(b, n->parent);
    ts_buf_addf(b, "/%s", n->name);
}

static const char *human(const char *reason)
{
    if (!strcmp(reason, TS_WL_REASON_IN_CLUSTER_QUEUE))
        return "prioritization in the ClusterQueue";
    if (!strcmp(reason, TS_WL_REASON_IN_COHORT_RECLAIM_WHILE_BORROWING))
        return "reclamation within the cohort while borrowing";
    if (!strcmp(reason, TS_WL_REASON_IN_COHORT_FAIR_SHARING))
        return "Fair Sharing within the cohort";
    return "reclamation within the cohort";
}

char *ts__eng_preempt_message(const struct ts__eng_wl *pre, const struct ts__eng_cq *pcq,
                              const struct ts__eng_wl *victim, const char *reason)
{
    struct ts_buf b = TS_BUF_INIT;

    ts_buf_addf(&b, "Preempted to accommodate a workload (UID: %s, JobUID: %s) due to %s",
                pre->uid ? pre->uid : "UNKNOWN", pre->job_uid ? pre->job_uid : "UNKNOWN",
                human(reason));
    ts_buf_adds(&b, "; preemptor path: ");
    path_of(&b, &pcq->node);
    ts_buf_adds(&b, "; preemptee path: ");
    if (victim->cq)
        path_of(&b, &victim->cq->node);
    return ts_buf_take(&b);
}
