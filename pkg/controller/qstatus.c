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
#include "util/strlist.h"
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
 * would only find its write still waiting, so a queue that waits is not
 * computed until its version changes or its turn comes. */
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
 * per queue would pile up stale writes that conflict and starve the
 * Workload writes.) */
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
     * takes a token of its own small budget.  (Many queues forced on a
     * fixed period, or written on a lane of their own whenever it has a
     * token, would outrun the budget, and each write comes back through
     * the watch: CPU that the scheduling needs when the Workload writes
     * are behind.) */
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
 * can only change when the engine's status version or the object does,
 * so a pass decodes, computes and encodes only the queues where one of
 * them moved.  A change of the object marks its record
 * (ts__ctl_status_changed(), from the informer's handlers), so the pass
 * need not read the object to know it is unchanged. */
struct status_seen {
    struct ts_status_version v;
    int64_t at; /* loop time it was computed: a settled one is again after max_wait() */
    /* loop time of its last write then (status_last), 0 if none: a
     * partial pass reads it for every record (visit_due()) */
    int64_t last;
    uint64_t pass; /* c->status_pass of the last pass that visited it */
    /* 0: the cached status was out of date and its write waits
     * (write_gate()); computing it again gives the same body */
    int settled;
    int changed; /* the object changed since: computed again */
    /* the object decoded (owned), its status the last one computed: the
     * next computation need not decode it again.  (Each admission,
     * arrival and finish changes the statuses of two queues, not their
     * objects, and decoding is a large part of computing a status.) */
    struct ts_object *dec;
};

static void dec_free(struct ts_object *dec)
{
    if (dec)
        ts_object_release(dec);
    free(dec);
}

static void seen_free(struct status_seen *seen)
{
    if (seen)
        dec_free(seen->dec);
    free(seen);
}

void ts__ctl_status_release(struct ts_ctl *c)
{
    size_t it = 0;
    const char *k;
    void *v;

    while (ts_hmap_next(&c->status_seen, &it, &k, &v))
        seen_free(v);
    ts_hmap_release(&c->status_seen);
}

void ts__ctl_status_forget(struct ts_ctl *c, const struct ts_kube_resource *res, const char *ns,
                           const char *name)
{
    char key[512];

    status_key(key, sizeof(key), res, ns, name);
    free(ts_hmap_del(&c->status_last, key));
    seen_free(ts_hmap_del(&c->status_seen, key));
}

/* Marks the record changed rather than dropping it: a record dropped and
 * added again at every status write would fill the map with tombstones. */
void ts__ctl_status_changed(struct ts_ctl *c, const struct ts_kube_resource *res, const char *ns,
                            const char *name)
{
    struct status_seen *seen;
    char key[512];

    status_key(key, sizeof(key), res, ns, name);
    if (!(seen = ts_hmap_get(&c->status_seen, key)))
        return;
    seen->changed = 1;
    dec_free(seen->dec);
    seen->dec = NULL;
}

/* A queue as the pass names it, from its informer key alone: reading the
 * name, namespace and resourceVersion from each object every period would
 * walk every queue's tree, long out of the CPU's cache. */
struct qid {
    char key[512]; /* status_key() */
    char buf[256];
    const char *ns; /* NULL for a ClusterQueue */
    const char *name;
};

/* Fills q from informer key ikey ("ns/name", or "name" when cluster
 * scoped); -1 when it does not fit. */
static int qid_of(const struct ts_kube_resource *res, const char *ikey, struct qid *q)
{
    size_t len = strlen(ikey);
    char *slash;
    int n;

    if (len >= sizeof(q->buf))
        return -1;
    memcpy(q->buf, ikey, len + 1);
    if ((slash = strchr(q->buf, '/'))) {
        *slash = '\0';
        q->ns = q->buf;
        q->name = slash + 1;
    } else {
        q->ns = NULL;
        q->name = q->buf;
    }
    n = snprintf(q->key, sizeof(q->key), "%s/%s/%s", res->resource, q->ns ? q->ns : "", q->name);
    return n < 0 || (size_t)n >= sizeof(q->key) ? -1 : 0;
}

/* Fills q from status key `key` ("resource/ns/name", ns empty for a
 * ClusterQueue) and sets *res; -1 when it names no queue resource or
 * does not fit. */
static int qid_of_key(const char *key, struct qid *q, const struct ts_kube_resource **res)
{
    const char *rest = strchr(key, '/');
    size_t rl = rest ? (size_t)(rest - key) : 0;

    if (rest && rl == strlen(ts_kube_res_clusterqueues.resource) &&
        !strncmp(key, ts_kube_res_clusterqueues.resource, rl))
        *res = &ts_kube_res_clusterqueues;
    else if (rest && rl == strlen(ts_kube_res_localqueues.resource) &&
             !strncmp(key, ts_kube_res_localqueues.resource, rl))
        *res = &ts_kube_res_localqueues;
    else
        return -1;
    /* the informer key: "ns/name", or "name" after the empty namespace */
    return qid_of(*res, rest[1] == '/' ? rest + 2 : rest + 1, q);
}

/* The version of queue q, into *v; 0 when the queue has none (its status
 * is computed every period). */
static int queue_version(struct ts_ctl *c, const struct ts_kube_resource *res, const struct qid *q,
                         struct ts_status_version *v)
{
    if (res == &ts_kube_res_clusterqueues)
        return ts_engine_cq_status_version(c->engine, q->name, v) == 0;
    if (!q->ns)
        return 0;
    ts_engine_lq_status_version(c->engine, q->ns, q->name, v);
    return 1;
}

/* Whether seen records version v, recently if settled.  An unsettled
 * queue is computed again when its held write may go out (write_gate()):
 * computing it sooner finds it held again.  (Under a saturated budget
 * nearly every queue is held: expiring each on a fixed period would
 * compute them all again for nothing.) */
static int seen_is(const struct ts_ctl *c, const struct status_seen *seen,
                   const struct ts_status_version *v)
{
    return !seen->changed && seen->v.epoch == v->epoch && seen->v.seq == v->seq &&
           (!seen->settled || ts_loop_now(c->loop) - seen->at < max_wait(c));
}

/* Records the outcome of computing queue `key`'s status at version v in
 * its record seen (NULL: a new one): settled when the cached status
 * equals it; dec (taken) is the object decoded for it. */
static void status_seen(struct ts_ctl *c, const char *key, struct status_seen *seen,
                        const struct ts_status_version *v, int settled, struct ts_object *dec)
{
    const int64_t *last = ts_hmap_get(&c->status_last, key);

    if (!seen) {
        seen = ts_xcalloc(1, sizeof(*seen));
        seen->pass = c->status_pass;
        ts_hmap_put(&c->status_seen, key, seen);
    }
    seen->at = ts_loop_now(c->loop);
    seen->last = last ? *last : 0;
    seen->v = *v;
    seen->settled = settled;
    seen->changed = 0;
    if (seen->dec != dec) {
        dec_free(seen->dec);
        seen->dec = dec;
    }
}

/* Frees dec unless the queue's record seen holds it. */
static void dec_drop(const struct status_seen *seen, struct ts_object *dec)
{
    if (!seen || seen->dec != dec)
        dec_free(dec);
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

/* The pending metrics of queue q, without computing its status. */
static void pending_metrics(struct ts_ctl *c, const struct ts_kube_resource *res,
                            const struct qid *q)
{
    if (res == &ts_kube_res_clusterqueues)
        cq_pending_metrics(c, q->name);
    else if (q->ns && ts__ctl_lq_metrics(c, q->ns, q->name))
        lq_pending_metrics(c, q->ns, q->name);
}

/* obj decoded into a new object (the caller frees it), or NULL. */
static struct ts_object *decode(const cJSON *obj)
{
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_object *o = ts_xmalloc(sizeof(*o));

    if (ts_object_decode(obj, o, &errs, NULL) || errs.n) {
        if (o->kind != TS_KIND_UNKNOWN)
            ts_object_release(o);
        free(o);
        o = NULL;
    }
    ts_field_errors_release(&errs);
    return o;
}

/* Computes queue obj's status into *dec and updates its metrics; -1 when
 * obj is not a queue the engine knows.  *dec is obj decoded, or NULL: then
 * obj is decoded into a new *dec (the caller's, see status_seen()).  Its
 * status becomes the computed one: the engine sets every field of it
 * anew. */
static int refresh(struct ts_ctl *c, const cJSON *obj, struct ts_object **dec)
{
    struct ts_object *o = *dec ? *dec : (*dec = decode(obj));
    ts_time now = ts__ctl_now(c);

    if (!o)
        return -1;
    if (o->kind == TS_KIND_CLUSTER_QUEUE &&
        ts_engine_cq_status(c->engine, o->u.cq.meta.name, now, &o->u.cq.status) == 0) {
        cq_metrics(c, &o->u.cq);
        return 0;
    }
    if (o->kind == TS_KIND_LOCAL_QUEUE &&
        ts_engine_lq_status(c->engine, o->u.lq.meta.namespace_, o->u.lq.meta.name, now,
                            &o->u.lq.status) == 0) {
        lq_metrics(c, &o->u.lq);
        return 0;
    }
    return -1;
}

/* Computes queue obj's status (and its metrics) with refresh() and writes
 * it through write_if_changed(); -1 when obj is not a queue the engine
 * knows.  When `held`, the gate holds a status known to have moved: it
 * is neither encoded nor compared (WRITE_HELD or WRITE_OVERDUE), and a
 * LocalQueue without metrics is not computed at all.  (Under a saturated
 * budget nearly every computation ends so, and encoding and comparing
 * would only find its write waiting.) */
static int compute(struct ts_ctl *c, const struct ts_kube_resource *res, const cJSON *obj,
                   const char *key, enum gate gate, int held, struct ts_object **dec)
{
    int waits = gate == GATE_OVERDUE ? WRITE_OVERDUE : WRITE_HELD;
    cJSON *body;
    int written;

    if (held && res == &ts_kube_res_localqueues && !c->opts.config.metrics_lq)
        return waits;
    if (refresh(c, obj, dec))
        return -1;
    if (held)
        return waits;
    body = (*dec)->kind == TS_KIND_CLUSTER_QUEUE ? ts_cluster_queue_encode(&(*dec)->u.cq)
                                                 : ts_local_queue_encode(&(*dec)->u.lq);
    written = (int)write_if_changed(c, res, obj, key, body, gate);
    cJSON_Delete(body);
    return written;
}

/* Computes queue obj's status with compute(), reusing the object its
 * record seen (or NULL) decoded, and records the outcome when the queue
 * has a version (versioned, v). */
static int compute_seen(struct ts_ctl *c, const struct ts_kube_resource *res, const cJSON *obj,
                        const char *key, enum gate gate, int held, struct status_seen *seen,
                        int versioned, const struct ts_status_version *v)
{
    struct ts_object *dec = seen ? seen->dec : NULL;
    int written = compute(c, res, obj, key, gate, held, &dec);

    if (versioned && written >= 0)
        status_seen(c, key, seen, v, written == WRITE_SETTLED, dec);
    else
        dec_drop(seen, dec);
    return written;
}

/* --- one period: the queues that may have changed, then the overdue ones - */

/* The most overdue queues a pass keeps: the tokens status_rl may hold,
 * plus a few whose status may turn out written already. */
#define OVERDUE_MAX   32
#define OVERDUE_SLACK 4

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
    /* the `room` oldest overdue queues, oldest first: only as many as
     * status_rl has tokens for are written this period.  (Under a
     * saturated budget many queues are overdue and few get a token:
     * collecting and sorting them all would be work for nothing.) */
    struct overdue *overdue[OVERDUE_MAX + OVERDUE_SLACK];
    size_t n, room;
};

/* Whether the write of the queue keyed `key`, last written at `last`, is
 * older than o's (ties by key: a stable order). */
static int older(int64_t last, const char *key, const struct overdue *o)
{
    return last != o->last ? last < o->last : strcmp(key, o->key) < 0;
}

/* Whether overdue_add() would keep the queue keyed `key`, last written
 * at `last`. */
static int overdue_keeps(const struct status_pass *p, const char *key, int64_t last)
{
    return p->n < p->room || (p->n && older(last, key, p->overdue[p->n - 1]));
}

static void overdue_add(struct status_pass *p, const struct qid *q, int64_t last)
{
    size_t kl = strlen(q->key) + 1, nl = q->ns ? strlen(q->ns) + 1 : 0, ml = strlen(q->name) + 1;
    struct overdue *o;
    size_t i;
    char *at;

    if (!overdue_keeps(p, q->key, last))
        return;
    if (p->n == p->room)
        free(p->overdue[--p->n]);
    o = ts_xmalloc(sizeof(*o) + kl + nl + ml);
    at = o->key + kl;
    memcpy(o->key, q->key, kl);
    o->ns = q->ns ? memcpy(at, q->ns, nl) : NULL;
    o->name = memcpy(at + nl, q->name, ml);
    o->last = last;
    o->res = p->res;
    o->inf = p->inf;
    for (i = p->n++; i > 0 && older(last, q->key, p->overdue[i - 1]); i--)
        p->overdue[i] = p->overdue[i - 1];
    p->overdue[i] = o;
}

/* How many overdue queues the pass keeps: none when status_rl has no
 * token (none could be written). */
static size_t overdue_room(struct ts_ctl *c)
{
    int64_t now = ts_loop_now(c->loop);
    size_t tokens = 0;

    while (tokens < OVERDUE_MAX && ts_ratelimit_has(&c->status_rl, now, (double)tokens + 1))
        tokens++;
    return tokens ? tokens + OVERDUE_SLACK : 0;
}

/* Computes queue q's status (obj) unless its version shows it cannot
 * have changed or its write would wait anyway; an overdue one is left for
 * overdue_writes().  Once a pass: a queue named twice is visited once. */
static void queue_status_of(struct status_pass *p, const struct qid *q, const cJSON *obj)
{
    struct ts_ctl *c = p->c;
    struct ts_status_version v;
    struct status_seen *seen = ts_hmap_get(&c->status_seen, q->key);
    int versioned, held, written;
    enum gate gate;
    int64_t last = 0;

    if (seen && seen->pass == c->status_pass)
        return;
    if (seen)
        seen->pass = c->status_pass;
    /* the version before computing: a change while computing is then
     * seen next period */
    versioned = queue_version(c, p->res, q, &v);
    if (versioned && seen && seen_is(c, seen, &v)) {
        /* a settled queue waits for nothing: no need to ask the gate */
        gate = seen->settled ? GATE_WAIT : write_gate(c, q->key, &last);
        if (seen->settled || gate != GATE_GO) {
            if (seen->v.parking != v.parking) /* the pending metrics alone moved */
                pending_metrics(c, p->res, q);
            seen->v.parking = v.parking;
            if (!seen->settled && gate == GATE_OVERDUE)
                overdue_add(p, q, last);
            return;
        }
    } else {
        gate = write_gate(c, q->key, &last);
    }
    /* the engine moved (not only the object: after a write of its own the
     * queue is compared, to learn that it is settled) and the write waits */
    held = versioned && (gate == GATE_WAIT || gate == GATE_OVERDUE) &&
           (!seen || seen->v.epoch != v.epoch || seen->v.seq != v.seq);
    written = compute_seen(c, p->res, obj, q->key, gate, held, seen, versioned, &v);
    if (written == WRITE_OVERDUE)
        overdue_add(p, q, last);
}

/* queue_status_of() for the informer's object ikey, obj. */
static int queue_status(const char *ikey, const cJSON *obj, void *data)
{
    struct status_pass *p = data;
    struct qid q;

    if (!qid_of(p->res, ikey, &q))
        queue_status_of(p, &q, obj);
    return 0;
}

/* queue_status_of() for the queue of status key `key`, if it exists. */
static void queue_status_key(struct status_pass *p, const char *key)
{
    const struct ts_kube_resource *res;
    const cJSON *obj;
    struct qid q;

    if (qid_of_key(key, &q, &res))
        return;
    p->res = res;
    p->inf = p->c->inf[res == &ts_kube_res_clusterqueues ? TS__CTL_CQ : TS__CTL_LQ];
    if ((obj = ts_informer_get_ns(p->inf, q.ns, q.name)))
        queue_status_of(p, &q, obj);
}

/* The overdue writes take status_rl's tokens oldest first, ClusterQueues
 * and LocalQueues alike.  (Taken in the order the queues are visited,
 * every ClusterQueue before any LocalQueue, overdue ClusterQueues could
 * take every token and the LocalQueues' statuses would never be
 * written.) */
static void overdue_writes(struct status_pass *p)
{
    struct ts_ctl *c = p->c;

    for (size_t i = 0; i < p->n; i++) {
        struct overdue *o = p->overdue[i];
        struct ts_status_version v;
        cJSON *obj;

        if (ts_ratelimit_has(&c->status_rl, ts_loop_now(c->loop), 1) &&
            (obj = ts_informer_fetch(o->inf, o->ns, o->name))) {
            struct qid q = {.ns = o->ns, .name = o->name};
            int versioned = queue_version(c, o->res, &q, &v);
            struct status_seen *seen = ts_hmap_get(&c->status_seen, o->key);

            compute_seen(c, o->res, obj, o->key, GATE_TOKEN, 0, seen, versioned, &v);
            cJSON_Delete(obj);
        }
        free(o);
    }
}

/* A queue the engine names as moved (ts_engine_status_moved()), into the
 * pass's list. */
static void queue_moved(const char *ns, const char *name, void *data)
{
    struct ts_strlist *keys = data;
    char key[512];

    status_key(key, sizeof(key), ns ? &ts_kube_res_localqueues : &ts_kube_res_clusterqueues, ns,
               name);
    ts_strlist_push(keys, key);
}

/* The queues a pass visits when it does not visit every queue: those the
 * engine moved, and then those whose records are due (the object changed,
 * or a settled one is due to be computed again), visited.  A held write
 * that is overdue goes to the overdue list as it is: computed only if it
 * gets a token.  (Under a saturated budget nearly every queue's write is
 * overdue; visiting them all would cost more than a pass over every
 * queue.)  Returns 0, or -1 when every queue may
 * have moved (nothing visited). */
static int visit_due(struct status_pass *p)
{
    struct ts_ctl *c = p->c;
    int64_t now = ts_loop_now(c->loop), wait = max_wait(c);
    struct ts_strlist keys = TS_STRLIST_INIT;
    size_t it = 0;
    const char *k;
    void *v;

    if (ts_engine_status_moved(c->engine, queue_moved, &keys))
        return -1;
    for (size_t i = 0; i < keys.n; i++)
        queue_status_key(p, keys.items[i]);
    ts_strlist_release(&keys);
    while (ts_hmap_next(&c->status_seen, &it, &k, &v)) {
        const struct status_seen *seen = v;
        struct qid q;

        if (seen->pass == c->status_pass)
            continue; /* visited */
        if (seen->changed || (seen->settled && now - seen->at >= wait))
            ts_strlist_push(&keys, k);
        else if (!seen->settled && now - seen->last >= wait && overdue_keeps(p, k, seen->last) &&
                 !ts_hmap_get(&c->status_inflight, k) && !qid_of_key(k, &q, &p->res)) {
            p->inf = c->inf[p->res == &ts_kube_res_clusterqueues ? TS__CTL_CQ : TS__CTL_LQ];
            overdue_add(p, &q, seen->last);
        }
    }
    for (size_t i = 0; i < keys.n; i++)
        queue_status_key(p, keys.items[i]);
    ts_strlist_release(&keys);
    return 0;
}

/* Drops the engine's list of moved queues: a full pass visits them all. */
static void queue_ignored(const char *ns, const char *name, void *data)
{
    (void)ns, (void)name, (void)data;
}

void ts__ctl_queue_status(struct ts_loop *loop, void *data)
{
    struct ts_ctl *c = data;
    int64_t period = c->opts.status_period_ns ? c->opts.status_period_ns : TS_TIME_SECOND;
    struct status_pass p = {.c = c};
    int full;

    c->status_timer = ts_loop_timer_add(loop, period, ts__ctl_queue_status, c);
    if (!c->synced || c->stopping || (c->leader && !ts_leader_is_leader(c->leader))) {
        c->status_partial = 0;
        return;
    }
    p.room = overdue_room(c);
    /* Every queue every so often, and whenever a held write may go out
     * (spare budget); else only the queues that may have changed.
     * (Visiting each queue every second to compare its version would
     * cost in proportion to the queues, not to what changed.) */
    full = c->status_partial == 0 ||
           ts_kube_client_spare(c->client, &ts_kube_res_workloads, TS__CTL_SPARE);
    c->status_partial = (c->status_partial + 1) % TS__CTL_STATUS_FULL_EVERY;
    c->status_pass++;
    if (full)
        ts_engine_status_moved(c->engine, queue_ignored, NULL);
    else if (visit_due(&p))
        full = 1;
    if (full) {
        p.res = &ts_kube_res_clusterqueues;
        p.inf = c->inf[TS__CTL_CQ];
        ts_informer_each(p.inf, queue_status, &p);
        p.res = &ts_kube_res_localqueues;
        p.inf = c->inf[TS__CTL_LQ];
        ts_informer_each(p.inf, queue_status, &p);
    }
    overdue_writes(&p);
    ts__ctl_kick(c); /* backoffs and requeue times expire with the clock */
}
