/* feed.c - informer events into the engine (and job keys into the work
 * queue).  Objects the engine cannot take are logged with the object and
 * field named, and a Warning event InvalidObject says the same on the
 * object; they never stop the others. */
#include "api/admissioncheck.h"
#include "api/object.h"
#include "api/unhonoured.h"
#include "api/pod.h"
#include "controller/manager_int.h"
#include "json/json.h"
#include "util/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

ts_time ts__ctl_now(const struct ts_ctl *c)
{
    struct timespec ts;

    (void)c;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (ts_time)ts.tv_sec * TS_TIME_SECOND + ts.tv_nsec;
}

static const char *orempty(const char *s)
{
    return s ? s : "";
}

/* Fields obj sets that Turnstile does not honour yet (docs/compatibility.md):
 * a log line and a Warning Event UnhonouredField for each, never silence. */
static void warn_unhonoured(struct ts_ctl *c, const cJSON *obj)
{
    struct ts_strlist paths = TS_STRLIST_INIT;

    ts_unhonoured_fields(obj, &paths);
    for (size_t i = 0; i < paths.n; i++) {
        ts_log_warn("controller", "object=%s/%s kind=%s field=%s: accepted but not yet honoured",
                    orempty(ts_json_get_string(obj, "metadata.namespace")),
                    orempty(ts_json_get_string(obj, "metadata.name")),
                    orempty(ts_json_get_string(obj, "kind")), paths.items[i]);
        ts_recorder_event(c->events, obj, "Warning", "UnhonouredField", "%s" TS_UNHONOURED_SUFFIX,
                          paths.items[i]);
    }
    ts_strlist_release(&paths);
}

static void put(struct ts_ctl *c, const cJSON *obj)
{
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_err err = {0};
    struct ts_object o;
    /* a Workload comes back here on every status write: told once, when
     * the engine first takes it (queue kinds: when their spec changes) */
    size_t known = ts_engine_workload_count(c->engine);
    /* read here, never encoded back: no raw copy of the pod templates */
    int rc = ts_object_decode_flags(obj, TS_DECODE_NO_RAW, &o, &errs, &err);

    /* Without the webhook (or with failurePolicy Ignore) invalid objects
     * reach us: the engine takes only what the webhook would have let
     * through.  A Workload holding quota is taken whatever it says:
     * refusing it would lose its quota usage. */
    if (!rc && (o.kind == TS_KIND_RESOURCE_FLAVOR || o.kind == TS_KIND_CLUSTER_QUEUE ||
                o.kind == TS_KIND_COHORT || o.kind == TS_KIND_LOCAL_QUEUE ||
                (o.kind == TS_KIND_WORKLOAD && !ts_workload_has_quota_reservation(&o.u.wl))))
        ts_object_validate(&o, &errs);
    if (!rc && errs.n)
        rc = ts_field_errors_to_err(&errs, ts_kind_name(o.kind), &err);
    if (!rc) {
        switch (o.kind) {
        case TS_KIND_RESOURCE_FLAVOR:
            rc = ts_engine_put_flavor(c->engine, &o.u.rf, &err);
            break;
        case TS_KIND_CLUSTER_QUEUE:
            rc = ts_engine_put_cluster_queue(c->engine, &o.u.cq, &err);
            break;
        case TS_KIND_COHORT:
            rc = ts_engine_put_cohort(c->engine, &o.u.cohort, &err);
            break;
        case TS_KIND_LOCAL_QUEUE:
            rc = ts_engine_put_local_queue(c->engine, &o.u.lq, &err);
            break;
        case TS_KIND_WORKLOAD_PRIORITY_CLASS:
            ts_engine_put_workload_priority_class(c->engine, o.u.wpc.meta.name, o.u.wpc.value);
            break;
        case TS_KIND_PRIORITY_CLASS:
            ts_engine_put_priority_class(c->engine, o.u.pc.meta.name, o.u.pc.value,
                                         o.u.pc.global_default);
            break;
        case TS_KIND_NAMESPACE:
            ts_engine_put_namespace(c->engine, o.u.ns.meta.name, &o.u.ns.meta.labels);
            break;
        case TS_KIND_WORKLOAD: {
            char *lr = ts__ctl_adjust_workload(c, &o.u.wl); /* Kueue's AdjustResources */

            rc = ts_engine_put_workload_checked(c->engine, &o.u.wl, ts__ctl_now(c), lr, &err);
            free(lr);
            break;
        }
        default:
            break;
        }
    }
    if (rc) { /* the owner reads why on the object (kubectl describe), not only we */
        ts_log_warn("controller", "object=%s/%s not taken: %s",
                    orempty(ts_json_get_string(obj, "metadata.namespace")),
                    orempty(ts_json_get_string(obj, "metadata.name")), err.msg);
        ts_recorder_event(c->events, obj, "Warning", "InvalidObject", "%s", err.msg);
    } else if (o.kind != TS_KIND_WORKLOAD || ts_engine_workload_count(c->engine) > known) {
        warn_unhonoured(c, obj);
    }
    if (o.kind != TS_KIND_UNKNOWN)
        ts_object_release(&o);
    ts_field_errors_release(&errs);
    ts__ctl_kick(c);
}

/* An AdmissionCheck: the engine needs its controller and whether it is
 * Active (status condition Active=True, set by the check's controller). */
static void put_check(struct ts_ctl *c, const cJSON *obj)
{
    const char *name, *controller;
    int active;

    if (ts_admission_check_read(obj, &name, &controller, &active))
        return;
    ts_engine_put_admission_check(c->engine, name, controller, active);
    ts__ctl_kick(c);
}

static void del(struct ts_ctl *c, enum ts__ctl_inf which, const cJSON *obj)
{
    const char *ns = ts_json_get_string(obj, "metadata.namespace");
    const char *name = ts_json_get_string(obj, "metadata.name");

    if (!name)
        return;
    switch (which) {
    case TS__CTL_RF:
        ts_engine_delete_flavor(c->engine, name);
        break;
    case TS__CTL_CQ:
        ts_engine_delete_cluster_queue(c->engine, name);
        ts_kmetrics_forget_cq(c->metrics, name);
        ts__ctl_status_forget(c, &ts_kube_res_clusterqueues, NULL, name);
        break;
    case TS__CTL_COHORT:
        ts_engine_delete_cohort(c->engine, name);
        break;
    case TS__CTL_LQ:
        ts_engine_delete_local_queue(c->engine, orempty(ns), name);
        ts_kmetrics_forget_lq(c->metrics, orempty(ns), name);
        ts__ctl_status_forget(c, &ts_kube_res_localqueues, ns, name);
        break;
    case TS__CTL_WPC:
        ts_engine_delete_workload_priority_class(c->engine, name);
        break;
    case TS__CTL_PC:
        ts_engine_delete_priority_class(c->engine, name);
        break;
    case TS__CTL_NS:
        ts_engine_delete_namespace(c->engine, name);
        break;
    case TS__CTL_AC:
        ts_engine_delete_admission_check(c->engine, name);
        break;
    case TS__CTL_WL:
        ts_engine_delete_workload(c->engine, orempty(ns), name);
        break;
    default:
        break;
    }
    ts__ctl_kick(c);
}

static void job_key(struct ts_ctl *c, enum ts__ctl_inf which, const cJSON *obj)
{
    const char *group = ts_json_get_string(obj, "metadata.labels[" TS_POD_LABEL_GROUP_NAME "]");
    char key[600];

    if (ts_jobkinds[which - TS__CTL_JOB].shape == TS_JOBKIND_POD)
        ts__ctl_statefulset_of_pod(c, obj); /* its set labels it a member */
    if (group && *group && ts_jobkinds[which - TS__CTL_JOB].shape == TS_JOBKIND_POD) {
        /* a member of a pod group: the group is reconciled as one */
        snprintf(key, sizeof(key), TS__CTL_PODGROUP_PREFIX "%s/%s",
                 orempty(ts_json_get_string(obj, "metadata.namespace")), group);
        ts_workqueue_add(c->jobs, key);
        return;
    }

    snprintf(key, sizeof(key), "%s/%s/%s", ts_jobkinds[which - TS__CTL_JOB].res.kind,
             orempty(ts_json_get_string(obj, "metadata.namespace")),
             orempty(ts_json_get_string(obj, "metadata.name")));
    ts_workqueue_add(c->jobs, key);
}

static void sts_key(struct ts_ctl *c, const cJSON *obj)
{
    char key[600];

    snprintf(key, sizeof(key), TS__CTL_STATEFULSET_PREFIX "%s/%s",
             orempty(ts_json_get_string(obj, "metadata.namespace")),
             orempty(ts_json_get_string(obj, "metadata.name")));
    ts_workqueue_add(c->jobs, key);
}

static void on_add(struct ts_informer *inf, const cJSON *obj, void *data)
{
    struct ts__ctl_feed *f = data;

    (void)inf;
    if (f->which == TS__CTL_STS) {
        sts_key(f->c, obj);
        return;
    }
    if (TS__CTL_IS_JOB_INF(f->which)) {
        job_key(f->c, f->which, obj);
        return;
    }
    if (f->which == TS__CTL_TR || f->which == TS__CTL_CTR) {
        ts__ctl_runtime_changed(f->c, f->which, obj);
        return;
    }
    if (f->which == TS__CTL_AC || f->which == TS__CTL_WL || f->which >= TS__CTL_PRC)
        ts__ctl_provreq_event(f->c, f->which, obj);
    if (f->which >= TS__CTL_PRC)
        return;
    if (f->which == TS__CTL_AC) {
        put_check(f->c, obj);
        return;
    }
    if (f->which == TS__CTL_LR || f->which == TS__CTL_RC) {
        ts__ctl_limitrange_changed(f->c, f->which, obj, put);
        return;
    }
    put(f->c, obj);
    if (f->which == TS__CTL_WL) {
        ts__ctl_enqueue_owner(f->c, obj);
        ts__ctl_finalize_workload(f->c, obj);
        ts__ctl_finalize_admitted_to(f->c, obj);
    } else if (f->which == TS__CTL_CQ) {
        ts__ctl_finalize_queue(f->c, 0, obj);
        ts__ctl_finalize_flavors(f->c);
    } else if (f->which == TS__CTL_RF) {
        ts__ctl_finalize_queue(f->c, 1, obj);
    }
}

static int changed(const cJSON *old, const cJSON *obj, const char *path)
{
    return !ts_json_equal(ts_json_get(old, path), ts_json_get(obj, path));
}

struct stopped_queue {
    struct ts_ctl *c;
    const char *ns;   /* LocalQueue: its namespace; ClusterQueue: NULL */
    const char *name; /* the queue */
};

static int wl_of_stopped_queue(const char *key, const cJSON *wl, void *data)
{
    const struct stopped_queue *q = data;
    const cJSON *cond;
    int mine;

    (void)key;
    if (q->ns) {
        mine = !strcmp(orempty(ts_json_get_string(wl, "metadata.namespace")), q->ns) &&
               !strcmp(orempty(ts_json_get_string(wl, "spec.queueName")), q->name);
    } else {
        mine = !strcmp(orempty(ts_json_get_string(wl, "status.admission.clusterQueue")), q->name);
        /* released by this queue's stop: its requeue is planned by its job */
        cJSON_ArrayForEach(cond, ts_json_get(wl, "status.conditions"))
        {
            if (!strcmp(orempty(ts_json_get_string(cond, "type")), "Requeued") &&
                !strcmp(orempty(ts_json_get_string(cond, "reason")), "ClusterQueueStopped"))
                mine = 1;
        }
    }
    if (mine)
        ts__ctl_enqueue_owner(q->c, wl);
    return 0;
}

/* A queue's stopPolicy changed: the jobs of its Workloads plan their
 * eviction (HoldAndDrain) or requeue (running again). */
static void stop_policy_changed(struct ts_ctl *c, const char *ns, const char *name)
{
    struct stopped_queue q = {c, ns, name};

    ts_informer_each(c->inf[TS__CTL_WL], wl_of_stopped_queue, &q);
}

static void on_update(struct ts_informer *inf, const cJSON *old, const cJSON *obj, void *data)
{
    struct ts__ctl_feed *f = data;
    const char *ns = ts_json_get_string(obj, "metadata.namespace");
    const char *name = ts_json_get_string(obj, "metadata.name");

    if (f->which == TS__CTL_CQ && name)
        ts__ctl_status_changed(f->c, &ts_kube_res_clusterqueues, NULL, name);
    if (f->which == TS__CTL_LQ && name)
        ts__ctl_status_changed(f->c, &ts_kube_res_localqueues, ns, name);
    /* series of flavors or resources that went away, or of a LocalQueue
     * no longer selected, must not linger: the status pass re-reports */
    if (f->which == TS__CTL_CQ && name && changed(old, obj, "spec"))
        ts_kmetrics_forget_cq_resources(f->c->metrics, name);
    if (f->which == TS__CTL_LQ && name && changed(old, obj, "metadata.labels"))
        ts_kmetrics_forget_lq(f->c->metrics, orempty(ns), name);
    if ((f->which == TS__CTL_CQ || f->which == TS__CTL_LQ) && name &&
        changed(old, obj, "spec.stopPolicy"))
        stop_policy_changed(f->c, f->which == TS__CTL_LQ ? orempty(ns) : NULL, name);
    /* A queue object's own status write is no news to the engine, which
     * reads spec and name only; putting it again would re-route every
     * pending workload of the queue for nothing. */
    if ((f->which == TS__CTL_RF || f->which == TS__CTL_CQ || f->which == TS__CTL_COHORT ||
         f->which == TS__CTL_LQ) &&
        !changed(old, obj, "spec") && !changed(old, obj, "metadata.labels") &&
        !changed(old, obj, "metadata.deletionTimestamp"))
        return;
    if (f->which == TS__CTL_WL)
        ts__ctl_written_seen(f->c, obj);
    on_add(inf, obj, data);
    if (f->which == TS__CTL_WL) /* released: the queue it left may go */
        ts__ctl_finalize_admitted_to(f->c, old);
}

static void on_delete(struct ts_informer *inf, const cJSON *obj, void *data)
{
    struct ts__ctl_feed *f = data;

    (void)inf;
    if (f->which == TS__CTL_STS) {
        sts_key(f->c, obj);
        return;
    }
    if (TS__CTL_IS_JOB_INF(f->which)) {
        job_key(f->c, f->which, obj);
        return;
    }
    if (f->which == TS__CTL_TR || f->which == TS__CTL_CTR) {
        ts__ctl_runtime_changed(f->c, f->which, obj);
        return;
    }
    if (f->which == TS__CTL_LR || f->which == TS__CTL_RC) {
        ts__ctl_limitrange_changed(f->c, f->which, obj, put);
        return;
    }
    if (f->which == TS__CTL_AC || f->which >= TS__CTL_PRC)
        ts__ctl_provreq_event(f->c, f->which, obj);
    if (f->which >= TS__CTL_PRC)
        return;
    del(f->c, f->which, obj);
    if (f->which == TS__CTL_WL) {
        ts__ctl_written_seen(f->c, obj); /* gone from the cache: ends it */
        ts__ctl_enqueue_owner(f->c, obj);
        ts__ctl_finalize_admitted_to(f->c, obj);
    } else if (f->which == TS__CTL_CQ) {
        ts__ctl_finalize_flavors(f->c);
    }
}

void ts__ctl_feed_handlers(struct ts_ctl *c)
{
    ts__ctl_limitrange_index(c);
    ts__ctl_provreq_index(c);
    for (int i = 0; i < TS__CTL_N; i++) {
        struct ts_informer_handlers h = {on_add, on_update, on_delete, &c->feeds[i]};

        c->feeds[i].c = c;
        c->feeds[i].which = (enum ts__ctl_inf)i;
        if (c->inf[i])
            ts_informer_add_handlers(c->inf[i], &h);
    }
}

void ts__ctl_kick(struct ts_ctl *c)
{
    int64_t gap = TS__CTL_CYCLE_GAP_COST * c->cycle_cost;

    c->dirty = 1;
    ts__ctl_cycle_soon(c, gap > TS__CTL_CYCLE_GAP_MIN ? gap : TS__CTL_CYCLE_GAP_MIN);
}
