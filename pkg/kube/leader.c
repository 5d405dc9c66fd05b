/*
 * leader.c - Lease-based leader election (see leader.h).
 */
#include "kube/leader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/json.h"
#include "kube/backoff.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/hmap.h"
#include "util/log.h"
#include "util/time.h"

#define SEC INT64_C(1000000000)

struct ts_leader {
    struct ts_kube_client *c;
    struct ts_leader_opts o;
    char *ns, *name, *id;
    cJSON *lease;     /* last Lease read or written (for the next update) */
    char *holder;     /* observed holderIdentity */
    char *record;     /* observed record, to notice changes */
    int64_t observed; /* monotonic time the record last changed */
    int64_t record_duration;
    int leading, releasing, stopped;
    int64_t last_renew, attempt;
    uint64_t timer;
    struct ts_kube_call *call;
    struct ts_backoff rng;
    void (*done)(struct ts_leader *l, void *data);
    void *done_data;
};

static int64_t now_of(const struct ts_leader *l)
{
    return ts_loop_now(ts_kube_client_loop(l->c));
}

int ts_leader_is_leader(const struct ts_leader *l)
{
    return l->leading && !l->releasing && now_of(l) - l->last_renew < l->o.renew_deadline;
}

static int gate(void *data)
{
    return ts_leader_is_leader(data);
}

const char *ts_leader_holder(const struct ts_leader *l)
{
    return l->holder ? l->holder : "";
}

/* --- observing the record ------------------------------------------------------ */

static void observe(struct ts_leader *l, const cJSON *lease)
{
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(lease, "spec");
    const char *holder = ts_json_get_string(spec, "holderIdentity");
    char *rec = ts_json_dumps(spec ? spec : lease, TS_JSON_COMPACT);
    int64_t dur = 0;

    ts_json_get_i64(cJSON_GetObjectItemCaseSensitive(spec, "leaseDurationSeconds"), &dur);
    l->record_duration = dur > 0 ? dur * SEC : l->o.lease_duration;
    if (!l->record || strcmp(rec, l->record)) {
        free(l->record);
        l->record = rec;
        l->observed = now_of(l);
    } else {
        free(rec);
    }
    if (strcmp(holder ? holder : "", ts_leader_holder(l))) {
        free(l->holder);
        l->holder = ts_xstrdup(holder ? holder : "");
        ts_log_info("leader", "lease=%s/%s holder=\"%s\"", l->ns, l->name, l->holder);
        if (l->o.on_new_leader)
            l->o.on_new_leader(l, l->holder, l->o.data);
    }
}

static int can_take(const struct ts_leader *l)
{
    const char *h = ts_leader_holder(l);

    return !h[0] || !strcmp(h, l->id) || now_of(l) >= l->observed + l->record_duration;
}

/* --- scheduling ----------------------------------------------------------------- */

static void tick(struct ts_loop *loop, void *data);

static void schedule(struct ts_leader *l)
{
    int64_t d = l->o.retry_period;

    if (l->stopped)
        return;
    if (!l->leading) /* JitterUntil with factor 1.2 */
        d += (int64_t)((double)d * 1.2 * ts_backoff_rand(&l->rng));
    l->timer = ts_loop_timer_add(ts_kube_client_loop(l->c), d, tick, l);
}

static void lose(struct ts_leader *l, const char *why)
{
    if (!l->leading)
        return;
    l->leading = 0;
    cJSON_Delete(l->lease);
    l->lease = NULL;
    ts_log_warn("leader", "lease=%s/%s lost leadership: %s", l->ns, l->name, why);
    if (l->o.on_stopped_leading)
        l->o.on_stopped_leading(l, l->o.data);
}

static void won(struct ts_leader *l)
{
    l->last_renew = l->attempt;
    if (l->leading)
        return;
    l->leading = 1;
    ts_log_info("leader", "lease=%s/%s acquired by %s", l->ns, l->name, l->id);
    if (l->o.on_started_leading)
        l->o.on_started_leading(l, l->o.data);
}

/* --- requests ---------------------------------------------------------------------- */

static void submit(struct ts_leader *l, struct ts_kube_req *r, ts_kube_done_fn fn)
{
    struct ts_err e = {0};

    r->res = &ts_kube_res_leases;
    r->ns = l->ns;
    r->flags = TS_KUBE_REQ_UNGATED | TS_KUBE_REQ_NO_RETRY;
    r->timeout_ns = l->o.renew_deadline / 2;
    l->attempt = now_of(l);
    if (ts_kube_submit(l->c, r, fn, l, &l->call, &e)) {
        ts_log_error("leader", "lease=%s/%s %s", l->ns, l->name, e.msg);
        schedule(l);
    }
}

/* Fills the spec of a record held by `holder` (NULL: released). */
static void fill_spec(struct ts_leader *l, cJSON *lease, const char *holder)
{
    cJSON *spec = cJSON_GetObjectItemCaseSensitive(lease, "spec");
    const char *old = ts_json_get_string(spec, "holderIdentity");
    int64_t trans = 0;
    char now[TS_TIME_STR_MAX];
    int changed = !old || strcmp(old, holder ? holder : "");

    ts_time_format_micro(ts_loop_wall(ts_kube_client_loop(l->c)), now, sizeof(now));
    ts_json_get_i64(cJSON_GetObjectItemCaseSensitive(spec, "leaseTransitions"), &trans);
    if (!spec)
        spec = cJSON_AddObjectToObject(lease, "spec");
    ts_json_set_string(lease, "spec.holderIdentity", holder ? holder : "", NULL);
    ts_json_set(lease, "spec.leaseDurationSeconds",
                cJSON_CreateNumber(holder ? (double)(l->o.lease_duration / SEC) : 1), NULL);
    ts_json_set_string(lease, "spec.renewTime", now, NULL);
    if (changed || !holder || !cJSON_GetObjectItemCaseSensitive(spec, "acquireTime"))
        ts_json_set_string(lease, "spec.acquireTime", now, NULL);
    ts_json_set(lease, "spec.leaseTransitions",
                cJSON_CreateNumber((double)(trans + (changed && holder ? 1 : 0))), NULL);
}

static void on_written(struct ts_kube_client *c, struct ts_kube_result *res, void *data)
{
    struct ts_leader *l = data;

    (void)c;
    l->call = NULL;
    if (res->code) {
        ts_log_debug("leader", "lease=%s/%s write failed: %s", l->ns, l->name, res->err.msg);
        if (res->code == TS_ECONFLICT || res->code == TS_EEXIST || res->code == TS_ENOTFOUND) {
            cJSON_Delete(l->lease); /* read it again next time */
            l->lease = NULL;
        }
    } else {
        cJSON_Delete(l->lease);
        l->lease = res->obj;
        res->obj = NULL;
        observe(l, l->lease);
        won(l);
    }
    schedule(l);
}

static void write_lease(struct ts_leader *l, cJSON *lease, int create)
{
    struct ts_kube_req r = {.verb = create ? TS_KUBE_CREATE : TS_KUBE_UPDATE};

    fill_spec(l, lease, l->id);
    r.name = create ? NULL : l->name;
    r.body = lease;
    submit(l, &r, on_written);
    cJSON_Delete(lease);
}

static cJSON *new_lease(const struct ts_leader *l)
{
    cJSON *lease = cJSON_CreateObject(), *md;

    cJSON_AddStringToObject(lease, "apiVersion", "coordination.k8s.io/v1");
    cJSON_AddStringToObject(lease, "kind", "Lease");
    md = cJSON_AddObjectToObject(lease, "metadata");
    cJSON_AddStringToObject(md, "name", l->name);
    cJSON_AddStringToObject(md, "namespace", l->ns);
    cJSON_AddObjectToObject(lease, "spec");
    return lease;
}

static void on_read(struct ts_kube_client *c, struct ts_kube_result *res, void *data)
{
    struct ts_leader *l = data;

    (void)c;
    l->call = NULL;
    if (res->code == TS_ENOTFOUND) {
        write_lease(l, new_lease(l), 1);
        return;
    }
    if (res->code) {
        ts_log_debug("leader", "lease=%s/%s read failed: %s", l->ns, l->name, res->err.msg);
        schedule(l);
        return;
    }
    observe(l, res->obj);
    if (!can_take(l)) {
        lose(l, "held by another instance");
        schedule(l);
        return;
    }
    write_lease(l, cJSON_Duplicate(res->obj, 1), 0);
}

static void tick(struct ts_loop *loop, void *data)
{
    struct ts_leader *l = data;
    struct ts_kube_req r = {.verb = TS_KUBE_GET};

    (void)loop;
    l->timer = 0;
    if (l->leading && now_of(l) - l->last_renew >= l->o.renew_deadline)
        lose(l, "renew deadline passed");
    if (l->leading && l->lease) { /* renew from the cached Lease: no read */
        write_lease(l, cJSON_Duplicate(l->lease, 1), 0);
        return;
    }
    r.name = l->name;
    submit(l, &r, on_read);
}

/* --- lifecycle ----------------------------------------------------------------------- */

struct ts_leader *ts_leader_new(struct ts_kube_client *c, const struct ts_leader_opts *o,
                                struct ts_err *err)
{
    struct ts_leader *l;
    struct ts_leader_opts d = *o;

    d.lease_duration = d.lease_duration > 0 ? d.lease_duration : 15 * SEC;
    d.renew_deadline = d.renew_deadline > 0 ? d.renew_deadline : 10 * SEC;
    d.retry_period = d.retry_period > 0 ? d.retry_period : 2 * SEC;
    if (!o->ns || !o->name || !o->identity || !o->identity[0]) {
        ts_err_set(err, TS_EINVAL, "leader election needs a lease namespace, name and identity");
        return NULL;
    }
    if (d.renew_deadline >= d.lease_duration || d.retry_period >= d.renew_deadline) {
        ts_err_set(err, TS_EINVAL,
                   "leader election needs retry period < renew deadline < "
                   "lease duration");
        return NULL;
    }
    l = ts_xcalloc(1, sizeof(*l));
    l->c = c;
    l->o = d;
    l->ns = ts_xstrdup(o->ns);
    l->name = ts_xstrdup(o->name);
    l->id = ts_xstrdup(o->identity);
    ts_backoff_init(&l->rng, SEC, SEC, 1, 0, ts_hash_str(o->identity) | 1);
    ts_kube_client_set_gate(c, gate, l);
    return l;
}

void ts_leader_start(struct ts_leader *l)
{
    l->stopped = 0;
    l->timer = ts_loop_timer_add(ts_kube_client_loop(l->c), 0, tick, l);
}

static void on_released(struct ts_kube_client *c, struct ts_kube_result *res, void *data)
{
    struct ts_leader *l = data;

    (void)c;
    l->call = NULL;
    if (res->code)
        ts_log_warn("leader", "lease=%s/%s release failed: %s", l->ns, l->name, res->err.msg);
    else
        ts_log_info("leader", "lease=%s/%s released by %s", l->ns, l->name, l->id);
    l->leading = 0;
    if (l->done)
        l->done(l, l->done_data);
}

void ts_leader_release(struct ts_leader *l, void (*done)(struct ts_leader *l, void *data),
                       void *data)
{
    struct ts_kube_req r = {.verb = TS_KUBE_UPDATE};
    int was = ts_leader_is_leader(l) && l->lease;

    l->releasing = 1; /* closes the write gate now */
    l->stopped = 1;
    ts_loop_timer_cancel(ts_kube_client_loop(l->c), l->timer);
    l->timer = 0;
    ts_kube_cancel(l->call);
    l->call = NULL;
    l->done = done;
    l->done_data = data;
    if (!was) {
        l->leading = 0;
        if (done)
            done(l, data);
        return;
    }
    fill_spec(l, l->lease, NULL);
    r.name = l->name;
    r.body = l->lease;
    submit(l, &r, on_released);
}

void ts_leader_free(struct ts_leader *l)
{
    if (!l)
        return;
    ts_kube_client_set_gate(l->c, NULL, NULL);
    ts_kube_cancel(l->call);
    ts_loop_timer_cancel(ts_kube_client_loop(l->c), l->timer);
    cJSON_Delete(l->lease);
    free(l->holder);
    free(l->record);
    free(l->ns);
    free(l->name);
    free(l->id);
    free(l);
}
