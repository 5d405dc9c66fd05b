/* queues.c - ClusterQueues, Cohorts (explicit and implicit) and
 * LocalQueues in the engine, and the quota tree they form. */
#include "api/clusterqueue.h"
#include "api/cohort.h"
#include "api/localqueue.h"
#include "engine/amount.h"
#include "engine/engine_int.h"
#include "engine/memo.h"
#include "util/alloc.h"
#include "util/buf.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ts__eng_cq *ts__eng_cq_of_node(struct ts_quota_node *n)
{
    return (struct ts__eng_cq *)(void *)((char *)n - offsetof(struct ts__eng_cq, node));
}

static struct ts__eng_cohort *cohort_of_node(struct ts_quota_node *n)
{
    return (struct ts__eng_cohort *)(void *)((char *)n - offsetof(struct ts__eng_cohort, node));
}

void ts__eng_resize_nodes(struct ts_engine *e)
{
    size_t it = 0;
    const char *k;
    void *v;

    while (ts_hmap_next(&e->cqs, &it, &k, &v))
        ts_quota_node_resize(&((struct ts__eng_cq *)v)->node, e->nfr);
    it = 0;
    while (ts_hmap_next(&e->cohorts, &it, &k, &v))
        ts_quota_node_resize(&((struct ts__eng_cohort *)v)->node, e->nfr);
}

/* --- cohorts ------------------------------------------------------------- */

static struct ts__eng_cohort *cohort_get(struct ts_engine *e, const char *name)
{
    struct ts__eng_cohort *co = ts_hmap_get(&e->cohorts, name);

    if (co)
        return co;
    co = ts_xcalloc(1, sizeof(*co));
    co->name = ts_xstrdup(name);
    co->fs_weight = 1000;
    ts_quota_node_init(&co->node, name, 1, e->nfr);
    ts_hmap_put(&e->cohorts, name, co);
    return co;
}

static void cohort_unref(struct ts_engine *e, struct ts__eng_cohort *co);

static void cohort_free(struct ts_engine *e, struct ts__eng_cohort *co)
{
    struct ts__eng_cohort *parent = co->node.parent ? cohort_of_node(co->node.parent) : NULL;

    ts_quota_node_set_parent(&co->node, NULL);
    ts_hmap_del(&e->cohorts, co->name);
    free(co->name);
    free(co->parent_name);
    ts_quota_node_release(&co->node);
    free(co);
    if (parent)
        cohort_unref(e, parent);
}

static void cohort_unref(struct ts_engine *e, struct ts__eng_cohort *co)
{
    if (co->refs)
        co->refs--;
    if (!co->refs && !co->explicit_ && !co->node.n_children)
        cohort_free(e, co);
}

/* Links node under the cohort called `name` (NULL = none), managing the
 * implicit cohorts' reference counts.  TS_EINVAL on a cycle. */
static int link_parent(struct ts_engine *e, struct ts_quota_node *node, const char *old_name,
                       const char *name)
{
    struct ts__eng_cohort *next = name ? cohort_get(e, name) : NULL;
    struct ts__eng_cohort *prev = old_name ? ts_hmap_get(&e->cohorts, old_name) : NULL;

    if (next == prev && (next ? node->parent == &next->node : !node->parent))
        return 0;
    if (next && ts_quota_node_set_parent(node, &next->node)) {
        if (!next->refs && !next->explicit_ && !next->node.n_children)
            cohort_free(e, next);
        return TS_EINVAL;
    }
    if (!next)
        ts_quota_node_set_parent(node, NULL);
    if (next)
        next->refs++;
    if (prev)
        cohort_unref(e, prev);
    return 0;
}

/* Sets a node's quotas from resource groups, zeroing pairs it had before. */
static void set_quotas(struct ts_engine *e, struct ts_quota_node *n,
                       const struct ts_resource_groups *g)
{
    for (size_t fr = 0; fr < n->nfr; fr++) {
        if (n->nominal[fr] || n->borrowing_limit[fr] != TS_AMOUNT_NONE ||
            n->lending_limit[fr] != TS_AMOUNT_NONE)
            ts_quota_set(n, fr, 0, TS_AMOUNT_NONE, TS_AMOUNT_NONE);
    }
    for (size_t i = 0; i < g->n; i++) {
        for (size_t f = 0; f < g->items[i].n_flavors; f++) {
            const struct ts_flavor_quotas *fq = &g->items[i].flavors[f];

            for (size_t r = 0; r < fq->n_resources; r++) {
                const struct ts_resource_quota *q = &fq->resources[r];
                size_t fr = ts__eng_fr_id(e, fq->name, q->name);

                ts_quota_set(n, fr, ts_amount_of(q->name, &q->nominal_quota),
                             q->borrowing_limit.set ? ts_amount_of(q->name, &q->borrowing_limit.q)
                                                    : TS_AMOUNT_NONE,
                             q->lending_limit.set ? ts_amount_of(q->name, &q->lending_limit.q)
                                                  : TS_AMOUNT_NONE);
            }
        }
    }
}

int ts_engine_put_cohort(struct ts_engine *e, const struct ts_cohort *in, struct ts_err *err)
{
    struct ts__eng_cohort *co;
    const char *parent = in->spec.parent_name;

    ts__eng_config_changed(e);
    if (!in->meta.name)
        return ts_err_set(err, TS_EINVAL, "cohort: metadata.name: Required value");
    co = cohort_get(e, in->meta.name);
    co->explicit_ = 1;
    {
        struct ts_quantity w = ts_fair_sharing_weight(&in->spec.fair_sharing);
        int64_t m;

        co->fs_weight = ts_quantity_milli_value(&w, &m) ? INT64_MAX : m;
    }
    set_quotas(e, &co->node, &in->spec.resource_groups);
    if (link_parent(e, &co->node, co->parent_name, parent && parent[0] ? parent : NULL)) {
        ts__eng_requeue_tree(e, &co->node);
        return ts_err_set(err, TS_EINVAL,
                          "cohort \"%s\": spec.parentName: Invalid value: \"%s\": makes a cycle "
                          "of cohorts; the cohort stays a root",
                          co->name, parent);
    }
    free(co->parent_name);
    co->parent_name = parent && parent[0] ? ts_xstrdup(parent) : NULL;
    ts__eng_requeue_tree(e, &co->node);
    return 0;
}

void ts_engine_delete_cohort(struct ts_engine *e, const char *name)
{
    struct ts__eng_cohort *co = ts_hmap_get(&e->cohorts, name);
    struct ts_resource_groups none = {NULL, 0};

    ts__eng_config_changed(e);
    if (!co || !co->explicit_)
        return;
    co->fs_weight = 1000;
    set_quotas(e, &co->node, &none);
    link_parent(e, &co->node, co->parent_name, NULL);
    free(co->parent_name);
    co->parent_name = NULL;
    co->explicit_ = 0;
    ts__eng_requeue_tree(e, &co->node);
    if (!co->refs && !co->node.n_children)
        cohort_free(e, co);
}

/* --- cluster queues ---------------------------------------------------------- */

static void rgs_free(struct ts__eng_cq *cq)
{
    for (size_t g = 0; g < cq->n_rgs; g++) {
        struct ts__eng_rg *rg = &cq->rgs[g];

        for (size_t f = 0; f < rg->n_flavors; f++) {
            free(rg->flavors[f].name);
            free(rg->flavors[f].fr);
        }
        free(rg->flavors);
        free(rg->covered);
        ts_strlist_release(&rg->label_keys);
    }
    free(cq->rgs);
    cq->rgs = NULL;
    cq->n_rgs = 0;
}

/* The union of the group's flavors' node label keys (Kueue's LabelKeys). */
static void rg_label_keys(const struct ts_engine *e, struct ts__eng_rg *rg)
{
    ts_strlist_release(&rg->label_keys);
    for (size_t f = 0; f < rg->n_flavors; f++) {
        const struct ts__eng_flavor *fl = ts_hmap_get(&e->flavors, rg->flavors[f].name);

        rg->flavors[f].flavor = fl;
        for (size_t i = 0; fl && i < fl->node_labels.n; i++) {
            if (ts_strlist_index(&rg->label_keys, fl->node_labels.items[i].key) < 0)
                ts_strlist_push(&rg->label_keys, fl->node_labels.items[i].key);
        }
    }
}

static void rgs_build(struct ts_engine *e, struct ts__eng_cq *cq,
                      const struct ts_resource_groups *g)
{
    cq->n_rgs = g->n;
    cq->rgs = ts_xcalloc(g->n ? g->n : 1, sizeof(*cq->rgs));
    for (size_t i = 0; i < g->n; i++) {
        const struct ts_resource_group *src = &g->items[i];
        struct ts__eng_rg *rg = &cq->rgs[i];

        rg->n_covered = src->covered_resources.n;
        rg->covered = ts_xcalloc(rg->n_covered ? rg->n_covered : 1, sizeof(*rg->covered));
        for (size_t r = 0; r < rg->n_covered; r++)
            rg->covered[r] = ts__eng_resource_id(e, src->covered_resources.items[r]);
        rg->n_flavors = src->n_flavors;
        rg->flavors = ts_xcalloc(src->n_flavors ? src->n_flavors : 1, sizeof(*rg->flavors));
        for (size_t f = 0; f < src->n_flavors; f++) {
            rg->flavors[f].name = ts_xstrdup(src->flavors[f].name);
            rg->flavors[f].fr = ts_xcalloc(rg->n_covered ? rg->n_covered : 1, sizeof(size_t));
            for (size_t r = 0; r < rg->n_covered; r++)
                rg->flavors[f].fr[r] =
                    ts__eng_fr_id(e, src->flavors[f].name, src->covered_resources.items[r]);
        }
        rg_label_keys(e, rg);
    }
}

static struct ts__eng_cq *cq_new(struct ts_engine *e, const char *name)
{
    struct ts__eng_cq *cq = ts_xcalloc(1, sizeof(*cq));

    cq->name = ts_xstrdup(name);
    ts_quota_node_init(&cq->node, name, 0, e->nfr);
    ts_heap_init(&cq->pending, ts__eng_wl_less, ts__eng_wl_pos);
    ts_hmap_put(&e->cqs, name, cq);
    return cq;
}

int ts_engine_put_cluster_queue(struct ts_engine *e, const struct ts_cluster_queue *in,
                                struct ts_err *err)
{
    const struct ts_cluster_queue_spec *s = &in->spec;
    const char *cohort = s->cohort_name && s->cohort_name[0] ? s->cohort_name : NULL;
    struct ts__eng_cq *cq;
    int rc = 0;

    ts__eng_config_changed(e);
    if (!in->meta.name)
        return ts_err_set(err, TS_EINVAL, "clusterqueue: metadata.name: Required value");
    cq = ts_hmap_get(&e->cqs, in->meta.name);
    if (!cq)
        cq = cq_new(e, in->meta.name);
    rgs_free(cq);
    rgs_build(e, cq, &s->resource_groups);
    ts__eng_cq_set_checks(cq, &s->admission_checks_strategy);
    set_quotas(e, &cq->node, &s->resource_groups);
    cq->queueing = s->queueing_strategy;
    {
        struct ts_quantity w = ts_fair_sharing_weight(&s->fair_sharing);
        int64_t m;

        cq->fs_weight = ts_quantity_milli_value(&w, &m) ? INT64_MAX : m;
    }
    cq->fungibility = s->flavor_fungibility;
    cq->preemption = s->preemption;
    ts_label_selector_release(&cq->ns_selector);
    cq->has_ns_selector = s->has_namespace_selector;
    if (s->has_namespace_selector)
        ts_label_selector_copy(&cq->ns_selector, &s->namespace_selector);
    cq->stopped = s->stop_policy != TS_STOP_NONE;
    cq->terminating = in->meta.deletion_timestamp != 0;
    if (link_parent(e, &cq->node, cq->cohort_name, cohort))
        rc = ts_err_set(err, TS_EINVAL, "clusterqueue \"%s\": spec.cohortName: cannot join \"%s\"",
                        cq->name, cohort);
    else {
        free(cq->cohort_name);
        cq->cohort_name = cohort ? ts_xstrdup(cohort) : NULL;
    }
    ts__eng_attach_admitted(e, cq);
    ts__eng_reroute(e);
    ts__eng_requeue_tree(e, &cq->node);
    return rc;
}

static void blocked_free(struct ts__eng_cq *cq)
{
    for (size_t i = 0; i < cq->cap_blocked; i++) {
        free(cq->blocked[i].reason);
        free(cq->blocked[i].message);
    }
    free(cq->blocked);
}

static void cq_free(struct ts_engine *e, struct ts__eng_cq *cq)
{
    ts__eng_detach_cq(e, cq);
    link_parent(e, &cq->node, cq->cohort_name, NULL);
    ts_hmap_del(&e->cqs, cq->name);
    rgs_free(cq);
    ts__eng_cq_free_checks(cq);
    ts_heap_release(&cq->pending);
    ts__eng_free_classes(cq);
    blocked_free(cq);
    free(cq->preemptor);
    ts__eng_memo_free(cq);
    free(cq->holders);
    free(cq->order);
    ts_label_selector_release(&cq->ns_selector);
    ts_quota_node_release(&cq->node);
    free(cq->cohort_name);
    free(cq->name);
    free(cq);
}

void ts_engine_delete_cluster_queue(struct ts_engine *e, const char *name)
{
    struct ts__eng_cq *cq = ts_hmap_get(&e->cqs, name);
    struct ts__eng_cohort *co;

    ts__eng_config_changed(e);
    if (!cq)
        return;
    co = cq->cohort_name ? ts_hmap_get(&e->cohorts, cq->cohort_name) : NULL;
    /* marked before the queue goes: an implicit cohort it was the last
     * member of goes with it (cohort_unref) */
    if (co)
        ts__eng_requeue_tree(e, &co->node);
    cq_free(e, cq);
    ts__eng_reroute(e);
}

const char *ts__eng_cq_inactive(const struct ts_engine *e, const struct ts__eng_cq *cq)
{
    if (cq->terminating)
        return "Terminating";
    if (cq->stopped)
        return "Stopped";
    for (size_t g = 0; g < cq->n_rgs; g++) {
        for (size_t f = 0; f < cq->rgs[g].n_flavors; f++) {
            if (!ts_hmap_get(&e->flavors, cq->rgs[g].flavors[f].name))
                return "FlavorNotFound";
        }
    }
    if (ts__eng_cq_bad_checks(e, cq, 0, NULL))
        return "AdmissionCheckNotFound";
    if (ts__eng_cq_bad_checks(e, cq, 1, NULL))
        return "AdmissionCheckInactive";
    return NULL;
}

void ts__eng_flavors_changed(struct ts_engine *e)
{
    size_t it = 0;
    const char *k;
    void *v;

    while (ts_hmap_next(&e->cqs, &it, &k, &v)) {
        struct ts__eng_cq *cq = v;

        for (size_t g = 0; g < cq->n_rgs; g++)
            rg_label_keys(e, &cq->rgs[g]);
    }
    ts__eng_reroute(e);
    ts__eng_requeue_all(e);
}

/* --- requeueing inadmissible workloads ------------------------------------ */

/* The slots keep their strings for the next verdicts, which mostly repeat
 * them: freeing and copying them at every requeue of a large cohort would
 * be work for nothing. */
void ts__eng_unblock(struct ts__eng_cq *cq)
{
    cq->n_blocked = 0;
}

static void requeue_cq(struct ts_engine *e, struct ts__eng_cq *cq)
{
    ts__eng_unblock(cq);
    ts__eng_release_classes(cq);
    (void)e;
}

/* Requeues are batched (as Kueue batches them): a completion marks its
 * tree, and the next cycle releases the parked workloads of every marked
 * tree once, however many completions happened in between. */
void ts__eng_requeue_tree(struct ts_engine *e, struct ts_quota_node *node)
{
    ts_quota_root(node)->requeue = 1;
    e->requeue_marked = 1;
}

void ts__eng_requeue_flush(struct ts_engine *e)
{
    size_t it = 0;
    const char *k;
    void *v;

    if (!e->requeue_marked)
        return;
    e->requeue_marked = 0;
    while (ts_hmap_next(&e->cqs, &it, &k, &v)) {
        struct ts__eng_cq *cq = v;

        if (ts_quota_root(&cq->node)->requeue)
            requeue_cq(e, cq);
    }
    it = 0;
    while (ts_hmap_next(&e->cqs, &it, &k, &v))
        ts_quota_root(&((struct ts__eng_cq *)v)->node)->requeue = 0;
}

void ts__eng_requeue_all(struct ts_engine *e)
{
    size_t it = 0;
    const char *k;
    void *v;

    while (ts_hmap_next(&e->cqs, &it, &k, &v))
        requeue_cq(e, v);
}

/* --- local queues ------------------------------------------------------------- */

int ts_engine_put_local_queue(struct ts_engine *e, const struct ts_local_queue *in,
                              struct ts_err *err)
{
    char key[512];
    struct ts__eng_lq *lq;

    ts__eng_config_changed(e);
    if (!in->meta.name || !in->meta.namespace_)
        return ts_err_set(err, TS_EINVAL, "localqueue: metadata.name and namespace are required");
    snprintf(key, sizeof(key), "%s/%s", in->meta.namespace_, in->meta.name);
    lq = ts_hmap_get(&e->lqs, key);
    if (!lq) {
        lq = ts_xcalloc(1, sizeof(*lq));
        lq->key = ts_xstrdup(key);
        ts_hmap_put(&e->lqs, key, lq);
    }
    free(lq->cq_name);
    lq->cq_name = in->spec.cluster_queue ? ts_xstrdup(in->spec.cluster_queue) : NULL;
    lq->stopped = in->spec.stop_policy != TS_STOP_NONE;
    ts__eng_reroute(e);
    return 0;
}

static void lq_free(struct ts__eng_lq *lq)
{
    free(lq->key);
    free(lq->cq_name);
    free(lq);
}

void ts_engine_delete_local_queue(struct ts_engine *e, const char *ns, const char *name)
{
    char key[512];
    struct ts__eng_lq *lq;

    ts__eng_config_changed(e);
    snprintf(key, sizeof(key), "%s/%s", ns, name);
    lq = ts_hmap_del(&e->lqs, key);
    if (!lq)
        return;
    lq_free(lq);
    ts__eng_reroute(e);
}

void ts__eng_free_queues(struct ts_engine *e)
{
    size_t it = 0;
    const char *k;
    void *v;

    while (ts_hmap_next(&e->cqs, &it, &k, &v))
        cq_free(e, v);
    ts_hmap_release(&e->cqs);
    it = 0;
    while (ts_hmap_next(&e->cohorts, &it, &k, &v)) {
        struct ts__eng_cohort *co = v;

        free(co->name);
        free(co->parent_name);
        ts_quota_node_release(&co->node);
        free(co);
    }
    ts_hmap_release(&e->cohorts);
    it = 0;
    while (ts_hmap_next(&e->lqs, &it, &k, &v))
        lq_free(v);
    ts_hmap_release(&e->lqs);
}

int64_t ts__eng_node_weight(const struct ts_quota_node *n)
{
    const char *p = (const char *)n;

    if (n->is_cohort)
        return ((const struct ts__eng_cohort *)(const void *)(p - offsetof(struct ts__eng_cohort,
                                                                           node)))
            ->fs_weight;
    return ((const struct ts__eng_cq *)(const void *)(p - offsetof(struct ts__eng_cq, node)))
        ->fs_weight;
}
