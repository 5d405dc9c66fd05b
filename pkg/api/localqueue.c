#include "api/localqueue.h"

#include "api/convert.h"
#include "api/enc.h"

#include <stdlib.h>
#include <string.h>

void ts_local_queue_init(struct ts_local_queue *lq)
{
    memset(lq, 0, sizeof(*lq));
    ts_object_meta_init(&lq->meta);
    lq->spec.stop_policy = TS_STOP_NONE;
    ts_fair_sharing_init(&lq->spec.fair_sharing);
    ts_conditions_init(&lq->status.conditions);
    ts_flavor_usages_init(&lq->status.flavors_reservation);
    ts_flavor_usages_init(&lq->status.flavors_usage);
    ts_fair_sharing_status_init(&lq->status.fair_sharing);
}

void ts_local_queue_release(struct ts_local_queue *lq)
{
    ts_object_meta_release(&lq->meta);
    free(lq->spec.cluster_queue);
    ts_conditions_release(&lq->status.conditions);
    ts_flavor_usages_release(&lq->status.flavors_reservation);
    ts_flavor_usages_release(&lq->status.flavors_usage);
    ts_fair_sharing_status_release(&lq->status.fair_sharing);
    ts_local_queue_init(lq);
}

static void status_decode(struct ts_dec *d, const cJSON *st, struct ts_local_queue_status *s)
{
    ts_conditions_decode(d, st, "conditions", &s->conditions);
    ts_dec_i32(d, st, "pendingWorkloads", &s->pending_workloads);
    ts_dec_i32(d, st, "reservingWorkloads", &s->reserving_workloads);
    ts_dec_i32(d, st, "admittedWorkloads", &s->admitted_workloads);
    ts_flavor_usages_decode(d, st, "flavorsReservation", &s->flavors_reservation);
    ts_flavor_usages_decode(d, st, "flavorsUsage", &s->flavors_usage);
    ts_fair_sharing_status_decode(d, st, "fairSharing", &s->fair_sharing);
}

void ts_local_queue_decode(struct ts_dec *d, const cJSON *obj, struct ts_local_queue *lq)
{
    const cJSON *spec, *st;
    size_t mark;

    ts__queue_dec_check_type(d, obj, TS_KUEUE_V1BETA2, TS_LOCAL_QUEUE_KIND);
    ts_object_meta_decode(d, obj, &lq->meta);
    spec = ts_dec_object(d, obj, "spec");
    if (spec) {
        mark = ts_path_push(&d->path, "spec");
        ts_dec_string(d, spec, "clusterQueue", &lq->spec.cluster_queue);
        ts_stop_policy_decode(d, spec, "stopPolicy", &lq->spec.stop_policy);
        ts_fair_sharing_decode(d, spec, "fairSharing", &lq->spec.fair_sharing);
        ts_path_pop(&d->path, mark);
    }
    st = ts_dec_object(d, obj, "status");
    if (st) {
        mark = ts_path_push(&d->path, "status");
        status_decode(d, st, &lq->status);
        ts_path_pop(&d->path, mark);
    }
}

static void status_encode(const struct ts_local_queue_status *s, cJSON *obj)
{
    cJSON *st;

    if (!s->conditions.n && !s->flavors_reservation.n && !s->flavors_usage.n &&
        !s->pending_workloads && !s->reserving_workloads && !s->admitted_workloads &&
        !s->fair_sharing.set)
        return;
    /* the counts are not omitempty in Kueue's types: 0 is printed */
    st = ts_enc_object(obj, "status");
    ts_conditions_encode(&s->conditions, st, "conditions");
    ts_enc_int(st, "pendingWorkloads", s->pending_workloads);
    ts_enc_int(st, "reservingWorkloads", s->reserving_workloads);
    ts_enc_int(st, "admittedWorkloads", s->admitted_workloads);
    ts_flavor_usages_encode(&s->flavors_reservation, st, "flavorsReservation", TS_USAGE_TOTAL_ONLY);
    ts_flavor_usages_encode(&s->flavors_usage, st, "flavorsUsage", TS_USAGE_TOTAL_ONLY);
    ts_fair_sharing_status_encode(&s->fair_sharing, st, "fairSharing");
}

cJSON *ts_local_queue_encode(const struct ts_local_queue *lq)
{
    cJSON *o = ts__queue_new_object(TS_KUEUE_V1BETA2, TS_LOCAL_QUEUE_KIND);
    cJSON *spec;

    ts_object_meta_encode(&lq->meta, o);
    spec = ts_enc_object(o, "spec");
    ts_enc_string(spec, "clusterQueue", lq->spec.cluster_queue);
    ts_enc_string(spec, "stopPolicy", ts_stop_policy_name(lq->spec.stop_policy));
    ts_fair_sharing_encode(&lq->spec.fair_sharing, spec, "fairSharing");
    status_encode(&lq->status, o);
    return o;
}

void ts_local_queue_validate(const struct ts_local_queue *lq, struct ts_field_errors *errs)
{
    ts__queue_check_name(&lq->meta, 0, errs);
    if (!lq->meta.namespace_ || !lq->meta.namespace_[0])
        ts_field_errors_add(errs, TS_FIELD_REQUIRED, "metadata.namespace", NULL, 0, NULL);
    if (lq->spec.cluster_queue)
        ts__queue_check_ref(lq->spec.cluster_queue, "spec.clusterQueue", errs);
    ts_flavor_usages_validate_schema(&lq->status.flavors_reservation, "status.flavorsReservation",
                                     errs);
    ts_flavor_usages_validate_schema(&lq->status.flavors_usage, "status.flavorsUsage", errs);
}

void ts_local_queue_validate_update(const struct ts_local_queue *old_lq,
                                    const struct ts_local_queue *new_lq,
                                    struct ts_field_errors *errs)
{
    const char *a = old_lq->spec.cluster_queue;
    const char *b = new_lq->spec.cluster_queue;

    ts_local_queue_validate(new_lq, errs);
    /* a CEL transition rule runs only when the field is in both objects */
    if (a && b && strcmp(a, b) != 0)
        ts__queue_cel(errs, "spec.clusterQueue", "string", "field is immutable");
}
