/* jobs.c - the job reconciler: one key per job ("<Kind>/ns/name": Job,
 * the Kubeflow kinds, JobSet: controller/jobkind.h), planned by jobplan.c
 * and executed as API writes.
 * A failed write requeues the key with backoff; the next reconcile starts
 * again from the cache, so nothing half-done is remembered. */
#include "api/jobworkload.h"
#include "api/object.h"
#include "controller/jobplan.h"
#include "controller/podgroup.h"
#include "controller/manager_int.h"
#include "json/json.h"
#include "util/alloc.h"
#include "util/log.h"
#include "util/parse.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STANDALONE "Workload/"

/* Whether a Workload no job owns needs the workload controller's steps:
 * it has admission check states, or its ClusterQueue names checks, or it
 * is being deactivated or waits out a backoff.  Others are the engine's
 * alone, and are not reconciled for nothing on every write. */
static int standalone_needed(struct ts_ctl *c, const cJSON *wl)
{
    const char *cq = ts_json_get_string(wl, "status.admission.clusterQueue");
    const cJSON *active = ts_json_get(wl, "spec.active");

    if (cJSON_GetArraySize(ts_json_get(wl, "status.admissionChecks")) > 0 ||
        ts_json_get(wl, "status.requeueState") || cJSON_IsFalse(active))
        return 1;
    if (!cq) {
        const char *lq = ts_json_get_string(wl, "spec.queueName");
        const cJSON *q = lq ? ts_informer_get_ns(c->inf[TS__CTL_LQ],
                                                 ts_json_get_string(wl, "metadata.namespace"), lq)
                            : NULL;

        cq = ts_json_get_string(q, "spec.clusterQueue");
    }
    return cq && ts_engine_cq_has_checks(c->engine, cq);
}

void ts__ctl_enqueue_owner(struct ts_ctl *c, const cJSON *wl)
{
    const cJSON *ref;
    int owned = 0;

    cJSON_ArrayForEach(ref, ts_json_get(wl, "metadata.ownerReferences"))
    {
        const char *kind = ts_json_get_string(ref, "kind");
        char key[600];

        if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ref, "controller")) ||
            !ts_jobkind_by_kind(kind))
            continue;
        snprintf(key, sizeof(key), "%s/%s/%s", kind, ts_json_get_string(wl, "metadata.namespace"),
                 ts_json_get_string(ref, "name"));
        ts_workqueue_add(c->jobs, key);
        owned = 1;
    }
    if (!owned &&
        cJSON_IsString(ts_json_get(wl, "metadata.annotations[" TS_POD_ANNOTATION_IS_GROUP "]"))) {
        char key[600]; /* a pod group's: its members own it, not as controller */

        snprintf(key, sizeof(key), TS__CTL_PODGROUP_PREFIX "%s/%s",
                 ts_json_get_string(wl, "metadata.namespace"),
                 ts_json_get_string(wl, "metadata.name"));
        ts_workqueue_add(c->jobs, key);
        owned = 1;
    }
    if (!owned && standalone_needed(c, wl)) {
        char key[600];

        snprintf(key, sizeof(key), STANDALONE "%s/%s", ts_json_get_string(wl, "metadata.namespace"),
                 ts_json_get_string(wl, "metadata.name"));
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

const struct ts_resource_flavor *ts__ctl_flavor(void *ctx, const char *name)
{
    struct ts__ctl_flavors *f = ctx;
    const cJSON *obj = ts_informer_get_ns(f->c->inf[TS__CTL_RF], NULL, name);
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_dec d;

    for (size_t i = 0; i < f->n; i++) {
        if (f->rf[i].meta.name && !strcmp(f->rf[i].meta.name, name))
            return &f->rf[i];
    }
    if (!obj || f->n == TS__CTL_FLAVORS_MAX)
        return NULL;
    ts_dec_init(&d, &errs);
    ts_resource_flavor_init(&f->rf[f->n]);
    ts_resource_flavor_decode(&d, obj, &f->rf[f->n]);
    ts_field_errors_release(&errs);
    return &f->rf[f->n++];
}

void ts__ctl_flavors_release(struct ts__ctl_flavors *f)
{
    for (size_t i = 0; i < f->n; i++)
        ts_resource_flavor_release(&f->rf[i]);
    f->n = 0;
}

struct jobwrite {
    struct ts_ctl *c;
    char *key;
    /* a Workload status write's metric, recorded once it landed */
    enum ts_jobplan_metric metric;
    char *cq, *priority_class;
    char *lq_ns, *lq_name; /* lq_name NULL: no local_queue_* series */
    char *cause;    /* the eviction's underlying cause (WaitForStart, RequeuingLimitExceeded...) */
    double seconds; /* execution time (finished) */
    int first;      /* first eviction (PodsReadyTimeout) */
    double checks_wait; /* admitted: seconds since the quota reservation */
    /* the Workload status write to send once this job write landed */
    struct jobwrite *then;
    cJSON *then_body;
    int create;      /* the Workload's creation: a refusal is reported on the job */
    int job;         /* a write of the job itself (counted in c->job_writes) */
    int del;         /* a delete of the job (a Pod's stop): gone already is done */
    int64_t base_rv; /* a job write: the version it was built on (0: not a number) */
};

#define EXPECT_NS (2 * TS_TIME_SECOND)

/* Holds the job's reconciles until the cache has version rv. */
static void expect_at(struct ts_ctl *c, const char *key, int64_t rv)
{
    struct ts__ctl_expect *x;

    if (!(x = ts_hmap_get(&c->job_expect, key))) {
        x = ts_xcalloc(1, sizeof(*x));
        ts_hmap_put(&c->job_expect, key, x);
    }
    x->rv = rv;
    x->deadline = ts_loop_now(c->loop) + EXPECT_NS;
}

/* Remembers the resourceVersion a landed job write produced. */
static void expect_rv(struct ts_ctl *c, const char *key, const cJSON *job)
{
    int64_t rv;

    if (ts_parse_i64_c(ts_json_get_string(job, "metadata.resourceVersion"), &rv))
        return; /* not a number: nothing to compare, trust the cache */
    expect_at(c, key, rv);
}

/* Whether the cached job may lag behind our own write: its
 * resourceVersion is older than the one the write produced (numbers, as
 * etcd's revisions and turnstile-apiserver's are), for at most
 * EXPECT_NS. */
static int cache_behind(struct ts_ctl *c, const char *key, const cJSON *job)
{
    struct ts__ctl_expect *x = ts_hmap_get(&c->job_expect, key);
    int64_t rv;

    if (!x)
        return 0;
    if (job && !ts_parse_i64_c(ts_json_get_string(job, "metadata.resourceVersion"), &rv) &&
        rv < x->rv && ts_loop_now(c->loop) < x->deadline)
        return 1;
    free(ts_hmap_del(&c->job_expect, key));
    return 0;
}

void ts__ctl_count_write(struct ts_ctl *c, const char *key, int d)
{
    uintptr_t n = (uintptr_t)ts_hmap_get(&c->job_writes, key) + (uintptr_t)(intptr_t)d;

    if (n)
        ts_hmap_put(&c->job_writes, key, (void *)n);
    else
        ts_hmap_del(&c->job_writes, key);
}

static void measure(struct jobwrite *w)
{
    struct ts_kmetrics_wl m = {w->cq, w->priority_class, w->lq_ns, w->lq_name};

    if (w->metric == TS_JOBPLAN_METRIC_FINISHED)
        ts_kmetrics_finished(w->c->metrics, &m, w->seconds);
    else if (w->metric == TS_JOBPLAN_METRIC_PODS_READY_TIMEOUT)
        ts_kmetrics_evicted(w->c->metrics, &m, TS_WL_REASON_PODS_READY_TIMEOUT, w->cause, w->first);
    else if (w->metric == TS_JOBPLAN_METRIC_DEACTIVATED)
        ts_kmetrics_evicted(w->c->metrics, &m, TS_WL_REASON_DEACTIVATED, w->cause, w->first);
    else if (w->metric == TS_JOBPLAN_METRIC_EVICTED)
        ts_kmetrics_evicted(w->c->metrics, &m, w->cause, "", w->first);
    else if (w->metric == TS_JOBPLAN_METRIC_ADMITTED) {
        ts_kmetrics_admitted(w->c->metrics, &m, w->seconds, NULL, 0);
        ts_kmetrics_admission_checks_waited(w->c->metrics, &m, w->checks_wait);
    }
}

/* The cached job of a work queue key ("<Kind>/ns/name"), NULL when gone
 * or not managed; *kind is its adapter.  Ownership: a copy the caller
 * frees with cJSON_Delete() (job informers are compact). */
static cJSON *job_of_key(struct ts_ctl *c, const char *key, const struct ts_jobkind **kind)
{
    const char *rest = strchr(key, '/') + 1, *slash = strchr(rest, '/');
    char name[64], ns[256];
    struct ts_informer *inf;

    snprintf(name, sizeof(name), "%.*s", (int)(rest - 1 - key), key);
    snprintf(ns, sizeof(ns), "%.*s", (int)(slash - rest), rest);
    *kind = ts_jobkind_by_kind(name); /* keys are made from the kinds' names */
    inf = *kind ? c->inf[TS__CTL_JOBKIND_INF(*kind - ts_jobkinds)] : NULL;
    return inf ? ts_informer_fetch(inf, ns, slash + 1) : NULL;
}

/* The API or a webhook refused the Workload made from job `key`: say why
 * on the job, which is all its owner looks at. */
static void refused(struct ts_ctl *c, const char *key, const char *msg)
{
    const struct ts_jobkind *k;
    cJSON *job = job_of_key(c, key, &k);

    if (job)
        ts_recorder_event(c->events, job, "Warning", "ErrWorkloadCompose", "%s", msg);
    cJSON_Delete(job);
}

static void send(struct jobwrite *w, struct ts_kube_req *r);
static void status_request(const cJSON *body, struct ts_kube_req *r);
static void jobwrite_free(struct jobwrite *w);

static void job_written(struct ts_kube_client *kc, struct ts_kube_result *res, void *data)
{
    struct jobwrite *w = data;

    (void)kc;
    w->c->inflight--;
    if (w->del && res->code == TS_ENOTFOUND)
        res->code = 0;
    if (w->job) {
        ts__ctl_count_write(w->c, w->key, -1);
        if (!res->code)
            expect_rv(w->c, w->key, res->obj);
        else if (res->unsure && w->base_rv)
            /* it may have landed (a reply lost, then its retry's 409):
             * the next plan waits for any newer version, which is ours
             * if it landed, since the write required base_rv.  A plan on
             * the older copy refuses nothing itself but can mislead: a
             * stop planned on a start not seen yet finds nothing to stop
             * and releases the quota under a running job. */
            expect_at(w->c, w->key, w->base_rv + 1);
    }
    if (res->code && res->code != TS_EEXIST) {
        ts_log_info("controller", "job=%s write failed: %s", w->key, res->err.msg);
        if (w->create &&
            (res->http_status == 400 || res->http_status == 403 || res->http_status == 422))
            refused(w->c, w->key, res->err.msg);
        ts_workqueue_add_rate_limited(w->c->jobs, w->key, ts_loop_now(w->c->loop));
    } else {
        /* as controller-runtime forgets a key whose reconcile succeeded:
         * else each failure of a job's life would lengthen its next
         * backoff, up to 1000 s */
        ts_workqueue_forget(w->c->jobs, w->key);
        if (!res->code && w->metric)
            measure(w);
    }
    if (w->then && !res->code) { /* the job is stopped: now the quota may go */
        struct ts_kube_req r = {0};
        struct jobwrite *next = w->then;

        w->then = NULL;
        status_request(w->then_body, &r);
        send(next, &r);
    }
    jobwrite_free(w);
}

static void jobwrite_free(struct jobwrite *w)
{
    if (w->then)
        jobwrite_free(w->then);
    cJSON_Delete(w->then_body);
    free(w->key);
    free(w->cq);
    free(w->priority_class);
    free(w->lq_ns);
    free(w->lq_name);
    free(w->cause);
    free(w);
}

static void jobwrite_release(void *data)
{
    jobwrite_free(data);
}

/* A write for key; a landed status write of `metric_of` (may be NULL) is
 * counted in Kueue's metrics.  Ownership: sent (and freed) by send(). */
static struct jobwrite *prepare(struct ts_ctl *c, const char *key,
                                const struct ts_jobplan *metric_of)
{
    struct jobwrite *w = ts_xcalloc(1, sizeof(*w));

    w->c = c;
    w->key = ts_xstrdup(key);
    if (metric_of && metric_of->metric && metric_of->workload.status.admission) {
        const struct ts_workload *wl = &metric_of->workload;
        const struct ts_condition *adm =
            ts_conditions_find(&wl->status.conditions, TS_WL_COND_ADMITTED);

        w->metric = metric_of->metric;
        w->cq = ts_xstrdup(wl->status.admission->cluster_queue);
        w->lq_ns = ts_xstrdup(wl->meta.namespace_);
        if (ts__ctl_lq_metrics(c, wl->meta.namespace_, wl->spec.queue_name))
            w->lq_name = ts_xstrdup(wl->spec.queue_name);
        w->priority_class =
            wl->spec.priority_class_ref.name ? ts_xstrdup(wl->spec.priority_class_ref.name) : NULL;
        w->seconds = adm ? (double)(ts__ctl_now(c) - adm->last_transition_time) / 1e9 : 0;
        if (metric_of->metric == TS_JOBPLAN_METRIC_ADMITTED) /* queued: since creation */
            w->seconds = (double)(ts__ctl_now(c) - wl->meta.creation_timestamp) / 1e9;
        w->checks_wait = metric_of->metric_checks_wait_s;
        w->first = metric_of->metric_first;
        w->cause = ts_xstrdup(metric_of->metric_cause ? metric_of->metric_cause : "");
    }
    return w;
}

/* Submits r (copied) for w; job_written() runs when it is answered. */
static void send(struct jobwrite *w, struct ts_kube_req *r)
{
    struct ts_err err = {0};

    r->release = jobwrite_release; /* still unanswered when the controller stops */
    w->c->inflight++;
    if (ts_kube_submit(w->c->client, r, job_written, w, NULL, &err)) {
        struct ts_kube_result res = {0};

        res.code = TS_EINVAL;
        res.err = err;
        job_written(w->c->client, &res, w);
    }
}

/* The status subresource write of an encoded Workload. */
static void status_request(const cJSON *body, struct ts_kube_req *r)
{
    r->verb = TS_KUBE_UPDATE;
    r->res = &ts_kube_res_workloads;
    r->ns = ts_json_get_string(body, "metadata.namespace");
    r->name = ts_json_get_string(body, "metadata.name");
    r->subresource = "status";
    r->body = body;
}

static void write_workload(struct ts_ctl *c, const char *key, const struct ts_workload *wl,
                           enum ts_kube_verb verb)
{
    cJSON *body = ts_workload_encode(wl);
    struct ts_kube_req r = {0};
    struct jobwrite *w;

    r.verb = verb;
    r.res = &ts_kube_res_workloads;
    r.ns = wl->meta.namespace_;
    r.name = verb == TS_KUBE_CREATE ? NULL : wl->meta.name;
    r.body = body;
    w = prepare(c, key, NULL);
    w->create = verb == TS_KUBE_CREATE;
    send(w, &r);
    cJSON_Delete(body);
}

/* The plan's writes.  A status write that comes with a job write (a
 * stopped job's quota released, as Kueue's reconciler does it: stop, then
 * unset the reservation) is sent only once the job write landed, so a
 * failed stop never frees quota under a job that still runs. */
static void execute(struct ts_ctl *c, const char *key, const cJSON *job,
                    const struct ts_kube_resource *res, struct ts_jobplan *p)
{
    struct jobwrite *status = NULL;
    cJSON *status_body = NULL;

    if (p->ops & TS_JOBPLAN_CREATE_WORKLOAD)
        write_workload(c, key, &p->workload, TS_KUBE_CREATE);
    if (p->ops & TS_JOBPLAN_UPDATE_WORKLOAD)
        write_workload(c, key, &p->workload, TS_KUBE_UPDATE);
    if (p->ops & TS_JOBPLAN_WORKLOAD_STATUS) {
        status = prepare(c, key, p);
        status_body = ts_workload_encode(&p->workload);
    }
    if (p->ops & (TS_JOBPLAN_UPDATE_JOB | TS_JOBPLAN_UPDATE_JOB_STATUS | TS_JOBPLAN_DELETE_JOB)) {
        struct ts_kube_req r = {0};
        struct jobwrite *w = prepare(c, key, NULL);

        r.verb = p->ops & TS_JOBPLAN_DELETE_JOB ? TS_KUBE_DELETE : TS_KUBE_UPDATE;
        r.res = res;
        r.subresource = p->ops & TS_JOBPLAN_UPDATE_JOB_STATUS ? "status" : NULL;
        r.ns = ts_json_get_string(job, "metadata.namespace");
        r.name = ts_json_get_string(job, "metadata.name");
        r.body = p->ops & TS_JOBPLAN_DELETE_JOB ? NULL : p->job;
        w->then = status;
        w->then_body = status_body;
        w->job = 1;
        w->del = (p->ops & TS_JOBPLAN_DELETE_JOB) != 0;
        if (ts_parse_i64_c(ts_json_get_string(job, "metadata.resourceVersion"), &w->base_rv))
            w->base_rv = 0;
        ts__ctl_count_write(c, key, +1);
        status = NULL;
        status_body = NULL;
        send(w, &r);
    } else if (status) {
        struct ts_kube_req r = {0};

        status_request(status_body, &r);
        send(status, &r);
        cJSON_Delete(status_body);
    }
    if (p->event_reason && p->event_on_workload) {
        cJSON *wl = ts_workload_encode(&p->workload);

        ts_recorder_event(c->events, wl, p->event_type, p->event_reason, "%s", p->event_message);
        cJSON_Delete(wl);
    } else if (p->event_reason && job) {
        ts_recorder_event(c->events, job, p->event_type, p->event_reason, "%s", p->event_message);
    }
}

/* The Workload the job owns (Kueue's name for it), or NULL. */
static int owned(struct ts_ctl *c, const cJSON *job, const char *kind, const char *group,
                 struct ts_workload *wl)
{
    char *name = ts_jobworkload_name(kind, group, ts_json_get_string(job, "metadata.name"),
                                     ts_json_get_string(job, "metadata.uid"));
    cJSON *obj =
        ts_informer_fetch(c->inf[TS__CTL_WL], ts_json_get_string(job, "metadata.namespace"), name);
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
    cJSON_Delete(obj);
    return found;
}

static enum ts_stop_policy stop_policy_of(const cJSON *queue)
{
    const char *s = ts_json_get_string(queue, "spec.stopPolicy");

    if (s && !strcmp(s, "HoldAndDrain"))
        return TS_STOP_HOLD_AND_DRAIN;
    return s && !strcmp(s, "Hold") ? TS_STOP_HOLD : TS_STOP_NONE;
}

/* wl's LocalQueue (NULL when missing) and the name of its ClusterQueue:
 * the one it is admitted to, else the one its LocalQueue names (NULL:
 * none).  Borrowed from the informers' caches and wl. */
static const char *cq_of(struct ts_ctl *c, const struct ts_workload *wl, const cJSON **lq)
{
    *lq = wl->spec.queue_name
              ? ts_informer_get_ns(c->inf[TS__CTL_LQ], wl->meta.namespace_, wl->spec.queue_name)
              : NULL;
    return wl->status.admission && wl->status.admission->cluster_queue
               ? wl->status.admission->cluster_queue
               : ts_json_get_string(*lq, "spec.clusterQueue");
}

/* The stop policies of wl's LocalQueue and of the ClusterQueue that
 * LocalQueue names, from the informers.  As Kueue's workload controller
 * (ClusterQueueForWorkload, pkg/cache/queue/manager.go): a ClusterQueue's
 * policy reaches a workload only through a LocalQueue that exists and is not
 * stopped, since a stopped LocalQueue is out of Kueue's queue manager. */
static void queue_stops(struct ts_ctl *c, const struct ts_workload *wl, struct ts_jobplan_env *env)
{
    const cJSON *lq =
        wl->spec.queue_name
            ? ts_informer_get_ns(c->inf[TS__CTL_LQ], wl->meta.namespace_, wl->spec.queue_name)
            : NULL;
    const char *cq_name = lq ? ts_json_get_string(lq, "spec.clusterQueue") : NULL;
    const cJSON *cq = NULL;

    env->lq_stop = lq ? stop_policy_of(lq) : TS_STOP_NONE;
    if (cq_name && env->lq_stop == TS_STOP_NONE)
        cq = ts_informer_get_ns(c->inf[TS__CTL_CQ], NULL, cq_name);
    env->cq_stop = cq ? stop_policy_of(cq) : TS_STOP_NONE;
    env->lq_missing = !lq;
    env->cq_unreached = !cq;
}

/* The admission checks wl must have: its ClusterQueue's (the one it is
 * admitted to, else the one its LocalQueue names) for its flavors.
 * TS_ENOTFOUND when that queue is not known. */
static int checks_of(struct ts_ctl *c, const struct ts_workload *wl, struct ts_strlist *out)
{
    const cJSON *lq;
    const char *cq = cq_of(c, wl, &lq);

    return cq ? ts_engine_checks_for(c->engine, cq, wl->status.admission, out) : TS_ENOTFOUND;
}

/* A Workload no job owns (key "Workload/ns/name"): the workload
 * controller's steps only (jobplan.h, ts_jobplan_make_standalone()). */
static void reconcile_standalone(struct ts_ctl *c, struct ts_workqueue *q, const char *key)
{
    const char *rest = key + strlen(STANDALONE), *slash = strchr(rest, '/');
    struct ts_strlist checks = TS_STRLIST_INIT;
    struct ts_jobplan_env env;
    struct ts_workload wl;
    struct ts_jobplan p;
    char ns[256];

    memset(&env, 0, sizeof(env));
    ts_jobplan_init(&p);
    snprintf(ns, sizeof(ns), "%.*s", slash ? (int)(slash - rest) : 0, rest);
    if (c->synced && slash && !ts__ctl_cached_workload(c, ns, slash + 1, &wl)) {
        if (checks_of(c, &wl, &checks) == 0)
            env.checks = &checks;
        ts_jobplan_make_standalone(&wl, &env, ts__ctl_now(c), &p);
        execute(c, key, NULL, NULL, &p);
        if (p.requeue_after > 0) /* a backoff ends then */
            ts_workqueue_add_after(q, key, p.requeue_after, ts_loop_now(c->loop));
        ts_workload_release(&wl);
    } else if (!c->synced) {
        ts_workqueue_add_after(q, key, 100 * 1000 * 1000, ts_loop_now(c->loop));
    }
    ts_jobplan_release(&p);
    ts_strlist_release(&checks);
    ts_workqueue_done(q, key);
}

/* A job's controller of kind k from that kind's informer (jobplan.h);
 * kinds without one (not a framework, not served) are not managed. */
static cJSON *owner_of(void *ctx, const struct ts_jobkind *k, const char *ns, const char *name,
                       int *on)
{
    struct ts_ctl *c = ctx;
    struct ts_informer *inf = c->inf[TS__CTL_JOBKIND_INF(k - ts_jobkinds)];

    *on = inf != NULL;
    return inf ? ts_informer_fetch(inf, ns, name) : NULL;
}

/* The writes of a pod group's plan: the Workload's, then each member's
 * update or delete, each counted as a write of the group's key. */
void ts__ctl_execute_group(struct ts_ctl *c, const char *key, const char *ns,
                           struct ts_podgroup_plan *gp, const cJSON *event_obj)
{
    struct ts_jobplan *p = &gp->base;
    const struct ts_jobkind *k = ts_jobkind_by_kind(TS_POD_KIND);

    if (p->ops & TS_JOBPLAN_CREATE_WORKLOAD)
        write_workload(c, key, &p->workload, TS_KUBE_CREATE);
    if (p->ops & TS_JOBPLAN_UPDATE_WORKLOAD)
        write_workload(c, key, &p->workload, TS_KUBE_UPDATE);
    if (p->ops & TS_JOBPLAN_WORKLOAD_STATUS) {
        struct ts_kube_req r = {0};
        struct jobwrite *w = prepare(c, key, p);
        cJSON *body = ts_workload_encode(&p->workload);

        status_request(body, &r);
        send(w, &r);
        cJSON_Delete(body);
    }
    for (size_t i = 0; i < gp->n_updates + gp->n_deletes; i++) {
        struct ts_kube_req r = {0};
        struct jobwrite *w = prepare(c, key, NULL);

        r.res = &k->res;
        r.ns = ns;
        if (i < gp->n_updates) {
            r.verb = TS_KUBE_UPDATE;
            r.name = ts_json_get_string(gp->updates[i], "metadata.name");
            r.body = gp->updates[i];
        } else {
            r.verb = TS_KUBE_DELETE;
            r.name = gp->deletes[i - gp->n_updates];
            w->del = 1;
        }
        w->job = 1;
        ts__ctl_count_write(c, key, +1);
        send(w, &r);
    }
    if (p->event_reason && event_obj)
        ts_recorder_event(c->events, event_obj, p->event_type, p->event_reason, "%s",
                          p->event_message);
}

struct members {
    cJSON **pods;
    size_t n;
};

static int add_member(const char *key, const cJSON *obj, void *data)
{
    struct members *m = data;

    (void)key;
    m->pods = ts_xrealloc(m->pods, (m->n + 1) * sizeof(*m->pods));
    m->pods[m->n++] = cJSON_Duplicate(obj, 1);
    return 0;
}

/* A pod group (key "PodGroup/ns/group"): its members from the Pod
 * informer's group index, its Workload (named after the group), planned by
 * podgroup.c. */
static void reconcile_podgroup(struct ts_ctl *c, struct ts_workqueue *q, const char *key,
                               struct ts_jobplan_env *env)
{
    const char *rest = key + strlen(TS__CTL_PODGROUP_PREFIX), *slash = strchr(rest, '/');
    struct ts_informer *inf =
        c->inf[TS__CTL_JOBKIND_INF(ts_jobkind_by_kind(TS_POD_KIND) - ts_jobkinds)];
    struct members m = {NULL, 0};
    struct ts_podgroup_plan gp;
    struct ts_workload wl;
    char ns[256];
    int has = 0;

    if (!slash || !inf) {
        ts_workqueue_done(q, key);
        return;
    }
    if (ts_hmap_get(&c->job_writes, key) || !c->synced) { /* as for a job */
        ts_workqueue_add_after(q, key, 20 * 1000 * 1000, ts_loop_now(c->loop));
        ts_workqueue_done(q, key);
        return;
    }
    snprintf(ns, sizeof(ns), "%.*s", (int)(slash - rest), rest);
    ts_informer_by_index(inf, TS__CTL_POD_GROUP_INDEX, rest, add_member, &m);
    has = ts__ctl_cached_workload(c, ns, slash + 1, &wl) == 0;
    ts_podgroup_plan_init(&gp);
    ts_podgroup_plan_make(slash + 1, m.pods, m.n, has ? &wl : NULL, env, ts__ctl_now(c), &gp);
    {
        const cJSON *event_obj = NULL;

        for (size_t i = 0; i < m.n && gp.event_pod; i++) {
            if (!strcmp(ts_json_get_string(m.pods[i], "metadata.name"), gp.event_pod))
                event_obj = m.pods[i];
        }
        ts__ctl_execute_group(c, key, ns, &gp, event_obj);
    }
    if (gp.base.requeue_after > 0)
        ts_workqueue_add_after(q, key, gp.base.requeue_after, ts_loop_now(c->loop));
    ts_podgroup_plan_release(&gp);
    if (has)
        ts_workload_release(&wl);
    for (size_t i = 0; i < m.n; i++)
        cJSON_Delete(m.pods[i]);
    free(m.pods);
    ts_workqueue_done(q, key);
}

void ts__ctl_reconcile_job(struct ts_workqueue *q, const char *key, void *data)
{
    struct ts_ctl *c = data;
    const struct ts_jobkind *k = NULL;
    cJSON *job;
    struct ts_priority_lookup prio = {wpc, pc, default_pc, c->engine};
    struct ts__ctl_flavors fl;
    struct ts_jobplan_env env = {
        .prio = &prio,
        .flavor = ts__ctl_flavor,
        .flavor_ctx = &fl,
        .manage_jobs_without_queue_name = c->opts.config.manage_jobs_without_queue_name,
        .wait_for_pods_ready = c->opts.config.wait_for_pods_ready,
        .pods_ready_timeout = c->opts.config.pods_ready_timeout_s * TS_TIME_SECOND,
        .backoff_base_s = c->opts.config.backoff_base_s,
        .backoff_max_s = c->opts.config.backoff_max_s,
        .pods_ready_recovery_timeout =
            c->opts.config.pods_ready_recovery_timeout_s * TS_TIME_SECOND,
        .backoff_limit_count = c->opts.config.backoff_limit_count,
        .label_keys_to_copy = &c->opts.config.label_keys_to_copy,
        .lq_stop = TS_STOP_NONE,
        .cq_stop = TS_STOP_NONE,
        .pods_parent_only = !ts_config_framework_on(&c->opts.config, "pod"),
        .owner = owner_of,
        .owner_ctx = c,
        .runtime = ts__ctl_runtime,
        .runtime_ctx = c,
        .external_frameworks = &c->opts.config.external_frameworks,
    };
    struct ts_strlist checks = TS_STRLIST_INIT;
    struct ts_workload wl;
    struct ts_jobplan p;
    struct ts_err err = {0};
    int has;

    if (ts__ctl_is_finalize_key(key)) {
        ts__ctl_reconcile_finalizer(c, key);
        return;
    }
    if (!strncmp(key, STANDALONE, strlen(STANDALONE))) {
        reconcile_standalone(c, q, key);
        return;
    }
    if (ts__ctl_is_provreq_key(key)) {
        ts__ctl_reconcile_provreq(c, key);
        return;
    }
    if (ts__ctl_is_statefulset_key(key)) {
        ts__ctl_reconcile_statefulset(c, q, key, &env);
        return;
    }
    if (!strncmp(key, TS__CTL_PODGROUP_PREFIX, strlen(TS__CTL_PODGROUP_PREFIX))) {
        memset(&fl, 0, sizeof(fl));
        fl.c = c;
        reconcile_podgroup(c, q, key, &env);
        ts__ctl_flavors_release(&fl);
        return;
    }
    if (ts_hmap_get(&c->job_writes, key)) {
        /* our last write of this job is still in flight: a plan made now
         * would see the job as it was (a stop already sent would look
         * undone, a start not yet landed would look absent) */
        ts_workqueue_add_after(q, key, 20 * 1000 * 1000, ts_loop_now(c->loop));
        ts_workqueue_done(q, key);
        return;
    }
    memset(&fl, 0, sizeof(fl));
    fl.c = c;
    job = job_of_key(c, key, &k);
    if (job && cache_behind(c, key, job)) { /* the watch brings our write soon */
        ts_workqueue_add_after(q, key, 20 * 1000 * 1000, ts_loop_now(c->loop));
        ts_workqueue_done(q, key);
        cJSON_Delete(job);
        return;
    }
    if (!job || !c->synced) { /* deleted (its Workload goes by GC), or too early */
        if (job)
            ts_workqueue_add_after(q, key, 100 * 1000 * 1000, ts_loop_now(c->loop));
        else
            ts_workqueue_forget(q, key); /* its failure count goes with it */
        ts_workqueue_done(q, key);
        cJSON_Delete(job);
        return;
    }
    has = owned(c, job, k->res.kind, k->res.group, &wl);
    if (has) {
        queue_stops(c, &wl, &env);
        if (checks_of(c, &wl, &checks) == 0)
            env.checks = &checks;
    }
    ts_jobplan_init(&p);
    if (ts_jobplan_make(job, has ? &wl : NULL, &env, ts__ctl_now(c), &p, &err)) {
        ts_log_warn("controller", "job=%s cannot be reconciled: %s", key, err.msg);
        /* Kueue's jobframework reports a job it cannot make a Workload of so */
        ts_recorder_event(c->events, job, "Warning", "ErrWorkloadCompose", "%s", err.msg);
    } else {
        execute(c, key, job, &k->res, &p);
    }
    if (p.requeue_after > 0) /* a PodsReady timeout or a backoff ends then */
        ts_workqueue_add_after(q, key, p.requeue_after, ts_loop_now(c->loop));
    ts_jobplan_release(&p);
    ts_strlist_release(&checks);
    if (has)
        ts_workload_release(&wl);
    ts__ctl_flavors_release(&fl);
    cJSON_Delete(job);
    ts_workqueue_done(q, key);
}
