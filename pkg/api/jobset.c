#include "api/jobset.h"

#include "util/alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ts_jobset_init(struct ts_jobset *j)
{
    memset(j, 0, sizeof(*j));
    ts_object_meta_init(&j->meta);
}

void ts_jobset_release(struct ts_jobset *j)
{
    cJSON_Delete(j->raw);
    ts_object_meta_release(&j->meta);
    for (size_t i = 0; i < j->n_jobs; i++) {
        free(j->jobs[i].name);
        ts_pod_template_release(&j->jobs[i].template);
    }
    free(j->jobs);
    ts_job_conditions_free(j->conditions, j->n_conditions);
    for (size_t i = 0; i < j->n_statuses; i++)
        free(j->statuses[i].name);
    free(j->statuses);
    ts_jobset_init(j);
}

/* --- decode ----------------------------------------------------------------- */

static void non_negative(struct ts_dec *d, const char *key, int set, int32_t v)
{
    char num[16];

    if (!set || v >= 0)
        return;
    snprintf(num, sizeof(num), "%d", (int)v);
    ts_dec_error(d, TS_FIELD_INVALID, key, num, "must be greater than or equal to 0");
}

/* One spec.replicatedJobs[i] (d's path is at it). */
static void replicated_job_decode(struct ts_dec *d, const cJSON *e, struct ts_replicated_job *rj)
{
    const cJSON *tmpl = ts_dec_object(d, e, "template"), *spec;
    size_t mark;

    rj->replicas = 1;
    ts_pod_template_init(&rj->template);
    if (!cJSON_IsObject(e)) {
        ts_dec_error(d, TS_FIELD_TYPE_INVALID, NULL, NULL, "must be of type object");
        return;
    }
    ts_dec_string(d, e, "name", &rj->name);
    if (!rj->name || !rj->name[0])
        ts_dec_error(d, TS_FIELD_REQUIRED, "name", NULL, "%s", "");
    ts_dec_i32(d, e, "replicas", &rj->replicas);
    non_negative(d, "replicas", 1, rj->replicas);
    mark = ts_path_push(&d->path, "template");
    spec = ts_dec_object(d, tmpl, "spec");
    ts_path_push(&d->path, "spec");
    ts_dec_opt_i32(d, spec, "parallelism", &rj->parallelism);
    non_negative(d, "parallelism", rj->parallelism.set, rj->parallelism.v);
    ts_dec_opt_i32(d, spec, "completions", &rj->completions);
    non_negative(d, "completions", rj->completions.set, rj->completions.v);
    ts_path_push(&d->path, "template");
    ts_pod_template_decode(d, ts_dec_object(d, spec, "template"), &rj->template);
    ts_path_pop(&d->path, mark);
}

static void replicated_jobs_decode(struct ts_dec *d, const cJSON *spec, struct ts_jobset *j)
{
    const cJSON *a = ts_dec_array(d, spec, "replicatedJobs"), *e;
    size_t mark;

    if (!a || !cJSON_GetArraySize(a))
        return;
    j->jobs = ts_xcalloc((size_t)cJSON_GetArraySize(a), sizeof(*j->jobs));
    mark = ts_path_push(&d->path, "replicatedJobs");
    cJSON_ArrayForEach(e, a)
    {
        size_t im = ts_path_push_index(&d->path, j->n_jobs);

        replicated_job_decode(d, e, &j->jobs[j->n_jobs++]);
        ts_path_pop(&d->path, im);
    }
    ts_path_pop(&d->path, mark);
}

void ts_jobset_statuses_decode(struct ts_dec *d, const cJSON *status, const char *key,
                               struct ts_replicated_job_status **out, size_t *n)
{
    const cJSON *a = ts_dec_array(d, status, key), *e;
    size_t mark;

    if (!a || !cJSON_GetArraySize(a))
        return;
    *out = ts_xcalloc((size_t)cJSON_GetArraySize(a), sizeof(**out));
    mark = ts_path_push(&d->path, key);
    cJSON_ArrayForEach(e, a)
    {
        struct ts_replicated_job_status *s = &(*out)[*n];
        size_t im = ts_path_push_index(&d->path, (*n)++);

        ts_dec_string(d, e, "name", &s->name);
        ts_dec_i32(d, e, "ready", &s->ready);
        ts_dec_i32(d, e, "succeeded", &s->succeeded);
        ts_dec_i32(d, e, "failed", &s->failed);
        ts_dec_i32(d, e, "active", &s->active);
        ts_dec_i32(d, e, "suspended", &s->suspended);
        ts_path_pop(&d->path, im);
    }
    ts_path_pop(&d->path, mark);
}

void ts_jobset_decode(struct ts_dec *d, const cJSON *obj, struct ts_jobset *j)
{
    const cJSON *spec, *status;
    size_t mark;

    ts_jobset_release(j);
    if (!cJSON_IsObject(obj)) {
        ts_dec_error(d, TS_FIELD_TYPE_INVALID, NULL, NULL, "must be of type object");
        return;
    }
    j->raw = cJSON_Duplicate(obj, 1);
    ts_object_meta_decode(d, obj, &j->meta);
    spec = ts_dec_object(d, obj, "spec");
    mark = ts_path_push(&d->path, "spec");
    ts_dec_opt_bool(d, spec, "suspend", &j->suspend);
    replicated_jobs_decode(d, spec, j);
    ts_path_pop(&d->path, mark);
    status = ts_dec_object(d, obj, "status");
    mark = ts_path_push(&d->path, "status");
    ts_job_conditions_decode(d, status, &j->conditions, &j->n_conditions);
    ts_jobset_statuses_decode(d, status, "replicatedJobsStatus", &j->statuses, &j->n_statuses);
    ts_path_pop(&d->path, mark);
}

/* --- helpers ---------------------------------------------------------------- */

int32_t ts_jobset_pods_per_replica(const struct ts_replicated_job *rj)
{
    int32_t n = rj->parallelism.set ? rj->parallelism.v : 1;

    if (rj->completions.set && rj->completions.v < n)
        n = rj->completions.v;
    return n;
}

int32_t ts_jobset_pod_count(const struct ts_replicated_job *rj)
{
    int64_t n = (int64_t)rj->replicas * ts_jobset_pods_per_replica(rj);

    return n < 0 || n > INT32_MAX ? -1 : (int32_t)n;
}

int ts_jobset_is_suspended(const struct ts_jobset *j)
{
    return j->suspend.set && j->suspend.v;
}

int ts_jobset_cond_true(const struct ts_job_condition *conds, size_t n, const char *type,
                        const char **message)
{
    for (size_t i = 0; i < n; i++) {
        const struct ts_job_condition *c = &conds[i];

        if (c->type && !strcmp(c->type, type) && c->status && !strcmp(c->status, "True")) {
            if (message)
                *message = c->message;
            return 1;
        }
    }
    return 0;
}

int ts_jobset_is_finished(const struct ts_jobset *j, int *success, const char **message)
{
    int ok = ts_jobset_cond_true(j->conditions, j->n_conditions, "Completed", message);

    if (!ok && !ts_jobset_cond_true(j->conditions, j->n_conditions, "Failed", message))
        return 0;
    if (success)
        *success = ok;
    return 1;
}

int ts_jobset_statuses_active(const struct ts_replicated_job_status *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i].active > 0)
            return 1;
    }
    return 0;
}

int ts_jobset_is_active(const struct ts_jobset *j)
{
    return ts_jobset_statuses_active(j->statuses, j->n_statuses);
}

int ts_jobset_pods_ready(const struct ts_jobset *j)
{
    int64_t want = 0, have = 0;

    for (size_t i = 0; i < j->n_jobs; i++)
        want += j->jobs[i].replicas;
    for (size_t i = 0; i < j->n_statuses; i++)
        have += (int64_t)j->statuses[i].ready + j->statuses[i].succeeded;
    return want == have;
}

const char *ts_jobset_priority_class(const struct ts_jobset *j)
{
    for (size_t i = 0; i < j->n_jobs; i++) {
        const char *pc = j->jobs[i].template.priority_class_name;

        if (pc && pc[0])
            return pc;
    }
    return NULL;
}
