/*
 * webhook_serving.c - Kueue's webhook for apps/v1 Deployments
 * (pkg/controller/jobs/deployment/deployment_webhook.go).  A Deployment is
 * not queued itself: its Pods are, one Workload each, through the pod
 * integration.  The defaulting makes that happen: when the Deployment has
 * a queue name (or LocalQueue "default" gives it one, or
 * manageJobsWithoutQueueName covers its namespace) its pod template gets
 * the annotation kueue.x-k8s.io/pod-suspending-parent=deployment, the label
 * kueue.x-k8s.io/managed=true, the queue name and the priority-class label,
 * so every Pod the ReplicaSet makes is gated by the pod webhook.
 *
 * Validation: the queue name is a DNS subdomain; it may change only while
 * no replica is ready (Kueue's isSuspended: status.readyReplicas == 0),
 * and never to empty; a WorkloadPriorityClass label cannot be removed, nor
 * added once replicas are ready.  Messages are Kueue's.
 */
#include <string.h>

#include "api/jobworkload.h"
#include "api/names.h"
#include "api/pod.h"
#include "json/json.h"
#include "webhook/webhook_int.h"

#define QUEUE_PATH "metadata.labels[" TS_LABEL_QUEUE_NAME "]"
#define PRIO_PATH  "metadata.labels[" TS_LABEL_PRIORITY_CLASS "]"

static int is_deployment(const cJSON *obj)
{
    const char *av = ts_json_get_string(obj, "apiVersion");
    const char *k = ts_json_get_string(obj, "kind");

    return av && k && !strcmp(av, "apps/v1") && !strcmp(k, "Deployment");
}

/* The queue name: the label, else the legacy annotation, else "". */
static const char *queue_of(const cJSON *obj)
{
    const char *q = ts_json_get_string(obj, QUEUE_PATH);

    if (!q || !*q)
        q = ts_json_get_string(obj, "metadata.annotations[" TS_LABEL_QUEUE_NAME "]");
    return q ? q : "";
}

static const char *str_at(const cJSON *obj, const char *path)
{
    const char *v = ts_json_get_string(obj, path);

    return v ? v : "";
}

static void set_at(cJSON *obj, const char *path, const char *value)
{
    ts_json_set_string(obj, path, value, NULL);
}

void ts__wh_mutate_deployment(const struct ts_webhook *wh, const struct ts__wh_req *rq,
                              enum ts_kind kind, struct ts__wh_resp *rs)
{
    const char *ns = ts__wh_namespace(rq), *prio;
    cJSON *obj;

    (void)kind;
    if (!ts__wh_op_is(rq, "CREATE") && !ts__wh_op_is(rq, "UPDATE"))
        return;
    if (!is_deployment(rq->object)) {
        ts__wh_deny(rs, 400, "BadRequest", "expected a Deployment");
        return;
    }
    if (!wh->opts.manage_deployments)
        return;
    obj = cJSON_Duplicate(rq->object, 1);
    if (!*queue_of(obj) && ts__wh_lq_exists(wh, ns, "default"))
        set_at(obj, QUEUE_PATH, "default");
    if ((*queue_of(obj) || wh->opts.manage_jobs_without_queue_name) &&
        ts__wh_namespace_managed(wh, ns) && !ts__wh_owner_managed(obj)) {
        set_at(obj, "spec.template.metadata.annotations[" TS_POD_ANNOTATION_SUSPENDED_BY "]",
               "deployment");
        set_at(obj, "spec.template.metadata.labels[" TS_POD_LABEL_MANAGED "]", "true");
        if (*queue_of(obj))
            set_at(obj, "spec.template.metadata.labels[" TS_LABEL_QUEUE_NAME "]", queue_of(obj));
        prio = str_at(obj, PRIO_PATH);
        if (*prio)
            set_at(obj, "spec.template.metadata.labels[" TS_LABEL_PRIORITY_CLASS "]", prio);
    }
    ts__wh_set_patch(rs, rq->object, obj);
    cJSON_Delete(obj);
}

void ts__wh_validate_deployment(const struct ts_webhook *wh, const struct ts__wh_req *rq,
                                enum ts_kind kind, struct ts__wh_resp *rs)
{
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    const char *nq, *oq, *np, *op;
    const cJSON *ready;
    int suspended;

    (void)kind;
    if (!ts__wh_op_is(rq, "CREATE") && !ts__wh_op_is(rq, "UPDATE"))
        return;
    if (!is_deployment(rq->object)) {
        ts__wh_deny(rs, 400, "BadRequest", "expected a Deployment");
        return;
    }
    if (!wh->opts.manage_deployments)
        return;
    nq = str_at(rq->object, QUEUE_PATH);
    if (*nq)
        ts_names_dns1123_subdomain(nq, QUEUE_PATH, &errs);
    if (ts__wh_op_is(rq, "UPDATE") && is_deployment(rq->old_object)) {
        oq = str_at(rq->old_object, QUEUE_PATH);
        ready = ts_json_get(rq->old_object, "status.readyReplicas");
        suspended = !cJSON_IsNumber(ready) || ready->valuedouble == 0;
        if ((!suspended || !*nq) && strcmp(nq, oq))
            ts_field_errors_add(&errs, TS_FIELD_INVALID, QUEUE_PATH, nq, 1, "field is immutable");
        np = str_at(rq->object, PRIO_PATH);
        op = str_at(rq->old_object, PRIO_PATH);
        if (!suspended && !*op && *np)
            ts_field_errors_add(&errs, TS_FIELD_FORBIDDEN, PRIO_PATH, NULL, 0,
                                "WorkloadPriorityClass cannot be added to a non-suspended "
                                "workload");
        if (*op && !*np)
            ts_field_errors_add(&errs, TS_FIELD_FORBIDDEN, PRIO_PATH, NULL, 0,
                                "WorkloadPriorityClass cannot be removed from a workload");
    }
    ts__wh_deny_errs(rs, &errs);
    ts_field_errors_release(&errs);
}
