/* unhonoured.c - the "not yet" table of docs/compatibility.md and the walk
 * that finds which of its fields an object sets. */
#include "api/unhonoured.h"

#include <string.h>

#include "api/convert.h"

/* Kept in docs/compatibility.md's order; test_api_unhonoured checks that
 * the two agree. */
static const struct ts_unhonoured_field table[] = {
    {"ResourceFlavor", "spec.topologyName", NULL},
    {"ClusterQueue", "spec.admissionScope.admissionMode", "NoAdmissionFairSharing"},
    {"ClusterQueue", "spec.concurrentAdmissionPolicy.migration.mode", NULL},
    {"ClusterQueue",
     "spec.concurrentAdmissionPolicy.migration.constraints.lastAcceptableFlavorName", NULL},
    {"LocalQueue", "spec.fairSharing.weight", NULL},
    {"Workload", "spec.podSets[].topologyRequest.required", NULL},
    {"Workload", "spec.podSets[].topologyRequest.preferred", NULL},
    {"Workload", "spec.podSets[].topologyRequest.unconstrained", NULL},
    {"Workload", "spec.podSets[].topologyRequest.podIndexLabel", NULL},
    {"Workload", "spec.podSets[].topologyRequest.subGroupIndexLabel", NULL},
    {"Workload", "spec.podSets[].topologyRequest.subGroupCount", NULL},
    {"Workload", "spec.podSets[].topologyRequest.podSetGroupName", NULL},
    {"Workload", "spec.podSets[].topologyRequest.podSetSliceRequiredTopology", NULL},
    {"Workload", "spec.podSets[].topologyRequest.podSetSliceSize", NULL},
    {"Workload", "spec.preemptionGates[].name", NULL},
    {"Topology", "spec.levels[].nodeLabel", NULL},
    {TS_UNHONOURED_CONFIG, "managedJobsNamespaceSelector", NULL},
    {TS_UNHONOURED_CONFIG, "waitForPodsReady.requeuingStrategy.timestamp", "Eviction"},
    {TS_UNHONOURED_CONFIG, "multiKueue.gcInterval", NULL},
    {TS_UNHONOURED_CONFIG, "multiKueue.origin", NULL},
    {TS_UNHONOURED_CONFIG, "multiKueue.workerLostTimeout", NULL},
    {TS_UNHONOURED_CONFIG, "multiKueue.dispatcherName", NULL},
    {TS_UNHONOURED_CONFIG, "multiKueue.externalFrameworks[].name", NULL},
    {TS_UNHONOURED_CONFIG, "multiKueue.clusterProfile.credentialsProviders[].name", NULL},
    {TS_UNHONOURED_CONFIG, "multiKueue.clusterProfile.credentialsProviders[].execConfig", NULL},
    {TS_UNHONOURED_CONFIG, "admissionFairSharing.usageHalfLifeTime", NULL},
    {TS_UNHONOURED_CONFIG, "admissionFairSharing.usageSamplingInterval", NULL},
    {TS_UNHONOURED_CONFIG, "admissionFairSharing.resourceWeights", NULL},
    {TS_UNHONOURED_CONFIG, "resources.deviceClassMappings[].name", NULL},
    {TS_UNHONOURED_CONFIG, "resources.deviceClassMappings[].deviceClassNames", NULL},
    /* the gates Turnstile acts on (api/config.c) are not reported */
    {TS_UNHONOURED_CONFIG, "featureGates", "PartialAdmission,PriorityBoost"},
    {TS_UNHONOURED_CONFIG, "objectRetentionPolicies.workloads.afterFinished", NULL},
    {TS_UNHONOURED_CONFIG, "objectRetentionPolicies.workloads.afterDeactivatedByKueue", NULL},
    {TS_UNHONOURED_CONFIG, "visibilityServer.bindAddress", NULL},
    {TS_UNHONOURED_CONFIG, "webhook.host", NULL},
    {TS_UNHONOURED_CONFIG, "webhook.certDir", NULL},
    {TS_UNHONOURED_CONFIG, "leaderElection.leaseDuration", NULL},
    {TS_UNHONOURED_CONFIG, "leaderElection.renewDeadline", NULL},
    {TS_UNHONOURED_CONFIG, "leaderElection.retryPeriod", NULL},
    {TS_UNHONOURED_CONFIG, "metrics.customLabels[].name", NULL},
    {TS_UNHONOURED_CONFIG, "metrics.customLabels[].sourceLabelKey", NULL},
    {TS_UNHONOURED_CONFIG, "metrics.customLabels[].sourceAnnotationKey", NULL},
    {TS_UNHONOURED_CONFIG, "health.readinessEndpointName", NULL},
    {TS_UNHONOURED_CONFIG, "health.livenessEndpointName", NULL},
    {TS_UNHONOURED_CONFIG, "controller.cacheSyncTimeout", NULL},
    {TS_UNHONOURED_CONFIG, "tls.minVersion", NULL},
    {TS_UNHONOURED_CONFIG, "tls.cipherSuites", NULL},
};

#define N_TABLE (sizeof(table) / sizeof(table[0]))

const struct ts_unhonoured_field *ts_unhonoured_table(size_t *n)
{
    *n = N_TABLE;
    return table;
}

/* Whether name is one of the comma-separated names of list. */
static int listed(const char *list, const char *name)
{
    size_t n = strlen(name);

    for (const char *p = list; p && *p;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);

        if (len == n && memcmp(p, name, n) == 0)
            return 1;
        p = comma ? comma + 1 : NULL;
    }
    return 0;
}

/* A value that asks for something: not null, "", [], {} or benign (for
 * an object, benign lists the keys that ask for nothing). */
static int is_set(const cJSON *v, const char *benign)
{
    if (!v || cJSON_IsNull(v))
        return 0;
    if ((cJSON_IsArray(v) || cJSON_IsObject(v)) && !v->child)
        return 0;
    if (cJSON_IsObject(v) && benign) {
        for (const cJSON *c = v->child; c; c = c->next) {
            if (!c->string || !listed(benign, c->string))
                return 1;
        }
        return 0;
    }
    if (cJSON_IsString(v) &&
        (!v->valuestring[0] || (benign && strcmp(v->valuestring, benign) == 0)))
        return 0;
    return 1;
}

/* Whether the rest of a path, p ("a.b[].c"), is set under v; "b[]"
 * looks into every item of b. */
static int path_set(const cJSON *v, const char *p, const char *benign)
{
    const char *dot = strchr(p, '.');
    size_t n = dot ? (size_t)(dot - p) : strlen(p);
    int each = n > 2 && memcmp(p + n - 2, "[]", 2) == 0;
    const cJSON *child = NULL, *item;

    if (!cJSON_IsObject(v))
        return 0;
    n -= each ? 2 : 0;
    for (const cJSON *c = v->child; c && !child; c = c->next) {
        if (c->string && strlen(c->string) == n && memcmp(c->string, p, n) == 0)
            child = c;
    }
    if (!each)
        return dot ? path_set(child, dot + 1, benign) : is_set(child, benign);
    if (!cJSON_IsArray(child))
        return 0;
    cJSON_ArrayForEach(item, child)
    {
        if (dot ? path_set(item, dot + 1, benign) : is_set(item, benign))
            return 1;
    }
    return 0;
}

static size_t collect(const char *kind, const cJSON *obj, struct ts_strlist *out)
{
    size_t added = 0;

    for (size_t i = 0; i < N_TABLE; i++) {
        if (strcmp(table[i].kind, kind) == 0 && path_set(obj, table[i].path, table[i].benign)) {
            ts_strlist_push(out, table[i].path);
            added++;
        }
    }
    return added;
}

static const char *str_of(const cJSON *obj, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

    return cJSON_IsString(v) ? v->valuestring : "";
}

size_t ts_unhonoured_fields(const cJSON *obj, struct ts_strlist *out)
{
    const char *av = str_of(obj, "apiVersion"), *kind = str_of(obj, "kind");
    cJSON *copy;
    size_t added;

    if (strncmp(av, TS_KUEUE_GROUP "/", strlen(TS_KUEUE_GROUP) + 1) != 0 || !*kind ||
        strcmp(kind, TS_UNHONOURED_CONFIG) == 0)
        return 0;
    if (strcmp(av, TS_KUEUE_V1BETA1) != 0)
        return collect(kind, obj, out);
    copy = cJSON_Duplicate(obj, 1);
    /* an object conversion refuses is read as it is */
    added = collect(kind, ts_convert_kueue(copy, TS_KUEUE_V1BETA2, NULL) ? obj : copy, out);
    cJSON_Delete(copy);
    return added;
}

size_t ts_unhonoured_config_fields(const cJSON *cfg, struct ts_strlist *out)
{
    if (strncmp(str_of(cfg, "apiVersion"), "config." TS_KUEUE_GROUP "/", 22) != 0 ||
        strcmp(str_of(cfg, "kind"), TS_UNHONOURED_CONFIG) != 0)
        return 0;
    return collect(TS_UNHONOURED_CONFIG, cfg, out);
}
