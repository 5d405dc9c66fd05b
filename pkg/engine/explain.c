#include "engine/explain.h"

#include "engine/amount.h"
#include "engine/assign.h"
#include "engine/engine_int.h"
#include "engine/preempt.h"
#include "util/alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int wl_cmp(const void *a, const void *b)
{
    return ts__eng_wl_less(*(const void *const *)a, *(const void *const *)b);
}

/* Every pending workload of cq (queued or parked), in scheduling order.
 * Ownership: caller frees the array. */
static struct ts__eng_wl **sorted_pending(const struct ts__eng_cq *cq, size_t *n)
{
    struct ts__eng_wl **all = ts_xcalloc(cq->pending.n + cq->n_inadmissible + 1, sizeof(*all));
    size_t k = 0;

    for (size_t i = 0; i < cq->pending.n; i++)
        all[k++] = cq->pending.items[i];
    k += ts__eng_parked(cq, all + k);
    qsort(all, k, sizeof(*all), wl_cmp);
    *n = k;
    return all;
}

static int same_lq(const struct ts__eng_wl *a, const struct ts__eng_wl *b)
{
    return !strcmp(a->ns, b->ns) && a->lq_name && b->lq_name && !strcmp(a->lq_name, b->lq_name);
}

int ts_engine_pending(const struct ts_engine *e, const char *cq_name, const char *lq_ns,
                      const char *lq, size_t offset, size_t limit, struct ts_pending_list *out)
{
    const struct ts__eng_cq *cq;
    struct ts__eng_wl **all;
    struct ts_hmap lq_pos = TS_HMAP_INIT; /* "ns/lq" -> next position + 1 */
    size_t n, seen = 0;

    memset(out, 0, sizeof(*out));
    if (!cq_name && lq) {
        char key[512];
        const struct ts__eng_lq *l;

        snprintf(key, sizeof(key), "%s/%s", lq_ns, lq);
        if (!(l = ts_hmap_get(&e->lqs, key)))
            return TS_ENOTFOUND;
        if (!(cq = ts_hmap_get(&e->cqs, l->cq_name)))
            return 0; /* its ClusterQueue does not exist (yet): nothing is in line */
    } else if (!(cq = ts_hmap_get(&e->cqs, cq_name))) {
        return TS_ENOTFOUND;
    }
    all = sorted_pending(cq, &n);
    if (limit > TS_PENDING_LIMIT_MAX)
        limit = TS_PENDING_LIMIT_MAX;
    out->items = ts_xcalloc((limit < n ? limit : n) + 1, sizeof(*out->items));
    for (size_t i = 0; i < n; i++) {
        char key[512];
        size_t pos;
        struct ts_pending_item *it;

        snprintf(key, sizeof(key), "%s/%s", all[i]->ns, all[i]->lq_name ? all[i]->lq_name : "");
        pos = (size_t)(uintptr_t)ts_hmap_get(&lq_pos, key);
        ts_hmap_put(&lq_pos, key, (void *)(uintptr_t)(pos + 1));
        if (lq && (strcmp(all[i]->ns, lq_ns) || !all[i]->lq_name || strcmp(all[i]->lq_name, lq)))
            continue;
        if (seen++ < offset || out->n >= limit)
            continue;
        it = &out->items[out->n++];
        it->ns = all[i]->ns;
        it->name = all[i]->name;
        it->local_queue = all[i]->lq_name;
        it->priority = all[i]->priority;
        it->created = all[i]->created;
        it->position_in_cq = i;
        it->position_in_lq = pos;
    }
    out->total = seen;
    ts_hmap_release(&lq_pos);
    free(all);
    return 0;
}

void ts_pending_list_release(struct ts_pending_list *l)
{
    free(l->items);
    memset(l, 0, sizeof(*l));
}

/* Position and the names ahead of wl in its ClusterQueue. */
static void positions(const struct ts__eng_wl *wl, struct ts_explanation *x)
{
    size_t n, lq = 0;
    struct ts__eng_wl **all = sorted_pending(wl->cq, &n);

    x->ahead = ts_xcalloc(21, sizeof(*x->ahead));
    for (size_t i = 0; i < n && all[i] != wl; i++) {
        x->position_in_cq++;
        lq += same_lq(all[i], wl);
        if (x->n_ahead < 20)
            x->ahead[x->n_ahead++] = all[i]->name;
    }
    x->position_in_lq = lq;
    free(all);
}

static long covered(const struct ts__eng_cq *cq, size_t res, size_t *cov)
{
    for (size_t g = 0; g < cq->n_rgs; g++) {
        for (size_t i = 0; i < cq->rgs[g].n_covered; i++) {
            if (cq->rgs[g].covered[i] == res) {
                *cov = i;
                return (long)g;
            }
        }
    }
    return -1;
}

static void add_fact(struct ts_explanation *x, size_t *cap, const char *ps, const char *res,
                     const char *flavor, int64_t req, const struct ts_quota_node *n, size_t fr)
{
    struct ts_flavor_fact *f;

    TS_GROW(x->facts, *cap, x->n_facts + 1);
    f = &x->facts[x->n_facts++];
    f->podset = ps;
    f->resource = res;
    f->flavor = flavor;
    f->requested = req;
    f->available = ts_quota_available(n, fr);
    f->maximum = ts_quota_potential(n, fr);
}

/* Request vs available vs maximum for every pod set, resource and flavor. */
static void facts(const struct ts_engine *e, const struct ts__eng_wl *wl, struct ts_explanation *x)
{
    size_t cap = 0;

    for (size_t p = 0; p < wl->n_podsets; p++) {
        const struct ts__eng_podset *ps = &wl->podsets[p];

        for (size_t r = 0; r < ps->n_req; r++) {
            size_t cov = 0;
            long g = covered(wl->cq, ps->req_res[r], &cov);

            for (size_t f = 0; g >= 0 && f < wl->cq->rgs[g].n_flavors; f++)
                add_fact(x, &cap, ps->name, e->resource_names[ps->req_res[r]],
                         wl->cq->rgs[g].flavors[f].name,
                         ts_amount_mul(ps->req_amount[r], ps->count), &wl->cq->node,
                         wl->cq->rgs[g].flavors[f].fr[cov]);
        }
    }
}

/* NEVER: some request exceeds the maximum of every flavor that could hold it. */
static int cf_never(const struct ts_explanation *x, struct ts_explanation *out)
{
    for (size_t i = 0; i < x->n_facts; i++) {
        int64_t best = -1;
        const char *flavor = NULL;

        for (size_t j = 0; j < x->n_facts; j++) {
            if (strcmp(x->facts[j].podset, x->facts[i].podset) ||
                strcmp(x->facts[j].resource, x->facts[i].resource))
                continue;
            if (x->facts[j].maximum >= x->facts[j].requested)
                best = INT64_MAX; /* some flavor can hold it */
            else if (best != INT64_MAX && x->facts[j].maximum > best) {
                best = x->facts[j].maximum;
                flavor = x->facts[j].flavor;
            }
        }
        if (best != INT64_MAX && flavor) {
            char a[48], b[48], c[48];
            const char *res = x->facts[i].resource;

            out->cf = TS_CF_NEVER;
            snprintf(
                out->cf_text, sizeof(out->cf_text),
                "never fits as configured: pod set %s requests %s %s, the most ClusterQueue %s "
                "can ever provide is %s (flavor %s); exceeds it by %s",
                x->facts[i].podset, ts_amount_format(res, x->facts[i].requested, a, sizeof(a)), res,
                out->cluster_queue, ts_amount_format(res, best, b, sizeof(b)), flavor,
                ts_amount_format(res, x->facts[i].requested - best, c, sizeof(c)));
            return 1;
        }
    }
    return 0;
}

/* PARTIAL: the largest count a single pod set workload could run with now. */
static int cf_partial(struct ts_engine *e, struct ts__eng_wl *wl, struct ts_explanation *out)
{
    int32_t lo = 1, hi, best = 0, count;

    if (wl->n_podsets != 1 || wl->podsets[0].count < 2)
        return 0;
    hi = wl->podsets[0].count - 1;
    while (lo <= hi) {
        struct ts__eng_assignment a;

        count = lo + (hi - lo) / 2;
        ts__eng_assign(e, wl->cq, wl, &count, &a);
        if (a.mode == TS__ENG_FIT) {
            best = count;
            lo = count + 1;
        } else {
            hi = count - 1;
        }
        ts__eng_assignment_release(&a);
    }
    if (!best)
        return 0;
    out->cf = TS_CF_PARTIAL;
    snprintf(out->cf_text, sizeof(out->cf_text),
             "fits now with count %d of %d (partial admission: minCount %d or less)", best,
             wl->podsets[0].count, best);
    return 1;
}

/* PRIORITY: with a high enough priority, preemption would make room. */
static int cf_priority(struct ts_engine *e, struct ts__eng_wl *wl, struct ts_explanation *out)
{
    int32_t saved = wl->priority, above = INT32_MIN;
    struct ts__eng_assignment a;
    struct ts__eng_target *t = NULL;
    size_t nt = 0, n = 0, fr[64];
    int64_t need[64];
    int cross;

    /* no heap operation runs while the key is changed, and it is restored */
    wl->priority = INT32_MAX - 1;
    ts__eng_assign(e, wl->cq, wl, NULL, &a);
    if (a.mode == TS__ENG_PREEMPT || a.mode == TS__ENG_RECLAIM) {
        for (size_t p = 0; p < a.n_podsets; p++)
            for (size_t j = 0; j < a.ps[p].n && n < 64; j++) {
                fr[n] = a.ps[p].fr[j];
                need[n++] = a.ps[p].amount[j];
            }
        nt = ts__eng_preempt_targets(e, wl->cq, wl, fr, need, n, &t, &cross);
    }
    ts__eng_assignment_release(&a);
    wl->priority = saved;
    if (!nt) {
        free(t);
        return 0;
    }
    out->cf = TS_CF_PRIORITY;
    snprintf(out->cf_text, sizeof(out->cf_text), "would preempt");
    for (size_t i = 0; i < nt; i++) {
        size_t l = strlen(out->cf_text);

        snprintf(out->cf_text + l, sizeof(out->cf_text) - l, "%s %s/%s", i ? "," : "", t[i].wl->ns,
                 t[i].wl->name);
        if (t[i].wl->priority > above)
            above = t[i].wl->priority;
    }
    {
        size_t l = strlen(out->cf_text);

        snprintf(out->cf_text + l, sizeof(out->cf_text) - l, " if its priority were above %d",
                 above);
    }
    free(t);
    return 1;
}

/* What all pod sets together would need of resource/flavor from fact i. */
static int64_t total_requested(const struct ts_explanation *x, size_t i)
{
    int64_t sum = 0;

    for (size_t j = 0; j < x->n_facts; j++) {
        if (!strcmp(x->facts[j].resource, x->facts[i].resource) &&
            !strcmp(x->facts[j].flavor, x->facts[i].flavor))
            sum = ts_amount_add(sum, x->facts[j].requested);
    }
    return sum;
}

/* FREE_QUOTA: the flavor with the smallest shortfall (pod sets placed in
 * the same flavor add up). */
static void cf_free(const struct ts__eng_wl *wl, struct ts_explanation *x)
{
    const struct ts_flavor_fact *best = NULL;
    const struct ts_quota_node *root = ts_quota_root(&wl->cq->node);
    int64_t best_short = 0;
    char a[48];

    for (size_t i = 0; i < x->n_facts; i++) {
        const struct ts_flavor_fact *f = &x->facts[i];
        int64_t req = total_requested(x, i);

        if (req <= f->available || req > f->maximum)
            continue;
        if (!best || req - f->available < best_short) {
            best = f;
            best_short = req - f->available;
        }
    }
    if (!best)
        return;
    x->cf = TS_CF_FREE_QUOTA;
    snprintf(x->cf_text, sizeof(x->cf_text), "fits in flavor %s if %s %s are freed in %s %s",
             best->flavor, ts_amount_format(best->resource, best_short, a, sizeof(a)),
             best->resource, root->is_cohort ? "cohort" : "ClusterQueue", root->name);
}

int ts_engine_explain(struct ts_engine *e, const char *ns, const char *name,
                      struct ts_explanation *x)
{
    char key[512];
    struct ts__eng_wl *wl;

    memset(x, 0, sizeof(*x));
    snprintf(key, sizeof(key), "%s/%s", ns, name);
    if (!(wl = ts_hmap_get(&e->workloads, key)))
        return TS_ENOTFOUND;
    x->reason = wl->last_reason;
    x->message = wl->last_message;
    if (wl->state != TS__ENG_WL_PENDING || !wl->cq) {
        x->cluster_queue = wl->cq ? wl->cq->name : wl->admission_cq;
        if (wl->state != TS__ENG_WL_PENDING)
            x->reason = x->message = NULL;
        return 0;
    }
    x->cluster_queue = wl->cq->name;
    positions(wl, x);
    facts(e, wl, x);
    /* fewer pods now is the smallest change; then what no change of state fixes */
    if (!cf_partial(e, wl, x) && !cf_never(x, x) && !cf_priority(e, wl, x))
        cf_free(wl, x);
    return 0;
}

void ts_explanation_release(struct ts_explanation *x)
{
    free(x->ahead);
    free(x->facts);
    memset(x, 0, sizeof(*x));
}
