/*
 * jobsim_ray.c - --simulate-job-runtime's stand-in for the KubeRay operator
 * (ray-operator/controllers/ray): the status it writes on a RayJob and a
 * RayCluster, as Kueue reads it.  An unsuspended RayJob is Running (its
 * cluster ready) and, once jobsim.c's runtime is over, Complete with
 * jobStatus SUCCEEDED; suspended, it is Suspended with its cluster and job
 * fields reset, as KubeRay resets them.  A RayCluster is ready while
 * unsuspended (it never finishes) and suspended otherwise.
 */
#include "apiserver/server_int.h"

#include <stdio.h>
#include <string.h>

#include "json/json.h"

enum ts__as_ray ts__as_ray_kind(const struct ts__as_res *res)
{
    if (res->kindid != TS__AS_CR || strcmp(res->group, "ray.io"))
        return TS__AS_RAY_NONE;
    if (!strcmp(res->kind, "RayJob"))
        return TS__AS_RAY_JOB;
    return strcmp(res->kind, "RayCluster") ? TS__AS_RAY_NONE : TS__AS_RAY_CLUSTER;
}

static int str_is(const cJSON *obj, const char *path, const char *want)
{
    const char *v = ts_json_get_string(obj, path);

    return v && !strcmp(v, want);
}

int ts__as_ray_started(enum ts__as_ray k, const cJSON *obj)
{
    if (k == TS__AS_RAY_CLUSTER)
        return str_is(obj, "status.state", "ready");
    return ts_json_get_string(obj, "status.startTime") != NULL;
}

int ts__as_ray_finished(enum ts__as_ray k, const cJSON *obj)
{
    return k == TS__AS_RAY_JOB && (str_is(obj, "status.jobDeploymentStatus", "Complete") ||
                                   str_is(obj, "status.jobDeploymentStatus", "Failed"));
}

/* The cluster's worker count: replicas times numOfHosts per group. */
static int64_t workers(const cJSON *cluster)
{
    const cJSON *w;
    int64_t n = 0;

    cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(cluster, "workerGroupSpecs"))
    {
        int64_t r = 0, h = 1;

        ts_json_get_i64(cJSON_GetObjectItemCaseSensitive(w, "replicas"), &r);
        ts_json_get_i64(cJSON_GetObjectItemCaseSensitive(w, "numOfHosts"), &h);
        n += r * (h > 1 ? h : 1);
    }
    return n;
}

/* RayClusterStatus fields at `at` ("status" or "status.rayClusterStatus"). */
static void cluster_status(cJSON *obj, const char *at, const cJSON *cluster, int ready)
{
    static const char *const counts[] = {"desiredWorkerReplicas", "readyWorkerReplicas",
                                         "availableWorkerReplicas"};
    int64_t n = ready ? workers(cluster) : 0;
    char path[96];

    snprintf(path, sizeof(path), "%s.state", at);
    ts_json_set_string(obj, path, ready ? "ready" : "suspended", NULL);
    for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
        snprintf(path, sizeof(path), "%s.%s", at, counts[i]);
        ts_json_set(obj, path, cJSON_CreateNumber((double)n), NULL);
    }
}

void ts__as_ray_start(enum ts__as_ray k, cJSON *obj, const char *now)
{
    const char *name = ts_json_get_string(obj, "metadata.name");
    char cluster[300];

    if (k == TS__AS_RAY_CLUSTER) {
        cluster_status(obj, "status", ts_json_get(obj, "spec"), 1);
        return;
    }
    snprintf(cluster, sizeof(cluster), "%s-raycluster", name ? name : "");
    ts_json_set_string(obj, "status.startTime", now, NULL);
    ts_json_set_string(obj, "status.jobId", name ? name : "", NULL);
    ts_json_set_string(obj, "status.rayClusterName", cluster, NULL);
    ts_json_set_string(obj, "status.jobDeploymentStatus", "Running", NULL);
    ts_json_set_string(obj, "status.jobStatus", "RUNNING", NULL);
    cluster_status(obj, "status.rayClusterStatus", ts_json_get(obj, "spec.rayClusterSpec"), 1);
}

void ts__as_ray_complete(enum ts__as_ray k, cJSON *obj, const char *now)
{
    if (k != TS__AS_RAY_JOB)
        return; /* a RayCluster runs until deleted */
    ts_json_set_string(obj, "status.jobDeploymentStatus", "Complete", NULL);
    ts_json_set_string(obj, "status.jobStatus", "SUCCEEDED", NULL);
    ts_json_set_string(obj, "status.endTime", now, NULL);
    ts_json_set_string(obj, "status.message", "Job finished successfully.", NULL);
}

void ts__as_ray_suspend(enum ts__as_ray k, cJSON *obj, const char *now)
{
    static const char *const reset[] = {"startTime", "jobId",   "rayClusterName",
                                        "jobStatus", "message", "rayClusterStatus"};
    cJSON *st;

    (void)now;
    if (k == TS__AS_RAY_CLUSTER) {
        cluster_status(obj, "status", ts_json_get(obj, "spec"), 0);
        return;
    }
    ts_json_set_string(obj, "status.jobDeploymentStatus", "Suspended", NULL);
    st = ts_json_get(obj, "status");
    for (size_t i = 0; i < sizeof(reset) / sizeof(reset[0]); i++)
        cJSON_DeleteItemFromObjectCaseSensitive(st, reset[i]);
}
