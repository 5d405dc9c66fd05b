/*
 * webhook_job.c - Kueue's job webhooks (pkg/controller/jobframework
 * base_webhook.go, defaults.go, validation.go; jobs/job/job_webhook.go)
 * for batch/v1 Job, the Kubeflow jobs (kubeflow.org/v1 PyTorchJob, TFJob,
 * XGBoostJob, PaddleJob, JAXJob, kubeflow.org/v2beta1 MPIJob) and
 * jobset.x-k8s.io/v1alpha2 JobSet (jobs/jobset/jobset_webhook.go: the
 * common rules only, its topology checks being TAS's); KubeRay's ray.io/v1
 * RayJob and RayCluster (their own rules: webhook_ray.c); Kubeflow
 * Trainer's trainer.kubeflow.org/v1alpha1 TrainJob (jobs/trainjob/
 * trainjob_webhook.go: the common rules, and on create Kueue's
 * spec.runtimePatches entry, manager kueue.x-k8s.io/manager, whose
 * template.metadata.labels carry the queue name when the TrainJob is
 * suspended for a queue); and Kueue's pod webhook
 * (pkg/controller/jobs/pod/pod_webhook.go) for core/v1 Pods.
 *
 * Mutating (CREATE): queue-name "default" when the namespace has that
 * LocalQueue; suspend (Job, JobSet, RayJob and RayCluster spec.suspend,
 * Kubeflow spec.runPolicy.suspend)
 * when the job has a queue name - the label, or the legacy annotation the
 * customer's seeds use - or manageJobsWithoutQueueName is on, its
 * namespace is managed and no Kueue-managed owner controls it; and the
 * priority-class label "default" when that WorkloadPriorityClass exists
 * (gate WorkloadPriorityClassDefaulting), for jobs Turnstile manages.
 *
 * A Pod is "suspended" by marking it managed (api/pod.h
 * ts_pod_json_mark_managed(): label, finalizer, scheduling gate, role
 * hash), under the same conditions, and gets no priority-class default.
 *
 * Validating (CREATE, UPDATE): label/annotation syntax, then on UPDATE the
 * immutability rules while the job runs; for Pods also the pod-group
 * metadata.  Messages are Kueue's.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "api/config.h"
#include "api/jobworkload.h"
#include "api/names.h"
#include "json/json.h"
#include "util/parse.h"
#include "webhook/webhook_int.h"

#define PATH_LABELS      "metadata.labels"
#define PATH_ANNOTATIONS "metadata.annotations"

/* A job of either kind as the rules see it. */
struct jobview {
    const struct ts_object_meta *meta;
    int suspended;
    const struct ts_job *batch;   /* NULL unless a batch/v1 Job */
    const struct ts_pod *pod;     /* NULL unless a Pod */
    const struct ts_ray_job *ray; /* RayJob, RayCluster */
    int update;                   /* checked as the new side of an update */
};

static void view_of(const struct ts_object *o, struct jobview *v)
{
    memset(v, 0, sizeof(*v));
    v->meta = ts_object_meta(o);
    if (o->kind == TS_KIND_JOB) {
        v->batch = &o->u.job;
        v->suspended = ts_job_is_suspended(&o->u.job);
    } else if (o->kind == TS_KIND_JOBSET) {
        v->suspended = ts_jobset_is_suspended(&o->u.jobset);
    } else if (o->kind == TS_KIND_POD) {
        v->pod = &o->u.pod;
        v->suspended = ts_pod_is_suspended(&o->u.pod);
    } else if (TS_KIND_IS_RAY(o->kind)) {
        v->ray = &o->u.ray;
        v->suspended = ts_rayjob_is_suspended(&o->u.ray);
    } else if (o->kind == TS_KIND_TRAINJOB) {
        v->suspended = ts_trainjob_is_suspended(&o->u.trainjob);
    } else {
        v->suspended = ts_pytorchjob_is_suspended(&o->u.ptj);
    }
}

/* "metadata.labels[key]" into buf. */
static const char *key_path(char *buf, size_t n, const char *map, const char *key)
{
    int w = snprintf(buf, n, "%s[%s]", map, key);

    return (w > 0 && (size_t)w < n) ? buf : map;
}

/* The queue name and the field it came from (label wins). */
static const char *queue_name(const struct ts_object_meta *m, int *from_annotation)
{
    const char *q = ts_strmap_get(&m->labels, TS_LABEL_QUEUE_NAME);

    *from_annotation = 0;
    if (q && *q)
        return q;
    q = ts_strmap_get(&m->annotations, TS_LABEL_QUEUE_NAME);
    if (q && *q) {
        *from_annotation = 1;
        return q;
    }
    return "";
}

static const char *label(const struct ts_object_meta *m, const char *key)
{
    const char *v = ts_strmap_get(&m->labels, key);

    return v ? v : "";
}

/* Prebuilt workload name: the annotation wins (gate
 * WorkloadIdentifierAnnotations), else the label. */
static const char *prebuilt(const struct ts_object_meta *m, const char **map)
{
    const char *v = ts_strmap_get(&m->annotations, TS_LABEL_PREBUILT_WORKLOAD);

    *map = PATH_ANNOTATIONS;
    if (v)
        return v;
    *map = PATH_LABELS;
    v = ts_strmap_get(&m->labels, TS_LABEL_PREBUILT_WORKLOAD);
    return v ? v : "";
}

/* Go's strconv.Atoi as Kueue reports it: 0, or an error recorded. */
static int atoi_field(const char *s, const char *path, int64_t *v, struct ts_field_errors *errs)
{
    int rc = ts_parse_i64_c(s, v);

    if (rc == 0)
        return 0;
    ts_field_errors_add(errs, TS_FIELD_INVALID, path, s, 1, "strconv.Atoi: parsing \"%s\": %s", s,
                        rc == TS_EOVERFLOW ? "value out of range" : "invalid syntax");
    return -1;
}

/* --- create rules ------------------------------------------------------------ */

static void check_common_create(const struct ts_object_meta *m, struct ts_field_errors *errs)
{
    char path[160];
    const char *map;
    int ann;
    const char *q = queue_name(m, &ann);
    const char *pb = prebuilt(m, &map);
    int64_t v;

    if (*q)
        ts_names_dns1123_subdomain(
            q,
            key_path(path, sizeof(path), ann ? PATH_ANNOTATIONS : PATH_LABELS, TS_LABEL_QUEUE_NAME),
            errs);
    if (*pb)
        ts_names_dns1123_subdomain(
            pb, key_path(path, sizeof(path), map, TS_LABEL_PREBUILT_WORKLOAD), errs);
    if (ts_strmap_get(&m->labels, TS_LABEL_MAX_EXEC_TIME)) {
        key_path(path, sizeof(path), PATH_LABELS, TS_LABEL_MAX_EXEC_TIME);
        if (atoi_field(label(m, TS_LABEL_MAX_EXEC_TIME), path, &v, errs) == 0 && v <= 0) {
            char num[32];

            snprintf(num, sizeof(num), "%" PRId64, v);
            ts_field_errors_add(errs, TS_FIELD_INVALID, path, num, 0, "should be greater than 0");
        }
    }
}

static void check_min_parallelism(const struct ts_job *j, struct ts_field_errors *errs)
{
    const char *s = ts_strmap_get(&j->meta.annotations, TS_ANNOTATION_JOB_MIN_PARALLELISM);
    int32_t pods = ts_job_pod_count(j);
    char path[160], num[32];
    int64_t v;

    if (!s)
        return;
    key_path(path, sizeof(path), PATH_ANNOTATIONS, TS_ANNOTATION_JOB_MIN_PARALLELISM);
    if (atoi_field(s, path, &v, errs) != 0)
        return;
    if (v >= pods || v <= 0) {
        snprintf(num, sizeof(num), "%" PRId64, v);
        ts_field_errors_add(errs, TS_FIELD_INVALID, path, num, 0, "should be between 0 and %d",
                            (int)pods - 1);
    }
}

/* Go's strconv.ParseBool. */
static int parse_bool(const char *s, int *out)
{
    static const char *const t[] = {"1", "t", "T", "true", "True", "TRUE"};
    static const char *const f[] = {"0", "f", "F", "false", "False", "FALSE"};

    for (size_t i = 0; i < 6; i++) {
        if (strcmp(s, t[i]) == 0 || strcmp(s, f[i]) == 0) {
            *out = strcmp(s, t[i]) == 0;
            return 0;
        }
    }
    return -1;
}

static void check_sync_completions(const struct ts_job *j, struct ts_field_errors *errs)
{
    const char *s =
        ts_strmap_get(&j->meta.annotations, TS_ANNOTATION_COMPLETIONS_EQUAL_PARALLELISM);
    int32_t par = j->parallelism.set ? j->parallelism.v : 1;
    int32_t comp = j->completions.set ? j->completions.v : 1;
    char path[160];
    int on;

    if (!s)
        return;
    key_path(path, sizeof(path), PATH_ANNOTATIONS, TS_ANNOTATION_COMPLETIONS_EQUAL_PARALLELISM);
    if (parse_bool(s, &on) != 0) {
        ts_field_errors_add(errs, TS_FIELD_INVALID, path, s, 1,
                            "strconv.ParseBool: parsing \"%s\": invalid syntax", s);
        return;
    }
    if (!on)
        return;
    if (!j->completion_mode || strcmp(j->completion_mode, "Indexed") != 0)
        ts_field_errors_add(errs, TS_FIELD_INVALID, path, s, 1,
                            "should not be enabled for NonIndexed jobs");
    if (par != comp)
        ts_field_errors_add(errs, TS_FIELD_INVALID, path, s, 1,
                            "should not be enabled when completions (%d) and parallelism (%d) "
                            "differ",
                            (int)comp, (int)par);
}

static void check_create(const struct ts_webhook *wh, const struct jobview *v,
                         struct ts_field_errors *errs)
{
    if (v->ray && ts__wh_validate_ray(wh, v->ray, errs))
        return; /* Kueue returns before its common checks */
    check_common_create(v->meta, errs);
    if (v->pod && !v->update)
        ts_pod_validate(v->pod, errs);
    if (v->batch) {
        check_min_parallelism(v->batch, errs);
        check_sync_completions(v->batch, errs);
    }
}

/* --- update rules -------------------------------------------------------------- */

/* apimachinery ValidateImmutableField for strings. */
static void immutable(const char *nv, const char *ov, const char *path,
                      struct ts_field_errors *errs)
{
    if (strcmp(nv, ov) != 0)
        ts_field_errors_add(errs, TS_FIELD_INVALID, path, nv, 1, "field is immutable");
}

static void check_queue_update(const struct ts_webhook *wh, const char *ns,
                               const struct jobview *ov, const struct jobview *nv,
                               struct ts_field_errors *errs)
{
    int oann, nann;
    const char *oq = queue_name(ov->meta, &oann);
    const char *nq = queue_name(nv->meta, &nann);
    char path[160];
    int use_ann = *nq ? nann : oann;

    key_path(path, sizeof(path), use_ann ? PATH_ANNOTATIONS : PATH_LABELS, TS_LABEL_QUEUE_NAME);
    if (!nv->suspended)
        immutable(nq, oq, path, errs);
    if (*oq && !*nq && wh->opts.lookup.local_queue_exists &&
        wh->opts.lookup.local_queue_exists(wh->opts.lookup.ctx, ns, "default"))
        ts_field_errors_add(errs, TS_FIELD_INVALID, path, "", 1,
                            "queue-name must not be empty in namespace with default queue");
}

static void check_priority_update(const struct jobview *ov, const struct jobview *nv,
                                  struct ts_field_errors *errs)
{
    const char *op = label(ov->meta, TS_LABEL_PRIORITY_CLASS);
    const char *np = label(nv->meta, TS_LABEL_PRIORITY_CLASS);
    char path[160];

    key_path(path, sizeof(path), PATH_LABELS, TS_LABEL_PRIORITY_CLASS);
    if (!nv->suspended && !*op && *np)
        ts_field_errors_add(errs, TS_FIELD_FORBIDDEN, path, NULL, 0,
                            "WorkloadPriorityClass cannot be added to a non-suspended workload");
    if (*op && !*np)
        ts_field_errors_add(errs, TS_FIELD_FORBIDDEN, path, NULL, 0,
                            "WorkloadPriorityClass cannot be removed from a workload");
}

static void check_running_update(const struct jobview *ov, const struct jobview *nv,
                                 struct ts_field_errors *errs)
{
    const char *omap, *nmap;
    const char *opb = prebuilt(ov->meta, &omap);
    const char *npb = prebuilt(nv->meta, &nmap);
    char path[160];

    if (nv->suspended)
        return;
    immutable(npb, opb, key_path(path, sizeof(path), nmap, TS_LABEL_PREBUILT_WORKLOAD), errs);
    immutable(label(nv->meta, TS_LABEL_MAX_EXEC_TIME), label(ov->meta, TS_LABEL_MAX_EXEC_TIME),
              key_path(path, sizeof(path), PATH_LABELS, TS_LABEL_MAX_EXEC_TIME), errs);
}

static const char *annotation(const struct ts_object_meta *m, const char *key)
{
    const char *v = ts_strmap_get(&m->annotations, key);

    return v ? v : "";
}

static void check_batch_update(const struct ts_webhook *wh, const struct ts_job *oj,
                               const struct ts_job *nj, struct ts_field_errors *errs)
{
    int32_t op = oj->parallelism.set ? oj->parallelism.v : 1;
    int32_t np = nj->parallelism.set ? nj->parallelism.v : 1;
    char path[160];

    if (wh->opts.partial_admission &&
        ts_strmap_get(&oj->meta.annotations, TS_ANNOTATION_JOB_MIN_PARALLELISM) &&
        !ts_job_is_suspended(oj) && op != np)
        ts_field_errors_add(errs, TS_FIELD_FORBIDDEN, "spec.parallelism", NULL, 0,
                            "cannot change when partial admission is enabled and the job is "
                            "not suspended");
    immutable(annotation(&nj->meta, TS_ANNOTATION_ELASTIC_JOB),
              annotation(&oj->meta, TS_ANNOTATION_ELASTIC_JOB),
              key_path(path, sizeof(path), PATH_ANNOTATIONS, TS_ANNOTATION_ELASTIC_JOB), errs);
}

static void check_update(const struct ts_webhook *wh, const char *ns, const struct jobview *ov,
                         const struct jobview *nv, struct ts_field_errors *errs)
{
    check_create(wh, nv, errs);
    if (ov->pod && nv->pod)
        ts_pod_validate_update(ov->pod, nv->pod, errs);
    check_queue_update(wh, ns, ov, nv, errs);
    check_running_update(ov, nv, errs);
    check_priority_update(ov, nv, errs);
    if (ov->batch && nv->batch)
        check_batch_update(wh, ov->batch, nv->batch, errs);
}

/* Decodes obj as kind; denies rs (400) and returns -1 when it is not. */
static int decode_job(const cJSON *obj, enum ts_kind kind, struct ts_object *o,
                      struct ts_field_errors *errs, struct ts__wh_resp *rs)
{
    struct ts_err err = {0};

    if (ts_object_kind(obj) != kind) {
        ts__wh_deny(rs, 400, "BadRequest", "expected a %s", ts_kind_name(kind));
        return -1;
    }
    if (ts_object_decode(obj, o, errs, &err) != 0) {
        ts__wh_deny(rs, 400, "BadRequest", "%s", err.msg);
        return -1;
    }
    return 0;
}

void ts__wh_validate_job(const struct ts_webhook *wh, const struct ts__wh_req *rq,
                         enum ts_kind kind, struct ts__wh_resp *rs)
{
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT, ignored = TS_FIELD_ERRORS_INIT;
    struct ts_object nw, old;
    struct jobview nv, ov;
    int update = ts__wh_op_is(rq, "UPDATE");

    if (!update && !ts__wh_op_is(rq, "CREATE"))
        return;
    if (decode_job(rq->object, kind, &nw, &errs, rs) != 0)
        goto out;
    view_of(&nw, &nv);
    nv.update = update;
    if (update && nv.ray && !ts__wh_ray_managed(wh, nv.ray)) {
        /* Kueue's Ray webhooks check an update of a managed job only */
    } else if (update && decode_job(rq->old_object, kind, &old, &ignored, rs) == 0) {
        view_of(&old, &ov);
        check_update(wh, ts__wh_namespace(rq), &ov, &nv, &errs);
        ts_object_release(&old);
    } else if (!update) {
        check_create(wh, &nv, &errs);
    }
    if (rs->allowed)
        ts__wh_deny_errs(rs, &errs);
    ts_object_release(&nw);
out:
    ts_field_errors_release(&errs);
    ts_field_errors_release(&ignored);
}

/* --- mutation ------------------------------------------------------------------ */

int ts__wh_owner_managed(const struct ts_webhook *wh, const cJSON *obj)
{
    const cJSON *refs = ts_json_get(obj, "metadata.ownerReferences");
    const cJSON *r;

    cJSON_ArrayForEach(r, refs)
    {
        const char *av = ts_json_get_string(r, "apiVersion");
        const char *k = ts_json_get_string(r, "kind");

        if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "controller")) || !av || !k)
            continue;
        if ((strncmp(av, "batch/", 6) == 0 && strcmp(k, "Job") == 0) ||
            (strncmp(av, "kubeflow.org/", 13) == 0 && ts_kf_kind_of(k)) ||
            (strncmp(av, TS_JOBSET_GROUP "/", strlen(TS_JOBSET_GROUP) + 1) == 0 &&
             strcmp(k, TS_JOBSET_KIND) == 0) ||
            (strncmp(av, "ray.io/", 7) == 0 && TS_KIND_IS_RAY(ts_object_kind(r))) ||
            ts_object_kind(r) == TS_KIND_TRAINJOB ||
            ts_config_external_framework(wh->opts.external_frameworks, av, k))
            return 1;
    }
    return 0;
}

static const char *jlabel(const cJSON *obj, const char *key)
{
    char path[160];
    const char *v = ts_json_get_string(obj, key_path(path, sizeof(path), PATH_LABELS, key));

    return v ? v : "";
}

static int has_queue_name(const cJSON *obj)
{
    char path[160];
    const char *a = ts_json_get_string(
        obj, key_path(path, sizeof(path), PATH_ANNOTATIONS, TS_LABEL_QUEUE_NAME));

    return *jlabel(obj, TS_LABEL_QUEUE_NAME) || (a && *a);
}

/* The queue name: the label, else the legacy annotation.  Borrowed. */
static const char *queue_of(const cJSON *obj)
{
    char path[160];

    if (*jlabel(obj, TS_LABEL_QUEUE_NAME))
        return jlabel(obj, TS_LABEL_QUEUE_NAME);
    return ts_json_get_string(obj,
                              key_path(path, sizeof(path), PATH_ANNOTATIONS, TS_LABEL_QUEUE_NAME));
}

static void set_label(cJSON *obj, const char *key, const char *value)
{
    char path[160];

    ts_json_set_string(obj, key_path(path, sizeof(path), PATH_LABELS, key), value, NULL);
}

int ts__wh_lq_exists(const struct ts_webhook *wh, const char *ns, const char *name)
{
    const struct ts_webhook_lookup *l = &wh->opts.lookup;

    return l->local_queue_exists && l->local_queue_exists(l->ctx, ns, name);
}

static int call_wpc(const struct ts_webhook *wh, const char *name)
{
    const struct ts_webhook_lookup *l = &wh->opts.lookup;

    return l->wpc_exists && l->wpc_exists(l->ctx, name);
}

/* Kueue's TrainJob runtime patch, added on every create (once); with the
 * job suspended for queue `queue`, its template.metadata.labels name it. */
static void trainjob_patch(cJSON *obj, const char *queue)
{
    cJSON *p = ts_trainjob_json_patch(obj, TS_TRAINJOB_PATCH_MANAGER), *list;

    if (!p) {
        list = ts_json_get(obj, "spec.runtimePatches");
        if (!cJSON_IsArray(list) &&
            ts_json_set(obj, "spec.runtimePatches", (list = cJSON_CreateArray()), NULL))
            return; /* spec is not an object: the API server refuses the job */
        p = cJSON_CreateObject();
        cJSON_AddStringToObject(p, "manager", TS_TRAINJOB_PATCH_MANAGER);
        ts_json_set(p, "trainingRuntimeSpec.template.spec", cJSON_CreateObject(), NULL);
        cJSON_AddItemToArray(list, p);
    }
    if (queue)
        ts_json_set_string(p,
                           "trainingRuntimeSpec.template.metadata.labels[" TS_LABEL_QUEUE_NAME "]",
                           queue, NULL);
}

static void default_job(const struct ts_webhook *wh, const char *ns, enum ts_kind kind, cJSON *obj)
{
    const char *suspend = TS_KIND_IS_KUBEFLOW(kind) ? "spec.runPolicy.suspend" : "spec.suspend";
    int trainjob = kind == TS_KIND_TRAINJOB;

    if (kind == TS_KIND_POD &&
        ts_json_get(obj, "metadata.annotations[" TS_POD_ANNOTATION_SUSPENDED_BY "]")) {
        /* a managed Deployment's Pod: gated, without the finalizer (Kueue's
         * SkipFinalizersForPodsSuspendedByParent, on by default) */
        ts_pod_json_mark_managed(obj, 0);
        return;
    }
    if (kind == TS_KIND_POD && !wh->opts.manage_pods)
        return;
    if (ts__wh_owner_managed(wh, obj) || !ts__wh_namespace_managed(wh, ns)) {
        if (trainjob)
            trainjob_patch(obj, NULL);
        return;
    }
    if (!has_queue_name(obj) && ts__wh_lq_exists(wh, ns, "default"))
        set_label(obj, TS_LABEL_QUEUE_NAME, "default");
    if (trainjob)
        trainjob_patch(obj, has_queue_name(obj) ? queue_of(obj) : NULL);
    if (!has_queue_name(obj) && !wh->opts.manage_jobs_without_queue_name)
        return;
    if (kind == TS_KIND_POD) {
        ts_pod_json_mark_managed(obj, 1);
        return;
    }
    if (wh->opts.wpc_defaulting && !*jlabel(obj, TS_LABEL_PRIORITY_CLASS) &&
        call_wpc(wh, "default"))
        set_label(obj, TS_LABEL_PRIORITY_CLASS, "default");
    if (!cJSON_IsTrue(ts_json_get(obj, suspend)))
        ts_json_set(obj, suspend, cJSON_CreateTrue(), NULL);
}

void ts__wh_mutate_job(const struct ts_webhook *wh, const struct ts__wh_req *rq, enum ts_kind kind,
                       struct ts__wh_resp *rs)
{
    cJSON *obj;

    if (!ts__wh_op_is(rq, "CREATE"))
        return;
    if (ts_object_kind(rq->object) != kind) {
        ts__wh_deny(rs, 400, "BadRequest", "expected a %s", ts_kind_name(kind));
        return;
    }
    obj = cJSON_Duplicate(rq->object, 1);
    default_job(wh, ts__wh_namespace(rq), kind, obj);
    ts__wh_set_patch(rs, rq->object, obj);
    cJSON_Delete(obj);
}
