/*
 * kueue.c - Kueue's metrics as typed calls for the controller (see
 * kueue.h); the families themselves are described in kueue_defs.c.
 */
#include "metrics/kueue.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/kueue_int.h"
#include "util/alloc.h"
#include "util/log.h"

#define DEFS ts__kmetrics_defs

struct ts_kmetrics {
    struct ts_metrics_family *f[TS__KM_N];
    size_t n_labels[TS__KM_N]; /* without replica_role */
    char *role;                /* read and written by the loop thread only */
};

/* Label values as a compound literal: V(cq, "active"). */
#define V(...) ((const char *const[]){__VA_ARGS__})

static const char *const cq_statuses[] = {"pending", "active", "terminating"};
static const char *const lq_actives[] = {"True", "False", "Unknown"};

static int valid_role(const char *role)
{
    return role && (strcmp(role, "standalone") == 0 || strcmp(role, "leader") == 0 ||
                    strcmp(role, "follower") == 0);
}

/* Kueue's generateExponentialBuckets(n): 1, then 2.5 doubling (n-1 of
 * them); the creation latency uses ExponentialBuckets(0.01, 2, 11).
 * Computed by repeated multiplication as Go does, so the bounds are the
 * same doubles. */
static size_t bucket_layout(enum ts__km_buckets layout, double out[16])
{
    size_t n = 0;
    double b;

    if (layout == TS__KM_CREATION) {
        for (b = 0.01; n < 11; b *= 2)
            out[n++] = b;
        return n;
    }
    out[n++] = 1;
    for (b = 2.5; n < (layout == TS__KM_EXP14 ? 14u : 16u); b *= 2)
        out[n++] = b;
    return n;
}

static int register_one(struct ts_metrics_registry *reg, struct ts_kmetrics *m, enum ts__km id,
                        struct ts_err *err)
{
    const struct ts__km_def *d = &DEFS[id];
    const char *labels[TS_METRICS_MAX_LABELS + 1];
    double bounds[16];
    struct ts_metrics_desc desc = {d->kind, d->name, d->help, labels, 0, bounds, 0};
    size_t n = 0;

    while (n < TS_METRICS_MAX_LABELS && d->labels[n]) {
        labels[n] = d->labels[n];
        n++;
    }
    m->n_labels[id] = n;
    if (!d->no_role)
        labels[n++] = "replica_role";
    desc.n_labels = n;
    if (d->buckets == TS__KM_DEFAULT_BUCKETS)
        desc.buckets = ts_metrics_default_buckets(&desc.n_buckets);
    else if (d->buckets != TS__KM_NO_BUCKETS)
        desc.n_buckets = bucket_layout(d->buckets, bounds);
    return ts_metrics_family_add(reg, &desc, &m->f[id], err);
}

int ts_kmetrics_new(struct ts_metrics_registry *reg, const char *role, struct ts_kmetrics **out,
                    struct ts_err *err)
{
    struct ts_kmetrics *m;
    int rc = 0;

    *out = NULL;
    if (!valid_role(role))
        return ts_err_set(err, TS_EINVAL, "invalid replica role '%s'", role ? role : "");
    for (int id = 0; id < TS__KM_N; id++) /* all or nothing: the registry has no removal */
        if (ts_metrics_family_find(reg, DEFS[id].name))
            return ts_err_set(err, TS_EEXIST, "metric '%s' is already registered", DEFS[id].name);
    m = ts_xcalloc(1, sizeof(*m));
    m->role = ts_xstrdup(role);
    for (int id = 0; id < TS__KM_N && !rc; id++)
        rc = register_one(reg, m, (enum ts__km)id, err);
    TS_BUG_ON(rc); /* the table is valid and the names were free */
    *out = m;
    return 0;
}

void ts_kmetrics_free(struct ts_kmetrics *m)
{
    if (!m)
        return;
    free(m->role);
    free(m);
}

/* --- the three updates, with replica_role appended -------------------------------- */

static const char *const *with_role(const struct ts_kmetrics *m, enum ts__km id,
                                    const char *const *v, const char **buf)
{
    size_t n = m->n_labels[id];

    memcpy(buf, v, n * sizeof(*buf));
    buf[n] = m->role;
    return buf;
}

static void inc(struct ts_kmetrics *m, enum ts__km id, const char *const *v)
{
    const char *buf[TS_METRICS_MAX_LABELS];

    ts_metrics_counter_add(m->f[id], with_role(m, id, v, buf), 1);
}

static void set(struct ts_kmetrics *m, enum ts__km id, const char *const *v, double x)
{
    const char *buf[TS_METRICS_MAX_LABELS];

    ts_metrics_gauge_set(m->f[id], with_role(m, id, v, buf), x);
}

static void observe(struct ts_kmetrics *m, enum ts__km id, const char *const *v, double x)
{
    const char *buf[TS_METRICS_MAX_LABELS];

    ts_metrics_histogram_observe(m->f[id], with_role(m, id, v, buf), x);
}

int ts_kmetrics_set_role(struct ts_kmetrics *m, const char *role)
{
    if (!valid_role(role))
        return TS_EINVAL;
    if (strcmp(role, m->role) == 0)
        return 0;
    for (int id = 0; id < TS__KM_N; id++)
        if (!DEFS[id].no_role)
            ts_metrics_delete_matching(m->f[id], NULL, NULL, 0);
    free(m->role);
    m->role = ts_xstrdup(role);
    return 0;
}

void ts_kmetrics_build_info(struct ts_kmetrics *m, const char *git_version, const char *git_commit,
                            const char *build_date, const char *go_version, const char *compiler,
                            const char *platform)
{
    ts_metrics_delete_matching(m->f[TS__KM_BUILD_INFO], NULL, NULL, 0); /* one series only */
    ts_metrics_gauge_set(m->f[TS__KM_BUILD_INFO],
                         V(git_version, git_commit, build_date, go_version, compiler, platform), 1);
}

/* --- scheduling cycle ------------------------------------------------------------- */

void ts_kmetrics_admission_attempt(struct ts_kmetrics *m, int admitted_any, double seconds)
{
    const char *result = admitted_any ? "success" : "inadmissible";

    inc(m, TS__KM_ATTEMPTS, V(result));
    observe(m, TS__KM_ATTEMPT_DURATION, V(result), seconds);
}

void ts_kmetrics_preemption_skips(struct ts_kmetrics *m, const char *cq, double n)
{
    set(m, TS__KM_PREEMPTION_SKIPS, V(cq), n);
}

void ts_kmetrics_preemption_recomputed(struct ts_kmetrics *m, const char *cq, const char *result)
{
    inc(m, TS__KM_RECOMPUTATIONS, V(cq, result));
}

/* --- workload lifecycle ----------------------------------------------------------- */

void ts_kmetrics_workload_created(struct ts_kmetrics *m, const char *job_kind, double latency_s)
{
    observe(m, TS__KM_CREATION_LATENCY, V(job_kind), latency_s);
}

/* One counter and one histogram, for the ClusterQueue and (when given) the
 * LocalQueue: the shape of most lifecycle events. */
static void lifecycle(struct ts_kmetrics *m, const struct ts_kmetrics_wl *w, enum ts__km total,
                      enum ts__km hist, enum ts__km lq_total, enum ts__km lq_hist, double seconds)
{
    const char *const cq[] = {w->cluster_queue, w->priority_class};
    const char *const lq[] = {w->lq_name, w->lq_namespace, w->priority_class};

    if (total != TS__KM_N)
        inc(m, total, cq);
    observe(m, hist, cq, seconds);
    if (!w->lq_name)
        return;
    if (lq_total != TS__KM_N)
        inc(m, lq_total, lq);
    observe(m, lq_hist, lq, seconds);
}

void ts_kmetrics_quota_reserved(struct ts_kmetrics *m, const struct ts_kmetrics_wl *w,
                                double wait_s)
{
    lifecycle(m, w, TS__KM_QR_TOTAL, TS__KM_QR_WAIT, TS__KM_LQ_QR_TOTAL, TS__KM_LQ_QR_WAIT, wait_s);
}

void ts_kmetrics_admitted(struct ts_kmetrics *m, const struct ts_kmetrics_wl *w, double wait_s,
                          const char *const *cohorts, size_t n_cohorts)
{
    lifecycle(m, w, TS__KM_ADMITTED_TOTAL, TS__KM_ADMISSION_WAIT, TS__KM_LQ_ADMITTED_TOTAL,
              TS__KM_LQ_ADMISSION_WAIT, wait_s);
    for (size_t i = 0; i < n_cohorts; i++)
        inc(m, TS__KM_COHORT_ADMITTED_TOTAL, V(cohorts[i], w->priority_class));
}

void ts_kmetrics_admission_checks_waited(struct ts_kmetrics *m, const struct ts_kmetrics_wl *w,
                                         double wait_s)
{
    lifecycle(m, w, TS__KM_N, TS__KM_CHECKS_WAIT, TS__KM_N, TS__KM_LQ_CHECKS_WAIT, wait_s);
}

void ts_kmetrics_pods_ready(struct ts_kmetrics *m, const struct ts_kmetrics_wl *w,
                            double ready_wait_s, double since_admitted_s)
{
    lifecycle(m, w, TS__KM_N, TS__KM_READY_WAIT, TS__KM_N, TS__KM_LQ_READY_WAIT, ready_wait_s);
    lifecycle(m, w, TS__KM_N, TS__KM_ADMITTED_UNTIL_READY, TS__KM_N, TS__KM_LQ_ADMITTED_UNTIL_READY,
              since_admitted_s);
}

void ts_kmetrics_finished(struct ts_kmetrics *m, const struct ts_kmetrics_wl *w, double execution_s)
{
    lifecycle(m, w, TS__KM_FINISHED_TOTAL, TS__KM_EXECUTION, TS__KM_LQ_FINISHED_TOTAL,
              TS__KM_LQ_EXECUTION, execution_s);
}

void ts_kmetrics_evicted(struct ts_kmetrics *m, const struct ts_kmetrics_wl *w, const char *reason,
                         const char *underlying_cause, int first)
{
    const char *const cq[] = {w->cluster_queue, reason, underlying_cause, w->priority_class};

    inc(m, TS__KM_EVICTED_TOTAL, cq);
    if (first)
        inc(m, TS__KM_EVICTED_ONCE_TOTAL, cq);
    if (w->lq_name)
        inc(m, TS__KM_LQ_EVICTED_TOTAL,
            V(w->lq_name, w->lq_namespace, reason, underlying_cause, w->priority_class));
}

void ts_kmetrics_pods_ready_to_evicted(struct ts_kmetrics *m, const char *cq, const char *reason,
                                       const char *underlying_cause, double seconds)
{
    observe(m, TS__KM_READY_TO_EVICTED, V(cq, reason, underlying_cause), seconds);
}

void ts_kmetrics_eviction_latency(struct ts_kmetrics *m, const char *cq, const char *reason,
                                  double seconds)
{
    observe(m, TS__KM_EVICTION_LATENCY, V(cq, reason), seconds);
}

void ts_kmetrics_preempted(struct ts_kmetrics *m, const char *preempting_cq, const char *reason)
{
    inc(m, TS__KM_PREEMPTED_TOTAL, V(preempting_cq, reason));
}

void ts_kmetrics_slice_replaced(struct ts_kmetrics *m, const char *cq)
{
    inc(m, TS__KM_SLICES_REPLACED, V(cq));
}

/* --- ClusterQueue and Cohort gauges ---------------------------------------------- */

void ts_kmetrics_pending(struct ts_kmetrics *m, const char *cq, double active, double inadmissible)
{
    set(m, TS__KM_PENDING, V(cq, "active"), active);
    set(m, TS__KM_PENDING, V(cq, "inadmissible"), inadmissible);
}

void ts_kmetrics_pending_hashes(struct ts_kmetrics *m, const char *cq, double active,
                                double inadmissible)
{
    set(m, TS__KM_PENDING_HASHES, V(cq, "active"), active);
    set(m, TS__KM_PENDING_HASHES, V(cq, "inadmissible"), inadmissible);
}

void ts_kmetrics_reserving_active(struct ts_kmetrics *m, const char *cq, double n)
{
    set(m, TS__KM_RESERVING_ACTIVE, V(cq), n);
}

void ts_kmetrics_admitted_active(struct ts_kmetrics *m, const char *cq, double n)
{
    set(m, TS__KM_ADMITTED_ACTIVE, V(cq), n);
}

void ts_kmetrics_finished_count(struct ts_kmetrics *m, const char *cq, double n)
{
    set(m, TS__KM_FINISHED, V(cq), n);
}

void ts_kmetrics_cq_status(struct ts_kmetrics *m, const char *cq, enum ts_kmetrics_cq_status st)
{
    for (size_t i = 0; i < sizeof(cq_statuses) / sizeof(cq_statuses[0]); i++)
        set(m, TS__KM_CQ_STATUS, V(cq, cq_statuses[i]), i == (size_t)st);
}

void ts_kmetrics_unadmitted(struct ts_kmetrics *m, const char *cq, const char *reason,
                            const char *underlying_cause, double n)
{
    set(m, TS__KM_UNADMITTED, V(cq, reason, underlying_cause), n);
}

void ts_kmetrics_cq_resource(struct ts_kmetrics *m, const char *cq, const char *cohort,
                             const char *flavor, const char *resource, double usage,
                             double reservation, double nominal, double borrowing_limit,
                             double lending_limit)
{
    const char *const v[] = {cohort, cq, flavor, resource};

    set(m, TS__KM_CQ_USAGE, v, usage);
    set(m, TS__KM_CQ_RESERVATION, v, reservation);
    set(m, TS__KM_CQ_NOMINAL, v, nominal);
    if (!isnan(borrowing_limit))
        set(m, TS__KM_CQ_BORROWING, v, borrowing_limit);
    if (!isnan(lending_limit))
        set(m, TS__KM_CQ_LENDING, v, lending_limit);
}

void ts_kmetrics_cq_resource_pending(struct ts_kmetrics *m, const char *cq, const char *resource,
                                     double v)
{
    set(m, TS__KM_CQ_PENDING_RESOURCE, V(cq, resource), v);
}

void ts_kmetrics_weighted_share(struct ts_kmetrics *m, const char *cq, const char *cohort, double v)
{
    set(m, TS__KM_CQ_WEIGHTED_SHARE, V(cq, cohort), v);
}

void ts_kmetrics_cohort_weighted_share(struct ts_kmetrics *m, const char *cohort, double v)
{
    set(m, TS__KM_COHORT_WEIGHTED_SHARE, V(cohort), v);
}

void ts_kmetrics_cohort_resource(struct ts_kmetrics *m, const char *cohort, const char *flavor,
                                 const char *resource, double subtree_quota, double reservations)
{
    set(m, TS__KM_COHORT_QUOTA, V(cohort, flavor, resource), subtree_quota);
    set(m, TS__KM_COHORT_RESERVATIONS, V(cohort, flavor, resource), reservations);
}

void ts_kmetrics_cohort_admitted_active(struct ts_kmetrics *m, const char *cohort, double n)
{
    set(m, TS__KM_COHORT_ADMITTED_ACTIVE, V(cohort), n);
}

/* --- LocalQueue gauges ------------------------------------------------------------ */

void ts_kmetrics_lq_pending(struct ts_kmetrics *m, const char *ns, const char *lq, double active,
                            double inadmissible)
{
    set(m, TS__KM_LQ_PENDING, V(lq, ns, "active"), active);
    set(m, TS__KM_LQ_PENDING, V(lq, ns, "inadmissible"), inadmissible);
}

void ts_kmetrics_lq_reserving_active(struct ts_kmetrics *m, const char *ns, const char *lq,
                                     double n)
{
    set(m, TS__KM_LQ_RESERVING_ACTIVE, V(lq, ns), n);
}

void ts_kmetrics_lq_admitted_active(struct ts_kmetrics *m, const char *ns, const char *lq, double n)
{
    set(m, TS__KM_LQ_ADMITTED_ACTIVE, V(lq, ns), n);
}

void ts_kmetrics_lq_finished_count(struct ts_kmetrics *m, const char *ns, const char *lq, double n)
{
    set(m, TS__KM_LQ_FINISHED, V(lq, ns), n);
}

void ts_kmetrics_lq_status(struct ts_kmetrics *m, const char *ns, const char *lq,
                           enum ts_kmetrics_lq_active st)
{
    for (size_t i = 0; i < sizeof(lq_actives) / sizeof(lq_actives[0]); i++)
        set(m, TS__KM_LQ_STATUS, V(lq, ns, lq_actives[i]), i == (size_t)st);
}

void ts_kmetrics_lq_unadmitted(struct ts_kmetrics *m, const char *ns, const char *lq,
                               const char *cq, const char *reason, const char *underlying_cause,
                               double n)
{
    set(m, TS__KM_LQ_UNADMITTED, V(lq, ns, cq, reason, underlying_cause), n);
}

void ts_kmetrics_lq_resource(struct ts_kmetrics *m, const char *ns, const char *lq,
                             const char *flavor, const char *resource, double usage,
                             double reservation)
{
    set(m, TS__KM_LQ_USAGE, V(lq, ns, flavor, resource), usage);
    set(m, TS__KM_LQ_RESERVATION, V(lq, ns, flavor, resource), reservation);
}

void ts_kmetrics_lq_fair_sharing_usage(struct ts_kmetrics *m, const char *ns, const char *lq,
                                       const char *cq, double v)
{
    set(m, TS__KM_LQ_FAIR_SHARING_USAGE, V(lq, ns, cq), v);
}

/* --- deletion ----------------------------------------------------------------------- */

/* Drops the series whose `label` is `value` in every family (a family
 * without that label keeps everything). */
static void forget(struct ts_kmetrics *m, const char *label, const char *value)
{
    for (int id = 0; id < TS__KM_N; id++)
        ts_metrics_delete_matching(m->f[id], V(label), V(value), 1);
}

void ts_kmetrics_forget_cq(struct ts_kmetrics *m, const char *cq)
{
    forget(m, "cluster_queue", cq);
    forget(m, "preempting_cluster_queue", cq);
}

void ts_kmetrics_forget_cq_resources(struct ts_kmetrics *m, const char *cq)
{
    static const enum ts__km ids[] = {TS__KM_CQ_RESERVATION,   TS__KM_CQ_USAGE,
                                      TS__KM_CQ_NOMINAL,       TS__KM_CQ_BORROWING,
                                      TS__KM_CQ_LENDING,       TS__KM_CQ_PENDING_RESOURCE,
                                      TS__KM_CQ_WEIGHTED_SHARE};

    for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
        ts_metrics_delete_matching(m->f[ids[i]], V("cluster_queue"), V(cq), 1);
}

void ts_kmetrics_forget_lq(struct ts_kmetrics *m, const char *ns, const char *lq)
{
    for (int id = 0; id < TS__KM_N; id++) /* only local_queue_* have both labels */
        ts_metrics_delete_matching(m->f[id], V("name", "namespace"), V(lq, ns), 2);
}

void ts_kmetrics_forget_cohort(struct ts_kmetrics *m, const char *cohort)
{
    for (int id = 0; id < TS__KM_N; id++) /* the ClusterQueues' cohort label stays */
        if (strncmp(DEFS[id].name, "kueue_cohort_", 13) == 0)
            ts_metrics_delete_matching(m->f[id], V("cohort"), V(cohort), 1);
}
