/*
 * webhook_int.h - private to pkg/webhook/webhook*.c: the parsed request,
 * the response being built and the per-kind handlers.
 *
 * Every handler reads a struct ts__wh_req (borrowed views into the review
 * tree) and fills a struct ts__wh_resp; webhook.c turns that into the
 * AdmissionReview response.  Handlers run on server threads concurrently:
 * they touch only their arguments and the immutable struct ts_webhook.
 */
#ifndef TS_WEBHOOK_INT_H
#define TS_WEBHOOK_INT_H

#include <cJSON.h>

#include "api/field.h"
#include "api/object.h"
#include "util/strlist.h"
#include "webhook/webhook.h"

struct ts_webhook {
    struct ts_webhook_options opts; /* system_namespace points at ns below */
    char *ns;
};

/* One AdmissionReview request; every pointer is borrowed from the review
 * tree.  object/old_object are NULL when absent or JSON null. */
struct ts__wh_req {
    const char *uid;
    const char *operation; /* CREATE, UPDATE, DELETE, CONNECT */
    const char *namespace_;
    const char *sub_resource; /* "" or "status" */
    const cJSON *object;
    const cJSON *old_object;
};

struct ts__wh_resp {
    int allowed;
    int code;           /* status.code when denied */
    const char *reason; /* static: "Forbidden", "BadRequest" */
    struct ts_buf message;
    cJSON *patch; /* owned RFC 6902 array, NULL = no patch */
    /* response.warnings (kubectl prints each as "Warning: ..."), owned */
    struct ts_strlist warnings;
};

typedef void (*ts__wh_fn)(const struct ts_webhook *wh, const struct ts__wh_req *rq,
                          enum ts_kind kind, struct ts__wh_resp *rs);

/* Denies with status {code, reason, message}. */
void ts__wh_deny(struct ts__wh_resp *rs, int code, const char *reason, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Denies with 403 Forbidden and the errors joined as Kubernetes' aggregate
 * prints them; does nothing for an empty list. */
void ts__wh_deny_errs(struct ts__wh_resp *rs, const struct ts_field_errors *errs);
/* Sets rs->patch to the JSONPatch from `orig` to `mutated` (none when they
 * are equal).  Ownership: both borrowed. */
void ts__wh_set_patch(struct ts__wh_resp *rs, const cJSON *orig, const cJSON *mutated);
/* 1 when rq->operation equals op. */
int ts__wh_op_is(const struct ts__wh_req *rq, const char *op);
/* 1 when obj's controller is a kind Turnstile manages itself, or one of
 * integrations.externalFrameworks (its workload covers obj: Kueue's
 * IsOwnerManagedByKueue). */
int ts__wh_owner_managed(const struct ts_webhook *wh, const cJSON *obj);
/* 1 when LocalQueue `name` exists in `ns` (through the lookup; 0 without). */
int ts__wh_lq_exists(const struct ts_webhook *wh, const char *ns, const char *name);
/* The object's namespace: request.namespace, else metadata.namespace, else "". */
const char *ts__wh_namespace(const struct ts__wh_req *rq);
/* Whether namespace ns is managed (callback, else not kube-system nor the
 * system namespace). */
int ts__wh_namespace_managed(const struct ts_webhook *wh, const char *ns);

/* Kueue kinds (webhook_kueue.c). */
void ts__wh_validate_kueue(const struct ts_webhook *wh, const struct ts__wh_req *rq,
                           enum ts_kind kind, struct ts__wh_resp *rs);
void ts__wh_mutate_kueue(const struct ts_webhook *wh, const struct ts__wh_req *rq,
                         enum ts_kind kind, struct ts__wh_resp *rs);

/* batch/v1 Job, the Kubeflow jobs, JobSet, Pods and KubeRay's RayJob and
 * RayCluster (webhook_job.c). */
void ts__wh_mutate_job(const struct ts_webhook *wh, const struct ts__wh_req *rq, enum ts_kind kind,
                       struct ts__wh_resp *rs);
void ts__wh_validate_job(const struct ts_webhook *wh, const struct ts__wh_req *rq,
                         enum ts_kind kind, struct ts__wh_resp *rs);

/* RayJob and RayCluster rules (webhook_ray.c).  _managed: 1 when Kueue's
 * Ray webhooks check the job (a queue name, or manageJobsWithoutQueueName).
 * _validate: appends the create rules' errors; returns 1 where Kueue
 * returns before its common job checks (a RayJob's clusterSelector, a
 * missing rayClusterSpec). */
int ts__wh_ray_managed(const struct ts_webhook *wh, const struct ts_ray_job *j);
int ts__wh_validate_ray(const struct ts_webhook *wh, const struct ts_ray_job *j,
                        struct ts_field_errors *errs);

/* ConversionReview (webhook_convert.c): writes the response review to out. */
/* Kueue's deployment webhook (webhook_serving.c): a Deployment with a queue
 * name passes it, the managed label, its priority class and the
 * pod-suspending-parent annotation to its pod template, whose Pods the pod
 * webhook then gates; the queue name is immutable once replicas are ready. */
void ts__wh_mutate_deployment(const struct ts_webhook *wh, const struct ts__wh_req *rq,
                              enum ts_kind kind, struct ts__wh_resp *rs);
void ts__wh_validate_deployment(const struct ts_webhook *wh, const struct ts__wh_req *rq,
                                enum ts_kind kind, struct ts__wh_resp *rs);
/* The same for a StatefulSet: only the pod-suspending-parent annotation on
 * its template; its replicas change only to or from 0 once managed. */
void ts__wh_mutate_statefulset(const struct ts_webhook *wh, const struct ts__wh_req *rq,
                               enum ts_kind kind, struct ts__wh_resp *rs);
void ts__wh_validate_statefulset(const struct ts_webhook *wh, const struct ts__wh_req *rq,
                                 enum ts_kind kind, struct ts__wh_resp *rs);

void ts__wh_convert(const char *body, size_t len, struct ts_buf *out);

/* Appends a metav1.Status failure JSON to out. */
void ts__wh_status_json(struct ts_buf *out, int code, const char *reason, const char *message);

#endif
