/*
 * workloadpriorityclass.h - the kueue.x-k8s.io WorkloadPriorityClass
 * (cluster-scoped, shortName wpc, no spec/status): top-level `value`
 * (int32, required) and `description`, internal shape = v1beta2 (same
 * schema as v1beta1).
 *
 * Ownership: the struct owns its strings; release with
 * ts_workload_priority_class_release().  Thread rule: none.
 */
#ifndef TS_API_WORKLOADPRIORITYCLASS_H
#define TS_API_WORKLOADPRIORITYCLASS_H

#include <cJSON.h>
#include <stdint.h>

#include "api/dec.h"
#include "api/field.h"
#include "api/meta.h"

#define TS_WORKLOAD_PRIORITY_CLASS_KIND "WorkloadPriorityClass"

/* The longest description the CRD accepts (bytes). */
#define TS_WPC_DESCRIPTION_MAX 2048

struct ts_workload_priority_class {
    struct ts_object_meta meta;
    int32_t value;
    char *description; /* NULL when absent */
};

/* An empty object (defaults applied) / free everything w owns and
 * re-initialise it. */
void ts_workload_priority_class_init(struct ts_workload_priority_class *w);
void ts_workload_priority_class_release(struct ts_workload_priority_class *w);

/* Decodes v1beta2 JSON into w (initialised by the caller); a missing
 * `value` is reported as "value: Required value".  Ownership: obj is
 * borrowed; w owns copies (ts_workload_priority_class_release()). */
void ts_workload_priority_class_decode(struct ts_dec *d, const cJSON *obj,
                                       struct ts_workload_priority_class *w);
/* v1beta2 JSON with apiVersion and kind.  Ownership: caller deletes the
 * result with cJSON_Delete(). */
cJSON *ts_workload_priority_class_encode(const struct ts_workload_priority_class *w);

/* Create validation: metadata.name is a DNS-1123 subdomain (Kueue has no
 * webhook for this kind; value's presence and int32 range are checked by
 * the decoder). */
void ts_workload_priority_class_validate(const struct ts_workload_priority_class *w,
                                         struct ts_field_errors *errs);
/* Update validation: the create rules (value may change; Kueue propagates
 * the new value to workloads). */
void ts_workload_priority_class_validate_update(const struct ts_workload_priority_class *old_w,
                                                const struct ts_workload_priority_class *new_w,
                                                struct ts_field_errors *errs);

#endif
