/*
 * whconfig.h - Turnstile's admissionregistration.k8s.io/v1
 * MutatingWebhookConfiguration and ValidatingWebhookConfiguration, built
 * to match Kueue's registrations (config/components/webhook: operations,
 * resources incl. workloads/status, failurePolicy Fail, sideEffects None,
 * admissionReviewVersions [v1], matchPolicy Equivalent), and the caBundle
 * injection the controller does on those and on the CRDs' conversion
 * webhooks.
 *
 * Blast radius: the job webhooks (batch Job, PyTorchJob) exclude the
 * namespaces kube-system and Turnstile's own.  By default they also carry
 * objectSelector "kueue.x-k8s.io/queue-name Exists", so a Job without a
 * queue-name label never waits on Turnstile.  An objectSelector cannot see
 * annotations, so jobs naming their queue only through the legacy
 * annotation (or manageJobsWithoutQueueName, or LocalQueue "default"
 * defaulting) need `wide_job_scope`: every Job in the managed namespaces.
 *
 * clientConfig: `url` set (local mode, e.g. "https://127.0.0.1:9443") gives
 * url + path; otherwise service {namespace, name, path, port 443}.
 *
 * Ownership: builders return new cJSON trees the caller deletes; the
 * injection helpers modify the caller's tree in place.  Pure.
 */
#ifndef TS_WHCONFIG_H
#define TS_WHCONFIG_H

#include <cJSON.h>

#include "util/err.h"

#define TS_WHCONFIG_MUTATING_NAME   "turnstile-mutating-webhook-configuration"
#define TS_WHCONFIG_VALIDATING_NAME "turnstile-validating-webhook-configuration"

struct ts_whconfig_options {
    const char *service;    /* default "turnstile-webhook-service" */
    const char *namespace_; /* default "turnstile-system" */
    const char *url;        /* local mode base URL, or NULL */
    const char *ca_pem;     /* CA bundle PEM, or NULL (no caBundle) */
    int wide_job_scope;     /* see the top comment */
    int timeout_seconds;    /* default 10 */
};

/* Defaults above (narrow job scope, no URL, no CA). */
void ts_whconfig_options_init(struct ts_whconfig_options *o);

/* The two configurations.  Ownership: caller cJSON_Delete()s. */
cJSON *ts_whconfig_mutating(const struct ts_whconfig_options *o);
cJSON *ts_whconfig_validating(const struct ts_whconfig_options *o);

/* A v1 List holding both configurations (for local mode: written to a
 * file the local API server or kubectl loads).  Ownership: caller
 * cJSON_Delete()s. */
cJSON *ts_whconfig_list(const struct ts_whconfig_options *o);

/* Sets caBundle (base64 of ca_pem) on every webhook's clientConfig of a
 * Mutating/ValidatingWebhookConfiguration, or on
 * spec.conversion.webhook.clientConfig of a CustomResourceDefinition whose
 * conversion strategy is Webhook (other CRDs are left alone).  When url is
 * not NULL, clientConfig becomes {url: url + the service path} (local
 * mode).  *changed (may be NULL) says whether obj was modified, so the
 * caller can skip a no-op update.  Returns 0 or TS_EINVAL (not one of
 * those kinds, or a webhook without clientConfig). */
int ts_whconfig_inject(cJSON *obj, const char *ca_pem, const char *url, int *changed,
                       struct ts_err *err);

#endif
