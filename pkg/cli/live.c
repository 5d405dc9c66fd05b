#include "cli/live.h"

#include "json/json.h"
#include "kube/client.h"
#include "kube/kubeconfig.h"
#include "kube/loop.h"

#include <string.h>

struct live_kind {
    const char *group, *resource, *kind;
    int namespaced;
};

/* In the order a cluster's controllers would have seen them settle:
 * everything a Workload refers to first. */
static const struct live_kind kinds[] = {
    {"kueue.x-k8s.io", "resourceflavors", "ResourceFlavor", 0},
    {"kueue.x-k8s.io", "cohorts", "Cohort", 0},
    {"kueue.x-k8s.io", "clusterqueues", "ClusterQueue", 0},
    {"kueue.x-k8s.io", "localqueues", "LocalQueue", 1},
    {"kueue.x-k8s.io", "workloadpriorityclasses", "WorkloadPriorityClass", 0},
    {"scheduling.k8s.io", "priorityclasses", "PriorityClass", 0},
    {"", "namespaces", "Namespace", 0},
    {"kueue.x-k8s.io", "workloads", "Workload", 1},
};

/* Lists one kind (v1beta2, falling back to v1beta1 for Kueue kinds).
 * Returns the list (caller deletes), or NULL: *missing is set when the
 * cluster does not serve the kind at all. */
static cJSON *list(struct ts_kube_client *c, const struct live_kind *k, const char **version,
                   int *missing, struct ts_err *err)
{
    static const char *const kueue_versions[] = {"v1beta2", "v1beta1", NULL};
    static const char *const v1[] = {"v1", NULL};
    const char *const *versions = strcmp(k->group, "kueue.x-k8s.io") ? v1 : kueue_versions;

    *missing = 0;
    for (size_t i = 0; versions[i]; i++) {
        struct ts_kube_resource res = {k->group, versions[i], k->resource, k->kind, k->namespaced};
        struct ts_kube_req r = {0};
        cJSON *out = NULL;
        int rc;

        r.verb = TS_KUBE_LIST;
        r.res = &res;
        r.limit = 500;
        ts_err_clear(err);
        rc = ts_kube_list_sync(c, &r, &out, err);
        if (!rc) {
            *version = versions[i];
            return out;
        }
        cJSON_Delete(out);
        if (rc != TS_ENOTFOUND)
            return NULL;
    }
    *missing = 1;
    return NULL;
}

static int add_items(struct ts_sim *sim, const struct live_kind *k, const char *version,
                     cJSON *items, ts_time now, FILE *err)
{
    char api_version[128];
    cJSON *it;
    int bad = 0;

    snprintf(api_version, sizeof(api_version), "%s%s%s", k->group, *k->group ? "/" : "", version);
    cJSON_ArrayForEach(it, items)
    {
        struct ts_err e = {0};

        /* list items usually come without apiVersion and kind */
        if (!cJSON_GetObjectItemCaseSensitive(it, "apiVersion"))
            cJSON_AddStringToObject(it, "apiVersion", api_version);
        if (!cJSON_GetObjectItemCaseSensitive(it, "kind"))
            cJSON_AddStringToObject(it, "kind", k->kind);
        if (ts_sim_add(sim, it, now, &e)) {
            const char *ns = ts_json_get_string(it, "metadata.namespace");

            fprintf(err, "warning: %s %s%s%s: %s\n", k->kind, ns ? ns : "", ns ? "/" : "",
                    ts_json_get_string(it, "metadata.name"), e.msg);
            bad++;
        }
    }
    return bad;
}

int ts_cli_load_live(struct ts_sim *sim, const struct ts_cli_live_opts *o, ts_time now, FILE *err)
{
    struct ts_kubeconfig_opts ko = {0};
    struct ts_kubeconfig kc;
    struct ts_kube_client *c = NULL;
    struct ts_loop *loop = NULL;
    struct ts_err e = {0};
    int bad = 0;

    memset(&kc, 0, sizeof(kc));
    ko.path = o->kubeconfig;
    ko.context = o->context;
    if (ts_kubeconfig_load(&ko, &kc, &e) || !(loop = ts_loop_new()) ||
        !(c = ts_kube_client_new(loop, &kc, NULL, &e))) {
        fprintf(err, "error: %s\n", e.msg[0] ? e.msg : "cannot create the event loop");
        bad = -1;
    }
    for (size_t i = 0; bad >= 0 && i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        const char *version = NULL;
        int missing;
        cJSON *l = list(c, &kinds[i], &version, &missing, &e);

        if (l) {
            bad += add_items(sim, &kinds[i], version, cJSON_GetObjectItemCaseSensitive(l, "items"),
                             now, err);
            cJSON_Delete(l);
        } else if (!missing || !strcmp(kinds[i].resource, "workloads")) {
            fprintf(err, "error: cannot list %s: %s\n", kinds[i].resource,
                    missing ? "the server does not serve them (are Kueue's CRDs installed?)"
                            : e.msg);
            bad = -1;
        }
    }
    ts_kube_client_free(c);
    ts_loop_free(loop);
    ts_kubeconfig_release(&kc);
    return bad;
}
