/*
 * quota.h - the resource-node tree of ClusterQueues and Cohorts and
 * Kueue's quota arithmetic on it (pkg/cache/scheduler/resource_node.go).
 *
 * Every ClusterQueue and every Cohort is a node.  Per flavor-resource pair
 * ("fr", a small integer id owned by the engine) a node holds nominal
 * quota, optional borrowing and lending limits, its subtree quota and its
 * usage.  Amounts are int64 (cpu in milli-units, everything else in base
 * units), as Kueue's are; subtree quota and usage are sums of them over a
 * tree and kept exact (ts_quota_sum), so that adding and removing usage
 * is exact for any int64 amounts and the arithmetic decides as Kueue's
 * wherever Kueue's own int64 sums do not wrap.
 *
 * Invariants (maintained by the functions below, checked by tests):
 *   cohort.subtree[fr] = cohort.nominal[fr] + sum_children(child.subtree - child.local)
 *   cohort.usage[fr]   = sum_children max(0, child.usage - child.local)
 * where local(n) = max(0, subtree - lendingLimit) when a lending limit is
 * set, else 0: the part of a node's quota its parent never sees.
 *
 * Cost: available()/potential() walk from a node to its root (O(depth));
 * usage changes bubble the same way.  Nothing iterates workloads.
 *
 * Ownership: nodes are created and freed by the caller (the engine); a
 * node never frees its parent or children.
 */
#ifndef TS_ENGINE_QUOTA_H
#define TS_ENGINE_QUOTA_H

#include <stddef.h>
#include <stdint.h>

/* An amount that saturated: a quantity beyond the int64 range, or a sum or
 * product of amounts that would pass it.  A request of this much is too
 * large to count and never fits (where Kueue's int64 arithmetic wraps); an
 * admission read back at this much holds it, so it blocks its queue. */
#define TS_AMOUNT_UNLIMITED INT64_MAX
/* Subtree quota and usage: sums of int64 amounts, exact in 128 bits (a sum
 * of fewer than 2^64 such terms cannot overflow), clamped to int64 only
 * where they are read as an amount (ts_quota_usage(), ts_quota_subtree()). */
typedef __int128 ts_quota_sum;
/* "No limit set" for borrowing/lending limits. */
#define TS_AMOUNT_NONE (-1)

/* Saturating arithmetic with Kueue's Amount rules: Unlimited + x =
 * Unlimited, x - Unlimited = INT64_MIN, Unlimited - Unlimited = 0. */
int64_t ts_amount_add(int64_t a, int64_t b);
int64_t ts_amount_sub(int64_t a, int64_t b);
/* a * count for a >= 0, count >= 0, saturating at TS_AMOUNT_UNLIMITED. */
int64_t ts_amount_mul(int64_t a, int64_t count);

struct ts_quota_node {
    char *name;
    int is_cohort;
    struct ts_quota_node *parent;
    struct ts_quota_node **children;
    size_t n_children;
    size_t cap_children;
    size_t nfr;                /* length of the arrays below */
    int64_t *nominal;          /* own nominal quota */
    int64_t *borrowing_limit;  /* TS_AMOUNT_NONE = unlimited */
    int64_t *lending_limit;    /* TS_AMOUNT_NONE = all lendable */
    ts_quota_sum *subtree_sum; /* quota of the subtree (= nominal for a CQ) */
    ts_quota_sum *usage_sum;
    int requeue; /* root only: parked workloads to release before the next cycle */
    /* root only, for the engine's preemption search memo (memo.c): gen
     * counts the lasting changes of the tree, resv_sig fingerprints the
     * quota a cycle holds back for waiting preemptors */
    uint64_t gen;
    uint64_t resv_sig;
};

/* Initialises a node with nfr zero-quota pairs and no limits.  name is
 * copied. */
void ts_quota_node_init(struct ts_quota_node *n, const char *name, int is_cohort, size_t nfr);
/* Frees the arrays and the name (not parent or children). */
void ts_quota_node_release(struct ts_quota_node *n);
/* Grows every array to nfr pairs (new pairs zero, no limits). */
void ts_quota_node_resize(struct ts_quota_node *n, size_t nfr);

/* Moves n under parent (NULL = root), keeping both subtrees' subtree quota
 * and usage consistent.  Refuses (returns TS_EINVAL) when that would make
 * a cycle. */
int ts_quota_node_set_parent(struct ts_quota_node *n, struct ts_quota_node *parent);

/* Replaces one pair's nominal quota and limits and propagates the change
 * of subtree quota (and of usage visible to ancestors) up the tree. */
void ts_quota_set(struct ts_quota_node *n, size_t fr, int64_t nominal, int64_t borrowing_limit,
                  int64_t lending_limit);

/* n's usage and subtree quota of fr, clamped to the int64 range. */
int64_t ts_quota_usage(const struct ts_quota_node *n, size_t fr);
int64_t ts_quota_subtree(const struct ts_quota_node *n, size_t fr);
/* Clamps an exact sum to the int64 range. */
int64_t ts_quota_clamp(ts_quota_sum v);

/* local(n): quota the parent never sees (clamped). */
int64_t ts_quota_local(const struct ts_quota_node *n, size_t fr);
/* What n's local quota still holds for its own usage (>= 0, clamped). */
int64_t ts_quota_local_avail(const struct ts_quota_node *n, size_t fr);
/* How much n would use beyond its own quota (subtree quota) with `extra`
 * more: usage + extra - subtree, clamped; <= 0 when within it. */
int64_t ts_quota_over(const struct ts_quota_node *n, size_t fr, int64_t extra);
/* What n could use now for fr (>= 0): its local remainder plus what its
 * ancestors can give within its borrowing limit, where a tree used beyond
 * its quota gives less than nothing (its debt eats the local remainder, as
 * in Kueue). */
int64_t ts_quota_available(const struct ts_quota_node *n, size_t fr);
/* The most n could ever use for fr in an empty cluster. */
int64_t ts_quota_potential(const struct ts_quota_node *n, size_t fr);
/* Whether n's usage for fr exceeds its own quota (nominal for a CQ,
 * subtree quota for a cohort) after adding extra. */
int ts_quota_borrowing_with(const struct ts_quota_node *n, size_t fr, int64_t extra);
/* Height of the lowest subtree (0 = n itself) that fits `val` more of fr
 * without borrowing beyond it; *may_reclaim is set when such a subtree
 * exists above n (Kueue's FindHeightOfLowestSubtreeThatFits). */
int ts_quota_fit_height(const struct ts_quota_node *n, size_t fr, int64_t val, int *may_reclaim);

/* Adds / removes usage of fr at n, bubbling to ancestors what n's local
 * quota cannot hold. */
void ts_quota_add_usage(struct ts_quota_node *n, size_t fr, int64_t v);
void ts_quota_remove_usage(struct ts_quota_node *n, size_t fr, int64_t v);

/* The root of n's tree. Borrowed. */
struct ts_quota_node *ts_quota_root(struct ts_quota_node *n);

#endif
