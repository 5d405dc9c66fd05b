/*
 * webhook_serving.c - Kueue's webhooks for apps/v1 Deployments and
 * StatefulSets (pkg/controller/jobs/deployment/deployment_webhook.go,
 * jobs/statefulset/statefulset_webhook.go).  Neither is queued itself:
 * their Pods are, through the pod integration - a Deployment's one
 * Workload each, a StatefulSet's as one pod group (controller/statefulset.c).
 * The defaulting makes that happen: when the object has a queue name (or
 * LocalQueue "default" gives it one, or manageJobsWithoutQueueName covers
 * its namespace) its pod template gets the annotation
 * kueue.x-k8s.io/pod-suspending-parent=deployment|statefulset, so every Pod
 * its controller makes is gated by the pod webhook; the template also gets
 * the label kueue.x-k8s.io/managed=true, the queue name and the
 * priority-class label.  (Kueue labels a StatefulSet's Pods from its
 * controller only; here the Pods need the queue-name label already at
 * creation, for the pod webhook's objectSelector to send them to us.)
 *
 * Validation: the queue name is a DNS subdomain; it may change only while
 * no replica is ready (Kueue's isSuspended: status.readyReplicas == 0),
 * and never to empty; a WorkloadPriorityClass label cannot be removed, nor
 * added once replicas are ready; a managed StatefulSet's replicas change
 * only to or from 0 (its group is the whole set).  Messages are Kueue's.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "api/jobworkload.h"
#include "api/names.h"
#include "api/pod.h"
#include "json/json.h"
#include "webhook/webhook_int.h"

#define QUEUE_PATH "metadata.labels[" TS_LABEL_QUEUE_NAME "]"
#define PRIO_PATH  "metadata.labels[" TS_LABEL_PRIORITY_CLASS "]"

/* The two kinds: their name, and whether their template takes labels. */
struct serving {
    const char *kind;      /* "Deployment" */
    const char *framework; /* the pod-suspending-parent value: "deployment" */
    int template_labels;   /* the queue name and the managed label too */
};

static const struct serving deployment = {"Deployment", "deployment", 1};
static const struct serving statefulset = {"StatefulSet", "statefulset", 1};

static int is_kind(const cJSON *obj, const struct serving *sv)
{
    const char *av = ts_json_get_string(obj, "apiVersion");
    const char *k = ts_json_get_string(obj, "kind");

    return av && k && !strcmp(av, "apps/v1") && !strcmp(k, sv->kind);
}

static int enabled(const struct ts_webhook *wh, const struct serving *sv)
{
    return sv == &deployment ? wh->opts.manage_deployments : wh->opts.manage_statefulsets;
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

static void mutate(const struct ts_webhook *wh, const struct ts__wh_req *rq,
                   const struct serving *sv, struct ts__wh_resp *rs)
{
    const char *ns = ts__wh_namespace(rq), *prio;
    cJSON *obj;

    if (!ts__wh_op_is(rq, "CREATE") && !ts__wh_op_is(rq, "UPDATE"))
        return;
    if (!is_kind(rq->object, sv)) {
        ts__wh_deny(rs, 400, "BadRequest", "expected a %s", sv->kind);
        return;
    }
    if (!enabled(wh, sv))
        return;
    obj = cJSON_Duplicate(rq->object, 1);
    if (!*queue_of(obj) && ts__wh_lq_exists(wh, ns, "default"))
        set_at(obj, QUEUE_PATH, "default");
    if ((*queue_of(obj) || wh->opts.manage_jobs_without_queue_name) &&
        ts__wh_namespace_managed(wh, ns) && !ts__wh_owner_managed(wh, obj)) {
        set_at(obj, "spec.template.metadata.annotations[" TS_POD_ANNOTATION_SUSPENDED_BY "]",
               sv->framework);
        if (!sv->template_labels)
            goto out;
        set_at(obj, "spec.template.metadata.labels[" TS_POD_LABEL_MANAGED "]", "true");
        if (*queue_of(obj))
            set_at(obj, "spec.template.metadata.labels[" TS_LABEL_QUEUE_NAME "]", queue_of(obj));
        prio = str_at(obj, PRIO_PATH);
        if (*prio)
            set_at(obj, "spec.template.metadata.labels[" TS_LABEL_PRIORITY_CLASS "]", prio);
    }
out:
    ts__wh_set_patch(rs, rq->object, obj);
    cJSON_Delete(obj);
}

static int32_t replicas_of(const cJSON *obj)
{
    const cJSON *r = ts_json_get(obj, "spec.replicas");

    return cJSON_IsNumber(r) ? (int32_t)r->valuedouble : 1;
}

static void validate(const struct ts_webhook *wh, const struct ts__wh_req *rq,
                     const struct serving *sv, struct ts__wh_resp *rs)
{
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    const char *nq, *oq, *np, *op;
    const cJSON *ready;
    int suspended;

    if (!ts__wh_op_is(rq, "CREATE") && !ts__wh_op_is(rq, "UPDATE"))
        return;
    if (!is_kind(rq->object, sv)) {
        ts__wh_deny(rs, 400, "BadRequest", "expected a %s", sv->kind);
        return;
    }
    if (!enabled(wh, sv))
        return;
    nq = str_at(rq->object, QUEUE_PATH);
    if (*nq)
        ts_names_dns1123_subdomain(nq, QUEUE_PATH, &errs);
    if (ts__wh_op_is(rq, "UPDATE") && is_kind(rq->old_object, sv)) {
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
        if (sv == &statefulset &&
            ts_json_get(rq->object,
                        "spec.template.metadata.annotations[" TS_POD_ANNOTATION_SUSPENDED_BY "]")) {
            int32_t o = replicas_of(rq->old_object), n = replicas_of(rq->object);
            char num[16];

            snprintf(num, sizeof(num), "%d", (int)n);
            if (o != 0 && n != 0 && o != n) /* Kueue: the group is the whole set */
                ts_field_errors_add(&errs, TS_FIELD_INVALID, "spec.replicas", num, 0,
                                    "field is immutable");
            else if (o == 0 && n > 0 &&
                     cJSON_IsNumber(ts_json_get(rq->object, "status.replicas")) &&
                     ts_json_get(rq->object, "status.replicas")->valuedouble > 0)
                ts_field_errors_add(&errs, TS_FIELD_FORBIDDEN, "spec.replicas", NULL, 0,
                                    "scaling down is still in progress");
        }
    }
    ts__wh_deny_errs(rs, &errs);
    ts_field_errors_release(&errs);
}

void ts__wh_mutate_deployment(const struct ts_webhook *wh, const struct ts__wh_req *rq,
                              enum ts_kind kind, struct ts__wh_resp *rs)
{
    (void)kind;
    mutate(wh, rq, &deployment, rs);
}

void ts__wh_validate_deployment(const struct ts_webhook *wh, const struct ts__wh_req *rq,
                                enum ts_kind kind, struct ts__wh_resp *rs)
{
    (void)kind;
    validate(wh, rq, &deployment, rs);
}

void ts__wh_mutate_statefulset(const struct ts_webhook *wh, const struct ts__wh_req *rq,
                               enum ts_kind kind, struct ts__wh_resp *rs)
{
    (void)kind;
    mutate(wh, rq, &statefulset, rs);
}

void ts__wh_validate_statefulset(const struct ts_webhook *wh, const struct ts__wh_req *rq,
                                 enum ts_kind kind, struct ts__wh_resp *rs)
{
    (void)kind;
    validate(wh, rq, &statefulset, rs);
}
