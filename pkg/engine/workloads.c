/* workloads.c - workloads in the engine: what they request, where they
 * queue, and the usage they hold. */
#include "api/workload.h"
#include "engine/amount.h"
#include "engine/assign.h"
#include "engine/engine_int.h"
#include "util/alloc.h"
#include "util/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ts__eng_wl_less(const void *a, const void *b)
{
    const struct ts__eng_wl *x = a, *y = b;

    /* Kueue's heap order: higher priority, earlier queue-order time, UID */
    if (x->priority != y->priority)
        return x->priority > y->priority ? -1 : 1;
    if (x->queue_ts != y->queue_ts)
        return x->queue_ts < y->queue_ts ? -1 : 1;
    if (x->id_prefix != y->id_prefix) /* creation times tie by the second */
        return x->id_prefix < y->id_prefix ? -1 : 1;
    return strcmp(x->uid ? x->uid : x->key, y->uid ? y->uid : y->key);
}

uint64_t ts__eng_id_prefix(const char *id)
{
    uint64_t v = 0;

    for (size_t i = 0; i < 8 && id[i]; i++)
        v |= (uint64_t)(unsigned char)id[i] << (56 - 8 * i);
    return v;
}

size_t *ts__eng_wl_pos(void *e)
{
    return &((struct ts__eng_wl *)e)->heap_pos;
}

static void podsets_free(struct ts__eng_wl *wl)
{
    for (size_t i = 0; i < wl->n_podsets; i++) {
        free(wl->podsets[i].name);
        free(wl->podsets[i].req_res);
        free(wl->podsets[i].req_amount);
        ts_pod_template_release(&wl->podsets[i].tmpl);
    }
    free(wl->podsets);
    wl->podsets = NULL;
    wl->n_podsets = 0;
}

static void members_key(char *key, size_t len, const struct ts__eng_wl *wl)
{
    snprintf(key, len, "%s/%s", wl->ns, wl->lq_name);
}

static void members_add(struct ts_engine *e, struct ts__eng_wl *wl)
{
    struct ts__eng_members *m;
    char key[512];

    if (!wl->lq_name)
        return;
    members_key(key, sizeof(key), wl);
    if (!(m = ts_hmap_get(&e->by_lq, key))) {
        m = ts_xcalloc(1, sizeof(*m));
        m->status_seq = ++e->members_generation << 32;
        ts_hmap_put(&e->by_lq, key, m);
    }
    if (m->n == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 8;
        m->items = ts_xrealloc(m->items, m->cap * sizeof(*m->items));
    }
    wl->lq_pos = m->n;
    m->items[m->n++] = wl;
    wl->members = m;
    m->status_seq++;
}

static void members_del(struct ts_engine *e, struct ts__eng_wl *wl)
{
    struct ts__eng_members *m;
    char key[512];

    if (!wl->lq_name)
        return;
    members_key(key, sizeof(key), wl);
    if (!(m = ts_hmap_get(&e->by_lq, key)))
        return;
    m->items[wl->lq_pos] = m->items[--m->n];
    m->items[wl->lq_pos]->lq_pos = wl->lq_pos;
    m->status_seq++;
    wl->members = NULL;
    if (!m->n) {
        ts_hmap_put(&e->status_gone, key, e); /* any non-NULL value */
        ts_hmap_del(&e->by_lq, key);
        free(m->items);
        free(m);
    }
}

const struct ts__eng_members *ts__eng_lq_members(const struct ts_engine *e, const char *ns,
                                                 const char *name)
{
    char key[512];

    snprintf(key, sizeof(key), "%s/%s", ns, name);
    return ts_hmap_get(&e->by_lq, key);
}

static void wl_clear(struct ts_engine *e, struct ts__eng_wl *wl)
{
    members_del(e, wl);
    ts__eng_psa_free(wl->admission, wl->n_podsets); /* sized by the pod sets: first */
    wl->admission = NULL;
    podsets_free(wl);
    free(wl->uid);
    free(wl->lq_name);
    free(wl->admission_cq);
    free(wl->job_uid);
    free(wl->limits_message);
    wl->uid = wl->lq_name = wl->admission_cq = wl->job_uid = wl->limits_message = NULL;
    /* sized by the pod sets; and Kueue's queue manager replaces a
     * workload's info (its last assignment with it) on every update */
    free(wl->tried);
    wl->tried = NULL;
    wl->tried_cq = NULL;
}

static void wl_free(struct ts_engine *e, struct ts__eng_wl *wl)
{
    wl_clear(e, wl);
    free(wl->key);
    free(wl->ns);
    free(wl->name);
    free(wl->last_reason);
    free(wl->last_message);
    free(wl);
}

/* --- usage ------------------------------------------------------------------ */

void ts__eng_wl_add_usage(struct ts__eng_wl *wl, int sign)
{
    if (!wl->cq || !wl->admission)
        return;
    wl->fr_mask = 0;
    wl->fr_wide = 0;
    for (size_t i = 0; i < wl->n_podsets; i++) {
        for (size_t j = 0; j < wl->admission[i].n; j++) {
            size_t fr = wl->admission[i].fr[j];

            if (fr < 64)
                wl->fr_mask |= UINT64_C(1) << fr;
            else
                wl->fr_wide = 1;
            if (sign > 0)
                ts_quota_add_usage(&wl->cq->node, wl->admission[i].fr[j],
                                   wl->admission[i].amount[j]);
            else
                ts_quota_remove_usage(&wl->cq->node, wl->admission[i].fr[j],
                                      wl->admission[i].amount[j]);
        }
    }
    if (sign > 0) {
        struct ts__eng_cq *cq = wl->cq;

        cq->n_reserving++;
        if (wl->state == TS__ENG_WL_ADMITTED && !wl->awaiting_checks)
            cq->n_admitted++;
        TS_GROW(cq->holders, cq->cap_holders, cq->n_holders + 1);
        wl->holder_pos = cq->n_holders;
        cq->holders[cq->n_holders++] = wl;
        ts__eng_holders_changed(cq);
    } else {
        struct ts__eng_cq *cq = wl->cq;
        struct ts__eng_wl *last = cq->holders[--cq->n_holders];

        cq->n_reserving--;
        if (wl->state == TS__ENG_WL_ADMITTED && !wl->awaiting_checks)
            cq->n_admitted--;
        cq->holders[wl->holder_pos] = last;
        last->holder_pos = wl->holder_pos;
        ts__eng_holders_changed(cq);
        wl->evicting = wl->evicted = 0;
    }
}

/* Takes wl out of whatever queue holds it.  A queued workload may be the
 * one its parked class released (park.c): the next of the class takes its
 * place, or the class would wait for the next requeue, which a quiet
 * cluster never brings (the soak found Workloads that fit, pending for
 * good after a deleted job). */
static void unqueue(struct ts__eng_wl *wl)
{
    struct ts__eng_cq *cq = wl->cq;

    if (cq && ts_heap_contains(&cq->pending, wl)) {
        ts_heap_remove(&cq->pending, wl);
        ts__eng_release_next(cq, wl->shape);
    }
    if (cq)
        ts__eng_unpark(cq, wl);
}

static void mark_dirty(struct ts_engine *e, struct ts__eng_wl *wl)
{
    if (wl->dirty)
        return;
    wl->dirty = 1;
    TS_GROW(e->dirty, e->cap_dirty, e->n_dirty + 1);
    e->dirty[e->n_dirty++] = wl;
}

static void undirty(struct ts_engine *e, struct ts__eng_wl *wl)
{
    if (!wl->dirty)
        return;
    for (size_t i = 0; i < e->n_dirty; i++) {
        if (e->dirty[i] == wl) {
            e->dirty[i] = e->dirty[--e->n_dirty];
            break;
        }
    }
    wl->dirty = 0;
}

/* The ClusterQueue a pending workload belongs to (NULL when its
 * LocalQueue or ClusterQueue is missing). */
static struct ts__eng_cq *target_cq(const struct ts_engine *e, const struct ts__eng_wl *wl)
{
    char key[512];
    const struct ts__eng_lq *lq;

    if (!wl->lq_name)
        return NULL;
    snprintf(key, sizeof(key), "%s/%s", wl->ns, wl->lq_name);
    lq = ts_hmap_get(&e->lqs, key);
    if (!lq || !lq->cq_name || lq->stopped)
        return NULL;
    return ts_hmap_get(&e->cqs, lq->cq_name);
}

void ts__eng_wl_enqueue(struct ts_engine *e, struct ts__eng_wl *wl)
{
    struct ts__eng_cq *cq = target_cq(e, wl);

    unqueue(wl);
    wl->cq = cq;
    if (cq && !ts__eng_cq_inactive(e, cq)) {
        undirty(e, wl);
        ts_heap_push(&cq->pending, wl);
        return;
    }
    mark_dirty(e, wl);
}

void ts__eng_reroute(struct ts_engine *e)
{
    size_t it = 0;
    const char *k;
    void *v;

    while (ts_hmap_next(&e->workloads, &it, &k, &v)) {
        struct ts__eng_wl *wl = v;
        struct ts__eng_cq *cq;

        if (wl->state != TS__ENG_WL_PENDING)
            continue;
        cq = target_cq(e, wl);
        if (cq == wl->cq && cq && !ts__eng_cq_inactive(e, cq) &&
            (wl->inadmissible || ts_heap_contains(&cq->pending, wl)))
            continue;
        ts__eng_wl_enqueue(e, wl);
    }
}

void ts__eng_attach_admitted(struct ts_engine *e, struct ts__eng_cq *cq)
{
    size_t it = 0;
    const char *k;
    void *v;

    while (ts_hmap_next(&e->workloads, &it, &k, &v)) {
        struct ts__eng_wl *wl = v;

        if ((wl->state == TS__ENG_WL_ADMITTED || wl->state == TS__ENG_WL_ASSUMED) && !wl->cq &&
            wl->admission_cq && strcmp(wl->admission_cq, cq->name) == 0) {
            wl->cq = cq;
            ts__eng_wl_add_usage(wl, 1);
        }
    }
}

void ts__eng_detach_cq(struct ts_engine *e, struct ts__eng_cq *cq)
{
    size_t it = 0;
    const char *k;
    void *v;

    while (ts_hmap_next(&e->workloads, &it, &k, &v)) {
        struct ts__eng_wl *wl = v;

        if (wl->cq != cq)
            continue;
        if (wl->state == TS__ENG_WL_PENDING) {
            unqueue(wl);
            wl->cq = NULL;
            mark_dirty(e, wl);
        } else if (wl->admission) {
            ts__eng_wl_add_usage(wl, -1);
            wl->cq = NULL;
        }
    }
}

/* --- building the engine's view of a workload ------------------------------ */

static int32_t resolve_priority(const struct ts_engine *e, const struct ts_workload *src)
{
    const struct ts_priority_class_ref *ref = &src->spec.priority_class_ref;
    const int32_t *v = NULL;

    if (src->spec.priority.set || !ref->set || !ref->name)
        return ts_workload_priority(src);
    if (ref->kind && strcmp(ref->kind, TS_WL_PRIO_KIND_WPC) == 0)
        v = ts_hmap_get(&e->wpcs, ref->name);
    else
        v = ts_hmap_get(&e->pcs, ref->name);
    return v ? *v : 0;
}

/* Kueue's queue-order timestamp: an eviction for PodsReadyTimeout or an
 * admission check restarts the wait; otherwise creation time. */
static ts_time queue_order_ts(const struct ts_workload *src)
{
    const struct ts_condition *ev = ts_conditions_find(&src->status.conditions, TS_WL_COND_EVICTED);

    if (ev && ev->status && strcmp(ev->status, "True") == 0 && ev->reason &&
        (strcmp(ev->reason, TS_WL_REASON_PODS_READY_TIMEOUT) == 0 ||
         strcmp(ev->reason, TS_WL_REASON_ADMISSION_CHECK) == 0))
        return ev->last_transition_time;
    return src->meta.creation_timestamp;
}

/* Requests whose sum overflows even a quantity: every resource any
 * container (limits standing in for requests) or the overhead asks for
 * becomes TS_AMOUNT_UNLIMITED, which
 * never fits (assign.c says "request too large to count"), so the workload
 * stays pending with that message instead of being dropped. */
static void uncountable_requests(const struct ts_pod_template *t, struct ts_resource_list *out)
{
    const struct ts_quantity huge = ts_quantity_from_int(INT64_MAX, TS_QUANTITY_DECIMAL_SI);
    const struct ts_container *lists[2] = {t->containers, t->init_containers};
    size_t lens[2] = {t->n_containers, t->n_init_containers};

    struct ts_resource_list eff = TS_RESOURCE_LIST_INIT;

    ts_resource_list_release(out);
    for (size_t l = 0; l < 2; l++) {
        for (size_t i = 0; i < lens[l]; i++) {
            ts_container_effective_requests(&lists[l][i], &eff);
            for (size_t r = 0; r < eff.n; r++)
                ts_resource_list_set(out, eff.items[r].name, &huge);
        }
    }
    ts_resource_list_release(&eff);
    for (size_t r = 0; r < t->overhead.n; r++)
        ts_resource_list_set(out, t->overhead.items[r].name, &huge);
}

static void fill_podset(struct ts_engine *e, struct ts__eng_podset *ps, const struct ts_podset *src)
{
    struct ts_resource_list req = TS_RESOURCE_LIST_INIT;

    ps->name = ts_xstrdup(src->name ? src->name : TS_WL_DEFAULT_PODSET);
    ps->count = src->count;
    ps->min_count = src->min_count.set ? src->min_count.v : 0;
    ts_pod_template_init(&ps->tmpl);
    ts_pod_template_copy_placement(&ps->tmpl, &src->template);
    if (ts_pod_template_requests(&src->template, &req))
        uncountable_requests(&src->template, &req);
    /* Kueue's excluded prefixes and transformations, per pod, before the
     * count (a saturated amount is too large to count, as above) */
    ts_resource_transforms_apply(&e->config.resources, &req);
    ps->req_res = ts_xcalloc(req.n + 1, sizeof(*ps->req_res));
    ps->req_amount = ts_xcalloc(req.n + 1, sizeof(*ps->req_amount));
    for (size_t i = 0; i < req.n; i++) {
        int64_t v = ts_amount_of(req.items[i].name, &req.items[i].q);

        ps->req_res[ps->n_req] = ts__eng_resource_id(e, req.items[i].name);
        ps->req_amount[ps->n_req++] = v > 0 ? v : 0; /* Kueue floors requests at 0 */
    }
    ts_resource_list_release(&req);
}

static int32_t reclaimable(const struct ts_workload *src, const char *ps)
{
    for (size_t i = 0; i < src->status.n_reclaimable_pods; i++) {
        if (strcmp(src->status.reclaimable_pods[i].name, ps) == 0)
            return src->status.reclaimable_pods[i].count;
    }
    return 0;
}

/* Reads status.admission into wl->admission (usage per fr), scaled down by
 * reclaimable pods as Kueue does.  Returns 0, TS_EINVAL (unaccountable:
 * the caller holds nothing) or TS_EOVERFLOW (an amount past int64, held
 * as TS_AMOUNT_UNLIMITED: the caller holds it so). */
static int fill_admission(struct ts_engine *e, struct ts__eng_wl *wl, const struct ts_workload *src,
                          struct ts_err *err)
{
    const struct ts_admission *a = src->status.admission;
    int rc = 0;

    wl->admission = ts_xcalloc(wl->n_podsets ? wl->n_podsets : 1, sizeof(*wl->admission));
    wl->admission_cq = ts_xstrdup(a->cluster_queue ? a->cluster_queue : "");
    for (size_t i = 0; i < a->n_podset_assignments && i < wl->n_podsets; i++) {
        const struct ts_podset_assignment *pa = &a->podset_assignments[i];
        struct ts__eng_psa *psa = &wl->admission[i];
        int32_t count = pa->count.set ? pa->count.v : wl->podsets[i].count;
        int32_t keep = count - reclaimable(src, pa->name ? pa->name : TS_WL_DEFAULT_PODSET);

        psa->count = count;
        psa->fr = ts_xcalloc(pa->resource_usage.n + 1, sizeof(*psa->fr));
        psa->amount = ts_xcalloc(pa->resource_usage.n + 1, sizeof(*psa->amount));
        for (size_t r = 0; r < pa->resource_usage.n; r++) {
            const char *res = pa->resource_usage.items[r].name;
            const char *flavor = ts_strmap_get(&pa->flavors, res);
            int64_t amount = ts_amount_of(res, &pa->resource_usage.items[r].q);

            if (!flavor)
                return ts_err_set(err, TS_EINVAL,
                                  "status.admission.podSetAssignments[%zu].flavors: no flavor for "
                                  "resource \"%s\"",
                                  i, res);
            /* negative usage would give quota back that nobody released */
            if (amount < 0)
                return ts_err_set(err, TS_EINVAL,
                                  "status.admission.podSetAssignments[%zu].resourceUsage[%s]: "
                                  "must be greater than or equal to 0",
                                  i, res);
            if (count > 0 && keep < count)
                amount = amount / count * (keep > 0 ? keep : 0);
            if (amount == TS_AMOUNT_UNLIMITED) {
                /* a quantity past int64: the running job holds the most
                 * an amount can be; the error names the field */
                rc = ts_err_set(err, TS_EOVERFLOW,
                                "status.admission.podSetAssignments[%zu].resourceUsage[%s]: too "
                                "large to count; counted as its largest countable amount",
                                i, res);
            }
            psa->fr[psa->n] = ts__eng_fr_id(e, flavor, res);
            psa->amount[psa->n++] = amount;
        }
    }
    return rc;
}

static uint64_t mix(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;

    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 1099511628211ULL;
    }
    return h;
}

static uint64_t mix_str(uint64_t h, const char *s)
{
    return mix(h, s ? s : "", s ? strlen(s) + 1 : 1);
}

/* Two workloads with the same shape get the same answer from flavor
 * assignment: requests, counts, node selection, tolerations, priority. */
static uint64_t shape_of(const struct ts__eng_wl *wl)
{
    uint64_t h = mix(1469598103934665603ULL, &wl->priority, sizeof(wl->priority));

    h = mix_str(h, wl->ns); /* namespaceSelector decides per namespace */
    for (size_t i = 0; i < wl->n_podsets; i++) {
        const struct ts__eng_podset *ps = &wl->podsets[i];
        const struct ts_pod_template *t = &ps->tmpl;

        h = mix(h, &ps->count, sizeof(ps->count));
        h = mix(h, &ps->min_count, sizeof(ps->min_count));
        h = mix(h, ps->req_res, ps->n_req * sizeof(*ps->req_res));
        h = mix(h, ps->req_amount, ps->n_req * sizeof(*ps->req_amount));
        for (size_t j = 0; j < t->node_selector.n; j++)
            h = mix_str(mix_str(h, t->node_selector.items[j].key), t->node_selector.items[j].value);
        for (size_t j = 0; j < t->n_tolerations; j++)
            h = mix_str(mix_str(mix_str(mix_str(h, t->tolerations[j].key), t->tolerations[j].op),
                                t->tolerations[j].value),
                        t->tolerations[j].effect);
        for (size_t j = 0; j < t->n_affinity_terms; j++) {
            for (size_t k = 0; k < t->affinity_terms[j].n_exprs; k++) {
                const struct ts_node_selector_req *r = &t->affinity_terms[j].exprs[k];

                h = mix(mix_str(h, r->key), &r->op, sizeof(r->op));
                for (size_t v = 0; v < r->values.n; v++)
                    h = mix_str(h, r->values.items[v]);
            }
            h = mix_str(h, "|");
        }
        h = mix_str(h, "#");
    }
    return h;
}

/* Kueue's ValidateAdmissibility: requests above limits make the workload
 * Misconfigured.  Returns the message, or NULL.  Ownership: caller frees. */
static char *limits_message(const struct ts_workload *wl)
{
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_buf b = TS_BUF_INIT;

    for (size_t i = 0; i < wl->spec.n_podsets; i++) {
        char path[64];

        snprintf(path, sizeof(path), "spec.podSets[%zu]", i);
        ts_pod_template_validate_limits(&wl->spec.podsets[i].template, path, &errs);
    }
    if (!errs.n)
        return NULL;
    ts_buf_adds(&b, "resources validation failed: "); /* Kueue's scheduler */
    ts_field_errors_format(&errs, &b);
    ts_field_errors_release(&errs);
    return ts_buf_take(&b);
}

static void fill(struct ts_engine *e, struct ts__eng_wl *wl, const struct ts_workload *src,
                 const char *inadmissible)
{
    const char *job_uid = ts_strmap_get(&src->meta.labels, "kueue.x-k8s.io/job-uid");
    const struct ts_condition *qr =
        ts_conditions_find(&src->status.conditions, TS_WL_COND_QUOTA_RESERVED);
    const struct ts_condition *pr =
        ts_conditions_find(&src->status.conditions, TS_WL_COND_PODS_READY);

    wl->uid = src->meta.uid ? ts_xstrdup(src->meta.uid) : NULL;
    wl->id_prefix = ts__eng_id_prefix(wl->uid ? wl->uid : wl->key);
    wl->job_uid = job_uid ? ts_xstrdup(job_uid) : NULL;
    wl->reserved_at = qr ? qr->last_transition_time : 0;
    wl->pods_ready = pr && pr->status && !strcmp(pr->status, "True");
    wl->lq_name = src->spec.queue_name ? ts_xstrdup(src->spec.queue_name) : NULL;
    members_add(e, wl);
    wl->priority = resolve_priority(e, src);
    if (e->config.priority_boost)
        wl->priority = ts_priority_add(wl->priority, ts_workload_priority_boost(src));
    wl->created = src->meta.creation_timestamp;
    wl->queue_ts = queue_order_ts(src);
    wl->podsets = ts_xcalloc(src->spec.n_podsets ? src->spec.n_podsets : 1, sizeof(*wl->podsets));
    for (size_t i = 0; i < src->spec.n_podsets; i++) {
        wl->n_podsets = i + 1;
        fill_podset(e, &wl->podsets[i], &src->spec.podsets[i]);
    }
    wl->shape = shape_of(wl);
    wl->limits_message = limits_message(src);
    if (!wl->limits_message && inadmissible) /* Kueue checks limits first */
        wl->limits_message = ts_xstrdup(inadmissible);
}

/* --- put / delete ------------------------------------------------------------- */

/* Takes wl out of queues and usage; returns the node whose tree lost usage. */
static struct ts_quota_node *wl_detach(struct ts_engine *e, struct ts__eng_wl *wl)
{
    struct ts_quota_node *freed = NULL;

    unqueue(wl);
    undirty(e, wl);
    if ((wl->state == TS__ENG_WL_ADMITTED || wl->state == TS__ENG_WL_ASSUMED) && wl->cq &&
        wl->admission) {
        ts__eng_wl_add_usage(wl, -1);
        freed = &wl->cq->node;
    }
    wl->cq = NULL;
    return freed;
}

static int put_admitted(struct ts_engine *e, struct ts__eng_wl *wl, const struct ts_workload *src,
                        struct ts_err *err)
{
    int rc = fill_admission(e, wl, src, err);

    if (rc && rc != TS_EOVERFLOW) {
        /* unaccountable: hold nothing rather than guess; the error names it */
        ts__eng_psa_free(wl->admission, wl->n_podsets);
        wl->admission = NULL;
        wl->state = TS__ENG_WL_IDLE;
        return rc;
    }
    wl->state = TS__ENG_WL_ADMITTED;
    wl->awaiting_checks = !ts_workload_is_admitted(src);
    wl->cq = ts_hmap_get(&e->cqs, wl->admission_cq);
    ts__eng_wl_add_usage(wl, 1);
    /* an eviction that landed is under way until the quota is released:
     * evicting it again would only rewrite it (and count it) every cycle */
    wl->evicted = ts_workload_is_evicted(src);
    if (wl->cq)
        ts__eng_holders_changed(wl->cq);
    return rc; /* TS_EOVERFLOW: held, clamped */
}

/* Released after a Retry admission check: Kueue queues it again only once
 * its job reconciler wrote Requeued=True BackoffFinished. */
static int released_by_check(const struct ts_workload *src)
{
    const struct ts_condition *c = ts_conditions_find(&src->status.conditions, TS_WL_COND_REQUEUED);

    return c && c->status && !strcmp(c->status, "False") && c->reason &&
           !strcmp(c->reason, TS_WL_REASON_ADMISSION_CHECK);
}

int ts_engine_put_workload(struct ts_engine *e, const struct ts_workload *src, ts_time now,
                           struct ts_err *err)
{
    return ts_engine_put_workload_checked(e, src, now, NULL, err);
}

int ts_engine_put_workload_checked(struct ts_engine *e, const struct ts_workload *src, ts_time now,
                                   const char *inadmissible, struct ts_err *err)
{
    char key[512];
    struct ts__eng_wl *wl;
    struct ts_quota_node *freed = NULL;
    int reserved = ts_workload_has_quota_reservation(src) && src->status.admission;
    /* a requeue backoff not over yet keeps it out of the queue (Kueue) */
    int backoff = !reserved &&
                  ((src->status.requeue_state.set && src->status.requeue_state.requeue_at > now) ||
                   released_by_check(src));
    int idle = !ts_workload_is_active(src) || backoff;
    uint64_t admitted_config = 0;
    int rc = 0;

    if (!src->meta.name || !src->meta.namespace_)
        return ts_err_set(err, TS_EINVAL, "workload: metadata.name and namespace are required");
    if (ts_workload_is_finished(src)) {
        /* Finished is final (Kueue): such a workload holds nothing, is
         * never placed again and no status counts it, so it is forgotten
         * as a deleted one is.  Kept, they would grow the controller's
         * memory all through a long run. */
        ts_engine_delete_workload(e, src->meta.namespace_, src->meta.name);
        return 0;
    }
    snprintf(key, sizeof(key), "%s/%s", src->meta.namespace_, src->meta.name);
    wl = ts_hmap_get(&e->workloads, key);
    /* an admission this engine assumed stays until its write is seen */
    if (wl && wl->state == TS__ENG_WL_ASSUMED && !reserved && !idle)
        return 0;
    if (wl) {
        ts__eng_touch(wl);
        /* its admission read back is still the one this engine made */
        if (wl->state == TS__ENG_WL_ASSUMED || wl->state == TS__ENG_WL_ADMITTED)
            admitted_config = wl->admitted_config;
        freed = wl_detach(e, wl);
        wl_clear(e, wl);
    } else {
        wl = ts_xcalloc(1, sizeof(*wl));
        wl->key = ts_xstrdup(key);
        wl->ns = ts_xstrdup(src->meta.namespace_);
        wl->name = ts_xstrdup(src->meta.name);
        wl->heap_pos = TS_HEAP_NOT_IN;
        ts_hmap_put(&e->workloads, key, wl);
    }
    fill(e, wl, src, inadmissible);
    if (idle) {
        wl->state = TS__ENG_WL_IDLE;
    } else if (reserved) {
        rc = put_admitted(e, wl, src, err);
        wl->admitted_config = rc ? 0 : admitted_config;
    } else {
        wl->state = TS__ENG_WL_PENDING;
        ts__eng_wl_enqueue(e, wl);
    }
    ts__eng_touch(wl);
    if (freed)
        ts__eng_requeue_tree(e, freed);
    if (rc)
        ts_err_prefix(err, "workload \"%s\"", key);
    return rc;
}

void ts_engine_delete_workload(struct ts_engine *e, const char *ns, const char *name)
{
    char key[512];
    struct ts__eng_wl *wl;
    struct ts_quota_node *freed;

    snprintf(key, sizeof(key), "%s/%s", ns, name);
    wl = ts_hmap_del(&e->workloads, key);
    if (!wl)
        return;
    ts__eng_touch(wl);
    freed = wl_detach(e, wl);
    wl_free(e, wl);
    if (freed)
        ts__eng_requeue_tree(e, freed);
}

size_t ts_engine_workload_count(const struct ts_engine *e)
{
    return e->workloads.n;
}

static struct ts__eng_wl *find(const struct ts_engine *e, const char *ns, const char *name)
{
    char key[512];

    snprintf(key, sizeof(key), "%s/%s", ns, name);
    return ts_hmap_get(&e->workloads, key);
}

void ts_engine_admit_confirm(struct ts_engine *e, const char *ns, const char *name)
{
    struct ts__eng_wl *wl = find(e, ns, name);

    if (!wl || wl->state != TS__ENG_WL_ASSUMED)
        return;
    wl->state = TS__ENG_WL_ADMITTED;
    if (wl->cq && !wl->awaiting_checks)
        wl->cq->n_admitted++;
    ts__eng_touch(wl);
}

static void release(struct ts_engine *e, struct ts__eng_wl *wl, int requeue);

void ts_engine_admit_forget(struct ts_engine *e, const char *ns, const char *name)
{
    struct ts__eng_wl *wl = find(e, ns, name);

    if (wl && wl->state == TS__ENG_WL_ASSUMED)
        release(e, wl, 1);
}

void ts_engine_admit_refused(struct ts_engine *e, const char *ns, const char *name)
{
    struct ts__eng_wl *wl = find(e, ns, name);

    if (wl && wl->state == TS__ENG_WL_ASSUMED)
        release(e, wl, 0);
}

void ts_engine_evict_forget(struct ts_engine *e, const char *ns, const char *name)
{
    struct ts__eng_wl *wl = find(e, ns, name);

    if (wl && wl->evicting) {
        wl->evicting = 0;
        if (wl->cq) {
            ts__eng_holders_changed(wl->cq);
            ts__eng_requeue_tree(e, &wl->cq->node); /* its preemptor may be parked */
        }
    }
}

int ts_engine_verdict(const struct ts_engine *e, const char *ns, const char *name,
                      const char **reason, const char **message)
{
    const struct ts__eng_wl *wl = find(e, ns, name);

    if (!wl || wl->state != TS__ENG_WL_PENDING || !wl->last_reason)
        return TS_ENOTFOUND;
    *reason = wl->last_reason;
    *message = wl->last_message ? wl->last_message : "";
    return 0;
}

void ts_engine_release(struct ts_engine *e, const char *ns, const char *name)
{
    struct ts__eng_wl *wl = find(e, ns, name);

    if (wl && (wl->state == TS__ENG_WL_ASSUMED || wl->state == TS__ENG_WL_ADMITTED))
        release(e, wl, 1);
}

/* Drops the quota wl holds and queues it again, or (requeue 0) holds it
 * idle until its object is put again. */
static void release(struct ts_engine *e, struct ts__eng_wl *wl, int requeue)
{
    struct ts_quota_node *freed;

    ts__eng_touch(wl);
    freed = wl_detach(e, wl);
    ts__eng_psa_free(wl->admission, wl->n_podsets);
    wl->admission = NULL;
    free(wl->admission_cq);
    wl->admission_cq = NULL;
    wl->state = requeue ? TS__ENG_WL_PENDING : TS__ENG_WL_IDLE;
    if (requeue)
        ts__eng_wl_enqueue(e, wl);
    ts__eng_touch(wl);
    if (freed)
        ts__eng_requeue_tree(e, freed);
}

void ts__eng_free_workloads(struct ts_engine *e)
{
    size_t it = 0;
    const char *k;
    void *v;

    while (ts_hmap_next(&e->workloads, &it, &k, &v)) {
        struct ts__eng_wl *wl = v;

        unqueue(wl);
        wl_free(e, wl);
    }
    ts_hmap_release(&e->workloads);
    ts_hmap_release(&e->by_lq); /* emptied by wl_free() */
    free(e->dirty);
    e->dirty = NULL;
    e->n_dirty = e->cap_dirty = 0;
}

int ts_engine_cq_stats(const struct ts_engine *e, const char *name, struct ts_engine_cq_stats *out)
{
    const struct ts__eng_cq *cq = ts_hmap_get(&e->cqs, name);

    if (!cq)
        return TS_ENOTFOUND;
    out->pending = cq->pending.n + cq->n_inadmissible;
    out->reserving = cq->n_reserving;
    out->admitted = cq->n_admitted;
    return 0;
}

int ts_engine_usage(const struct ts_engine *e, const char *node, int is_cohort, const char *flavor,
                    const char *resource, int64_t *out)
{
    long fr = ts__eng_find_fr(e, flavor, resource);
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
    *out = fr >= 0 && (size_t)fr < n->nfr ? ts_quota_usage(n, fr) : 0;
    return 0;
}
