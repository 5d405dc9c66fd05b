/* finalize.c - lets deleted Workloads go.  Workloads carry Kueue's
 * kueue.x-k8s.io/resource-in-use finalizer so their quota is accounted
 * until they are really gone; once one is being deleted (its job was
 * deleted and the garbage collector came, or a user deleted it) the
 * finalizer is removed and the delete event releases the quota.
 *
 * The removal is a key "Finalize/NS/NAME" of the job work queue, so a
 * failed patch (5xx, a reply cut short, a conflict with a stale cache) is
 * retried with the queue's backoff: no further event may ever come for a
 * Workload being deleted, and a finalizer left on it would hold its quota
 * until the next restart. */
#include "controller/manager_int.h"
#include "json/json.h"
#include "util/alloc.h"
#include "util/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FINALIZER  "kueue.x-k8s.io/resource-in-use"
#define KEY_PREFIX "Finalize/"

struct fin {
    struct ts_ctl *c;
    char *key;
};

static void fin_free(void *data)
{
    struct fin *f = data;

    free(f->key);
    free(f);
}

static void finalized(struct ts_kube_client *kc, struct ts_kube_result *res, void *data)
{
    struct fin *f = data;

    (void)kc;
    f->c->inflight--;
    if (res->code && res->code != TS_ENOTFOUND) {
        ts_log_info("controller", "workload=%s finalizer removal failed: %s",
                    f->key + strlen(KEY_PREFIX), res->err.msg);
        ts_workqueue_add_rate_limited(f->c->jobs, f->key, ts_loop_now(f->c->loop));
    } else {
        ts_workqueue_forget(f->c->jobs, f->key);
    }
    fin_free(f);
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

static int deleting(const cJSON *obj)
{
    return obj && ts_json_get(obj, "metadata.deletionTimestamp") && has_finalizer(obj);
}

void ts__ctl_finalize_workload(struct ts_ctl *c, const cJSON *obj)
{
    char key[600];

    if (!deleting(obj) || c->stopping)
        return;
    snprintf(key, sizeof(key), KEY_PREFIX "%s/%s", ts_json_get_string(obj, "metadata.namespace"),
             ts_json_get_string(obj, "metadata.name"));
    ts_workqueue_add(c->jobs, key);
}

int ts__ctl_is_finalize_key(const char *key)
{
    return !strncmp(key, KEY_PREFIX, strlen(KEY_PREFIX));
}

/* Submits the merge patch that drops our finalizer from obj. */
static void submit(struct ts_ctl *c, const char *key, const cJSON *obj)
{
    struct ts_kube_req r = {0};
    struct ts_err err = {0};
    cJSON *patch = cJSON_CreateObject(), *meta, *keep;
    const cJSON *s;
    struct fin *f = ts_xcalloc(1, sizeof(*f));

    /* guarded by the resourceVersion: the finalizer list is replaced as a
     * whole, so it must be the list we saw */
    meta = cJSON_AddObjectToObject(patch, "metadata");
    keep = cJSON_AddArrayToObject(meta, "finalizers");
    cJSON_ArrayForEach(s, ts_json_get(obj, "metadata.finalizers"))
    {
        if (cJSON_IsString(s) && strcmp(s->valuestring, FINALIZER) != 0)
            cJSON_AddItemToArray(keep, cJSON_CreateString(s->valuestring));
    }
    cJSON_AddStringToObject(meta, "resourceVersion",
                            ts_json_get_string(obj, "metadata.resourceVersion"));
    f->c = c;
    f->key = ts_xstrdup(key);
    r.verb = TS_KUBE_PATCH;
    r.patch = TS_KUBE_PATCH_MERGE;
    r.res = &ts_kube_res_workloads;
    r.ns = ts_json_get_string(obj, "metadata.namespace");
    r.name = ts_json_get_string(obj, "metadata.name");
    r.body = patch;
    r.release = fin_free; /* still unanswered when the controller stops */
    c->inflight++;
    if (ts_kube_submit(c->client, &r, finalized, f, NULL, &err)) {
        struct ts_kube_result res = {0};

        res.code = err.code;
        res.err = err;
        finalized(c->client, &res, f);
    }
    cJSON_Delete(patch);
}

void ts__ctl_reconcile_finalizer(struct ts_ctl *c, const char *key)
{
    const char *rest = key + strlen(KEY_PREFIX), *slash = strchr(rest, '/');
    cJSON *obj = NULL;
    char ns[256];

    if (slash && (size_t)(slash - rest) < sizeof(ns)) {
        snprintf(ns, sizeof(ns), "%.*s", (int)(slash - rest), rest);
        obj = ts_informer_fetch(c->inf[TS__CTL_WL], ns, slash + 1);
    }
    if (deleting(obj) && !c->stopping)
        submit(c, key, obj); /* the latest state the cache has */
    else
        ts_workqueue_forget(c->jobs, key);
    cJSON_Delete(obj);
    ts_workqueue_done(c->jobs, key);
}
