/* finalize.c - lets deleted Workloads, ClusterQueues and ResourceFlavors
 * go.  They carry Kueue's kueue.x-k8s.io/resource-in-use finalizer (the
 * webhook adds it); once one is being deleted the finalizer is removed
 * when nothing needs the object any more, as Kueue's controllers do
 * (pkg/controller/core/{workload,clusterqueue,resourceflavor}_controller.go):
 *   - a Workload at once (its delete event releases its quota);
 *   - a ClusterQueue once no Workload holds quota in it (the engine stops
 *     admitting to it as soon as it is terminating);
 *   - a ResourceFlavor once no ClusterQueue names it.
 *
 * The removal is a key of the job work queue ("Finalize/NS/NAME",
 * "Finalize/ClusterQueue/NAME", "Finalize/ResourceFlavor/NAME"; a
 * namespace cannot have an upper-case letter, so they never collide), so a
 * failed patch (5xx, a reply cut short, a conflict with a stale cache) is
 * retried with the queue's backoff: no further event may come for an
 * object being deleted, and a finalizer left on it would keep it for
 * ever. */
#include "controller/manager_int.h"
#include "json/json.h"
#include "util/alloc.h"
#include "util/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FINALIZER  "kueue.x-k8s.io/resource-in-use"
#define KEY_PREFIX "Finalize/"
#define CQ_PREFIX  KEY_PREFIX "ClusterQueue/"
#define RF_PREFIX  KEY_PREFIX "ResourceFlavor/"

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
        ts_log_info("controller", "%s: finalizer removal failed: %s", f->key, res->err.msg);
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

void ts__ctl_finalize_queue(struct ts_ctl *c, int flavor, const cJSON *obj)
{
    char key[600];

    if (!deleting(obj) || c->stopping)
        return;
    snprintf(key, sizeof(key), "%s%s", flavor ? RF_PREFIX : CQ_PREFIX,
             ts_json_get_string(obj, "metadata.name"));
    ts_workqueue_add(c->jobs, key);
}

static int enqueue_deleting_flavor(const char *key, const cJSON *rf, void *data)
{
    (void)key;
    ts__ctl_finalize_queue(data, 1, rf);
    return 0;
}

void ts__ctl_finalize_flavors(struct ts_ctl *c)
{
    ts_informer_each(c->inf[TS__CTL_RF], enqueue_deleting_flavor, c);
}

void ts__ctl_finalize_admitted_to(struct ts_ctl *c, const cJSON *wl)
{
    const char *cq = ts_json_get_string(wl, "status.admission.clusterQueue");

    if (cq)
        ts__ctl_finalize_queue(c, 0, ts_informer_get_ns(c->inf[TS__CTL_CQ], NULL, cq));
}

int ts__ctl_is_finalize_key(const char *key)
{
    return !strncmp(key, KEY_PREFIX, strlen(KEY_PREFIX));
}

/* Submits the merge patch that drops our finalizer from obj, a `res`. */
static void submit(struct ts_ctl *c, const char *key, const struct ts_kube_resource *kind,
                   const cJSON *obj)
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
    r.res = kind;
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

struct flavor_use {
    const char *name;
    int used;
};

static int names_flavor(const char *key, const cJSON *cq, void *data)
{
    struct flavor_use *u = data;
    const cJSON *rg, *f;

    (void)key;
    cJSON_ArrayForEach(rg, ts_json_get(cq, "spec.resourceGroups"))
    {
        cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(rg, "flavors"))
        {
            const char *name = ts_json_get_string(f, "name");

            if (name && !strcmp(name, u->name))
                u->used = 1;
        }
    }
    return u->used;
}

/* Whether the object of a queue key may lose its finalizer now. */
static int unused(struct ts_ctl *c, int flavor, const char *name)
{
    struct ts_engine_cq_stats st;

    if (flavor) {
        struct flavor_use u = {name, 0};

        ts_informer_each(c->inf[TS__CTL_CQ], names_flavor, &u);
        return !u.used;
    }
    return ts_engine_cq_stats(c->engine, name, &st) || st.reserving == 0;
}

void ts__ctl_reconcile_finalizer(struct ts_ctl *c, const char *key)
{
    int cq = !strncmp(key, CQ_PREFIX, strlen(CQ_PREFIX));
    int rf = !strncmp(key, RF_PREFIX, strlen(RF_PREFIX));
    const char *rest = key + strlen(KEY_PREFIX), *slash = strchr(rest, '/');
    const struct ts_kube_resource *res = &ts_kube_res_workloads;
    cJSON *obj = NULL;
    char ns[256];

    if (cq || rf) {
        res = cq ? &ts_kube_res_clusterqueues : &ts_kube_res_resourceflavors;
        obj = ts_informer_fetch(c->inf[cq ? TS__CTL_CQ : TS__CTL_RF], NULL, slash + 1);
        if (obj && !unused(c, rf, slash + 1)) { /* a later event asks again */
            cJSON_Delete(obj);
            obj = NULL;
        }
    } else if (slash && (size_t)(slash - rest) < sizeof(ns)) {
        snprintf(ns, sizeof(ns), "%.*s", (int)(slash - rest), rest);
        obj = ts_informer_fetch(c->inf[TS__CTL_WL], ns, slash + 1);
    }
    if (deleting(obj) && !c->stopping)
        submit(c, key, res, obj); /* the latest state the cache has */
    else
        ts_workqueue_forget(c->jobs, key);
    cJSON_Delete(obj);
    ts_workqueue_done(c->jobs, key);
}
