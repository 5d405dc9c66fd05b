/*
 * podset.h - what admission does to a job's pod templates and what eviction
 * undoes (Kueue's pkg/podset/podset.go: FromAssignment, Merge,
 * RestorePodSpec), on the job's own JSON so every field the job carries
 * survives.
 *
 * Start: for each pod set, nodeSelector gains the node labels of every
 * flavor assigned to it, tolerations gain the flavors' tolerations (no
 * duplicates), and the pod labels kueue.x-k8s.io/podset,
 * kueue.x-k8s.io/local-queue-name and kueue.x-k8s.io/cluster-queue-name are
 * set; the podSetUpdates of the Workload's admission checks add their
 * labels, annotations, nodeSelector and tolerations.  A key already present with another value is a
 * conflict: Kueue then finishes the Workload with reason FailedToStart.
 *
 * Stop: labels, annotations, nodeSelector, tolerations and schedulingGates
 * of each template become exactly those of the Workload's pod set template
 * (the original), so a preempted job restarts as it was submitted.
 *
 * Pure functions on cJSON trees; no I/O.
 */
#ifndef TS_CONTROLLER_PODSET_H
#define TS_CONTROLLER_PODSET_H

#include <cJSON.h>

#include "api/resourceflavor.h"
#include "api/workload.h"
#include "util/err.h"

#define TS_LABEL_PODSET             "kueue.x-k8s.io/podset"
#define TS_LABEL_LOCAL_QUEUE_NAME   "kueue.x-k8s.io/local-queue-name"
#define TS_LABEL_CLUSTER_QUEUE_NAME "kueue.x-k8s.io/cluster-queue-name"

/* Looks a ResourceFlavor up by name (NULL when missing). Borrowed. */
typedef const struct ts_resource_flavor *(*ts_flavor_lookup_fn)(void *ctx, const char *name);

/* Injects the admission of pod set `ps` (wl's assignment of that name) into
 * the PodTemplateSpec `tmpl` (a node of the job's JSON, modified in place).
 * Returns 0, TS_ECONFLICT (message names the key and both values) or
 * TS_ENOTFOUND (an assigned flavor does not exist). */
int ts_podset_inject(cJSON *tmpl, const struct ts_workload *wl, const char *ps,
                     ts_flavor_lookup_fn lookup, void *ctx, struct ts_err *err);

/* Only the flavors' part of ts_podset_inject() (Kueue's podset.FromAssignment
 * merged into a template: nodeSelector and tolerations), as the
 * ProvisioningRequest controller builds its PodTemplates.  Returns as
 * ts_podset_inject(). */
int ts_podset_inject_flavors(cJSON *tmpl, const struct ts_workload *wl, const char *ps,
                             ts_flavor_lookup_fn lookup, void *ctx, struct ts_err *err);

/* Restores `tmpl` to pod set `ps` of wl's spec (the original template).
 * Returns 0 or TS_ENOTFOUND when wl has no such pod set.  Returns 1 through
 * *changed when anything was different. */
int ts_podset_restore(cJSON *tmpl, const struct ts_workload *wl, const char *ps, int *changed,
                      struct ts_err *err);

#endif
