/*
 * object.h - any object Turnstile understands, recognised by apiVersion
 * and kind, converted to the internal version and decoded into its typed
 * struct: the single entry point for the simulator, the scenario runner,
 * the webhook and the controller's caches.
 *
 * kueue.x-k8s.io objects may be v1beta1 or v1beta2; they are converted to
 * v1beta2 (convert.h) on a copy before decoding, so the caller's JSON is
 * never modified.
 *
 * Ownership: a struct ts_object owns its typed payload; release it with
 * ts_object_release().
 */
#ifndef TS_API_OBJECT_H
#define TS_API_OBJECT_H

#include <cJSON.h>

#include "api/clusterqueue.h"
#include "api/cohort.h"
#include "api/field.h"
#include "api/job.h"
#include "api/jobset.h"
#include "api/localqueue.h"
#include "api/namespace.h"
#include "api/pod.h"
#include "api/priorityclass.h"
#include "api/pytorchjob.h"
#include "api/rayjob.h"
#include "api/resourceflavor.h"
#include "api/trainjob.h"
#include "api/workload.h"
#include "api/workloadpriorityclass.h"

enum ts_kind {
    TS_KIND_UNKNOWN = 0,
    TS_KIND_RESOURCE_FLAVOR,
    TS_KIND_CLUSTER_QUEUE,
    TS_KIND_COHORT,
    TS_KIND_LOCAL_QUEUE,
    TS_KIND_WORKLOAD,
    TS_KIND_WORKLOAD_PRIORITY_CLASS,
    TS_KIND_PRIORITY_CLASS,
    TS_KIND_NAMESPACE,
    TS_KIND_JOB,
    TS_KIND_PYTORCH_JOB,
    TS_KIND_TF_JOB,  /* u.ptj, like every Kubeflow job */
    TS_KIND_MPI_JOB, /* u.ptj */
    TS_KIND_XGBOOST_JOB,
    TS_KIND_PADDLE_JOB,
    TS_KIND_JAX_JOB, /* the last Kubeflow kind */
    TS_KIND_JOBSET,
    TS_KIND_POD,
    TS_KIND_RAY_JOB,     /* u.ray */
    TS_KIND_RAY_CLUSTER, /* u.ray */
    TS_KIND_TRAINJOB,    /* u.trainjob */
};

/* A Kubeflow job (PyTorchJob, TFJob, MPIJob, XGBoostJob, PaddleJob,
 * JAXJob): decoded into u.ptj. */
#define TS_KIND_IS_KUBEFLOW(k) ((k) >= TS_KIND_PYTORCH_JOB && (k) <= TS_KIND_JAX_JOB)
/* A job kind Turnstile makes Workloads of (batch Job, Kubeflow, JobSet, Pod, Ray,
 * TrainJob). */
#define TS_KIND_IS_JOB(k)                                                                          \
    ((k) == TS_KIND_JOB || TS_KIND_IS_KUBEFLOW(k) || (k) == TS_KIND_JOBSET ||                      \
     (k) == TS_KIND_POD || TS_KIND_IS_RAY(k) || (k) == TS_KIND_TRAINJOB)

/* A KubeRay job (RayJob, RayCluster): decoded into u.ray. */
#define TS_KIND_IS_RAY(k) ((k) == TS_KIND_RAY_JOB || (k) == TS_KIND_RAY_CLUSTER)

struct ts_object {
    enum ts_kind kind;
    union {
        struct ts_resource_flavor rf;
        struct ts_cluster_queue cq;
        struct ts_cohort cohort;
        struct ts_local_queue lq;
        struct ts_workload wl;
        struct ts_workload_priority_class wpc;
        struct ts_priority_class pc;
        struct ts_namespace ns;
        struct ts_job job;
        struct ts_pytorch_job ptj; /* every Kubeflow kind */
        struct ts_jobset jobset;
        struct ts_pod pod;
        struct ts_ray_job ray; /* RayJob, RayCluster */
        struct ts_trainjob trainjob;
    } u;
};

/* The kind of obj from its apiVersion and kind (TS_KIND_UNKNOWN when
 * Turnstile does not model it). */
enum ts_kind ts_object_kind(const cJSON *obj);
/* "ClusterQueue", ... ("" for unknown).  Static string. */
const char *ts_kind_name(enum ts_kind kind);

/* Recognises, converts (kueue kinds to v1beta2) and decodes obj.  Decoding
 * problems are appended to errs with their field paths (the object is
 * still filled as far as possible).  Returns 0, TS_EUNSUPPORTED (unknown
 * apiVersion/kind; message names both) or TS_EINVAL (conversion failed).
 * Ownership: out owns the payload; obj stays the caller's. */
int ts_object_decode(const cJSON *obj, struct ts_object *out, struct ts_field_errors *errs,
                     struct ts_err *err);

enum ts_decode_flags {
    /* Pod templates keep no raw copy (ts_pod_template.raw stays NULL): for
     * an object decoded to be read, never encoded back.  The controller's
     * feed decodes every Workload event so, and the copy would be a large
     * part of the decode. */
    TS_DECODE_NO_RAW = 1 << 0,
};

/* ts_object_decode() with enum ts_decode_flags. */
int ts_object_decode_flags(const cJSON *obj, unsigned flags, struct ts_object *out,
                           struct ts_field_errors *errs, struct ts_err *err);

/* Runs the kind's create validation. */
void ts_object_validate(const struct ts_object *o, struct ts_field_errors *errs);

/* Runs the kind's update validation of nw against old (the stored object),
 * the rules the validating webhook applies on UPDATE; a kind without
 * update rules gets its create validation on nw.  old and nw are of one
 * kind. */
void ts_object_validate_update(const struct ts_object *old, const struct ts_object *nw,
                               struct ts_field_errors *errs);

/* The object's metadata. Borrowed. */
const struct ts_object_meta *ts_object_meta(const struct ts_object *o);

void ts_object_release(struct ts_object *o);

#endif
