/*
 * localqueue.h - the kueue.x-k8s.io LocalQueue (namespaced, shortNames
 * queue/queues/lq), internal shape = v1beta2.
 *
 * A LocalQueue points its namespace's workloads at one ClusterQueue
 * (spec.clusterQueue, immutable).  Decoding defaults spec.stopPolicy to
 * None and fairSharing.weight to 1 (when fairSharing is present).  Kueue
 * has no webhook for LocalQueues: validation is the CRD schema and its CEL
 * transition rule only.
 *
 * Ownership: the struct owns everything it points to; release with
 * ts_local_queue_release().  Thread rule: none (plain value).
 */
#ifndef TS_API_LOCALQUEUE_H
#define TS_API_LOCALQUEUE_H

#include <cJSON.h>
#include <stdint.h>

#include "api/dec.h"
#include "api/field.h"
#include "api/meta.h"
#include "api/resourcegroup.h"

#define TS_LOCAL_QUEUE_KIND "LocalQueue"

struct ts_local_queue_spec {
    char *cluster_queue; /* ClusterQueueReference; NULL when unset */
    enum ts_stop_policy stop_policy;
    struct ts_fair_sharing fair_sharing; /* used by admission fair sharing */
};

struct ts_local_queue_status {
    struct ts_conditions conditions; /* type Active */
    int32_t pending_workloads;
    int32_t reserving_workloads;
    int32_t admitted_workloads;
    struct ts_flavor_usages flavors_reservation; /* resources carry total only */
    struct ts_flavor_usages flavors_usage;
    struct ts_fair_sharing_status fair_sharing;
};

struct ts_local_queue {
    struct ts_object_meta meta;
    struct ts_local_queue_spec spec;
    struct ts_local_queue_status status;
};

/* An empty object (defaults applied) / free everything lq owns and
 * re-initialise it. */
void ts_local_queue_init(struct ts_local_queue *lq);
void ts_local_queue_release(struct ts_local_queue *lq);

/* Decodes v1beta2 JSON into lq (initialised by the caller), applying the
 * defaults.  Problems are appended to d->errs; lq is always releasable.
 * Ownership: obj is borrowed; lq owns copies (ts_local_queue_release()). */
void ts_local_queue_decode(struct ts_dec *d, const cJSON *obj, struct ts_local_queue *lq);
/* v1beta2 JSON with apiVersion and kind.  Ownership: caller deletes the
 * result with cJSON_Delete(). */
cJSON *ts_local_queue_encode(const struct ts_local_queue *lq);

/* Create validation (CRD schema): metadata.name is a DNS-1123 subdomain,
 * metadata.namespace is set, spec.clusterQueue matches the
 * ClusterQueueReference pattern, status lists hold at most 64 flavors. */
void ts_local_queue_validate(const struct ts_local_queue *lq, struct ts_field_errors *errs);
/* Update validation: the create rules plus the CEL transition rule
 * "spec.clusterQueue: Invalid value: "string": field is immutable" (which,
 * like any transition rule, applies when both objects have the field). */
void ts_local_queue_validate_update(const struct ts_local_queue *old_lq,
                                    const struct ts_local_queue *new_lq,
                                    struct ts_field_errors *errs);

#endif
