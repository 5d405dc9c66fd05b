/* sched.c - scheduling passes and status writes.  Each decision of a cycle
 * becomes one PUT of the Workload's status subresource carrying the
 * resourceVersion the decision was made on: a conflict means someone else
 * changed the Workload first, so an admission is forgotten (its usage
 * released, the workload retried next cycle) and never double-counted;
 * unless an earlier attempt may have landed (verify_admission()). */
#include "api/object.h"
#include "controller/jobkind.h"
#include "controller/manager_int.h"
#include "engine/apply.h"
#include "json/json.h"
#include "util/alloc.h"
#include "util/log.h"
#include "util/time.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct write {
    struct ts_ctl *c;
    enum ts_decision_kind kind;
    int victim;
    char *ns;
    char *name;
    char *cq;               /* ADMIT: the ClusterQueue */
    char *reason, *message; /* PENDING, or a victim's preemption */
    cJSON *ref;             /* what landed() reads of the Workload */
    char *base_rv;          /* the version the write was built on */
    cJSON *body;            /* what it writes: read back until the cache shows it */
    int unsent;             /* write_current() held it back */
    int admitted;           /* ADMIT: Admitted=True too (no admission checks to wait for) */
};

/* The fields of a written Workload that its events and metrics name.  The
 * server's reply differs from the body only in resourceVersion, which
 * written() reads out of the reply's text rather than decoding the whole
 * reply. */
static cJSON *ref_of(const cJSON *body)
{
    static const char *const paths[] = {"apiVersion",
                                        "kind",
                                        "metadata.namespace",
                                        "metadata.name",
                                        "metadata.uid",
                                        "metadata.resourceVersion",
                                        "metadata.creationTimestamp",
                                        "spec.priorityClassRef.name",
                                        "spec.queueName",
                                        "status.admission.clusterQueue"};
    cJSON *ref = cJSON_CreateObject();

    for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
        const char *v = ts_json_get_string(body, paths[i]);

        if (v)
            ts_json_set_string(ref, paths[i], v, NULL);
    }
    return ref;
}

int ts__ctl_lq_metrics(struct ts_ctl *c, const char *ns, const char *name)
{
    struct ts_strmap labels = TS_STRMAP_INIT;
    const cJSON *obj, *l;
    int on;

    if (!c->opts.config.metrics_lq || !ns || !name ||
        !(obj = ts_informer_get_ns(c->inf[TS__CTL_LQ], ns, name)))
        return 0;
    cJSON_ArrayForEach(l, ts_json_get(obj, "metadata.labels"))
    {
        if (cJSON_IsString(l))
            ts_strmap_set(&labels, l->string, l->valuestring);
    }
    on = ts_label_selector_matches(&c->opts.config.metrics_lq_selector, &labels);
    ts_strmap_release(&labels);
    return on;
}

/* Kueue's events and metrics for a status write that landed, on the
 * written Workload's ref_of() with the server's new resourceVersion. */
static void landed(struct ts_ctl *c, const struct write *w, const cJSON *obj, ts_time now)
{
    struct ts_kmetrics_wl m = {0};
    ts_time created = now;
    double wait;

    if (!obj)
        return;
    m.priority_class = ts_json_get_string(obj, "spec.priorityClassRef.name"); /* v1beta2 */
    m.lq_namespace = ts_json_get_string(obj, "metadata.namespace");
    if (ts__ctl_lq_metrics(c, m.lq_namespace, ts_json_get_string(obj, "spec.queueName")))
        m.lq_name = ts_json_get_string(obj, "spec.queueName");
    if (w->victim) {
        m.cluster_queue = ts_json_get_string(obj, "status.admission.clusterQueue");
        ts_recorder_event(c->events, obj, "Normal", "Preempted", "%s", w->message);
        ts_kmetrics_evicted(c->metrics, &m, "Preempted", w->reason, 1);
        ts_kmetrics_preempted(c->metrics, w->cq, w->reason);
    } else if (w->kind == TS_DECISION_ADMIT) {
        ts_time_parse(ts_json_get_string(obj, "metadata.creationTimestamp"), &created);
        wait = (double)(now - created) / 1e9;
        m.cluster_queue = w->cq;
        ts_recorder_event(c->events, obj, "Normal", "QuotaReserved",
                          "Quota reserved in ClusterQueue %s, wait time since queued was %llds",
                          w->cq, (long long)((now - created) / TS_TIME_SECOND));
        ts_kmetrics_quota_reserved(c->metrics, &m, wait);
        if (w->admitted) {
            ts_recorder_event(c->events, obj, "Normal", "Admitted",
                              "Admitted by ClusterQueue %s, wait time since reservation was 0s",
                              w->cq);
            ts_kmetrics_admitted(c->metrics, &m, wait, NULL, 0);
        }
    } else if (w->kind == TS_DECISION_PENDING && w->reason) {
        ts_recorder_event(c->events, obj, "Warning", w->reason, "%s", w->message);
    }
}

static void write_free(void *data)
{
    struct write *w = data;

    free(w->ns);
    free(w->name);
    free(w->cq);
    free(w->reason);
    free(w->message);
    free(w->base_rv);
    cJSON_Delete(w->body);
    cJSON_Delete(w->ref);
    free(w);
}

/* A Workload write waits for its token; it is sent only if the cache
 * still holds the version it was built on, else the server would refuse
 * it.  Each refusal would cost a token of the writes that decide; most
 * would be evictions of victims that finished while the eviction waited
 * for its token. */
static int write_current(void *data)
{
    struct write *w = data;
    const char *rv;

    if (!w->base_rv)
        return 0;
    rv = ts__ctl_workload_rv(w->c, w->ns, w->name);
    if (rv && !strcmp(rv, w->base_rv))
        return 0;
    w->unsent = 1;
    return rv ? TS_ECONFLICT : TS_ENOTFOUND;
}

/* A victim's eviction write failed.  After a conflict the cache will
 * bring the victim's newer version, and with it a fresh choice: choosing
 * it again at once, on the stale copy, would make a storm of 409s while
 * the watch lags.  But an injected or spurious 409 brings no
 * update, so the eviction is forgotten anyway after EVICT_RETRY; other
 * failures are forgotten at once. */
#define EVICT_RETRY (2 * TS_TIME_SECOND)

static void eviction_failed(struct ts_ctl *c, const struct write *w, int code)
{
    char key[512];
    int64_t *due;

    if (code != TS_ECONFLICT) {
        ts_engine_evict_forget(c->engine, w->ns, w->name);
        return;
    }
    snprintf(key, sizeof(key), "%s/%s", w->ns, w->name);
    if (!(due = ts_hmap_get(&c->evict_retry, key))) {
        due = ts_xmalloc(sizeof(*due));
        ts_hmap_put(&c->evict_retry, key, due);
    }
    *due = ts_loop_now(c->loop) + EVICT_RETRY;
}

/* Forgets the conflicted evictions whose wait is over. */
static void evictions_retry(struct ts_ctl *c)
{
    int64_t now = ts_loop_now(c->loop);
    size_t it = 0;
    const char *k;
    void *v;
    char ns[256];

    while (ts_hmap_next(&c->evict_retry, &it, &k, &v)) {
        const char *slash = strchr(k, '/');

        if (*(int64_t *)v > now || !slash)
            continue;
        snprintf(ns, sizeof(ns), "%.*s", (int)(slash - k), k);
        ts_engine_evict_forget(c->engine, ns, slash + 1);
        ts__ctl_kick(c);
        free(ts_hmap_del(&c->evict_retry, k));
    }
}

/* The Workload as read back after an unsure admission write. */
static void verified(struct ts_kube_client *kc, struct ts_kube_result *res, void *data)
{
    struct write *w = data;
    struct ts_ctl *c = w->c;
    const char *rv = ts_json_get_string(res->obj, "metadata.resourceVersion");
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_object o;
    int held = 0;

    (void)kc;
    c->inflight--;
    if (res->code && res->code != TS_ENOTFOUND) { /* after the client's retries */
        ts_log_warn("controller",
                    "workload=%s/%s admission write unsure and the read back failed, so it is "
                    "forgotten (the watch corrects that if it landed): %s",
                    w->ns, w->name, res->err.msg);
        ts_engine_admit_forget(c->engine, w->ns, w->name);
        ts__ctl_kick(c);
        write_free(w);
        return;
    }
    if (!res->code && rv && strcmp(rv, w->base_rv) &&
        !ts_object_decode(res->obj, &o, &errs, NULL)) {
        held = o.kind == TS_KIND_WORKLOAD && o.u.wl.status.admission &&
               ts_workload_has_quota_reservation(&o.u.wl);
        ts_object_release(&o);
    }
    ts_field_errors_release(&errs);
    ts_log_info("controller", "workload=%s/%s admission write %s", w->ns, w->name,
                held ? "landed after all" : "did not land");
    if (held) {
        ts_engine_admit_confirm(c->engine, w->ns, w->name);
        ts_json_set_string(w->ref, "metadata.resourceVersion", rv, NULL);
        landed(c, w, w->ref, ts__ctl_now(c));
    } else {
        ts_engine_admit_forget(c->engine, w->ns, w->name);
    }
    ts__ctl_kick(c);
    write_free(w);
}

/* An admission write that failed, yet may have been carried out: its
 * reply was lost, then the retry met a 409, which may be the first
 * attempt's own doing.  Forgetting it would free its quota in our books
 * while the Workload holds it (docs/reliability.md), so it stays assumed
 * until the Workload read back tells: the version it was written on means
 * it did not land; a newer version holding a reservation means it did
 * (only this controller reserves). */
static void verify_admission(struct ts_ctl *c, struct write *w)
{
    struct ts_kube_req r = {0};
    struct ts_err err = {0};

    r.verb = TS_KUBE_GET;
    r.res = &ts_kube_res_workloads;
    r.ns = w->ns;
    r.name = w->name;
    r.release = write_free; /* still unanswered when the controller stops */
    c->inflight++;
    if (ts_kube_submit(c->client, &r, verified, w, NULL, &err)) {
        c->inflight--;
        ts_log_info("controller", "workload=%s/%s admission not verified: %s", w->ns, w->name,
                    err.msg);
        ts_engine_admit_forget(c->engine, w->ns, w->name);
        write_free(w);
    }
}

/* A write the API server refused for what it says (400 Bad Request, 422
 * Invalid): the same write would be refused again. */
static int refused_for_good(const struct ts_kube_result *res)
{
    return res->http_status == 400 || res->http_status == 422;
}

static void written(struct ts_kube_client *kc, struct ts_kube_result *res, void *data)
{
    struct write *w = data;
    struct ts_ctl *c = w->c;

    (void)kc;
    c->inflight--;
    if (res->code && res->unsure && !w->unsent && w->kind == TS_DECISION_ADMIT && !w->victim &&
        w->base_rv) {
        ts_log_info("controller", "workload=%s/%s admission write failed, maybe after landing: %s",
                    w->ns, w->name, res->err.msg);
        verify_admission(c, w);
        return;
    }
    if (w->kind != TS_DECISION_ADMIT && !w->victim)
        ts__ctl_tell_done(c, w->ns, w->name, !res->code, ts__ctl_now(c));
    if (res->code) {
        if (w->unsent)
            ts_log_debug("controller", "workload=%s/%s status write dropped: %s", w->ns, w->name,
                         res->err.msg);
        else
            ts_log_info("controller", "workload=%s/%s status write failed: %s", w->ns, w->name,
                        res->err.msg);
        if (w->kind == TS_DECISION_ADMIT && !w->victim && refused_for_good(res))
            ts_engine_admit_refused(c->engine, w->ns, w->name);
        else if (w->kind == TS_DECISION_ADMIT && !w->victim)
            ts_engine_admit_forget(c->engine, w->ns, w->name);
        else if (w->victim && w->unsent) /* the cache has the newer version already */
            ts_engine_evict_forget(c->engine, w->ns, w->name);
        else if (w->victim)
            eviction_failed(c, w, res->code);
        ts__ctl_kick(c);
    } else {
        char rv[64];

        if (w->kind == TS_DECISION_ADMIT && !w->victim)
            ts_engine_admit_confirm(c->engine, w->ns, w->name);
        if (res->body && !ts_json_scan_string(res->body, res->body_len, "metadata.resourceVersion",
                                              rv, sizeof(rv))) {
            ts_json_set_string(w->ref, "metadata.resourceVersion", rv, NULL);
            ts__ctl_written_put(c, w->ns, w->name, w->base_rv, rv, w->body);
            w->body = NULL;
        }
        landed(c, w, w->ref, ts__ctl_now(c));
    }
    write_free(w);
}

int ts__ctl_cached_workload(struct ts_ctl *c, const char *ns, const char *name,
                            struct ts_workload *wl)
{
    cJSON *obj = ts__ctl_workload_fetch(c, ns, name);
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_object o;
    int rc;

    if (!obj)
        return TS_ENOTFOUND;
    rc = ts_object_decode(obj, &o, &errs, NULL);
    ts_field_errors_release(&errs);
    cJSON_Delete(obj);
    if (rc)
        return rc;
    *wl = o.u.wl; /* the payload moves out of the object */
    return 0;
}

static char *dup_or_null(const char *s)
{
    return s ? ts_xstrdup(s) : NULL;
}

void ts__ctl_put_status(struct ts_ctl *c, const struct ts_workload *wl, enum ts_decision_kind kind,
                        const struct ts_decision *why, const struct ts_decision_target *target,
                        const char *preemptor)
{
    cJSON *body = ts_workload_encode(wl);
    struct write *w = ts_xcalloc(1, sizeof(*w));
    struct ts_kube_req r = {0};
    struct ts_err err = {0};

    w->c = c;
    w->kind = kind;
    w->victim = target != NULL;
    w->admitted = kind == TS_DECISION_ADMIT && ts_workload_is_admitted(wl);
    if (why) {
        w->cq = dup_or_null(why->cluster_queue);
        w->reason = dup_or_null(why->reason);
        w->message = dup_or_null(why->message);
    } else if (target) {
        w->message = dup_or_null(target->message);
        w->reason = dup_or_null(target->reason);
        w->cq = dup_or_null(preemptor);
    }
    w->ns = ts_xstrdup(wl->meta.namespace_);
    w->name = ts_xstrdup(wl->meta.name);
    w->ref = ref_of(body);
    w->base_rv = dup_or_null(wl->meta.resource_version);
    r.verb = TS_KUBE_UPDATE;
    r.flags = TS_KUBE_REQ_NO_REPLY;
    r.res = &ts_kube_res_workloads;
    r.ns = w->ns;
    r.name = w->name;
    r.subresource = "status";
    r.body = body;
    r.release = write_free; /* still unanswered when the controller stops */
    r.check = write_current;
    c->inflight++;
    w->body = body; /* the request keeps its own copy */
    if (ts_kube_submit(c->client, &r, written, w, NULL, &err)) {
        struct ts_kube_result res = {0};

        res.code = err.code ? err.code : TS_EINVAL;
        res.err = err;
        written(c->client, &res, w);
    }
}

static void write_victims(struct ts_ctl *c, const struct ts_decision *d, ts_time now)
{
    for (size_t t = 0; t < d->n_targets; t++) {
        struct ts_workload v;

        if (ts__ctl_cached_workload(c, d->targets[t].ns, d->targets[t].name, &v)) {
            ts_engine_evict_forget(c->engine, d->targets[t].ns, d->targets[t].name);
            continue;
        }
        ts_apply_preempted(&v, &d->targets[t], now);
        ts__ctl_put_status(c, &v, TS_DECISION_PREEMPT, NULL, &d->targets[t], d->cluster_queue);
        ts_workload_release(&v);
    }
}

/* With waitForPodsReady the job reconciler would write PodsReady=False
 * WaitForStart right after the admission (nothing runs yet); writing it
 * with the admission saves that second Workload write per job.  Only for
 * a first admission of a managed job's Workload: later states are the
 * reconciler's. */
static void pods_ready_at_admission(const struct ts_ctl *c, struct ts_workload *wl, ts_time now)
{
    const struct ts_owner_ref *o = ts_object_meta_controller(&wl->meta);

    if (!c->opts.config.wait_for_pods_ready || !o || !o->kind || !ts_jobkind_by_kind(o->kind) ||
        ts_conditions_find(&wl->status.conditions, TS_WL_COND_PODS_READY) ||
        !ts_workload_is_admitted(wl)) /* admission checks first: the job waits for them */
        return;
    ts_conditions_set(&wl->status.conditions, TS_WL_COND_PODS_READY, "False",
                      TS_WL_REASON_WAIT_FOR_START, TS_WL_MSG_WAIT_FOR_START, wl->meta.generation,
                      now);
}

/* An admission is written at once; a pending verdict (a preemptor's
 * too) is told later by tell.c; victims are evicted at once. */
static void write_decision(struct ts_ctl *c, const struct ts_decision *d, ts_time now)
{
    struct ts_workload wl;

    if (d->kind != TS_DECISION_ADMIT) {
        ts__ctl_tell(c, d->ns, d->name, now);
    } else if (ts__ctl_cached_workload(c, d->ns, d->name, &wl)) {
        ts_engine_admit_forget(c->engine, d->ns, d->name); /* gone meanwhile: give it back */
        return;
    } else {
        ts_apply_decision(&wl, d, now);
        pods_ready_at_admission(c, &wl, now);
        ts__ctl_put_status(c, &wl, d->kind, d, NULL, NULL);
        ts_workload_release(&wl);
    }
    write_victims(c, d, now);
}

static int all_synced(struct ts_ctl *c)
{
    for (int i = 0; i < TS__CTL_N; i++) {
        if (c->inf[i] && !ts_informer_has_synced(c->inf[i]))
            return 0;
    }
    return ts__ctl_fence_seen(c); /* a predecessor's last writes are in the stores */
}

static int may_decide(struct ts_ctl *c)
{
    return !c->stopping && (!c->leader || ts_leader_is_leader(c->leader));
}

static void run_cycle(struct ts_ctl *c, ts_time now)
{
    struct ts_cycle cy;
    int64_t started;
    int admitted_any = 0;
    size_t changed;

    if (!c->dirty)
        return;
    /* Decide only when the decisions can be written at once.  Decided
     * early, admissions would wait in the client's FIFO behind the budget
     * while holding their quota in the engine's books, and a queue's
     * high-priority head would wait behind low-priority admissions
     * decided before it arrived.  Decided when a token is there, each
     * cycle picks the heads that are best now.  The tick retries.  A
     * saturated budget grants a token every 1/QPS; waiting for
     * TS__CTL_DECIDE_WINDOW's worth sends the writes in batches, a wakeup
     * per batch rather than per write. */
    if (!ts_kube_client_batch_ready(c->client, &ts_kube_res_workloads, TS__CTL_DECIDE_WINDOW))
        return;
    c->dirty = 0;
    ts_cycle_init(&cy);
    started = ts_loop_update_time(c->loop);
    changed = ts_engine_cycle(c->engine, now, &cy);
    c->cycle_end = ts_loop_update_time(c->loop);
    c->cycle_cost = c->cycle_end - started;
    for (size_t i = 0; i < cy.n; i++)
        admitted_any |= cy.items[i].kind == TS_DECISION_ADMIT;
    ts_kmetrics_admission_attempt(c->metrics, admitted_any, (double)c->cycle_cost / 1e9);
    for (size_t i = 0; i < cy.n; i++)
        write_decision(c, &cy.items[i], now);
    ts_cycle_release(&cy);
    if (changed) {    /* keep cycling while cycles make progress, as Kueue does: */
        c->dirty = 1; /* at most one head per ClusterQueue is admitted a cycle */
        ts__ctl_cycle_soon(c, 0);
    }
}

static void cycle_soon(struct ts_loop *loop, void *data)
{
    struct ts_ctl *c = data;

    (void)loop;
    c->soon_timer = 0;
    if (c->synced && may_decide(c))
        run_cycle(c, ts__ctl_now(c));
}

void ts__ctl_cycle_soon(struct ts_ctl *c, int64_t gap)
{
    int64_t now = ts_loop_now(c->loop), due = c->cycle_end + gap;

    if (!c->cycle_timer || c->stopping)
        return;
    if (due < now)
        due = now;
    if (c->soon_timer) {
        if (c->soon_due <= due)
            return;
        ts_loop_timer_cancel(c->loop, c->soon_timer); /* rare: sooner than asked before */
    }
    c->soon_due = due;
    c->soon_timer = ts_loop_timer_add(c->loop, due - now, cycle_soon, c);
}

void ts__ctl_cycle(struct ts_loop *loop, void *data)
{
    struct ts_ctl *c = data;
    ts_time now = ts__ctl_now(c);

    c->cycle_timer = ts_loop_timer_add(loop, TS__CTL_CYCLE_PERIOD, ts__ctl_cycle, c);
    if (!c->synced && !(c->synced = all_synced(c)))
        return; /* never decide on a partial view of the cluster */
    __atomic_store_n(&c->ready, 1, __ATOMIC_RELEASE);
    if (!may_decide(c))
        return;
    evictions_retry(c);
    run_cycle(c, now);
    ts__ctl_tell_flush(c, now); /* with what the decisions left of the budget */
}
