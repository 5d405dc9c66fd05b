/* checkplan.c - the job reconciler's admission check steps (jobplan_int.h). */
#include "controller/jobplan_int.h"

#include "api/workload_checks.h"
#include "engine/apply.h"

#include <stdio.h>
#include <string.h>

/* Kueue's eviction for a Retry check (workload.Evict with reason
 * AdmissionCheck): Evicted=True, checks reset, the eviction counted. */
static void evict(struct ts_workload *wl, ts_time now)
{
    ts_conditions_set(&wl->status.conditions, TS_WL_COND_EVICTED, "True",
                      TS_WL_REASON_ADMISSION_CHECK, "At least one admission check is false",
                      wl->meta.generation, now);
    ts_apply_evicting(wl, TS_WL_REASON_ADMISSION_CHECK, NULL, now);
}

static int plan_admitted(const struct ts_workload *wl, ts_time now, struct ts_jobplan *p)
{
    const struct ts_condition *qr;
    ts_time since;

    ts_workload_copy(&p->workload, wl);
    if (!ts_workload_sync_admitted(&p->workload, now)) {
        ts_workload_release(&p->workload);
        return 0;
    }
    p->ops |= TS_JOBPLAN_WORKLOAD_STATUS;
    if (!ts_workload_is_admitted(&p->workload))
        return 1;
    qr = ts_conditions_find(&wl->status.conditions, TS_WL_COND_QUOTA_RESERVED);
    since = qr && qr->last_transition_time && qr->last_transition_time <= now
                ? qr->last_transition_time
                : now;
    p->metric = TS_JOBPLAN_METRIC_ADMITTED;
    p->metric_checks_wait_s = (double)(now - since) / 1e9;
    ts__jobplan_event(p, "Normal", "Admitted",
                      "Admitted by ClusterQueue %s, wait time since reservation was %.0fs",
                      wl->status.admission ? wl->status.admission->cluster_queue : "",
                      p->metric_checks_wait_s);
    p->event_on_workload = 1;
    return 1;
}

static int plan_rejected(const struct ts_workload *wl, ts_time now, struct ts_jobplan *p)
{
    const struct ts_admission_check_state *first;
    char names[512], msg[600];

    first = ts_workload_checks_in(wl, TS_WL_CHECK_REJECTED, names, sizeof(names));
    if (!first)
        return 0;
    ts_workload_copy(&p->workload, wl);
    snprintf(msg, sizeof(msg), "Admission check(s): %s, were rejected", names);
    ts_conditions_set(&p->workload.status.conditions, TS_WL_COND_DEACTIVATION_TARGET, "True",
                      TS_WL_REASON_ADMISSION_CHECK, msg, wl->meta.generation, now);
    p->ops |= TS_JOBPLAN_WORKLOAD_STATUS;
    ts__jobplan_event(p, "Warning", TS_WL_EVENT_ADMISSION_CHECK_REJECTED,
                      "Deactivating workload because AdmissionCheck for %s was Rejected: %s",
                      first->name ? first->name : "", first->message ? first->message : "");
    p->event_on_workload = 1;
    return 1;
}

static int plan_retry(const struct ts_workload *wl, ts_time now, struct ts_jobplan *p)
{
    const struct ts_requeue_state *rq = &wl->status.requeue_state;
    ts_time at = ts_workload_checks_retry_at(wl);

    if (!ts_workload_has_check_state(wl, TS_WL_CHECK_RETRY))
        return 0;
    ts_workload_copy(&p->workload, wl);
    /* Kueue's NeedsRequeueAtUpdate: the backoff a check asks for is
     * written before the eviction, so the requeue waits for it */
    if (at > now && (!rq->set || !rq->requeue_at || rq->requeue_at < at)) {
        p->workload.status.requeue_state.set = 1;
        p->workload.status.requeue_state.requeue_at = at;
        p->ops |= TS_JOBPLAN_WORKLOAD_STATUS;
        return 1;
    }
    evict(&p->workload, now);
    p->ops |= TS_JOBPLAN_WORKLOAD_STATUS;
    p->metric = TS_JOBPLAN_METRIC_EVICTED;
    p->metric_cause = TS_WL_REASON_ADMISSION_CHECK;
    p->metric_first = 1;
    snprintf(p->event_reason_buf, sizeof(p->event_reason_buf), "%sDueTo%s", TS_WL_COND_EVICTED,
             TS_WL_REASON_ADMISSION_CHECK);
    ts__jobplan_event(p, "Normal", p->event_reason_buf, "At least one admission check is false");
    p->event_on_workload = 1;
    return 1;
}

int ts__jobplan_checks(const struct ts_workload *wl, const struct ts_jobplan_env *env, ts_time now,
                       struct ts_jobplan *p)
{
    if (env->checks) {
        ts_workload_copy(&p->workload, wl);
        if (ts_workload_sync_checks(&p->workload, env->checks, now)) {
            p->ops |= TS_JOBPLAN_WORKLOAD_STATUS;
            return 1;
        }
        ts_workload_release(&p->workload);
    }
    if (!ts_workload_has_quota_reservation(wl) || !wl->status.admission)
        return 0;
    if (!ts_workload_is_admitted(wl) && plan_admitted(wl, now, p))
        return 1;
    if (ts_workload_is_evicted(wl))
        return 0;
    return plan_rejected(wl, now, p) || plan_retry(wl, now, p);
}
