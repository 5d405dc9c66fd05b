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

        if (wl->state != TS__ENG_WL_ADMITTED)
            continue;
        for (size_t p = 0; p < wl->n_podsets; p++)
            for (size_t j = 0; j < wl->admission[p].n; j++)
                sum[wl->admission[p].fr[j]] += wl->admission[p].amount[j];
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

                put_usage(&st->flavors_reservation, e, fr, cq->node.usage[fr],
                          cq->node.nominal[fr]);
                put_usage(&st->flavors_usage, e, fr, adm[fr], cq->node.nominal[fr]);
            }
        }
    }
    free(adm);
}

static void active(const struct ts_engine *e, const struct ts__eng_cq *cq, ts_time now,
                   struct ts_cluster_queue_status *st)
{
    struct ts_buf msg = TS_BUF_INIT, missing = TS_BUF_INIT;
    const char *reason = NULL;

    for (size_t g = 0; g < cq->n_rgs; g++) {
        for (size_t f = 0; f < cq->rgs[g].n_flavors; f++) {
            if (!ts_hmap_get(&e->flavors, cq->rgs[g].flavors[f].name))
                ts_buf_addf(&missing, "%s%s", missing.len ? " " : "", cq->rgs[g].flavors[f].name);
        }
    }
    if (cq->stopped) {
        reason = "Stopped";
        ts_buf_adds(&msg, "Can't admit new workloads: is stopped.");
    } else if (missing.len) {
        reason = "FlavorNotFound";
        ts_buf_addf(&msg, "Can't admit new workloads: references missing ResourceFlavor(s): [%s].",
                    missing.ptr);
    }
    if (reason)
        ts_conditions_set(&st->conditions, "Active", "False", reason, msg.ptr, 0, now);
    else
        ts_conditions_set(&st->conditions, "Active", "True", "Ready", "Can admit new workloads", 0,
                          now);
    ts_buf_release(&msg);
    ts_buf_release(&missing);
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
        st->fair_sharing.weighted_share = ts__eng_drs(e, &cq->node, NULL);
    }
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
        st->fair_sharing.weighted_share = ts__eng_drs(e, &co->node, NULL);
    }
    return 0;
}
