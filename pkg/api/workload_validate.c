/* Workload validation on create: Kueue's validating webhook
 * (pkg/webhooks/workload_webhook.go) plus the CRD's OpenAPI and CEL rules
 * that the apiserver would apply before it.
 * Update rules are in workload_update.c. */
#include "api/workload.h"
#include "api/workload_int.h"

#include "api/names.h"
#include "api/resourcegroup.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/parse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_PATTERN     "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
#define LABEL_PATTERN    "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
#define RESERVED_MSG     "the key is reserved for internal kueue use"
#define NON_NEGATIVE_MSG "must be greater than or equal to 0"

_Static_assert(TS_WL_MAX_PODSETS == 8, "the pod set limit's message below says 8");

void ts__workload_errf_int(struct ts_field_errors *errs, enum ts_field_error_type type,
                           const char *path, int64_t value, const char *detail)
{
    char v[32];

    snprintf(v, sizeof(v), "%lld", (long long)value);
    ts_field_errors_add(errs, type, path, v, 0, "%s", detail);
}

/* "<path> in body should be greater than or equal to <min>" (OpenAPI minimum). */
static void check_min(struct ts_path *p, const char *key, int64_t v, int64_t min,
                      struct ts_field_errors *errs)
{
    size_t mark = ts_path_push(p, key);
    char detail[TS_PATH_MAX + 64];

    if (v < min) {
        snprintf(detail, sizeof(detail), "%s in body should be greater than or equal to %lld",
                 ts_path_str(p), (long long)min);
        ts__workload_errf_int(errs, TS_FIELD_INVALID, ts_path_str(p), v, detail);
    }
    ts_path_pop(p, mark);
}

/* --- metadata maps (metav1 ValidateLabels / apimachinery ValidateAnnotations) --- */

void ts__workload_validate_labels(const struct ts_strmap *m, const char *path,
                                  struct ts_field_errors *errs)
{
    for (size_t i = 0; i < m->n; i++) {
        ts_names_qualified(m->items[i].key, path, errs);
        ts_names_label_value(m->items[i].value, path, errs);
    }
}

void ts__workload_validate_annotations(const struct ts_strmap *m, const char *path,
                                       struct ts_field_errors *errs)
{
    size_t total = 0;

    for (size_t i = 0; i < m->n; i++) {
        char *lower = ts_xstrdup(m->items[i].key);

        for (char *c = lower; *c; c++)
            *c = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
        if (!ts_names_is_qualified(lower))
            ts_names_qualified(m->items[i].key, path, errs);
        free(lower);
        total += strlen(m->items[i].key) + strlen(m->items[i].value);
    }
    if (total > 256 * 1024)
        ts_field_errors_add(errs, TS_FIELD_TOO_LONG, path, NULL, 0,
                            "may not be more than 262144 bytes");
}

/* --- pod sets ------------------------------------------------------------------ */

static void check_resource_list(const struct ts_resource_list *l, struct ts_path *p,
                                const char *key, struct ts_field_errors *errs)
{
    size_t mark = ts_path_push(p, key);

    for (size_t i = 0; i < l->n; i++) {
        size_t km = ts_path_push_mapkey(p, l->items[i].name);
        char q[TS_QUANTITY_STR_MAX];

        if (strcmp(l->items[i].name, "pods") == 0)
            ts_field_errors_add(errs, TS_FIELD_INVALID, ts_path_str(p), "pods", 1, RESERVED_MSG);
        if (ts_quantity_sign(&l->items[i].q) < 0)
            ts_field_errors_add(errs, TS_FIELD_INVALID, ts_path_str(p),
                                ts_quantity_format(&l->items[i].q, q, sizeof(q)), 1,
                                NON_NEGATIVE_MSG);
        ts_path_pop(p, km);
    }
    ts_path_pop(p, mark);
}

static void check_resources(const struct ts_resource_list *req, const struct ts_resource_list *lim,
                            struct ts_path *p, struct ts_field_errors *errs)
{
    size_t mark = ts_path_push(p, "resources");

    check_resource_list(req, p, "requests", errs);
    check_resource_list(lim, p, "limits", errs);
    ts_path_pop(p, mark);
}

static void check_containers(const struct ts_container *c, size_t n, struct ts_path *p,
                             const char *key, struct ts_field_errors *errs)
{
    size_t mark = ts_path_push(p, key);

    for (size_t i = 0; i < n; i++) {
        size_t im = ts_path_push_index(p, i);

        check_resources(&c[i].requests, &c[i].limits, p, errs);
        ts_path_pop(p, im);
    }
    ts_path_pop(p, mark);
}

static void check_template(const struct ts_pod_template *t, struct ts_path *p,
                           struct ts_field_errors *errs)
{
    size_t mark = ts_path_push(p, "template");
    size_t m2 = ts_path_push(p, "metadata");

    ts_path_push(p, "labels");
    ts__workload_validate_labels(&t->labels, ts_path_str(p), errs);
    ts_path_pop(p, m2);
    ts_path_push(p, "metadata");
    ts_path_push(p, "annotations");
    ts__workload_validate_annotations(&t->annotations, ts_path_str(p), errs);
    ts_path_pop(p, m2);
    ts_path_push(p, "spec");
    check_containers(t->init_containers, t->n_init_containers, p, "initContainers", errs);
    check_containers(t->containers, t->n_containers, p, "containers", errs);
    check_resources(&t->pod_requests, &t->pod_limits, p, errs);
    ts_path_pop(p, mark);
}

/* The CRD's maxLength and pattern of a name (a DNS-1123 subdomain, or a
 * label when `label`), with kube-apiserver's schema messages; the length
 * is checked first, and a too long value is not matched. */
static void check_pattern(const char *v, size_t max, int label, const char *path,
                          struct ts_field_errors *errs)
{
    if (strlen(v) > max)
        ts_field_errors_add(errs, TS_FIELD_TOO_LONG, path, NULL, 0,
                            "may not be more than %zu bytes", max);
    else if (label ? !ts_names_is_dns1123_label(v) : !ts_names_is_dns1123_subdomain(v))
        ts_field_errors_add(errs, TS_FIELD_INVALID, path, v, 1, "%s in body should match '%s'",
                            path, label ? LABEL_PATTERN : NAME_PATTERN);
}

static void check_podset(const struct ts_workload *w, size_t i, struct ts_path *p,
                         struct ts_field_errors *errs)
{
    const struct ts_podset *ps = &w->spec.podsets[i];
    size_t mark = ts_path_push_index(p, i);
    size_t m2 = ts_path_push(p, "name");

    check_pattern(ps->name ? ps->name : "", 63, 1, ts_path_str(p), errs);
    ts_path_pop(p, m2);
    for (size_t j = 0; j < i; j++) {
        char dup[128];

        if (ps->name && w->spec.podsets[j].name && !strcmp(ps->name, w->spec.podsets[j].name)) {
            snprintf(dup, sizeof(dup), "{\"name\":\"%s\"}", ps->name);
            ts_field_errors_add(errs, TS_FIELD_DUPLICATE, ts_path_str(p), dup, 0, NULL);
            break;
        }
    }
    check_template(&ps->template, p, errs);
    check_min(p, "count", ps->count, 0, errs);
    if (ps->min_count.set) {
        check_min(p, "minCount", ps->min_count.v, 1, errs);
        if (ps->min_count.v > ps->count)
            ts_field_errors_add(errs, TS_FIELD_INVALID, ts_path_str(p), NULL, 0,
                                "minCount should be positive and less or equal to count");
    }
    ts_path_pop(p, mark);
}

static void check_podsets(const struct ts_workload *w, struct ts_field_errors *errs)
{
    struct ts_path p;
    int with_min = 0;

    ts_path_init(&p, "spec.podSets");
    if (w->spec.n_podsets == 0)
        ts_field_errors_add(errs, TS_FIELD_REQUIRED, ts_path_str(&p), NULL, 0, NULL);
    if (w->spec.n_podsets > TS_WL_MAX_PODSETS)
        ts__workload_errf_int(errs, TS_FIELD_TOO_MANY, ts_path_str(&p), (int64_t)w->spec.n_podsets,
                              "must have at most 8 items");
    for (size_t i = 0; i < w->spec.n_podsets; i++) {
        check_podset(w, i, &p, errs);
        with_min += w->spec.podsets[i].min_count.set;
    }
    if (with_min > 1)
        ts__workload_errf_int(errs, TS_FIELD_INVALID, ts_path_str(&p), with_min,
                              "at most one podSet can use minCount");
}

/* --- spec scalars ------------------------------------------------------------------ */

static void check_queue_name(const char *q, struct ts_field_errors *errs)
{
    if (!q || !q[0])
        return;
    if (strlen(q) > 253)
        ts_field_errors_add(errs, TS_FIELD_TOO_LONG, "spec.queueName", NULL, 0,
                            "may not be more than 253 bytes");
    else if (!ts_names_is_dns1123_subdomain(q))
        ts_field_errors_add(errs, TS_FIELD_INVALID, "spec.queueName", q, 1,
                            "spec.queueName in body should match '%s'", NAME_PATTERN);
}

static void check_priority(const struct ts_workload_spec *s, struct ts_field_errors *errs)
{
    const struct ts_priority_class_ref *r = &s->priority_class_ref;

    if (!r->set)
        return;
    if (!s->priority.set)
        ts_field_errors_add(errs, TS_FIELD_INVALID, "spec", NULL, 0,
                            "priority should not be nil when priorityClassRef is set");
    if (!r->group ||
        (strcmp(r->group, TS_WL_PRIO_GROUP_KUEUE) && strcmp(r->group, TS_WL_PRIO_GROUP_SCHEDULING)))
        ts_field_errors_add(errs, TS_FIELD_NOT_SUPPORTED, "spec.priorityClassRef.group",
                            r->group ? r->group : "", 1, "supported values: \"%s\", \"%s\"",
                            TS_WL_PRIO_GROUP_KUEUE, TS_WL_PRIO_GROUP_SCHEDULING);
    if (!r->kind || (strcmp(r->kind, TS_WL_PRIO_KIND_WPC) && strcmp(r->kind, TS_WL_PRIO_KIND_PC)))
        ts_field_errors_add(errs, TS_FIELD_NOT_SUPPORTED, "spec.priorityClassRef.kind",
                            r->kind ? r->kind : "", 1, "supported values: \"%s\", \"%s\"",
                            TS_WL_PRIO_KIND_PC, TS_WL_PRIO_KIND_WPC);
    if (!r->name || !r->name[0])
        ts_field_errors_add(errs, TS_FIELD_REQUIRED, "spec.priorityClassRef.name", NULL, 0, NULL);
    else
        check_pattern(r->name, 253, 0, "spec.priorityClassRef.name", errs);
    /* the CRD's rules pairing group and kind, on supported values only:
     * kube-apiserver runs no rule after a schema error of that kind */
    if (!r->group || !r->kind)
        return;
    if (!strcmp(r->group, TS_WL_PRIO_GROUP_SCHEDULING) && !strcmp(r->kind, TS_WL_PRIO_KIND_WPC))
        ts_field_errors_add(
            errs, TS_FIELD_INVALID, "spec.priorityClassRef", NULL, 0,
            "only the PriorityClass kind is allowed for the scheduling.k8s.io group");
    if (!strcmp(r->group, TS_WL_PRIO_GROUP_KUEUE) && !strcmp(r->kind, TS_WL_PRIO_KIND_PC))
        ts_field_errors_add(
            errs, TS_FIELD_INVALID, "spec.priorityClassRef", NULL, 0,
            "only the WorkloadPriorityClass kind is allowed for the kueue.x-k8s.io group");
}

static void check_spec(const struct ts_workload *w, struct ts_field_errors *errs)
{
    struct ts_path p;

    check_podsets(w, errs);
    check_queue_name(w->spec.queue_name, errs);
    check_priority(&w->spec, errs);
    ts_path_init(&p, "spec");
    if (w->spec.maximum_execution_time_seconds.set)
        check_min(&p, "maximumExecutionTimeSeconds", w->spec.maximum_execution_time_seconds.v, 1,
                  errs);
}

/* --- admission ------------------------------------------------------------------ */

/* Kueue's ResourceValue: cpu in milli-units, everything else in units. */
static int resource_value(const char *name, const struct ts_quantity *q, int64_t *out)
{
    if (strcmp(name, "cpu") == 0)
        return ts_quantity_milli_value(q, out);
    return ts_quantity_value(q, out);
}

static void check_usage(const struct ts_podset_assignment *a, struct ts_path *p,
                        struct ts_field_errors *errs)
{
    size_t mark = ts_path_push(p, "resourceUsage");
    size_t base = p->len;
    int32_t count = a->count.set ? a->count.v : 0;

    for (size_t i = 0; count > 0 && i < a->resource_usage.n; i++) {
        const struct ts_resource *r = &a->resource_usage.items[i];
        char q[TS_QUANTITY_STR_MAX];
        int64_t v;

        if (resource_value(r->name, &r->q, &v) || v % count == 0)
            continue;
        ts_path_push_mapkey(p, r->name);
        ts_field_errors_add(errs, TS_FIELD_INVALID, ts_path_str(p),
                            ts_quantity_format(&r->q, q, sizeof(q)), 1, "is not a multiple of %d",
                            (int)count);
        ts_path_pop(p, base);
    }
    ts_path_pop(p, mark);
}

static void check_admission(const struct ts_workload *w, struct ts_field_errors *errs)
{
    const struct ts_admission *a = w->status.admission;
    struct ts_path p;

    ts_path_init(&p, "status.admission");
    if (!a) {
        ts_field_errors_add(errs, TS_FIELD_REQUIRED, ts_path_str(&p), NULL, 0,
                            "must be set while the QuotaReserved condition is true");
        return;
    }
    if (a->cluster_queue && a->cluster_queue[0])
        ts_names_dns1123_subdomain(a->cluster_queue, "status.admission.clusterQueue", errs);
    ts_path_push(&p, "podSetAssignments");
    if (a->n_podset_assignments != w->spec.n_podsets)
        ts_field_errors_add(errs, TS_FIELD_INVALID, ts_path_str(&p), NULL, 0,
                            "must have the same number of podSets as the spec");
    for (size_t i = 0; i < a->n_podset_assignments; i++) {
        const struct ts_podset_assignment *psa = &a->podset_assignments[i];
        size_t mark = ts_path_push_index(&p, i);

        if (!ts_workload_find_podset(w, psa->name)) {
            size_t nm = ts_path_push(&p, "name");

            ts__workload_not_found(errs, ts_path_str(&p), psa->name ? psa->name : "");
            ts_path_pop(&p, nm);
        }
        check_usage(psa, &p, errs);
        ts_path_pop(&p, mark);
    }
}

void ts__workload_not_found(struct ts_field_errors *errs, const char *path, const char *value)
{
    /* field.NotFound: `<path>: Not found: "x"` */
    ts_field_errors_add(errs, TS_FIELD_NOT_FOUND, path, value, 1, NULL);
}

void ts_workload_validate(const struct ts_workload *w, struct ts_field_errors *errs)
{
    ts__queue_check_name(&w->meta, 0, errs);
    check_spec(w, errs);
    if (ts_workload_has_quota_reservation(w))
        check_admission(w, errs);
    ts__workload_validate_status(w, errs);
}

void ts_workload_validate_priority_boost(const struct ts_workload *w, struct ts_field_errors *errs)
{
    const char *v = ts_strmap_get(&w->meta.annotations, TS_WL_ANNOTATION_PRIORITY_BOOST);
    int64_t boost;

    if (!v)
        return;
    if (!*v)
        ts_field_errors_add(errs, TS_FIELD_INVALID,
                            "metadata.annotations[" TS_WL_ANNOTATION_PRIORITY_BOOST "]", v, 1,
                            "must be a valid signed integer; use \"0\" explicitly, empty string "
                            "is not allowed");
    else if (ts_parse_i64_c(v, &boost) || boost > INT32_MAX || boost < INT32_MIN)
        ts_field_errors_add(errs, TS_FIELD_INVALID,
                            "metadata.annotations[" TS_WL_ANNOTATION_PRIORITY_BOOST "]", v, 1,
                            "must be a valid signed integer");
}
