/*
 * whconfig.c - webhook configuration builders and caBundle injection.
 */
#include "webhook/whconfig.h"

#include <stdio.h>
#include <string.h>

#include "json/json.h"
#include "util/alloc.h"
#include "webhook/cert.h"
#include "webhook/webhook.h"

#define KUEUE_VERSION "v1beta2"

enum hook_flags {
    HOOK_UPDATE = 1 << 0, /* CREATE and UPDATE (else CREATE only) */
    HOOK_JOB = 1 << 1,    /* namespace exclusion (+ objectSelector when narrow) */
    HOOK_STATUS = 1 << 2, /* also the status subresource */
};

struct hook {
    const char *name;
    const char *path;
    const char *group;
    const char *version;
    const char *resource;
    unsigned flags;
};

static const struct hook mutating[] = {
    {"mclusterqueue.kb.io", "/mutate-kueue-x-k8s-io-v1beta2-clusterqueue", "kueue.x-k8s.io",
     KUEUE_VERSION, "clusterqueues", 0},
    {"mresourceflavor.kb.io", "/mutate-kueue-x-k8s-io-v1beta2-resourceflavor", "kueue.x-k8s.io",
     KUEUE_VERSION, "resourceflavors", 0},
    {"mworkload.kb.io", "/mutate-kueue-x-k8s-io-v1beta2-workload", "kueue.x-k8s.io", KUEUE_VERSION,
     "workloads", 0},
    {"mjob.kb.io", "/mutate-batch-v1-job", "batch", "v1", "jobs", HOOK_JOB},
    {"mpytorchjob.kb.io", "/mutate-kubeflow-org-v1-pytorchjob", "kubeflow.org", "v1", "pytorchjobs",
     HOOK_JOB},
    {"mtfjob.kb.io", "/mutate-kubeflow-org-v1-tfjob", "kubeflow.org", "v1", "tfjobs", HOOK_JOB},
    {"mmpijob.kb.io", "/mutate-kubeflow-org-v2beta1-mpijob", "kubeflow.org", "v2beta1", "mpijobs",
     HOOK_JOB},
    {"mxgboostjob.kb.io", "/mutate-kubeflow-org-v1-xgboostjob", "kubeflow.org", "v1", "xgboostjobs",
     HOOK_JOB},
    {"mpaddlejob.kb.io", "/mutate-kubeflow-org-v1-paddlejob", "kubeflow.org", "v1", "paddlejobs",
     HOOK_JOB},
    {"mjaxjob.kb.io", "/mutate-kubeflow-org-v1-jaxjob", "kubeflow.org", "v1", "jaxjobs", HOOK_JOB},
    {"mjobset.kb.io", "/mutate-jobset-x-k8s-io-v1alpha2-jobset", "jobset.x-k8s.io", "v1alpha2",
     "jobsets", HOOK_JOB},
    {"mpod.kb.io", "/mutate--v1-pod", "", "v1", "pods", HOOK_JOB},
    {"mdeployment.kb.io", "/mutate-apps-v1-deployment", "apps", "v1", "deployments",
     HOOK_UPDATE | HOOK_JOB},
    {"mrayjob.kb.io", "/mutate-ray-io-v1-rayjob", "ray.io", "v1", "rayjobs", HOOK_JOB},
    {"mraycluster.kb.io", "/mutate-ray-io-v1-raycluster", "ray.io", "v1", "rayclusters", HOOK_JOB},
    {"mstatefulset.kb.io", "/mutate-apps-v1-statefulset", "apps", "v1", "statefulsets",
     HOOK_UPDATE | HOOK_JOB},
    {"mtrainjob.kb.io", "/mutate-trainer-kubeflow-org-v1alpha1-trainjob", "trainer.kubeflow.org",
     "v1alpha1", "trainjobs", HOOK_JOB},
};

static const struct hook validating[] = {
    {"vclusterqueue.kb.io", "/validate-kueue-x-k8s-io-v1beta2-clusterqueue", "kueue.x-k8s.io",
     KUEUE_VERSION, "clusterqueues", HOOK_UPDATE},
    {"vcohort.kb.io", "/validate-kueue-x-k8s-io-v1beta2-cohort", "kueue.x-k8s.io", KUEUE_VERSION,
     "cohorts", HOOK_UPDATE},
    {"vlocalqueue.kb.io", "/validate-kueue-x-k8s-io-v1beta2-localqueue", "kueue.x-k8s.io",
     KUEUE_VERSION, "localqueues", HOOK_UPDATE},
    {"vresourceflavor.kb.io", "/validate-kueue-x-k8s-io-v1beta2-resourceflavor", "kueue.x-k8s.io",
     KUEUE_VERSION, "resourceflavors", HOOK_UPDATE},
    {"vworkload.kb.io", "/validate-kueue-x-k8s-io-v1beta2-workload", "kueue.x-k8s.io",
     KUEUE_VERSION, "workloads", HOOK_UPDATE | HOOK_STATUS},
    {"vworkloadpriorityclass.kb.io", "/validate-kueue-x-k8s-io-v1beta2-workloadpriorityclass",
     "kueue.x-k8s.io", KUEUE_VERSION, "workloadpriorityclasses", HOOK_UPDATE},
    {"vjob.kb.io", "/validate-batch-v1-job", "batch", "v1", "jobs", HOOK_UPDATE | HOOK_JOB},
    {"vpytorchjob.kb.io", "/validate-kubeflow-org-v1-pytorchjob", "kubeflow.org", "v1",
     "pytorchjobs", HOOK_UPDATE | HOOK_JOB},
    {"vtfjob.kb.io", "/validate-kubeflow-org-v1-tfjob", "kubeflow.org", "v1", "tfjobs",
     HOOK_UPDATE | HOOK_JOB},
    {"vmpijob.kb.io", "/validate-kubeflow-org-v2beta1-mpijob", "kubeflow.org", "v2beta1", "mpijobs",
     HOOK_UPDATE | HOOK_JOB},
    {"vxgboostjob.kb.io", "/validate-kubeflow-org-v1-xgboostjob", "kubeflow.org", "v1",
     "xgboostjobs", HOOK_UPDATE | HOOK_JOB},
    {"vpaddlejob.kb.io", "/validate-kubeflow-org-v1-paddlejob", "kubeflow.org", "v1", "paddlejobs",
     HOOK_UPDATE | HOOK_JOB},
    {"vjaxjob.kb.io", "/validate-kubeflow-org-v1-jaxjob", "kubeflow.org", "v1", "jaxjobs",
     HOOK_UPDATE | HOOK_JOB},
    {"vjobset.kb.io", "/validate-jobset-x-k8s-io-v1alpha2-jobset", "jobset.x-k8s.io", "v1alpha2",
     "jobsets", HOOK_UPDATE | HOOK_JOB},
    {"vpod.kb.io", "/validate--v1-pod", "", "v1", "pods", HOOK_UPDATE | HOOK_JOB},
    {"vdeployment.kb.io", "/validate-apps-v1-deployment", "apps", "v1", "deployments",
     HOOK_UPDATE | HOOK_JOB},
    {"vrayjob.kb.io", "/validate-ray-io-v1-rayjob", "ray.io", "v1", "rayjobs",
     HOOK_UPDATE | HOOK_JOB},
    {"vraycluster.kb.io", "/validate-ray-io-v1-raycluster", "ray.io", "v1", "rayclusters",
     HOOK_UPDATE | HOOK_JOB},
    {"vstatefulset.kb.io", "/validate-apps-v1-statefulset", "apps", "v1", "statefulsets",
     HOOK_UPDATE | HOOK_JOB},
    {"vtrainjob.kb.io", "/validate-trainer-kubeflow-org-v1alpha1-trainjob", "trainer.kubeflow.org",
     "v1alpha1", "trainjobs", HOOK_UPDATE | HOOK_JOB},
};

void ts_whconfig_options_init(struct ts_whconfig_options *o)
{
    memset(o, 0, sizeof(*o));
    o->service = TS_CERT_DEFAULT_SERVICE;
    o->namespace_ = TS_WEBHOOK_DEFAULT_NAMESPACE;
    o->timeout_seconds = 10;
}

static cJSON *strings(const char *a, const char *b)
{
    cJSON *arr = cJSON_CreateArray();

    cJSON_AddItemToArray(arr, cJSON_CreateString(a));
    if (b)
        cJSON_AddItemToArray(arr, cJSON_CreateString(b));
    return arr;
}

static void set_ca(cJSON *cc, const char *ca_pem)
{
    struct ts_buf b = TS_BUF_INIT;

    ts_cert_base64(ca_pem, strlen(ca_pem), &b);
    cJSON_DeleteItemFromObjectCaseSensitive(cc, "caBundle");
    cJSON_AddStringToObject(cc, "caBundle", b.ptr);
    ts_buf_release(&b);
}

static cJSON *client_config(const struct ts_whconfig_options *o, const char *path)
{
    cJSON *cc = cJSON_CreateObject();

    if (o->url) {
        char url[1024];

        snprintf(url, sizeof(url), "%s%s", o->url, path);
        cJSON_AddStringToObject(cc, "url", url);
    } else {
        cJSON *svc = cJSON_AddObjectToObject(cc, "service");

        cJSON_AddStringToObject(svc, "name", o->service);
        cJSON_AddStringToObject(svc, "namespace", o->namespace_);
        cJSON_AddStringToObject(svc, "path", path);
        cJSON_AddNumberToObject(svc, "port", 443);
    }
    if (o->ca_pem)
        set_ca(cc, o->ca_pem);
    return cc;
}

static cJSON *selector(const char *key, const char *op, const char *v1, const char *v2)
{
    cJSON *sel = cJSON_CreateObject();
    cJSON *exprs = cJSON_AddArrayToObject(sel, "matchExpressions");
    cJSON *e = cJSON_CreateObject();

    cJSON_AddStringToObject(e, "key", key);
    cJSON_AddStringToObject(e, "operator", op);
    if (v1)
        cJSON_AddItemToObject(e, "values", strings(v1, v2));
    cJSON_AddItemToArray(exprs, e);
    return sel;
}

static cJSON *rule(const struct hook *h)
{
    cJSON *r = cJSON_CreateObject();
    char status[128];

    cJSON_AddItemToObject(r, "apiGroups", strings(h->group, NULL));
    cJSON_AddItemToObject(r, "apiVersions", strings(h->version, NULL));
    cJSON_AddItemToObject(r, "operations",
                          strings("CREATE", (h->flags & HOOK_UPDATE) ? "UPDATE" : NULL));
    snprintf(status, sizeof(status), "%s/status", h->resource);
    cJSON_AddItemToObject(r, "resources",
                          strings(h->resource, (h->flags & HOOK_STATUS) ? status : NULL));
    return r;
}

static cJSON *webhook(const struct ts_whconfig_options *o, const struct hook *h)
{
    cJSON *w = cJSON_CreateObject();
    cJSON *rules;

    cJSON_AddItemToObject(w, "admissionReviewVersions", strings("v1", NULL));
    cJSON_AddItemToObject(w, "clientConfig", client_config(o, h->path));
    cJSON_AddStringToObject(w, "failurePolicy", "Fail");
    cJSON_AddStringToObject(w, "matchPolicy", "Equivalent");
    cJSON_AddStringToObject(w, "name", h->name);
    if (h->flags & HOOK_JOB) {
        cJSON_AddItemToObject(
            w, "namespaceSelector",
            selector("kubernetes.io/metadata.name", "NotIn", "kube-system", o->namespace_));
        if (!o->wide_job_scope)
            cJSON_AddItemToObject(w, "objectSelector",
                                  selector("kueue.x-k8s.io/queue-name", "Exists", NULL, NULL));
    }
    rules = cJSON_AddArrayToObject(w, "rules");
    cJSON_AddItemToArray(rules, rule(h));
    cJSON_AddStringToObject(w, "sideEffects", "None");
    cJSON_AddNumberToObject(w, "timeoutSeconds", o->timeout_seconds);
    return w;
}

static cJSON *configuration(const struct ts_whconfig_options *o, const char *kind, const char *name,
                            const struct hook *hooks, size_t n)
{
    cJSON *c = cJSON_CreateObject();
    cJSON *meta, *list;

    cJSON_AddStringToObject(c, "apiVersion", "admissionregistration.k8s.io/v1");
    cJSON_AddStringToObject(c, "kind", kind);
    meta = cJSON_AddObjectToObject(c, "metadata");
    cJSON_AddStringToObject(meta, "name", name);
    cJSON_AddStringToObject(cJSON_AddObjectToObject(meta, "labels"), "app.kubernetes.io/name",
                            "turnstile");
    list = cJSON_AddArrayToObject(c, "webhooks");
    for (size_t i = 0; i < n; i++)
        cJSON_AddItemToArray(list, webhook(o, &hooks[i]));
    return c;
}

cJSON *ts_whconfig_mutating(const struct ts_whconfig_options *o)
{
    return configuration(o, "MutatingWebhookConfiguration", TS_WHCONFIG_MUTATING_NAME, mutating,
                         sizeof(mutating) / sizeof(mutating[0]));
}

cJSON *ts_whconfig_validating(const struct ts_whconfig_options *o)
{
    return configuration(o, "ValidatingWebhookConfiguration", TS_WHCONFIG_VALIDATING_NAME,
                         validating, sizeof(validating) / sizeof(validating[0]));
}

cJSON *ts_whconfig_list(const struct ts_whconfig_options *o)
{
    cJSON *list = cJSON_CreateObject();
    cJSON *items;

    cJSON_AddStringToObject(list, "apiVersion", "v1");
    cJSON_AddStringToObject(list, "kind", "List");
    items = cJSON_AddArrayToObject(list, "items");
    cJSON_AddItemToArray(items, ts_whconfig_mutating(o));
    cJSON_AddItemToArray(items, ts_whconfig_validating(o));
    return list;
}

/* --- injection ------------------------------------------------------------------- */

/* Rewrites one clientConfig; returns 0 or TS_EINVAL. */
static int inject_one(cJSON *cc, const char *ca_pem, const char *url, struct ts_err *err)
{
    if (!cJSON_IsObject(cc))
        return ts_err_set(err, TS_EINVAL, "webhook without clientConfig");
    if (url) {
        const char *path = ts_json_get_string(cc, "service.path");
        const char *old = ts_json_get_string(cc, "url");
        char full[1024];

        if (!path && old) {
            /* already a URL: keep its path */
            const char *p = strstr(old, "://");

            p = p ? strchr(p + 3, '/') : NULL;
            path = p ? p : "";
        }
        snprintf(full, sizeof(full), "%s%s", url, path ? path : "");
        cJSON_DeleteItemFromObjectCaseSensitive(cc, "service");
        cJSON_DeleteItemFromObjectCaseSensitive(cc, "url");
        cJSON_AddStringToObject(cc, "url", full);
    }
    if (ca_pem)
        set_ca(cc, ca_pem);
    return 0;
}

static int inject_hooks(cJSON *obj, const char *ca_pem, const char *url, struct ts_err *err)
{
    cJSON *hooks = cJSON_GetObjectItemCaseSensitive(obj, "webhooks");
    cJSON *w;
    size_t i = 0;

    cJSON_ArrayForEach(w, hooks)
    {
        int rc = inject_one(cJSON_GetObjectItemCaseSensitive(w, "clientConfig"), ca_pem, url, err);

        if (rc)
            return ts_err_prefix(err, "webhooks[%zu]", i);
        i++;
    }
    return 0;
}

int ts_whconfig_inject(cJSON *obj, const char *ca_pem, const char *url, int *changed,
                       struct ts_err *err)
{
    const char *kind = ts_json_get_string(obj, "kind");
    cJSON *before = cJSON_Duplicate(obj, 1);
    int rc;

    if (kind && (strcmp(kind, "MutatingWebhookConfiguration") == 0 ||
                 strcmp(kind, "ValidatingWebhookConfiguration") == 0)) {
        rc = inject_hooks(obj, ca_pem, url, err);
    } else if (kind && strcmp(kind, "CustomResourceDefinition") == 0) {
        const char *strategy = ts_json_get_string(obj, "spec.conversion.strategy");

        rc = 0;
        if (strategy && strcmp(strategy, "Webhook") == 0)
            rc = inject_one(ts_json_get(obj, "spec.conversion.webhook.clientConfig"), ca_pem, url,
                            err);
    } else {
        rc = ts_err_set(err, TS_EINVAL, "cannot inject a CA bundle into kind \"%s\"",
                        kind ? kind : "");
    }
    if (changed)
        *changed = !ts_json_equal(before, obj);
    cJSON_Delete(before);
    return rc;
}
