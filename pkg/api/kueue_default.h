/*
 * kueue_default.h - what Kueue's mutating webhooks do to a Kueue object
 * (pkg/webhooks: the ClusterQueue, ResourceFlavor and Workload Default
 * functions), on its JSON: the webhook answers with the difference as a
 * patch, `turnstilectl validate` applies it before validating.
 *
 * Pure: no I/O.
 */
#ifndef TS_API_KUEUE_DEFAULT_H
#define TS_API_KUEUE_DEFAULT_H

#include <cJSON.h>

/* Defaults obj in place: ClusterQueues, ResourceFlavors and Workloads get
 * the kueue.x-k8s.io/resource-in-use finalizer; a Workload's only pod set
 * without a name is "main", and without partial admission (the feature
 * gate off) pod sets lose minCount.  Other kinds are left as they are. */
void ts_kueue_default(cJSON *obj, int partial_admission);

#endif
