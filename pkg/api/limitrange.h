/*
 * limitrange.h - a pod set's requests as Kueue counts them: the template
 * with the namespace's LimitRange defaults and its RuntimeClass overhead
 * filled in (Kueue's AdjustResources, pkg/workload/resources.go), and the
 * scheduler's check of the result against the LimitRanges
 * (ValidateLimitRange, pkg/util/limitrange).
 *
 * Kueue adjusts only its in-memory copy of a Workload (queue manager,
 * cache, scheduler): spec.podSets[].template as stored stays the job's.
 * The adjusted requests show in what it admits (status.admission
 * podSetAssignments[].resourceUsage).  The controller does the same: it
 * adjusts the Workload it decoded before handing it to the engine.
 *
 * Adjustment, in Kueue's order:
 *   1. a template with runtimeClassName and no overhead of its own gets
 *      the RuntimeClass's overhead.podFixed;
 *   2. each container and init container gets the summary's Container
 *      default limits and default requests for the names it lacks;
 *   3. limits fill in the requests a container still lacks.
 *
 * Summary (Kueue's limitrange.Summarize) over all the namespace's
 * LimitRanges, per type (Container, Pod): the lowest max, the highest
 * min, the first default / defaultRequest seen (the caller passes the
 * LimitRanges sorted by name, the API server's list order).
 *
 * Pure: no I/O; the caller looks LimitRanges and RuntimeClasses up.
 * Ownership: a summary owns its lists (ts_limitrange_summary_release());
 * every function copies what it keeps, and returned strings are the
 * caller's to free().
 */
#ifndef TS_API_LIMITRANGE_H
#define TS_API_LIMITRANGE_H

#include <cJSON.h>

#include "api/field.h"
#include "api/podtemplate.h"
#include "api/workload.h"
#include "resource/resource_list.h"

/* Kueue's messages (pkg/util/limitrange, pkg/scheduler/scheduler.go) */
#define TS_LIMITRANGE_ABOVE_MAX   "requests must not be above the limitRange max"
#define TS_LIMITRANGE_BELOW_MIN   "requests must not be below the limitRange min"
#define TS_LIMITRANGE_UNSATISFIED "resources didn't satisfy LimitRange constraints"

/* One LimitRangeItem type, summarised. */
struct ts_limitrange_item {
    int set; /* some LimitRange has an item of this type */
    struct ts_resource_list max, min, def, def_request;
};

struct ts_limitrange_summary {
    struct ts_limitrange_item container, pod; /* type Container, type Pod */
};

/* Initialises an empty summary (no LimitRange); allocates nothing. */
void ts_limitrange_summary_init(struct ts_limitrange_summary *s);
/* Frees everything and re-initialises s. */
void ts_limitrange_summary_release(struct ts_limitrange_summary *s);

/* Adds one core/v1 LimitRange object (JSON, as the API server returns it)
 * to s.  Items of other types (PersistentVolumeClaim) and quantities that
 * do not parse are left out.  lr stays the caller's. */
void ts_limitrange_summary_add(struct ts_limitrange_summary *s, const cJSON *lr);

/* 1 when no LimitRange added anything that adjusts or validates. */
int ts_limitrange_summary_empty(const struct ts_limitrange_summary *s);

/* A RuntimeClass's overhead.podFixed (node.k8s.io/v1 JSON) into out
 * (initialised; content replaced).  Returns 1 when it has one, else 0. */
int ts_limitrange_runtime_overhead(const cJSON *runtime_class, struct ts_resource_list *out);

/* Looks a RuntimeClass up by name: borrowed JSON, or NULL when absent. */
typedef const cJSON *(*ts_runtime_class_fn)(void *ctx, const char *name);

/* Adjusts one template in place (steps 1-3 above).  runtime_overhead is
 * the overhead.podFixed of t's RuntimeClass, NULL when it has none (or
 * the class does not exist); s may be NULL (no LimitRange). */
void ts_limitrange_adjust(struct ts_pod_template *t, const struct ts_limitrange_summary *s,
                          const struct ts_resource_list *runtime_overhead);

/* Adjusts every pod set of wl in place; rc (may be NULL) finds the
 * RuntimeClasses, ctx is passed to it. */
void ts_limitrange_adjust_workload(struct ts_workload *wl, const struct ts_limitrange_summary *s,
                                   ts_runtime_class_fn rc, void *ctx);

/* Kueue's Summary.ValidatePodSpec on one template: appends
 *   <path>.template.spec.containers[i]: Invalid value: ["cpu"]:
 *   requests must not be above the limitRange max
 * (min likewise, init containers likewise, and the pod's total requests
 * against the Pod type at <path>.template.spec), where path is the pod set
 * path ("spec.podSets[0]").  Returns the number of errors added. */
int ts_limitrange_validate(const struct ts_pod_template *t, const struct ts_limitrange_summary *s,
                           const char *path, struct ts_field_errors *errs);

/* The message Kueue's scheduler gives a workload whose (adjusted) pod sets
 * break the summary: "resources didn't satisfy LimitRange constraints: "
 * followed by the errors, or NULL when none.  Ownership: caller frees. */
char *ts_limitrange_workload_message(const struct ts_workload *wl,
                                     const struct ts_limitrange_summary *s);

#endif
