/*
 * manager.h - `turnstile`, the controller manager: informers feed the
 * admission engine, scheduling cycles turn its decisions into Workload
 * status writes, the job reconciler turns Workloads into suspended or
 * running jobs, and ClusterQueue/LocalQueue status is kept current.
 *
 * Everything runs on one event loop (pkg/kube/loop.h): informer events,
 * API calls (asynchronous, rate limited), the scheduling pass (run from a
 * short timer whenever something changed), the job work queue and the
 * status writer.  Nothing blocks.
 *
 * Crash safety: no scheduling happens before every informer has synced,
 * and the engine is rebuilt from the admitted Workloads on start, so a
 * restart never admits beyond quota.  An admission is written with the
 * resourceVersion the engine decided on; a conflict forgets it (the usage
 * is released and the workload retried), never double-counts.
 */
#ifndef TS_CONTROLLER_MANAGER_H
#define TS_CONTROLLER_MANAGER_H

#include <stdint.h>

#include "api/config.h"
#include "util/err.h"

struct ts_ctl;

struct ts_ctl_opts {
    const char *kubeconfig; /* NULL: $KUBECONFIG, ~/.kube/config, in-cluster */
    const char *context;
    struct ts_config config;     /* Kueue's Configuration (defaults from ts_config_init) */
    int leader_elect;            /* take a Lease before writing */
    const char *lease_ns;        /* default "turnstile-system" */
    const char *identity;        /* default hostname_pid */
    int64_t status_period_ns;    /* queue status refresh; 0: 1 s */
    int64_t status_max_wait_ns;  /* longest a changed queue status waits for
                                  * spare client budget; 0: 30 s */
    const char *metrics_addr;    /* /metrics /healthz /readyz: "host:port" (":8443"),
                                  * port 0 picks one (logged); "0": off */
    const char *visibility_addr; /* Kueue's visibility API over TLS, as metrics_addr
                                  * (":8082") */
    const char *health_addr;     /* /healthz /readyz also on "host:port"; NULL: not */
    const char *lease_name;      /* default Kueue's "c1f6bfd2.kueue.x-k8s.io" */
};

void ts_ctl_opts_init(struct ts_ctl_opts *o);

/* Creates the manager (connects nothing yet).  Returns NULL with err set
 * when the kubeconfig cannot be loaded.  Ownership: free with
 * ts_ctl_free(). */
struct ts_ctl *ts_ctl_new(const struct ts_ctl_opts *o, struct ts_err *err);
void ts_ctl_free(struct ts_ctl *c);

/* Runs until SIGTERM/SIGINT (or ts_ctl_stop()); drains in-flight writes
 * for up to 5 s, releases the lease.  Returns 0 or a TS_E* code. */
int ts_ctl_run(struct ts_ctl *c, struct ts_err *err);
void ts_ctl_stop(struct ts_ctl *c);

#endif
