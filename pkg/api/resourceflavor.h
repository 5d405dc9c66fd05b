/*
 * resourceflavor.h - the kueue.x-k8s.io ResourceFlavor (cluster-scoped,
 * shortNames flavor/flavors/rf, no status), internal shape = v1beta2.
 *
 * A flavor names a kind of node: nodeLabels (injected as nodeSelector into
 * admitted pods), nodeTaints (a workload must tolerate them to fit),
 * tolerations (injected into admitted pods) and an optional topologyName.
 *
 * Validation = CRD schema + CEL (max 8 labels/taints/tolerations, taint
 * effects, toleration rules, topologyName needs a nodeLabel), then, only if
 * those passed, the webhook (pkg/webhooks/resourceflavor_webhook.go: label
 * keys and values, taint keys/values/effects, taints unique by key and
 * effect, toleration keys).
 *
 * Ownership: the struct owns everything it points to; release with
 * ts_resource_flavor_release().  Thread rule: none (plain value).
 */
#ifndef TS_API_RESOURCEFLAVOR_H
#define TS_API_RESOURCEFLAVOR_H

#include <cJSON.h>
#include <stddef.h>

#include "api/core.h"
#include "api/dec.h"
#include "api/field.h"
#include "api/meta.h"
#include "util/strmap.h"

#define TS_RESOURCE_FLAVOR_KIND "ResourceFlavor"
#define TS_RF_MAX_ITEMS         8 /* nodeLabels, nodeTaints, tolerations */

struct ts_resource_flavor_spec {
    struct ts_strmap node_labels;
    struct ts_taint *node_taints;
    size_t n_node_taints;
    struct ts_toleration *tolerations;
    size_t n_tolerations;
    char *topology_name; /* NULL = no topology */
};

struct ts_resource_flavor {
    struct ts_object_meta meta;
    struct ts_resource_flavor_spec spec;
};

/* An empty object (defaults applied) / free everything rf owns and
 * re-initialise it. */
void ts_resource_flavor_init(struct ts_resource_flavor *rf);
void ts_resource_flavor_release(struct ts_resource_flavor *rf);

/* Decodes v1beta2 JSON into rf (initialised by the caller).  Problems are
 * appended to d->errs; rf is always left releasable.  Ownership: obj is
 * borrowed; rf owns copies (ts_resource_flavor_release()). */
void ts_resource_flavor_decode(struct ts_dec *d, const cJSON *obj, struct ts_resource_flavor *rf);
/* v1beta2 JSON with apiVersion and kind ("spec" omitted when empty).
 * Ownership: caller deletes the result with cJSON_Delete(). */
cJSON *ts_resource_flavor_encode(const struct ts_resource_flavor *rf);

/* Create validation: metadata.name, CRD schema and CEL, then the webhook
 * rules.  Appends to errs. */
void ts_resource_flavor_validate(const struct ts_resource_flavor *rf, struct ts_field_errors *errs);
/* Update validation: the create rules plus "topologyName is immutable once
 * set" (spec.topologyName: Invalid value: "string": field is immutable). */
void ts_resource_flavor_validate_update(const struct ts_resource_flavor *old_rf,
                                        const struct ts_resource_flavor *new_rf,
                                        struct ts_field_errors *errs);

#endif
