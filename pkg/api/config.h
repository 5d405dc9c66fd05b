/*
 * config.h - Kueue's controller-manager Configuration (kind Configuration,
 * config.kueue.x-k8s.io/v1beta2, and v1beta1 converted as Kueue does):
 * the knobs Turnstile honours, with Kueue's defaults
 * (apis/config/v1beta2/defaults.go).
 *
 * Ownership: a ts_config owns its strings; release with ts_config_release().
 */
#ifndef TS_API_CONFIG_H
#define TS_API_CONFIG_H

#include <cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "api/core.h"
#include "api/field.h"
#include "api/opt.h"
#include "api/resource_transform.h"

/* fairSharing.preemptionStrategies values. */
enum ts_config_fs_strategy {
    TS_CONFIG_FS_LESS_THAN_OR_EQUAL_TO_FINAL_SHARE = 0,
    TS_CONFIG_FS_LESS_THAN_INITIAL_SHARE,
};

struct ts_config {
    int fair_sharing; /* v1beta2: fairSharing present; v1beta1: fairSharing.enable */
    size_t n_strategies;
    enum ts_config_fs_strategy strategies[2];
    int manage_jobs_without_queue_name;
    int partial_admission; /* featureGates.PartialAdmission (default on) */
    int priority_boost;    /* featureGates.PriorityBoost (alpha, default off) */
    /* featureGates set in the file that Turnstile does not act on (names;
     * docs/compatibility.md) */
    struct ts_strlist feature_gates_ignored;
    double qps;
    int32_t burst;
    /* waitForPodsReady: v1beta2 enables it unless the feature gate is off
     * (present or not; absent = defaults), v1beta1 only with enable: true */
    int wait_for_pods_ready;
    int64_t pods_ready_timeout_s; /* v1beta2 default 30m, v1beta1 5m */
    /* recoveryTimeout: how long pods may stay not ready after having been
     * ready (WaitForRecovery); defaults to the timeout */
    int64_t pods_ready_recovery_timeout_s;
    int block_admission;
    int32_t backoff_base_s, backoff_max_s; /* requeuingStrategy: 60, 3600 */
    /* requeuingStrategy.backoffLimitCount: evictions before the Workload is
     * deactivated; unset = requeue forever */
    struct ts_opt_i32 backoff_limit_count;
    /* integrations.frameworks: which job kinds are managed, by Kueue's
     * framework names ("batch/job", "kubeflow.org/tfjob", ...: the
     * controller's jobkind table); not set: every kind Turnstile integrates
     * (Kueue's shipped configuration lists them all) */
    struct ts_strlist frameworks;
    int frameworks_set;
    /* integrations.externalFrameworks: "Kind.version.group" of kinds an
     * external controller queues through Kueue; what such a kind controls
     * is its Workload's, never given one of its own */
    struct ts_strlist external_frameworks;
    struct ts_strlist label_keys_to_copy; /* integrations.labelKeysToCopy */
    /* metrics: the per-flavor ClusterQueue gauges (enableClusterQueueResources)
     * and the local_queue_* series (localQueueMetrics.enable, for the
     * LocalQueues its localQueueSelector matches; empty: all), both off by
     * default as in Kueue */
    int metrics_cq_resources;
    int metrics_lq;
    struct ts_label_selector metrics_lq_selector;
    /* ports and addresses; NULL / 0: not in the file (the built-in
     * default or the flag applies) */
    char *metrics_bind_address;      /* metrics.bindAddress, "host:port" */
    char *health_probe_bind_address; /* health.healthProbeBindAddress */
    int32_t webhook_port;            /* webhook.port */
    int32_t visibility_port;         /* visibilityServer.bindPort (0: unset) */
    /* leaderElection.leaderElect, .resourceNamespace, .resourceName */
    struct ts_opt_bool leader_elect;
    char *lease_namespace, *lease_name;
    /* namespace: where Turnstile runs (the webhook certificate's DNS names,
     * its Secret, the Lease unless leaderElection names another) */
    char *namespace_;
    /* internalCertManagement.enable, .webhookServiceName, .webhookSecretName */
    struct ts_opt_bool internal_certs;
    char *webhook_service_name, *webhook_secret_name;
    /* resources.excludeResourcePrefixes and resources.transformations:
     * how pod requests become Workload requests (api/resource_transform.h) */
    struct ts_resource_transforms resources;
};

/* Kueue's defaults (no fair sharing, 300 QPS / 500 burst in v1beta2). */
void ts_config_init(struct ts_config *c);
/* Frees what c owns and re-initialises it. */
void ts_config_release(struct ts_config *c);

/* Whether integrations.frameworks lets Turnstile manage the kind of
 * framework name `name` ("kubeflow.org/jaxjob"): listed, or no list. */
int ts_config_framework_on(const struct ts_config *c, const char *name);

/* Whether apiVersion/kind (an owner reference's) is one of
 * integrations.externalFrameworks ("Kind.version.group"; core kinds
 * "Kind.version"). */
int ts_config_external_framework(const struct ts_strlist *external, const char *api_version,
                                 const char *kind);

/* Decodes a Configuration object (either version); problems are appended
 * to errs with their field paths.  Fields not listed above are accepted
 * and ignored. */
void ts_config_decode(const cJSON *obj, struct ts_config *c, struct ts_field_errors *errs);

#endif
