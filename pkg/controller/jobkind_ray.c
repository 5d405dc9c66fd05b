/* jobkind_ray.c - where KubeRay's kinds keep their pod templates (Kueue's
 * raycluster.UpdateRayClusterSpecToRunWithPodSetsInfo and
 * RayJob.RunWithPodSetsInfo): the cluster spec's headGroupSpec.template,
 * then workerGroupSpecs[i].template in order, then a RayJob's
 * submitterPodTemplate in submissionMode K8sJobMode.  Names are the pod
 * set names of api/rayjob.h. */
#include "controller/jobkind.h"

#include "api/rayjob.h"
#include "json/json.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

static size_t cluster_templates(cJSON *cluster, cJSON **tmpl, char names[][64], size_t max)
{
    cJSON *w;
    size_t n = 0;

    tmpl[n] = ts_json_get(cluster, "headGroupSpec.template");
    snprintf(names[n++], 64, "%s", TS_RAY_PODSET_HEAD);
    cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(cluster, "workerGroupSpecs"))
    {
        const char *g = ts_json_get_string(w, "groupName");
        size_t j;

        if (n == max)
            break;
        tmpl[n] = cJSON_GetObjectItemCaseSensitive(w, "template");
        for (j = 0; g && g[j] && j + 1 < 64; j++)
            names[n][j] = (char)tolower((unsigned char)g[j]);
        names[n++][j] = '\0';
    }
    return n;
}

size_t ts__jobkind_raycluster_templates(cJSON *job, cJSON **tmpl, char names[][64])
{
    return cluster_templates(cJSON_GetObjectItemCaseSensitive(job, "spec"), tmpl, names,
                             TS_JOBKIND_MAX_PODSETS);
}

size_t ts__jobkind_rayjob_templates(cJSON *job, cJSON **tmpl, char names[][64])
{
    cJSON *spec = cJSON_GetObjectItemCaseSensitive(job, "spec");
    const char *mode = ts_json_get_string(spec, "submissionMode");
    size_t n = cluster_templates(cJSON_GetObjectItemCaseSensitive(spec, "rayClusterSpec"), tmpl,
                                 names, TS_JOBKIND_MAX_PODSETS - 1);

    if (mode && !strcmp(mode, TS_RAY_K8S_JOB_MODE)) {
        /* NULL without submitterPodTemplate: KubeRay's default one, which
         * Kueue merges into a copy that is thrown away */
        tmpl[n] = cJSON_GetObjectItemCaseSensitive(spec, "submitterPodTemplate");
        snprintf(names[n++], 64, "%s", TS_RAY_PODSET_SUBMITTER);
    }
    return n;
}
