#include "api/trainjob.h"

#include "json/json.h"
#include "util/alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ts_trainjob_init(struct ts_trainjob *t)
{
    memset(t, 0, sizeof(*t));
    ts_object_meta_init(&t->meta);
    ts_jobset_init(&t->child);
    t->resolve_rc = TS_ENOTFOUND;
}

void ts_trainjob_release(struct ts_trainjob *t)
{
    cJSON_Delete(t->raw);
    ts_object_meta_release(&t->meta);
    free(t->runtime_name);
    free(t->runtime_group);
    free(t->runtime_kind);
    ts_job_conditions_free(t->conditions, t->n_conditions);
    for (size_t i = 0; i < t->n_statuses; i++)
        free(t->statuses[i].name);
    free(t->statuses);
    ts_jobset_release(&t->child);
    ts_trainjob_init(t);
}

void ts_trainjob_decode(struct ts_dec *d, const cJSON *obj, struct ts_trainjob *t)
{
    const cJSON *spec, *ref, *status;
    size_t mark;

    ts_trainjob_release(t);
    if (!cJSON_IsObject(obj)) {
        ts_dec_error(d, TS_FIELD_TYPE_INVALID, NULL, NULL, "must be of type object");
        return;
    }
    t->raw = cJSON_Duplicate(obj, 1);
    ts_object_meta_decode(d, obj, &t->meta);
    spec = ts_dec_object(d, obj, "spec");
    mark = ts_path_push(&d->path, "spec");
    ts_dec_opt_bool(d, spec, "suspend", &t->suspend);
    ref = ts_dec_object(d, spec, "runtimeRef");
    ts_path_push(&d->path, "runtimeRef");
    ts_dec_string(d, ref, "name", &t->runtime_name);
    ts_dec_string(d, ref, "apiGroup", &t->runtime_group);
    ts_dec_string(d, ref, "kind", &t->runtime_kind);
    ts_path_pop(&d->path, mark);
    /* the CRD's defaults */
    if (!t->runtime_group)
        t->runtime_group = ts_xstrdup(TS_TRAINER_GROUP);
    if (!t->runtime_kind)
        t->runtime_kind = ts_xstrdup(TS_TRAINER_KIND_CTR);
    status = ts_dec_object(d, obj, "status");
    mark = ts_path_push(&d->path, "status");
    ts_job_conditions_decode(d, status, &t->conditions, &t->n_conditions);
    ts_jobset_statuses_decode(d, status, "jobsStatus", &t->statuses, &t->n_statuses);
    ts_path_pop(&d->path, mark);
}

int ts_trainjob_runtime_is_cluster(const struct ts_trainjob *t)
{
    if (!t->runtime_group || strcmp(t->runtime_group, TS_TRAINER_GROUP) || !t->runtime_kind)
        return -1;
    if (!strcmp(t->runtime_kind, TS_TRAINER_KIND_CTR))
        return 1;
    return strcmp(t->runtime_kind, TS_TRAINER_KIND_TR) ? -1 : 0;
}

static int resolved(struct ts_trainjob *t, int rc, const char *msg, struct ts_err *err)
{
    t->resolve_rc = rc;
    snprintf(t->resolve_msg, sizeof(t->resolve_msg), "%s", msg);
    return rc ? ts_err_set(err, rc, "%s", msg) : 0;
}

int ts_trainjob_resolve(struct ts_trainjob *t, const cJSON *runtime, struct ts_err *err)
{
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_err e = {0};
    char msg[256];
    struct ts_dec d;
    cJSON *js = NULL;
    int rc;

    ts_jobset_release(&t->child);
    if (ts_trainjob_runtime_is_cluster(t) < 0) { /* Kueue's getChildJobSet */
        snprintf(msg, sizeof(msg), "unsupported runtime: %s.%s", t->runtime_kind, t->runtime_group);
        return resolved(t, TS_EINVAL, msg, err);
    }
    if (!runtime) {
        snprintf(msg, sizeof(msg), "runtime '%s' not found",
                 t->runtime_name ? t->runtime_name : "");
        return resolved(t, TS_ENOTFOUND, msg, err);
    }
    if ((rc = ts_trainjob_jobset_build(t->raw, runtime, &js, &e)))
        return resolved(t, rc, e.msg, err);
    ts_dec_init(&d, &errs);
    ts_jobset_decode(&d, js, &t->child);
    cJSON_Delete(js);
    if (errs.n) {
        rc = ts_field_errors_to_err(&errs, "TrainJob runtime", &e);
        ts_field_errors_release(&errs);
        ts_jobset_release(&t->child);
        return resolved(t, rc, e.msg, err);
    }
    ts_field_errors_release(&errs);
    return resolved(t, 0, "", err);
}

int ts_trainjob_is_suspended(const struct ts_trainjob *t)
{
    return t->suspend.set && t->suspend.v;
}

int ts_trainjob_is_finished(const struct ts_trainjob *t, int *success, const char **message)
{
    int ok = ts_jobset_cond_true(t->conditions, t->n_conditions, "Complete", message);

    if (!ok && !ts_jobset_cond_true(t->conditions, t->n_conditions, "Failed", message))
        return 0;
    if (success)
        *success = ok;
    return 1;
}

int ts_trainjob_is_active(const struct ts_trainjob *t)
{
    return ts_jobset_statuses_active(t->statuses, t->n_statuses);
}

int ts_trainjob_pods_ready(const struct ts_trainjob *t)
{
    int64_t want = 0, have = 0;

    if (t->resolve_rc)
        return 0;
    for (size_t i = 0; i < t->child.n_jobs; i++)
        want += t->child.jobs[i].replicas;
    for (size_t i = 0; i < t->n_statuses; i++)
        have += (int64_t)t->statuses[i].ready + t->statuses[i].succeeded;
    return want == have;
}

cJSON *ts_trainjob_json_patch(const cJSON *job, const char *manager)
{
    cJSON *p;

    cJSON_ArrayForEach(p, ts_json_get(job, "spec.runtimePatches"))
    {
        const char *m = ts_json_get_string(p, "manager");

        if (m && !strcmp(m, manager))
            return p;
    }
    return NULL;
}
