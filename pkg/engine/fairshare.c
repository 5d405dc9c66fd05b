/* fairshare.c - Kueue's dominant resource share
 * (pkg/cache/scheduler/fair_sharing.go): how much a node borrows beyond
 * its own quota, per resource, relative to what its parent could lend, the
 * largest over resources, divided by the node's fairSharing weight. */
#include "engine/engine_int.h"
#include "util/alloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void ts__eng_share(const struct ts_engine *e, const struct ts_quota_node *n,
                   struct ts__eng_share *out)
{
    int64_t *borrowed, *lendable;

    out->ratio = 0;
    out->weight = ts__eng_node_weight(n);
    out->borrowing = 0;
    if (!n->parent)
        return;
    borrowed = ts_xcalloc(e->n_resources + 1, sizeof(*borrowed));
    lendable = ts_xcalloc(e->n_resources + 1, sizeof(*lendable));
    for (size_t fr = 0; fr < n->nfr && fr < e->nfr; fr++) {
        size_t r = e->fr_resource[fr];
        int64_t over = ts_quota_over(n, fr, 0);

        if (over > 0) {
            borrowed[r] = ts_amount_add(borrowed[r], over);
            out->borrowing = 1;
        }
        lendable[r] = ts_amount_add(lendable[r], ts_quota_potential(n->parent, fr));
    }
    /* Kueue's float arithmetic, operation for operation, so that ties
     * (which decide between queues) fall as they do there; a resource
     * nothing can lend does not count */
    for (size_t r = 0; r < e->n_resources; r++) {
        if (borrowed[r] > 0 && lendable[r] > 0) {
            double ratio = (double)borrowed[r] * 1000.0 / (double)lendable[r];

            if (ratio > out->ratio)
                out->ratio = ratio;
        }
    }
    free(borrowed);
    free(lendable);
}

/* Kueue's PreciseWeightedShare; zero-weight borrowers are compared apart. */
static double weighted(const struct ts__eng_share *s)
{
    return s->ratio == 0 ? 0 : s->ratio / ((double)s->weight / 1000.0);
}

int64_t ts__eng_weighted_share(const struct ts_engine *e, const struct ts_quota_node *n)
{
    struct ts__eng_share s;
    double w;

    ts__eng_share(e, n, &s);
    if (s.ratio == 0)
        return 0;
    if (s.weight == 0)
        return INT64_MAX;
    w = ceil(weighted(&s));
    return w >= 9223372036854775807.0 ? INT64_MAX : (int64_t)w;
}

int ts__eng_share_cmp(const struct ts__eng_share *a, const struct ts__eng_share *b)
{
    int za = a->weight == 0 && a->ratio != 0, zb = b->weight == 0 && b->ratio != 0;
    double x, y;

    if (za != zb)
        return za ? 1 : -1;
    x = za ? a->ratio : weighted(a);
    y = za ? b->ratio : weighted(b);
    return x < y ? -1 : x > y;
}

int ts_engine_weighted_share(const struct ts_engine *e, const char *node, int is_cohort,
                             int64_t *out)
{
    const struct ts_quota_node *n = NULL;

    if (is_cohort) {
        const struct ts__eng_cohort *co = ts_hmap_get(&e->cohorts, node);

        n = co ? &co->node : NULL;
    } else {
        const struct ts__eng_cq *cq = ts_hmap_get(&e->cqs, node);

        n = cq ? &cq->node : NULL;
    }
    if (!n)
        return TS_ENOTFOUND;
    *out = ts__eng_weighted_share(e, n);
    return 0;
}
