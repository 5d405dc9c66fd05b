/* check.c - the engine's self-check: recomputes usage from the workloads
 * that hold quota and verifies every limit.  Used by the property tests and
 * the soak test's invariant checker; O(admitted workloads), so never on a
 * hot path. */
#include "engine/engine_int.h"
#include "engine/memo.h"
#include "engine/preempt.h"
#include "util/alloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(char *msg, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(char *msg, size_t len, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, len, fmt, ap);
    va_end(ap);
    return -1;
}

/* Whether a holder of cq admitted by this engine under the current
 * configuration uses fr: then cq's usage of fr must be within its limits
 * (such an admission fitted them, and usage only fell since, or grew by
 * admissions that fitted too).  Without one, usage above a limit is what
 * a quota lowered under admitted workloads leaves, which is legal. */
static int fresh_holder(const struct ts_engine *e, const struct ts__eng_cq *cq, size_t fr)
{
    for (size_t h = 0; h < cq->n_holders; h++) {
        const struct ts__eng_wl *wl = cq->holders[h];

        if (wl->admitted_config != e->config_seq + 1)
            continue;
        for (size_t p = 0; p < wl->n_podsets; p++)
            for (size_t j = 0; j < wl->admission[p].n; j++)
                if (wl->admission[p].fr[j] == fr)
                    return 1;
    }
    return 0;
}

/* The same for any ClusterQueue of the tree whose root is `root`. */
static int fresh_holder_in_tree(const struct ts_engine *e, const struct ts_quota_node *root,
                                size_t fr)
{
    size_t it = 0;
    const char *k;
    void *v;

    while (ts_hmap_next(&e->cqs, &it, &k, &v)) {
        const struct ts__eng_cq *cq = v;
        const struct ts_quota_node *top = &cq->node;

        while (top->parent)
            top = top->parent;
        if (top == root && fresh_holder(e, cq, fr))
            return 1;
    }
    return 0;
}

static int check_cq(const struct ts_engine *e, const struct ts__eng_cq *cq, char *msg, size_t len)
{
    const struct ts_quota_node *n = &cq->node;
    ts_quota_sum *sum = ts_xcalloc(e->nfr + 1, sizeof(*sum));
    int rc = 0;

    for (size_t h = 0; h < cq->n_holders; h++) {
        const struct ts__eng_wl *wl = cq->holders[h];

        for (size_t p = 0; p < wl->n_podsets; p++)
            for (size_t j = 0; j < wl->admission[p].n; j++)
                sum[wl->admission[p].fr[j]] += wl->admission[p].amount[j];
    }
    for (size_t fr = 0; fr < n->nfr && !rc; fr++) {
        ts_quota_sum used = n->usage_sum[fr];

        if (sum[fr] != used)
            rc = fail(msg, len, "clusterqueue %s %s/%s: usage %lld but its workloads hold %lld",
                      cq->name, e->fr_flavor[fr], e->resource_names[e->fr_resource[fr]],
                      (long long)ts_quota_clamp(used), (long long)ts_quota_clamp(sum[fr]));
        else if (used > ts_quota_potential(n, fr) && fresh_holder(e, cq, fr))
            rc = fail(msg, len, "clusterqueue %s %s/%s: usage %lld above its maximum %lld",
                      cq->name, e->fr_flavor[fr], e->resource_names[e->fr_resource[fr]],
                      (long long)ts_quota_clamp(used), (long long)ts_quota_potential(n, fr));
        else if (n->borrowing_limit[fr] != TS_AMOUNT_NONE &&
                 used > (ts_quota_sum)n->nominal[fr] + n->borrowing_limit[fr] &&
                 fresh_holder(e, cq, fr))
            rc = fail(msg, len, "clusterqueue %s: usage %lld above nominal + borrowingLimit",
                      cq->name, (long long)ts_quota_clamp(used));
    }
    free(sum);
    return rc;
}

static int check_node(const struct ts_engine *e, const struct ts_quota_node *n, char *msg,
                      size_t len)
{
    for (size_t fr = 0; fr < n->nfr; fr++) {
        ts_quota_sum q = n->nominal[fr], u = 0;

        for (size_t i = 0; n->is_cohort && i < n->n_children; i++) {
            const struct ts_quota_node *c = n->children[i];
            ts_quota_sum local = 0;

            if (fr >= c->nfr)
                continue;
            if (c->lending_limit[fr] != TS_AMOUNT_NONE && c->subtree_sum[fr] > c->lending_limit[fr])
                local = c->subtree_sum[fr] - c->lending_limit[fr];
            q += c->subtree_sum[fr] - local;
            u += c->usage_sum[fr] > local ? c->usage_sum[fr] - local : 0;
        }
        if (n->is_cohort && (q != n->subtree_sum[fr] || u != n->usage_sum[fr]))
            return fail(msg, len, "cohort %s %s: quota %lld/%lld usage %lld/%lld out of sync",
                        n->name, e->fr_flavor[fr], (long long)ts_quota_subtree(n, fr),
                        (long long)ts_quota_clamp(q), (long long)ts_quota_usage(n, fr),
                        (long long)ts_quota_clamp(u));
        if (!n->parent && n->usage_sum[fr] > n->subtree_sum[fr] && fresh_holder_in_tree(e, n, fr))
            return fail(msg, len, "%s %s %s/%s: usage %lld above capacity %lld",
                        n->is_cohort ? "cohort" : "clusterqueue", n->name, e->fr_flavor[fr],
                        e->resource_names[e->fr_resource[fr]], (long long)ts_quota_usage(n, fr),
                        (long long)ts_quota_subtree(n, fr));
    }
    for (size_t i = 0; i < n->n_children; i++) {
        if (check_node(e, n->children[i], msg, len))
            return -1;
    }
    return 0;
}

int ts_engine_check(const struct ts_engine *e, char *msg, size_t len)
{
    size_t it = 0;
    const char *k;
    void *v;

    while (ts_hmap_next(&e->cqs, &it, &k, &v)) {
        const struct ts__eng_cq *cq = v;

        if (check_cq(e, cq, msg, len) || ts__eng_classes_check(cq, msg, len))
            return -1;
        if (ts__eng_order_check(cq))
            return fail(msg, len,
                        "clusterqueue %s: preemption candidate order out of date without "
                        "being marked stale",
                        cq->name);
        if (ts__eng_memo_mismatch(cq))
            return fail(msg, len,
                        "clusterqueue %s: a preemption search answered from memory differs "
                        "from a fresh one",
                        cq->name);
        if (!cq->node.parent && check_node(e, &cq->node, msg, len))
            return -1;
    }
    it = 0;
    while (ts_hmap_next(&e->cohorts, &it, &k, &v)) {
        const struct ts__eng_cohort *co = v;

        if (!co->node.parent && check_node(e, &co->node, msg, len))
            return -1;
    }
    return 0;
}
