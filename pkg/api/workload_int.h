/*
 * workload_int.h - helpers shared by the workload_*.c files (validation of
 * create and update).  Not part of the public API.
 *
 * Every function appends field errors to errs; none takes ownership.
 */
#ifndef TS_API_WORKLOAD_INT_H
#define TS_API_WORKLOAD_INT_H

#include <stdint.h>

#include "api/core.h"
#include "api/field.h"
#include "api/workload.h"

/* Appends an error whose value is the integer `value` (shown bare). */
void ts__workload_errf_int(struct ts_field_errors *errs, enum ts_field_error_type type,
                           const char *path, int64_t value, const char *detail);
/* field.NotFound(path, value). */
void ts__workload_not_found(struct ts_field_errors *errs, const char *path, const char *value);
/* metav1validation.ValidateLabels / apimachinery ValidateAnnotations. */
void ts__workload_validate_labels(const struct ts_strmap *m, const char *path,
                                  struct ts_field_errors *errs);
void ts__workload_validate_annotations(const struct ts_strmap *m, const char *path,
                                       struct ts_field_errors *errs);
/* core/v1 ValidateTolerations under path (e.g. "...podSetUpdates[0].tolerations"). */
void ts__workload_validate_tolerations(const struct ts_toleration *t, size_t n, const char *path,
                                       struct ts_field_errors *errs);
/* The status rules of create: conditions, reclaimablePods, admission
 * checks' podSetUpdates, clusterName vs nominatedClusterNames, list sizes. */
void ts__workload_validate_status(const struct ts_workload *w, struct ts_field_errors *errs);
/* Appends a's JSON, compact, in the field order of Kueue's Go type (the
 * bad value Kueue's messages print for it) to out. */
void ts__workload_admission_json(const struct ts_admission *a, struct ts_buf *out);

#endif
