/*
 * resource_transform.h - the Configuration's `resources.excludeResourcePrefixes`
 * and `resources.transformations`: how a pod's requests become the requests
 * a Workload is queued and admitted with (Kueue's pkg/workload/workload.go,
 * dropExcludedResources() then applyResourceTransformations()).
 *
 * Applied to one pod's requests, before they are multiplied by the pod
 * set's count and before `pods` is added:
 *   1. every resource whose name starts with an excluded prefix is dropped;
 *   2. when no remaining resource is the input of a transformation, the
 *      requests stay as they are;
 *   3. otherwise, for each resource R with transformation T (T.input = R):
 *      the amount of R is first multiplied by the integer value (rounded
 *      up) of T.multiplyBy's request when the pod requests it; each output
 *      O: factor adds factor x (that amount rounded up to an integer) to O;
 *      Retain keeps R at the multiplied amount, Replace drops it.  Other
 *      resources are kept.  Outputs of several transformations (and a
 *      kept resource of the same name) add up: Kueue walks a Go map and
 *      sets the kept ones, so its result there depends on the order, and
 *      the sum is one of its outcomes; a retained R replaces T's own
 *      output named R, as Kueue's always does.
 * Arithmetic is exact and saturates, never wraps: an amount beyond the
 * representable range becomes TS_RESOURCE_TRANSFORM_HUGE (of its sign),
 * which the engine counts as too large to count.
 *
 * Ownership: a ts_resource_transforms owns its strings and lists; release
 * with ts_resource_transforms_release().  Value type otherwise: no
 * shared state, every function is reentrant.
 */
#ifndef TS_API_RESOURCE_TRANSFORM_H
#define TS_API_RESOURCE_TRANSFORM_H

#include <cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "resource/resource_list.h"
#include "util/strlist.h"

struct ts_dec;

enum ts_resource_transform_strategy {
    TS_RESOURCE_TRANSFORM_RETAIN = 0, /* Kueue's default */
    TS_RESOURCE_TRANSFORM_REPLACE,
};

struct ts_resource_transformation {
    char *input; /* never NULL once decoded ("" when absent) */
    enum ts_resource_transform_strategy strategy;
    char *multiply_by; /* NULL: none */
    struct ts_resource_list outputs;
};

struct ts_resource_transforms {
    struct ts_strlist exclude_prefixes; /* excludeResourcePrefixes */
    struct ts_resource_transformation *items;
    size_t n;
};

/* The saturated amount (base units), as the engine's other "too large to
 * count" requests. */
#define TS_RESOURCE_TRANSFORM_HUGE INT64_MAX

void ts_resource_transforms_init(struct ts_resource_transforms *t);
/* Frees what t owns and re-initialises it. */
void ts_resource_transforms_release(struct ts_resource_transforms *t);
/* dst = deep copy of src; dst must be initialised (its content is
 * released first). */
void ts_resource_transforms_copy(struct ts_resource_transforms *dst,
                                 const struct ts_resource_transforms *src);
/* 1 when t changes nothing (no prefix, no transformation). */
int ts_resource_transforms_empty(const struct ts_resource_transforms *t);

/* Decodes the Configuration's `resources` object (the key "resources" of
 * cfg, at d's current path) into t, replacing what t held, and validates
 * it as Kueue's pkg/config/validation.go does: a strategy other than
 * Retain or Replace ("" and absent default to Retain) is
 * "resources.transformations[i].strategy: Unsupported value", a second
 * transformation of the same input is "resources.transformations[i].input:
 * Duplicate value".  deviceClassMappings and quotaCheckStrategy are left to
 * others.  Problems are appended to d's errors. */
void ts_resource_transforms_decode(struct ts_dec *d, const cJSON *cfg,
                                   struct ts_resource_transforms *t);

/* Applies t to one pod's requests, in place (see the top of this file).
 * Returns 0, or TS_EOVERFLOW when an amount was saturated (req holds the
 * saturated result all the same). */
int ts_resource_transforms_apply(const struct ts_resource_transforms *t,
                                 struct ts_resource_list *req);

#endif
