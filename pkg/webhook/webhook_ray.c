/*
 * webhook_ray.c - the RayJob and RayCluster rules of Kueue's webhooks
 * (pkg/controller/jobs/rayjob/rayjob_webhook.go, jobs/raycluster/
 * raycluster_webhook.go and common.go ValidateCreate), for a job Kueue
 * manages (a queue name, or manageJobsWithoutQueueName).  Messages are
 * Kueue's.  The gate ElasticJobsViaWorkloadSlices is off (Turnstile has no
 * workload slices), so in-tree autoscaling is always refused.
 */
#include <stdio.h>
#include <string.h>

#include "api/jobworkload.h"
#include "util/buf.h"
#include "webhook/webhook_int.h"

#define MAX_WORKER_GROUPS 7

/* Go's %#v of a map[string]string, as field.Invalid prints it. */
static void go_map(const struct ts_strmap *m, struct ts_buf *out)
{
    ts_buf_adds(out, "map[string]string{");
    for (size_t i = 0; i < m->n; i++)
        ts_buf_addf(out, "%s\"%s\":\"%s\"", i ? ", " : "", m->items[i].key, m->items[i].value);
    ts_buf_adds(out, "}");
}

/* raycluster.ValidateCreate and the RayCluster webhook's own checks, at
 * path `base` ("spec" or "spec.rayClusterSpec"). */
static void check_cluster(const struct ts_ray_cluster_spec *c, const char *base, int is_job,
                          struct ts_field_errors *errs)
{
    char path[128], num[32];

    if (c->enable_in_tree_autoscaling.set && c->enable_in_tree_autoscaling.v) {
        snprintf(path, sizeof(path), "%s.enableInTreeAutoscaling", base);
        ts_field_errors_add(errs, TS_FIELD_INVALID, path, "true", 0, "%s",
                            is_job ? "a kueue managed job should only use autoscaling when "
                                     "workload slicing is enabled"
                                   : "a kueue managed job can use autoscaling only when the "
                                     "ElasticJobsViaWorkloadSlices feature gate is on and the "
                                     "job is an elastic job");
    }
    if (c->n_workers > MAX_WORKER_GROUPS) {
        snprintf(path, sizeof(path), "%s.workerGroupSpecs", base);
        snprintf(num, sizeof(num), "%zu", c->n_workers);
        ts_field_errors_add(errs, TS_FIELD_TOO_MANY, path, num, 0, "must have at most %d items",
                            MAX_WORKER_GROUPS);
    }
    for (size_t i = 0; i < c->n_workers; i++) {
        const char *g = c->workers[i].group_name;

        if (!g || strcmp(g, TS_RAY_PODSET_HEAD))
            continue;
        snprintf(path, sizeof(path), "%s.workerGroupSpecs[%zu].groupName", base, i);
        ts_field_errors_add(errs, TS_FIELD_FORBIDDEN, path, NULL, 0,
                            "\"%s\" is reserved for the head group", TS_RAY_PODSET_HEAD);
    }
}

/* RayJobWebhook.validateCreate; returns 1 where Kueue returns early. */
static int check_rayjob(const struct ts_ray_job *j, struct ts_field_errors *errs)
{
    int selector = j->cluster_selector.n > 0;

    if (selector && j->cluster.present) {
        struct ts_buf v = TS_BUF_INIT;

        go_map(&j->cluster_selector, &v);
        ts_field_errors_add(errs, TS_FIELD_INVALID, "spec.clusterSelector", v.ptr, 0,
                            "a kueue managed job should not use an existing cluster");
        ts_buf_release(&v);
        return 1;
    }
    if (selector)
        return 1;
    if (!j->cluster.present) {
        ts_field_errors_add(errs, TS_FIELD_REQUIRED, "spec.rayClusterSpec", NULL, 0,
                            "rayClusterSpec is required for Kueue-managed jobs that don't use "
                            "clusterSelector");
        return 1;
    }
    if (!j->shutdown_after_job_finishes)
        ts_field_errors_add(errs, TS_FIELD_INVALID, "spec.shutdownAfterJobFinishes", "false", 0,
                            "a kueue managed job should delete the cluster after finishing");
    check_cluster(&j->cluster, "spec.rayClusterSpec", 1, errs);
    return 0;
}

int ts__wh_ray_managed(const struct ts_webhook *wh, const struct ts_ray_job *j)
{
    const char *q = ts_job_meta_queue_name(&j->meta);

    return wh->opts.manage_jobs_without_queue_name || (q && *q);
}

int ts__wh_validate_ray(const struct ts_webhook *wh, const struct ts_ray_job *j,
                        struct ts_field_errors *errs)
{
    if (!ts__wh_ray_managed(wh, j))
        return 0;
    if (j->is_job)
        return check_rayjob(j, errs);
    check_cluster(&j->cluster, "spec", 0, errs);
    return 0;
}
