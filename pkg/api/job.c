#include "api/job.h"

#include "api/enc.h"
#include "api/podtemplate_int.h"
#include "util/alloc.h"

#include <stdlib.h>
#include <string.h>

static char *dup_or_null(const char *s)
{
    return s ? ts_xstrdup(s) : NULL;
}

void ts_job_conditions_free(struct ts_job_condition *c, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(c[i].type);
        free(c[i].status);
        free(c[i].reason);
        free(c[i].message);
    }
    free(c);
}

void ts_job_init(struct ts_job *j)
{
    memset(j, 0, sizeof(*j));
    ts_object_meta_init(&j->meta);
    ts_pod_template_init(&j->template);
}

void ts_job_release(struct ts_job *j)
{
    cJSON_Delete(j->raw);
    ts_object_meta_release(&j->meta);
    free(j->completion_mode);
    ts_pod_template_release(&j->template);
    ts_job_conditions_free(j->conditions, j->n_conditions);
    ts_job_init(j);
}

void ts_job_copy(struct ts_job *dst, const struct ts_job *src)
{
    ts_job_release(dst);
    *dst = *src;
    dst->raw = src->raw ? cJSON_Duplicate(src->raw, 1) : NULL;
    ts_object_meta_copy(&dst->meta, &src->meta);
    dst->completion_mode = dup_or_null(src->completion_mode);
    ts_pod_template_init(&dst->template);
    ts_pod_template_copy(&dst->template, &src->template);
    dst->conditions =
        src->n_conditions ? ts_xcalloc(src->n_conditions, sizeof(*dst->conditions)) : NULL;
    for (size_t i = 0; i < src->n_conditions; i++) {
        const struct ts_job_condition *s = &src->conditions[i];
        struct ts_job_condition *c = &dst->conditions[i];

        *c = *s;
        c->type = dup_or_null(s->type);
        c->status = dup_or_null(s->status);
        c->reason = dup_or_null(s->reason);
        c->message = dup_or_null(s->message);
    }
}

/* --- decode ----------------------------------------------------------------- */

static void spec_decode(struct ts_dec *d, const cJSON *spec, struct ts_job *j)
{
    size_t mark;

    ts_dec_opt_bool(d, spec, "suspend", &j->suspend);
    ts_dec_opt_i32(d, spec, "parallelism", &j->parallelism);
    ts_dec_opt_i32(d, spec, "completions", &j->completions);
    ts_dec_string(d, spec, "completionMode", &j->completion_mode);
    ts_dec_opt_i32(d, spec, "backoffLimit", &j->backoff_limit);
    mark = ts_path_push(&d->path, "template");
    ts_pod_template_decode(d, ts_dec_object(d, spec, "template"), &j->template);
    ts_path_pop(&d->path, mark);
}

void ts_job_conditions_decode(struct ts_dec *d, const cJSON *status, struct ts_job_condition **out,
                              size_t *n)
{
    const cJSON *a = ts_dec_array(d, status, "conditions");
    const cJSON *e;
    size_t mark, i = 0;

    *out = NULL;
    *n = 0;
    if (!a || !cJSON_GetArraySize(a))
        return;
    *out = ts_xcalloc((size_t)cJSON_GetArraySize(a), sizeof(**out));
    mark = ts_path_push(&d->path, "conditions");
    cJSON_ArrayForEach(e, a)
    {
        struct ts_job_condition *c = &(*out)[i];
        size_t im = ts_path_push_index(&d->path, i++);

        ts_dec_string(d, e, "type", &c->type);
        ts_dec_string(d, e, "status", &c->status);
        ts_dec_string(d, e, "reason", &c->reason);
        ts_dec_string(d, e, "message", &c->message);
        ts_dec_time(d, e, "lastProbeTime", &c->last_probe_time);
        ts_dec_time(d, e, "lastTransitionTime", &c->last_transition_time);
        ts_path_pop(&d->path, im);
    }
    *n = i;
    ts_path_pop(&d->path, mark);
}

static void status_decode(struct ts_dec *d, const cJSON *status, struct ts_job *j)
{
    ts_job_conditions_decode(d, status, &j->conditions, &j->n_conditions);
    ts_dec_i32(d, status, "active", &j->active);
    ts_dec_opt_i32(d, status, "ready", &j->ready);
    ts_dec_i32(d, status, "succeeded", &j->succeeded);
    ts_dec_i32(d, status, "failed", &j->failed);
    ts_dec_time(d, status, "startTime", &j->start_time);
    ts_dec_time(d, status, "completionTime", &j->completion_time);
}

void ts_job_decode(struct ts_dec *d, const cJSON *obj, struct ts_job *j)
{
    const cJSON *spec, *status;
    size_t mark;

    ts_job_release(j);
    if (!cJSON_IsObject(obj)) {
        ts_dec_error(d, TS_FIELD_TYPE_INVALID, NULL, NULL, "must be of type object");
        return;
    }
    j->raw = cJSON_Duplicate(obj, 1);
    ts_object_meta_decode(d, obj, &j->meta);
    spec = ts_dec_object(d, obj, "spec");
    mark = ts_path_push(&d->path, "spec");
    if (spec)
        spec_decode(d, spec, j);
    ts_path_pop(&d->path, mark);
    status = ts_dec_object(d, obj, "status");
    mark = ts_path_push(&d->path, "status");
    if (status)
        status_decode(d, status, j);
    ts_path_pop(&d->path, mark);
}

/* --- encode ----------------------------------------------------------------- */

static cJSON *opt_i32(const struct ts_opt_i32 *v)
{
    return v->set ? cJSON_CreateNumber(v->v) : NULL;
}

static cJSON *nonzero(int64_t v)
{
    return v ? cJSON_CreateNumber((double)v) : NULL;
}

static cJSON *conditions_encode(const struct ts_job *j)
{
    cJSON *a;

    if (!j->n_conditions)
        return NULL;
    a = cJSON_CreateArray();
    for (size_t i = 0; i < j->n_conditions; i++) {
        const struct ts_job_condition *c = &j->conditions[i];
        cJSON *o = cJSON_CreateObject();

        ts_enc_string(o, "type", c->type);
        ts_enc_string(o, "status", c->status);
        ts_enc_time(o, "lastProbeTime", c->last_probe_time);
        ts_enc_time(o, "lastTransitionTime", c->last_transition_time);
        ts_enc_string(o, "reason", c->reason);
        ts_enc_string(o, "message", c->message);
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

static void status_encode(cJSON *o, const struct ts_job *j)
{
    int had = cJSON_GetObjectItemCaseSensitive(o, "status") != NULL;
    cJSON *st = ts__podtemplate_child(o, "status", 1);

    ts__podtemplate_put(st, "conditions", conditions_encode(j));
    ts__podtemplate_put_time(st, "startTime", j->start_time);
    ts__podtemplate_put_time(st, "completionTime", j->completion_time);
    ts__podtemplate_put(st, "active", nonzero(j->active));
    ts__podtemplate_put(st, "succeeded", nonzero(j->succeeded));
    ts__podtemplate_put(st, "failed", nonzero(j->failed));
    ts__podtemplate_put(st, "ready", opt_i32(&j->ready));
    if (!had)
        ts__podtemplate_prune(o, "status");
}

cJSON *ts_job_encode(const struct ts_job *j)
{
    cJSON *o = j->raw ? cJSON_Duplicate(j->raw, 1) : cJSON_CreateObject();
    int had_spec = cJSON_GetObjectItemCaseSensitive(o, "spec") != NULL;
    cJSON *spec;

    if (!cJSON_GetObjectItemCaseSensitive(o, "apiVersion"))
        cJSON_AddStringToObject(o, "apiVersion", TS_JOB_API_VERSION);
    if (!cJSON_GetObjectItemCaseSensitive(o, "kind"))
        cJSON_AddStringToObject(o, "kind", TS_JOB_KIND);
    ts__podtemplate_put_meta(o, &j->meta);
    spec = ts__podtemplate_child(o, "spec", 1);
    ts__podtemplate_put(spec, "parallelism", opt_i32(&j->parallelism));
    ts__podtemplate_put(spec, "completions", opt_i32(&j->completions));
    ts__podtemplate_put(spec, "backoffLimit", opt_i32(&j->backoff_limit));
    ts__podtemplate_put_string(spec, "completionMode", j->completion_mode);
    ts__podtemplate_put(spec, "suspend", j->suspend.set ? cJSON_CreateBool(j->suspend.v) : NULL);
    ts__podtemplate_put_template(spec, "template", &j->template);
    if (!had_spec)
        ts__podtemplate_prune(o, "spec");
    status_encode(o, j);
    return o;
}

/* --- helpers ------------------------------------------------------------------ */

const char *ts_job_meta_queue_name(const struct ts_object_meta *m)
{
    const char *q = ts_strmap_get(&m->labels, TS_LABEL_QUEUE_NAME);

    if (q && q[0])
        return q;
    q = ts_strmap_get(&m->annotations, TS_LABEL_QUEUE_NAME);
    return q && q[0] ? q : NULL;
}

const char *ts_job_queue_name(const struct ts_job *j)
{
    return ts_job_meta_queue_name(&j->meta);
}

const struct ts_job_condition *ts_job_condition(const struct ts_job *j, const char *type)
{
    for (size_t i = 0; i < j->n_conditions; i++) {
        if (j->conditions[i].type && strcmp(j->conditions[i].type, type) == 0)
            return &j->conditions[i];
    }
    return NULL;
}

int ts_job_is_finished(const struct ts_job *j, int *success, const char **message)
{
    for (size_t i = 0; i < j->n_conditions; i++) {
        const struct ts_job_condition *c = &j->conditions[i];
        int complete = c->type && strcmp(c->type, "Complete") == 0;
        int failed = c->type && strcmp(c->type, "Failed") == 0;

        if ((complete || failed) && c->status && strcmp(c->status, "True") == 0) {
            if (success)
                *success = complete;
            if (message)
                *message = c->message;
            return 1;
        }
    }
    return 0;
}

int ts_job_is_suspended(const struct ts_job *j)
{
    return j->suspend.set && j->suspend.v;
}

int32_t ts_job_pod_count(const struct ts_job *j)
{
    int32_t n = j->parallelism.set ? j->parallelism.v : 1;

    if (j->completions.set && j->completions.v < n)
        n = j->completions.v;
    return n;
}
