/*
 * webhook.h - Turnstile's admission and conversion webhooks as pure
 * functions: an AdmissionReview v1 (or ConversionReview v1) body in, the
 * response body out, no network (server.h puts these on the wire; the
 * reliability work can fuzz ts_webhook_handle() directly).
 *
 * Paths (Kueue's, from its config/components/webhook/manifests.yaml):
 *   /mutate-kueue-x-k8s-io-v1beta2-{clusterqueue,resourceflavor,workload}
 *   /validate-kueue-x-k8s-io-v1beta2-{clusterqueue,localqueue,resourceflavor,
 *                                     cohort,workload,workloadpriorityclass}
 *   the same with v1beta1 (same handlers: objects of either version are
 *   converted to v1beta2 before the rules of pkg/api run),
 *   /mutate-batch-v1-job, /validate-batch-v1-job,
 *   /mutate-kubeflow-org-v1-pytorchjob, /validate-kubeflow-org-v1-pytorchjob,
 *   /mutate-kubeflow-org-v1-tfjob, /validate-kubeflow-org-v1-tfjob,
 *   /mutate-kubeflow-org-v2beta1-mpijob, /validate-kubeflow-org-v2beta1-mpijob,
 *   /{mutate,validate}-kubeflow-org-v1-{xgboostjob,paddlejob,jaxjob},
 *   /mutate-jobset-x-k8s-io-v1alpha2-jobset, /validate-jobset-x-k8s-io-v1alpha2-jobset,
 *   /mutate-ray-io-v1-rayjob, /validate-ray-io-v1-rayjob,
 *   /mutate-ray-io-v1-raycluster, /validate-ray-io-v1-raycluster,
 *   /mutate-trainer-kubeflow-org-v1alpha1-trainjob,
 *   /validate-trainer-kubeflow-org-v1alpha1-trainjob,
 *   /convert (ConversionReview, kueue.x-k8s.io v1beta1 <-> v1beta2),
 *   /healthz, /readyz (plain "ok").
 *
 * Answers follow controller-runtime: a review that can be read is always
 * answered with HTTP 200 and an AdmissionReview whose response echoes
 * request.uid; a rule violation is allowed=false with status
 * {code 403, reason Forbidden, message = the field errors joined as
 * apimachinery's aggregate prints them}; a body that is not a review
 * gets allowed=false with status code 400 (controller-runtime's
 * Errored(400)); mutations are a base64 RFC 6902 JSONPatch.
 *
 * Lookups: defaulting needs to know whether LocalQueue "default" exists
 * in a namespace, whether WorkloadPriorityClass "default" exists and
 * whether a namespace is managed.  The controller provides them through
 * struct ts_webhook_lookup; tests use a static table.
 *
 * Thread rule: a struct ts_webhook is immutable after ts_webhook_new()
 * and may be used by any number of threads at once.  The lookup callbacks
 * are called from those threads concurrently: the provider must make them
 * thread-safe (one lock or an immutable snapshot) and non-blocking.
 *
 * Ownership: ts_webhook_new() copies the options (strings included);
 * ts_webhook_free() releases them.  Lookup ctx stays the caller's.
 */
#ifndef TS_WEBHOOK_H
#define TS_WEBHOOK_H

#include <cJSON.h>
#include <stddef.h>

#include "util/buf.h"
#include "util/err.h"

/* Requests larger than this are refused (413-style error). */
#define TS_WEBHOOK_MAX_BODY (3u * 1024u * 1024u)
/* The namespace Turnstile runs in unless configured otherwise. */
#define TS_WEBHOOK_DEFAULT_NAMESPACE "turnstile-system"
#define TS_LABEL_PREBUILT_WORKLOAD   "kueue.x-k8s.io/prebuilt-workload-name"
#define TS_LABEL_MAX_EXEC_TIME       "kueue.x-k8s.io/max-exec-time-seconds"
#define TS_ANNOTATION_COMPLETIONS_EQUAL_PARALLELISM                                                \
    "kueue.x-k8s.io/job-completions-equal-parallelism"
#define TS_ANNOTATION_ELASTIC_JOB "kueue.x-k8s.io/elastic-job"

/* Cluster state the defaulting rules read.  Each callback may be NULL
 * (then: no LocalQueue "default", no WorkloadPriorityClass "default",
 * namespace managed unless it is kube-system or the system namespace). */
struct ts_webhook_lookup {
    /* 1 when LocalQueue `name` exists in namespace `ns`. */
    int (*local_queue_exists)(void *ctx, const char *ns, const char *name);
    /* 1 when WorkloadPriorityClass `name` exists. */
    int (*wpc_exists)(void *ctx, const char *name);
    /* 1 when namespace `ns` matches managedJobsNamespaceSelector. */
    int (*namespace_managed)(void *ctx, const char *ns);
    void *ctx;
};

struct ts_webhook_options {
    /* Configuration.manageJobsWithoutQueueName: every job in a managed
     * namespace is suspended on create. */
    int manage_jobs_without_queue_name;
    /* Feature gates (Kueue's defaults: both on).  partial_admission off
     * makes the Workload webhook drop podSets[].minCount. */
    int partial_admission;
    int wpc_defaulting;
    /* Feature gate PriorityBoost (Kueue's default: off): the Workload
     * webhook checks the kueue.x-k8s.io/priority-boost annotation. */
    int priority_boost;
    /* integrations.frameworks "pod", "deployment", "statefulset" (on by default,
     * as in Kueue's shipped configuration).  Without "pod" only the Pods
     * of a managed Deployment are gated (Kueue's implicitly enabled pod
     * integration). */
    int manage_pods, manage_deployments, manage_statefulsets;
    /* integrations.externalFrameworks ("Kind.version.group"): a job or Pod
     * controlled by one of these kinds is left alone; NULL: none.
     * Borrowed: must outlive the webhook. */
    const struct ts_strlist *external_frameworks;
    /* Turnstile's namespace (default TS_WEBHOOK_DEFAULT_NAMESPACE). */
    const char *system_namespace;
    struct ts_webhook_lookup lookup;
};

struct ts_webhook;

/* Fills o with Kueue's defaults (gates on, manageJobsWithoutQueueName
 * off, no lookups). */
void ts_webhook_options_init(struct ts_webhook_options *o);

/* Creates a handler set from o (copied).  Ownership: free with
 * ts_webhook_free(). */
struct ts_webhook *ts_webhook_new(const struct ts_webhook_options *o);
void ts_webhook_free(struct ts_webhook *wh);

/* Handles one request: `path` (query string allowed and ignored) and the
 * body body[0..len) (need not be NUL-terminated).  Writes the response
 * body (JSON, or "ok" for health paths) to out and returns the HTTP status
 * to send: 200 for every answered review (including denials and
 * malformed reviews, which carry their error inside the review), 404 for
 * an unknown path (Status JSON), 413 for a body over TS_WEBHOOK_MAX_BODY
 * (Status JSON).  Never fails otherwise; safe on arbitrary bytes.
 * Ownership: out is the caller's (appended to). */
int ts_webhook_handle(const struct ts_webhook *wh, const char *path, const char *body, size_t len,
                      struct ts_buf *out);

/* 1 when path (without query) is one ts_webhook_handle() serves. */
int ts_webhook_path_known(const char *path);

#endif
