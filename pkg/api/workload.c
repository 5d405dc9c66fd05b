/* Workload lifecycle (init/release/copy), builders and state predicates.
 * JSON lives in workload_codec.c, validation in workload_validate.c. */
#include "api/workload.h"

#include "util/alloc.h"
#include "util/parse.h"
#include "json/json.h"

#include <stdlib.h>
#include <string.h>

static char *dup_or_null(const char *s)
{
    return s ? ts_xstrdup(s) : NULL;
}

static cJSON *json_dup(const cJSON *j)
{
    return j ? cJSON_Duplicate(j, 1) : NULL;
}

/* --- pod sets -------------------------------------------------------------- */

static void podset_release(struct ts_podset *p)
{
    free(p->name);
    ts_pod_template_release(&p->template);
    cJSON_Delete(p->topology_request);
}

static void podset_copy(struct ts_podset *dst, const struct ts_podset *src)
{
    memset(dst, 0, sizeof(*dst));
    dst->name = dup_or_null(src->name);
    ts_pod_template_init(&dst->template);
    ts_pod_template_copy(&dst->template, &src->template);
    dst->count = src->count;
    dst->min_count = src->min_count;
    dst->topology_request = json_dup(src->topology_request);
}

struct ts_podset *ts_workload_add_podset(struct ts_workload *w, const char *name)
{
    struct ts_podset *p;

    w->spec.podsets = ts_xrealloc(w->spec.podsets, (w->spec.n_podsets + 1) * sizeof(*p));
    p = &w->spec.podsets[w->spec.n_podsets++];
    memset(p, 0, sizeof(*p));
    p->name = ts_xstrdup(name ? name : TS_WL_DEFAULT_PODSET);
    p->count = 1;
    ts_pod_template_init(&p->template);
    return p;
}

const struct ts_podset *ts_workload_find_podset(const struct ts_workload *w, const char *name)
{
    for (size_t i = 0; i < w->spec.n_podsets; i++) {
        if (w->spec.podsets[i].name && name && strcmp(w->spec.podsets[i].name, name) == 0)
            return &w->spec.podsets[i];
    }
    return NULL;
}

/* --- admission ------------------------------------------------------------- */

struct ts_admission *ts_admission_new(void)
{
    return ts_xcalloc(1, sizeof(struct ts_admission));
}

static void psa_release(struct ts_podset_assignment *p)
{
    free(p->name);
    ts_strmap_release(&p->flavors);
    ts_resource_list_release(&p->resource_usage);
    cJSON_Delete(p->topology_assignment);
    free(p->delayed_topology_request);
}

void ts_admission_free(struct ts_admission *a)
{
    if (!a)
        return;
    free(a->cluster_queue);
    for (size_t i = 0; i < a->n_podset_assignments; i++)
        psa_release(&a->podset_assignments[i]);
    free(a->podset_assignments);
    free(a);
}

struct ts_podset_assignment *ts_admission_add(struct ts_admission *a, const char *name)
{
    struct ts_podset_assignment *p;

    a->podset_assignments =
        ts_xrealloc(a->podset_assignments, (a->n_podset_assignments + 1) * sizeof(*p));
    p = &a->podset_assignments[a->n_podset_assignments++];
    memset(p, 0, sizeof(*p));
    p->name = ts_xstrdup(name ? name : TS_WL_DEFAULT_PODSET);
    return p;
}

struct ts_admission *ts_admission_dup(const struct ts_admission *a)
{
    struct ts_admission *d;

    if (!a)
        return NULL;
    d = ts_admission_new();
    d->cluster_queue = dup_or_null(a->cluster_queue);
    for (size_t i = 0; i < a->n_podset_assignments; i++) {
        const struct ts_podset_assignment *s = &a->podset_assignments[i];
        struct ts_podset_assignment *p = ts_admission_add(d, s->name);

        free(p->name);
        p->name = dup_or_null(s->name);
        ts_strmap_copy(&p->flavors, &s->flavors);
        ts_resource_list_copy(&p->resource_usage, &s->resource_usage);
        p->count = s->count;
        p->topology_assignment = json_dup(s->topology_assignment);
        p->delayed_topology_request = dup_or_null(s->delayed_topology_request);
    }
    return d;
}

/* --- status arrays ---------------------------------------------------------- */

void ts_podset_update_release(struct ts_podset_update *u)
{
    free(u->name);
    ts_strmap_release(&u->labels);
    ts_strmap_release(&u->annotations);
    ts_strmap_release(&u->node_selector);
    ts_tolerations_free(u->tolerations, u->n_tolerations);
}

void ts_admission_check_state_release(struct ts_admission_check_state *c)
{
    free(c->name);
    free(c->state);
    free(c->message);
    for (size_t i = 0; i < c->n_podset_updates; i++)
        ts_podset_update_release(&c->podset_updates[i]);
    free(c->podset_updates);
}

static void psu_copy(struct ts_podset_update *d, const struct ts_podset_update *s)
{
    memset(d, 0, sizeof(*d));
    d->name = dup_or_null(s->name);
    ts_strmap_copy(&d->labels, &s->labels);
    ts_strmap_copy(&d->annotations, &s->annotations);
    ts_strmap_copy(&d->node_selector, &s->node_selector);
    d->n_tolerations = s->n_tolerations;
    d->tolerations =
        s->n_tolerations ? ts_xcalloc(s->n_tolerations, sizeof(*d->tolerations)) : NULL;
    for (size_t i = 0; i < s->n_tolerations; i++)
        ts_toleration_copy(&d->tolerations[i], &s->tolerations[i]);
}

static void check_copy(struct ts_admission_check_state *d, const struct ts_admission_check_state *s)
{
    *d = *s;
    d->name = dup_or_null(s->name);
    d->state = dup_or_null(s->state);
    d->message = dup_or_null(s->message);
    d->podset_updates =
        s->n_podset_updates ? ts_xcalloc(s->n_podset_updates, sizeof(*d->podset_updates)) : NULL;
    for (size_t i = 0; i < s->n_podset_updates; i++)
        psu_copy(&d->podset_updates[i], &s->podset_updates[i]);
}

/* --- whole object ------------------------------------------------------------ */

void ts_workload_init(struct ts_workload *w)
{
    memset(w, 0, sizeof(*w));
}

static void status_release(struct ts_workload_status *s)
{
    ts_conditions_release(&s->conditions);
    ts_admission_free(s->admission);
    for (size_t i = 0; i < s->n_reclaimable_pods; i++)
        free(s->reclaimable_pods[i].name);
    free(s->reclaimable_pods);
    for (size_t i = 0; i < s->n_admission_checks; i++)
        ts_admission_check_state_release(&s->admission_checks[i]);
    free(s->admission_checks);
    for (size_t i = 0; i < s->n_resource_requests; i++) {
        free(s->resource_requests[i].name);
        ts_resource_list_release(&s->resource_requests[i].resources);
    }
    free(s->resource_requests);
    for (size_t i = 0; i < s->n_evictions; i++) {
        free(s->evictions[i].reason);
        free(s->evictions[i].underlying_cause);
    }
    free(s->evictions);
    ts_strlist_release(&s->nominated_cluster_names);
    free(s->cluster_name);
    ts_strlist_release(&s->unhealthy_nodes);
    cJSON_Delete(s->preemption_gates);
}

void ts_workload_release(struct ts_workload *w)
{
    ts_object_meta_release(&w->meta);
    for (size_t i = 0; i < w->spec.n_podsets; i++)
        podset_release(&w->spec.podsets[i]);
    free(w->spec.podsets);
    free(w->spec.queue_name);
    free(w->spec.priority_class_ref.group);
    free(w->spec.priority_class_ref.kind);
    free(w->spec.priority_class_ref.name);
    cJSON_Delete(w->spec.preemption_gates);
    status_release(&w->status);
    ts_workload_init(w);
}

static void spec_copy(struct ts_workload_spec *d, const struct ts_workload_spec *s)
{
    *d = *s;
    d->podsets = s->n_podsets ? ts_xcalloc(s->n_podsets, sizeof(*d->podsets)) : NULL;
    for (size_t i = 0; i < s->n_podsets; i++)
        podset_copy(&d->podsets[i], &s->podsets[i]);
    d->queue_name = dup_or_null(s->queue_name);
    d->priority_class_ref.group = dup_or_null(s->priority_class_ref.group);
    d->priority_class_ref.kind = dup_or_null(s->priority_class_ref.kind);
    d->priority_class_ref.name = dup_or_null(s->priority_class_ref.name);
    d->preemption_gates = json_dup(s->preemption_gates);
}

static void status_copy_arrays(struct ts_workload_status *d, const struct ts_workload_status *s)
{
    size_t n;

    n = s->n_reclaimable_pods;
    d->reclaimable_pods = n ? ts_xcalloc(n, sizeof(*d->reclaimable_pods)) : NULL;
    for (size_t i = 0; i < n; i++) {
        d->reclaimable_pods[i].name = dup_or_null(s->reclaimable_pods[i].name);
        d->reclaimable_pods[i].count = s->reclaimable_pods[i].count;
    }
    n = s->n_admission_checks;
    d->admission_checks = n ? ts_xcalloc(n, sizeof(*d->admission_checks)) : NULL;
    for (size_t i = 0; i < n; i++)
        check_copy(&d->admission_checks[i], &s->admission_checks[i]);
    n = s->n_resource_requests;
    d->resource_requests = n ? ts_xcalloc(n, sizeof(*d->resource_requests)) : NULL;
    for (size_t i = 0; i < n; i++) {
        d->resource_requests[i].name = dup_or_null(s->resource_requests[i].name);
        ts_resource_list_copy(&d->resource_requests[i].resources,
                              &s->resource_requests[i].resources);
    }
    n = s->n_evictions;
    d->evictions = n ? ts_xcalloc(n, sizeof(*d->evictions)) : NULL;
    for (size_t i = 0; i < n; i++) {
        d->evictions[i].reason = dup_or_null(s->evictions[i].reason);
        d->evictions[i].underlying_cause = dup_or_null(s->evictions[i].underlying_cause);
        d->evictions[i].count = s->evictions[i].count;
    }
}

static void status_copy(struct ts_workload_status *d, const struct ts_workload_status *s)
{
    *d = *s;
    ts_conditions_init(&d->conditions);
    ts_conditions_copy(&d->conditions, &s->conditions);
    d->admission = ts_admission_dup(s->admission);
    status_copy_arrays(d, s);
    ts_strlist_init(&d->nominated_cluster_names);
    ts_strlist_copy(&d->nominated_cluster_names, &s->nominated_cluster_names);
    d->cluster_name = dup_or_null(s->cluster_name);
    ts_strlist_init(&d->unhealthy_nodes);
    ts_strlist_copy(&d->unhealthy_nodes, &s->unhealthy_nodes);
    d->preemption_gates = json_dup(s->preemption_gates);
}

void ts_workload_copy(struct ts_workload *dst, const struct ts_workload *src)
{
    ts_workload_release(dst);
    ts_object_meta_copy(&dst->meta, &src->meta);
    spec_copy(&dst->spec, &src->spec);
    status_copy(&dst->status, &src->status);
}

int ts_workload_equal(const struct ts_workload *a, const struct ts_workload *b)
{
    cJSON *ea = ts_workload_encode(a);
    cJSON *eb = ts_workload_encode(b);
    int eq = ts_json_equal(ea, eb);

    cJSON_Delete(ea);
    cJSON_Delete(eb);
    return eq;
}

/* --- predicates -------------------------------------------------------------- */

int ts_workload_has_quota_reservation(const struct ts_workload *w)
{
    return ts_conditions_is_true(&w->status.conditions, TS_WL_COND_QUOTA_RESERVED);
}

int ts_workload_is_admitted(const struct ts_workload *w)
{
    return ts_conditions_is_true(&w->status.conditions, TS_WL_COND_ADMITTED);
}

int ts_workload_is_finished(const struct ts_workload *w)
{
    return ts_conditions_is_true(&w->status.conditions, TS_WL_COND_FINISHED);
}

int ts_workload_is_evicted(const struct ts_workload *w)
{
    return ts_conditions_is_true(&w->status.conditions, TS_WL_COND_EVICTED);
}

int ts_workload_is_active(const struct ts_workload *w)
{
    return !w->spec.active.set || w->spec.active.v;
}

int32_t ts_workload_priority(const struct ts_workload *w)
{
    return w->spec.priority.set ? w->spec.priority.v : 0;
}

int32_t ts_workload_priority_boost(const struct ts_workload *w)
{
    const char *s = ts_strmap_get(&w->meta.annotations, TS_WL_ANNOTATION_PRIORITY_BOOST);
    int64_t boost;

    if (!s || ts_parse_i64_c(s, &boost) != 0 || boost > INT32_MAX || boost < INT32_MIN)
        return 0;
    return (int32_t)boost;
}

int32_t ts_priority_add(int32_t priority, int32_t boost)
{
    int64_t p = (int64_t)priority + boost;

    return p > INT32_MAX ? INT32_MAX : p < INT32_MIN ? INT32_MIN : (int32_t)p;
}

int32_t ts_workload_effective_priority(const struct ts_workload *w, int boost_enabled)
{
    int32_t p = ts_workload_priority(w);

    return boost_enabled ? ts_priority_add(p, ts_workload_priority_boost(w)) : p;
}
