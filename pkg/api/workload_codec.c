/* Workload JSON: v1beta2 decode (with Kueue's defaults) and encode. */
#include "api/workload.h"

#include "api/enc.h"
#include "api/workload_int.h"
#include "json/json.h"
#include "util/alloc.h"

#include <stdlib.h>
#include <string.h>

/* A JSON value kept verbatim (null counts as absent). */
static void dec_raw(const cJSON *obj, const char *key, cJSON **out)
{
    const cJSON *v = obj ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;

    cJSON_Delete(*out);
    *out = v && !cJSON_IsNull(v) ? cJSON_Duplicate(v, 1) : NULL;
}

/* Calls fn on each element of obj[key] with the path at key[i]; returns
 * the element count (0 when absent). */
typedef void (*elem_fn)(struct ts_dec *d, const cJSON *e, void *arr, size_t i);

static size_t dec_each(struct ts_dec *d, const cJSON *obj, const char *key, void **arr, size_t elem,
                       elem_fn fn)
{
    const cJSON *a = ts_dec_array(d, obj, key);
    const cJSON *e;
    size_t mark, i = 0;

    *arr = NULL;
    if (!a || !cJSON_GetArraySize(a))
        return 0;
    *arr = ts_xcalloc((size_t)cJSON_GetArraySize(a), elem);
    mark = ts_path_push(&d->path, key);
    cJSON_ArrayForEach(e, a)
    {
        size_t im = ts_path_push_index(&d->path, i);

        fn(d, e, *arr, i++);
        ts_path_pop(&d->path, im);
    }
    ts_path_pop(&d->path, mark);
    return i;
}

/* --- spec -------------------------------------------------------------------- */

static void podset_decode(struct ts_dec *d, const cJSON *e, void *arr, size_t i)
{
    struct ts_podset *p = &((struct ts_podset *)arr)[i];
    const cJSON *tmpl;
    size_t mark;

    p->count = 1;
    ts_pod_template_init(&p->template);
    if (ts_dec_string(d, e, "name", &p->name) != 1)
        p->name = p->name ? p->name : ts_xstrdup(TS_WL_DEFAULT_PODSET);
    tmpl = ts_dec_object(d, e, "template");
    mark = ts_path_push(&d->path, "template");
    ts_pod_template_decode(d, tmpl, &p->template);
    ts_path_pop(&d->path, mark);
    ts_dec_i32(d, e, "count", &p->count);
    ts_dec_opt_i32(d, e, "minCount", &p->min_count);
    dec_raw(e, "topologyRequest", &p->topology_request);
}

static void prio_ref_decode(struct ts_dec *d, const cJSON *spec, struct ts_priority_class_ref *r)
{
    const cJSON *o = ts_dec_object(d, spec, "priorityClassRef");
    size_t mark;

    if (!o)
        return;
    r->set = 1;
    mark = ts_path_push(&d->path, "priorityClassRef");
    ts_dec_string(d, o, "group", &r->group);
    ts_dec_string(d, o, "kind", &r->kind);
    ts_dec_string(d, o, "name", &r->name);
    ts_path_pop(&d->path, mark);
}

static void spec_decode(struct ts_dec *d, const cJSON *spec, struct ts_workload_spec *s)
{
    s->n_podsets =
        dec_each(d, spec, "podSets", (void **)&s->podsets, sizeof(*s->podsets), podset_decode);
    ts_dec_string(d, spec, "queueName", &s->queue_name);
    prio_ref_decode(d, spec, &s->priority_class_ref);
    ts_dec_opt_i32(d, spec, "priority", &s->priority);
    ts_dec_opt_bool(d, spec, "active", &s->active);
    ts_dec_opt_i32(d, spec, "maximumExecutionTimeSeconds", &s->maximum_execution_time_seconds);
    dec_raw(spec, "preemptionGates", &s->preemption_gates);
}

/* --- status -------------------------------------------------------------------- */

static void psa_decode(struct ts_dec *d, const cJSON *e, void *arr, size_t i)
{
    struct ts_podset_assignment *p = &((struct ts_podset_assignment *)arr)[i];

    if (ts_dec_string(d, e, "name", &p->name) != 1 && !p->name)
        p->name = ts_xstrdup(TS_WL_DEFAULT_PODSET);
    ts_dec_strmap(d, e, "flavors", &p->flavors);
    ts_dec_resource_list(d, e, "resourceUsage", &p->resource_usage);
    ts_dec_opt_i32(d, e, "count", &p->count);
    dec_raw(e, "topologyAssignment", &p->topology_assignment);
    ts_dec_string(d, e, "delayedTopologyRequest", &p->delayed_topology_request);
}

static void admission_decode(struct ts_dec *d, const cJSON *status, struct ts_workload_status *s)
{
    const cJSON *o = ts_dec_object(d, status, "admission");
    struct ts_admission *a;
    size_t mark;

    if (!o)
        return;
    a = s->admission = ts_admission_new();
    mark = ts_path_push(&d->path, "admission");
    ts_dec_string(d, o, "clusterQueue", &a->cluster_queue);
    a->n_podset_assignments = dec_each(d, o, "podSetAssignments", (void **)&a->podset_assignments,
                                       sizeof(*a->podset_assignments), psa_decode);
    ts_path_pop(&d->path, mark);
}

static void reclaimable_decode(struct ts_dec *d, const cJSON *e, void *arr, size_t i)
{
    struct ts_reclaimable_pod *p = &((struct ts_reclaimable_pod *)arr)[i];

    ts_dec_string(d, e, "name", &p->name);
    ts_dec_i32(d, e, "count", &p->count);
}

static void psu_decode(struct ts_dec *d, const cJSON *e, void *arr, size_t i)
{
    struct ts_podset_update *u = &((struct ts_podset_update *)arr)[i];

    ts_dec_string(d, e, "name", &u->name);
    ts_dec_strmap(d, e, "labels", &u->labels);
    ts_dec_strmap(d, e, "annotations", &u->annotations);
    ts_dec_strmap(d, e, "nodeSelector", &u->node_selector);
    ts_tolerations_decode(d, e, "tolerations", &u->tolerations, &u->n_tolerations);
}

static void check_decode(struct ts_dec *d, const cJSON *e, void *arr, size_t i)
{
    struct ts_admission_check_state *c = &((struct ts_admission_check_state *)arr)[i];

    ts_dec_string(d, e, "name", &c->name);
    ts_dec_string(d, e, "state", &c->state);
    ts_dec_time(d, e, "lastTransitionTime", &c->last_transition_time);
    ts_dec_string(d, e, "message", &c->message);
    ts_dec_opt_i32(d, e, "requeueAfterSeconds", &c->requeue_after_seconds);
    ts_dec_opt_i32(d, e, "retryCount", &c->retry_count);
    c->n_podset_updates = dec_each(d, e, "podSetUpdates", (void **)&c->podset_updates,
                                   sizeof(*c->podset_updates), psu_decode);
}

static void request_decode(struct ts_dec *d, const cJSON *e, void *arr, size_t i)
{
    struct ts_podset_request *r = &((struct ts_podset_request *)arr)[i];

    if (ts_dec_string(d, e, "name", &r->name) != 1 && !r->name)
        r->name = ts_xstrdup(TS_WL_DEFAULT_PODSET);
    ts_dec_resource_list(d, e, "resources", &r->resources);
}

static void eviction_decode(struct ts_dec *d, const cJSON *e, void *arr, size_t i)
{
    struct ts_eviction_stat *x = &((struct ts_eviction_stat *)arr)[i];

    ts_dec_string(d, e, "reason", &x->reason);
    ts_dec_string(d, e, "underlyingCause", &x->underlying_cause);
    ts_dec_i32(d, e, "count", &x->count);
}

static void unhealthy_decode(struct ts_dec *d, const cJSON *e, void *arr, size_t i)
{
    char **names = arr;

    ts_dec_string(d, e, "name", &names[i]);
}

static void requeue_decode(struct ts_dec *d, const cJSON *status, struct ts_requeue_state *r)
{
    const cJSON *o = ts_dec_object(d, status, "requeueState");
    size_t mark;

    if (!o)
        return;
    r->set = 1;
    mark = ts_path_push(&d->path, "requeueState");
    ts_dec_opt_i32(d, o, "count", &r->count);
    ts_dec_time(d, o, "requeueAt", &r->requeue_at);
    ts_path_pop(&d->path, mark);
}

static void stats_decode(struct ts_dec *d, const cJSON *status, struct ts_workload_status *s)
{
    const cJSON *o = ts_dec_object(d, status, "schedulingStats");
    size_t mark;

    if (!o)
        return;
    mark = ts_path_push(&d->path, "schedulingStats");
    s->n_evictions =
        dec_each(d, o, "evictions", (void **)&s->evictions, sizeof(*s->evictions), eviction_decode);
    ts_path_pop(&d->path, mark);
}

static void unhealthy_nodes_decode(struct ts_dec *d, const cJSON *status, struct ts_strlist *l)
{
    char **names = NULL;
    size_t n =
        dec_each(d, status, "unhealthyNodes", (void **)&names, sizeof(char *), unhealthy_decode);

    for (size_t i = 0; i < n; i++) {
        ts_strlist_push(l, names[i] ? names[i] : "");
        free(names[i]);
    }
    free(names);
}

static void status_decode(struct ts_dec *d, const cJSON *st, struct ts_workload_status *s)
{
    ts_conditions_decode(d, st, "conditions", &s->conditions);
    admission_decode(d, st, s);
    requeue_decode(d, st, &s->requeue_state);
    s->n_reclaimable_pods = dec_each(d, st, "reclaimablePods", (void **)&s->reclaimable_pods,
                                     sizeof(*s->reclaimable_pods), reclaimable_decode);
    s->n_admission_checks = dec_each(d, st, "admissionChecks", (void **)&s->admission_checks,
                                     sizeof(*s->admission_checks), check_decode);
    s->n_resource_requests = dec_each(d, st, "resourceRequests", (void **)&s->resource_requests,
                                      sizeof(*s->resource_requests), request_decode);
    ts_dec_opt_i32(d, st, "accumulatedPastExecutionTimeSeconds",
                   &s->accumulated_past_execution_time_seconds);
    stats_decode(d, st, s);
    ts_dec_strlist(d, st, "nominatedClusterNames", &s->nominated_cluster_names);
    ts_dec_string(d, st, "clusterName", &s->cluster_name);
    unhealthy_nodes_decode(d, st, &s->unhealthy_nodes);
    dec_raw(st, "preemptionGates", &s->preemption_gates);
}

void ts_workload_decode(struct ts_dec *d, const cJSON *obj, struct ts_workload *w)
{
    const cJSON *spec, *status;
    size_t mark;

    ts_workload_release(w);
    if (!cJSON_IsObject(obj)) {
        ts_dec_error(d, TS_FIELD_TYPE_INVALID, NULL, NULL, "must be of type object");
        return;
    }
    ts_object_meta_decode(d, obj, &w->meta);
    spec = ts_dec_object(d, obj, "spec");
    mark = ts_path_push(&d->path, "spec");
    if (spec)
        spec_decode(d, spec, &w->spec);
    ts_path_pop(&d->path, mark);
    status = ts_dec_object(d, obj, "status");
    mark = ts_path_push(&d->path, "status");
    if (status)
        status_decode(d, status, &w->status);
    ts_path_pop(&d->path, mark);
    if (!w->spec.active.set) {
        w->spec.active.set = 1;
        w->spec.active.v = 1;
    }
}

/* --- encode -------------------------------------------------------------------- */

static void enc_raw(cJSON *obj, const char *key, const cJSON *v)
{
    if (v)
        cJSON_AddItemToObject(obj, key, cJSON_Duplicate(v, 1));
}

static cJSON *podset_encode(const struct ts_podset *p)
{
    cJSON *o = cJSON_CreateObject();

    ts_enc_string(o, "name", p->name);
    cJSON_AddItemToObject(o, "template", ts_pod_template_encode(&p->template));
    ts_enc_int(o, "count", p->count);
    ts_enc_opt_i32(o, "minCount", &p->min_count);
    enc_raw(o, "topologyRequest", p->topology_request);
    return o;
}

static void spec_encode(const struct ts_workload_spec *s, cJSON *obj)
{
    cJSON *spec = ts_enc_object(obj, "spec");
    cJSON *a = ts_enc_array(spec, "podSets");

    for (size_t i = 0; i < s->n_podsets; i++)
        cJSON_AddItemToArray(a, podset_encode(&s->podsets[i]));
    ts_enc_string(spec, "queueName", s->queue_name);
    if (s->priority_class_ref.set) {
        cJSON *r = ts_enc_object(spec, "priorityClassRef");

        ts_enc_string(r, "group", s->priority_class_ref.group);
        ts_enc_string(r, "kind", s->priority_class_ref.kind);
        ts_enc_string(r, "name", s->priority_class_ref.name);
    }
    ts_enc_opt_i32(spec, "priority", &s->priority);
    ts_enc_opt_bool(spec, "active", &s->active);
    ts_enc_opt_i32(spec, "maximumExecutionTimeSeconds", &s->maximum_execution_time_seconds);
    enc_raw(spec, "preemptionGates", s->preemption_gates);
}

static void admission_encode(const struct ts_admission *a, cJSON *status)
{
    cJSON *o = ts_enc_object(status, "admission");
    cJSON *arr;

    ts_enc_string(o, "clusterQueue", a->cluster_queue);
    arr = ts_enc_array(o, "podSetAssignments");
    for (size_t i = 0; i < a->n_podset_assignments; i++) {
        const struct ts_podset_assignment *p = &a->podset_assignments[i];
        cJSON *e = cJSON_CreateObject();

        ts_enc_string(e, "name", p->name);
        ts_enc_strmap(e, "flavors", &p->flavors);
        ts_enc_resource_list(e, "resourceUsage", &p->resource_usage);
        ts_enc_opt_i32(e, "count", &p->count);
        enc_raw(e, "topologyAssignment", p->topology_assignment);
        ts_enc_string(e, "delayedTopologyRequest", p->delayed_topology_request);
        cJSON_AddItemToArray(arr, e);
    }
}

void ts__workload_admission_json(const struct ts_admission *a, struct ts_buf *out)
{
    cJSON *st = cJSON_CreateObject();

    admission_encode(a, st);
    ts_json_print(cJSON_GetObjectItemCaseSensitive(st, "admission"), TS_JSON_COMPACT, out, NULL);
    cJSON_Delete(st);
}

static cJSON *check_encode(const struct ts_admission_check_state *c)
{
    cJSON *o = cJSON_CreateObject();

    ts_enc_string(o, "name", c->name);
    ts_enc_string(o, "state", c->state);
    ts_enc_time(o, "lastTransitionTime", c->last_transition_time);
    /* required, and always written by Kueue's Go types, empty or not */
    ts_enc_string(o, "message", c->message ? c->message : "");
    ts_enc_opt_i32(o, "requeueAfterSeconds", &c->requeue_after_seconds);
    ts_enc_opt_i32(o, "retryCount", &c->retry_count);
    if (c->n_podset_updates) {
        cJSON *a = ts_enc_array(o, "podSetUpdates");

        for (size_t i = 0; i < c->n_podset_updates; i++) {
            const struct ts_podset_update *u = &c->podset_updates[i];
            cJSON *e = cJSON_CreateObject();

            ts_enc_string(e, "name", u->name);
            ts_enc_strmap(e, "labels", &u->labels);
            ts_enc_strmap(e, "annotations", &u->annotations);
            ts_enc_strmap(e, "nodeSelector", &u->node_selector);
            ts_tolerations_encode(u->tolerations, u->n_tolerations, e, "tolerations");
            cJSON_AddItemToArray(a, e);
        }
    }
    return o;
}

static void status_arrays_encode(const struct ts_workload_status *s, cJSON *st)
{
    cJSON *a;

    if (s->n_reclaimable_pods) {
        a = ts_enc_array(st, "reclaimablePods");
        for (size_t i = 0; i < s->n_reclaimable_pods; i++) {
            cJSON *e = cJSON_CreateObject();

            ts_enc_string(e, "name", s->reclaimable_pods[i].name);
            ts_enc_int(e, "count", s->reclaimable_pods[i].count);
            cJSON_AddItemToArray(a, e);
        }
    }
    if (s->n_admission_checks) {
        a = ts_enc_array(st, "admissionChecks");
        for (size_t i = 0; i < s->n_admission_checks; i++)
            cJSON_AddItemToArray(a, check_encode(&s->admission_checks[i]));
    }
    if (s->n_resource_requests) {
        a = ts_enc_array(st, "resourceRequests");
        for (size_t i = 0; i < s->n_resource_requests; i++) {
            cJSON *e = cJSON_CreateObject();

            ts_enc_string(e, "name", s->resource_requests[i].name);
            ts_enc_resource_list(e, "resources", &s->resource_requests[i].resources);
            cJSON_AddItemToArray(a, e);
        }
    }
}

static void stats_encode(const struct ts_workload_status *s, cJSON *st)
{
    cJSON *a;

    if (!s->n_evictions)
        return;
    a = ts_enc_array(ts_enc_object(st, "schedulingStats"), "evictions");
    for (size_t i = 0; i < s->n_evictions; i++) {
        cJSON *e = cJSON_CreateObject();

        ts_enc_string(e, "reason", s->evictions[i].reason);
        ts_enc_string(e, "underlyingCause", s->evictions[i].underlying_cause);
        ts_enc_int(e, "count", s->evictions[i].count);
        cJSON_AddItemToArray(a, e);
    }
}

static void status_encode(const struct ts_workload_status *s, cJSON *obj)
{
    cJSON *st = cJSON_CreateObject();

    ts_conditions_encode(&s->conditions, st, "conditions");
    if (s->admission)
        admission_encode(s->admission, st);
    if (s->requeue_state.set) {
        cJSON *r = ts_enc_object(st, "requeueState");

        ts_enc_opt_i32(r, "count", &s->requeue_state.count);
        ts_enc_time(r, "requeueAt", s->requeue_state.requeue_at);
    }
    status_arrays_encode(s, st);
    ts_enc_opt_i32(st, "accumulatedPastExecutionTimeSeconds",
                   &s->accumulated_past_execution_time_seconds);
    stats_encode(s, st);
    ts_enc_strlist(st, "nominatedClusterNames", &s->nominated_cluster_names);
    ts_enc_string(st, "clusterName", s->cluster_name);
    if (s->unhealthy_nodes.n) {
        cJSON *a = ts_enc_array(st, "unhealthyNodes");

        for (size_t i = 0; i < s->unhealthy_nodes.n; i++) {
            cJSON *e = cJSON_CreateObject();

            ts_enc_string(e, "name", s->unhealthy_nodes.items[i]);
            cJSON_AddItemToArray(a, e);
        }
    }
    enc_raw(st, "preemptionGates", s->preemption_gates);
    if (st->child)
        cJSON_AddItemToObject(obj, "status", st);
    else
        cJSON_Delete(st);
}

cJSON *ts_workload_encode(const struct ts_workload *w)
{
    cJSON *o = cJSON_CreateObject();

    ts_enc_string(o, "apiVersion", TS_WL_API_VERSION);
    ts_enc_string(o, "kind", TS_WL_KIND);
    ts_object_meta_encode(&w->meta, o);
    spec_encode(&w->spec, o);
    status_encode(&w->status, o);
    return o;
}
