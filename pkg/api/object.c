#include "api/object.h"

#include "api/convert.h"
#include "util/log.h"

#include <string.h>

static const struct {
    enum ts_kind kind;
    const char *group; /* apiVersion prefix before '/', "" for core */
    const char *name;
} kinds[] = {
    {TS_KIND_RESOURCE_FLAVOR, TS_KUEUE_GROUP, "ResourceFlavor"},
    {TS_KIND_CLUSTER_QUEUE, TS_KUEUE_GROUP, "ClusterQueue"},
    {TS_KIND_COHORT, TS_KUEUE_GROUP, "Cohort"},
    {TS_KIND_LOCAL_QUEUE, TS_KUEUE_GROUP, "LocalQueue"},
    {TS_KIND_WORKLOAD, TS_KUEUE_GROUP, "Workload"},
    {TS_KIND_WORKLOAD_PRIORITY_CLASS, TS_KUEUE_GROUP, "WorkloadPriorityClass"},
    {TS_KIND_PRIORITY_CLASS, "scheduling.k8s.io", "PriorityClass"},
    {TS_KIND_NAMESPACE, "", "Namespace"},
    {TS_KIND_JOB, "batch", "Job"},
    {TS_KIND_PYTORCH_JOB, "kubeflow.org", "PyTorchJob"},
    {TS_KIND_TF_JOB, "kubeflow.org", "TFJob"},
    {TS_KIND_MPI_JOB, "kubeflow.org", "MPIJob"},
    {TS_KIND_XGBOOST_JOB, "kubeflow.org", "XGBoostJob"},
    {TS_KIND_PADDLE_JOB, "kubeflow.org", "PaddleJob"},
    {TS_KIND_JAX_JOB, "kubeflow.org", "JAXJob"},
    {TS_KIND_JOBSET, TS_JOBSET_GROUP, TS_JOBSET_KIND},
    {TS_KIND_POD, "", "Pod"},
    {TS_KIND_RAY_JOB, "ray.io", "RayJob"},
    {TS_KIND_RAY_CLUSTER, "ray.io", "RayCluster"},
    {TS_KIND_TRAINJOB, TS_TRAINER_GROUP, TS_TRAINJOB_KIND},
};

#define N_KINDS (sizeof(kinds) / sizeof(kinds[0]))

static int group_matches(const char *api_version, const char *group)
{
    const char *slash = strchr(api_version, '/');
    size_t n = strlen(group);

    if (!n)
        return slash == NULL; /* core: "v1" */
    return slash && (size_t)(slash - api_version) == n && strncmp(api_version, group, n) == 0;
}

enum ts_kind ts_object_kind(const cJSON *obj)
{
    const cJSON *av = cJSON_GetObjectItemCaseSensitive(obj, "apiVersion");
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(obj, "kind");

    if (!cJSON_IsString(av) || !cJSON_IsString(k))
        return TS_KIND_UNKNOWN;
    for (size_t i = 0; i < N_KINDS; i++) {
        if (strcmp(k->valuestring, kinds[i].name) == 0 &&
            group_matches(av->valuestring, kinds[i].group))
            return kinds[i].kind;
    }
    return TS_KIND_UNKNOWN;
}

const char *ts_kind_name(enum ts_kind kind)
{
    for (size_t i = 0; i < N_KINDS; i++) {
        if (kinds[i].kind == kind)
            return kinds[i].name;
    }
    return "";
}

static void decode_kind(struct ts_dec *d, const cJSON *obj, struct ts_object *o)
{
    switch (o->kind) {
    case TS_KIND_RESOURCE_FLAVOR:
        ts_resource_flavor_init(&o->u.rf);
        ts_resource_flavor_decode(d, obj, &o->u.rf);
        break;
    case TS_KIND_CLUSTER_QUEUE:
        ts_cluster_queue_init(&o->u.cq);
        ts_cluster_queue_decode(d, obj, &o->u.cq);
        break;
    case TS_KIND_COHORT:
        ts_cohort_init(&o->u.cohort);
        ts_cohort_decode(d, obj, &o->u.cohort);
        break;
    case TS_KIND_LOCAL_QUEUE:
        ts_local_queue_init(&o->u.lq);
        ts_local_queue_decode(d, obj, &o->u.lq);
        break;
    case TS_KIND_WORKLOAD:
        ts_workload_init(&o->u.wl);
        ts_workload_decode(d, obj, &o->u.wl);
        break;
    case TS_KIND_WORKLOAD_PRIORITY_CLASS:
        ts_workload_priority_class_init(&o->u.wpc);
        ts_workload_priority_class_decode(d, obj, &o->u.wpc);
        break;
    case TS_KIND_PRIORITY_CLASS:
        ts_priority_class_init(&o->u.pc);
        ts_priority_class_decode(d, obj, &o->u.pc);
        break;
    case TS_KIND_NAMESPACE:
        ts_namespace_init(&o->u.ns);
        ts_namespace_decode(d, obj, &o->u.ns);
        break;
    case TS_KIND_JOB:
        ts_job_init(&o->u.job);
        ts_job_decode(d, obj, &o->u.job);
        break;
    case TS_KIND_PYTORCH_JOB:
    case TS_KIND_TF_JOB:
    case TS_KIND_MPI_JOB:
    case TS_KIND_XGBOOST_JOB:
    case TS_KIND_PADDLE_JOB:
    case TS_KIND_JAX_JOB:
        ts_pytorchjob_init(&o->u.ptj);
        ts_pytorchjob_decode(d, obj, &o->u.ptj);
        break;
    case TS_KIND_JOBSET:
        ts_jobset_init(&o->u.jobset);
        ts_jobset_decode(d, obj, &o->u.jobset);
        break;
    case TS_KIND_POD:
        ts_pod_init(&o->u.pod);
        ts_pod_decode(d, obj, &o->u.pod);
        break;
    case TS_KIND_RAY_JOB:
    case TS_KIND_RAY_CLUSTER:
        ts_rayjob_init(&o->u.ray);
        ts_rayjob_decode(d, obj, &o->u.ray);
        break;
    case TS_KIND_TRAINJOB:
        ts_trainjob_init(&o->u.trainjob);
        ts_trainjob_decode(d, obj, &o->u.trainjob);
        break;
    case TS_KIND_UNKNOWN:
        break;
    }
}

static const char *str_of(const cJSON *obj, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

    return cJSON_IsString(v) ? v->valuestring : "";
}

int ts_object_decode(const cJSON *obj, struct ts_object *out, struct ts_field_errors *errs,
                     struct ts_err *err)
{
    return ts_object_decode_flags(obj, 0, out, errs, err);
}

int ts_object_decode_flags(const cJSON *obj, unsigned flags, struct ts_object *out,
                           struct ts_field_errors *errs, struct ts_err *err)
{
    struct ts_dec d;
    cJSON *copy = NULL;
    int rc = 0;

    memset(out, 0, sizeof(*out));
    out->kind = ts_object_kind(obj);
    if (out->kind == TS_KIND_UNKNOWN)
        return ts_err_set(err, TS_EUNSUPPORTED,
                          "unsupported object: apiVersion \"%s\", kind \"%s\"",
                          str_of(obj, "apiVersion"), str_of(obj, "kind"));
    if (group_matches(str_of(obj, "apiVersion"), TS_KUEUE_GROUP) &&
        strcmp(str_of(obj, "apiVersion"), TS_KUEUE_V1BETA2) != 0) {
        copy = cJSON_Duplicate(obj, 1);
        rc = ts_convert_kueue(copy, TS_KUEUE_V1BETA2, err);
        obj = copy;
    }
    if (!rc) {
        ts_dec_init(&d, errs);
        d.flags = flags;
        decode_kind(&d, obj, out);
    } else {
        out->kind = TS_KIND_UNKNOWN;
    }
    cJSON_Delete(copy);
    return rc;
}

void ts_object_validate(const struct ts_object *o, struct ts_field_errors *errs)
{
    switch (o->kind) {
    case TS_KIND_RESOURCE_FLAVOR:
        ts_resource_flavor_validate(&o->u.rf, errs);
        break;
    case TS_KIND_CLUSTER_QUEUE:
        ts_cluster_queue_validate(&o->u.cq, errs);
        break;
    case TS_KIND_COHORT:
        ts_cohort_validate(&o->u.cohort, errs);
        break;
    case TS_KIND_LOCAL_QUEUE:
        ts_local_queue_validate(&o->u.lq, errs);
        break;
    case TS_KIND_WORKLOAD:
        ts_workload_validate(&o->u.wl, errs);
        break;
    case TS_KIND_WORKLOAD_PRIORITY_CLASS:
        ts_workload_priority_class_validate(&o->u.wpc, errs);
        break;
    case TS_KIND_PRIORITY_CLASS:
        ts_priority_class_validate(&o->u.pc, errs);
        break;
    case TS_KIND_NAMESPACE:
        ts_namespace_validate(&o->u.ns, errs);
        break;
    default: /* the job kinds: the webhook validates them */
        break;
    }
}

void ts_object_validate_update(const struct ts_object *old, const struct ts_object *nw,
                               struct ts_field_errors *errs)
{
    TS_BUG_ON(old->kind != nw->kind);
    switch (nw->kind) {
    case TS_KIND_RESOURCE_FLAVOR:
        ts_resource_flavor_validate_update(&old->u.rf, &nw->u.rf, errs);
        break;
    case TS_KIND_CLUSTER_QUEUE:
        ts_cluster_queue_validate_update(&old->u.cq, &nw->u.cq, errs);
        break;
    case TS_KIND_COHORT:
        ts_cohort_validate_update(&old->u.cohort, &nw->u.cohort, errs);
        break;
    case TS_KIND_LOCAL_QUEUE:
        ts_local_queue_validate_update(&old->u.lq, &nw->u.lq, errs);
        break;
    case TS_KIND_WORKLOAD:
        ts_workload_validate_update(&old->u.wl, &nw->u.wl, errs);
        break;
    case TS_KIND_WORKLOAD_PRIORITY_CLASS:
        ts_workload_priority_class_validate_update(&old->u.wpc, &nw->u.wpc, errs);
        break;
    default:
        ts_object_validate(nw, errs);
        break;
    }
}

const struct ts_object_meta *ts_object_meta(const struct ts_object *o)
{
    switch (o->kind) {
    case TS_KIND_RESOURCE_FLAVOR:
        return &o->u.rf.meta;
    case TS_KIND_CLUSTER_QUEUE:
        return &o->u.cq.meta;
    case TS_KIND_COHORT:
        return &o->u.cohort.meta;
    case TS_KIND_LOCAL_QUEUE:
        return &o->u.lq.meta;
    case TS_KIND_WORKLOAD:
        return &o->u.wl.meta;
    case TS_KIND_WORKLOAD_PRIORITY_CLASS:
        return &o->u.wpc.meta;
    case TS_KIND_PRIORITY_CLASS:
        return &o->u.pc.meta;
    case TS_KIND_NAMESPACE:
        return &o->u.ns.meta;
    case TS_KIND_JOB:
        return &o->u.job.meta;
    case TS_KIND_PYTORCH_JOB:
    case TS_KIND_TF_JOB:
    case TS_KIND_MPI_JOB:
    case TS_KIND_XGBOOST_JOB:
    case TS_KIND_PADDLE_JOB:
    case TS_KIND_JAX_JOB:
        return &o->u.ptj.meta;
    case TS_KIND_JOBSET:
        return &o->u.jobset.meta;
    case TS_KIND_POD:
        return &o->u.pod.meta;
    case TS_KIND_RAY_JOB:
    case TS_KIND_RAY_CLUSTER:
        return &o->u.ray.meta;
    case TS_KIND_TRAINJOB:
        return &o->u.trainjob.meta;
    case TS_KIND_UNKNOWN:
        break;
    }
    return &o->u.rf.meta; /* zeroed for unknown kinds */
}

void ts_object_release(struct ts_object *o)
{
    switch (o->kind) {
    case TS_KIND_RESOURCE_FLAVOR:
        ts_resource_flavor_release(&o->u.rf);
        break;
    case TS_KIND_CLUSTER_QUEUE:
        ts_cluster_queue_release(&o->u.cq);
        break;
    case TS_KIND_COHORT:
        ts_cohort_release(&o->u.cohort);
        break;
    case TS_KIND_LOCAL_QUEUE:
        ts_local_queue_release(&o->u.lq);
        break;
    case TS_KIND_WORKLOAD:
        ts_workload_release(&o->u.wl);
        break;
    case TS_KIND_WORKLOAD_PRIORITY_CLASS:
        ts_workload_priority_class_release(&o->u.wpc);
        break;
    case TS_KIND_PRIORITY_CLASS:
        ts_priority_class_release(&o->u.pc);
        break;
    case TS_KIND_NAMESPACE:
        ts_namespace_release(&o->u.ns);
        break;
    case TS_KIND_JOB:
        ts_job_release(&o->u.job);
        break;
    case TS_KIND_PYTORCH_JOB:
    case TS_KIND_TF_JOB:
    case TS_KIND_MPI_JOB:
    case TS_KIND_XGBOOST_JOB:
    case TS_KIND_PADDLE_JOB:
    case TS_KIND_JAX_JOB:
        ts_pytorchjob_release(&o->u.ptj);
        break;
    case TS_KIND_JOBSET:
        ts_jobset_release(&o->u.jobset);
        break;
    case TS_KIND_POD:
        ts_pod_release(&o->u.pod);
        break;
    case TS_KIND_RAY_JOB:
    case TS_KIND_RAY_CLUSTER:
        ts_rayjob_release(&o->u.ray);
        break;
    case TS_KIND_TRAINJOB:
        ts_trainjob_release(&o->u.trainjob);
        break;
    case TS_KIND_UNKNOWN:
        break;
    }
    o->kind = TS_KIND_UNKNOWN;
}
