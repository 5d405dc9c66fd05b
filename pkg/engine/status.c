#include "engine/status.h"

#include "engine/amount.h"
#include "engine/engine_int.h"
#include "util/alloc.h"
#include "util/buf.h"

#include <stdlib.h>
#include <string.h>

/* What admitted (confirmed) workloads hold per flavor-resource. */
static int64_t *admitted_usage(const struct ts_engine *e, const struct ts__eng_cq *cq)
{
    int64_t *sum = ts_xcalloc(e->nfr + 1, sizeof(*sum));

    for (size_t h = 0; h < cq->n_holders; h++) {
        const struct ts__eng_wl *wl = cq->holders[h];

        if (wl->state != TS__ENG_WL_ADMITTED || wl->awaiting_checks)
            continue;
        for (size_t p = 0; p < wl->n_podsets; p++)
            for (size_t j = 0; j < wl->admission[p].n; j++)
                sum[wl->admission[p].fr[j]] =
                    ts_amount_add(sum[wl->admission[p].fr[j]], wl->admission[p].amount[j]);
    }
    return sum;
}

static void put_usage(struct ts_flavor_usages *u, const struct ts_engine *e, size_t fr,
                      int64_t total, int64_t nominal)
{
    const char *res = e->resource_names[e->fr_resource[fr]];
    struct ts_resource_usage *ru = ts_flavor_usages_at(u, e->fr_flavor[fr], res);

    ru->total = ts_amount_quantity(res, total);
    ru->borrowed = ts_amount_quantity(res, total > nominal ? total - nominal : 0);
}

static void usages(const struct ts_engine *e, const struct ts__eng_cq *cq,
                   struct ts_cluster_queue_status *st)
{
    int64_t *adm = admitted_usage(e, cq);

    ts_flavor_usages_release(&st->flavors_reservation);
    ts_flavor_usages_release(&st->flavors_usage);
    for (size_t g = 0; g < cq->n_rgs; g++) {
        for (size_t f = 0; f < cq->rgs[g].n_flavors; f++) {
            for (size_t r = 0; r < cq->rgs[g].n_covered; r++) {
                size_t fr = cq->rgs[g].flavors[f].fr[r];

                put_usage(&st->flavors_reservation, e, fr, ts_quota_usage(&cq->node, fr),
                          cq->node.nominal[fr]);
                put_usage(&st->flavors_usage, e, fr, adm[fr], cq->node.nominal[fr]);
            }
        }
    }
    free(adm);
}

/* Kueue's inactiveReason (pkg/cache/scheduler/clusterqueue.go): every
 * cause in its order, the first one's reason, their messages joined. */
static void active(const struct ts_engine *e, const struct ts__eng_cq *cq, ts_time now,
                   struct ts_cluster_queue_status *st)
{
    struct ts_buf msg = TS_BUF_INIT, missing = TS_BUF_INIT, bad = TS_BUF_INIT;
    const char *reason = NULL;

    for (size_t g = 0; g < cq->n_rgs; g++) {
        for (size_t f = 0; f < cq->rgs[g].n_flavors; f++) {
            if (!ts_hmap_get(&e->flavors, cq->rgs[g].flavors[f].name))
                ts_buf_addf(&missing, "%s%s", missing.len ? "," : "", cq->rgs[g].flavors[f].name);
        }
    }
    if (cq->terminating) {
        reason = "Terminating";
        ts_buf_adds(&msg, "Can't admit new workloads; clusterQueue is terminating");
    } else {
        if (cq->stopped) {
            reason = "Stopped";
            ts_buf_adds(&msg, "is stopped");
        }
        if (missing.len) {
            reason = reason ? reason : "FlavorNotFound";
            ts_buf_addf(&msg, "%sreferences missing ResourceFlavor(s): %s", msg.len ? ", " : "",
                        missing.ptr);
        }
        if (ts__eng_cq_bad_checks(e, cq, 0, &bad)) {
            reason = reason ? reason : "AdmissionCheckNotFound";
            ts_buf_addf(&msg, "%sreferences missing AdmissionCheck(s): %s", msg.len ? ", " : "",
                        bad.ptr);
        }
        ts_buf_reset(&bad);
        if (ts__eng_cq_bad_checks(e, cq, 1, &bad)) {
            reason = reason ? reason : "AdmissionCheckInactive";
            ts_buf_addf(&msg, "%sreferences inactive AdmissionCheck(s): %s", msg.len ? ", " : "",
                        bad.ptr);
        }
    }
    if (reason && !cq->terminating) {
        struct ts_buf full = TS_BUF_INIT;

        ts_buf_addf(&full, "Can't admit new workloads: %s.", msg.ptr);
        ts_conditions_set(&st->conditions, "Active", "False", reason, full.ptr, 0, now);
        ts_buf_release(&full);
    } else if (reason) {
        ts_conditions_set(&st->conditions, "Active", "False", reason, msg.ptr, 0, now);
    } else {
        ts_conditions_set(&st->conditions, "Active", "True", "Ready", "Can admit new workloads", 0,
                          now);
    }
    ts_buf_release(&msg);
    ts_buf_release(&missing);
    ts_buf_release(&bad);
}

int ts_engine_cq_status(const struct ts_engine *e, const char *name, ts_time now,
                        struct ts_cluster_queue_status *st)
{
    const struct ts__eng_cq *cq = ts_hmap_get(&e->cqs, name);

    if (!cq)
        return TS_ENOTFOUND;
    st->pending_workloads = (int32_t)(cq->pending.n + cq->n_inadmissible);
    st->reserving_workloads = (int32_t)cq->n_reserving;
    st->admitted_workloads = (int32_t)cq->n_admitted;
    usages(e, cq, st);
    active(e, cq, now, st);
    if (e->config.fair_sharing) {
        st->fair_sharing.set = 1;
        st->fair_sharing.weighted_share = ts__eng_weighted_share(e, &cq->node);
    }
    return 0;
}

int ts_engine_cq_pending(const struct ts_engine *e, const char *name, size_t *active,
                         size_t *inadmissible)
{
    const struct ts__eng_cq *cq = ts_hmap_get(&e->cqs, name);

    if (!cq)
        return TS_ENOTFOUND;
    *active = cq->pending.n;
    *inadmissible = cq->n_inadmissible;
    return 0;
}

int ts_engine_cohort_status(const struct ts_engine *e, const char *name,
                            struct ts_cohort_status *st)
{
    const struct ts__eng_cohort *co = ts_hmap_get(&e->cohorts, name);

    if (!co)
        return TS_ENOTFOUND;
    if (e->config.fair_sharing) {
        st->fair_sharing.set = 1;
        st->fair_sharing.weighted_share = ts__eng_weighted_share(e, &co->node);
    }
    return 0;
}

void ts_engine_lq_pending(const struct ts_engine *e, const char *ns, const char *name,
                          size_t *active, size_t *inadmissible)
{
    const struct ts__eng_members *m = ts__eng_lq_members(e, ns, name);

    *active = *inadmissible = 0;
    for (size_t i = 0; m && i < m->n; i++) {
        const struct ts__eng_wl *wl = m->items[i];

        if (wl->state != TS__ENG_WL_PENDING)
            continue;
        if (wl->inadmissible)
            ++*inadmissible;
        else
            ++*active;
    }
}

/* Sums what the workloads of one LocalQueue hold (reserved and admitted)
 * and counts them. */
static void lq_scan(const struct ts_engine *e, const char *ns, const char *name, int64_t *reserved,
                    int64_t *admitted, struct ts_local_queue_status *st)
{
    const struct ts__eng_members *m = ts__eng_lq_members(e, ns, name);

    for (size_t i = 0; m && i < m->n; i++) {
        const struct ts__eng_wl *wl = m->items[i];
        int holds = wl->state == TS__ENG_WL_ASSUMED || wl->state == TS__ENG_WL_ADMITTED;

        if (wl->state == TS__ENG_WL_PENDING)
            st->pending_workloads++;
        if (!holds || !wl->admission)
            continue;
        st->reserving_workloads++;
        if (wl->state == TS__ENG_WL_ADMITTED && !wl->awaiting_checks)
            st->admitted_workloads++;
        for (size_t p = 0; p < wl->n_podsets; p++) {
            for (size_t j = 0; j < wl->admission[p].n; j++) {
                size_t fr = wl->admission[p].fr[j];

                reserved[fr] = ts_amount_add(reserved[fr], wl->admission[p].amount[j]);
                if (wl->state == TS__ENG_WL_ADMITTED && !wl->awaiting_checks)
                    admitted[fr] = ts_amount_add(admitted[fr], wl->admission[p].amount[j]);
            }
        }
    }
}

static void put_total(struct ts_flavor_usages *u, const struct ts_engine *e, size_t fr,
                      int64_t total)
{
    const char *res = e->resource_names[e->fr_resource[fr]];

    ts_flavor_usages_at(u, e->fr_flavor[fr], res)->total = ts_amount_quantity(res, total);
}

int ts_engine_lq_status(const struct ts_engine *e, const char *ns, const char *name, ts_time now,
                        struct ts_local_queue_status *st)
{
    const struct ts__eng_lq *lq;
    const struct ts__eng_cq *cq;
    int64_t *reserved, *admitted;
    struct ts_buf key = TS_BUF_INIT;

    ts_buf_addf(&key, "%s/%s", ns, name);
    lq = ts_hmap_get(&e->lqs, key.ptr);
    ts_buf_release(&key);
    if (!lq)
        return TS_ENOTFOUND;
    /* an LQ may name no ClusterQueue at all (found by test/e2e/bad_input) */
    cq = lq->cq_name ? ts_hmap_get(&e->cqs, lq->cq_name) : NULL;
    reserved = ts_xcalloc(e->nfr + 1, sizeof(*reserved));
    admitted = ts_xcalloc(e->nfr + 1, sizeof(*admitted));
    st->pending_workloads = st->reserving_workloads = st->admitted_workloads = 0;
    lq_scan(e, ns, name, reserved, admitted, st);
    ts_flavor_usages_release(&st->flavors_reservation);
    ts_flavor_usages_release(&st->flavors_usage);
    for (size_t g = 0; cq && g < cq->n_rgs; g++) {
        for (size_t f = 0; f < cq->rgs[g].n_flavors; f++) {
            for (size_t r = 0; r < cq->rgs[g].n_covered; r++) {
                size_t fr = cq->rgs[g].flavors[f].fr[r];

                put_total(&st->flavors_reservation, e, fr, reserved[fr]);
                put_total(&st->flavors_usage, e, fr, admitted[fr]);
            }
        }
    }
    free(reserved);
    free(admitted);
    if (lq->stopped)
        ts_conditions_set(&st->conditions, "Active", "False", "Stopped", "LocalQueue is stopped", 0,
                          now);
    else if (!cq || ts__eng_cq_inactive(e, cq))
        ts_conditions_set(&st->conditions, "Active", "False",
                          cq ? "ClusterQueueIsInactive" : "ClusterQueueDoesNotExist",
                          "Can't submit new workloads to clusterQueue", 0, now);
    else
        ts_conditions_set(&st->conditions, "Active", "True", "Ready",
                          "Can submit new workloads to localQueue", 0, now);
    return 0;
}

int ts_engine_cq_status_version(const struct ts_engine *e, const char *name,
                                struct ts_status_version *v)
{
    const struct ts__eng_cq *cq = ts_hmap_get(&e->cqs, name);

    if (!cq)
        return TS_ENOTFOUND;
    v->epoch = e->status_epoch;
    v->seq = cq->status_seq;
    v->parking = cq->parking_seq;
    return e->config.fair_sharing ? 1 : 0;
}

void ts_engine_lq_status_version(const struct ts_engine *e, const char *ns, const char *name,
                                 struct ts_status_version *v)
{
    const struct ts__eng_members *m = ts__eng_lq_members(e, ns, name);

    v->epoch = e->status_epoch;
    v->seq = m ? m->status_seq : 0;
    v->parking = m ? m->parking_seq : 0;
}

/* Calls fn for LocalQueue key ("ns/name"). */
static void lq_moved(const char *key, ts_engine_queue_fn fn, void *data)
{
    const char *slash = strchr(key, '/');
    char ns[256];

    if (!slash || (size_t)(slash - key) >= sizeof(ns))
        return;
    memcpy(ns, key, (size_t)(slash - key));
    ns[slash - key] = '\0';
    fn(ns, slash + 1, data);
}

int ts_engine_status_moved(struct ts_engine *e, ts_engine_queue_fn fn, void *data)
{
    /* with fair sharing a queue's share moves with its whole cohort tree */
    int all = e->config.fair_sharing || e->status_epoch_told != e->status_epoch + 1;
    size_t it = 0;
    const char *k;
    void *v;

    /* told + 1: the first call reports every queue even at epoch 0 */
    e->status_epoch_told = e->status_epoch + 1;
    /* both sequences only grow: their sum moves when either does */
    while (ts_hmap_next(&e->cqs, &it, &k, &v)) {
        struct ts__eng_cq *cq = v;
        uint64_t sum = cq->status_seq + cq->parking_seq;

        if (sum != cq->status_told && !all)
            fn(NULL, cq->name, data);
        cq->status_told = sum;
    }
    it = 0;
    while (ts_hmap_next(&e->by_lq, &it, &k, &v)) {
        struct ts__eng_members *m = v;
        uint64_t sum = m->status_seq + m->parking_seq;

        if (sum != m->status_told && !all)
            lq_moved(k, fn, data);
        m->status_told = sum;
    }
    it = 0;
    while (!all && ts_hmap_next(&e->status_gone, &it, &k, &v)) {
        if (!ts_hmap_get(&e->by_lq, k)) /* else named above */
            lq_moved(k, fn, data);
    }
    ts_hmap_release(&e->status_gone);
    return all;
}
