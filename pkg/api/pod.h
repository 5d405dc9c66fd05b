/*
 * pod.h - a core/v1 Pod as Kueue's pod integration sees it
 * (pkg/controller/jobs/pod): a plain Pod, or a member of a pod group,
 * queued as a job of its own.  The webhook marks a managed Pod with the
 * label kueue.x-k8s.io/managed=true, the finalizer of the same name and
 * the scheduling gate kueue.x-k8s.io/admission; admission removes the gate
 * (the Pod's "unsuspend"), and a Pod cannot be suspended again: stopping
 * one deletes it.
 *
 * The pod set of a Pod is its spec alone (Kueue's constructPodSet: a
 * template without metadata), count 1.
 *
 * Ownership: struct ts_pod owns every typed field; _release() frees them
 * and re-initialises.  Pure functions.
 */
#ifndef TS_API_POD_H
#define TS_API_POD_H

#include <cJSON.h>

#include "api/dec.h"
#include "api/field.h"
#include "api/meta.h"
#include "api/podtemplate.h"

#define TS_POD_API_VERSION "v1"
#define TS_POD_KIND        "Pod"
/* Kueue's pkg/controller/jobs/pod/constants and pkg/constants. */
#define TS_POD_LABEL_MANAGED           "kueue.x-k8s.io/managed"
#define TS_POD_FINALIZER               "kueue.x-k8s.io/managed"
#define TS_POD_GATE                    "kueue.x-k8s.io/admission"
#define TS_POD_LABEL_GROUP_NAME        "kueue.x-k8s.io/pod-group-name"
#define TS_POD_ANNOTATION_GROUP_TOTAL  "kueue.x-k8s.io/pod-group-total-count"
#define TS_POD_ANNOTATION_ROLE_HASH    "kueue.x-k8s.io/role-hash"
#define TS_POD_ANNOTATION_FAST_ADMIT   "kueue.x-k8s.io/pod-group-fast-admission"
#define TS_POD_ANNOTATION_SERVING      "kueue.x-k8s.io/pod-group-serving"
#define TS_POD_ANNOTATION_RETRIABLE    "kueue.x-k8s.io/retriable-in-group"
#define TS_POD_ANNOTATION_SUSPENDED_BY "kueue.x-k8s.io/pod-suspending-parent"
#define TS_POD_CONDITION_TERMINATION   "TerminationTarget"
#define TS_POD_ANNOTATION_IS_GROUP     "kueue.x-k8s.io/is-group-workload"

struct ts_pod {
    struct ts_object_meta meta;
    struct ts_pod_template template; /* {spec}: the pod set's template */
    char *phase;                     /* status.phase; NULL when not reported */
    char *message;                   /* status.message */
    char *node_name;                 /* spec.nodeName */
    int ready;                       /* condition Ready is True */
    int gated;                       /* spec.schedulingGates holds TS_POD_GATE */
};

void ts_pod_init(struct ts_pod *p);
void ts_pod_release(struct ts_pod *p);

/* Decodes obj into p (initialised; previous content released).  Problems
 * go to d's error list.  Ownership: p keeps copies. */
void ts_pod_decode(struct ts_dec *d, const cJSON *obj, struct ts_pod *p);

/* 1 when the phase is Succeeded or Failed (Kueue's utilpod.IsTerminated). */
int ts_pod_is_terminated(const struct ts_pod *p);
/* Kueue's "suspended" for a Pod: terminated or still gated. */
int ts_pod_is_suspended(const struct ts_pod *p);

/* On a Pod's JSON: whether spec.schedulingGates holds `gate`, and removing
 * it (the list goes when it empties).  remove returns 1 when removed. */
int ts_pod_json_has_gate(const cJSON *pod, const char *gate);
int ts_pod_json_remove_gate(cJSON *pod, const char *gate);
/* Adds `gate` to spec.schedulingGates unless present (1 when added). */
int ts_pod_json_add_gate(cJSON *pod, const char *gate);

/* Kueue's role hash of a Pod (pod groups name their pod sets by it): the
 * first 8 hex digits of SHA-256 over the JSON of the fields that matter to
 * admission (containers' requests and ports, init containers, node
 * selector, affinity, tolerations, runtime class, priority, topology
 * spread, overhead, resource claims), with sorted keys.  The annotation
 * kueue.x-k8s.io/role-hash wins when present.  Returns 0, or -1 when the
 * Pod has no spec. */
int ts_pod_role_hash(const cJSON *pod, char out[9]);

/* Kueue's pod webhook's defaulting of a Pod it manages (metadata and spec
 * of `pod` edited in place): the label kueue.x-k8s.io/managed=true, the
 * finalizer kueue.x-k8s.io/managed (when `finalizer`), the scheduling gate
 * kueue.x-k8s.io/admission and the role-hash annotation. */
void ts_pod_json_mark_managed(cJSON *pod, int finalizer);

/* Kueue's pod webhook rules on create (and every update): the managed
 * label's value, the pod-group label and total-count annotation together,
 * the group name a DNS subdomain, the count a positive integer, a prebuilt
 * workload equal to the group.  Messages are Kueue's. */
void ts_pod_validate(const struct ts_pod *p, struct ts_field_errors *errs);
/* On update, also: the group name is immutable and an unretriable group
 * (kueue.x-k8s.io/retriable-in-group=false) stays so. */
void ts_pod_validate_update(const struct ts_pod *old, const struct ts_pod *nw,
                            struct ts_field_errors *errs);

#endif
