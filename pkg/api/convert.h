/*
 * convert.h - conversion of kueue.x-k8s.io objects between v1beta1 and
 * v1beta2 (the storage and internal version), at the JSON level, as
 * Kueue's apis/kueue/v1beta1/<kind>_conversion.go do:
 * cohort <-> cohortName, admissionChecks <-> admissionChecksStrategy,
 * Borrow/Preempt <-> MayStopSearch, flavorUsage <-> flavorsUsage,
 * priorityClassName/Source <-> priorityClassRef, the
 * accumulatedPastExexcutionTimeSeconds typo, ...
 *
 * The same functions serve the typed decoders (old YAML is converted to
 * v1beta2 before decoding), the conversion webhook (/convert) and the local
 * API server.  Conversion is lossless for every field the two versions
 * share; fields one version lacks are carried in the annotation
 * TS_CONVERT_ANNOTATION so a round trip restores them exactly.
 */
#ifndef TS_API_CONVERT_H
#define TS_API_CONVERT_H

#include <cJSON.h>

#include "util/err.h"

#define TS_KUEUE_GROUP   "kueue.x-k8s.io"
#define TS_KUEUE_V1BETA1 "kueue.x-k8s.io/v1beta1"
#define TS_KUEUE_V1BETA2 "kueue.x-k8s.io/v1beta2"
/* Holds, as JSON, fields that the target version cannot express. */
#define TS_CONVERT_ANNOTATION "turnstile.dev/conversion-data"

/* Converts obj in place to `to_api_version` (TS_KUEUE_V1BETA1 or
 * TS_KUEUE_V1BETA2), reading its current apiVersion and kind.  Kinds with
 * identical schemas only get their apiVersion rewritten.  Converting to
 * the version obj already has is a no-op.  Returns 0, TS_EINVAL (not a
 * kueue object, unknown version; message names the field) or
 * TS_EUNSUPPORTED (unknown kind). */
int ts_convert_kueue(cJSON *obj, const char *to_api_version, struct ts_err *err);

#endif
