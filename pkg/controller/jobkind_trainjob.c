/* jobkind_trainjob.c - where a TrainJob takes its admission (Kueue's
 * TrainJob.RunWithPodSetsInfo and RestorePodSetsInfo,
 * pkg/controller/jobs/trainjob/trainjob_controller.go): its pod templates
 * are the runtime's, so admission goes into the spec.runtimePatches entry
 * of manager kueue.x-k8s.io/manager, one replicatedJobs[] entry per pod
 * set whose template.spec.template holds the pod set's labels,
 * annotations, nodeSelector, tolerations and schedulingGates; the Trainer
 * strategic-merges it into the runtime's templates.  Stop drops those
 * entries.  Kueue's webhook adds the entry on create; a TrainJob created
 * without it gets one here rather than never starting. */
#include "controller/jobkind.h"

#include "api/trainjob.h"
#include "json/json.h"

#include <stdio.h>
#include <string.h>

/* Kueue's patch entry of job, added when missing (NULL: no spec object). */
static cJSON *kueue_patch(cJSON *job, int add)
{
    cJSON *p = ts_trainjob_json_patch(job, TS_TRAINJOB_PATCH_MANAGER), *list;

    if (p || !add)
        return p;
    list = ts_json_mkpath(job, "spec", NULL);
    if (!list)
        return NULL;
    if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(list, "runtimePatches"))) {
        cJSON_DeleteItemFromObjectCaseSensitive(list, "runtimePatches");
        cJSON_AddArrayToObject(list, "runtimePatches");
    }
    list = cJSON_GetObjectItemCaseSensitive(list, "runtimePatches");
    p = cJSON_CreateObject();
    cJSON_AddStringToObject(p, "manager", TS_TRAINJOB_PATCH_MANAGER);
    cJSON_AddItemToArray(list, p);
    return p;
}

size_t ts__jobkind_trainjob_templates(cJSON *job, cJSON **tmpl, char names[][64])
{
    cJSON *rj, *p = kueue_patch(job, 0);
    size_t n = 0;

    cJSON_ArrayForEach(rj, ts_json_get(p, "trainingRuntimeSpec.template.spec.replicatedJobs"))
    {
        const char *name = ts_json_get_string(rj, "name");

        if (n == TS_JOBKIND_MAX_PODSETS || !(tmpl[n] = ts_json_get(rj, "template.spec.template")))
            continue;
        snprintf(names[n++], 64, "%s", name ? name : "");
    }
    return n;
}

int ts__jobkind_trainjob_start(cJSON *job, const struct ts_workload *wl, ts_flavor_lookup_fn lookup,
                               void *ctx, struct ts_err *err)
{
    cJSON *p = kueue_patch(job, 1), *spec, *rjs;
    int rc = 0;

    if (!p || !(spec = ts_json_mkpath(p, "trainingRuntimeSpec.template.spec", NULL)))
        return ts_err_set(err, TS_EINVAL,
                          "TrainJob: spec.runtimePatches: kueue runtime patch "
                          "cannot be written");
    rjs = cJSON_CreateArray();
    for (size_t i = 0; i < wl->spec.n_podsets && !rc; i++) {
        const char *name = wl->spec.podsets[i].name;
        cJSON *rj = cJSON_CreateObject();

        cJSON_AddStringToObject(rj, "name", name);
        cJSON_AddItemToArray(rjs, rj);
        rc = ts_podset_inject(ts_json_mkpath(rj, "template.spec.template", NULL), wl, name, lookup,
                              ctx, err);
    }
    if (rc) {
        cJSON_Delete(rjs);
        return rc;
    }
    cJSON_DeleteItemFromObjectCaseSensitive(spec, "replicatedJobs");
    cJSON_AddItemToObject(spec, "replicatedJobs", rjs);
    return 0;
}

int ts__jobkind_trainjob_restore(cJSON *job)
{
    cJSON *spec = ts_json_get(kueue_patch(job, 0), "trainingRuntimeSpec.template.spec");

    if (!cJSON_GetObjectItemCaseSensitive(spec, "replicatedJobs"))
        return 0;
    cJSON_DeleteItemFromObjectCaseSensitive(spec, "replicatedJobs");
    return 1;
}
