#include "api/rayjob.h"

#include "json/json.h"
#include "util/alloc.h"

#include <stdlib.h>
#include <string.h>

void ts_rayjob_init(struct ts_ray_job *j)
{
    memset(j, 0, sizeof(*j));
    ts_strmap_init(&j->cluster_selector);
    ts_pod_template_init(&j->cluster.head);
    ts_pod_template_init(&j->submitter);
}

static void cluster_release(struct ts_ray_cluster_spec *c)
{
    ts_pod_template_release(&c->head);
    for (size_t i = 0; i < c->n_workers; i++) {
        free(c->workers[i].group_name);
        ts_pod_template_release(&c->workers[i].template);
    }
    free(c->workers);
}

void ts_rayjob_release(struct ts_ray_job *j)
{
    cJSON_Delete(j->raw);
    ts_object_meta_release(&j->meta);
    cluster_release(&j->cluster);
    free(j->submission_mode);
    ts_pod_template_release(&j->submitter);
    ts_strmap_release(&j->cluster_selector);
    free(j->job_deployment_status);
    free(j->job_status);
    free(j->message);
    free(j->cluster_state);
    free(j->state);
    free(j->reason);
    ts_rayjob_init(j);
}

static int eq(const char *a, const char *b)
{
    return a && !strcmp(a, b);
}

/* --- decode ------------------------------------------------------------------- */

static void template_decode(struct ts_dec *d, const cJSON *parent, struct ts_pod_template *t)
{
    size_t mark = ts_path_push(&d->path, "template");

    ts_pod_template_decode(d, ts_dec_object(d, parent, "template"), t);
    ts_path_pop(&d->path, mark);
}

static void worker_decode(struct ts_dec *d, const cJSON *w, struct ts_ray_worker_group *g)
{
    ts_pod_template_init(&g->template);
    if (!cJSON_IsObject(w)) {
        ts_dec_error(d, TS_FIELD_TYPE_INVALID, NULL, NULL, "must be of type object");
        return;
    }
    ts_dec_string(d, w, "groupName", &g->group_name);
    ts_dec_opt_i32(d, w, "replicas", &g->replicas);
    ts_dec_opt_i32(d, w, "minReplicas", &g->min_replicas);
    ts_dec_opt_i32(d, w, "maxReplicas", &g->max_replicas);
    ts_dec_i32(d, w, "numOfHosts", &g->num_of_hosts);
    template_decode(d, w, &g->template);
}

/* RayClusterSpec at obj[key] (a RayJob's rayClusterSpec) or obj itself
 * (key NULL: a RayCluster's spec). */
static void cluster_decode(struct ts_dec *d, const cJSON *obj, const char *key,
                           struct ts_ray_cluster_spec *c)
{
    const cJSON *cs = key ? ts_dec_object(d, obj, key) : obj, *workers, *w;
    size_t mark = key ? ts_path_push(&d->path, key) : d->path.len, hm;

    if (cs) {
        c->present = 1;
        ts_dec_opt_bool(d, cs, "enableInTreeAutoscaling", &c->enable_in_tree_autoscaling);
        hm = ts_path_push(&d->path, "headGroupSpec");
        template_decode(d, ts_dec_object(d, cs, "headGroupSpec"), &c->head);
        ts_path_pop(&d->path, hm);
        workers = ts_dec_array(d, cs, "workerGroupSpecs");
        hm = ts_path_push(&d->path, "workerGroupSpecs");
        if (cJSON_GetArraySize(workers) > 0)
            c->workers = ts_xcalloc((size_t)cJSON_GetArraySize(workers), sizeof(*c->workers));
        cJSON_ArrayForEach(w, workers)
        {
            size_t im = ts_path_push_index(&d->path, c->n_workers);

            worker_decode(d, w, &c->workers[c->n_workers++]);
            ts_path_pop(&d->path, im);
        }
        ts_path_pop(&d->path, hm);
    }
    ts_path_pop(&d->path, mark);
}

static void job_spec_decode(struct ts_dec *d, const cJSON *spec, struct ts_ray_job *j)
{
    const cJSON *sub;

    ts_dec_string(d, spec, "submissionMode", &j->submission_mode);
    ts_dec_bool(d, spec, "shutdownAfterJobFinishes", &j->shutdown_after_job_finishes);
    ts_dec_strmap(d, spec, "clusterSelector", &j->cluster_selector);
    if ((sub = ts_dec_object(d, spec, "submitterPodTemplate"))) {
        size_t mark = ts_path_push(&d->path, "submitterPodTemplate");

        j->has_submitter_template = 1;
        ts_pod_template_decode(d, sub, &j->submitter);
        ts_path_pop(&d->path, mark);
    }
    cluster_decode(d, spec, "rayClusterSpec", &j->cluster);
}

static void status_decode(struct ts_dec *d, const cJSON *st, struct ts_ray_job *j)
{
    if (j->is_job) {
        const cJSON *rcs = ts_dec_object(d, st, "rayClusterStatus");
        size_t mark;

        ts_dec_string(d, st, "jobDeploymentStatus", &j->job_deployment_status);
        ts_dec_string(d, st, "jobStatus", &j->job_status);
        ts_dec_string(d, st, "message", &j->message);
        mark = ts_path_push(&d->path, "rayClusterStatus");
        ts_dec_string(d, rcs, "state", &j->cluster_state);
        ts_path_pop(&d->path, mark);
    } else {
        ts_dec_string(d, st, "state", &j->state);
        ts_dec_string(d, st, "reason", &j->reason);
    }
}

void ts_rayjob_decode(struct ts_dec *d, const cJSON *obj, struct ts_ray_job *j)
{
    const cJSON *spec, *st;
    size_t mark;

    ts_rayjob_release(j);
    if (!cJSON_IsObject(obj)) {
        ts_dec_error(d, TS_FIELD_TYPE_INVALID, NULL, NULL, "must be of type object");
        return;
    }
    j->is_job = eq(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(obj, "kind")), "RayJob");
    j->raw = cJSON_Duplicate(obj, 1);
    ts_object_meta_decode(d, obj, &j->meta);
    spec = ts_dec_object(d, obj, "spec");
    mark = ts_path_push(&d->path, "spec");
    ts_dec_opt_bool(d, spec, "suspend", &j->suspend);
    if (j->is_job)
        job_spec_decode(d, spec, j);
    else
        cluster_decode(d, spec, NULL, &j->cluster);
    ts_path_pop(&d->path, mark);
    st = ts_dec_object(d, obj, "status");
    mark = ts_path_push(&d->path, "status");
    status_decode(d, st, j);
    ts_path_pop(&d->path, mark);
}

/* --- what Kueue reads ------------------------------------------------------------ */

int ts_rayjob_is_suspended(const struct ts_ray_job *j)
{
    return j->suspend.set && j->suspend.v;
}

int ts_rayjob_skip(const struct ts_ray_job *j)
{
    return j->is_job && j->cluster_selector.n > 0;
}

int ts_rayjob_is_finished(const struct ts_ray_job *j, int *success, const char **message)
{
    int done = j->is_job &&
               (eq(j->job_deployment_status, "Complete") || eq(j->job_deployment_status, "Failed"));

    if (success)
        *success = eq(j->job_status, "SUCCEEDED");
    if (message)
        *message = j->message;
    return done;
}

int ts_rayjob_is_active(const struct ts_ray_job *j)
{
    if (!j->is_job)
        return eq(j->state, TS_RAY_STATE_READY);
    return !eq(j->job_deployment_status, "Suspended") && !eq(j->job_deployment_status, "New");
}

int ts_rayjob_pods_ready(const struct ts_ray_job *j)
{
    return eq(j->is_job ? j->cluster_state : j->state, TS_RAY_STATE_READY);
}

int32_t ts_rayjob_group_count(const struct ts_ray_worker_group *g)
{
    int64_t n = g->replicas.set ? g->replicas.v : 1;

    if (g->num_of_hosts > 1)
        n *= g->num_of_hosts;
    return n > INT32_MAX ? INT32_MAX : (int32_t)n;
}

int ts_rayjob_has_submitter(const struct ts_ray_job *j)
{
    return j->is_job && eq(j->submission_mode, TS_RAY_K8S_JOB_MODE);
}

cJSON *ts_rayjob_default_submitter(const struct ts_ray_job *j)
{
    const struct ts_pod_template *h = &j->cluster.head;
    const char *image = ts_json_get_string(h->raw, "spec.containers[0].image");
    cJSON *t = cJSON_CreateObject(), *spec = cJSON_AddObjectToObject(t, "spec");
    cJSON *c = cJSON_CreateObject(), *res = cJSON_AddObjectToObject(c, "resources");
    cJSON *lim = cJSON_AddObjectToObject(res, "limits");
    cJSON *req = cJSON_AddObjectToObject(res, "requests");

    cJSON_AddStringToObject(c, "name", "ray-job-submitter");
    /* the head's image, against version mismatches (KubeRay's common/job.go) */
    if (image)
        cJSON_AddStringToObject(c, "image", image);
    cJSON_AddStringToObject(lim, "cpu", "1");
    cJSON_AddStringToObject(lim, "memory", "1Gi");
    cJSON_AddStringToObject(req, "cpu", "500m");
    cJSON_AddStringToObject(req, "memory", "200Mi");
    cJSON_AddItemToArray(cJSON_AddArrayToObject(spec, "containers"), c);
    cJSON_AddStringToObject(spec, "restartPolicy", "Never");
    return t;
}
