/* kueue_default.c - Kueue's mutating webhooks' defaulting (kueue_default.h). */
#include "api/kueue_default.h"

#include "api/clusterqueue.h"
#include "api/object.h"
#include "api/workload.h"
#include "json/json.h"

#include <string.h>

static void add_finalizer(cJSON *obj, const char *finalizer)
{
    cJSON *meta = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    cJSON *list, *f;

    if (!cJSON_IsObject(meta)) {
        cJSON_DeleteItemFromObjectCaseSensitive(obj, "metadata");
        meta = cJSON_AddObjectToObject(obj, "metadata");
    }
    list = cJSON_GetObjectItemCaseSensitive(meta, "finalizers");
    if (!cJSON_IsArray(list)) {
        cJSON_DeleteItemFromObjectCaseSensitive(meta, "finalizers");
        list = cJSON_AddArrayToObject(meta, "finalizers");
    }
    cJSON_ArrayForEach(f, list)
    {
        if (cJSON_IsString(f) && strcmp(f->valuestring, finalizer) == 0)
            return;
    }
    cJSON_AddItemToArray(list, cJSON_CreateString(finalizer));
}

/* Kueue's WorkloadWebhook.Default: a single pod set without a name is
 * "main"; minCount goes when partial admission is off. */
static void default_workload(cJSON *obj, int partial_admission)
{
    cJSON *podsets = ts_json_get(obj, "spec.podSets");
    cJSON *ps;

    if (!cJSON_IsArray(podsets))
        return;
    ps = cJSON_GetArrayItem(podsets, 0);
    if (cJSON_GetArraySize(podsets) == 1 && cJSON_IsObject(ps)) {
        const char *name = ts_json_get_string(ps, "name");

        if (!name || !*name)
            ts_json_set_string(ps, "name", TS_WL_DEFAULT_PODSET, NULL);
    }
    if (partial_admission)
        return;
    cJSON_ArrayForEach(ps, podsets)
    {
        if (cJSON_IsObject(ps))
            cJSON_DeleteItemFromObjectCaseSensitive(ps, "minCount");
    }
}

void ts_kueue_default(cJSON *obj, int partial_admission)
{
    enum ts_kind kind = ts_object_kind(obj);

    /* the kinds with a mutating webhook (webhook/webhook.h's /mutate- paths) */
    if (kind != TS_KIND_CLUSTER_QUEUE && kind != TS_KIND_RESOURCE_FLAVOR &&
        kind != TS_KIND_WORKLOAD)
        return;
    add_finalizer(obj, TS_RESOURCE_IN_USE_FINALIZER);
    if (kind == TS_KIND_WORKLOAD)
        default_workload(obj, partial_admission);
}
