/*
 * pytorchjob.h - kubeflow.org/v1 PyTorchJob, and the Kubeflow kinds of the
 * same shape (kubeflow.org/v1 TFJob, XGBoostJob, PaddleJob, JAXJob,
 * kubeflow.org/v2beta1 MPIJob), as
 * Kueue's Kubeflow integrations see them (pkg/controller/jobs/kubeflow):
 * the original JSON (`raw`) plus typed metadata, spec.runPolicy, the map of
 * replica specs (pytorchReplicaSpecs, tfReplicaSpecs, mpiReplicaSpecs,
 * xgbReplicaSpecs, paddleReplicaSpecs, jaxReplicaSpecs) and
 * the status Kueue watches.  `kf` says which kind a decoded job is.
 *
 * Replicas are kept in Kueue's order for the kind (PyTorchJob: Master,
 * Worker; TFJob: Chief, Master, PS, Worker, Evaluator; MPIJob: Launcher,
 * Worker; XGBoostJob and PaddleJob: Master, Worker; JAXJob: Worker), then
 * any other replica type by name (Kueue itself only builds pod sets for
 * the listed types; the extra ones are kept so nothing is lost on encode).
 * ts_pytorchjob_encode() writes the typed fields into a copy of raw, so
 * elasticPolicy, nprocPerNode, images, env ... come back unchanged.
 *
 * Ownership: struct ts_pytorch_job owns raw and every typed field;
 * _release() frees them and re-initialises.  Pure functions.
 */
#ifndef TS_API_PYTORCHJOB_H
#define TS_API_PYTORCHJOB_H

#include <cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "api/dec.h"
#include "api/meta.h"
#include "api/opt.h"
#include "api/podtemplate.h"
#include "util/time.h"

#define TS_PYTORCHJOB_API_VERSION "kubeflow.org/v1"
#define TS_PYTORCHJOB_KIND        "PyTorchJob"
#define TS_PYTORCH_MASTER         "Master"
#define TS_PYTORCH_WORKER         "Worker"

/* One Kubeflow job kind: where its replica specs live and Kueue's order of
 * its replica types (NULL-terminated). */
struct ts_kf_kind {
    const char *api_version;  /* "kubeflow.org/v1" */
    const char *kind;         /* "PyTorchJob" */
    const char *replicas_key; /* "pytorchReplicaSpecs" */
    const char *const *order;
};

extern const struct ts_kf_kind ts_kf_pytorchjob, ts_kf_tfjob, ts_kf_mpijob, ts_kf_xgboostjob,
    ts_kf_paddlejob, ts_kf_jaxjob;

/* The Kubeflow kind named `kind` ("TFJob"), or NULL.  Static. */
const struct ts_kf_kind *ts_kf_kind_of(const char *kind);
/* Kueue's order of replica types a and b for kind k (<0, 0, >0). */
int ts_kf_replica_cmp(const struct ts_kf_kind *k, const char *a, const char *b);

/* spec.runPolicy (kubeflow common v1 RunPolicy). */
struct ts_run_policy {
    struct ts_opt_bool suspend;
    char *clean_pod_policy;
    struct ts_opt_i32 ttl_seconds_after_finished;
    struct ts_opt_i64 active_deadline_seconds;
    struct ts_opt_i32 backoff_limit;
    /* schedulingPolicy */
    struct ts_opt_i32 min_available;
    char *queue;
    char *priority_class;
};

struct ts_replica_spec {
    char *type;       /* "Master", "Worker", ... */
    int32_t replicas; /* default 1 */
    char *restart_policy;
    struct ts_pod_template template;
};

/* Kubeflow JobCondition (Created, Running, Restarting, Succeeded,
 * Suspended, Failed). */
struct ts_kf_condition {
    char *type;
    char *status;
    char *reason;
    char *message;
    ts_time last_update_time;
    ts_time last_transition_time;
};

struct ts_replica_status {
    char *type;
    int32_t active;
    int32_t succeeded;
    int32_t failed;
};

struct ts_pytorch_job {
    const struct ts_kf_kind *kf; /* static; PyTorchJob unless decoded otherwise */
    cJSON *raw;                  /* owned original object; NULL = {} */
    struct ts_object_meta meta;
    struct ts_run_policy run_policy;
    struct ts_replica_spec *replicas; /* Kueue's order */
    size_t n_replicas;
    struct ts_kf_condition *conditions;
    size_t n_conditions;
    struct ts_replica_status *replica_statuses; /* sorted like replicas */
    size_t n_replica_statuses;
    ts_time start_time;
    ts_time completion_time;
    ts_time last_reconcile_time;
};

/* Initialises an empty PyTorchJob (allocates nothing). */
void ts_pytorchjob_init(struct ts_pytorch_job *j);
/* Frees everything j owns and re-initialises it. */
void ts_pytorchjob_release(struct ts_pytorch_job *j);

/* Decodes a Kubeflow job (any kind of ts_kf_kind_of() by its kind; any
 * other kind is read as a PyTorchJob) into j (initialised; previous
 * content released), applying replicas default 1.  Problems go to d's
 * error list.  Ownership: j keeps a deep copy of obj. */
void ts_pytorchjob_decode(struct ts_dec *d, const cJSON *obj, struct ts_pytorch_job *j);
/* A copy of raw with the modelled fields written back.
 * Ownership: caller cJSON_Delete()s. */
cJSON *ts_pytorchjob_encode(const struct ts_pytorch_job *j);

/* Label kueue.x-k8s.io/queue-name, else the legacy annotation, else NULL.
 * Borrowed. */
const char *ts_pytorchjob_queue_name(const struct ts_pytorch_job *j);
/* 1 when a Succeeded or Failed condition is True (*success, *message as
 * ts_job_is_finished(); outputs may be NULL). */
int ts_pytorchjob_is_finished(const struct ts_pytorch_job *j, int *success, const char **message);
/* 1 when runPolicy.suspend is true. */
int ts_pytorchjob_is_suspended(const struct ts_pytorch_job *j);
/* The replica spec of `type`, or NULL.  Borrowed. */
const struct ts_replica_spec *ts_pytorchjob_replica(const struct ts_pytorch_job *j,
                                                    const char *type);
/* Kueue's priority class for a Kubeflow job: runPolicy.schedulingPolicy.
 * priorityClass, else the priorityClassName of the first template (in
 * replica order) that has one, else NULL.  Borrowed. */
const char *ts_pytorchjob_priority_class(const struct ts_pytorch_job *j);
/* 1 when some replica status has active > 0. */
int ts_pytorchjob_is_active(const struct ts_pytorch_job *j);
/* The pod set name Kueue gives a replica type: the type lower-cased
 * ("Master" -> "master").  Ownership: caller frees the result. */
char *ts_pytorchjob_podset_name(const char *replica_type);

#endif
