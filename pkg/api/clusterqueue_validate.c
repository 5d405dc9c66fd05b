/* ClusterQueue validation: CRD schema + CEL (config/components/crd), then
 * Kueue's validating webhook (pkg/webhooks/clusterqueue_webhook.go). */
#include "api/clusterqueue.h"

#include "util/alloc.h"
#include "util/buf.h"

#include <stdlib.h>
#include <string.h>

#define AC_NAME_MAX 316

static int has_cohort(const struct ts_cluster_queue_spec *s)
{
    return s->cohort_name && s->cohort_name[0];
}

/* --- CRD schema and CEL ---------------------------------------------------- */

static void checks_schema(const struct ts_admission_checks_strategy *cs,
                          struct ts_field_errors *errs)
{
    struct ts_path p;

    ts_path_init(&p, "spec.admissionChecksStrategy.admissionChecks");
    for (size_t i = 0; i < cs->n; i++) {
        const struct ts_admission_check_rule *r = &cs->items[i];
        size_t m = ts_path_push_index(&p, i);
        size_t m2 = ts_path_push(&p, "name");

        if (!r->name)
            ts_field_errors_add(errs, TS_FIELD_REQUIRED, ts_path_str(&p), NULL, 0, NULL);
        else if (strlen(r->name) > AC_NAME_MAX)
            ts_field_errors_add(errs, TS_FIELD_TOO_LONG, ts_path_str(&p), NULL, 0,
                                "may not be more than %d bytes", AC_NAME_MAX);
        ts_path_pop(&p, m2);
        ts_path_push(&p, "onFlavors");
        for (size_t j = 0; j < r->on_flavors.n; j++) {
            size_t m3 = ts_path_push_index(&p, j);

            ts__queue_check_ref(r->on_flavors.items[j], ts_path_str(&p), errs);
            ts_path_pop(&p, m3);
        }
        ts_path_pop(&p, m);
    }
}

static void cap_schema(const struct ts_concurrent_admission_policy *c, struct ts_field_errors *errs)
{
    if (c->has_migration && c->mode == TS_MIGRATION_UNSET)
        ts_field_errors_add(errs, TS_FIELD_REQUIRED,
                            "spec.concurrentAdmissionPolicy.migration.mode", NULL, 0, NULL);
    if (c->last_acceptable_flavor_name)
        ts__queue_check_ref(
            c->last_acceptable_flavor_name,
            "spec.concurrentAdmissionPolicy.migration.constraints.lastAcceptableFlavorName", errs);
}

static void cq_schema(const struct ts_cluster_queue *cq, struct ts_field_errors *errs)
{
    const struct ts_cluster_queue_spec *s = &cq->spec;

    ts__queue_check_name(&cq->meta, 0, errs);
    if (s->cohort_name)
        ts__queue_check_ref(s->cohort_name, "spec.cohortName", errs);
    ts_resource_groups_validate_schema(&s->resource_groups, "spec.resourceGroups", errs);
    checks_schema(&s->admission_checks_strategy, errs);
    cap_schema(&s->concurrent_admission_policy, errs);
    if (!has_cohort(s) && ts_resource_groups_has_borrowing_limit(&s->resource_groups))
        ts__queue_cel(errs, "spec", "object", "borrowingLimit must be nil when cohort is empty");
    if (s->preemption.reclaim_within_cohort == TS_RECLAIM_NEVER &&
        s->preemption.borrow_within_cohort != TS_BORROW_NEVER)
        ts__queue_cel(errs, "spec.preemption", "object",
                      "reclaimWithinCohort=Never and borrowWithinCohort.Policy!=Never");
    ts_flavor_usages_validate_schema(&cq->status.flavors_reservation, "status.flavorsReservation",
                                     errs);
    ts_flavor_usages_validate_schema(&cq->status.flavors_usage, "status.flavorsUsage", errs);
}

/* --- webhook ----------------------------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* "supported values: "a", "b"" over the CQ's flavor names, sorted. */
static void flavor_list(const struct ts_resource_groups *g, struct ts_buf *out)
{
    const char **names = NULL;
    size_t n = 0, cap = 0;

    for (size_t i = 0; i < g->n; i++) {
        for (size_t j = 0; j < g->items[i].n_flavors; j++) {
            TS_GROW(names, cap, n + 1);
            names[n++] = g->items[i].flavors[j].name ? g->items[i].flavors[j].name : "";
        }
    }
    if (n)
        qsort(names, n, sizeof(*names), cmp_str);
    for (size_t i = 0; i < n; i++)
        ts_buf_addf(out, "%s\"%s\"", i ? ", " : "supported values: ", names[i]);
    free(names);
}

/* The CRD's rule on flavorFungibility. */
static void preference_check(const struct ts_flavor_fungibility *f, struct ts_field_errors *errs)
{
    if (f->preference == TS_PREFERENCE_UNSET)
        return;
    if (f->when_can_borrow != TS_FUNGIBILITY_TRY_NEXT_FLAVOR ||
        f->when_can_preempt != TS_FUNGIBILITY_TRY_NEXT_FLAVOR)
        ts__queue_cel(errs, "spec.flavorFungibility", "object",
                      "preference can only be set when both whenCanBorrow and whenCanPreempt "
                      "are TryNextFlavor");
}

static int str_eq0(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "") == 0;
}

static int cap_equal(const struct ts_concurrent_admission_policy *a,
                     const struct ts_concurrent_admission_policy *b)
{
    return a->set == b->set && a->has_migration == b->has_migration && a->mode == b->mode &&
           a->has_constraints == b->has_constraints &&
           str_eq0(a->last_acceptable_flavor_name, b->last_acceptable_flavor_name);
}

static void cap_check(const struct ts_cluster_queue *cq, const struct ts_cluster_queue *old_cq,
                      struct ts_field_errors *errs)
{
    const struct ts_concurrent_admission_policy *c = &cq->spec.concurrent_admission_policy;
    struct ts_buf supported = TS_BUF_INIT;

    if (old_cq && !cap_equal(c, &old_cq->spec.concurrent_admission_policy))
        ts__queue_cel(errs, "spec.concurrentAdmissionPolicy", "object", "field is immutable");
    if (!c->last_acceptable_flavor_name ||
        ts_resource_groups_find_flavor(&cq->spec.resource_groups, c->last_acceptable_flavor_name,
                                       NULL))
        return;
    flavor_list(&cq->spec.resource_groups, &supported);
    ts_field_errors_add(
        errs, TS_FIELD_NOT_SUPPORTED,
        "spec.concurrentAdmissionPolicy.migration.constraints.lastAcceptableFlavorName",
        c->last_acceptable_flavor_name, 1, "%s", supported.ptr);
    ts_buf_release(&supported);
}

static void cq_webhook(const struct ts_cluster_queue *cq, const struct ts_cluster_queue *old_cq,
                       struct ts_field_errors *errs)
{
    const struct ts_cluster_queue_spec *s = &cq->spec;
    struct ts_quota_rules rules = {has_cohort(s), TS_RG_NO_COHORT_MSG, 1, 1};

    ts_resource_groups_validate(&s->resource_groups, &rules, "spec.resourceGroups", errs);
    if (s->has_namespace_selector)
        ts_label_selector_validate(&s->namespace_selector, "spec.namespaceSelector", errs);
    preference_check(&s->flavor_fungibility, errs);
    ts_fair_sharing_validate(&s->fair_sharing, "spec.fairSharing", errs);
    cap_check(cq, old_cq, errs);
}

/* --- entry points ------------------------------------------------------------ */

static void validate(const struct ts_cluster_queue *old_cq, const struct ts_cluster_queue *cq,
                     struct ts_field_errors *errs)
{
    struct ts_field_errors schema = TS_FIELD_ERRORS_INIT;

    cq_schema(cq, &schema);
    if (schema.n)
        ts_field_errors_extend(errs, &schema);
    else
        cq_webhook(cq, old_cq, errs);
    ts_field_errors_release(&schema);
}

void ts_cluster_queue_validate(const struct ts_cluster_queue *cq, struct ts_field_errors *errs)
{
    validate(NULL, cq, errs);
}

void ts_cluster_queue_validate_update(const struct ts_cluster_queue *old_cq,
                                      const struct ts_cluster_queue *new_cq,
                                      struct ts_field_errors *errs)
{
    validate(old_cq, new_cq, errs);
}
