#include "engine/quota.h"

#include "util/alloc.h"
#include "util/err.h"

#include <stdlib.h>
#include <string.h>

int64_t ts_amount_add(int64_t a, int64_t b)
{
    if (a == TS_AMOUNT_UNLIMITED || b == TS_AMOUNT_UNLIMITED)
        return TS_AMOUNT_UNLIMITED;
    if (b > 0 && a > INT64_MAX - b)
        return TS_AMOUNT_UNLIMITED;
    if (b < 0 && a < INT64_MIN - b)
        return INT64_MIN;
    return a + b;
}

int64_t ts_amount_sub(int64_t a, int64_t b)
{
    if (b == TS_AMOUNT_UNLIMITED)
        return a == TS_AMOUNT_UNLIMITED ? 0 : INT64_MIN;
    if (a == TS_AMOUNT_UNLIMITED)
        return TS_AMOUNT_UNLIMITED;
    return ts_amount_add(a, -b);
}

int64_t ts_amount_mul(int64_t a, int64_t count)
{
    if (a <= 0 || count <= 0)
        return 0;
    if (a == TS_AMOUNT_UNLIMITED || a > INT64_MAX / count)
        return TS_AMOUNT_UNLIMITED;
    return a * count;
}

typedef ts_quota_sum sum_t;

static sum_t max0(sum_t v)
{
    return v > 0 ? v : 0;
}

static sum_t min_sum(sum_t a, sum_t b)
{
    return a < b ? a : b;
}

int64_t ts_quota_clamp(ts_quota_sum v)
{
    if (v > INT64_MAX)
        return INT64_MAX;
    if (v < INT64_MIN)
        return INT64_MIN;
    return (int64_t)v;
}

void ts_quota_node_init(struct ts_quota_node *n, const char *name, int is_cohort, size_t nfr)
{
    memset(n, 0, sizeof(*n));
    n->name = ts_xstrdup(name);
    n->is_cohort = is_cohort;
    ts_quota_node_resize(n, nfr);
}

void ts_quota_node_release(struct ts_quota_node *n)
{
    free(n->name);
    free(n->children);
    free(n->nominal);
    free(n->borrowing_limit);
    free(n->lending_limit);
    free(n->subtree_sum);
    free(n->usage_sum);
    memset(n, 0, sizeof(*n));
}

static int64_t *grow(int64_t *a, size_t old, size_t nfr, int64_t fill)
{
    a = ts_xrealloc(a, (nfr ? nfr : 1) * sizeof(*a));
    for (size_t i = old; i < nfr; i++)
        a[i] = fill;
    return a;
}

static sum_t *grow_sum(sum_t *a, size_t old, size_t nfr)
{
    a = ts_xrealloc(a, (nfr ? nfr : 1) * sizeof(*a));
    for (size_t i = old; i < nfr; i++)
        a[i] = 0;
    return a;
}

void ts_quota_node_resize(struct ts_quota_node *n, size_t nfr)
{
    size_t old = n->nfr;

    if (nfr <= old && n->nominal)
        return;
    n->nominal = grow(n->nominal, old, nfr, 0);
    n->borrowing_limit = grow(n->borrowing_limit, old, nfr, TS_AMOUNT_NONE);
    n->lending_limit = grow(n->lending_limit, old, nfr, TS_AMOUNT_NONE);
    n->subtree_sum = grow_sum(n->subtree_sum, old, nfr);
    n->usage_sum = grow_sum(n->usage_sum, old, nfr);
    n->nfr = nfr;
}

int64_t ts_quota_usage(const struct ts_quota_node *n, size_t fr)
{
    return ts_quota_clamp(n->usage_sum[fr]);
}

int64_t ts_quota_subtree(const struct ts_quota_node *n, size_t fr)
{
    return ts_quota_clamp(n->subtree_sum[fr]);
}

static sum_t local_sum(const struct ts_quota_node *n, size_t fr)
{
    if (n->lending_limit[fr] == TS_AMOUNT_NONE)
        return 0;
    return max0(n->subtree_sum[fr] - n->lending_limit[fr]);
}

int64_t ts_quota_local(const struct ts_quota_node *n, size_t fr)
{
    return ts_quota_clamp(local_sum(n, fr));
}

/* What n has left of its local quota for its own usage. */
static sum_t local_avail(const struct ts_quota_node *n, size_t fr)
{
    return max0(local_sum(n, fr) - n->usage_sum[fr]);
}

int64_t ts_quota_local_avail(const struct ts_quota_node *n, size_t fr)
{
    return ts_quota_clamp(local_avail(n, fr));
}

int64_t ts_quota_over(const struct ts_quota_node *n, size_t fr, int64_t extra)
{
    return ts_quota_clamp(n->usage_sum[fr] + extra - n->subtree_sum[fr]);
}

/* What the parent sees of n: its lendable quota and its usage beyond local. */
static sum_t visible_quota(const struct ts_quota_node *n, size_t fr)
{
    return n->subtree_sum[fr] - local_sum(n, fr);
}

static sum_t visible_usage(const struct ts_quota_node *n, size_t fr)
{
    return max0(n->usage_sum[fr] - local_sum(n, fr));
}

/* Sets p's subtree quota and usage of fr from its nominal quota and its
 * children. */
static void resum(struct ts_quota_node *p, size_t fr)
{
    sum_t q = p->nominal[fr], u = 0;

    if (!p->is_cohort)
        return; /* a queue's subtree is its nominal quota, set by ts_quota_set() */
    for (size_t i = 0; i < p->n_children; i++) {
        const struct ts_quota_node *c = p->children[i];

        if (fr >= c->nfr)
            continue;
        q += visible_quota(c, fr);
        u += visible_usage(c, fr);
    }
    p->subtree_sum[fr] = q;
    p->usage_sum[fr] = u;
}

/* Applies a change of what `child` shows its ancestors, from (q0, u0) to
 * its current (quota, usage), walking up as long as something changes. */
static void propagate(struct ts_quota_node *child, size_t fr, sum_t q0, sum_t u0)
{
    struct ts_quota_node *p = child->parent;

    while (p) {
        sum_t pq0 = visible_quota(p, fr), pu0 = visible_usage(p, fr);
        sum_t dq = visible_quota(child, fr) - q0;
        sum_t du = visible_usage(child, fr) - u0;

        if (!dq && !du)
            return;
        if (dq)
            p->subtree_sum[fr] += dq;
        p->usage_sum[fr] += du;
        q0 = pq0;
        u0 = pu0;
        child = p;
        p = p->parent;
    }
}

void ts_quota_set(struct ts_quota_node *n, size_t fr, int64_t nominal, int64_t borrowing_limit,
                  int64_t lending_limit)
{
    sum_t q0 = visible_quota(n, fr), u0 = visible_usage(n, fr);

    n->subtree_sum[fr] += (sum_t)nominal - n->nominal[fr];
    n->nominal[fr] = nominal;
    n->borrowing_limit[fr] = borrowing_limit;
    n->lending_limit[fr] = lending_limit;
    propagate(n, fr, q0, u0);
}

static int is_ancestor(const struct ts_quota_node *a, const struct ts_quota_node *n)
{
    for (; n; n = n->parent) {
        if (n == a)
            return 1;
    }
    return 0;
}

static void detach(struct ts_quota_node *n)
{
    struct ts_quota_node *p = n->parent;

    for (size_t i = 0; i < p->n_children; i++) {
        if (p->children[i] == n) {
            p->children[i] = p->children[--p->n_children];
            break;
        }
    }
    n->parent = NULL;
    for (size_t fr = 0; fr < n->nfr && fr < p->nfr; fr++) {
        sum_t pq0 = visible_quota(p, fr), pu0 = visible_usage(p, fr);

        resum(p, fr);
        propagate(p, fr, pq0, pu0);
    }
}

int ts_quota_node_set_parent(struct ts_quota_node *n, struct ts_quota_node *parent)
{
    if (n->parent == parent)
        return 0;
    if (parent && is_ancestor(n, parent))
        return TS_EINVAL;
    if (n->parent)
        detach(n);
    if (!parent)
        return 0;
    TS_GROW(parent->children, parent->cap_children, parent->n_children + 1);
    parent->children[parent->n_children++] = n;
    n->parent = parent;
    for (size_t fr = 0; fr < n->nfr && fr < parent->nfr; fr++) {
        sum_t pq0 = visible_quota(parent, fr), pu0 = visible_usage(parent, fr);

        resum(parent, fr);
        propagate(parent, fr, pq0, pu0);
    }
    return 0;
}

/* What n may still take of fr, unclamped: a tree used beyond its quota (a
 * quota lowered under running workloads) is negative at its root, and that
 * debt reaches every queue of the tree, as in Kueue's available()
 * (pkg/cache/scheduler/resource_node.go), which clamps only the queue's own
 * answer. */
static sum_t available_signed(const struct ts_quota_node *n, size_t fr)
{
    sum_t parent_avail;

#ifdef TS_MUTATE_OVERADMIT
    /* make soak-mutant: a broken build offering 1/N more than the quota */
    if (!n->parent)
        return n->subtree_sum[fr] + n->subtree_sum[fr] / TS_MUTATE_OVERADMIT - n->usage_sum[fr];
#endif
    if (!n->parent)
        return n->subtree_sum[fr] - n->usage_sum[fr];
    parent_avail = available_signed(n->parent, fr);
    if (n->borrowing_limit[fr] != TS_AMOUNT_NONE)
        parent_avail = min_sum(parent_avail, visible_quota(n, fr) - visible_usage(n, fr) +
                                                 n->borrowing_limit[fr]);
    return local_avail(n, fr) + parent_avail;
}

int64_t ts_quota_available(const struct ts_quota_node *n, size_t fr)
{
    return ts_quota_clamp(max0(available_signed(n, fr)));
}

static sum_t potential(const struct ts_quota_node *n, size_t fr)
{
    sum_t v;

    if (!n->parent)
        return n->subtree_sum[fr];
    v = local_sum(n, fr) + potential(n->parent, fr);
    if (n->borrowing_limit[fr] != TS_AMOUNT_NONE)
        v = min_sum(v, n->subtree_sum[fr] + n->borrowing_limit[fr]);
    return v;
}

int64_t ts_quota_potential(const struct ts_quota_node *n, size_t fr)
{
    return ts_quota_clamp(potential(n, fr));
}

static int borrowing_with(const struct ts_quota_node *n, size_t fr, sum_t extra)
{
    return n->usage_sum[fr] + extra > n->subtree_sum[fr];
}

int ts_quota_borrowing_with(const struct ts_quota_node *n, size_t fr, int64_t extra)
{
    return borrowing_with(n, fr, extra);
}

static int height(const struct ts_quota_node *n)
{
    int h = 0;

    for (size_t i = 0; i < n->n_children; i++) {
        int ch = height(n->children[i]) + 1;

        if (ch > h)
            h = ch;
    }
    return h;
}

int ts_quota_fit_height(const struct ts_quota_node *n, size_t fr, int64_t val, int *may_reclaim)
{
    sum_t remaining;
    const struct ts_quota_node *t;

    *may_reclaim = n->parent != NULL;
    if (!n->parent || !borrowing_with(n, fr, val))
        return 0;
    remaining = val - local_avail(n, fr);
    for (t = n->parent; t; t = t->parent) {
        /* reclaiming is possible only below the root: a tree that fits
         * only as a whole leaves nothing to reclaim from (Kueue's
         * trackingNode.HasParent()) */
        if (!borrowing_with(t, fr, remaining)) {
            *may_reclaim = t->parent != NULL;
            return height(t);
        }
        remaining -= local_avail(t, fr);
        if (!t->parent)
            break;
    }
    *may_reclaim = 0;
    return height(t);
}

void ts_quota_add_usage(struct ts_quota_node *n, size_t fr, int64_t v)
{
    sum_t left = v;

    while (n) {
        sum_t avail = local_avail(n, fr);

        n->usage_sum[fr] += left;
        if (left <= avail)
            return;
        left -= avail;
        n = n->parent;
    }
}

void ts_quota_remove_usage(struct ts_quota_node *n, size_t fr, int64_t v)
{
    sum_t left = v;

    while (n) {
        sum_t in_parent = n->usage_sum[fr] - local_sum(n, fr);

        n->usage_sum[fr] -= left;
        if (in_parent <= 0 || !n->parent)
            return;
        left = min_sum(left, in_parent);
        n = n->parent;
    }
}

struct ts_quota_node *ts_quota_root(struct ts_quota_node *n)
{
    while (n->parent)
        n = n->parent;
    return n;
}
