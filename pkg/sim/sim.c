#include "sim/sim.h"

#include "api/admissioncheck.h"
#include "api/jobworkload.h"
#include "api/object.h"
#include "engine/apply.h"
#include "engine/status.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/hmap.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ts_sim {
    struct ts_engine *e;
    struct ts_workload **wls;
    size_t n, cap;
    struct ts_hmap by_key; /* ns/name -> index + 1 */
    struct ts_hmap queues; /* "ClusterQueue/name", "Cohort/name" -> owned cJSON (v1beta2) */
    struct ts_hmap stops;  /* "ClusterQueue/name", "LocalQueue/ns/name" -> stop policy + 1 */
    struct ts_hmap lq_cq;  /* "ns/name" of a LocalQueue -> its ClusterQueue's name (owned) */
    size_t seq;            /* orders objects without a creationTimestamp */
};

struct ts_sim *ts_sim_new(const struct ts_engine_config *config)
{
    struct ts_sim *s = ts_xcalloc(1, sizeof(*s));

    s->e = ts_engine_new(config);
    return s;
}

void ts_sim_free(struct ts_sim *s)
{
    if (!s)
        return;
    ts_engine_free(s->e);
    for (size_t i = 0; i < s->n; i++) {
        ts_workload_release(s->wls[i]);
        free(s->wls[i]);
    }
    free(s->wls);
    ts_hmap_release(&s->by_key);
    {
        size_t it = 0;
        const char *k;
        void *v;

        while (ts_hmap_next(&s->queues, &it, &k, &v))
            cJSON_Delete(v);
        ts_hmap_release(&s->queues);
    }
    ts_hmap_release(&s->stops);
    ts_hmap_release_free(&s->lq_cq);
    free(s);
}

struct ts_engine *ts_sim_engine(struct ts_sim *s)
{
    return s->e;
}

static struct ts_workload *find_mut(const struct ts_sim *s, const char *ns, const char *name)
{
    char key[512];
    void *v;

    snprintf(key, sizeof(key), "%s/%s", ns, name);
    v = ts_hmap_get(&s->by_key, key);
    return v ? s->wls[(size_t)((uintptr_t)v - 1)] : NULL;
}

const struct ts_workload *ts_sim_find(const struct ts_sim *s, const char *ns, const char *name)
{
    return find_mut(s, ns, name);
}

size_t ts_sim_n_workloads(const struct ts_sim *s)
{
    return s->n;
}

const struct ts_workload *ts_sim_workload(const struct ts_sim *s, size_t i)
{
    return i < s->n ? s->wls[i] : NULL;
}

/* Stores (or replaces) a workload; fills what the API server would. */
static int add_workload(struct ts_sim *s, const struct ts_workload *in, ts_time now,
                        struct ts_err *err)
{
    struct ts_workload *wl =
        find_mut(s, in->meta.namespace_ ? in->meta.namespace_ : "default", in->meta.name);
    char key[512];

    if (!wl) {
        wl = ts_xcalloc(1, sizeof(*wl));
        ts_workload_init(wl);
        TS_GROW(s->wls, s->cap, s->n + 1);
        s->wls[s->n++] = wl;
    }
    ts_workload_copy(wl, in);
    if (!wl->meta.namespace_)
        wl->meta.namespace_ = ts_xstrdup("default");
    snprintf(key, sizeof(key), "%s/%s", wl->meta.namespace_, wl->meta.name);
    ts_hmap_put(&s->by_key, key, (void *)(uintptr_t)s->n);
    if (!wl->meta.uid) { /* deterministic, UUID-shaped */
        char uid[64];

        snprintf(uid, sizeof(uid), "00000000-0000-4000-9000-%012zu", s->seq);
        wl->meta.uid = ts_xstrdup(uid);
    }
    if (!wl->meta.creation_timestamp) /* input order decides FIFO ties */
        wl->meta.creation_timestamp = now + (ts_time)s->seq++;
    if (!wl->meta.generation)
        wl->meta.generation = 1;
    return ts_engine_put_workload(s->e, wl, now, err);
}

static void keep_queue(struct ts_sim *s, const char *kind, const char *name, cJSON *obj)
{
    char key[512];

    snprintf(key, sizeof(key), "%s/%s", kind, name ? name : "");
    cJSON_Delete(ts_hmap_put(&s->queues, key, obj));
}

/* The queue's stopPolicy, kept for draining (values are policy + 1: the
 * map holds no NULL). */
static void keep_stop(struct ts_sim *s, const char *kind, const char *ns, const char *name,
                      enum ts_stop_policy policy)
{
    char key[512];

    snprintf(key, sizeof(key), "%s/%s%s%s", kind, ns ? ns : "", ns ? "/" : "", name ? name : "");
    ts_hmap_put(&s->stops, key, (void *)(intptr_t)(policy + 1));
}

/* The ClusterQueue a LocalQueue names, for draining. */
static void keep_lq_cq(struct ts_sim *s, const struct ts_local_queue *lq)
{
    char key[512];

    snprintf(key, sizeof(key), "%s/%s", lq->meta.namespace_ ? lq->meta.namespace_ : "",
             lq->meta.name ? lq->meta.name : "");
    free(ts_hmap_put(&s->lq_cq, key,
                     ts_xstrdup(lq->spec.cluster_queue ? lq->spec.cluster_queue : "")));
}

static enum ts_stop_policy stop_of(const struct ts_sim *s, const char *kind, const char *ns,
                                   const char *name)
{
    char key[512];
    void *v;

    snprintf(key, sizeof(key), "%s/%s%s%s", kind, ns ? ns : "", ns ? "/" : "", name ? name : "");
    v = ts_hmap_get(&s->stops, key);
    return v ? (enum ts_stop_policy)((intptr_t)v - 1) : TS_STOP_NONE;
}

static int key_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* One queue object with the status the engine implies. */
static cJSON *queue_with_status(const struct ts_sim *s, const char *key, const cJSON *stored,
                                ts_time now)
{
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_dec d;
    cJSON *out;

    ts_dec_init(&d, &errs);
    if (!strncmp(key, "Cohort/", 7)) {
        struct ts_cohort co;

        ts_cohort_init(&co);
        ts_cohort_decode(&d, stored, &co);
        ts_engine_cohort_status(s->e, co.meta.name, &co.status);
        out = ts_cohort_encode(&co);
        ts_cohort_release(&co);
    } else {
        struct ts_cluster_queue cq;

        ts_cluster_queue_init(&cq);
        ts_cluster_queue_decode(&d, stored, &cq);
        ts_engine_cq_status(s->e, cq.meta.name, now, &cq.status);
        out = ts_cluster_queue_encode(&cq);
        ts_cluster_queue_release(&cq);
    }
    ts_field_errors_release(&errs);
    return out;
}

cJSON *ts_sim_queues(const struct ts_sim *s, ts_time now)
{
    cJSON *arr = cJSON_CreateArray();
    const char **keys = ts_xcalloc(s->queues.n + 1, sizeof(*keys));
    size_t it = 0, n = 0;
    const char *k;
    void *v;

    while (ts_hmap_next(&s->queues, &it, &k, &v))
        keys[n++] = k;
    qsort(keys, n, sizeof(*keys), key_cmp);
    for (size_t i = 0; i < n; i++)
        cJSON_AddItemToArray(arr,
                             queue_with_status(s, keys[i], ts_hmap_get(&s->queues, keys[i]), now));
    free(keys);
    return arr;
}

static int lookup_wpc(void *ctx, const char *name, int32_t *value)
{
    return ts_engine_priority_class(ctx, 1, name, value);
}

static int lookup_pc(void *ctx, const char *name, int32_t *value)
{
    return ts_engine_priority_class(ctx, 0, name, value);
}

static int lookup_default(void *ctx, const char **name, int32_t *value)
{
    return ts_engine_default_priority_class(ctx, name, value);
}

/* What the API server fills in for a job the user created: a name from
 * generateName, a namespace and a uid (deterministic here, so the
 * Workload's name hash is reproducible). */
static void complete_job_meta(struct ts_sim *s, struct ts_object_meta *m)
{
    static const char alphabet[] = "bcdfghjklmnpqrstvwxz2456789";
    char uid[64];

    if (!m->namespace_)
        m->namespace_ = ts_xstrdup("default");
    if (!m->name && m->generate_name) {
        struct ts_buf b = TS_BUF_INIT;
        size_t n = s->seq + 1;

        ts_buf_adds(&b, m->generate_name);
        for (int i = 0; i < 5; i++, n /= 27)
            ts_buf_addc(&b, alphabet[n % 27]);
        m->name = ts_buf_take(&b);
    }
    if (!m->uid) {
        snprintf(uid, sizeof(uid), "00000000-0000-4000-8000-%012zu", s->seq);
        m->uid = ts_xstrdup(uid);
    }
}

/* Builds the Workload the controller would create for a job. */
static int add_job(struct ts_sim *s, struct ts_object *o, ts_time now, struct ts_err *err)
{
    struct ts_priority_lookup prio = {lookup_wpc, lookup_pc, lookup_default, s->e};
    struct ts_object_meta *m = o->kind == TS_KIND_JOB      ? &o->u.job.meta
                               : o->kind == TS_KIND_JOBSET ? &o->u.jobset.meta
                               : o->kind == TS_KIND_POD    ? &o->u.pod.meta
                               : TS_KIND_IS_RAY(o->kind)   ? &o->u.ray.meta
                               : o->kind == TS_KIND_TRAINJOB
                                   ? &o->u.trainjob.meta /* no runtimes: "not found" below */
                                   : &o->u.ptj.meta;
    struct ts_workload wl;
    int rc;

    if (o->kind == TS_KIND_POD && ts_strmap_get(&m->labels, TS_POD_LABEL_GROUP_NAME))
        return ts_err_set(err, TS_EUNSUPPORTED,
                          "Pod \"%s\": pod groups (label %s) are not simulated yet", m->name,
                          TS_POD_LABEL_GROUP_NAME);
    complete_job_meta(s, m);
    if (!ts_job_meta_queue_name(m))
        return 0; /* not managed: no queue name */
    if (o->kind == TS_KIND_RAY_JOB && ts_rayjob_skip(&o->u.ray))
        return 0; /* on an existing cluster: not queued (Kueue's RayJob.Skip) */
    ts_workload_init(&wl);
    rc = ts_jobworkload_from_object(o, &prio, &wl, err);
    if (rc)
        ts_err_prefix(err, "%s \"%s/%s\"", ts_kind_name(o->kind), m->namespace_, m->name);
    else
        rc = add_workload(s, &wl, now, err);
    ts_workload_release(&wl);
    return rc;
}

static int add_typed(struct ts_sim *s, struct ts_object *o, ts_time now, struct ts_err *err)
{
    switch (o->kind) {
    case TS_KIND_RESOURCE_FLAVOR:
        return ts_engine_put_flavor(s->e, &o->u.rf, err);
    case TS_KIND_CLUSTER_QUEUE:
        keep_queue(s, "ClusterQueue", o->u.cq.meta.name, ts_cluster_queue_encode(&o->u.cq));
        keep_stop(s, "ClusterQueue", NULL, o->u.cq.meta.name, o->u.cq.spec.stop_policy);
        return ts_engine_put_cluster_queue(s->e, &o->u.cq, err);
    case TS_KIND_COHORT:
        keep_queue(s, "Cohort", o->u.cohort.meta.name, ts_cohort_encode(&o->u.cohort));
        return ts_engine_put_cohort(s->e, &o->u.cohort, err);
    case TS_KIND_LOCAL_QUEUE:
        keep_stop(s, "LocalQueue", o->u.lq.meta.namespace_, o->u.lq.meta.name,
                  o->u.lq.spec.stop_policy);
        keep_lq_cq(s, &o->u.lq);
        return ts_engine_put_local_queue(s->e, &o->u.lq, err);
    case TS_KIND_NAMESPACE:
        ts_engine_put_namespace(s->e, o->u.ns.meta.name, &o->u.ns.meta.labels);
        return 0;
    case TS_KIND_WORKLOAD_PRIORITY_CLASS:
        ts_engine_put_workload_priority_class(s->e, o->u.wpc.meta.name, o->u.wpc.value);
        return 0;
    case TS_KIND_PRIORITY_CLASS:
        ts_engine_put_priority_class(s->e, o->u.pc.meta.name, o->u.pc.value,
                                     o->u.pc.global_default);
        return 0;
    case TS_KIND_WORKLOAD:
        return add_workload(s, &o->u.wl, now, err);
    default:
        if (TS_KIND_IS_JOB(o->kind))
            return add_job(s, o, now, err);
        break;
    }
    return ts_err_set(err, TS_EUNSUPPORTED, "unsupported object");
}

/* An AdmissionCheck: its controller and whether its status says Active
 * (nothing plays its controller here, so it stays as written). */
static int add_admission_check(struct ts_sim *s, const cJSON *obj, struct ts_err *err)
{
    const char *name, *controller;
    int active;

    if (ts_admission_check_read(obj, &name, &controller, &active))
        return ts_err_set(err, TS_EINVAL, "AdmissionCheck: metadata.name: Required value");
    ts_engine_put_admission_check(s->e, name, controller, active);
    return 0;
}

int ts_sim_add(struct ts_sim *s, const cJSON *obj, ts_time now, struct ts_err *err)
{
    return ts_sim_add_errs(s, obj, now, NULL, err);
}

int ts_sim_add_errs(struct ts_sim *s, const cJSON *obj, ts_time now,
                    struct ts_field_errors *errs_out, struct ts_err *err)
{
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_object o;
    char what[600];
    int rc;

    if (ts_admission_check_is(obj))
        return add_admission_check(s, obj, err);
    rc = ts_object_decode(obj, &o, &errs, err);

    if (rc) {
        ts_field_errors_release(&errs);
        return rc;
    }
    if (!errs.n)
        ts_object_validate(&o, &errs);
    snprintf(what, sizeof(what), "%s \"%s\"", ts_kind_name(o.kind),
             ts_object_meta(&o)->name ? ts_object_meta(&o)->name : "");
    if (errs.n)
        rc = ts_field_errors_to_err(&errs, what, err);
    else
        rc = add_typed(s, &o, now, err);
    if (errs_out)
        ts_field_errors_extend(errs_out, &errs);
    ts_field_errors_release(&errs);
    ts_object_release(&o);
    return rc;
}

/* A preemption victim: evicted, and (the simulated job stops at once) its
 * quota released and the workload requeued. */
static void evict(struct ts_sim *s, const struct ts_decision_target *t, ts_time now)
{
    struct ts_workload *v = find_mut(s, t->ns, t->name);

    if (!v)
        return;
    ts_apply_preempted(v, t, now);
    ts_apply_quota_released(v, now);
    ts_engine_put_workload(s->e, v, now, NULL);
}

/* stopPolicy HoldAndDrain, as Kueue's workload controller: an admitted
 * workload of a draining LocalQueue, or of a draining ClusterQueue (the one
 * its LocalQueue names, when that LocalQueue exists and is not stopped: see
 * queue_stops() in pkg/controller/jobs.c), is evicted
 * (LocalQueueStopped / ClusterQueueStopped) and, the simulated job
 * stopping at once, its quota released.  Returns how many. */
static size_t drain(struct ts_sim *s, ts_time now)
{
    size_t n = 0;
    char key[512];

    for (size_t i = 0; i < s->n; i++) {
        struct ts_workload *wl = s->wls[i];
        const char *reason = NULL, *msg = NULL, *cq;
        enum ts_stop_policy lq_stop;

        if (!wl->status.admission || !ts_workload_is_admitted(wl) || ts_workload_is_evicted(wl))
            continue;
        snprintf(key, sizeof(key), "%s/%s", wl->meta.namespace_ ? wl->meta.namespace_ : "",
                 wl->spec.queue_name ? wl->spec.queue_name : "");
        cq = ts_hmap_get(&s->lq_cq, key);
        lq_stop = stop_of(s, "LocalQueue", wl->meta.namespace_, wl->spec.queue_name);
        if (lq_stop == TS_STOP_HOLD_AND_DRAIN) {
            reason = TS_WL_REASON_LOCAL_QUEUE_STOPPED;
            msg = "The LocalQueue is stopped";
        } else if (cq && lq_stop == TS_STOP_NONE &&
                   stop_of(s, "ClusterQueue", NULL, cq) == TS_STOP_HOLD_AND_DRAIN) {
            reason = TS_WL_REASON_CLUSTER_QUEUE_STOPPED;
            msg = "The ClusterQueue is stopped";
        }
        if (!reason)
            continue;
        ts_conditions_set(&wl->status.conditions, TS_WL_COND_EVICTED, "True", reason, msg,
                          wl->meta.generation, now);
        ts_apply_evicting(wl, reason, NULL, now);
        ts_apply_quota_released(wl, now);
        ts_engine_put_workload(s->e, wl, now, NULL);
        n++;
    }
    return n;
}

size_t ts_sim_run(struct ts_sim *s, size_t max_cycles, ts_time now)
{
    size_t changed = 0;

    if (!max_cycles)
        max_cycles = TS_SIM_SETTLE_CAP;
    for (size_t i = 0; i < max_cycles; i++) {
        struct ts_cycle c;
        size_t n;

        ts_cycle_init(&c);
        n = ts_engine_cycle(s->e, now, &c);
        for (size_t d = 0; d < c.n; d++) {
            struct ts_workload *wl = find_mut(s, c.items[d].ns, c.items[d].name);

            if (wl)
                ts_apply_decision(wl, &c.items[d], now);
            if (c.items[d].kind == TS_DECISION_ADMIT)
                ts_engine_admit_confirm(s->e, c.items[d].ns, c.items[d].name);
            for (size_t t = 0; t < c.items[d].n_targets; t++)
                evict(s, &c.items[d].targets[t], now);
        }
        ts_cycle_release(&c);
        /* the workload controller after the scheduler, as in Kueue's
         * scheduler tests: a cycle sees quota a drain releases next */
        n += drain(s, now);
        if (!n)
            break;
        changed++;
    }
    return changed;
}

int ts_sim_finish(struct ts_sim *s, const char *ns, const char *name, ts_time now)
{
    struct ts_workload *wl = find_mut(s, ns, name);

    if (!wl)
        return TS_ENOTFOUND;
    ts_conditions_set(&wl->status.conditions, TS_WL_COND_FINISHED, "True", TS_WL_REASON_SUCCEEDED,
                      "Job finished successfully", wl->meta.generation, now);
    return ts_engine_put_workload(s->e, wl, now, NULL);
}

int ts_sim_delete(struct ts_sim *s, const char *ns, const char *name)
{
    char key[512];
    void *v;
    size_t i;

    snprintf(key, sizeof(key), "%s/%s", ns, name);
    v = ts_hmap_del(&s->by_key, key);
    if (!v)
        return TS_ENOTFOUND;
    i = (size_t)((uintptr_t)v - 1);
    ts_engine_delete_workload(s->e, ns, name);
    ts_workload_release(s->wls[i]);
    free(s->wls[i]);
    memmove(&s->wls[i], &s->wls[i + 1], (s->n - i - 1) * sizeof(*s->wls));
    s->n--;
    for (size_t j = i; j < s->n; j++) { /* indexes after i moved down */
        snprintf(key, sizeof(key), "%s/%s", s->wls[j]->meta.namespace_, s->wls[j]->meta.name);
        ts_hmap_put(&s->by_key, key, (void *)(uintptr_t)(j + 1));
    }
    return 0;
}
