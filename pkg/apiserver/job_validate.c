/*
 * job_validate.c - kube-apiserver's validation of a Job (k8s.io/kubernetes
 * pkg/apis/batch/validation), the part a queueing controller depends on:
 * the counts, the pod template's containers and restart policy, and which
 * changes of the pod template an update may make (ValidateJobSpecUpdate,
 * with MutableSchedulingDirectivesForSuspendedJobs and
 * MutablePodResourcesForSuspendedJobs at their default since 1.36: on).
 *
 * The template may change only while the stored Job is suspended, has no
 * active pods, and has not started or says Suspended=True; even then only
 * its scheduling directives (labels, annotations, nodeSelector, tolerations,
 * schedulingGates, affinity.nodeAffinity) and its containers' resources.
 * That is what Kueue relies on when it injects a flavor's node labels and
 * tolerations and restores them on eviction.
 */
#include "apiserver/server_int.h"

#include <stdio.h>
#include <string.h>

#include "api/names.h"
#include "json/json.h"

static int template_mutable(const cJSON *old)
{
    const cJSON *c, *active = ts_json_get(old, "status.active");
    int suspended_cond = 0;

    if (!cJSON_IsTrue(ts_json_get(old, "spec.suspend")) ||
        (cJSON_IsNumber(active) && active->valuedouble > 0))
        return 0;
    cJSON_ArrayForEach(c, ts_json_get(old, "status.conditions"))
    {
        const char *t = ts_json_get_string(c, "type"), *st = ts_json_get_string(c, "status");

        suspended_cond |= t && st && !strcmp(t, "Suspended") && !strcmp(st, "True");
    }
    return !ts_json_get(old, "status.startTime") || suspended_cond;
}

/* dst.key := src.key (a copy), or no member when src has none. */
static void overlay(cJSON *dst, const cJSON *src, const char *key)
{
    const cJSON *v = src ? cJSON_GetObjectItemCaseSensitive(src, key) : NULL;

    if (!cJSON_IsObject(dst))
        return;
    cJSON_DeleteItemFromObjectCaseSensitive(dst, key);
    if (v)
        cJSON_AddItemToObject(dst, key, cJSON_Duplicate(v, 1));
}

/* The old affinity takes the new nodeAffinity; an old affinity that held
 * nothing else may be cleared. */
static void overlay_affinity(cJSON *old_spec, const cJSON *new_spec)
{
    cJSON *oa = cJSON_GetObjectItemCaseSensitive(old_spec, "affinity");
    const cJSON *na = cJSON_GetObjectItemCaseSensitive(new_spec, "affinity");

    if (!oa && !na)
        return;
    if (!oa) {
        oa = cJSON_AddObjectToObject(old_spec, "affinity");
        overlay(oa, na, "nodeAffinity");
        return;
    }
    overlay(oa, na, "nodeAffinity");
    if (!na && cJSON_IsObject(oa) && !oa->child)
        cJSON_DeleteItemFromObjectCaseSensitive(old_spec, "affinity");
}

/* Containers matched by position and name take the new resources. */
static void overlay_resources(cJSON *old_spec, const cJSON *new_spec, const char *list)
{
    cJSON *ol = cJSON_GetObjectItemCaseSensitive(old_spec, list);
    const cJSON *nl = cJSON_GetObjectItemCaseSensitive(new_spec, list);
    int i, n = cJSON_GetArraySize(nl);

    if (!cJSON_IsArray(ol) || !cJSON_IsArray(nl) || cJSON_GetArraySize(ol) != n)
        return;
    for (i = 0; i < n; i++) {
        cJSON *oc = cJSON_GetArrayItem(ol, i);
        const cJSON *nc = cJSON_GetArrayItem(nl, i);
        const char *on = ts_json_get_string(oc, "name"), *nn = ts_json_get_string(nc, "name");

        if (on && nn && !strcmp(on, nn))
            overlay(oc, nc, "resources");
    }
}

const char *ts__as_job_template_refused(const cJSON *old, const cJSON *obj)
{
    const cJSON *ot = ts_json_get(old, "spec.template"), *nt = ts_json_get(obj, "spec.template");
    cJSON *allowed, *spec;
    const cJSON *nspec = ts_json_get(nt, "spec");
    int same;

    if (ts_json_equal(ot, nt))
        return NULL;
    if (!template_mutable(old) || !cJSON_IsObject(ot) || !cJSON_IsObject(nt))
        return "spec.template";
    allowed = cJSON_Duplicate(ot, 1);
    spec = cJSON_GetObjectItemCaseSensitive(allowed, "spec");
    if (cJSON_IsObject(spec) && cJSON_IsObject(nspec)) {
        overlay(spec, nspec, "nodeSelector");
        overlay(spec, nspec, "tolerations");
        overlay(spec, nspec, "schedulingGates");
        overlay_affinity(spec, nspec);
        overlay_resources(spec, nspec, "containers");
        overlay_resources(spec, nspec, "initContainers");
    }
    same = ts_json_equal(spec, nspec);
    cJSON_Delete(allowed);
    /* template metadata (labels, annotations) is free; only the spec is
     * compared, and refused under its own path */
    return same ? NULL : "spec.template.spec";
}

/* spec.<field>, when set, is an integer >= 0 */
static void non_negative(const cJSON *spec, const char *field, struct ts_field_errors *errs)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(spec, field);
    char path[64], num[32];

    if (!cJSON_IsNumber(v) || v->valuedouble >= 0)
        return;
    snprintf(path, sizeof(path), "spec.%s", field);
    snprintf(num, sizeof(num), "%.0f", v->valuedouble);
    ts_field_errors_add(errs, TS_FIELD_INVALID, path, num, 0, "must be greater than or equal to 0");
}

static void containers(const cJSON *list, struct ts_field_errors *errs)
{
    const char *base = "spec.template.spec.containers";
    char path[96];
    int i, n = cJSON_GetArraySize(list);

    if (!cJSON_IsArray(list) || n == 0) {
        ts_field_errors_add(errs, TS_FIELD_REQUIRED, base, NULL, 0, NULL);
        return;
    }
    for (i = 0; i < n; i++) {
        const cJSON *c = cJSON_GetArrayItem(list, i);
        const char *name = ts_json_get_string(c, "name"), *image = ts_json_get_string(c, "image");

        snprintf(path, sizeof(path), "%s[%d].name", base, i);
        if (!name || !name[0]) {
            ts_field_errors_add(errs, TS_FIELD_REQUIRED, path, NULL, 0, NULL);
        } else if (ts_names_dns1123_label(name, path, errs) == 0) {
            for (int j = 0; j < i; j++) {
                const char *other = ts_json_get_string(cJSON_GetArrayItem(list, j), "name");

                if (other && !strcmp(other, name)) {
                    ts_field_errors_add(errs, TS_FIELD_DUPLICATE, path, name, 1, NULL);
                    break;
                }
            }
        }
        snprintf(path, sizeof(path), "%s[%d].image", base, i);
        if (!image || !image[0])
            ts_field_errors_add(errs, TS_FIELD_REQUIRED, path, NULL, 0, NULL);
    }
}

void ts__as_job_validate(const cJSON *job, struct ts_field_errors *errs)
{
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(job, "spec");
    const char *rp = ts_json_get_string(job, "spec.template.spec.restartPolicy");

    non_negative(spec, "parallelism", errs);
    non_negative(spec, "completions", errs);
    non_negative(spec, "backoffLimit", errs);
    containers(ts_json_get(job, "spec.template.spec.containers"), errs);
    /* a Job's pods end: Always (a Pod's default) is refused like none */
    if (!rp || (strcmp(rp, "OnFailure") && strcmp(rp, "Never")))
        ts_field_errors_add(errs, TS_FIELD_REQUIRED, "spec.template.spec.restartPolicy", NULL, 0,
                            "valid values: \"OnFailure\", \"Never\"");
}
