/*
 * rayjob.h - KubeRay's ray.io/v1 RayJob and RayCluster, as Kueue's Ray
 * integrations see them (pkg/controller/jobs/rayjob, jobs/raycluster):
 * the original JSON (`raw`), typed metadata, spec.suspend, the cluster spec
 * (a RayCluster's spec, a RayJob's spec.rayClusterSpec: the head group's
 * template and the worker groups), the RayJob's submission fields and the
 * status Kueue reads.
 *
 * Pod sets (Kueue's raycluster.BuildPodSets and RayJob.addSubmitterPodSet):
 * "head" (count 1), one per worker group named by its lower-cased
 * groupName with count replicas (1 when absent) times numOfHosts when that
 * is above 1, and for a RayJob in submissionMode K8sJobMode "submitter"
 * (count 1, spec.submitterPodTemplate or KubeRay's default submitter).
 * minReplicas and maxReplicas do not enter the count, as in Kueue.
 *
 * Only decoding: the controller edits the job's own JSON (controller/
 * jobkind.h), so nothing is encoded back from here.
 *
 * Ownership: struct ts_ray_job owns raw and every typed field; _release()
 * frees them and re-initialises.  Pure functions.
 */
#ifndef TS_API_RAYJOB_H
#define TS_API_RAYJOB_H

#include <cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "api/dec.h"
#include "api/meta.h"
#include "api/opt.h"
#include "api/podtemplate.h"

#define TS_RAY_API_VERSION      "ray.io/v1"
#define TS_RAY_GROUP            "ray.io"
#define TS_RAY_PODSET_HEAD      "head"
#define TS_RAY_PODSET_SUBMITTER "submitter"
#define TS_RAY_K8S_JOB_MODE     "K8sJobMode"
/* KubeRay's state of a running cluster (rayv1.Ready) */
#define TS_RAY_STATE_READY "ready"

/* spec.workerGroupSpecs[i] */
struct ts_ray_worker_group {
    char *group_name;
    struct ts_opt_i32 replicas;
    struct ts_opt_i32 min_replicas;
    struct ts_opt_i32 max_replicas;
    int32_t num_of_hosts; /* 0 when absent */
    struct ts_pod_template template;
};

/* RayClusterSpec */
struct ts_ray_cluster_spec {
    int present; /* a RayJob without rayClusterSpec has none */
    struct ts_opt_bool enable_in_tree_autoscaling;
    struct ts_pod_template head; /* headGroupSpec.template */
    struct ts_ray_worker_group *workers;
    size_t n_workers;
};

struct ts_ray_job {
    int is_job; /* 1: RayJob, 0: RayCluster */
    cJSON *raw; /* owned original object; NULL = {} */
    struct ts_object_meta meta;
    struct ts_opt_bool suspend;
    struct ts_ray_cluster_spec cluster;
    /* RayJob only */
    char *submission_mode;
    int has_submitter_template;
    struct ts_pod_template submitter; /* spec.submitterPodTemplate */
    int shutdown_after_job_finishes;
    struct ts_strmap cluster_selector;
    /* status: RayJob */
    char *job_deployment_status; /* New, Initializing, Running, Complete, Failed, Suspended... */
    char *job_status;            /* PENDING, RUNNING, SUCCEEDED, FAILED, STOPPED */
    char *message;
    char *cluster_state; /* status.rayClusterStatus.state */
    /* status: RayCluster */
    char *state; /* ready, suspended, failed */
    char *reason;
};

void ts_rayjob_init(struct ts_ray_job *j);
/* Frees everything j owns and re-initialises it. */
void ts_rayjob_release(struct ts_ray_job *j);

/* Decodes a RayJob or a RayCluster (by its kind) into j (initialised;
 * previous content released).  Problems go to d's error list.
 * Ownership: j keeps a deep copy of obj. */
void ts_rayjob_decode(struct ts_dec *d, const cJSON *obj, struct ts_ray_job *j);

/* 1 when spec.suspend is true. */
int ts_rayjob_is_suspended(const struct ts_ray_job *j);
/* Kueue's RayJob.Skip: a RayJob with a clusterSelector runs on an
 * existing cluster and is not queued.  0 for a RayCluster. */
int ts_rayjob_skip(const struct ts_ray_job *j);
/* Kueue's Finished: a RayJob is finished when jobDeploymentStatus is
 * Complete or Failed, successful when jobStatus is SUCCEEDED (*message:
 * status.message); a RayCluster never is.  Outputs may be NULL. */
int ts_rayjob_is_finished(const struct ts_ray_job *j, int *success, const char **message);
/* Kueue's IsActive: a RayJob whose jobDeploymentStatus is neither
 * Suspended nor New (an empty status counts as active, as in Kueue); a
 * RayCluster whose state is ready. */
int ts_rayjob_is_active(const struct ts_ray_job *j);
/* Kueue's PodsReady: the (RayJob's) cluster state is ready. */
int ts_rayjob_pods_ready(const struct ts_ray_job *j);
/* The count Kueue gives worker group g: replicas (1 when absent) times
 * numOfHosts when above 1, saturated at INT32_MAX. */
int32_t ts_rayjob_group_count(const struct ts_ray_worker_group *g);
/* 1 when the RayJob gets a submitter pod set (submissionMode K8sJobMode). */
int ts_rayjob_has_submitter(const struct ts_ray_job *j);
/* KubeRay's default submitter template (Kueue's getSubmitterTemplate):
 * container ray-job-submitter with the head's first image, requests cpu
 * 500m memory 200Mi, limits cpu 1 memory 1Gi, restartPolicy Never.
 * Ownership: caller cJSON_Delete()s. */
cJSON *ts_rayjob_default_submitter(const struct ts_ray_job *j);

#endif
