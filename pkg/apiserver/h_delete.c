/*
 * h_delete.c - DELETE of one object or a collection: preconditions,
 * finalizers and deletionTimestamp (markAsDeleting), a synchronous
 * garbage collector for ownerReferences (Background/Foreground remove
 * dependents whose owners are all gone, Orphan strips the references),
 * namespace deletion with its contents, and CRD removal.
 */
#include "apiserver/server_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/json.h"
#include "util/alloc.h"

#define JOB_ORPHAN_WARNING                                                                         \
    "child pods are preserved by default when jobs are deleted; set propagationPolicy=Background " \
    "to remove them or set propagationPolicy=Orphan to suppress this warning"

static void ref_all(struct ts__as_obj **objs, size_t n, int ref)
{
    for (size_t i = 0; i < n; i++) {
        if (ref)
            ts__as_obj_ref(objs[i]);
        else
            ts__as_obj_unref(objs[i]);
    }
}

static int has_finalizers(const cJSON *obj)
{
    return cJSON_GetArraySize(ts_json_get(obj, "metadata.finalizers")) > 0;
}

struct ts__as_obj *ts__as_mark_deleting(struct ts_apiserver *s, struct ts__as_res *res,
                                        struct ts__as_obj *o, ts_time now)
{
    cJSON *obj = cJSON_Duplicate(o->json, 1),
          *md = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    char ts[TS_TIME_STR_MAX];
    int64_t gen = 0;

    if (cJSON_GetObjectItemCaseSensitive(md, "deletionTimestamp")) {
        cJSON_Delete(obj);
        return o;
    }
    ts_time_format(now, ts, sizeof(ts));
    cJSON_AddStringToObject(md, "deletionTimestamp", ts);
    cJSON_DeleteItemFromObjectCaseSensitive(md, "deletionGracePeriodSeconds");
    cJSON_AddNumberToObject(md, "deletionGracePeriodSeconds", 0);
    if (!ts_json_get_i64(cJSON_GetObjectItemCaseSensitive(md, "generation"), &gen) && gen > 0) {
        cJSON_DeleteItemFromObjectCaseSensitive(md, "generation");
        cJSON_AddNumberToObject(md, "generation", (double)(gen + 1));
    }
    if (res->kindid == TS__AS_NAMESPACE)
        ts_json_set_string(obj, "status.phase", "Terminating", NULL);
    return ts__as_store_put(s, res, obj);
}

static int refs_uid(const cJSON *obj, const char *uid)
{
    const cJSON *r;

    cJSON_ArrayForEach(r, ts_json_get(obj, "metadata.ownerReferences"))
    {
        const char *u = ts_json_get_string(r, "uid");

        if (u && !strcmp(u, uid))
            return 1;
    }
    return 0;
}

/* Whether any owner of obj other than `gone` is still alive. */
static int uid_exists(struct ts_apiserver *s, const char *uid)
{
    for (size_t i = 0; i < s->n_res; i++) {
        size_t it = 0;
        const char *k;
        void *v;

        while (ts_hmap_next(&s->res[i]->objs, &it, &k, &v)) {
            const char *ou = ts_json_get_string(((struct ts__as_obj *)v)->json, "metadata.uid");
            if (ou && !strcmp(ou, uid))
                return 1;
        }
    }
    return 0;
}

static int live_owner(struct ts_apiserver *s, const cJSON *obj, const char *gone)
{
    const cJSON *r;

    cJSON_ArrayForEach(r, ts_json_get(obj, "metadata.ownerReferences"))
    {
        const char *u = ts_json_get_string(r, "uid");

        if (u && strcmp(u, gone) && uid_exists(s, u))
            return 1;
    }
    return 0;
}

static void strip_ref(struct ts_apiserver *s, struct ts__as_res *res, struct ts__as_obj *o,
                      const char *uid)
{
    cJSON *obj = cJSON_Duplicate(o->json, 1), *refs = ts_json_get(obj, "metadata.ownerReferences");
    cJSON *r = refs ? refs->child : NULL, *nx;

    for (; r; r = nx) {
        const char *u = ts_json_get_string(r, "uid");

        nx = r->next;
        if (u && !strcmp(u, uid))
            cJSON_Delete(cJSON_DetachItemViaPointer(refs, r));
    }
    if (!cJSON_GetArraySize(refs))
        cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(obj, "metadata"),
                                                "ownerReferences");
    ts__as_store_put(s, res, obj);
}

/* The garbage collector for dependents of the removed owner `uid`. */
static void collect(struct ts_apiserver *s, const char *uid, int orphan, ts_time now)
{
    for (size_t i = 0; i < s->n_res; i++) {
        struct ts__as_res *res = s->res[i];
        size_t n;
        struct ts__as_obj **objs;

        if (res->dead || !res->objs.n)
            continue;
        objs = ts__as_store_list(res, NULL, &n);
        ref_all(objs, n, 1);
        for (size_t j = 0; j < n; j++) {
            struct ts__as_obj *o = objs[j];

            if (!refs_uid(o->json, uid) ||
                ts__as_store_get(res, ts_json_get_string(o->json, "metadata.namespace"),
                                 ts_json_get_string(o->json, "metadata.name")) != o)
                continue;
            if (!orphan && !live_owner(s, o->json, uid))
                ts__as_delete_obj(s, res, o, now);
            else
                strip_ref(s, res, o, uid);
        }
        ref_all(objs, n, 0);
        free(objs);
    }
}

void ts__as_gc_dangling(struct ts_apiserver *s, struct ts__as_res *res, struct ts__as_obj *o,
                        ts_time now)
{
    const cJSON *r;
    int refs = 0;

    cJSON_ArrayForEach(r, ts_json_get(o->json, "metadata.ownerReferences"))
    {
        const char *u = ts_json_get_string(r, "uid");

        if (u && uid_exists(s, u))
            return; /* a live owner keeps it */
        refs++;
    }
    if (refs)
        ts__as_delete_obj(s, res, o, now);
}

static void delete_namespace_contents(struct ts_apiserver *s, const char *ns, ts_time now)
{
    for (size_t i = 0; i < s->n_res; i++) {
        struct ts__as_res *res = s->res[i];
        struct ts__as_obj **objs;
        size_t n;

        if (!res->namespaced || res->dead)
            continue;
        objs = ts__as_store_list(res, ns, &n);
        ref_all(objs, n, 1);
        for (size_t j = 0; j < n; j++)
            if (ts__as_store_get(res, ns, ts_json_get_string(objs[j]->json, "metadata.name")) ==
                objs[j])
                ts__as_delete_obj(s, res, objs[j], now);
        ref_all(objs, n, 0);
        free(objs);
    }
}

void ts__as_finish_namespace(struct ts_apiserver *s, const char *ns)
{
    struct ts__as_res *nsres = ts__as_res_by_kind(s, "", "Namespace");
    struct ts__as_obj *o = ts__as_store_get(nsres, NULL, ns);

    if (!o || !ts_json_get(o->json, "metadata.deletionTimestamp") || has_finalizers(o->json))
        return;
    for (size_t i = 0; i < s->n_res; i++) {
        size_t n;
        struct ts__as_obj **objs;

        if (!s->res[i]->namespaced || s->res[i]->dead)
            continue;
        objs = ts__as_store_list(s->res[i], ns, &n);
        free(objs);
        if (n)
            return;
    }
    ts__as_store_del(s, nsres, o);
}

static void removed(struct ts_apiserver *s, struct ts__as_res *res, const cJSON *last, int orphan,
                    ts_time now)
{
    const char *uid = ts_json_get_string(last, "metadata.uid");
    const char *ns = ts_json_get_string(last, "metadata.namespace");

    if (res->kindid == TS__AS_CRD)
        ts__as_crd_remove(s, last);
    if (uid)
        collect(s, uid, orphan, now);
    ts__as_gc_dependent_gone(s, last, now);
    if (res->namespaced && ns)
        ts__as_finish_namespace(s, ns);
}

static struct ts__as_obj *delete_with(struct ts_apiserver *s, struct ts__as_res *res,
                                      struct ts__as_obj *o, ts_time now, int policy)
{
    const char *uid = ts_json_get_string(o->json, "metadata.uid");
    cJSON *last;

    if (res->kindid == TS__AS_NAMESPACE) {
        const char *name = ts_json_get_string(o->json, "metadata.name");
        struct ts__as_obj *cur = ts__as_mark_deleting(s, res, o, now);

        delete_namespace_contents(s, name, now);
        ts__as_finish_namespace(s, name);
        return ts__as_store_get(res, NULL, name) ? cur : NULL;
    }
    if (policy == TS__AS_FOREGROUND)
        return ts__as_gc_foreground(s, res, o, now);
    if (policy == TS__AS_ORPHAN && uid) { /* the orphan finalizer's work, done at once */
        char *u = ts_xstrdup(uid);
        collect(s, u, 1, now);
        free(u);
    }
    if (has_finalizers(o->json))
        return ts__as_mark_deleting(s, res, o, now);
    last = cJSON_Duplicate(o->json, 1);
    ts__as_store_del(s, res, o);
    removed(s, res, last, policy == TS__AS_ORPHAN, now);
    cJSON_Delete(last);
    return NULL;
}

struct ts__as_obj *ts__as_delete_policy(struct ts_apiserver *s, struct ts__as_res *res,
                                        struct ts__as_obj *o, ts_time now, int policy)
{
    return delete_with(s, res, o, now, policy);
}

struct ts__as_obj *ts__as_delete_obj(struct ts_apiserver *s, struct ts__as_res *res,
                                     struct ts__as_obj *o, ts_time now)
{
    return delete_with(s, res, o, now, TS__AS_BACKGROUND);
}

/* DeleteOptions checks; returns the propagation policy (NULL = default)
 * or sets *bad after replying. */
static const char *delete_options(struct ts__as_req *q, struct ts__as_resp *r,
                                  const struct ts__as_obj *o, cJSON **opts, int *bad)
{
    const char *uid, *rv, *pol;
    char msg[512];

    *bad = 0;
    *opts = NULL;
    if (q->body.len && ts_json_parse(q->body.ptr, q->body.len, opts, NULL)) {
        ts__as_reply_badreq(r, "invalid DeleteOptions");
        return *bad = 1, NULL;
    }
    uid = ts_json_get_string(*opts, "preconditions.uid");
    rv = ts_json_get_string(*opts, "preconditions.resourceVersion");
    if (uid && strcmp(uid, ts_json_get_string(o->json, "metadata.uid"))) {
        snprintf(msg, sizeof(msg),
                 "Precondition failed: UID in precondition: %s, UID in object meta: %s", uid,
                 ts_json_get_string(o->json, "metadata.uid"));
        ts__as_reply_status(r, 409, "Conflict", msg, NULL);
        return *bad = 1, NULL;
    }
    if (rv && strcmp(rv, ts_json_get_string(o->json, "metadata.resourceVersion"))) {
        ts__as_reply_conflict(r, q->res, q->rt.name);
        return *bad = 1, NULL;
    }
    pol = ts_json_get_string(*opts, "propagationPolicy");
    if (!pol && ts__as_query(q, "propagationPolicy"))
        pol = ts__as_query(q, "propagationPolicy");
    if (!pol && cJSON_IsBool(cJSON_GetObjectItemCaseSensitive(*opts, "orphanDependents")))
        pol = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(*opts, "orphanDependents"))
                  ? "Orphan"
                  : "Background";
    if (pol && strcmp(pol, "Orphan") && strcmp(pol, "Background") && strcmp(pol, "Foreground")) {
        ts__as_reply_badreq(r,
                            "propagationPolicy: Unsupported value: \"%s\": supported values: "
                            "\"Foreground\", \"Background\", \"Orphan\"",
                            pol);
        return *bad = 1, NULL;
    }
    return pol;
}

static int policy_of(const struct ts__as_req *q, const char *pol)
{
    if (!pol) /* the batch/v1 Job strategy orphans by default */
        return q->res->kindid == TS__AS_JOB ? TS__AS_ORPHAN : TS__AS_BACKGROUND;
    if (!strcmp(pol, "Orphan"))
        return TS__AS_ORPHAN;
    return !strcmp(pol, "Foreground") ? TS__AS_FOREGROUND : TS__AS_BACKGROUND;
}

static void reply_deleted(struct ts__as_req *q, struct ts__as_resp *r, const cJSON *last)
{
    cJSON *d;

    if (q->res->kindid != TS__AS_CR) {
        cJSON *c = ts__as_present(q, q->res, last);
        ts__as_reply_json(r, 200, c);
        cJSON_Delete(c);
        return;
    }
    d = cJSON_CreateObject();
    cJSON_AddStringToObject(d, "name", q->rt.name);
    cJSON_AddStringToObject(d, "group", q->res->group);
    cJSON_AddStringToObject(d, "kind", q->res->resource);
    cJSON_AddStringToObject(d, "uid", ts_json_get_string(last, "metadata.uid"));
    ts__as_reply_status(r, 200, NULL, NULL, d);
}

void ts__as_handle_delete(struct ts__as_req *q, struct ts__as_resp *r)
{
    struct ts__as_obj *o = ts__as_store_get(q->res, q->rt.ns, q->rt.name), *after;
    const char *pol;
    cJSON *opts, *last;
    int bad, policy;

    if (!o) {
        ts__as_reply_notfound(r, q->res, q->rt.name);
        return;
    }
    pol = delete_options(q, r, o, &opts, &bad);
    if (bad) {
        cJSON_Delete(opts);
        return;
    }
    if (ts__as_admit_delete(q, r, o)) {
        cJSON_Delete(opts);
        return;
    }
    policy = policy_of(q, pol);
    if (!pol && q->res->kindid == TS__AS_JOB)
        ts_strlist_push(&r->warnings, JOB_ORPHAN_WARNING);
    /* dryRun comes in the query (kubectl) or in the DeleteOptions body
     * (client-go's Delete(ctx, name, metav1.DeleteOptions{DryRun: ...})) */
    if (ts__as_query(q, "dryRun") ||
        cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(opts, "dryRun")) > 0) {
        reply_deleted(q, r, o->json);
    } else {
        last = cJSON_Duplicate(o->json, 1);
        after = delete_with(q->s, q->res, o, q->now, policy);
        if (after) {
            cJSON *c = ts__as_present(q, q->res, after->json);
            ts__as_reply_json(r, 200, c);
            cJSON_Delete(c);
        } else {
            reply_deleted(q, r, last);
        }
        cJSON_Delete(last);
    }
    cJSON_Delete(opts);
}

void ts__as_handle_delete_collection(struct ts__as_req *q, struct ts__as_resp *r)
{
    struct ts__as_filter *f;
    struct ts__as_obj **objs;
    size_t n;

    if (ts__as_filter_new(q, r, &f))
        return;
    objs = ts__as_store_list(q->res, q->res->namespaced ? q->rt.ns : NULL, &n);
    ref_all(objs, n, 1);
    for (size_t i = 0; i < n; i++) {
        const cJSON *j = objs[i]->json;

        if (ts__as_filter_match(f, q->res, j) &&
            ts__as_store_get(q->res, ts_json_get_string(j, "metadata.namespace"),
                             ts_json_get_string(j, "metadata.name")) == objs[i])
            ts__as_delete_obj(q->s, q->res, objs[i], q->now);
    }
    ref_all(objs, n, 0);
    free(objs);
    ts__as_filter_free(f);
    ts__as_reply_status(r, 200, NULL, NULL, NULL);
}
