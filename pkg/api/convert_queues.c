/* v1beta1 <-> v1beta2 hooks for ClusterQueue and LocalQueue (Kueue's
 * apis/kueue/v1beta1/clusterqueue_conversion.go, localqueue_conversion.go):
 *   ClusterQueue  spec.cohort <-> spec.cohortName
 *                 spec.admissionChecks[] -> admissionChecksStrategy.admissionChecks[{name}]
 *                 (one way, as in Kueue: v1beta1 reads show the strategy)
 *                 flavorFungibility Borrow / Preempt -> MayStopSearch (one way)
 *                 status.pendingWorkloadsStatus dropped
 *                 spec.concurrentAdmissionPolicy stashed for v1beta1
 *   LocalQueue    status.flavorUsage <-> status.flavorsUsage
 *                 status.flavors (deprecated) stashed for v1beta2 */
#include "api/convert_int.h"

#include "api/convert.h"

#include <string.h>

static cJSON *child_object(cJSON *o, const char *key)
{
    cJSON *c = cJSON_GetObjectItemCaseSensitive(o, key);

    return cJSON_IsObject(c) ? c : NULL;
}

static void rename_key(cJSON *o, const char *from, const char *to)
{
    cJSON *v;

    if (!o || !(v = cJSON_DetachItemFromObjectCaseSensitive(o, from)))
        return;
    cJSON_DeleteItemFromObjectCaseSensitive(o, to);
    cJSON_AddItemToObject(o, to, v);
}

static int has_rule(const cJSON *rules, const char *name)
{
    const cJSON *r;

    cJSON_ArrayForEach(r, rules)
    {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(r, "name");

        if (cJSON_IsString(n) && strcmp(n->valuestring, name) == 0)
            return 1;
    }
    return 0;
}

/* Checks spec.admissionChecks before anything is changed. */
static int checks_valid(const cJSON *list, const cJSON *spec, struct ts_err *err)
{
    const cJSON *e;
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(spec, "admissionChecksStrategy");
    const cJSON *rules = cJSON_GetObjectItemCaseSensitive(st, "admissionChecks");
    int i = 0;

    if (!cJSON_IsArray(list))
        return ts_err_set(err, TS_EINVAL, "spec.admissionChecks: must be an array of strings");
    cJSON_ArrayForEach(e, list)
    {
        if (!cJSON_IsString(e))
            return ts_err_set(err, TS_EINVAL, "spec.admissionChecks[%d]: must be a string", i);
        i++;
    }
    if ((st && !cJSON_IsNull(st) && !cJSON_IsObject(st)) ||
        (rules && !cJSON_IsNull(rules) && !cJSON_IsArray(rules)))
        return ts_err_set(err, TS_EINVAL,
                          "spec.admissionChecksStrategy: must be an object with an "
                          "admissionChecks array");
    return 0;
}

static int checks_up(cJSON *spec, struct ts_err *err)
{
    cJSON *list = cJSON_GetObjectItemCaseSensitive(spec, "admissionChecks");
    cJSON *st, *rules;
    const cJSON *e;
    int rc;

    if (list && !cJSON_IsNull(list) && (rc = checks_valid(list, spec, err)) != 0)
        return rc;
    if (!list || cJSON_IsNull(list) || cJSON_GetArraySize(list) == 0) {
        cJSON_DeleteItemFromObjectCaseSensitive(spec, "admissionChecks");
        return 0;
    }
    st = child_object(spec, "admissionChecksStrategy");
    if (!st) {
        cJSON_DeleteItemFromObjectCaseSensitive(spec, "admissionChecksStrategy");
        st = cJSON_AddObjectToObject(spec, "admissionChecksStrategy");
    }
    rules = cJSON_GetObjectItemCaseSensitive(st, "admissionChecks");
    if (!cJSON_IsArray(rules)) {
        cJSON_DeleteItemFromObjectCaseSensitive(st, "admissionChecks");
        rules = cJSON_AddArrayToObject(st, "admissionChecks");
    }
    cJSON_ArrayForEach(e, list)
    {
        if (!has_rule(rules, e->valuestring)) {
            cJSON *r = cJSON_CreateObject();

            cJSON_AddStringToObject(r, "name", e->valuestring);
            cJSON_AddItemToArray(rules, r);
        }
    }
    cJSON_DeleteItemFromObjectCaseSensitive(spec, "admissionChecks");
    return 0;
}

/* Replaces a deprecated enum alias `from` of o[key] by `to`. */
static void alias(cJSON *o, const char *key, const char *from, const char *to)
{
    cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

    if (cJSON_IsString(v) && strcmp(v->valuestring, from) == 0)
        cJSON_ReplaceItemInObjectCaseSensitive(o, key, cJSON_CreateString(to));
}

int ts__convert_cluster_queue_up(cJSON *obj, struct ts_err *err)
{
    cJSON *spec = child_object(obj, "spec");
    cJSON *ff = child_object(spec, "flavorFungibility");
    int rc;

    if (spec) {
        if ((rc = checks_up(spec, err)) != 0)
            return rc;
        rename_key(spec, "cohort", "cohortName");
    }
    if (ff) {
        alias(ff, "whenCanBorrow", "Borrow", "MayStopSearch");
        alias(ff, "whenCanPreempt", "Preempt", "MayStopSearch");
    }
    cJSON_DeleteItemFromObjectCaseSensitive(child_object(obj, "status"), "pendingWorkloadsStatus");
    ts__convert_restore(obj, "spec.concurrentAdmissionPolicy");
    return 0;
}

int ts__convert_cluster_queue_down(cJSON *obj, struct ts_err *err)
{
    (void)err;
    rename_key(child_object(obj, "spec"), "cohortName", "cohort");
    ts__convert_stash(obj, "spec.concurrentAdmissionPolicy");
    return 0;
}

int ts__convert_local_queue_up(cJSON *obj, struct ts_err *err)
{
    (void)err;
    rename_key(child_object(obj, "status"), "flavorUsage", "flavorsUsage");
    ts__convert_stash(obj, "status.flavors");
    return 0;
}

int ts__convert_local_queue_down(cJSON *obj, struct ts_err *err)
{
    (void)err;
    rename_key(child_object(obj, "status"), "flavorsUsage", "flavorUsage");
    ts__convert_restore(obj, "status.flavors");
    return 0;
}
