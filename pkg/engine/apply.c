#include "engine/apply.h"

#include "api/workload_checks.h"
#include "engine/amount.h"
#include "util/alloc.h"
#include "util/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "Previously: <msg>" on conditions a new reservation supersedes. */
static void supersede(struct ts_workload *wl, const char *type, ts_time now)
{
    const struct ts_condition *c = ts_conditions_find(&wl->status.conditions, type);
    struct ts_buf msg = TS_BUF_INIT;

    if (!c || !c->status || strcmp(c->status, "True"))
        return;
    ts_buf_addf(&msg, "Previously: %s", c->message ? c->message : "");
    ts_conditions_set(&wl->status.conditions, type, "False", TS_WL_REASON_QUOTA_RESERVED, msg.ptr,
                      wl->meta.generation, now);
    ts_buf_release(&msg);
}

static struct ts_admission *admission_of(const struct ts_decision *d)
{
    struct ts_admission *a = ts_admission_new();

    free(a->cluster_queue);
    a->cluster_queue = ts_xstrdup(d->cluster_queue ? d->cluster_queue : "");
    for (size_t i = 0; i < d->n_podsets; i++) {
        const struct ts_decision_podset *p = &d->podsets[i];
        struct ts_podset_assignment *pa = ts_admission_add(a, p->name);

        pa->count.set = 1;
        pa->count.v = p->count;
        for (size_t r = 0; r < p->n_resources; r++) {
            struct ts_quantity q = ts_amount_quantity(p->resources[r], p->usage[r]);

            ts_strmap_set(&pa->flavors, p->resources[r], p->flavors[r]);
            ts_resource_list_set(&pa->resource_usage, p->resources[r], &q);
        }
    }
    return a;
}

/* A workload reactivated after a deactivation shows Requeued=True
 * Reactivated (Kueue's workload controller).  The job reconciler writes
 * it, but an admission that lands first would supersede the Evicted
 * condition it keys on and the reconciler's write would conflict and be
 * dropped; the admission carries it instead. */
static void reactivated(struct ts_workload *wl, ts_time now)
{
    const struct ts_condition *ev = ts_conditions_find(&wl->status.conditions, TS_WL_COND_EVICTED);
    const struct ts_condition *rq = ts_conditions_find(&wl->status.conditions, TS_WL_COND_REQUEUED);

    if (!ev || !ev->status || strcmp(ev->status, "True") || !ev->reason ||
        strncmp(ev->reason, TS_WL_REASON_DEACTIVATED, strlen(TS_WL_REASON_DEACTIVATED)))
        return;
    if (rq && rq->status && !strcmp(rq->status, "True") && rq->reason &&
        !strcmp(rq->reason, TS_WL_REASON_REACTIVATED))
        return;
    ts_conditions_set(&wl->status.conditions, TS_WL_COND_REQUEUED, "True", TS_WL_REASON_REACTIVATED,
                      TS_WL_MSG_REACTIVATED, wl->meta.generation, now);
}

int ts_apply_admit(struct ts_workload *wl, const struct ts_decision *d, ts_time now)
{
    struct ts_strlist checks = TS_STRLIST_INIT;
    char msg[512];

    reactivated(wl, now);

    ts_admission_free(wl->status.admission);
    wl->status.admission = admission_of(d);
    snprintf(msg, sizeof(msg), "Quota reserved in ClusterQueue %s",
             d->cluster_queue ? d->cluster_queue : "");
    ts_conditions_set(&wl->status.conditions, TS_WL_COND_QUOTA_RESERVED, "True",
                      TS_WL_REASON_QUOTA_RESERVED, msg, wl->meta.generation, now);
    supersede(wl, TS_WL_COND_EVICTED, now);
    supersede(wl, TS_WL_COND_PREEMPTED, now);
    for (size_t i = 0; i < d->n_checks; i++)
        ts_strlist_push(&checks, d->checks[i]);
    ts_workload_sync_checks(wl, &checks, now);
    ts_strlist_release(&checks);
    ts_workload_sync_admitted(wl, now);
    return 1;
}

int ts_apply_pending(struct ts_workload *wl, const struct ts_decision *d, ts_time now)
{
    return ts_conditions_set(&wl->status.conditions, TS_WL_COND_QUOTA_RESERVED, "False", d->reason,
                             d->message, wl->meta.generation, now);
}

int ts_apply_decision(struct ts_workload *wl, const struct ts_decision *d, ts_time now)
{
    return d->kind == TS_DECISION_ADMIT ? ts_apply_admit(wl, d, now) : ts_apply_pending(wl, d, now);
}

static void count_eviction(struct ts_workload *wl, const char *reason, const char *cause)
{
    struct ts_workload_status *st = &wl->status;
    struct ts_eviction_stat *ev;

    for (size_t i = 0; i < st->n_evictions; i++) {
        ev = &st->evictions[i];
        if (!strcmp(ev->reason, reason) &&
            !strcmp(ev->underlying_cause ? ev->underlying_cause : "", cause ? cause : "")) {
            ev->count++;
            return;
        }
    }
    st->evictions = ts_xrealloc(st->evictions, (st->n_evictions + 1) * sizeof(*st->evictions));
    ev = &st->evictions[st->n_evictions++];
    ev->reason = ts_xstrdup(reason);
    ev->underlying_cause = cause && *cause ? ts_xstrdup(cause) : NULL;
    ev->count = 1;
}

void ts_apply_evicting(struct ts_workload *wl, const char *reason, const char *cause, ts_time now)
{
    ts_workload_reset_checks(wl, now);
    count_eviction(wl, reason, cause);
}

int ts_apply_preempted(struct ts_workload *wl, const struct ts_decision_target *t, ts_time now)
{
    ts_conditions_set(&wl->status.conditions, TS_WL_COND_EVICTED, "True", TS_WL_REASON_PREEMPTED,
                      t->message, wl->meta.generation, now);
    ts_conditions_set(&wl->status.conditions, TS_WL_COND_PREEMPTED, "True", t->reason, t->message,
                      wl->meta.generation, now);
    ts_apply_evicting(wl, TS_WL_REASON_PREEMPTED, t->reason, now);
    return 1;
}

int ts_apply_quota_released(struct ts_workload *wl, ts_time now)
{
    const struct ts_condition *ev = ts_conditions_find(&wl->status.conditions, TS_WL_COND_EVICTED);
    char *reason, *message;
    int requeue;

    if (!ev || !ev->status || strcmp(ev->status, "True") || !wl->status.admission)
        return 0;
    reason = ts_xstrdup(ev->reason ? ev->reason : "");
    message = ts_xstrdup(ev->message ? ev->message : "");
    requeue =
        !strcmp(reason, TS_WL_REASON_PREEMPTED) || !strcmp(reason, TS_WL_REASON_NODE_FAILURES);
    ts_conditions_set(&wl->status.conditions, TS_WL_COND_REQUEUED, requeue ? "True" : "False",
                      reason, message, wl->meta.generation, now);
    ts_conditions_set(&wl->status.conditions, TS_WL_COND_QUOTA_RESERVED, "False",
                      TS_WL_REASON_PENDING_EVALUATION, message, wl->meta.generation, now);
    ts_admission_free(wl->status.admission);
    wl->status.admission = NULL;
    ts_workload_sync_admitted(wl, now);
    free(reason);
    free(message);
    return 1;
}
