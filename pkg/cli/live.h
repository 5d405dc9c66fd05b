/*
 * live.h - reading the state a decision depends on from a cluster (or
 * turnstile-apiserver) into a simulator: ResourceFlavors, Cohorts,
 * ClusterQueues, LocalQueues, WorkloadPriorityClasses, PriorityClasses,
 * Namespaces, then Workloads (admitted ones hold their quota, pending ones
 * queue).  Kueue kinds are read at v1beta2, or v1beta1 when the cluster
 * serves only that (an older Kueue).  Reads only; writes nothing.
 */
#ifndef TS_CLI_LIVE_H
#define TS_CLI_LIVE_H

#include <stdio.h>

#include "sim/sim.h"

struct ts_cli_live_opts {
    const char *kubeconfig; /* NULL: $KUBECONFIG, ~/.kube/config, in-cluster */
    const char *context;    /* NULL: current context */
};

/* Returns the number of objects the simulator rejected (each reported on
 * err naming the object), or -1 when the cluster could not be read. */
int ts_cli_load_live(struct ts_sim *sim, const struct ts_cli_live_opts *o, ts_time now, FILE *err);

#endif
