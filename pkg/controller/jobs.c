/* jobs.c - the job reconciler: one key per job ("Job/ns/name",
 * "PyTorchJob/ns/name"), planned by jobplan.c and executed as API writes.
 * A failed write requeues the key with backoff; the next reconcile starts
 * again from the cache, so nothing half-done is remembered. */
#include "api/jobworkload.h"
#include "api/object.h"
#include "controller/jobplan.h"
#include "controller/manager_int.h"
#include "json/json.h"
#include "util/alloc.h"
#include "util/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ts__ctl_enqueue_owner(struct ts_ctl *c, const cJSON *wl)
{
    const cJSON *ref;

    cJSON_ArrayForEach(ref, ts_json_get(wl, "metadata.ownerReferences"))
    {
        const char *kind = ts_json_get_string(ref, "kind");
        char key[600];

        if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ref, "controller")) || !kind ||
            (strcmp(kind, "Job") && strcmp(kind, "PyTorchJob")))
            continue;
        snprintf(key, sizeof(key), "%s/%s/%s", kind, ts_json_get_string(wl, "metadata.namespace"),
                 ts_json_get_string(ref, "name"));
        ts_workqueue_add(c->jobs, key);
    }
}

/* Priority classes, as the engine knows them. */
static int wpc(void *ctx, const char *name, int32_t *value)
{
    return ts_engine_priority_class(ctx, 1, name, value);
}

static int pc(void *ctx, const char *name, int32_t *value)
{
    return ts_engine_priority_class(ctx, 0, name, value);
}

static int default_pc(void *ctx, const char **name, int32_t *value)
{
    return ts_engine_default_priority_class(ctx, name, value);
}

/* Flavors decoded from the cache for one reconcile. */
struct flavors {
    struct ts_ctl *c;
    struct ts_resource_flavor rf[16];
    size_t n;
};

static const struct ts_resource_flavor *flavor(void *ctx, const char *name)
{
    struct flavors *f = ctx;
    const cJSON *obj = ts_informer_get_ns(f->c->inf[TS__CTL_RF], NULL, name);
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_dec d;

    for (size_t i = 0; i < f->n; i++) {
        if (f->rf[i].meta.name && !strcmp(f->rf[i].meta.name, name))
            return &f->rf[i];
    }
    if (!obj || f->n == 16)
        return NULL;
    ts_dec_init(&d, &errs);
    ts_resource_flavor_init(&f->rf[f->n]);
    ts_resource_flavor_decode(&d, obj, &f->rf[f->n]);
    ts_field_errors_release(&errs);
    return &f->rf[f->n++];
}

struct jobwrite {
    struct ts_ctl *c;
    char *key;
    /* a Workload status write's metric, recorded once it landed */
    enum ts_jobplan_metric metric;
    char *cq, *priority_class;
    char *cause;    /* PodsReady's reason: WaitForStart or WaitForRecovery */
    double seconds; /* execution time (finished) */
    int first;      /* first eviction (PodsReadyTimeout) */
    int create;     /* the Workload's creation: a refusal is reported on the job */
};

static void measure(struct jobwrite *w)
{
    struct ts_kmetrics_wl m = {w->cq, w->priority_class, NULL, NULL};

    if (w->metric == TS_JOBPLAN_METRIC_FINISHED)
        ts_kmetrics_finished(w->c->metrics, &m, w->seconds);
    else if (w->metric == TS_JOBPLAN_METRIC_PODS_READY_TIMEOUT)
        ts_kmetrics_evicted(w->c->metrics, &m, "PodsReadyTimeout", w->cause, w->first);
}

/* The cached job of a work queue key ("Job/ns/name", "PyTorchJob/ns/
 * name"), NULL when gone; *ptj tells which kind.  Borrowed. */
static const cJSON *job_of_key(struct ts_ctl *c, const char *key, int *ptj)
{
    const char *rest = strchr(key, '/') + 1, *slash = strchr(rest, '/');
    struct ts_informer *inf;
    char ns[256];

    *ptj = !strncmp(key, "PyTorchJob/", 11);
    inf = c->inf[*ptj ? TS__CTL_PTJ : TS__CTL_JOB];
    snprintf(ns, sizeof(ns), "%.*s", (int)(slash - rest), rest);
    return inf ? ts_informer_get_ns(inf, ns, slash + 1) : NULL;
}

/* The API or a webhook refused the Workload made from job `key` ("Job/ns/
 * name"): say why on the job, which is all its owner looks at. */
static void refused(struct ts_ctl *c, const char *key, const char *msg)
{
    int ptj;
    const cJSON *job = job_of_key(c, key, &ptj);

    if (job)
        ts_recorder_event(c->events, job, "Warning", "ErrWorkloadCompose", "%s", msg);
}

static void job_written(struct ts_kube_client *kc, struct ts_kube_result *res, void *data)
{
    struct jobwrite *w = data;

    (void)kc;
    w->c->inflight--;
    if (res->code && res->code != TS_EEXIST) {
        ts_log_info("controller", "job=%s write failed: %s", w->key, res->err.msg);
        if (w->create &&
            (res->http_status == 400 || res->http_status == 403 || res->http_status == 422))
            refused(w->c, w->key, res->err.msg);
        ts_workqueue_add_rate_limited(w->c->jobs, w->key, ts_loop_now(w->c->loop));
    } else if (!res->code && w->metric) {
        measure(w);
    }
    free(w->key);
    free(w->cq);
    free(w->priority_class);
    free(w->cause);
    free(w);
}

/* Submits r; a landed status write of `metric_of` (may be NULL) is
 * counted in Kueue's metrics. */
static void submit(struct ts_ctl *c, const char *key, struct ts_kube_req *r,
                   const struct ts_jobplan *metric_of)
{
    struct jobwrite *w = ts_xcalloc(1, sizeof(*w));
    struct ts_err err = {0};

    w->c = c;
    w->key = ts_xstrdup(key);
    w->create = r->verb == TS_KUBE_CREATE && r->res == &ts__ctl_res_workloads;
    if (metric_of && metric_of->metric && metric_of->workload.status.admission) {
        const struct ts_workload *wl = &metric_of->workload;
        const struct ts_condition *adm =
            ts_conditions_find(&wl->status.conditions, TS_WL_COND_ADMITTED);
        const struct ts_condition *pr;

        w->metric = metric_of->metric;
        w->cq = ts_xstrdup(wl->status.admission->cluster_queue);
        w->priority_class =
            wl->spec.priority_class_ref.name ? ts_xstrdup(wl->spec.priority_class_ref.name) : NULL;
        w->seconds = adm ? (double)(ts__ctl_now(c) - adm->last_transition_time) / 1e9 : 0;
        w->first = wl->status.requeue_state.count.v <= 1;
        pr = ts_conditions_find(&wl->status.conditions, TS_WL_COND_PODS_READY);
        w->cause = ts_xstrdup(pr && pr->reason ? pr->reason : "");
    }
    c->inflight++;
    if (ts_kube_submit(c->client, r, job_written, w, NULL, &err)) {
        struct ts_kube_result res = {0};

        res.code = TS_EINVAL;
        res.err = err;
        job_written(c->client, &res, w);
    }
}

static void write_workload(struct ts_ctl *c, const char *key, const struct ts_workload *wl,
                           enum ts_kube_verb verb, const char *sub, const struct ts_jobplan *p)
{
    cJSON *body = ts_workload_encode(wl);
    struct ts_kube_req r = {0};

    r.verb = verb;
    r.res = &ts__ctl_res_workloads;
    r.ns = wl->meta.namespace_;
    r.name = verb == TS_KUBE_CREATE ? NULL : wl->meta.name;
    r.subresource = sub;
    r.body = body;
    submit(c, key, &r, p);
    cJSON_Delete(body);
}

static void execute(struct ts_ctl *c, const char *key, const cJSON *job,
                    const struct ts_kube_resource *res, struct ts_jobplan *p)
{
    if (p->ops & TS_JOBPLAN_CREATE_WORKLOAD)
        write_workload(c, key, &p->workload, TS_KUBE_CREATE, NULL, NULL);
    if (p->ops & TS_JOBPLAN_UPDATE_WORKLOAD)
        write_workload(c, key, &p->workload, TS_KUBE_UPDATE, NULL, NULL);
    if (p->ops & TS_JOBPLAN_WORKLOAD_STATUS)
        write_workload(c, key, &p->workload, TS_KUBE_UPDATE, "status", p);
    if (p->ops & TS_JOBPLAN_UPDATE_JOB) {
        struct ts_kube_req r = {0};

        r.verb = TS_KUBE_UPDATE;
        r.res = res;
        r.ns = ts_json_get_string(job, "metadata.namespace");
        r.name = ts_json_get_string(job, "metadata.name");
        r.body = p->job;
        submit(c, key, &r, NULL);
    }
    if (p->event_reason)
        ts_recorder_event(c->events, job, p->event_type, p->event_reason, "%s", p->event_message);
}

/* The Workload the job owns (Kueue's name for it), or NULL. */
static int owned(struct ts_ctl *c, const cJSON *job, const char *kind, const char *group,
                 struct ts_workload *wl)
{
    char *name = ts_jobworkload_name(kind, group, ts_json_get_string(job, "metadata.name"),
                                     ts_json_get_string(job, "metadata.uid"));
    const cJSON *obj =
        ts_informer_get_ns(c->inf[TS__CTL_WL], ts_json_get_string(job, "metadata.namespace"), name);
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_object o;
    int found = 0;

    free(name);
    if (obj && ts_object_decode(obj, &o, &errs, NULL) == 0 && o.kind == TS_KIND_WORKLOAD) {
        *wl = o.u.wl;
        found = 1;
    } else if (obj && o.kind != TS_KIND_UNKNOWN) {
        ts_object_release(&o);
    }
    ts_field_errors_release(&errs);
    return found;
}

void ts__ctl_reconcile_job(struct ts_workqueue *q, const char *key, void *data)
{
    struct ts_ctl *c = data;
    int ptj;
    const cJSON *job = job_of_key(c, key, &ptj);
    struct ts_priority_lookup prio = {wpc, pc, default_pc, c->engine};
    struct flavors fl;
    struct ts_jobplan_env env = {&prio,
                                 flavor,
                                 &fl,
                                 c->opts.config.manage_jobs_without_queue_name,
                                 c->opts.config.wait_for_pods_ready,
                                 c->opts.config.pods_ready_timeout_s * TS_TIME_SECOND,
                                 c->opts.config.backoff_base_s,
                                 c->opts.config.backoff_max_s};
    struct ts_workload wl;
    struct ts_jobplan p;
    struct ts_err err = {0};
    int has;

    memset(&fl, 0, sizeof(fl));
    fl.c = c;
    if (!job || !c->synced) { /* deleted (its Workload goes by GC), or too early */
        if (job)
            ts_workqueue_add_after(q, key, 100 * 1000 * 1000, ts_loop_now(c->loop));
        ts_workqueue_done(q, key);
        return;
    }
    has = owned(c, job, ptj ? "PyTorchJob" : "Job", ptj ? "kubeflow.org" : "batch", &wl);
    ts_jobplan_init(&p);
    if (ts_jobplan_make(job, has ? &wl : NULL, &env, ts__ctl_now(c), &p, &err)) {
        ts_log_warn("controller", "job=%s cannot be reconciled: %s", key, err.msg);
        /* Kueue's jobframework reports a job it cannot make a Workload of so */
        ts_recorder_event(c->events, job, "Warning", "ErrWorkloadCompose", "%s", err.msg);
    } else
        execute(c, key, job, ptj ? &ts__ctl_res_pytorchjobs : &ts_kube_res_jobs, &p);
    if (p.requeue_after > 0) /* a PodsReady timeout or a backoff ends then */
        ts_workqueue_add_after(q, key, p.requeue_after, ts_loop_now(c->loop));
    ts_jobplan_release(&p);
    if (has)
        ts_workload_release(&wl);
    for (size_t i = 0; i < fl.n; i++)
        ts_resource_flavor_release(&fl.rf[i]);
    ts_workqueue_done(q, key);
}
