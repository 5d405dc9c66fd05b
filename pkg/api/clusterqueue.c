#include "api/clusterqueue.h"

#include "api/convert.h"
#include "api/enc.h"
#include "util/alloc.h"

#include <stdlib.h>
#include <string.h>

/* Enum spellings in the CRD's enum order (the order of "supported values"). */
static const char *const queueing_names[] = {"StrictFIFO", "BestEffortFIFO", NULL};
static const char *const fungibility_names[] = {"MayStopSearch", "TryNextFlavor", NULL};
static const char *const preference_names[] = {"BorrowingOverPreemption", "PreemptionOverBorrowing",
                                               NULL};
static const char *const reclaim_names[] = {"Never", "LowerPriority", "Any", NULL};
static const char *const within_names[] = {"Never", "LowerPriority", "LowerOrNewerEqualPriority",
                                           NULL};
static const char *const borrow_names[] = {"Never", "LowerPriority", NULL};
static const char *const mode_names[] = {"UsageBasedAdmissionFairSharing", "NoAdmissionFairSharing",
                                         NULL};
static const char *const migration_names[] = {"TryPreferredFlavors", "RetainFirstAdmission", NULL};

const char *ts_queueing_strategy_name(enum ts_queueing_strategy s)
{
    return s == TS_QUEUEING_STRICT_FIFO ? "StrictFIFO" : "BestEffortFIFO";
}

const char *ts_fungibility_policy_name(enum ts_fungibility_policy p)
{
    return p == TS_FUNGIBILITY_TRY_NEXT_FLAVOR ? "TryNextFlavor" : "MayStopSearch";
}

const char *ts_fungibility_preference_name(enum ts_fungibility_preference p)
{
    return p == TS_PREFERENCE_UNSET ? "" : preference_names[p - 1];
}

const char *ts_reclaim_policy_name(enum ts_reclaim_policy p)
{
    return (unsigned)p <= TS_RECLAIM_ANY ? reclaim_names[p] : "Never";
}

const char *ts_within_cq_policy_name(enum ts_within_cq_policy p)
{
    return (unsigned)p <= TS_WITHIN_CQ_LOWER_OR_NEWER_EQUAL_PRIORITY ? within_names[p] : "Never";
}

/* --- lifecycle --------------------------------------------------------------- */

void ts_cluster_queue_init(struct ts_cluster_queue *cq)
{
    memset(cq, 0, sizeof(*cq));
    ts_object_meta_init(&cq->meta);
    ts_resource_groups_init(&cq->spec.resource_groups);
    ts_label_selector_init(&cq->spec.namespace_selector);
    ts_fair_sharing_init(&cq->spec.fair_sharing);
    ts_conditions_init(&cq->status.conditions);
    ts_flavor_usages_init(&cq->status.flavors_reservation);
    ts_flavor_usages_init(&cq->status.flavors_usage);
    ts_fair_sharing_status_init(&cq->status.fair_sharing);
    cq->spec.queueing_strategy = TS_QUEUEING_BEST_EFFORT_FIFO;
    cq->spec.flavor_fungibility.when_can_borrow = TS_FUNGIBILITY_MAY_STOP_SEARCH;
    cq->spec.flavor_fungibility.when_can_preempt = TS_FUNGIBILITY_TRY_NEXT_FLAVOR;
    cq->spec.stop_policy = TS_STOP_NONE;
}

static void checks_release(struct ts_admission_checks_strategy *cs)
{
    for (size_t i = 0; i < cs->n; i++) {
        free(cs->items[i].name);
        ts_strlist_release(&cs->items[i].on_flavors);
    }
    free(cs->items);
}

void ts_cluster_queue_release(struct ts_cluster_queue *cq)
{
    ts_object_meta_release(&cq->meta);
    ts_resource_groups_release(&cq->spec.resource_groups);
    free(cq->spec.cohort_name);
    ts_label_selector_release(&cq->spec.namespace_selector);
    checks_release(&cq->spec.admission_checks_strategy);
    free(cq->spec.concurrent_admission_policy.last_acceptable_flavor_name);
    ts_conditions_release(&cq->status.conditions);
    ts_flavor_usages_release(&cq->status.flavors_reservation);
    ts_flavor_usages_release(&cq->status.flavors_usage);
    ts_fair_sharing_status_release(&cq->status.fair_sharing);
    ts_cluster_queue_init(cq);
}

int ts_cluster_queue_selects_namespace(const struct ts_cluster_queue *cq,
                                       const struct ts_strmap *ns_labels)
{
    return cq->spec.has_namespace_selector &&
           ts_label_selector_matches(&cq->spec.namespace_selector, ns_labels);
}

/* --- decode ------------------------------------------------------------------ */

/* Decodes an enum member of obj into an enum field through an int. */
#define DEC_ENUM(d, obj, key, table, offset, field)                                                \
    do {                                                                                           \
        int v_ = (int)(field);                                                                     \
        ts__queue_dec_enum((d), (obj), (key), (table), (offset), &v_);                             \
        (field) = v_;                                                                              \
    } while (0)

static void fungibility_decode(struct ts_dec *d, const cJSON *spec, struct ts_flavor_fungibility *f)
{
    const cJSON *o = ts_dec_object(d, spec, "flavorFungibility");
    size_t mark;

    if (!o)
        return;
    mark = ts_path_push(&d->path, "flavorFungibility");
    DEC_ENUM(d, o, "whenCanBorrow", fungibility_names, 0, f->when_can_borrow);
    DEC_ENUM(d, o, "whenCanPreempt", fungibility_names, 0, f->when_can_preempt);
    DEC_ENUM(d, o, "preference", preference_names, 1, f->preference);
    ts_path_pop(&d->path, mark);
}

static void preemption_decode(struct ts_dec *d, const cJSON *spec, struct ts_cq_preemption *p)
{
    const cJSON *o = ts_dec_object(d, spec, "preemption");
    const cJSON *b;
    size_t mark, m2;

    if (!o)
        return;
    mark = ts_path_push(&d->path, "preemption");
    DEC_ENUM(d, o, "reclaimWithinCohort", reclaim_names, 0, p->reclaim_within_cohort);
    DEC_ENUM(d, o, "withinClusterQueue", within_names, 0, p->within_cluster_queue);
    b = ts_dec_object(d, o, "borrowWithinCohort");
    if (b) {
        m2 = ts_path_push(&d->path, "borrowWithinCohort");
        DEC_ENUM(d, b, "policy", borrow_names, 0, p->borrow_within_cohort);
        ts_dec_opt_i32(d, b, "maxPriorityThreshold", &p->max_priority_threshold);
        ts_path_pop(&d->path, m2);
    }
    ts_path_pop(&d->path, mark);
}

static void rule_decode(struct ts_dec *d, const cJSON *e, void *item)
{
    struct ts_admission_check_rule *r = item;

    ts__queue_dec_required_string(d, e, "name", &r->name);
    ts_dec_strlist(d, e, "onFlavors", &r->on_flavors);
}

static void checks_decode(struct ts_dec *d, const cJSON *spec,
                          struct ts_admission_checks_strategy *cs)
{
    const cJSON *o = ts_dec_object(d, spec, "admissionChecksStrategy");
    void *items = NULL;
    size_t mark;

    if (!o)
        return;
    cs->set = 1;
    mark = ts_path_push(&d->path, "admissionChecksStrategy");
    cs->n =
        ts__queue_dec_array(d, o, "admissionChecks", 0, sizeof(*cs->items), rule_decode, &items);
    cs->items = items;
    ts_path_pop(&d->path, mark);
}

static void scope_decode(struct ts_dec *d, const cJSON *spec, struct ts_admission_scope *s)
{
    const cJSON *o = ts_dec_object(d, spec, "admissionScope");
    size_t mark;
    int v = 0;

    if (!o)
        return;
    s->set = 1;
    mark = ts_path_push(&d->path, "admissionScope");
    if (ts__queue_dec_enum(d, o, "admissionMode", mode_names, 0, &v) == 0)
        ts_dec_error(d, TS_FIELD_REQUIRED, "admissionMode", NULL, "%s", "");
    s->mode = (enum ts_admission_mode)v;
    ts_path_pop(&d->path, mark);
}

static void cap_decode(struct ts_dec *d, const cJSON *spec,
                       struct ts_concurrent_admission_policy *c)
{
    const cJSON *o = ts_dec_object(d, spec, "concurrentAdmissionPolicy");
    const cJSON *m, *k;
    size_t mark;

    if (!o)
        return;
    c->set = 1;
    mark = ts_path_push(&d->path, "concurrentAdmissionPolicy");
    m = ts_dec_object(d, o, "migration");
    if (m) {
        ts_path_push(&d->path, "migration");
        c->has_migration = 1;
        DEC_ENUM(d, m, "mode", migration_names, 1, c->mode);
        k = ts_dec_object(d, m, "constraints");
        if (k) {
            c->has_constraints = 1;
            ts_path_push(&d->path, "constraints");
            ts_dec_string(d, k, "lastAcceptableFlavorName", &c->last_acceptable_flavor_name);
        }
    }
    ts_path_pop(&d->path, mark);
}

static void spec_decode(struct ts_dec *d, const cJSON *spec, struct ts_cluster_queue_spec *s)
{
    ts_resource_groups_decode(d, spec, "resourceGroups", &s->resource_groups);
    ts_dec_string(d, spec, "cohortName", &s->cohort_name);
    DEC_ENUM(d, spec, "queueingStrategy", queueing_names, 0, s->queueing_strategy);
    if (ts_label_selector_decode(d, spec, "namespaceSelector", &s->namespace_selector) != 0)
        s->has_namespace_selector =
            cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(spec, "namespaceSelector"));
    fungibility_decode(d, spec, &s->flavor_fungibility);
    preemption_decode(d, spec, &s->preemption);
    checks_decode(d, spec, &s->admission_checks_strategy);
    ts_stop_policy_decode(d, spec, "stopPolicy", &s->stop_policy);
    ts_fair_sharing_decode(d, spec, "fairSharing", &s->fair_sharing);
    scope_decode(d, spec, &s->admission_scope);
    cap_decode(d, spec, &s->concurrent_admission_policy);
}

static void status_decode(struct ts_dec *d, const cJSON *st, struct ts_cluster_queue_status *s)
{
    ts_conditions_decode(d, st, "conditions", &s->conditions);
    ts_flavor_usages_decode(d, st, "flavorsReservation", &s->flavors_reservation);
    ts_flavor_usages_decode(d, st, "flavorsUsage", &s->flavors_usage);
    ts_dec_i32(d, st, "pendingWorkloads", &s->pending_workloads);
    ts_dec_i32(d, st, "reservingWorkloads", &s->reserving_workloads);
    ts_dec_i32(d, st, "admittedWorkloads", &s->admitted_workloads);
    ts_fair_sharing_status_decode(d, st, "fairSharing", &s->fair_sharing);
}

void ts_cluster_queue_decode(struct ts_dec *d, const cJSON *obj, struct ts_cluster_queue *cq)
{
    const cJSON *spec, *st;
    size_t mark;

    ts__queue_dec_check_type(d, obj, TS_KUEUE_V1BETA2, TS_CLUSTER_QUEUE_KIND);
    ts_object_meta_decode(d, obj, &cq->meta);
    spec = ts_dec_object(d, obj, "spec");
    if (spec) {
        mark = ts_path_push(&d->path, "spec");
        spec_decode(d, spec, &cq->spec);
        ts_path_pop(&d->path, mark);
    }
    st = ts_dec_object(d, obj, "status");
    if (st) {
        mark = ts_path_push(&d->path, "status");
        status_decode(d, st, &cq->status);
        ts_path_pop(&d->path, mark);
    }
}

/* --- encode ------------------------------------------------------------------ */

static void policies_encode(const struct ts_cluster_queue_spec *s, cJSON *spec)
{
    const struct ts_flavor_fungibility *f = &s->flavor_fungibility;
    const struct ts_cq_preemption *p = &s->preemption;
    cJSON *o = ts_enc_object(spec, "flavorFungibility");
    cJSON *b;

    ts_enc_string(o, "whenCanBorrow", ts_fungibility_policy_name(f->when_can_borrow));
    ts_enc_string(o, "whenCanPreempt", ts_fungibility_policy_name(f->when_can_preempt));
    if (f->preference != TS_PREFERENCE_UNSET)
        ts_enc_string(o, "preference", ts_fungibility_preference_name(f->preference));
    o = ts_enc_object(spec, "preemption");
    ts_enc_string(o, "reclaimWithinCohort", ts_reclaim_policy_name(p->reclaim_within_cohort));
    b = ts_enc_object(o, "borrowWithinCohort");
    ts_enc_string(b, "policy", borrow_names[p->borrow_within_cohort == TS_BORROW_LOWER_PRIORITY]);
    ts_enc_opt_i32(b, "maxPriorityThreshold", &p->max_priority_threshold);
    ts_enc_string(o, "withinClusterQueue", ts_within_cq_policy_name(p->within_cluster_queue));
}

static void checks_encode(const struct ts_admission_checks_strategy *cs, cJSON *spec)
{
    cJSON *o, *a;

    if (!cs->set)
        return;
    o = ts_enc_object(spec, "admissionChecksStrategy");
    if (!cs->n)
        return;
    a = ts_enc_array(o, "admissionChecks");
    for (size_t i = 0; i < cs->n; i++) {
        cJSON *r = cJSON_CreateObject();

        ts_enc_string(r, "name", cs->items[i].name);
        ts_enc_strlist(r, "onFlavors", &cs->items[i].on_flavors);
        cJSON_AddItemToArray(a, r);
    }
}

static void cap_encode(const struct ts_concurrent_admission_policy *c, cJSON *spec)
{
    cJSON *o, *m;

    if (!c->set)
        return;
    o = ts_enc_object(spec, "concurrentAdmissionPolicy");
    if (!c->has_migration)
        return;
    m = ts_enc_object(o, "migration");
    if (c->mode != TS_MIGRATION_UNSET)
        ts_enc_string(m, "mode", migration_names[c->mode - 1]);
    if (c->has_constraints)
        ts_enc_string(ts_enc_object(m, "constraints"), "lastAcceptableFlavorName",
                      c->last_acceptable_flavor_name);
}

static void spec_encode(const struct ts_cluster_queue_spec *s, cJSON *spec)
{
    ts_resource_groups_encode(&s->resource_groups, spec, "resourceGroups");
    ts_enc_string(spec, "cohortName", s->cohort_name);
    ts_enc_string(spec, "queueingStrategy", ts_queueing_strategy_name(s->queueing_strategy));
    if (s->has_namespace_selector)
        ts_label_selector_encode(&s->namespace_selector, spec, "namespaceSelector");
    policies_encode(s, spec);
    checks_encode(&s->admission_checks_strategy, spec);
    ts_enc_string(spec, "stopPolicy", ts_stop_policy_name(s->stop_policy));
    ts_fair_sharing_encode(&s->fair_sharing, spec, "fairSharing");
    if (s->admission_scope.set)
        ts_enc_string(ts_enc_object(spec, "admissionScope"), "admissionMode",
                      mode_names[s->admission_scope.mode == TS_ADMISSION_MODE_NONE]);
    cap_encode(&s->concurrent_admission_policy, spec);
}

static void status_encode(const struct ts_cluster_queue_status *s, cJSON *obj)
{
    cJSON *st;

    if (!s->conditions.n && !s->flavors_reservation.n && !s->flavors_usage.n &&
        !s->pending_workloads && !s->reserving_workloads && !s->admitted_workloads &&
        !s->fair_sharing.set)
        return;
    /* the counts are not omitempty in Kueue's types: 0 is printed */
    st = ts_enc_object(obj, "status");
    ts_conditions_encode(&s->conditions, st, "conditions");
    ts_flavor_usages_encode(&s->flavors_reservation, st, "flavorsReservation",
                            TS_USAGE_WITH_BORROWED);
    ts_flavor_usages_encode(&s->flavors_usage, st, "flavorsUsage", TS_USAGE_WITH_BORROWED);
    ts_enc_int(st, "pendingWorkloads", s->pending_workloads);
    ts_enc_int(st, "reservingWorkloads", s->reserving_workloads);
    ts_enc_int(st, "admittedWorkloads", s->admitted_workloads);
    ts_fair_sharing_status_encode(&s->fair_sharing, st, "fairSharing");
}

cJSON *ts_cluster_queue_encode(const struct ts_cluster_queue *cq)
{
    cJSON *o = ts__queue_new_object(TS_KUEUE_V1BETA2, TS_CLUSTER_QUEUE_KIND);

    ts_object_meta_encode(&cq->meta, o);
    spec_encode(&cq->spec, ts_enc_object(o, "spec"));
    status_encode(&cq->status, o);
    return o;
}
