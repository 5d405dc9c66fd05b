/*
 * provreq.h - the pure part of Kueue's ProvisioningRequest admission check
 * controller (pkg/controller/admissionchecks/provisioning): the
 * ProvisioningRequestConfig, the AdmissionCheck's Active condition, the
 * names of ProvisioningRequests and their PodTemplates, the objects built
 * from a Workload, and a check's state mapped from the request's
 * conditions.  provreq.c (the shell) reads the informers and writes.
 *
 * No I/O, no clock (`now` is passed in).  Objects are cJSON trees; a
 * Workload is typed (api/workload.h, decoded with its raw templates).
 * Ownership is said per function.
 */
#ifndef TS_CONTROLLER_PROVREQ_H
#define TS_CONTROLLER_PROVREQ_H

#include <cJSON.h>
#include <stdint.h>

#include "api/workload.h"
#include "controller/podset.h"
#include "util/err.h"
#include "util/strlist.h"
#include "util/strmap.h"
#include "util/time.h"

#define TS_PROVREQ_CONTROLLER    "kueue.x-k8s.io/provisioning-request"
#define TS_PROVREQ_CONFIG_KIND   "ProvisioningRequestConfig"
#define TS_PROVREQ_CONSUME_ANNOT "autoscaling.x-k8s.io/consume-provisioning-request"
#define TS_PROVREQ_CLASS_ANNOT   "autoscaling.x-k8s.io/provisioning-class-name"
#define TS_PROVREQ_PARAM_PREFIX  "provreq.kueue.x-k8s.io/"
#define TS_PROVREQ_MANAGED_LABEL "kueue.x-k8s.io/managed"

enum ts_provreq_merge {
    TS_PROVREQ_MERGE_NONE = 0,
    TS_PROVREQ_MERGE_IDENTICAL_TEMPLATES,  /* IdenticalPodTemplates */
    TS_PROVREQ_MERGE_IDENTICAL_SCHEDULING, /* IdenticalWorkloadSchedulingRequirements */
};

/* A ProvisioningRequestConfig's spec, with Kueue's defaults. */
struct ts_provreq_config {
    char *name;
    char *class_name;                   /* spec.provisioningClassName */
    struct ts_strmap parameters;        /* spec.parameters */
    struct ts_strlist managed;          /* spec.managedResources */
    int32_t limit_count, base_s, max_s; /* spec.retryStrategy (3, 60, 1800) */
    int has_podset_updates;             /* spec.podSetUpdates set */
    struct ts_strmap node_selector; /* nodeSelector[]: key -> valueFromProvisioningClassDetail */
    enum ts_provreq_merge merge;    /* spec.podSetMergePolicy */
};

/* Reads a ProvisioningRequestConfig (any served version).  Returns 0, or
 * TS_EINVAL naming the field that is not what the CRD allows.
 * Ownership: release cfg with ts_provreq_config_release() either way. */
int ts_provreq_config_read(const cJSON *obj, struct ts_provreq_config *cfg, struct ts_err *err);
void ts_provreq_config_release(struct ts_provreq_config *cfg);

/* The ProvisioningRequestConfig an AdmissionCheck's spec.parameters
 * names, or NULL with Kueue's reason in why (len bytes): "missing
 * parameters reference", "empty name: bad parameters reference", "wrong
 * group ...", "wrong kind ...".  Borrowed from ac. */
const char *ts_provreq_config_ref(const cJSON *ac, char *why, size_t len);

/* Kueue's acReconciler: the AdmissionCheck ac of this controller with its
 * Active condition for config `cfg` (the config ac names; NULL: not
 * found).  Returns a copy of ac with the condition set when its status
 * changes (Kueue writes only then), NULL otherwise.  Ownership: caller
 * cJSON_Delete()s. */
cJSON *ts_provreq_ac_status(const cJSON *ac, const cJSON *cfg, ts_time now);

/* "<wl>-<check>-<attempt>" and "ppt-<request>-<podset>", cut to 247
 * characters plus "-" and 5 hex digits of the SHA-1 of the whole when
 * longer (Kueue's limitObjectName).  Ownership: caller frees. */
char *ts_provreq_name(const char *wl, const char *check, int32_t attempt);
char *ts_provreq_template_name(const char *request, const char *podset);
/* The attempt number of request name `pr` of (wl, check), or 0 when the
 * name is not one of theirs; a number past int32 counts as 1 (Kueue logs
 * and takes 1). */
int32_t ts_provreq_attempt(const char *pr, const char *wl, const char *check);

/* Whether wl needs a ProvisioningRequest under cfg: some pod set uses a
 * managed resource (every pod set when none is listed). */
int ts_provreq_needed(const struct ts_workload *wl, const struct ts_provreq_config *cfg);
/* The same for one pod set (requiredPodSets). */
int ts_provreq_podset_needed(const struct ts_podset *ps, const struct ts_provreq_config *cfg);

/* Whether request pr was made for cfg's class and parameters
 * (provReqSyncedWithConfig). */
int ts_provreq_synced(const cJSON *pr, const struct ts_provreq_config *cfg);

/* The objects to create for attempt `attempt` of `check`: *pr (owned by
 * the Workload) and its PodTemplates (*templates, an array, each owned by
 * the Workload until the request takes them), as Kueue builds them: pod
 * sets merged by cfg's podSetMergePolicy, the flavors' nodeSelector and
 * tolerations, limits as missing requests.  Returns 0, TS_EINVAL
 * ("inconsistent podSet assignments") or TS_ENOTFOUND / TS_ECONFLICT from
 * the flavors.  Ownership: caller cJSON_Delete()s both. */
int ts_provreq_build(const struct ts_workload *wl, const struct ts_provreq_config *cfg,
                     const char *check, int32_t attempt, ts_flavor_lookup_fn lookup, void *ctx,
                     cJSON **pr, cJSON **templates, struct ts_err *err);

/* Kueue's backoff for the n-th retry (UpdateAdmissionCheckRequeueState):
 * base * 2^(n-1) seconds, capped at max, saturating at INT32_MAX. */
int32_t ts_provreq_backoff(int32_t base_s, int32_t max_s, int32_t n);

/* Kueue's syncCheckStates for one check of wl: its state and message from
 * cfg (NULL: the check is not active) and pr (the active or last request,
 * NULL: none yet).  Events to record ("Admission check X updated state
 * from A to B ...") are pushed to events.  Returns 1 when wl changed, 0
 * when not, -1 when a needed request does not exist yet (Kueue then
 * writes nothing for any check). */
int ts_provreq_sync_check(struct ts_workload *wl, const char *check,
                          const struct ts_provreq_config *cfg, const cJSON *pr, ts_time now,
                          struct ts_strlist *events);

/* Whether a new attempt is to be created for check (syncOwnedProvisionRequest):
 * none exists, or the last Failed (or its booking expired before the
 * Workload was admitted) while the check is Pending.  *attempt receives
 * the attempt number to create. */
int ts_provreq_should_create(const struct ts_workload *wl, const char *check, const cJSON *pr,
                             int32_t *attempt);

#endif
