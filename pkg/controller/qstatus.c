/* qstatus.c - ClusterQueue and LocalQueue status: computed from the engine
 * each period, written when it differs from the cached object, within the
 * client's spare budget (queue statuses only inform), and Kueue's queue
 * metrics kept alongside. */
#include "api/object.h"
#include "controller/manager_int.h"
#include "engine/amount.h"
#include "engine/status.h"
#include "json/json.h"
#include "util/alloc.h"
#include "util/log.h"
#include "util/time.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- ClusterQueue and LocalQueue status ----------------------------------- */

struct status_write {
    struct ts_ctl *c;
    char key[]; /* "resource/ns/name" in c->status_inflight */
};

static void status_written(struct ts_kube_client *kc, struct ts_kube_result *res, void *data)
{
    struct status_write *w = data;

    (void)kc;
    ts_hmap_del(&w->c->status_inflight, w->key);
    if (res->code && res->code != TS_ECONFLICT) /* a conflict is retried next period */
        ts_log_info("controller", "clusterqueue status write failed: %s", res->err.msg);
    free(w);
}

static void status_key(char *key, size_t len, const struct ts_kube_resource *res, const char *ns,
                       const char *name)
{
    snprintf(key, len, "%s/%s/%s", res->resource, ns ? ns : "", name ? name : "");
}

void ts__ctl_status_forget(struct ts_ctl *c, const struct ts_kube_resource *res, const char *ns,
                           const char *name)
{
    char key[512];

    status_key(key, sizeof(key), res, ns, name);
    free(ts_hmap_del(&c->status_last, key));
    free(ts_hmap_del(&c->status_seen, key));
}

/* Whether write_if_changed() holds queue `key`'s write back now: one
 * in flight, or no spare budget and not overdue.  Under a saturated budget
 * most queues' cached statuses are out of date for minutes; computing
 * each again every period to find its write still waiting was a tenth of
 * the controller's CPU at 300 queues. */
static int write_waits(struct ts_ctl *c, const char *key)
{
    const int64_t *last;

    if (ts_hmap_get(&c->status_inflight, key))
        return 1;
    last = ts_hmap_get(&c->status_last, key);
    return last && ts_loop_now(c->loop) - *last < TS__CTL_STATUS_MAX_WAIT &&
           !ts_kube_client_spare(c->client, &ts_kube_res_workloads, TS__CTL_SPARE);
}

/* Writes the status of a queue object when it differs from what the
 * informer holds, and no write of it is still on its way: no write
 * storms.  (Behind a tight client budget a write per period per queue
 * piled up: 60 queues at 50 QPS queued stale writes that conflicted and
 * starved the Workload writes, see docs/benchmarks.md.)  It waits for
 * spare budget, up to TS__CTL_STATUS_MAX_WAIT. */
static int write_if_changed(struct ts_ctl *c, const struct ts_kube_resource *res, const cJSON *obj,
                            const char *key, const cJSON *body)
{
    const cJSON *before = cJSON_GetObjectItemCaseSensitive(obj, "status");
    struct ts_kube_req r = {0};
    struct status_write *w;
    int64_t now = ts_loop_now(c->loop), *last;

    if (before && ts_json_equal(before, cJSON_GetObjectItemCaseSensitive(body, "status")))
        return 1;
    /* a queue's status only informs, like a pending reason: it waits
     * until the Workload writes have spare budget, and an overdue one
     * takes a token of its own small budget.  (2,000 queues forced every
     * 30 s were 67 writes/s against a 50/s budget in the large-scale run;
     * on a lane of their own, written whenever it had a token, they were
     * 80 writes/s, each coming back through the watch: CPU that the
     * scheduling needs when the Workload writes are behind.) */
    if (write_waits(c, key))
        return 0;
    last = ts_hmap_get(&c->status_last, key);
    if (last && !ts_kube_client_spare(c->client, &ts_kube_res_workloads, TS__CTL_SPARE) &&
        !ts_ratelimit_try(&c->status_rl, now)) /* overdue */
        return 0;
    if (!last) {
        last = ts_xmalloc(sizeof(*last));
        ts_hmap_put(&c->status_last, key, last);
    }
    *last = now;
    w = ts_xmalloc(sizeof(*w) + strlen(key) + 1);
    w->c = c;
    memcpy(w->key, key, strlen(key) + 1);
    ts_hmap_put(&c->status_inflight, key, w);
    r.verb = TS_KUBE_UPDATE;
    r.res = res;
    r.ns = ts_json_get_string(obj, "metadata.namespace");
    r.name = ts_json_get_string(obj, "metadata.name");
    r.subresource = "status";
    r.body = body;
    if (ts_kube_submit(c->client, &r, status_written, w, NULL, NULL)) {
        ts_hmap_del(&c->status_inflight, key);
        free(w);
    }
    return 0;
}

/* --- queues whose status cannot have changed ------------------------------ */

/* A queue's status is computed from the engine and the cached object; it
 * can only change when the engine's status version or the object's
 * resourceVersion does.  Decoding, computing and encoding every queue each
 * period was a fifth of the controller's CPU with 600 queues. */
struct status_seen {
    struct ts_status_version v;
    int64_t at; /* loop time it was recorded: recomputed after MAX_WAIT anyway */
    char rv[32];
    /* 0: the cached status was out of date and its write waits
     * (write_waits()); computing it again gives the same body */
    int settled;
};

/* The version of the queue obj is, into *v; 0 when the queue has none (its
 * status is computed every period). */
static int queue_version(struct ts_ctl *c, const struct ts_kube_resource *res, const cJSON *obj,
                         struct ts_status_version *v)
{
    const char *name = ts_json_get_string(obj, "metadata.name");
    const char *ns = ts_json_get_string(obj, "metadata.namespace");

    if (!name)
        return 0;
    if (res == &ts_kube_res_clusterqueues)
        return ts_engine_cq_status_version(c->engine, name, v) == 0;
    if (!ns)
        return 0;
    ts_engine_lq_status_version(c->engine, ns, name, v);
    return 1;
}

/* Whether seen records version v and resourceVersion rv, recently. */
static int seen_is(const struct status_seen *seen, const struct ts_status_version *v,
                   const char *rv, int64_t now)
{
    return seen->v.epoch == v->epoch && seen->v.seq == v->seq && !strcmp(seen->rv, rv) &&
           now - seen->at < TS__CTL_STATUS_MAX_WAIT;
}

/* What was recorded (status_seen()) of queue `key` at version v and obj's
 * resourceVersion, or NULL. */
static struct status_seen *seen_at(struct ts_ctl *c, const char *key, const cJSON *obj,
                                   const struct ts_status_version *v)
{
    const char *rv = ts_json_get_string(obj, "metadata.resourceVersion");
    struct status_seen *seen;

    if (!rv)
        return NULL;
    seen = ts_hmap_get(&c->status_seen, key);
    return seen && seen_is(seen, v, rv, ts_loop_now(c->loop)) ? seen : NULL;
}

/* Records the outcome of computing queue `key`'s status at version v:
 * settled when the cached status equals it. */
static void status_seen(struct ts_ctl *c, const char *key, const cJSON *obj,
                        const struct ts_status_version *v, int settled)
{
    const char *rv = ts_json_get_string(obj, "metadata.resourceVersion");
    int64_t now = ts_loop_now(c->loop);
    struct status_seen *seen;

    if (!rv || strlen(rv) >= sizeof(seen->rv))
        return;
    if (!(seen = ts_hmap_get(&c->status_seen, key))) {
        seen = ts_xcalloc(1, sizeof(*seen));
        ts_hmap_put(&c->status_seen, key, seen);
    }
    if (!seen_is(seen, v, rv, now))
        seen->at = now;
    seen->v = *v;
    seen->settled = settled;
    memcpy(seen->rv, rv, strlen(rv) + 1);
}

/* What a flavor's resource holds in u, in natural units (0 if absent). */
static double held(const struct ts_flavor_usages *u, const char *flavor, const char *res)
{
    for (size_t f = 0; f < u->n; f++) {
        for (size_t r = 0; !strcmp(u->items[f].name, flavor) && r < u->items[f].n_resources; r++) {
            if (!strcmp(u->items[f].resources[r].name, res))
                return ts_amount_natural(res, ts_amount_of(res, &u->items[f].resources[r].total));
        }
    }
    return 0;
}

static double natural(const char *res, const struct ts_opt_quantity *q)
{
    return q->set ? ts_amount_natural(res, ts_amount_of(res, &q->q)) : NAN;
}

/* Kueue's cluster_queue_{resource_usage,resource_reservation,nominal_quota,
 * borrowing_limit,lending_limit} per flavor and resource of the spec
 * (metrics.enableClusterQueueResources). */
static void cq_resource_metrics(struct ts_ctl *c, const struct ts_cluster_queue *cq)
{
    const struct ts_resource_groups *g = &cq->spec.resource_groups;

    for (size_t i = 0; i < g->n; i++) {
        for (size_t f = 0; f < g->items[i].n_flavors; f++) {
            const struct ts_flavor_quotas *fq = &g->items[i].flavors[f];

            for (size_t r = 0; r < fq->n_resources; r++) {
                const struct ts_resource_quota *q = &fq->resources[r];
                struct ts_opt_quantity nominal = {1, q->nominal_quota};

                ts_kmetrics_cq_resource(c->metrics, cq->meta.name, cq->spec.cohort_name, fq->name,
                                        q->name, held(&cq->status.flavors_usage, fq->name, q->name),
                                        held(&cq->status.flavors_reservation, fq->name, q->name),
                                        natural(q->name, &nominal),
                                        natural(q->name, &q->borrowing_limit),
                                        natural(q->name, &q->lending_limit));
            }
        }
    }
}

/* Kueue's pending_workloads gauges, active and inadmissible, of one queue. */
static void cq_pending_metrics(struct ts_ctl *c, const char *name)
{
    size_t pending, inadmissible;

    if (ts_engine_cq_pending(c->engine, name, &pending, &inadmissible) == 0)
        ts_kmetrics_pending(c->metrics, name, (double)pending, (double)inadmissible);
}

static void lq_pending_metrics(struct ts_ctl *c, const char *ns, const char *name)
{
    size_t pending, inadmissible;

    ts_engine_lq_pending(c->engine, ns, name, &pending, &inadmissible);
    ts_kmetrics_lq_pending(c->metrics, ns, name, (double)pending, (double)inadmissible);
}

/* Kueue's local_queue_* gauges of one LocalQueue (localQueueMetrics). */
static void lq_metrics(struct ts_ctl *c, const struct ts_local_queue *lq)
{
    const char *ns = lq->meta.namespace_, *name = lq->meta.name;
    const struct ts_condition *active = ts_conditions_find(&lq->status.conditions, "Active");
    const struct ts_flavor_usages *res = &lq->status.flavors_reservation;

    if (!ts__ctl_lq_metrics(c, ns, name))
        return;
    lq_pending_metrics(c, ns, name);
    ts_kmetrics_lq_reserving_active(c->metrics, ns, name, lq->status.reserving_workloads);
    ts_kmetrics_lq_admitted_active(c->metrics, ns, name, lq->status.admitted_workloads);
    ts_kmetrics_lq_status(c->metrics, ns, name,
                          !active || !active->status         ? TS_KMETRICS_LQ_UNKNOWN
                          : !strcmp(active->status, "True")  ? TS_KMETRICS_LQ_TRUE
                          : !strcmp(active->status, "False") ? TS_KMETRICS_LQ_FALSE
                                                             : TS_KMETRICS_LQ_UNKNOWN);
    for (size_t f = 0; f < res->n; f++) {
        for (size_t r = 0; r < res->items[f].n_resources; r++) {
            const char *fl = res->items[f].name, *rn = res->items[f].resources[r].name;

            ts_kmetrics_lq_resource(c->metrics, ns, name, fl, rn,
                                    held(&lq->status.flavors_usage, fl, rn), held(res, fl, rn));
        }
    }
}

static void cq_metrics(struct ts_ctl *c, const struct ts_cluster_queue *cq)
{
    const struct ts_condition *active = ts_conditions_find(&cq->status.conditions, "Active");

    cq_pending_metrics(c, cq->meta.name);
    ts_kmetrics_reserving_active(c->metrics, cq->meta.name, cq->status.reserving_workloads);
    ts_kmetrics_admitted_active(c->metrics, cq->meta.name, cq->status.admitted_workloads);
    ts_kmetrics_cq_status(c->metrics, cq->meta.name,
                          cq->meta.deletion_timestamp ? TS_KMETRICS_CQ_TERMINATING
                          : active && active->status && !strcmp(active->status, "True")
                              ? TS_KMETRICS_CQ_ACTIVE
                              : TS_KMETRICS_CQ_PENDING);
    if (c->opts.config.metrics_cq_resources)
        cq_resource_metrics(c, cq);
}

/* The pending metrics of the queue obj, without computing its status. */
static void pending_metrics(struct ts_ctl *c, const struct ts_kube_resource *res, const cJSON *obj)
{
    const char *name = ts_json_get_string(obj, "metadata.name");
    const char *ns = ts_json_get_string(obj, "metadata.namespace");

    if (res == &ts_kube_res_clusterqueues && name)
        cq_pending_metrics(c, name);
    else if (ns && name && ts__ctl_lq_metrics(c, ns, name))
        lq_pending_metrics(c, ns, name);
}

static int queue_status(const char *ikey, const cJSON *obj, void *data)
{
    struct ts_ctl *c = data;
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    const struct ts_kube_resource *res = c->status_res;
    struct ts_status_version v;
    struct status_seen *seen;
    int versioned, settled = -1;
    struct ts_object o;
    cJSON *body = NULL;
    ts_time now = ts__ctl_now(c);
    char key[512];

    (void)ikey;
    status_key(key, sizeof(key), res, ts_json_get_string(obj, "metadata.namespace"),
               ts_json_get_string(obj, "metadata.name"));
    /* the version before computing: a change while computing is then
     * seen next period */
    versioned = queue_version(c, res, obj, &v);
    if (versioned && (seen = seen_at(c, key, obj, &v)) && (seen->settled || write_waits(c, key))) {
        if (seen->v.parking != v.parking) /* the pending metrics alone moved */
            pending_metrics(c, res, obj);
        seen->v.parking = v.parking;
        return 0;
    }
    if (ts_object_decode(obj, &o, &errs, NULL) || errs.n) {
        if (o.kind != TS_KIND_UNKNOWN)
            ts_object_release(&o);
        ts_field_errors_release(&errs);
        return 0;
    }
    if (o.kind == TS_KIND_CLUSTER_QUEUE &&
        ts_engine_cq_status(c->engine, o.u.cq.meta.name, now, &o.u.cq.status) == 0) {
        cq_metrics(c, &o.u.cq);
        body = ts_cluster_queue_encode(&o.u.cq);
        settled = write_if_changed(c, &ts_kube_res_clusterqueues, obj, key, body);
    } else if (o.kind == TS_KIND_LOCAL_QUEUE &&
               ts_engine_lq_status(c->engine, o.u.lq.meta.namespace_, o.u.lq.meta.name, now,
                                   &o.u.lq.status) == 0) {
        lq_metrics(c, &o.u.lq);
        body = ts_local_queue_encode(&o.u.lq);
        settled = write_if_changed(c, &ts_kube_res_localqueues, obj, key, body);
    }
    if (versioned && settled >= 0)
        status_seen(c, key, obj, &v, settled);
    cJSON_Delete(body);
    ts_object_release(&o);
    ts_field_errors_release(&errs);
    return 0;
}

void ts__ctl_queue_status(struct ts_loop *loop, void *data)
{
    struct ts_ctl *c = data;
    int64_t period = c->opts.status_period_ns ? c->opts.status_period_ns : TS_TIME_SECOND;

    c->status_timer = ts_loop_timer_add(loop, period, ts__ctl_queue_status, c);
    if (!c->synced || c->stopping || (c->leader && !ts_leader_is_leader(c->leader)))
        return;
    c->status_res = &ts_kube_res_clusterqueues;
    ts_informer_each(c->inf[TS__CTL_CQ], queue_status, c);
    c->status_res = &ts_kube_res_localqueues;
    ts_informer_each(c->inf[TS__CTL_LQ], queue_status, c);
    ts__ctl_kick(c); /* backoffs and requeue times expire with the clock */
}
