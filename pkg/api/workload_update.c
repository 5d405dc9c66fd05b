/* Workload update rules: Kueue's ValidateWorkloadUpdate plus the CRD's
 * transition (CEL) rules. */
#include "api/workload.h"
#include "api/workload_int.h"
#include "json/json.h"

#include <stdio.h>
#include <string.h>

#define IMMUTABLE_MSG "field is immutable"

static int streq0(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "") == 0;
}

static int podset_equal(const struct ts_podset *a, const struct ts_podset *b)
{
    return streq0(a->name, b->name) && a->count == b->count &&
           a->min_count.set == b->min_count.set &&
           (!a->min_count.set || a->min_count.v == b->min_count.v) &&
           ts_json_equal(a->topology_request, b->topology_request) &&
           ts_pod_template_equal(&a->template, &b->template);
}

/* Kueue's validateImmutablePodSets (pkg/webhooks/workload_webhook.go): a
 * changed number of pod sets is one error on the list, else one per
 * changed pod set, on the path Kueue builds with Child(strconv.Itoa(i)):
 * "spec.podSets.0", not "spec.podSets[0]".  Kueue prints the pod set's Go
 * JSON as the value; it is left out here. */
static void check_podsets(const struct ts_workload *old, const struct ts_workload *nw,
                          struct ts_field_errors *errs)
{
    char path[64];

    if (old->spec.n_podsets != nw->spec.n_podsets) {
        ts_field_errors_add(errs, TS_FIELD_INVALID, "spec.podSets", NULL, 0, IMMUTABLE_MSG);
        return;
    }
    for (size_t i = 0; i < nw->spec.n_podsets; i++) {
        if (podset_equal(&old->spec.podsets[i], &nw->spec.podsets[i]))
            continue;
        snprintf(path, sizeof(path), "spec.podSets.%zu", i);
        ts_field_errors_add(errs, TS_FIELD_INVALID, path, NULL, 0, IMMUTABLE_MSG);
    }
}

/* Rules that hold while the old object has QuotaReserved=True. */
static void check_reserved_spec(const struct ts_workload *old, const struct ts_workload *nw,
                                struct ts_field_errors *errs)
{
    const struct ts_priority_class_ref *o = &old->spec.priority_class_ref;
    const struct ts_priority_class_ref *n = &nw->spec.priority_class_ref;

    check_podsets(old, nw, errs);
    if (o->set != n->set || !streq0(o->group, n->group) || !streq0(o->kind, n->kind))
        ts_field_errors_add(errs, TS_FIELD_INVALID, "spec.priorityClassRef", NULL, 0,
                            IMMUTABLE_MSG);
    else if (o->set && !streq0(o->name, n->name) && !streq0(o->kind, TS_WL_PRIO_KIND_WPC))
        ts_field_errors_add(errs, TS_FIELD_INVALID, "spec.priorityClassRef.name",
                            n->name ? n->name : "", 1, IMMUTABLE_MSG);
    if (ts_workload_has_quota_reservation(nw) && old->spec.queue_name && nw->spec.queue_name &&
        strcmp(old->spec.queue_name, nw->spec.queue_name))
        ts_field_errors_add(errs, TS_FIELD_INVALID, "spec.queueName", nw->spec.queue_name, 1,
                            IMMUTABLE_MSG);
}

static void check_max_exec(const struct ts_workload *old, const struct ts_workload *nw,
                           struct ts_field_errors *errs)
{
    const struct ts_opt_i32 *o = &old->spec.maximum_execution_time_seconds;
    const struct ts_opt_i32 *n = &nw->spec.maximum_execution_time_seconds;

    if (!ts_workload_is_admitted(old) || !ts_workload_is_admitted(nw))
        return;
    if ((o->set ? o->v : 0) != (n->set ? n->v : 0))
        ts__workload_errf_int(errs, TS_FIELD_INVALID, "spec.maximumExecutionTimeSeconds",
                              n->set ? n->v : 0,
                              "maximumExecutionTimeSeconds is immutable while admitted");
}

static const struct ts_reclaimable_pod *find_reclaimable(const struct ts_workload *w,
                                                         const char *name)
{
    for (size_t i = 0; i < w->status.n_reclaimable_pods; i++) {
        if (streq0(w->status.reclaimable_pods[i].name, name))
            return &w->status.reclaimable_pods[i];
    }
    return NULL;
}

static void check_reclaimable_update(const struct ts_workload *old, const struct ts_workload *nw,
                                     struct ts_field_errors *errs)
{
    struct ts_path p;
    char detail[64];

    ts_path_init(&p, "status.reclaimablePods");
    for (size_t i = 0; i < old->status.n_reclaimable_pods; i++) {
        const struct ts_reclaimable_pod *o = &old->status.reclaimable_pods[i];
        const struct ts_reclaimable_pod *n = find_reclaimable(nw, o->name);
        size_t mark = ts_path_push_mapkey(&p, o->name ? o->name : "");

        if (!n) {
            ts_field_errors_add(errs, TS_FIELD_REQUIRED, ts_path_str(&p), NULL, 0,
                                "cannot be removed");
        } else if (n->count < o->count) {
            ts_path_push(&p, "count");
            /* Kueue's text, "then" included (validateReclaimablePodsUpdate) */
            snprintf(detail, sizeof(detail), "cannot be less then %d", (int)o->count);
            ts__workload_errf_int(errs, TS_FIELD_INVALID, ts_path_str(&p), n->count, detail);
        }
        ts_path_pop(&p, mark);
    }
}

/* Assignments equal ignoring the TAS fields, which may be filled in later. */
static int admission_equal(const struct ts_admission *a, const struct ts_admission *b)
{
    if (!streq0(a->cluster_queue, b->cluster_queue) ||
        a->n_podset_assignments != b->n_podset_assignments)
        return 0;
    for (size_t i = 0; i < a->n_podset_assignments; i++) {
        const struct ts_podset_assignment *x = &a->podset_assignments[i];
        const struct ts_podset_assignment *y = &b->podset_assignments[i];

        if (!streq0(x->name, y->name) || !ts_strmap_equal(&x->flavors, &y->flavors) ||
            !ts_resource_list_equal(&x->resource_usage, &y->resource_usage) ||
            x->count.set != y->count.set || (x->count.set && x->count.v != y->count.v))
            return 0;
    }
    return 1;
}

/* "status.admission: Invalid value: {...}: field is immutable", the value
 * the new admission's JSON, as Kueue's ValidateImmutableField prints it. */
static void admission_immutable(const struct ts_admission *a, struct ts_field_errors *errs)
{
    struct ts_buf v = TS_BUF_INIT;

    ts__workload_admission_json(a, &v);
    ts_field_errors_add(errs, TS_FIELD_INVALID, "status.admission", v.ptr ? v.ptr : "null", 0,
                        IMMUTABLE_MSG);
    ts_buf_release(&v);
}

static int updates_equal(const struct ts_admission_check_state *a,
                         const struct ts_admission_check_state *b)
{
    if (a->n_podset_updates != b->n_podset_updates)
        return 0;
    for (size_t i = 0; i < a->n_podset_updates; i++) {
        const struct ts_podset_update *x = &a->podset_updates[i];
        const struct ts_podset_update *y = &b->podset_updates[i];

        if (!streq0(x->name, y->name) || !ts_strmap_equal(&x->labels, &y->labels) ||
            !ts_strmap_equal(&x->annotations, &y->annotations) ||
            !ts_strmap_equal(&x->node_selector, &y->node_selector) ||
            x->n_tolerations != y->n_tolerations)
            return 0;
        for (size_t j = 0; j < x->n_tolerations; j++) {
            if (!ts_toleration_equal(&x->tolerations[j], &y->tolerations[j]))
                return 0;
        }
    }
    return 1;
}

static void check_ready_updates(const struct ts_workload *old, const struct ts_workload *nw,
                                struct ts_field_errors *errs)
{
    char path[96];

    for (size_t i = 0; i < old->status.n_admission_checks; i++) {
        const struct ts_admission_check_state *o = &old->status.admission_checks[i];

        for (size_t j = 0; j < nw->status.n_admission_checks; j++) {
            const struct ts_admission_check_state *n = &nw->status.admission_checks[j];

            if (!streq0(o->name, n->name))
                continue;
            if (streq0(o->state, TS_WL_CHECK_READY) && streq0(n->state, TS_WL_CHECK_READY) &&
                !updates_equal(o, n)) {
                snprintf(path, sizeof(path), "status.admissionChecks[%zu].podSetUpdates", i);
                ts_field_errors_add(errs, TS_FIELD_INVALID, path, NULL, 0, IMMUTABLE_MSG);
            }
            break;
        }
    }
}

static void check_cluster_name(const struct ts_workload *old, const struct ts_workload *nw,
                               struct ts_field_errors *errs)
{
    const char *o = old->status.cluster_name;
    const char *n = nw->status.cluster_name;

    if (o && n && strcmp(o, n))
        ts_field_errors_add(errs, TS_FIELD_INVALID, "status.clusterName", n, 1,
                            "clusterName is immutable once set");
    if (!o && n && ts_strlist_index(&old->status.nominated_cluster_names, n) < 0)
        ts_field_errors_add(errs, TS_FIELD_INVALID, "status.clusterName", n, 1,
                            "when setting clusterName it must be one of the "
                            "nominatedClusterNames");
}

void ts_workload_validate_update(const struct ts_workload *old, const struct ts_workload *nw,
                                 struct ts_field_errors *errs)
{
    int old_reserved = ts_workload_has_quota_reservation(old);

    ts_workload_validate(nw, errs);
    if (old_reserved)
        check_reserved_spec(old, nw, errs);
    check_max_exec(old, nw, errs);
    if (old_reserved && ts_workload_has_quota_reservation(nw))
        check_reclaimable_update(old, nw, errs);
    if (old->status.admission && nw->status.admission &&
        !admission_equal(old->status.admission, nw->status.admission))
        admission_immutable(nw->status.admission, errs);
    check_ready_updates(old, nw, errs);
    check_cluster_name(old, nw, errs);
}
