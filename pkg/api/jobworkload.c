#include "api/jobworkload.h"

#include "api/names.h"
#include "json/json.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/parse.h"

#include <ctype.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PREFIX 247

char *ts_jobworkload_name(const char *kind, const char *group, const char *name, const char *uid)
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    struct ts_buf in = TS_BUF_INIT, out = TS_BUF_INIT;
    size_t start;

    ts_buf_addf(&in, "%s\n%s\n%s\n%s", kind, group, name, uid ? uid : "");
    EVP_Digest(in.ptr, in.len, md, &mdlen, EVP_sha1(), NULL);
    ts_buf_release(&in);
    for (const char *k = kind; *k; k++)
        ts_buf_addc(&out, (char)tolower((unsigned char)*k));
    ts_buf_addc(&out, '-');
    ts_buf_adds(&out, name);
    if (out.len > MAX_PREFIX) {
        out.len = MAX_PREFIX;
        out.ptr[out.len] = '\0';
    }
    start = out.len;
    ts_buf_addf(&out, "-%02x%02x%02x", md[0], md[1], md[2]);
    out.len = start + 6; /* "-" + 5 hex digits */
    out.ptr[out.len] = '\0';
    return ts_buf_take(&out);
}

/* Resolves the workload priority (Kueue's
 * pkg/controller/jobframework/reconciler.go ExtractPriority()). */
static int resolve_priority(const struct ts_object_meta *jm, const char *pod_class,
                            const struct ts_priority_lookup *prio, struct ts_workload *w,
                            struct ts_err *err)
{
    /* the label wins; older YAML (our seeds) puts the key in an annotation */
    const char *wpc = ts_strmap_get(&jm->labels, TS_LABEL_PRIORITY_CLASS);
    const char *name = NULL;
    int32_t value = 0;
    int found;

    if (!wpc)
        wpc = ts_strmap_get(&jm->annotations, TS_LABEL_PRIORITY_CLASS);
    if (wpc) {
        if (!prio || !prio->wpc || !prio->wpc(prio->ctx, wpc, &value))
            return ts_err_set(err, TS_ENOTFOUND, "workloadPriorityClass \"%s\" not found", wpc);
        w->spec.priority_class_ref.set = 1;
        w->spec.priority_class_ref.group = ts_xstrdup(TS_WL_PRIO_GROUP_KUEUE);
        w->spec.priority_class_ref.kind = ts_xstrdup(TS_WL_PRIO_KIND_WPC);
        w->spec.priority_class_ref.name = ts_xstrdup(wpc);
        w->spec.priority.set = 1;
        w->spec.priority.v = value;
        return 0;
    }
    if (pod_class && pod_class[0])
        found = prio && prio->pc && prio->pc(prio->ctx, (name = pod_class), &value);
    else
        found = prio && prio->default_pc && prio->default_pc(prio->ctx, &name, &value);
    if (!found)
        return 0; /* priority 0, no class */
    w->spec.priority_class_ref.set = 1;
    w->spec.priority_class_ref.group = ts_xstrdup(TS_WL_PRIO_GROUP_SCHEDULING);
    w->spec.priority_class_ref.kind = ts_xstrdup(TS_WL_PRIO_KIND_PC);
    w->spec.priority_class_ref.name = ts_xstrdup(name);
    w->spec.priority.set = 1;
    w->spec.priority.v = value;
    return 0;
}

/* Kueue's MaximumExecutionTimeSecondsForObject: the label as a positive
 * int32, else unset (a bad value is ignored, as Kueue does). */
static void max_exec_time(const struct ts_object_meta *jm, struct ts_opt_i32 *out)
{
    const char *v = ts_strmap_get(&jm->labels, TS_LABEL_MAX_EXEC_TIME_SECONDS);
    int64_t n;

    out->set = 0;
    if (v && !ts_parse_i64_c(v, &n) && n > 0 && n <= INT32_MAX) {
        out->set = 1;
        out->v = (int32_t)n;
    }
}

/* Metadata common to every job kind. */
static int common_meta(const struct ts_object_meta *jm, const char *api_version, const char *kind,
                       const char *group, struct ts_workload *w, struct ts_err *err)
{
    struct ts_owner_ref *ref;
    const char *queue = ts_job_meta_queue_name(jm);

    if (!jm->name)
        return ts_err_set(err, TS_EINVAL, "%s: metadata.name: Required value", kind);
    w->meta.name = ts_jobworkload_name(kind, group, jm->name, jm->uid);
    w->meta.namespace_ = ts_xstrdup(jm->namespace_ ? jm->namespace_ : "default");
    w->meta.owner_refs = ref = ts_xcalloc(1, sizeof(*ref));
    w->meta.n_owner_refs = 1;
    ref->api_version = ts_xstrdup(api_version);
    ref->kind = ts_xstrdup(kind);
    ref->name = ts_xstrdup(jm->name);
    ref->uid = ts_xstrdup(jm->uid ? jm->uid : "");
    ref->controller.set = ref->block_owner_deletion.set = 1;
    ref->controller.v = ref->block_owner_deletion.v = 1;
    ts_strlist_push(&w->meta.finalizers, TS_WL_FINALIZER);
    if (jm->uid && ts_names_is_label_value(jm->uid))
        ts_strmap_set(&w->meta.labels, TS_LABEL_JOB_UID, jm->uid);
    if (queue)
        w->spec.queue_name = ts_xstrdup(queue);
    max_exec_time(jm, &w->spec.maximum_execution_time_seconds);
    return 0;
}

static int podset_by_name(const void *a, const void *b)
{
    return strcmp(((const struct ts_podset *)a)->name, ((const struct ts_podset *)b)->name);
}

static const char *const job_template_labels[] = {"controller-uid", "job-name",
                                                  "batch.kubernetes.io/controller-uid", NULL};

/* Copies the job's template into the pod set, minus the labels the job
 * controller adds (Kueue compares templates without them). */
static void copy_template(struct ts_pod_template *dst, const struct ts_pod_template *src,
                          int strip_job_labels)
{
    cJSON *labels;

    ts_pod_template_copy(dst, src);
    if (!strip_job_labels)
        return;
    labels = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(dst->raw, "metadata"), "labels");
    for (size_t i = 0; job_template_labels[i]; i++) {
        ts_strmap_remove(&dst->labels, job_template_labels[i]);
        if (labels)
            cJSON_DeleteItemFromObjectCaseSensitive(labels, job_template_labels[i]);
    }
}

int ts_jobworkload_from_job(const struct ts_job *job, const struct ts_priority_lookup *prio,
                            struct ts_workload *out, struct ts_err *err)
{
    const char *minp = ts_strmap_get(&job->meta.annotations, TS_ANNOTATION_JOB_MIN_PARALLELISM);
    struct ts_podset *ps;
    int64_t min = 0;
    int rc;

    ts_workload_release(out);
    if ((rc = common_meta(&job->meta, "batch/v1", "Job", "batch", out, err)))
        return rc;
    ps = ts_workload_add_podset(out, TS_WL_DEFAULT_PODSET);
    ps->count = ts_job_pod_count(job);
    copy_template(&ps->template, &job->template, 1);
    if (minp && ts_parse_i64_c(minp, &min) == 0 && min > 0 && min < ps->count) {
        ps->min_count.set = 1;
        ps->min_count.v = (int32_t)min;
    }
    out->spec.active.set = 1;
    out->spec.active.v = 1;
    return resolve_priority(&job->meta, job->template.priority_class_name, prio, out, err);
}

void ts_jobworkload_copy_labels(const struct ts_object_meta *job, const struct ts_strlist *keys,
                                struct ts_workload *wl)
{
    for (size_t i = 0; keys && i < keys->n; i++) {
        const char *v = ts_strmap_get(&job->labels, keys->items[i]);

        if (v)
            ts_strmap_set(&wl->meta.labels, keys->items[i], v);
    }
}

int ts_jobworkload_from_pytorchjob(const struct ts_pytorch_job *job,
                                   const struct ts_priority_lookup *prio, struct ts_workload *out,
                                   struct ts_err *err)
{
    const char *pod_class = job->run_policy.priority_class;
    int rc;

    ts_workload_release(out);
    if ((rc = common_meta(&job->meta, job->kf->api_version, job->kf->kind, "kubeflow.org", out,
                          err)))
        return rc;
    for (size_t i = 0; i < job->n_replicas; i++) {
        const struct ts_replica_spec *r = &job->replicas[i];
        char name[64];
        struct ts_podset *ps;
        size_t j;

        for (j = 0; r->type[j] && j + 1 < sizeof(name); j++)
            name[j] = (char)tolower((unsigned char)r->type[j]);
        name[j] = '\0';
        ps = ts_workload_add_podset(out, name);
        ps->count = r->replicas;
        copy_template(&ps->template, &r->template, 0);
        if (!pod_class && r->template.priority_class_name)
            pod_class = r->template.priority_class_name;
    }
    out->spec.active.set = 1;
    out->spec.active.v = 1;
    return resolve_priority(&job->meta, pod_class, prio, out, err);
}

int ts_jobworkload_from_pod(const struct ts_pod *pod, const struct ts_priority_lookup *prio,
                            struct ts_workload *out, struct ts_err *err)
{
    struct ts_podset *ps;
    int rc;

    ts_workload_release(out);
    if ((rc = common_meta(&pod->meta, TS_POD_API_VERSION, TS_POD_KIND, "", out, err)))
        return rc;
    ps = ts_workload_add_podset(out, TS_WL_DEFAULT_PODSET);
    ps->count = 1;
    ts_pod_template_copy(&ps->template, &pod->template);
    out->spec.active.set = 1;
    out->spec.active.v = 1;
    return resolve_priority(&pod->meta, pod->template.priority_class_name, prio, out, err);
}

/* Kueue's role of a pod in its group: its role-hash annotation (the
 * webhook writes it), else computed from its spec. */
static void role_of(const struct ts_pod *p, char out[9])
{
    const char *h = ts_strmap_get(&p->meta.annotations, TS_POD_ANNOTATION_ROLE_HASH);

    if (h && *h) {
        snprintf(out, 9, "%s", h);
        return;
    }
    if (ts_pod_role_hash(p->template.raw, out))
        snprintf(out, 9, "%s", "unknown");
}

int ts_jobworkload_from_pod_group(const struct ts_pod *pods, size_t n, const char *group,
                                  const struct ts_priority_lookup *prio, struct ts_workload *out,
                                  struct ts_err *err)
{
    const char *pod_class = NULL;
    int rc;

    ts_workload_release(out);
    if (!n)
        return ts_err_set(err, TS_EINVAL, "pod group \"%s\": no pods", group);
    if ((rc = common_meta(&pods[0].meta, TS_POD_API_VERSION, TS_POD_KIND, "", out, err)))
        return rc;
    free(out->meta.name);
    out->meta.name = ts_xstrdup(group);
    for (size_t i = 0; i < out->meta.n_owner_refs; i++) {
        struct ts_owner_ref *r = &out->meta.owner_refs[i];

        free(r->api_version), free(r->kind), free(r->name), free(r->uid);
    }
    free(out->meta.owner_refs);
    out->meta.owner_refs = ts_xcalloc(n, sizeof(*out->meta.owner_refs));
    out->meta.n_owner_refs = n;
    for (size_t i = 0; i < n; i++) { /* every member owns it (not as controller) */
        struct ts_owner_ref *r = &out->meta.owner_refs[i];
        char role[9];
        struct ts_podset *ps;
        size_t j;

        r->api_version = ts_xstrdup(TS_POD_API_VERSION);
        r->kind = ts_xstrdup(TS_POD_KIND);
        r->name = ts_xstrdup(pods[i].meta.name ? pods[i].meta.name : "");
        r->uid = ts_xstrdup(pods[i].meta.uid ? pods[i].meta.uid : "");
        role_of(&pods[i], role);
        for (ps = NULL, j = 0; j < out->spec.n_podsets && !ps; j++)
            ps = strcmp(out->spec.podsets[j].name, role) ? NULL : &out->spec.podsets[j];
        if (ps) {
            ps->count++;
            continue;
        }
        ps = ts_workload_add_podset(out, role);
        ps->count = 1;
        ts_pod_template_copy(&ps->template, &pods[i].template);
        if (!pod_class && pods[i].template.priority_class_name)
            pod_class = pods[i].template.priority_class_name;
    }
    if (out->spec.n_podsets > 8)
        return ts_err_set(err, TS_EINVAL,
                          "pod group \"%s\": more than 8 different pod roles in the group", group);
    qsort(out->spec.podsets, out->spec.n_podsets, sizeof(*out->spec.podsets), podset_by_name);
    ts_strmap_set(&out->meta.annotations, TS_POD_ANNOTATION_IS_GROUP, "true");
    out->spec.active.set = 1;
    out->spec.active.v = 1;
    return resolve_priority(&pods[0].meta, pod_class, prio, out, err);
}

int ts_jobworkload_from_statefulset(const cJSON *sts, const struct ts_priority_lookup *prio,
                                    struct ts_workload *out, struct ts_err *err)
{
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_object_meta meta;
    struct ts_podset *ps;
    const cJSON *r = ts_json_get(sts, "spec.replicas");
    cJSON *tmpl = cJSON_CreateObject();
    struct ts_dec d;
    int rc;

    ts_workload_release(out);
    ts_dec_init(&d, &errs);
    ts_object_meta_init(&meta);
    ts_object_meta_decode(&d, sts, &meta);
    if ((rc = common_meta(&meta, "apps/v1", "StatefulSet", "apps", out, err)))
        goto done;
    /* the set owns it, not as its controller (Kueue's SetOwnerReference) */
    out->meta.owner_refs[0].controller.set = out->meta.owner_refs[0].block_owner_deletion.set = 0;
    out->meta.owner_refs[0].controller.v = out->meta.owner_refs[0].block_owner_deletion.v = 0;
    ts_strmap_set(&out->meta.annotations, TS_POD_ANNOTATION_IS_GROUP, "true");
    ts_strmap_set(&out->meta.annotations, "kueue.x-k8s.io/job-owner-gvk",
                  "apps/v1, Kind=StatefulSet");
    ts_strmap_set(&out->meta.annotations, "kueue.x-k8s.io/job-owner-name",
                  meta.name ? meta.name : "");
    ps = ts_workload_add_podset(out, TS_WL_DEFAULT_PODSET);
    ps->count = cJSON_IsNumber(r) ? (int32_t)r->valuedouble : 1;
    if (ts_json_get(sts, "spec.template.spec"))
        cJSON_AddItemToObject(tmpl, "spec",
                              cJSON_Duplicate(ts_json_get(sts, "spec.template.spec"), 1));
    ts_pod_template_decode(&d, tmpl, &ps->template);
    out->spec.active.set = 1;
    out->spec.active.v = 1;
    rc = resolve_priority(&meta, ps->template.priority_class_name, prio, out, err);
done:
    cJSON_Delete(tmpl);
    ts_object_meta_release(&meta);
    ts_field_errors_release(&errs);
    return rc;
}

/* One pod set per replicated job of a JobSet (Kueue's JobSet.PodSets);
 * `kind` and `name` name the job in a message. */
static int jobset_podsets(const struct ts_jobset *job, const char *kind, const char *name,
                          struct ts_workload *out, struct ts_err *err)
{
    for (size_t i = 0; i < job->n_jobs; i++) {
        const struct ts_replicated_job *rj = &job->jobs[i];
        struct ts_podset *ps;

        if (ts_jobset_pod_count(rj) < 0)
            return ts_err_set(err, TS_EINVAL,
                              "%s \"%s\": spec.replicatedJobs[%zu]: Invalid value: %d "
                              "replicas of %d pods do not fit an int32",
                              kind, name, i, (int)rj->replicas,
                              (int)ts_jobset_pods_per_replica(rj));
        ps = ts_workload_add_podset(out, rj->name ? rj->name : "");
        ps->count = ts_jobset_pod_count(rj);
        copy_template(&ps->template, &rj->template, 0);
    }
    out->spec.active.set = 1;
    out->spec.active.v = 1;
    return 0;
}

int ts_jobworkload_from_jobset(const struct ts_jobset *job, const struct ts_priority_lookup *prio,
                               struct ts_workload *out, struct ts_err *err)
{
    int rc;

    ts_workload_release(out);
    if ((rc = common_meta(&job->meta, TS_JOBSET_API_VERSION, TS_JOBSET_KIND, TS_JOBSET_GROUP, out,
                          err)) ||
        (rc = jobset_podsets(job, TS_JOBSET_KIND, job->meta.name, out, err)))
        return rc;
    return resolve_priority(&job->meta, ts_jobset_priority_class(job), prio, out, err);
}

int ts_jobworkload_from_trainjob(const struct ts_trainjob *job,
                                 const struct ts_priority_lookup *prio, struct ts_workload *out,
                                 struct ts_err *err)
{
    int rc;

    ts_workload_release(out);
    if (job->resolve_rc)
        return ts_err_set(err, job->resolve_rc, "%s", job->resolve_msg);
    if ((rc = common_meta(&job->meta, TS_TRAINJOB_API_VERSION, TS_TRAINJOB_KIND, TS_TRAINER_GROUP,
                          out, err)) ||
        (rc = jobset_podsets(&job->child, TS_TRAINJOB_KIND, job->meta.name, out, err)))
        return rc;
    return resolve_priority(&job->meta, ts_jobset_priority_class(&job->child), prio, out, err);
}

/* The submitter pod set's template: the RayJob's, else KubeRay's default. */
static void submitter_template(const struct ts_ray_job *job, struct ts_pod_template *t)
{
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_dec d;
    cJSON *dflt;

    if (job->has_submitter_template) {
        copy_template(t, &job->submitter, 0);
        return;
    }
    dflt = ts_rayjob_default_submitter(job);
    ts_dec_init(&d, &errs);
    ts_pod_template_decode(&d, dflt, t);
    ts_field_errors_release(&errs);
    cJSON_Delete(dflt);
}

int ts_jobworkload_from_ray(const struct ts_ray_job *job, const struct ts_priority_lookup *prio,
                            struct ts_workload *out, struct ts_err *err)
{
    const char *kind = job->is_job ? "RayJob" : "RayCluster", *pod_class = NULL;
    const struct ts_ray_cluster_spec *c = &job->cluster;
    struct ts_podset *ps;
    int rc;

    ts_workload_release(out);
    if ((rc = common_meta(&job->meta, TS_RAY_API_VERSION, kind, TS_RAY_GROUP, out, err)))
        return rc;
    if (!c->present)
        return ts_err_set(err, TS_EINVAL, "%s: spec.rayClusterSpec: Required value", kind);
    ps = ts_workload_add_podset(out, TS_RAY_PODSET_HEAD);
    ps->count = 1;
    copy_template(&ps->template, &c->head, 0);
    for (size_t i = 0; i < c->n_workers; i++) {
        const struct ts_ray_worker_group *g = &c->workers[i];
        char name[64];
        size_t j;

        for (j = 0; g->group_name && g->group_name[j] && j + 1 < sizeof(name); j++)
            name[j] = (char)tolower((unsigned char)g->group_name[j]);
        name[j] = '\0';
        ps = ts_workload_add_podset(out, name);
        ps->count = ts_rayjob_group_count(g);
        copy_template(&ps->template, &g->template, 0);
    }
    if (ts_rayjob_has_submitter(job)) {
        ps = ts_workload_add_podset(out, TS_RAY_PODSET_SUBMITTER);
        ps->count = 1;
        submitter_template(job, &ps->template);
    }
    for (size_t i = 0; i < out->spec.n_podsets && !pod_class; i++) {
        const char *pc = out->spec.podsets[i].template.priority_class_name;

        if (pc && pc[0])
            pod_class = pc; /* Kueue's extractPriorityFromPodSets */
    }
    out->spec.active.set = 1;
    out->spec.active.v = 1;
    return resolve_priority(&job->meta, pod_class, prio, out, err);
}

int ts_jobworkload_from_object(const struct ts_object *o, const struct ts_priority_lookup *prio,
                               struct ts_workload *out, struct ts_err *err)
{
    if (o->kind == TS_KIND_JOB)
        return ts_jobworkload_from_job(&o->u.job, prio, out, err);
    if (TS_KIND_IS_KUBEFLOW(o->kind))
        return ts_jobworkload_from_pytorchjob(&o->u.ptj, prio, out, err);
    if (o->kind == TS_KIND_JOBSET)
        return ts_jobworkload_from_jobset(&o->u.jobset, prio, out, err);
    if (o->kind == TS_KIND_POD)
        return ts_jobworkload_from_pod(&o->u.pod, prio, out, err);
    if (TS_KIND_IS_RAY(o->kind))
        return ts_jobworkload_from_ray(&o->u.ray, prio, out, err);
    if (o->kind == TS_KIND_TRAINJOB)
        return ts_jobworkload_from_trainjob(&o->u.trainjob, prio, out, err);
    return ts_err_set(err, TS_EUNSUPPORTED, "%s is not a job kind", ts_kind_name(o->kind));
}
