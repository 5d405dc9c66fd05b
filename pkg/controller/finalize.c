/* finalize.c - lets deleted Workloads go.  Workloads carry Kueue's
 * kueue.x-k8s.io/resource-in-use finalizer so their quota is accounted
 * until they are really gone; once one is being deleted (its job was
 * deleted and the garbage collector came, or a user deleted it) the
 * finalizer is removed and the delete event releases the quota. */
#include "controller/manager_int.h"
#include "json/json.h"
#include "util/alloc.h"
#include "util/log.h"

#include <stdlib.h>
#include <string.h>

#define FINALIZER "kueue.x-k8s.io/resource-in-use"

struct fin {
    char *ns, *name;
};

static void finalized(struct ts_kube_client *kc, struct ts_kube_result *res, void *data)
{
    struct fin *f = data;

    (void)kc;
    /* A conflict or 404 means a newer event is coming (or the object is
     * gone); the next update event retries. */
    if (res->code && res->code != TS_ECONFLICT && res->code != TS_ENOTFOUND)
        ts_log_info("controller", "workload=%s/%s finalizer removal failed: %s", f->ns, f->name,
                    res->err.msg);
    free(f->ns);
    free(f->name);
    free(f);
}

static int has_finalizer(const cJSON *obj)
{
    const cJSON *s;

    cJSON_ArrayForEach(s, ts_json_get(obj, "metadata.finalizers"))
    {
        if (cJSON_IsString(s) && strcmp(s->valuestring, FINALIZER) == 0)
            return 1;
    }
    return 0;
}

void ts__ctl_finalize_workload(struct ts_ctl *c, const cJSON *obj)
{
    struct ts_kube_req r = {0};
    struct ts_err err = {0};
    cJSON *patch, *meta, *keep;
    const cJSON *s;
    struct fin *f;

    if (!ts_json_get(obj, "metadata.deletionTimestamp") || !has_finalizer(obj) || c->stopping)
        return;
    /* Merge patch guarded by the resourceVersion: the finalizer list is
     * replaced as a whole, so it must be the list we saw. */
    patch = cJSON_CreateObject();
    meta = cJSON_AddObjectToObject(patch, "metadata");
    keep = cJSON_AddArrayToObject(meta, "finalizers");
    cJSON_ArrayForEach(s, ts_json_get(obj, "metadata.finalizers"))
    {
        if (cJSON_IsString(s) && strcmp(s->valuestring, FINALIZER) != 0)
            cJSON_AddItemToArray(keep, cJSON_CreateString(s->valuestring));
    }
    cJSON_AddStringToObject(meta, "resourceVersion",
                            ts_json_get_string(obj, "metadata.resourceVersion"));
    f = ts_xcalloc(1, sizeof(*f));
    f->ns = ts_xstrdup(ts_json_get_string(obj, "metadata.namespace"));
    f->name = ts_xstrdup(ts_json_get_string(obj, "metadata.name"));
    r.verb = TS_KUBE_PATCH;
    r.patch = TS_KUBE_PATCH_MERGE;
    r.res = &ts__ctl_res_workloads;
    r.ns = f->ns;
    r.name = f->name;
    r.body = patch;
    if (ts_kube_submit(c->client, &r, finalized, f, NULL, &err)) {
        struct ts_kube_result res = {0};

        res.code = err.code;
        res.err = err;
        finalized(c->client, &res, f);
    }
    cJSON_Delete(patch);
}
