/*
 * gc.c - the foreground half of ownerReference garbage collection, done
 * synchronously as kube-controller-manager's collector would converge:
 * an owner deleted with propagationPolicy Foreground gets deletionTimestamp
 * and the foregroundDeletion finalizer, its dependents are deleted
 * (foreground, recursively), and the finalizer comes off - removing the
 * owner - once no dependent with blockOwnerDeletion: true is left.  A
 * dependent that lingers (finalizers) releases its owner when it finally
 * goes (ts__as_gc_dependent_gone).  Background and orphan are in
 * h_delete.c.  Called with the server mutex held.
 */
#include "apiserver/server_int.h"

#include <stdlib.h>
#include <string.h>

#include "json/json.h"
#include "util/alloc.h"

#define FG_FINALIZER "foregroundDeletion"

static int has_fin(const cJSON *obj, const char *name)
{
    const cJSON *f;

    cJSON_ArrayForEach(
        f, ts_json_get(obj, "metadata.finalizers")) if (cJSON_IsString(f) &&
                                                        !strcmp(f->valuestring, name)) return 1;
    return 0;
}

/* The ownerReference of obj to uid, or NULL. */
static const cJSON *ref_to(const cJSON *obj, const char *uid)
{
    const cJSON *r;

    cJSON_ArrayForEach(r, ts_json_get(obj, "metadata.ownerReferences"))
    {
        const char *u = ts_json_get_string(r, "uid");
        if (u && !strcmp(u, uid))
            return r;
    }
    return NULL;
}

/* Live object with metadata.uid == uid (its resource in *res), or NULL. */
static struct ts__as_obj *by_uid(struct ts_apiserver *s, const char *uid, struct ts__as_res **res)
{
    for (size_t i = 0; i < s->n_res; i++) {
        size_t it = 0;
        const char *k;
        void *v;

        if (s->res[i]->dead)
            continue;
        while (ts_hmap_next(&s->res[i]->objs, &it, &k, &v)) {
            const char *u = ts_json_get_string(((struct ts__as_obj *)v)->json, "metadata.uid");
            if (u && !strcmp(u, uid)) {
                *res = s->res[i];
                return v;
            }
        }
    }
    return NULL;
}

/* Whether a live dependent still blocks the owner uid. */
static int blocked(struct ts_apiserver *s, const char *uid)
{
    for (size_t i = 0; i < s->n_res; i++) {
        size_t it = 0;
        const char *k;
        void *v;

        if (s->res[i]->dead)
            continue;
        while (ts_hmap_next(&s->res[i]->objs, &it, &k, &v)) {
            const cJSON *r = ref_to(((struct ts__as_obj *)v)->json, uid);
            if (r && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "blockOwnerDeletion")))
                return 1;
        }
    }
    return 0;
}

static struct ts__as_obj *set_fg_finalizer(struct ts_apiserver *s, struct ts__as_res *res,
                                           const struct ts__as_obj *o, int add)
{
    cJSON *obj = cJSON_Duplicate(o->json, 1),
          *md = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    cJSON *fins = cJSON_GetObjectItemCaseSensitive(md, "finalizers"), *f, *nx;

    if (add) {
        if (!cJSON_IsArray(fins))
            fins = cJSON_AddArrayToObject(md, "finalizers");
        cJSON_AddItemToArray(fins, cJSON_CreateString(FG_FINALIZER));
    } else {
        for (f = fins ? fins->child : NULL; f; f = nx) {
            nx = f->next;
            if (cJSON_IsString(f) && !strcmp(f->valuestring, FG_FINALIZER))
                cJSON_Delete(cJSON_DetachItemViaPointer(fins, f));
        }
        if (!cJSON_GetArraySize(fins))
            cJSON_DeleteItemFromObjectCaseSensitive(md, "finalizers");
    }
    return ts__as_store_put(s, res, obj);
}

/* Takes the finalizer off (removing the owner) when nothing blocks it. */
static struct ts__as_obj *finish(struct ts_apiserver *s, struct ts__as_res *res,
                                 struct ts__as_obj *o, ts_time now)
{
    const char *uid = ts_json_get_string(o->json, "metadata.uid");

    if (!uid || !has_fin(o->json, FG_FINALIZER) || blocked(s, uid))
        return o;
    o = set_fg_finalizer(s, res, o, 0);
    if (cJSON_GetArraySize(ts_json_get(o->json, "metadata.finalizers")) > 0)
        return o;
    return ts__as_delete_obj(s, res, o, now);
}

/* Deletes (foreground) every live dependent of uid. */
static void delete_dependents(struct ts_apiserver *s, const char *uid, ts_time now)
{
    for (size_t i = 0; i < s->n_res; i++) {
        struct ts__as_res *dres = s->res[i];
        struct ts__as_obj **objs;
        size_t n;

        if (dres->dead || !dres->objs.n)
            continue;
        objs = ts__as_store_list(dres, NULL, &n);
        for (size_t j = 0; j < n; j++)
            ts__as_obj_ref(objs[j]);
        for (size_t j = 0; j < n; j++) {
            const cJSON *js = objs[j]->json;
            if (ref_to(js, uid) && !ts_json_get(js, "metadata.deletionTimestamp") &&
                ts__as_store_get(dres, ts_json_get_string(js, "metadata.namespace"),
                                 ts_json_get_string(js, "metadata.name")) == objs[j])
                ts__as_delete_policy(s, dres, objs[j], now, TS__AS_FOREGROUND);
            ts__as_obj_unref(objs[j]);
        }
        free(objs);
    }
}

struct ts__as_obj *ts__as_gc_foreground(struct ts_apiserver *s, struct ts__as_res *res,
                                        struct ts__as_obj *o, ts_time now)
{
    const char *u = ts_json_get_string(o->json, "metadata.uid");
    struct ts__as_obj *cur;
    char *uid;

    if (!u)
        return ts__as_delete_obj(s, res, o, now);
    uid = ts_xstrdup(u);
    if (!has_fin(o->json, FG_FINALIZER))
        o = set_fg_finalizer(s, res, o, 1);
    ts__as_mark_deleting(s, res, o, now);
    delete_dependents(s, uid, now);
    cur = by_uid(s, uid, &res);
    free(uid);
    return cur ? finish(s, res, cur, now) : NULL;
}

void ts__as_gc_dependent_gone(struct ts_apiserver *s, const cJSON *last, ts_time now)
{
    const cJSON *r;

    cJSON_ArrayForEach(r, ts_json_get(last, "metadata.ownerReferences"))
    {
        const char *u = ts_json_get_string(r, "uid");
        struct ts__as_res *ores = NULL;
        struct ts__as_obj *owner = u ? by_uid(s, u, &ores) : NULL;

        if (owner && ts_json_get(owner->json, "metadata.deletionTimestamp"))
            finish(s, ores, owner, now);
    }
}
