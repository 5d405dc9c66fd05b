#include "api/pytorchjob.h"

#include "api/enc.h"
#include "api/job.h"
#include "api/podtemplate_int.h"
#include "util/alloc.h"

#include <stdlib.h>
#include <string.h>

static void run_policy_release(struct ts_run_policy *r)
{
    free(r->clean_pod_policy);
    free(r->queue);
    free(r->priority_class);
}

static const char *const pytorch_order[] = {TS_PYTORCH_MASTER, TS_PYTORCH_WORKER, NULL};
static const char *const tf_order[] = {"Chief", "Master", "PS", "Worker", "Evaluator", NULL};
static const char *const mpi_order[] = {"Launcher", "Worker", NULL};
static const char *const master_worker_order[] = {"Master", "Worker", NULL};
static const char *const worker_order[] = {"Worker", NULL};

const struct ts_kf_kind ts_kf_pytorchjob = {TS_PYTORCHJOB_API_VERSION, TS_PYTORCHJOB_KIND,
                                            "pytorchReplicaSpecs", pytorch_order};
const struct ts_kf_kind ts_kf_tfjob = {"kubeflow.org/v1", "TFJob", "tfReplicaSpecs", tf_order};
const struct ts_kf_kind ts_kf_mpijob = {"kubeflow.org/v2beta1", "MPIJob", "mpiReplicaSpecs",
                                        mpi_order};
/* Kueue's pkg/controller/jobs/kubeflow/jobs/{xgboostjob,paddlejob,jaxjob}:
 * OrderedReplicaTypes() */
const struct ts_kf_kind ts_kf_xgboostjob = {"kubeflow.org/v1", "XGBoostJob", "xgbReplicaSpecs",
                                            master_worker_order};
const struct ts_kf_kind ts_kf_paddlejob = {"kubeflow.org/v1", "PaddleJob", "paddleReplicaSpecs",
                                           master_worker_order};
const struct ts_kf_kind ts_kf_jaxjob = {"kubeflow.org/v1", "JAXJob", "jaxReplicaSpecs",
                                        worker_order};

const struct ts_kf_kind *ts_kf_kind_of(const char *kind)
{
    static const struct ts_kf_kind *const all[] = {&ts_kf_pytorchjob, &ts_kf_tfjob,
                                                   &ts_kf_mpijob,     &ts_kf_xgboostjob,
                                                   &ts_kf_paddlejob,  &ts_kf_jaxjob};

    for (size_t i = 0; kind && i < sizeof(all) / sizeof(all[0]); i++) {
        if (!strcmp(all[i]->kind, kind))
            return all[i];
    }
    return NULL;
}

/* Position in Kueue's order; types it does not list come after. */
static size_t type_rank(const struct ts_kf_kind *k, const char *t)
{
    size_t i = 0;

    while (k->order[i] && strcmp(k->order[i], t))
        i++;
    return i;
}

int ts_kf_replica_cmp(const struct ts_kf_kind *k, const char *a, const char *b)
{
    size_t ra = type_rank(k, a), rb = type_rank(k, b);

    return ra != rb ? (ra < rb ? -1 : 1) : strcmp(a, b);
}

void ts_pytorchjob_init(struct ts_pytorch_job *j)
{
    memset(j, 0, sizeof(*j));
    j->kf = &ts_kf_pytorchjob;
}

void ts_pytorchjob_release(struct ts_pytorch_job *j)
{
    cJSON_Delete(j->raw);
    ts_object_meta_release(&j->meta);
    run_policy_release(&j->run_policy);
    for (size_t i = 0; i < j->n_replicas; i++) {
        free(j->replicas[i].type);
        free(j->replicas[i].restart_policy);
        ts_pod_template_release(&j->replicas[i].template);
    }
    free(j->replicas);
    for (size_t i = 0; i < j->n_conditions; i++) {
        free(j->conditions[i].type);
        free(j->conditions[i].status);
        free(j->conditions[i].reason);
        free(j->conditions[i].message);
    }
    free(j->conditions);
    for (size_t i = 0; i < j->n_replica_statuses; i++)
        free(j->replica_statuses[i].type);
    free(j->replica_statuses);
    ts_pytorchjob_init(j);
}

/* Element i of an array of `size`-byte structs whose first member is the
 * replica type (struct ts_replica_spec and struct ts_replica_status). */
static const char *type_at(const char *base, size_t size, size_t i)
{
    return *(char *const *)(const void *)(base + i * size);
}

static void swap_bytes(char *a, char *b, size_t size)
{
    for (size_t i = 0; i < size; i++) {
        char t = a[i];

        a[i] = b[i];
        b[i] = t;
    }
}

/* Sorts replicas or statuses by the kind's order (qsort has no context
 * argument; there are a handful of replica types). */
static void sort_by_type(void *base, size_t n, size_t size, const struct ts_kf_kind *k)
{
    char *p = base;

    for (size_t i = 1; i < n; i++) {
        for (size_t j = i;
             j > 0 && ts_kf_replica_cmp(k, type_at(p, size, j - 1), type_at(p, size, j)) > 0; j--)
            swap_bytes(p + (j - 1) * size, p + j * size, size);
    }
}

/* --- decode ------------------------------------------------------------------- */

static void run_policy_decode(struct ts_dec *d, const cJSON *spec, struct ts_run_policy *r)
{
    const cJSON *rp = ts_dec_object(d, spec, "runPolicy");
    const cJSON *sp;
    size_t mark;

    if (!rp)
        return;
    mark = ts_path_push(&d->path, "runPolicy");
    ts_dec_opt_bool(d, rp, "suspend", &r->suspend);
    ts_dec_string(d, rp, "cleanPodPolicy", &r->clean_pod_policy);
    ts_dec_opt_i32(d, rp, "ttlSecondsAfterFinished", &r->ttl_seconds_after_finished);
    ts_dec_opt_i64(d, rp, "activeDeadlineSeconds", &r->active_deadline_seconds);
    ts_dec_opt_i32(d, rp, "backoffLimit", &r->backoff_limit);
    sp = ts_dec_object(d, rp, "schedulingPolicy");
    ts_path_push(&d->path, "schedulingPolicy");
    ts_dec_opt_i32(d, sp, "minAvailable", &r->min_available);
    ts_dec_string(d, sp, "queue", &r->queue);
    ts_dec_string(d, sp, "priorityClass", &r->priority_class);
    ts_path_pop(&d->path, mark);
}

static void replicas_decode(struct ts_dec *d, const cJSON *spec, struct ts_pytorch_job *j)
{
    const cJSON *m = ts_dec_object(d, spec, j->kf->replicas_key);
    const cJSON *e;
    size_t mark;

    if (!m || !cJSON_GetArraySize(m))
        return;
    j->replicas = ts_xcalloc((size_t)cJSON_GetArraySize(m), sizeof(*j->replicas));
    mark = ts_path_push(&d->path, j->kf->replicas_key);
    cJSON_ArrayForEach(e, m)
    {
        struct ts_replica_spec *r = &j->replicas[j->n_replicas++];
        size_t rm = ts_path_push(&d->path, e->string);

        r->type = ts_xstrdup(e->string);
        r->replicas = 1;
        ts_pod_template_init(&r->template);
        if (!cJSON_IsObject(e) && !cJSON_IsNull(e))
            ts_dec_error(d, TS_FIELD_TYPE_INVALID, NULL, NULL, "must be of type object");
        ts_dec_i32(d, e, "replicas", &r->replicas);
        ts_dec_string(d, e, "restartPolicy", &r->restart_policy);
        ts_path_push(&d->path, "template");
        ts_pod_template_decode(d, ts_dec_object(d, e, "template"), &r->template);
        ts_path_pop(&d->path, rm);
    }
    ts_path_pop(&d->path, mark);
    sort_by_type(j->replicas, j->n_replicas, sizeof(*j->replicas), j->kf);
}

static void conditions_decode(struct ts_dec *d, const cJSON *status, struct ts_pytorch_job *j)
{
    const cJSON *a = ts_dec_array(d, status, "conditions");
    const cJSON *e;
    size_t mark;

    if (!a || !cJSON_GetArraySize(a))
        return;
    j->conditions = ts_xcalloc((size_t)cJSON_GetArraySize(a), sizeof(*j->conditions));
    mark = ts_path_push(&d->path, "conditions");
    cJSON_ArrayForEach(e, a)
    {
        struct ts_kf_condition *c = &j->conditions[j->n_conditions];
        size_t im = ts_path_push_index(&d->path, j->n_conditions++);

        ts_dec_string(d, e, "type", &c->type);
        ts_dec_string(d, e, "status", &c->status);
        ts_dec_string(d, e, "reason", &c->reason);
        ts_dec_string(d, e, "message", &c->message);
        ts_dec_time(d, e, "lastUpdateTime", &c->last_update_time);
        ts_dec_time(d, e, "lastTransitionTime", &c->last_transition_time);
        ts_path_pop(&d->path, im);
    }
    ts_path_pop(&d->path, mark);
}

static void replica_statuses_decode(struct ts_dec *d, const cJSON *status, struct ts_pytorch_job *j)
{
    const cJSON *m = ts_dec_object(d, status, "replicaStatuses");
    const cJSON *e;
    size_t mark;

    if (!m || !cJSON_GetArraySize(m))
        return;
    j->replica_statuses = ts_xcalloc((size_t)cJSON_GetArraySize(m), sizeof(*j->replica_statuses));
    mark = ts_path_push(&d->path, "replicaStatuses");
    cJSON_ArrayForEach(e, m)
    {
        struct ts_replica_status *r = &j->replica_statuses[j->n_replica_statuses++];
        size_t rm = ts_path_push(&d->path, e->string);

        r->type = ts_xstrdup(e->string);
        ts_dec_i32(d, e, "active", &r->active);
        ts_dec_i32(d, e, "succeeded", &r->succeeded);
        ts_dec_i32(d, e, "failed", &r->failed);
        ts_path_pop(&d->path, rm);
    }
    ts_path_pop(&d->path, mark);
    sort_by_type(j->replica_statuses, j->n_replica_statuses, sizeof(*j->replica_statuses), j->kf);
}

void ts_pytorchjob_decode(struct ts_dec *d, const cJSON *obj, struct ts_pytorch_job *j)
{
    const struct ts_kf_kind *kf;
    const cJSON *spec, *status;
    size_t mark;

    ts_pytorchjob_release(j);
    if (!cJSON_IsObject(obj)) {
        ts_dec_error(d, TS_FIELD_TYPE_INVALID, NULL, NULL, "must be of type object");
        return;
    }
    kf = ts_kf_kind_of(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(obj, "kind")));
    if (kf)
        j->kf = kf;
    j->raw = cJSON_Duplicate(obj, 1);
    ts_object_meta_decode(d, obj, &j->meta);
    spec = ts_dec_object(d, obj, "spec");
    mark = ts_path_push(&d->path, "spec");
    run_policy_decode(d, spec, &j->run_policy);
    replicas_decode(d, spec, j);
    ts_path_pop(&d->path, mark);
    status = ts_dec_object(d, obj, "status");
    mark = ts_path_push(&d->path, "status");
    conditions_decode(d, status, j);
    replica_statuses_decode(d, status, j);
    ts_dec_time(d, status, "startTime", &j->start_time);
    ts_dec_time(d, status, "completionTime", &j->completion_time);
    ts_dec_time(d, status, "lastReconcileTime", &j->last_reconcile_time);
    ts_path_pop(&d->path, mark);
}

/* --- encode ------------------------------------------------------------------- */

static cJSON *opt_i64(int set, int64_t v)
{
    return set ? cJSON_CreateNumber((double)v) : NULL;
}

static void run_policy_encode(cJSON *spec, const struct ts_run_policy *r)
{
    int had = cJSON_GetObjectItemCaseSensitive(spec, "runPolicy") != NULL;
    cJSON *rp = ts__podtemplate_child(spec, "runPolicy", 1);
    int had_sp = cJSON_GetObjectItemCaseSensitive(rp, "schedulingPolicy") != NULL;
    cJSON *sp;

    ts__podtemplate_put_string(rp, "cleanPodPolicy", r->clean_pod_policy);
    ts__podtemplate_put(
        rp, "ttlSecondsAfterFinished",
        opt_i64(r->ttl_seconds_after_finished.set, r->ttl_seconds_after_finished.v));
    ts__podtemplate_put(rp, "activeDeadlineSeconds",
                        opt_i64(r->active_deadline_seconds.set, r->active_deadline_seconds.v));
    ts__podtemplate_put(rp, "backoffLimit", opt_i64(r->backoff_limit.set, r->backoff_limit.v));
    sp = ts__podtemplate_child(rp, "schedulingPolicy", 1);
    ts__podtemplate_put(sp, "minAvailable", opt_i64(r->min_available.set, r->min_available.v));
    ts__podtemplate_put_string(sp, "queue", r->queue);
    ts__podtemplate_put_string(sp, "priorityClass", r->priority_class);
    if (!had_sp)
        ts__podtemplate_prune(rp, "schedulingPolicy");
    ts__podtemplate_put(rp, "suspend", r->suspend.set ? cJSON_CreateBool(r->suspend.v) : NULL);
    if (!had)
        ts__podtemplate_prune(spec, "runPolicy");
}

static void replicas_encode(cJSON *spec, const struct ts_pytorch_job *j)
{
    const char *key = j->kf->replicas_key;
    int had = cJSON_GetObjectItemCaseSensitive(spec, key) != NULL;
    cJSON *m = ts__podtemplate_child(spec, key, 1);
    cJSON *e = m->child;

    while (e) { /* replica types no longer modelled are dropped */
        cJSON *next = e->next;

        if (!ts_pytorchjob_replica(j, e->string))
            cJSON_Delete(cJSON_DetachItemViaPointer(m, e));
        e = next;
    }
    for (size_t i = 0; i < j->n_replicas; i++) {
        const struct ts_replica_spec *r = &j->replicas[i];
        cJSON *o = ts__podtemplate_child(m, r->type, 1);

        if (r->replicas != 1 || cJSON_GetObjectItemCaseSensitive(o, "replicas"))
            ts__podtemplate_put(o, "replicas", cJSON_CreateNumber(r->replicas));
        ts__podtemplate_put_string(o, "restartPolicy", r->restart_policy);
        ts__podtemplate_put_template(o, "template", &r->template);
    }
    if (!had)
        ts__podtemplate_prune(spec, key);
}

static cJSON *conditions_encode(const struct ts_pytorch_job *j)
{
    cJSON *a;

    if (!j->n_conditions)
        return NULL;
    a = cJSON_CreateArray();
    for (size_t i = 0; i < j->n_conditions; i++) {
        const struct ts_kf_condition *c = &j->conditions[i];
        cJSON *o = cJSON_CreateObject();

        ts_enc_string(o, "type", c->type);
        ts_enc_string(o, "status", c->status);
        ts_enc_string(o, "reason", c->reason);
        ts_enc_string(o, "message", c->message);
        ts_enc_time(o, "lastUpdateTime", c->last_update_time);
        ts_enc_time(o, "lastTransitionTime", c->last_transition_time);
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

static void status_encode(cJSON *o, const struct ts_pytorch_job *j)
{
    int had = cJSON_GetObjectItemCaseSensitive(o, "status") != NULL;
    cJSON *st = ts__podtemplate_child(o, "status", 1);
    int had_rs = cJSON_GetObjectItemCaseSensitive(st, "replicaStatuses") != NULL;
    cJSON *rs = ts__podtemplate_child(st, "replicaStatuses", 1);

    ts__podtemplate_put(st, "conditions", conditions_encode(j));
    for (size_t i = 0; i < j->n_replica_statuses; i++) {
        const struct ts_replica_status *r = &j->replica_statuses[i];
        cJSON *x = ts__podtemplate_child(rs, r->type, 1);

        ts__podtemplate_put(x, "active", r->active ? cJSON_CreateNumber(r->active) : NULL);
        ts__podtemplate_put(x, "succeeded", r->succeeded ? cJSON_CreateNumber(r->succeeded) : NULL);
        ts__podtemplate_put(x, "failed", r->failed ? cJSON_CreateNumber(r->failed) : NULL);
    }
    if (!had_rs)
        ts__podtemplate_prune(st, "replicaStatuses");
    ts__podtemplate_put_time(st, "startTime", j->start_time);
    ts__podtemplate_put_time(st, "completionTime", j->completion_time);
    ts__podtemplate_put_time(st, "lastReconcileTime", j->last_reconcile_time);
    if (!had)
        ts__podtemplate_prune(o, "status");
}

cJSON *ts_pytorchjob_encode(const struct ts_pytorch_job *j)
{
    cJSON *o = j->raw ? cJSON_Duplicate(j->raw, 1) : cJSON_CreateObject();
    int had_spec = cJSON_GetObjectItemCaseSensitive(o, "spec") != NULL;
    cJSON *spec;

    if (!cJSON_GetObjectItemCaseSensitive(o, "apiVersion"))
        cJSON_AddStringToObject(o, "apiVersion", j->kf->api_version);
    if (!cJSON_GetObjectItemCaseSensitive(o, "kind"))
        cJSON_AddStringToObject(o, "kind", j->kf->kind);
    ts__podtemplate_put_meta(o, &j->meta);
    spec = ts__podtemplate_child(o, "spec", 1);
    run_policy_encode(spec, &j->run_policy);
    replicas_encode(spec, j);
    if (!had_spec)
        ts__podtemplate_prune(o, "spec");
    status_encode(o, j);
    return o;
}

/* --- helpers -------------------------------------------------------------------- */

const char *ts_pytorchjob_queue_name(const struct ts_pytorch_job *j)
{
    return ts_job_meta_queue_name(&j->meta);
}

int ts_pytorchjob_is_finished(const struct ts_pytorch_job *j, int *success, const char **message)
{
    for (size_t i = 0; i < j->n_conditions; i++) {
        const struct ts_kf_condition *c = &j->conditions[i];
        int ok = c->type && strcmp(c->type, "Succeeded") == 0;
        int failed = c->type && strcmp(c->type, "Failed") == 0;

        if ((ok || failed) && c->status && strcmp(c->status, "True") == 0) {
            if (success)
                *success = ok;
            if (message)
                *message = c->message;
            return 1;
        }
    }
    return 0;
}

int ts_pytorchjob_is_suspended(const struct ts_pytorch_job *j)
{
    return j->run_policy.suspend.set && j->run_policy.suspend.v;
}

const struct ts_replica_spec *ts_pytorchjob_replica(const struct ts_pytorch_job *j,
                                                    const char *type)
{
    for (size_t i = 0; i < j->n_replicas; i++) {
        if (type && strcmp(j->replicas[i].type, type) == 0)
            return &j->replicas[i];
    }
    return NULL;
}

const char *ts_pytorchjob_priority_class(const struct ts_pytorch_job *j)
{
    const char *pc = j->run_policy.priority_class;

    if (pc && pc[0])
        return pc;
    for (size_t i = 0; i < j->n_replicas; i++) {
        pc = j->replicas[i].template.priority_class_name;
        if (pc && pc[0])
            return pc;
    }
    return NULL;
}

int ts_pytorchjob_is_active(const struct ts_pytorch_job *j)
{
    for (size_t i = 0; i < j->n_replica_statuses; i++) {
        if (j->replica_statuses[i].active > 0)
            return 1;
    }
    return 0;
}

char *ts_pytorchjob_podset_name(const char *replica_type)
{
    char *s = ts_xstrdup(replica_type ? replica_type : "");

    for (char *c = s; *c; c++)
        *c = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
    return s;
}
