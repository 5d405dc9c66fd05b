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

/* The longest a changed queue status waits for spare budget. */
static int64_t max_wait(const struct ts_ctl *c)
{
    return c->opts.status_max_wait_ns ? c->opts.status_max_wait_ns : TS__CTL_STATUS_MAX_WAIT;
}

/* Whether a queue's status write may go out now (write_gate()). */
enum gate {
    GATE_GO,      /* spare budget, or never written */
    GATE_WAIT,    /* one in flight, or no spare budget and not overdue */
    GATE_OVERDUE, /* no spare budget, overdue: waits its turn (overdue_writes()) */
    GATE_TOKEN,   /* overdue and its turn: goes if status_rl has a token */
};

/* Whether queue `key`'s status write may go out now, and when it last
 * did (*last, 0 if never).  Under a saturated budget most queues' cached
 * statuses are out of date for minutes; computing each again every period
 * to find its write still waiting was a tenth of the controller's CPU at
 * 300 queues, so a queue that waits is not computed until its version
 * changes or its turn comes. */
static enum gate write_gate(struct ts_ctl *c, const char *key, int64_t *last)
{
    const int64_t *l = ts_hmap_get(&c->status_last, key);

    *last = l ? *l : 0;
    if (ts_hmap_get(&c->status_inflight, key))
        return GATE_WAIT;
    if (!l || ts_kube_client_spare(c->client, &ts_kube_res_workloads, TS__CTL_SPARE))
        return GATE_GO;
    return ts_loop_now(c->loop) - *l < max_wait(c) ? GATE_WAIT : GATE_OVERDUE;
}

enum written {
    WRITE_SETTLED, /* the cached status is the computed one */
    WRITE_SENT,
    WRITE_HELD,    /* out of date; the gate holds the write back */
    WRITE_OVERDUE, /* out of date and overdue: for overdue_write() */
};

/* Writes the status of a queue object when it differs from what the
 * informer holds and `gate` lets it, with no write of it still on its
 * way: no write storms.  (Behind a tight client budget a write per period
 * per queue piled up: 60 queues at 50 QPS queued stale writes that
 * conflicted and starved the Workload writes, see docs/benchmarks.md.) */
static enum written write_if_changed(struct ts_ctl *c, const struct ts_kube_resource *res,
                                     const cJSON *obj, const char *key, const cJSON *body,
                                     enum gate gate)
{
    const cJSON *before = cJSON_GetObjectItemCaseSensitive(obj, "status");
    struct ts_kube_req r = {0};
    struct status_write *w;
    int64_t now = ts_loop_now(c->loop), *last;

    if (before && ts_json_equal(before, cJSON_GetObjectItemCaseSensitive(body, "status")))
        return WRITE_SETTLED;
    /* a queue's status only informs, like a pending reason: it waits
     * until the Workload writes have spare budget, and an overdue one
     * takes a token of its own small budget.  (2,000 queues forced every
     * 30 s were 67 writes/s against a 50/s budget in the large-scale run;
     * on a lane of their own, written whenever it had a token, they were
     * 80 writes/s, each coming back through the watch: CPU that the
     * scheduling needs when the Workload writes are behind.) */
    if (gate == GATE_WAIT)
        return WRITE_HELD;
    if (gate == GATE_OVERDUE)
        return WRITE_OVERDUE;
    if (gate == GATE_TOKEN && !ts_ratelimit_try(&c->status_rl, now))
        return WRITE_HELD;
    if (!(last = ts_hmap_get(&c->status_last, key))) {
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
    return WRITE_SENT;
}

/* --- queues whose status cannot have changed ------------------------------ */

/* A queue's status is computed from the engine and the cached object; it
 * can only change when the engine's status version or the object's
 * resourceVersion does.  Decoding, computing and encoding every queue each
 * period was a fifth of the controller's CPU with 600 queues. */
struct status_seen {
    struct ts_status_version v;
    int64_t at; /* loop time it was recorded: recomputed after max_wait() anyway */
    char rv[32];
    /* 0: the cached status was out of date and its write waits
     * (write_gate()); computing it again gives the same body */
    int settled;
};

/* The metadata a queue's status pass reads, found in one walk: the pass
 * visits every queue each period, and at 1,000 ClusterQueues and 1,000
 * LocalQueues looking each field up by path from the root was a tenth of
 * the controller's CPU. */
struct qmeta {
    const char *ns, *name, *rv;
};

static void qmeta_of(const cJSON *obj, struct qmeta *m)
{
    const cJSON *md = cJSON_GetObjectItemCaseSensitive(obj, "metadata"), *f;

    memset(m, 0, sizeof(*m));
    for (f = md && cJSON_IsObject(md) ? md->child : NULL; f; f = f->next) {
        if (!cJSON_IsString(f) || !f->string)
            continue;
        if (!strcmp(f->string, "name"))
            m->name = f->valuestring;
        else if (!strcmp(f->string, "namespace"))
            m->ns = f->valuestring;
        else if (!strcmp(f->string, "resourceVersion"))
            m->rv = f->valuestring;
    }
}

/* The version of the queue m names, into *v; 0 when the queue has none
 * (its status is computed every period). */
static int queue_version(struct ts_ctl *c, const struct ts_kube_resource *res,
                         const struct qmeta *m, struct ts_status_version *v)
{
    if (!m->name)
        return 0;
    if (res == &ts_kube_res_clusterqueues)
        return ts_engine_cq_status_version(c->engine, m->name, v) == 0;
    if (!m->ns)
        return 0;
    ts_engine_lq_status_version(c->engine, m->ns, m->name, v);
    return 1;
}

/* Whether seen records version v and resourceVersion rv, recently. */
static int seen_is(const struct ts_ctl *c, const struct status_seen *seen,
                   const struct ts_status_version *v, const char *rv)
{
    return seen->v.epoch == v->epoch && seen->v.seq == v->seq && !strcmp(seen->rv, rv) &&
           ts_loop_now(c->loop) - seen->at < max_wait(c);
}

/* What was recorded (status_seen()) of queue `key` at version v and
 * resourceVersion rv, or NULL. */
static struct status_seen *seen_at(struct ts_ctl *c, const char *key, const char *rv,
                                   const struct ts_status_version *v)
{
    struct status_seen *seen;

    if (!rv)
        return NULL;
    seen = ts_hmap_get(&c->status_seen, key);
    return seen && seen_is(c, seen, v, rv) ? seen : NULL;
}

/* Records the outcome of computing queue `key`'s status at version v:
 * settled when the cached status equals it. */
static void status_seen(struct ts_ctl *c, const char *key, const char *rv,
                        const struct ts_status_version *v, int settled)
{
    struct status_seen *seen;

    if (!rv || strlen(rv) >= sizeof(seen->rv))
        return;
    if (!(seen = ts_hmap_get(&c->status_seen, key))) {
        seen = ts_xcalloc(1, sizeof(*seen));
        ts_hmap_put(&c->status_seen, key, seen);
    }
    if (!seen_is(c, seen, v, rv))
        seen->at = ts_loop_now(c->loop);
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

/* Computes queue obj's status (and its metrics) and writes it through
 * write_if_changed(); -1 when obj is not a queue the engine knows. */
static int compute(struct ts_ctl *c, const struct ts_kube_resource *res, const cJSON *obj,
                   const char *key, enum gate gate)
{
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_object o;
    cJSON *body = NULL;
    ts_time now = ts__ctl_now(c);
    int written = -1;

    if (ts_object_decode(obj, &o, &errs, NULL) || errs.n) {
        if (o.kind != TS_KIND_UNKNOWN)
            ts_object_release(&o);
        ts_field_errors_release(&errs);
        return -1;
    }
    if (o.kind == TS_KIND_CLUSTER_QUEUE &&
        ts_engine_cq_status(c->engine, o.u.cq.meta.name, now, &o.u.cq.status) == 0) {
        cq_metrics(c, &o.u.cq);
        body = ts_cluster_queue_encode(&o.u.cq);
        written = (int)write_if_changed(c, res, obj, key, body, gate);
    } else if (o.kind == TS_KIND_LOCAL_QUEUE &&
               ts_engine_lq_status(c->engine, o.u.lq.meta.namespace_, o.u.lq.meta.name, now,
                                   &o.u.lq.status) == 0) {
        lq_metrics(c, &o.u.lq);
        body = ts_local_queue_encode(&o.u.lq);
        written = (int)write_if_changed(c, res, obj, key, body, gate);
    }
    cJSON_Delete(body);
    ts_object_release(&o);
    ts_field_errors_release(&errs);
    return written;
}

/* --- one period: every queue, then the overdue ones oldest first --------- */

/* A queue whose write is overdue, waiting for its turn at status_rl. */
struct overdue {
    int64_t last; /* loop time of its last write */
    const struct ts_kube_resource *res;
    struct ts_informer *inf;
    const char *ns; /* NULL for a ClusterQueue; in key[]'s allocation */
    const char *name;
    char key[];
};

struct status_pass {
    struct ts_ctl *c;
    const struct ts_kube_resource *res;
    struct ts_informer *inf;
    struct overdue **overdue;
    size_t n, cap;
};

static void overdue_add(struct status_pass *p, const char *key, int64_t last, const cJSON *obj)
{
    const char *ns = ts_json_get_string(obj, "metadata.namespace");
    const char *name = ts_json_get_string(obj, "metadata.name");
    size_t kl = strlen(key) + 1, nl = ns ? strlen(ns) + 1 : 0, ml = strlen(name) + 1;
    struct overdue *o = ts_xmalloc(sizeof(*o) + kl + nl + ml);
    char *at = o->key + kl;

    memcpy(o->key, key, kl);
    o->ns = ns ? memcpy(at, ns, nl) : NULL;
    o->name = memcpy(at + nl, name, ml);
    o->last = last;
    o->res = p->res;
    o->inf = p->inf;
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 16;
        p->overdue = ts_xrealloc(p->overdue, p->cap * sizeof(*p->overdue));
    }
    p->overdue[p->n++] = o;
}

static int by_last(const void *a, const void *b)
{
    const struct overdue *x = *(struct overdue *const *)a, *y = *(struct overdue *const *)b;

    if (x->last != y->last)
        return x->last < y->last ? -1 : 1;
    return strcmp(x->key, y->key);
}

/* Computes queue obj's status unless its version shows it cannot have
 * changed or its write would wait anyway; an overdue one is left for
 * overdue_writes(). */
static int queue_status(const char *ikey, const cJSON *obj, void *data)
{
    struct status_pass *p = data;
    struct ts_ctl *c = p->c;
    struct ts_status_version v;
    struct status_seen *seen;
    int versioned, written;
    enum gate gate;
    struct qmeta m;
    int64_t last;
    char key[512];

    (void)ikey;
    qmeta_of(obj, &m);
    if (!m.name)
        return 0;
    status_key(key, sizeof(key), p->res, m.ns, m.name);
    /* the version before computing: a change while computing is then
     * seen next period */
    versioned = queue_version(c, p->res, &m, &v);
    gate = write_gate(c, key, &last);
    if (versioned && (seen = seen_at(c, key, m.rv, &v)) && (seen->settled || gate != GATE_GO)) {
        if (seen->v.parking != v.parking) /* the pending metrics alone moved */
            pending_metrics(c, p->res, obj);
        seen->v.parking = v.parking;
        if (!seen->settled && gate == GATE_OVERDUE)
            overdue_add(p, key, last, obj);
        return 0;
    }
    written = compute(c, p->res, obj, key, gate);
    if (written == WRITE_OVERDUE)
        overdue_add(p, key, last, obj);
    if (versioned && written >= 0)
        status_seen(c, key, m.rv, &v, written == WRITE_SETTLED);
    return 0;
}

/* The overdue writes take status_rl's tokens oldest first, ClusterQueues
 * and LocalQueues alike.  (Taken in the order the queues were visited,
 * every ClusterQueue before any LocalQueue, 300 ClusterQueues overdue
 * every 30 s took every token of the 2.5 a second at 50 QPS, and the
 * LocalQueues' statuses were never written.) */
static void overdue_writes(struct status_pass *p)
{
    struct ts_ctl *c = p->c;

    if (p->n)
        qsort(p->overdue, p->n, sizeof(*p->overdue), by_last);
    for (size_t i = 0; i < p->n; i++) {
        struct overdue *o = p->overdue[i];
        struct ts_status_version v;
        cJSON *obj;
        int written;

        if (ts_ratelimit_has(&c->status_rl, ts_loop_now(c->loop), 1) &&
            (obj = ts_informer_fetch(o->inf, o->ns, o->name))) {
            struct qmeta m;
            int versioned;

            qmeta_of(obj, &m);
            versioned = queue_version(c, o->res, &m, &v);
            written = compute(c, o->res, obj, o->key, GATE_TOKEN);
            if (versioned && written >= 0)
                status_seen(c, o->key, m.rv, &v, written == WRITE_SETTLED);
            cJSON_Delete(obj);
        }
        free(o);
    }
    free(p->overdue);
}

void ts__ctl_queue_status(struct ts_loop *loop, void *data)
{
    struct ts_ctl *c = data;
    int64_t period = c->opts.status_period_ns ? c->opts.status_period_ns : TS_TIME_SECOND;
    struct status_pass p = {.c = c};

    c->status_timer = ts_loop_timer_add(loop, period, ts__ctl_queue_status, c);
    if (!c->synced || c->stopping || (c->leader && !ts_leader_is_leader(c->leader)))
        return;
    p.res = &ts_kube_res_clusterqueues;
    p.inf = c->inf[TS__CTL_CQ];
    ts_informer_each(p.inf, queue_status, &p);
    p.res = &ts_kube_res_localqueues;
    p.inf = c->inf[TS__CTL_LQ];
    ts_informer_each(p.inf, queue_status, &p);
    overdue_writes(&p);
    ts__ctl_kick(c); /* backoffs and requeue times expire with the clock */
}
