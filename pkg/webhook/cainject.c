#include "webhook/cainject.h"

#include "util/log.h"
#include "webhook/whconfig.h"

#include <string.h>

static const struct ts_kube_resource res_mutating = {"admissionregistration.k8s.io", "v1",
                                                     "mutatingwebhookconfigurations",
                                                     "MutatingWebhookConfiguration", 0};
static const struct ts_kube_resource res_validating = {"admissionregistration.k8s.io", "v1",
                                                       "validatingwebhookconfigurations",
                                                       "ValidatingWebhookConfiguration", 0};

static const char *const kueue_crds[] = {
    "clusterqueues.kueue.x-k8s.io",
    "cohorts.kueue.x-k8s.io",
    "localqueues.kueue.x-k8s.io",
    "resourceflavors.kueue.x-k8s.io",
    "workloads.kueue.x-k8s.io",
    "workloadpriorityclasses.kueue.x-k8s.io",
    "admissionchecks.kueue.x-k8s.io",
    "topologies.kueue.x-k8s.io",
    "provisioningrequestconfigs.kueue.x-k8s.io",
};

/* Returns 1 when updated, 0 when absent or already right, or a TS_E*. */
static int inject_one(struct ts_kube_client *c, const struct ts_kube_resource *res,
                      const char *name, const char *ca_pem, struct ts_err *err)
{
    for (int attempt = 0; attempt < 5; attempt++) {
        struct ts_kube_req r = {0};
        cJSON *obj = NULL;
        int changed = 0, rc;

        rc = ts_kube_get_sync(c, res, NULL, name, &obj, err);
        if (rc == TS_ENOTFOUND) {
            ts_err_clear(err);
            return 0;
        }
        if (!rc && !cJSON_GetObjectItemCaseSensitive(obj, "kind"))
            cJSON_AddStringToObject(obj, "kind", res->kind);
        if (!rc)
            rc = ts_whconfig_inject(obj, ca_pem, NULL, &changed, err);
        if (!rc && changed) {
            r.verb = TS_KUBE_UPDATE;
            r.res = res;
            r.name = name;
            r.body = obj;
            rc = ts_kube_do(c, &r, NULL, err);
        }
        cJSON_Delete(obj);
        if (rc == TS_ECONFLICT)
            continue;
        if (rc)
            return rc;
        return changed;
    }
    return ts_err_set(err, TS_ECONFLICT, "%s %s: kept changing under the CA injection", res->kind,
                      name);
}

int ts_cainject_run(struct ts_kube_client *c, const char *ca_pem, struct ts_err *err)
{
    int n = 0, rc;

    rc = inject_one(c, &res_mutating, TS_CAINJECT_MUTATING, ca_pem, err);
    if (rc >= 0) {
        n += rc;
        rc = inject_one(c, &res_validating, TS_CAINJECT_VALIDATING, ca_pem, err);
    }
    for (size_t i = 0; rc >= 0 && i < sizeof(kueue_crds) / sizeof(kueue_crds[0]); i++) {
        n += rc;
        rc = inject_one(c, &ts_kube_res_crds, kueue_crds[i], ca_pem, err);
    }
    if (rc < 0)
        return rc;
    n += rc;
    ts_log_info("webhook", "CA bundle injected objects_updated=%d", n);
    return n;
}
