#include "controller/jobplan.h"
#include "controller/jobplan_int.h"

#include "api/config.h"
#include "api/object.h"
#include "controller/jobkind.h"
#include "engine/apply.h"
#include "json/json.h"
#include "util/alloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ts_jobplan_init(struct ts_jobplan *p)
{
    memset(p, 0, sizeof(*p));
    ts_workload_init(&p->workload);
}

void ts_jobplan_release(struct ts_jobplan *p)
{
    cJSON_Delete(p->job);
    ts_workload_release(&p->workload);
    ts_jobplan_init(p);
}

void ts__jobplan_event(struct ts_jobplan *p, const char *type, const char *reason, const char *fmt,
                       ...)
{
    va_list ap;

    p->event_type = type;
    p->event_reason = reason;
    va_start(ap, fmt);
    vsnprintf(p->event_message, sizeof(p->event_message), fmt, ap);
    va_end(ap);
}

/* What the job says about itself, whatever its kind. */
struct job_facts {
    const struct ts_object_meta *meta;
    int finished, success, active;
    int pods_ready; /* every pod of the job is ready or succeeded */
    const char *message;
};

static void facts(const struct ts_object *o, struct job_facts *f)
{
    memset(f, 0, sizeof(*f));
    if (o->kind == TS_KIND_POD) { /* Kueue: a single Pod is never "active" */
        f->meta = &o->u.pod.meta;
        f->finished = ts_pod_is_terminated(&o->u.pod);
        f->success = f->finished && !strcmp(o->u.pod.phase, "Succeeded");
        f->message = o->u.pod.message;
        f->pods_ready = o->u.pod.ready;
    } else if (o->kind == TS_KIND_JOB) {
        f->meta = &o->u.job.meta;
        f->finished = ts_job_is_finished(&o->u.job, &f->success, &f->message);
        f->active = o->u.job.active > 0;
        /* Kueue: ready + succeeded >= parallelism (1 when unset) */
        f->pods_ready = (o->u.job.ready.set ? o->u.job.ready.v : 0) + o->u.job.succeeded >=
                        (o->u.job.parallelism.set ? o->u.job.parallelism.v : 1);
    } else if (o->kind == TS_KIND_JOBSET) {
        f->meta = &o->u.jobset.meta;
        f->finished = ts_jobset_is_finished(&o->u.jobset, &f->success, &f->message);
        f->active = ts_jobset_is_active(&o->u.jobset);
        f->pods_ready = ts_jobset_pods_ready(&o->u.jobset);
    } else if (o->kind == TS_KIND_TRAINJOB) {
        f->meta = &o->u.trainjob.meta;
        f->finished = ts_trainjob_is_finished(&o->u.trainjob, &f->success, &f->message);
        f->active = ts_trainjob_is_active(&o->u.trainjob);
        f->pods_ready = ts_trainjob_pods_ready(&o->u.trainjob);
    } else if (TS_KIND_IS_RAY(o->kind)) {
        f->meta = &o->u.ray.meta;
        f->finished = ts_rayjob_is_finished(&o->u.ray, &f->success, &f->message);
        f->active = ts_rayjob_is_active(&o->u.ray);
        f->pods_ready = ts_rayjob_pods_ready(&o->u.ray);
    } else {
        f->meta = &o->u.ptj.meta;
        f->finished = ts_pytorchjob_is_finished(&o->u.ptj, &f->success, &f->message);
        f->active = ts_pytorchjob_is_active(&o->u.ptj);
        for (size_t i = 0; i < o->u.ptj.n_conditions; i++) { /* Kubeflow: Running=True */
            const struct ts_kf_condition *c = &o->u.ptj.conditions[i];

            if (c->type && !strcmp(c->type, "Running"))
                f->pods_ready = c->status && !strcmp(c->status, "True");
        }
    }
}

/* A Pod's finalizer kueue.x-k8s.io/managed dropped (Kueue's Pod.Finalize),
 * joined to whatever job write the plan holds.  Returns 1 when planned. */
static int plan_pod_finalize(const cJSON *job, const struct ts_jobkind *k, struct ts_jobplan *p)
{
    cJSON *fin, *f;

    if (k->shape != TS_JOBKIND_POD || (p->ops & TS_JOBPLAN_DELETE_JOB))
        return 0;
    if (!p->job)
        p->job = cJSON_Duplicate(job, 1);
    fin = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(p->job, "metadata"),
                                           "finalizers");
    cJSON_ArrayForEach(f, fin)
    {
        if (cJSON_IsString(f) && !strcmp(f->valuestring, TS_POD_FINALIZER)) {
            cJSON_Delete(cJSON_DetachItemViaPointer(fin, f));
            if (!cJSON_GetArraySize(fin)) /* as the API server drops an empty list */
                cJSON_DeleteItemFromObjectCaseSensitive(ts_json_get(p->job, "metadata"),
                                                        "finalizers");
            p->ops |= TS_JOBPLAN_UPDATE_JOB;
            return 1;
        }
    }
    if (!(p->ops & TS_JOBPLAN_UPDATE_JOB)) {
        cJSON_Delete(p->job);
        p->job = NULL;
    }
    return 0;
}

/* No Workload yet: create it; a running job waits suspended for it. */
static int plan_create(const struct ts_object *o, const cJSON *job, const struct ts_jobkind *k,
                       const struct ts_jobplan_env *env, struct ts_jobplan *p, struct ts_err *err)
{
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_err e = {0};
    int rc;

    if (o->kind == TS_KIND_POD && ts_pod_is_terminated(&o->u.pod)) {
        plan_pod_finalize(job, k, p); /* finished before it had a Workload */
        return 0;
    }
    if (o->kind == TS_KIND_TRAINJOB && o->u.trainjob.resolve_rc) {
        /* Kueue cannot build the pod sets (a missing runtime): no
         * Workload; the runtime's arrival reconciles the job again */
        ts__jobplan_event(p, "Warning", "ErrWorkloadCompose", "%s", o->u.trainjob.resolve_msg);
        return 0;
    }
    rc = ts_jobworkload_from_object(o, env->prio, &p->workload, &e);

    if (rc == TS_ENOTFOUND) { /* Kueue creates nothing and warns on the job */
        ts__jobplan_event(p, "Warning", "WorkloadPriorityClassNotFound", "%s", e.msg);
        return 0;
    }
    if (rc)
        return ts_err_set(err, rc, "%s", e.msg);
    ts_jobworkload_copy_labels(ts_object_meta(o), env->label_keys_to_copy, &p->workload);
    /* a Workload the API (or the webhook) would refuse is not written
     * over and over: the caller reports the fields on the job instead */
    ts_workload_validate(&p->workload, &errs);
    if (errs.n) {
        rc = ts_field_errors_to_err(&errs, "Workload", err);
        ts_field_errors_release(&errs);
        return rc;
    }
    p->ops |= TS_JOBPLAN_CREATE_WORKLOAD;
    ts__jobplan_event(p, "Normal", "CreatedWorkload", "Created Workload: %s/%s",
                      p->workload.meta.namespace_, p->workload.meta.name);
    if (!ts_jobkind_is_suspended(k, job) && k->shape != TS_JOBKIND_POD) {
        p->job = cJSON_Duplicate(job, 1);
        ts_jobkind_set_suspend(k, p->job, 1);
        p->ops |= TS_JOBPLAN_UPDATE_JOB;
    }
    return 0;
}

static void plan_finished(const struct job_facts *f, const struct ts_workload *wl, ts_time now,
                          struct ts_jobplan *p)
{
    ts_workload_copy(&p->workload, wl);
    ts_conditions_set(&p->workload.status.conditions, TS_WL_COND_FINISHED, "True",
                      f->success ? TS_WL_REASON_SUCCEEDED : TS_WL_REASON_FAILED,
                      f->message ? f->message : "", wl->meta.generation, now);
    p->ops |= TS_JOBPLAN_WORKLOAD_STATUS;
    p->metric = TS_JOBPLAN_METRIC_FINISHED;
    ts__jobplan_event(p, "Normal", "FinishedWorkload", "Workload '%s/%s' is declared finished",
                      wl->meta.namespace_, wl->meta.name);
}

/* Kueue's Job.Stop (pkg/controller/jobs/job/job_controller.go): a batch/v1
 * Job is first suspended alone; once it is, a status.startTime the job
 * controller left is cleared through the status subresource, then its pod
 * templates are restored (kube-apiserver refuses a template change of a
 * Job that runs or has started).  A TrainJob (TrainJob.Stop) is suspended
 * alone too, and its runtime patch restored once none of its jobs is
 * active.  A Kubeflow job or a JobSet takes it in one write.
 * Returns 1 when a job write is planned (the stop is under way), 0 when the
 * job is stopped and restored (or waits for its jobs), or an error. */
static int plan_stop(const cJSON *job, const struct ts_jobkind *k, const struct ts_workload *wl,
                     const char *why, int active, struct ts_jobplan *p, struct ts_err *err)
{
    int was_running = !ts_jobkind_is_suspended(k, job), changed = 0, rc;

    if (k->shape == TS_JOBKIND_POD) { /* Kueue's Pod.Stop: delete a running Pod */
        if (!was_running || ts_json_get(job, "metadata.deletionTimestamp"))
            return 0;
        p->job = cJSON_Duplicate(job, 1);
        p->ops |= TS_JOBPLAN_DELETE_JOB;
        ts__jobplan_event(p, "Normal", "Stopped", "%s", why);
        return 1;
    }
    p->job = cJSON_Duplicate(job, 1);
    if (ts_jobkind_stops_in_steps(k) && was_running) {
        ts_jobkind_set_suspend(k, p->job, 1);
        p->ops |= TS_JOBPLAN_UPDATE_JOB;
        ts__jobplan_event(p, "Normal", "Stopped", "%s", why);
        return 1;
    }
    if (k->shape == TS_JOBKIND_TRAINJOB && active) { /* "jobs are still active" */
        cJSON_Delete(p->job);
        p->job = NULL;
        return 0;
    }
    if ((rc = ts_jobkind_stop(k, p->job, wl, &changed, err)))
        return rc;
    if (!changed) {
        cJSON_Delete(p->job);
        p->job = NULL;
        return 0;
    }
    if (k->shape == TS_JOBKIND_BATCH && ts_json_get(job, "status.startTime")) {
        cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(p->job, "status"),
                                                "startTime");
        /* the status write carries the job as it is stored, startTime aside */
        cJSON_ReplaceItemInObjectCaseSensitive(
            p->job, "spec", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(job, "spec"), 1));
        p->ops |= TS_JOBPLAN_UPDATE_JOB_STATUS;
        return 1;
    }
    p->ops |= TS_JOBPLAN_UPDATE_JOB;
    if (was_running)
        ts__jobplan_event(p, "Normal", "Stopped", "%s", why);
    return 1;
}

/* Evicted: stop the job; once its pods are gone (and, for a batch/v1 Job,
 * its templates are restored), release the quota. */
static int plan_evicted(const struct job_facts *f, const cJSON *job, const struct ts_jobkind *k,
                        const struct ts_workload *wl, ts_time now, struct ts_jobplan *p,
                        struct ts_err *err)
{
    const struct ts_condition *ev = ts_conditions_find(&wl->status.conditions, TS_WL_COND_EVICTED);
    int rc = plan_stop(job, k, wl, ev && ev->message ? ev->message : "Evicted", f->active, p, err);

    if (rc < 0)
        return rc;
    if (rc == 1 && ts_jobkind_stops_in_steps(k))
        return 0; /* released once the stop has landed */
    if (!f->active && ts_workload_has_quota_reservation(wl)) {
        ts_workload_copy(&p->workload, wl);
        if (ts_apply_quota_released(&p->workload, now))
            p->ops |= TS_JOBPLAN_WORKLOAD_STATUS;
    }
    return 0;
}

static int pod_sets_equal(const struct ts_workload *a, const struct ts_workload *b)
{
    if (a->spec.n_podsets != b->spec.n_podsets)
        return 0;
    for (size_t i = 0; i < a->spec.n_podsets; i++) {
        const struct ts_podset *x = &a->spec.podsets[i], *y = &b->spec.podsets[i];

        if (strcmp(x->name, y->name) || x->count != y->count ||
            x->min_count.set != y->min_count.set || x->min_count.v != y->min_count.v ||
            !ts_pod_template_equal(&x->template, &y->template))
            return 0;
    }
    return 1;
}

static int same_max_exec_time(const struct ts_workload *a, const struct ts_workload *b)
{
    const struct ts_opt_i32 *x = &a->spec.maximum_execution_time_seconds;
    const struct ts_opt_i32 *y = &b->spec.maximum_execution_time_seconds;

    return x->set == y->set && (!x->set || x->v == y->v);
}

/* Suspended and not admitted: keep the pending Workload in step with the
 * job (a changed template, count or kueue.x-k8s.io/max-exec-time-seconds
 * while pending updates it). */
static int plan_sync(const struct ts_object *o, const struct ts_workload *wl,
                     const struct ts_jobplan_env *env, struct ts_jobplan *p, struct ts_err *err)
{
    struct ts_workload fresh;
    int rc;

    if (ts_workload_has_quota_reservation(wl))
        return 0;
    ts_workload_init(&fresh);
    rc = ts_jobworkload_from_object(o, env->prio, &fresh, err);
    if (!rc && (!pod_sets_equal(&fresh, wl) || !same_max_exec_time(&fresh, wl))) {
        struct ts_podset *ps;
        size_t n;

        ts_workload_copy(&p->workload, wl);
        p->workload.spec.maximum_execution_time_seconds = fresh.spec.maximum_execution_time_seconds;
        /* take the job's pod sets, keep everything else of the Workload;
         * the old pod sets are freed with `fresh` */
        ps = p->workload.spec.podsets;
        n = p->workload.spec.n_podsets;
        p->workload.spec.podsets = fresh.spec.podsets;
        p->workload.spec.n_podsets = fresh.spec.n_podsets;
        fresh.spec.podsets = ps;
        fresh.spec.n_podsets = n;
        p->ops |= TS_JOBPLAN_UPDATE_WORKLOAD;
        ts__jobplan_event(p, "Normal", "UpdatedWorkload",
                          "Updated not matching Workload for suspended job: %s", wl->meta.name);
    }
    ts_workload_release(&fresh);
    return rc;
}

static int plan_start(const cJSON *job, const struct ts_jobkind *k, const struct ts_workload *wl,
                      const struct ts_jobplan_env *env, ts_time now, struct ts_jobplan *p)
{
    struct ts_err e = {0};

    p->job = cJSON_Duplicate(job, 1);
    if (ts_jobkind_start(k, p->job, wl, env->flavor, env->flavor_ctx, &e) == 0) {
        p->ops |= TS_JOBPLAN_UPDATE_JOB;
        if (!ts_jobkind_is_suspended(k, p->job)) /* a TrainJob's patch goes first */
            ts__jobplan_event(p, "Normal", "Started", "Admitted by clusterQueue %s",
                              wl->status.admission ? wl->status.admission->cluster_queue : "");
        return 0;
    }
    /* a template that contradicts the flavor can never start (Kueue) */
    ts_workload_copy(&p->workload, wl);
    ts_conditions_set(&p->workload.status.conditions, TS_WL_COND_FINISHED, "True",
                      TS_WL_REASON_FAILED_TO_START, e.msg, wl->meta.generation, now);
    p->ops |= TS_JOBPLAN_WORKLOAD_STATUS;
    ts__jobplan_event(p, "Warning", "FailedToStart", "%s", e.msg);
    return 0;
}

/* Kueue's requeue backoff (pkg/workload/workload.go UpdateRequeueState()):
 * min(base * 2^(count-1), max). */
static int64_t backoff_s(const struct ts_jobplan_env *env, int32_t count)
{
    int64_t d = env->backoff_base_s > 0 ? env->backoff_base_s : 60;
    int64_t max = env->backoff_max_s > 0 ? env->backoff_max_s : 3600;

    for (int32_t i = 1; i < count && d < max; i++)
        d *= 2;
    return d < max ? d : max;
}

/* The eviction that would make it limit+1 evictions deactivates instead. */
static int requeuing_limit_exceeded(const struct ts_workload *wl, const struct ts_jobplan_env *env)
{
    return env->backoff_limit_count.set &&
           wl->status.requeue_state.count.v + 1 > env->backoff_limit_count.v;
}

static void evict_pods_ready_timeout(struct ts_workload *wl, const struct ts_jobplan_env *env,
                                     const char *cause, ts_time now)
{
    struct ts_requeue_state *rq = &wl->status.requeue_state;
    char msg[600];

    snprintf(msg, sizeof(msg), "Exceeded the PodsReady timeout %s/%s", wl->meta.namespace_,
             wl->meta.name);
    ts_conditions_set(&wl->status.conditions, TS_WL_COND_EVICTED, "True", "PodsReadyTimeout", msg,
                      wl->meta.generation, now);
    ts_apply_evicting(wl, TS_WL_REASON_PODS_READY_TIMEOUT, cause, now);
    rq->set = 1;
    rq->count.set = 1;
    rq->count.v = rq->count.v + 1;
    rq->requeue_at = now + backoff_s(env, rq->count.v) * TS_TIME_SECOND;
}

/* Whether the pods have been not ready for the timeout: since admission
 * (waiting to start) or since PodsReady turned False (recovering).  Asks
 * for a reconcile at the deadline when not yet. */
static int pods_ready_timed_out(const struct ts_workload *wl, const struct ts_condition *pr,
                                int recovering, const struct ts_jobplan_env *env, ts_time now,
                                struct ts_jobplan *p)
{
    const struct ts_condition *adm =
        ts_conditions_find(&wl->status.conditions, TS_WL_COND_ADMITTED);
    int64_t timeout = recovering && env->pods_ready_recovery_timeout > 0
                          ? env->pods_ready_recovery_timeout
                          : env->pods_ready_timeout;
    ts_time since;

    if (!recovering)
        since = adm ? adm->last_transition_time : now;
    else if (pr->status && !strcmp(pr->status, "False")) /* WaitForRecovery since then */
        since = pr->last_transition_time;
    else
        since = now; /* the loss is being recorded now */
    if (now - since >= timeout)
        return 1;
    p->requeue_after = since + timeout - now;
    return 0;
}

/* Running and admitted: PodsReady as Kueue's job reconciler keeps it. */
static void plan_pods_ready(const struct job_facts *f, const struct ts_workload *wl,
                            const struct ts_jobplan_env *env, ts_time now, struct ts_jobplan *p)
{
    const struct ts_condition *c =
        ts_conditions_find(&wl->status.conditions, TS_WL_COND_PODS_READY);
    int was_true = c && c->status && !strcmp(c->status, "True");
    int recovering = c && c->reason && !strcmp(c->reason, "WaitForRecovery");
    const char *status, *reason, *message;

    if (f->pods_ready) {
        status = "True";
        reason = recovering ? "Recovered" : was_true && c->reason ? c->reason : "Started";
        message = "All pods reached readiness and the workload is running";
    } else {
        status = "False";
        reason = was_true || recovering ? "WaitForRecovery" : TS_WL_REASON_WAIT_FOR_START;
        message = was_true || recovering ? "At least one pod has failed, waiting for recovery"
                                         : TS_WL_MSG_WAIT_FOR_START;
    }
    if (!f->pods_ready && env->pods_ready_timeout > 0 &&
        pods_ready_timed_out(wl, c, recovering || was_true, env, now, p)) {
        ts_workload_copy(&p->workload, wl);
        ts_conditions_set(&p->workload.status.conditions, TS_WL_COND_PODS_READY, status, reason,
                          message, wl->meta.generation, now);
        p->ops |= TS_JOBPLAN_WORKLOAD_STATUS;
        if (requeuing_limit_exceeded(wl, env)) { /* the deactivation steps take over */
            ts_conditions_set(&p->workload.status.conditions, TS_WL_COND_DEACTIVATION_TARGET,
                              "True", TS_WL_REASON_REQUEUING_LIMIT_EXCEEDED,
                              "exceeding the maximum number of re-queuing retries",
                              wl->meta.generation, now);
            return;
        }
        evict_pods_ready_timeout(&p->workload, env, reason, now);
        p->metric = TS_JOBPLAN_METRIC_PODS_READY_TIMEOUT;
        p->metric_cause = reason;
        p->metric_first = p->workload.status.requeue_state.count.v <= 1;
        ts__jobplan_event(p, "Normal", "Stopped", "Exceeded the PodsReady timeout %s/%s",
                          wl->meta.namespace_, wl->meta.name);
        return;
    }
    if (c && c->status && !strcmp(c->status, status) && c->reason && !strcmp(c->reason, reason))
        return;
    ts_workload_copy(&p->workload, wl);
    ts_conditions_set(&p->workload.status.conditions, TS_WL_COND_PODS_READY, status, reason,
                      message, wl->meta.generation, now);
    p->ops |= TS_JOBPLAN_WORKLOAD_STATUS;
}

/* A requeue backoff (after a PodsReadyTimeout eviction) that is over:
 * Requeued=True BackoffFinished and requeueAt cleared, so the workload
 * queues again (the engine keeps it out until then).  Returns 1 when the
 * workload is still, or was just, in backoff. */
static int plan_backoff(const struct ts_workload *wl, ts_time now, struct ts_jobplan *p)
{
    const struct ts_requeue_state *rq = &wl->status.requeue_state;
    const struct ts_condition *c = ts_conditions_find(&wl->status.conditions, TS_WL_COND_REQUEUED);
    /* released after a Retry check: requeued once any backoff it asked for is over */
    int by_check = c && c->status && !strcmp(c->status, "False") && c->reason &&
                   !strcmp(c->reason, TS_WL_REASON_ADMISSION_CHECK);

    if ((!by_check && (!rq->set || !rq->requeue_at)) || ts_workload_has_quota_reservation(wl))
        return 0;
    if (rq->set && now < rq->requeue_at) {
        p->requeue_after = rq->requeue_at - now;
        return 1;
    }
    ts_workload_copy(&p->workload, wl);
    p->workload.status.requeue_state.requeue_at = 0;
    ts_conditions_set(&p->workload.status.conditions, TS_WL_COND_REQUEUED, "True",
                      TS_WL_REASON_BACKOFF_FINISHED, "The workload backoff was finished",
                      wl->meta.generation, now);
    p->ops |= TS_JOBPLAN_WORKLOAD_STATUS;
    return 1;
}

/* The cause of a DeactivationTarget as a static string ("" if unknown). */
static const char *deactivation_cause(const struct ts_condition *dt)
{
    static const char *const causes[] = {TS_WL_REASON_REQUEUING_LIMIT_EXCEEDED,
                                         TS_WL_REASON_MAXIMUM_EXECUTION_TIME_EXCEEDED,
                                         TS_WL_REASON_ADMISSION_CHECK, NULL};

    for (size_t i = 0; dt && dt->reason && causes[i]; i++) {
        if (!strcmp(dt->reason, causes[i]))
            return causes[i];
    }
    return "";
}

static int cond_true(const struct ts_condition *c)
{
    return c && c->status && !strcmp(c->status, "True");
}

/* Kueue's workload controller on spec.active
 * (pkg/controller/core/workload_controller.go): a DeactivationTarget turns
 * spec.active off; an inactive Workload holding
 * quota is evicted with Deactivated[DueTo<cause>] (the eviction rules then
 * stop the job and release the quota), DeactivationTarget and requeueState
 * are dropped; a reactivated one gets Requeued=True Reactivated.  Returns 1
 * when it planned a write (nothing else is planned then). */
static int plan_deactivation(const struct ts_workload *wl, ts_time now, struct ts_jobplan *p)
{
    const struct ts_condition *dt =
        ts_conditions_find(&wl->status.conditions, TS_WL_COND_DEACTIVATION_TARGET);
    const struct ts_condition *ev = ts_conditions_find(&wl->status.conditions, TS_WL_COND_EVICTED);
    const struct ts_condition *rq = ts_conditions_find(&wl->status.conditions, TS_WL_COND_REQUEUED);
    int by_deactivation =
        cond_true(ev) && ev->reason &&
        !strncmp(ev->reason, TS_WL_REASON_DEACTIVATED, strlen(TS_WL_REASON_DEACTIVATED));
    const char *cause = deactivation_cause(dt);
    char reason[128], message[600];

    if (ts_workload_is_active(wl)) {
        if (cond_true(dt)) {
            ts_workload_copy(&p->workload, wl);
            p->workload.spec.active.set = 1;
            p->workload.spec.active.v = 0;
            p->ops |= TS_JOBPLAN_UPDATE_WORKLOAD;
            return 1;
        }
        if (!by_deactivation || ts_workload_has_quota_reservation(wl) ||
            (cond_true(rq) && rq->reason && !strcmp(rq->reason, TS_WL_REASON_REACTIVATED)))
            return 0;
        ts_workload_copy(&p->workload, wl);
        ts_conditions_set(&p->workload.status.conditions, TS_WL_COND_REQUEUED, "True",
                          TS_WL_REASON_REACTIVATED, TS_WL_MSG_REACTIVATED, wl->meta.generation,
                          now);
        p->ops |= TS_JOBPLAN_WORKLOAD_STATUS;
        return 1;
    }
    if (!dt && (cond_true(ev) || !ts_workload_has_quota_reservation(wl)) &&
        !wl->status.requeue_state.set)
        return 0;
    ts_workload_copy(&p->workload, wl);
    ts_conditions_remove(&p->workload.status.conditions, TS_WL_COND_DEACTIVATION_TARGET);
    memset(&p->workload.status.requeue_state, 0, sizeof(p->workload.status.requeue_state));
    p->ops |= TS_JOBPLAN_WORKLOAD_STATUS;
    if (cond_true(ev) || !ts_workload_has_quota_reservation(wl))
        return 1;
    snprintf(reason, sizeof(reason), "%s%s",
             cause[0] ? TS_WL_REASON_DEACTIVATED_DUE_TO : TS_WL_REASON_DEACTIVATED, cause);
    snprintf(message, sizeof(message), "The workload is deactivated%s%s",
             dt && dt->message ? " due to " : "", dt && dt->message ? dt->message : "");
    ts_conditions_set(&p->workload.status.conditions, TS_WL_COND_EVICTED, "True", reason, message,
                      wl->meta.generation, now);
    ts_apply_evicting(&p->workload, TS_WL_REASON_DEACTIVATED, cause, now);
    p->metric = TS_JOBPLAN_METRIC_DEACTIVATED;
    p->metric_cause = cause;
    p->metric_first = !wl->status.requeue_state.count.v;
    ts__jobplan_event(p, "Normal", p->event_reason_buf, "%s", message);
    snprintf(p->event_reason_buf, sizeof(p->event_reason_buf), "EvictedDueTo%s", reason);
    p->event_on_workload = 1;
    return 1;
}

/* A queue's stopPolicy HoldAndDrain evicts an admitted Workload; a queue
 * running again requeues one it stopped.  Returns 1 when it planned a
 * write. */
static int plan_queue_stop(const struct ts_workload *wl, const struct ts_jobplan_env *env,
                           ts_time now, struct ts_jobplan *p)
{
    static const struct {
        const char *stopped, *stop_msg, *restarted, *restart_msg;
    } q[2] = {{TS_WL_REASON_LOCAL_QUEUE_STOPPED, "The LocalQueue is stopped",
               TS_WL_REASON_LOCAL_QUEUE_RESTARTED,
               "The LocalQueue was restarted after being stopped"},
              {TS_WL_REASON_CLUSTER_QUEUE_STOPPED, "The ClusterQueue is stopped",
               TS_WL_REASON_CLUSTER_QUEUE_RESTARTED,
               "The ClusterQueue was restarted after being stopped"}};
    const enum ts_stop_policy stop[2] = {env->lq_stop, env->cq_stop};
    const int unknown[2] = {env->lq_missing, env->cq_unreached};
    const struct ts_condition *rq = ts_conditions_find(&wl->status.conditions, TS_WL_COND_REQUEUED);

    for (int i = 0; i < 2; i++) {
        if (stop[i] == TS_STOP_HOLD_AND_DRAIN && ts_workload_is_admitted(wl) &&
            !ts_workload_is_evicted(wl)) {
            ts_workload_copy(&p->workload, wl);
            ts_conditions_set(&p->workload.status.conditions, TS_WL_COND_EVICTED, "True",
                              q[i].stopped, q[i].stop_msg, wl->meta.generation, now);
            ts_apply_evicting(&p->workload, q[i].stopped, NULL, now);
            p->ops |= TS_JOBPLAN_WORKLOAD_STATUS;
            p->metric = TS_JOBPLAN_METRIC_QUEUE_STOPPED;
            p->metric_cause = q[i].stopped;
            p->metric_first = 1;
            snprintf(p->event_reason_buf, sizeof(p->event_reason_buf), "%sDueTo%s",
                     TS_WL_COND_EVICTED, q[i].stopped);
            ts__jobplan_event(p, "Normal", p->event_reason_buf, "%s", q[i].stop_msg);
            p->event_on_workload = 1;
            return 1;
        }
    }
    for (int i = 0; i < 2; i++) {
        /* admitted again already or not, as Kueue's workload controller */
        if (!unknown[i] && stop[i] == TS_STOP_NONE && rq && rq->status &&
            !strcmp(rq->status, "False") && rq->reason && !strcmp(rq->reason, q[i].stopped)) {
            ts_workload_copy(&p->workload, wl);
            ts_conditions_set(&p->workload.status.conditions, TS_WL_COND_REQUEUED, "True",
                              q[i].restarted, q[i].restart_msg, wl->meta.generation, now);
            p->ops |= TS_JOBPLAN_WORKLOAD_STATUS;
            return 1;
        }
    }
    return 0;
}

/* Kueue's reconcileMaxExecutionTime: an admitted Workload whose
 * spec.maximumExecutionTimeSeconds has run out (time admitted now plus
 * status.accumulatedPastExecutionTimeSeconds) becomes a DeactivationTarget
 * (MaximumExecutionTimeExceeded), which deactivates and evicts it.
 * Returns 1 when it planned that write; else *remaining is the time left
 * (0: none to watch). */
static int plan_max_exec_time(const struct ts_workload *wl, ts_time now, struct ts_jobplan *p,
                              int64_t *remaining)
{
    const struct ts_condition *adm =
        ts_conditions_find(&wl->status.conditions, TS_WL_COND_ADMITTED);
    const struct ts_condition *dt =
        ts_conditions_find(&wl->status.conditions, TS_WL_COND_DEACTIVATION_TARGET);
    const struct ts_opt_i32 *max = &wl->spec.maximum_execution_time_seconds;
    const struct ts_opt_i32 *past = &wl->status.accumulated_past_execution_time_seconds;

    *remaining = 0;
    /* a deactivated or evicted one is on its way out already */
    if (!max->set || !cond_true(adm) || !ts_workload_is_active(wl) || ts_workload_is_evicted(wl))
        return 0;
    *remaining = ((int64_t)max->v - (past->set ? past->v : 0)) * TS_TIME_SECOND -
                 (now - adm->last_transition_time);
    if (*remaining > 0 || cond_true(dt)) {
        *remaining = *remaining > 0 ? *remaining : 0;
        return 0;
    }
    *remaining = 0;
    ts_workload_copy(&p->workload, wl);
    ts_conditions_set(&p->workload.status.conditions, TS_WL_COND_DEACTIVATION_TARGET, "True",
                      TS_WL_REASON_MAXIMUM_EXECUTION_TIME_EXCEEDED,
                      "exceeding the maximum execution time", wl->meta.generation, now);
    p->workload.status.accumulated_past_execution_time_seconds.set = 0;
    p->ops |= TS_JOBPLAN_WORKLOAD_STATUS;
    ts__jobplan_event(p, "Warning", TS_WL_REASON_MAXIMUM_EXECUTION_TIME_EXCEEDED,
                      "The maximum execution time (%ds) exceeded", (int)max->v);
    p->event_on_workload = 1;
    return 1;
}

static int plan_running(const struct ts_object *o, const cJSON *job, const struct ts_jobkind *k,
                        const struct ts_workload *wl, const struct ts_jobplan_env *env, ts_time now,
                        struct ts_jobplan *p, struct ts_err *err);

static int plan_owned(const struct ts_object *o, const cJSON *job, const struct ts_jobkind *k,
                      const struct ts_workload *wl, const struct ts_jobplan_env *env, ts_time now,
                      struct ts_jobplan *p, struct ts_err *err)
{
    struct job_facts f;
    int64_t left = 0;
    int rc;

    facts(o, &f);
    if (ts_workload_is_finished(wl)) {
        plan_pod_finalize(job, k, p);
        return 0;
    }
    if (f.finished) {
        plan_finished(&f, wl, now, p);
        plan_pod_finalize(job, k, p);
        return 0;
    }
    if (plan_deactivation(wl, now, p) || plan_backoff(wl, now, p) ||
        ts__jobplan_checks(wl, env, now, p) || plan_queue_stop(wl, env, now, p) ||
        plan_max_exec_time(wl, now, p, &left))
        return 0;
    rc = plan_running(o, job, k, wl, env, now, p, err);
    if (left > 0 && (!p->requeue_after || p->requeue_after > left))
        p->requeue_after = left; /* the maximum execution time runs out then */
    return rc;
}

/* Kueue's Job.ReclaimablePods (batch/v1 Jobs only; the Kubeflow kinds
 * have none): once fewer completions remain than the parallelism, that
 * many pods of the pod set "main" will not run again, and their quota goes
 * back to the queue.  Returns the count (0: none). */
static int32_t job_reclaimable(const struct ts_object *o)
{
    const struct ts_job *j = &o->u.job;
    int32_t par = j->parallelism.set ? j->parallelism.v : 1, remaining;

    if (o->kind != TS_KIND_JOB || par <= 1 || j->succeeded <= 0)
        return 0;
    remaining = (j->completions.set ? j->completions.v : par) - j->succeeded;
    return remaining >= par ? 0 : par - (remaining > 0 ? remaining : 0);
}

/* status.reclaimablePods follows the job's as it grows (Kueue's
 * reconciler, step 4; the Workload webhook refuses a decrease, and a
 * Job's succeeded count never falls).  Returns 1 when it planned the
 * write. */
static int plan_reclaimable(const struct ts_object *o, const struct ts_workload *wl,
                            struct ts_jobplan *p)
{
    int32_t n = job_reclaimable(o), have = 0;
    const struct ts_workload_status *s = &wl->status;

    for (size_t i = 0; i < s->n_reclaimable_pods; i++) {
        if (!strcmp(s->reclaimable_pods[i].name, TS_WL_DEFAULT_PODSET))
            have = s->reclaimable_pods[i].count;
    }
    if (n <= have)
        return 0;
    ts_workload_copy(&p->workload, wl);
    for (size_t i = 0; i < p->workload.status.n_reclaimable_pods; i++)
        free(p->workload.status.reclaimable_pods[i].name);
    free(p->workload.status.reclaimable_pods);
    p->workload.status.reclaimable_pods = NULL;
    p->workload.status.n_reclaimable_pods = 0;
    p->workload.status.reclaimable_pods =
        ts_xcalloc(1, sizeof(*p->workload.status.reclaimable_pods));
    p->workload.status.reclaimable_pods[0].name = ts_xstrdup(TS_WL_DEFAULT_PODSET);
    p->workload.status.reclaimable_pods[0].count = n;
    p->workload.status.n_reclaimable_pods = 1;
    p->ops |= TS_JOBPLAN_WORKLOAD_STATUS;
    return 1;
}

/* The rest of plan_owned: eviction, start, stop, PodsReady. */
static int plan_running(const struct ts_object *o, const cJSON *job, const struct ts_jobkind *k,
                        const struct ts_workload *wl, const struct ts_jobplan_env *env, ts_time now,
                        struct ts_jobplan *p, struct ts_err *err)
{
    struct job_facts f;

    facts(o, &f);
    if (plan_reclaimable(o, wl, p))
        return 0;
    if (ts_workload_is_evicted(wl))
        return plan_evicted(&f, job, k, wl, now, p, err);
    if (ts_jobkind_is_suspended(k, job)) {
        if (ts_workload_is_admitted(wl))
            return plan_start(job, k, wl, env, now, p);
        return plan_sync(o, wl, env, p, err);
    }
    if (!ts_workload_is_admitted(wl)) { /* running without quota: stop it */
        if (plan_stop(job, k, wl, "Not admitted by cluster queue", f.active, p, err) < 0)
            return TS_EINVAL;
    } else if (env->wait_for_pods_ready) {
        plan_pods_ready(&f, wl, env, now, p);
    }
    return 0;
}

void ts_jobplan_make_standalone(const struct ts_workload *wl, const struct ts_jobplan_env *env,
                                ts_time now, struct ts_jobplan *p)
{
    ts_jobplan_release(p);
    if (ts_workload_is_finished(wl))
        return;
    if (plan_deactivation(wl, now, p) || plan_backoff(wl, now, p))
        return;
    ts__jobplan_checks(wl, env, now, p);
}

static int nonempty(const cJSON *o, const char *path)
{
    const char *v = ts_json_get_string(o, path);

    return v && *v;
}

/* Kueue's FindAncestorJobManagedByKueue, one level up: the job's
 * controller is an object of a kind Turnstile manages, which has a queue
 * name (or manageJobsWithoutQueueName is on), so its Workload covers this
 * job and the job gets none of its own.  An owner not cached yet counts as
 * managed (Kueue retries until it can read it): a Workload created for the
 * child meanwhile would hold quota twice. */
static int owner_managed(const cJSON *job, const struct ts_jobplan_env *env)
{
    const cJSON *ref;

    cJSON_ArrayForEach(ref, ts_json_get(job, "metadata.ownerReferences"))
    {
        const struct ts_jobkind *k = ts_jobkind_of_owner(ts_json_get_string(ref, "apiVersion"),
                                                         ts_json_get_string(ref, "kind"));
        const char *name = ts_json_get_string(ref, "name");
        cJSON *owner;
        int on = 0, managed;

        if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ref, "controller")))
            continue;
        if (!k && ts_config_external_framework(env->external_frameworks,
                                               ts_json_get_string(ref, "apiVersion"),
                                               ts_json_get_string(ref, "kind")))
            return 1; /* Kueue's IsOwnerManagedByKueue: an external integration */
        if (!k || !name || !env->owner)
            return 0;
        owner =
            env->owner(env->owner_ctx, k, ts_json_get_string(job, "metadata.namespace"), name, &on);
        managed = on && (!owner || env->manage_jobs_without_queue_name ||
                         nonempty(owner, "metadata.labels[" TS_LABEL_QUEUE_NAME "]") ||
                         nonempty(owner, "metadata.annotations[" TS_LABEL_QUEUE_NAME "]"));
        cJSON_Delete(owner);
        return managed;
    }
    return 0;
}

/* A TrainJob's runtime, looked up through env->runtime, resolves its pod
 * sets (the error stays in the TrainJob for plan_create to report). */
static void resolve_runtime(struct ts_trainjob *t, const struct ts_jobplan_env *env)
{
    int cluster = ts_trainjob_runtime_is_cluster(t);
    cJSON *rt = NULL;

    if (cluster >= 0 && env->runtime && t->runtime_name)
        rt = env->runtime(env->runtime_ctx, cluster, cluster ? NULL : t->meta.namespace_,
                          t->runtime_name);
    ts_trainjob_resolve(t, rt, NULL);
    cJSON_Delete(rt);
}

int ts_jobplan_make(const cJSON *job, const struct ts_workload *wl,
                    const struct ts_jobplan_env *env, ts_time now, struct ts_jobplan *p,
                    struct ts_err *err)
{
    const struct ts_jobkind *k = ts_jobkind_of(job);
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_object o;
    int rc;

    ts_jobplan_release(p);
    if (!k)
        return 0;
    if ((rc = ts_object_decode(job, &o, &errs, err)) || errs.n) {
        rc = rc ? rc : ts_field_errors_to_err(&errs, k->res.kind, err);
        ts_field_errors_release(&errs);
        if (o.kind != TS_KIND_UNKNOWN)
            ts_object_release(&o);
        return rc;
    }
    if (o.kind == TS_KIND_TRAINJOB)
        resolve_runtime(&o.u.trainjob, env);
    if (o.kind == TS_KIND_POD) {
        const struct ts_object_meta *m = &o.u.pod.meta;
        const char *managed = ts_strmap_get(&m->labels, TS_POD_LABEL_MANAGED);

        if (!managed || strcmp(managed, "true") ||
            ts_strmap_get(&m->labels, TS_POD_LABEL_GROUP_NAME) || /* podgroup.c's */
            (env->pods_parent_only &&
             !ts_strmap_get(&m->annotations, TS_POD_ANNOTATION_SUSPENDED_BY)))
            ; /* not the webhook's, or not a managed parent's: Kueue skips it */
        else if (m->deletion_timestamp)
            plan_pod_finalize(job, k, p);
        else
            rc = wl ? plan_owned(&o, job, k, wl, env, now, p, err)
                    : plan_create(&o, job, k, env, p, err);
    } else if (TS_KIND_IS_JOB(o.kind) && !owner_managed(job, env)) {
        const struct ts_object_meta *m = ts_object_meta(&o);
        int managed = ts_job_meta_queue_name(m) || env->manage_jobs_without_queue_name;

        /* Kueue's RayJob.Skip: a RayJob on an existing cluster */
        if (o.kind == TS_KIND_RAY_JOB && ts_rayjob_skip(&o.u.ray))
            managed = 0;

        if (managed && m->deletion_timestamp == 0)
            rc = wl ? plan_owned(&o, job, k, wl, env, now, p, err)
                    : plan_create(&o, job, k, env, p, err);
    }
    ts_object_release(&o);
    return rc;
}
