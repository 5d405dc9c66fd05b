/* trainjob.c - the TrainJob runtimes the controller watches: a TrainJob's
 * pod sets come from the TrainingRuntime (its namespace) or the
 * ClusterTrainingRuntime it references (api/trainjob.h), so a runtime that
 * appears, changes or goes reconciles the TrainJobs that reference it
 * again (a TrainJob waiting for its runtime gets its Workload then; a
 * pending one follows the runtime's new pod sets). */
#include "api/trainjob.h"
#include "controller/manager_int.h"
#include "json/json.h"

#include <stdio.h>
#include <string.h>

cJSON *ts__ctl_runtime(void *ctx, int cluster, const char *ns, const char *name)
{
    struct ts_ctl *c = ctx;
    struct ts_informer *inf = c->inf[cluster ? TS__CTL_CTR : TS__CTL_TR];

    return inf ? ts_informer_fetch(inf, cluster ? NULL : ns, name) : NULL;
}

struct changed {
    struct ts_ctl *c;
    const char *kind, *ns, *name; /* the runtime; ns NULL: cluster-scoped */
};

static int eq(const char *a, const char *b)
{
    return a && b && !strcmp(a, b);
}

static int references(const char *key, const cJSON *job, void *data)
{
    const struct changed *ch = data;
    const char *kind = ts_json_get_string(job, "spec.runtimeRef.kind");
    const char *ns = ts_json_get_string(job, "metadata.namespace");
    char k[600];

    (void)key;
    if (!eq(ts_json_get_string(job, "spec.runtimeRef.name"), ch->name) ||
        !eq(kind ? kind : TS_TRAINER_KIND_CTR, ch->kind) || (ch->ns && !eq(ns, ch->ns)))
        return 0;
    snprintf(k, sizeof(k), "%s/%s/%s", TS_TRAINJOB_KIND, ns ? ns : "",
             ts_json_get_string(job, "metadata.name"));
    ts_workqueue_add(ch->c->jobs, k);
    return 0;
}

void ts__ctl_runtime_changed(struct ts_ctl *c, enum ts__ctl_inf which, const cJSON *obj)
{
    const struct ts_jobkind *k = ts_jobkind_by_kind(TS_TRAINJOB_KIND);
    struct ts_informer *jobs = c->inf[TS__CTL_JOBKIND_INF(k - ts_jobkinds)];
    struct changed ch = {c, which == TS__CTL_CTR ? TS_TRAINER_KIND_CTR : TS_TRAINER_KIND_TR,
                         which == TS__CTL_CTR ? NULL
                                              : ts_json_get_string(obj, "metadata.namespace"),
                         ts_json_get_string(obj, "metadata.name")};

    if (jobs && ch.name)
        ts_informer_each(jobs, references, &ch);
}
