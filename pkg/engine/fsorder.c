/* fsorder.c - the order in which one cycle tries its heads under fair
 * sharing: Kueue's tournament (pkg/scheduler/fair_sharing_iterator.go).
 *
 * Each pop runs a tournament in one cohort tree: every cohort nominates
 * the best of its children's nominees, bottom up, and the root's nominee
 * is tried next.  A child competes with the dominant resource share it
 * would have with its nominee admitted (the child ClusterQueue's, or the
 * child cohort's with the nominee's usage bubbled up to it), compared as
 * Kueue's entryComparer.less: not borrowing on the nominee's flavor
 * resources first (FairSharingPrioritizeNonBorrowing, on by default in
 * v0.17), then the lower share (CompareDRS: a zero weight that borrows
 * loses to every other), then priority and queue order.  The shares are
 * taken again after every entry that moved quota (an admission or a
 * reservation), as Kueue computes them from the snapshot at each pop:
 * only a share of a node whose usage moved can change (the path from the
 * queue that moved quota up), so only heads with such a node on their
 * path are taken again. */
#include "engine/engine_int.h"
#include "util/alloc.h"

#include <stdlib.h>
#include <string.h>

/* One node's share with a nominee: Kueue's DRS (pkg/cache/scheduler/
 * fair_sharing.go), kept as its float parts so that comparisons round as
 * Kueue's do. */
struct ts__eng_fs_val {
    const struct ts_quota_node *node;
    double ratio;     /* unweighted: borrowed * 1000 / lendable, largest resource */
    double weight;    /* fairSharing weight */
    int borrowing_on; /* borrows on a flavor resource the nominee requests */
};

/* DRS of n with x[fr] more usage; req[fr] > 0 marks the nominee's pairs. */
static void drs_of(const struct ts_engine *e, const struct ts_quota_node *n, const int64_t *x,
                   const int64_t *req, int64_t *borrowed, int64_t *lendable,
                   struct ts__eng_fs_val *out)
{
    int64_t w = ts__eng_node_weight(n);

    memset(out, 0, sizeof(*out));
    out->node = n;
    out->weight = w == INT64_MAX ? (double)INT64_MAX : (double)w / 1000.0;
    memset(borrowed, 0, (e->n_resources + 1) * sizeof(*borrowed));
    memset(lendable, 0, (e->n_resources + 1) * sizeof(*lendable));
    for (size_t fr = 0; fr < n->nfr && fr < e->nfr; fr++) {
        size_t r = e->fr_resource[fr];
        int64_t over = ts_quota_over(n, fr, x[fr]);

        lendable[r] = ts_amount_add(lendable[r], ts_quota_potential(n->parent, fr));
        if (over <= 0)
            continue;
        borrowed[r] = ts_amount_add(borrowed[r], over);
        if (req[fr] > 0)
            out->borrowing_on = 1;
    }
    /* a resource with nothing lendable above counts as borrowing but adds
     * no ratio (Kueue skips it) */
    for (size_t r = 0; r < e->n_resources; r++) {
        double ratio;

        if (borrowed[r] <= 0 || lendable[r] <= 0)
            continue;
        ratio = (double)borrowed[r] * 1000.0 / (double)lendable[r];
        if (ratio > out->ratio)
            out->ratio = ratio;
    }
}

/* Work arrays of one pop, sized for the engine's pairs and resources. */
struct scratch {
    int64_t *x, *borrowed, *lendable;
};

/* The shares of every node on c's path below the root, with c admitted. */
static void values(const struct ts_engine *e, struct ts__eng_fs_cand *c, const struct scratch *w)
{
    int64_t *x = w->x, *borrowed = w->borrowed, *lendable = w->lendable;
    size_t depth = 0;
    const struct ts_quota_node *n;

    for (n = &c->cq->node; n->parent; n = n->parent)
        depth++;
    if (depth > c->cap_lv) {
        c->lv = ts_xrealloc(c->lv, depth * sizeof(*c->lv));
        c->cap_lv = depth;
    }
    c->n_lv = 0;
    memcpy(x, c->usage, e->nfr * sizeof(*x));
    for (n = &c->cq->node; n->parent; n = n->parent) {
        drs_of(e, n, x, c->usage, borrowed, lendable, &c->lv[c->n_lv++]);
        /* what n's unused local quota cannot hold goes up (addUsage) */
        for (size_t fr = 0; fr < e->nfr && fr < n->nfr; fr++) {
            int64_t la = ts_quota_local_avail(n, fr);

            x[fr] = x[fr] > la ? x[fr] - la : 0;
        }
    }
}

static const struct ts__eng_fs_val *value_at(const struct ts__eng_fs_cand *c,
                                             const struct ts_quota_node *child)
{
    size_t i = 0;

    /* child is on c's path: the loop always finds it */
    while (i + 1 < c->n_lv && c->lv[i].node != child)
        i++;
    return &c->lv[i];
}

static int zero_weight_borrows(const struct ts__eng_fs_val *v)
{
    return v->weight == 0 && v->ratio != 0;
}

static double weighted(const struct ts__eng_fs_val *v)
{
    return v->ratio == 0 ? 0 : v->ratio / v->weight;
}

/* Kueue's CompareDRS. */
static int drs_cmp(const struct ts__eng_fs_val *a, const struct ts__eng_fs_val *b)
{
    double x, y;

    if (zero_weight_borrows(a) != zero_weight_borrows(b))
        return zero_weight_borrows(a) ? 1 : -1;
    x = zero_weight_borrows(a) ? a->ratio : weighted(a);
    y = zero_weight_borrows(b) ? b->ratio : weighted(b);
    return x < y ? -1 : x > y ? 1 : 0;
}

/* Whether a (nominated by child ca) beats b (by child cb). */
static int beats(const struct ts__eng_fs_cand *a, const struct ts_quota_node *ca,
                 const struct ts__eng_fs_cand *b, const struct ts_quota_node *cb)
{
    const struct ts__eng_fs_val *va = value_at(a, ca), *vb = value_at(b, cb);
    int d;

    if (va->borrowing_on != vb->borrowing_on)
        return !va->borrowing_on;
    if ((d = drs_cmp(va, vb)))
        return d < 0;
    /* priority, then queue order; Kueue keeps the first of equals (in a
     * set's order), the workload order decides here */
    return ts__eng_wl_less(a->wl, b->wl) < 0;
}

/* The nominee of n's subtree, or NULL. */
static struct ts__eng_fs_cand *tournament(const struct ts_engine *e, struct ts_quota_node *n,
                                          const struct scratch *w)
{
    struct ts__eng_fs_cand *best = NULL;
    const struct ts_quota_node *best_child = NULL;

    if (!n->is_cohort) {
        struct ts__eng_fs_cand *c = ts__eng_cq_of_node(n)->fs_cand;

        if (!c || c->done)
            return NULL;
        if (!c->n_lv)
            values(e, c, w);
        return c;
    }
    for (size_t i = 0; i < n->n_children; i++) {
        struct ts__eng_fs_cand *c = tournament(e, n->children[i], w);

        if (c && (!best || beats(c, n->children[i], best, best_child))) {
            best = c;
            best_child = n->children[i];
        }
    }
    return best;
}

struct ts__eng_fs_cand *ts__eng_fs_next(const struct ts_engine *e, struct ts__eng_fs_cand *cands,
                                        size_t n)
{
    struct ts__eng_fs_cand *c = NULL;

    for (size_t i = 0; i < n && !c; i++) {
        if (!cands[i].done)
            c = &cands[i];
    }
    if (!c)
        return NULL;
    /* trees share no quota: which tree goes first does not matter (Kueue
     * takes them in map order) */
    if (c->cq->node.parent) {
        struct scratch w = {ts_xcalloc(e->nfr + 1, sizeof(int64_t)),
                            ts_xcalloc(e->n_resources + 1, sizeof(int64_t)),
                            ts_xcalloc(e->n_resources + 1, sizeof(int64_t))};

        c = tournament(e, ts_quota_root(&c->cq->node), &w);
        free(w.x);
        free(w.borrowed);
        free(w.lendable);
    }
    c->done = 1;
    return c;
}

void ts__eng_fs_moved(struct ts__eng_fs_cand *cands, size_t n, const struct ts_quota_node *moved)
{
    for (size_t i = 0; i < n; i++) {
        struct ts__eng_fs_cand *c = &cands[i];

        for (size_t j = 0; !c->done && j < c->n_lv; j++) {
            const struct ts_quota_node *p;

            for (p = moved; p && p != c->lv[j].node; p = p->parent)
                ;
            if (p) { /* a node on c's path holds new usage */
                c->n_lv = 0;
                break;
            }
        }
    }
}

void ts__eng_fs_cand_release(struct ts__eng_fs_cand *c)
{
    if (c->cq && c->cq->fs_cand == c)
        c->cq->fs_cand = NULL;
    free(c->usage);
    free(c->lv);
    memset(c, 0, sizeof(*c));
}
