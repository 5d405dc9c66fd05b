#include "api/cohort.h"

#include "api/convert.h"
#include "api/enc.h"

#include <stdlib.h>
#include <string.h>

void ts_cohort_init(struct ts_cohort *co)
{
    memset(co, 0, sizeof(*co));
    ts_object_meta_init(&co->meta);
    ts_resource_groups_init(&co->spec.resource_groups);
    ts_fair_sharing_init(&co->spec.fair_sharing);
    ts_fair_sharing_status_init(&co->status.fair_sharing);
}

void ts_cohort_release(struct ts_cohort *co)
{
    ts_object_meta_release(&co->meta);
    free(co->spec.parent_name);
    ts_resource_groups_release(&co->spec.resource_groups);
    ts_fair_sharing_status_release(&co->status.fair_sharing);
    ts_cohort_init(co);
}

void ts_cohort_decode(struct ts_dec *d, const cJSON *obj, struct ts_cohort *co)
{
    const cJSON *spec, *st;
    size_t mark;

    ts__queue_dec_check_type(d, obj, TS_KUEUE_V1BETA2, TS_COHORT_KIND);
    ts_object_meta_decode(d, obj, &co->meta);
    spec = ts_dec_object(d, obj, "spec");
    if (spec) {
        mark = ts_path_push(&d->path, "spec");
        ts_dec_string(d, spec, "parentName", &co->spec.parent_name);
        ts_resource_groups_decode(d, spec, "resourceGroups", &co->spec.resource_groups);
        ts_fair_sharing_decode(d, spec, "fairSharing", &co->spec.fair_sharing);
        ts_path_pop(&d->path, mark);
    }
    st = ts_dec_object(d, obj, "status");
    if (st) {
        mark = ts_path_push(&d->path, "status");
        ts_fair_sharing_status_decode(d, st, "fairSharing", &co->status.fair_sharing);
        ts_path_pop(&d->path, mark);
    }
}

cJSON *ts_cohort_encode(const struct ts_cohort *co)
{
    cJSON *o = ts__queue_new_object(TS_KUEUE_V1BETA2, TS_COHORT_KIND);
    cJSON *spec;

    ts_object_meta_encode(&co->meta, o);
    spec = ts_enc_object(o, "spec");
    ts_enc_string(spec, "parentName", co->spec.parent_name);
    ts_resource_groups_encode(&co->spec.resource_groups, spec, "resourceGroups");
    ts_fair_sharing_encode(&co->spec.fair_sharing, spec, "fairSharing");
    if (co->status.fair_sharing.set)
        ts_fair_sharing_status_encode(&co->status.fair_sharing, ts_enc_object(o, "status"),
                                      "fairSharing");
    return o;
}

static void cohort_schema(const struct ts_cohort *co, struct ts_field_errors *errs)
{
    ts__queue_check_name(&co->meta, 0, errs);
    if (co->spec.parent_name)
        ts__queue_check_ref(co->spec.parent_name, "spec.parentName", errs);
    ts_resource_groups_validate_schema(&co->spec.resource_groups, "spec.resourceGroups", errs);
}

void ts_cohort_validate(const struct ts_cohort *co, struct ts_field_errors *errs)
{
    struct ts_field_errors schema = TS_FIELD_ERRORS_INIT;
    struct ts_quota_rules rules = {co->spec.parent_name && co->spec.parent_name[0],
                                   TS_RG_NO_PARENT_MSG, 0, 0};

    cohort_schema(co, &schema);
    if (schema.n) {
        ts_field_errors_extend(errs, &schema);
        ts_field_errors_release(&schema);
        return;
    }
    ts_resource_groups_validate(&co->spec.resource_groups, &rules, "spec.resourceGroups", errs);
    ts_fair_sharing_validate(&co->spec.fair_sharing, "spec.fairSharing", errs);
}

void ts_cohort_validate_update(const struct ts_cohort *old_co, const struct ts_cohort *new_co,
                               struct ts_field_errors *errs)
{
    (void)old_co;
    ts_cohort_validate(new_co, errs);
}
