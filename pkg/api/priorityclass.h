/*
 * priorityclass.h - scheduling.k8s.io/v1 PriorityClass (cluster-scoped):
 * top-level value (int32, required), globalDefault, description and
 * preemptionPolicy (PreemptLowerPriority by default, or Never).  Kueue
 * reads it for workloads whose pods name a priorityClassName.
 *
 * Validation follows Kubernetes' pkg/apis/scheduling/validation: the
 * "system-" name prefix is reserved for the two built-in classes, user
 * classes are capped at 1000000000, value and preemptionPolicy are
 * immutable.  (Only one globalDefault class may exist; that needs the
 * store and is the API server's check, not this module's.)
 *
 * Ownership: the struct owns its strings; release with
 * ts_priority_class_release().  Thread rule: none.
 */
#ifndef TS_API_PRIORITYCLASS_H
#define TS_API_PRIORITYCLASS_H

#include <cJSON.h>
#include <stdint.h>

#include "api/dec.h"
#include "api/field.h"
#include "api/meta.h"

#define TS_PRIORITY_CLASS_API_VERSION      "scheduling.k8s.io/v1"
#define TS_PRIORITY_CLASS_KIND             "PriorityClass"
#define TS_PRIORITY_HIGHEST_USER_DEFINABLE 1000000000
#define TS_PREEMPT_LOWER_PRIORITY          "PreemptLowerPriority"

struct ts_priority_class {
    struct ts_object_meta meta;
    int32_t value;
    int global_default;
    char *description;       /* NULL when absent */
    char *preemption_policy; /* NULL = the default, PreemptLowerPriority */
};

/* An empty object (defaults applied) / free everything pc owns and
 * re-initialise it. */
void ts_priority_class_init(struct ts_priority_class *pc);
void ts_priority_class_release(struct ts_priority_class *pc);
/* The effective preemptionPolicy ("PreemptLowerPriority" when unset).
 * Borrowed from pc (or static). */
const char *ts_priority_class_preemption_policy(const struct ts_priority_class *pc);

/* Decodes scheduling.k8s.io/v1 JSON into pc (initialised by the caller);
 * a missing value is "value: Required value"; a missing preemptionPolicy
 * is defaulted to PreemptLowerPriority.  Ownership: obj is borrowed; pc
 * owns copies (ts_priority_class_release()). */
void ts_priority_class_decode(struct ts_dec *d, const cJSON *obj, struct ts_priority_class *pc);
/* JSON with apiVersion and kind.  Ownership: caller deletes the result
 * with cJSON_Delete(). */
cJSON *ts_priority_class_encode(const struct ts_priority_class *pc);

/* Create validation as Kubernetes does it.  Appends to errs. */
void ts_priority_class_validate(const struct ts_priority_class *pc, struct ts_field_errors *errs);
/* Update validation: the create rules plus "value: Forbidden: may not be
 * changed in an update." and "preemptionPolicy: ... field is immutable". */
void ts_priority_class_validate_update(const struct ts_priority_class *old_pc,
                                       const struct ts_priority_class *new_pc,
                                       struct ts_field_errors *errs);

#endif
