/*
 * commit.c - the one write pipeline every create, update, patch and
 * status write goes through: server-owned metadata, optimistic
 * concurrency, status/spec separation, generation, per-kind preparation
 * (Job defaults, CRD status, custom-resource schema), metadata
 * validation, no-op detection, finalizer rules and storage.
 */
#include "apiserver/server_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/meta_validate.h"
#include "json/json.h"
#include "util/alloc.h"

static void set_str(cJSON *obj, const char *key, const char *v)
{
    cJSON_DeleteItemFromObjectCaseSensitive(obj, key);
    if (v)
        cJSON_AddStringToObject(obj, key, v);
}

static void copy_member(cJSON *dst, const cJSON *src, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(src, key);

    cJSON_DeleteItemFromObjectCaseSensitive(dst, key);
    if (v)
        cJSON_AddItemToObject(dst, key, cJSON_Duplicate(v, 1));
}

/* ObjectMeta's rules for built-in kinds (a custom resource's are checked
 * with its schema, ts__as_cr_prepare()). */
static void validate_meta(const struct ts__as_res *res, const cJSON *obj,
                          struct ts_field_errors *errs)
{
    enum ts_meta_name_rule rule = TS_META_NAME_SUBDOMAIN;

    if (res->kindid == TS__AS_CR)
        return;
    if (res->kindid == TS__AS_NAMESPACE)
        rule = TS_META_NAME_LABEL;
    else if (res->kindid == TS__AS_CONFIGMAP || res->kindid == TS__AS_SECRET ||
             res->kindid == TS__AS_EVENT)
        rule = TS_META_NAME_PRESENT;
    ts_meta_validate(obj, rule, res->namespaced, errs);
}

static int named(const char *const *names, const char *key)
{
    for (; *names; names++)
        if (key && !strcmp(*names, key))
            return 1;
    return 0;
}

/* Whether objects a and b are equal apart from their members named in
 * skip (NULL-terminated): the comparisons below ran on copies with those
 * members deleted, two deep copies per write under the server's lock. */
static int equal_except(const cJSON *a, const cJSON *b, const char *const *skip)
{
    const cJSON *x;

    if (!cJSON_IsObject(a) || !cJSON_IsObject(b))
        return ts_json_equal(a, b);
    cJSON_ArrayForEach(x, a)
    {
        const cJSON *y;

        if (named(skip, x->string))
            continue;
        y = cJSON_GetObjectItemCaseSensitive(b, x->string);
        if (!y || !ts_json_equal(x, y))
            return 0;
    }
    cJSON_ArrayForEach(x, b)
    {
        if (!named(skip, x->string) && !cJSON_GetObjectItemCaseSensitive(a, x->string))
            return 0;
    }
    return 1;
}

/* Compares everything outside metadata (and status when it is a
 * subresource). */
static int spec_changed(const struct ts__as_res *res, const struct ts__as_ver *ver, const cJSON *a,
                        const cJSON *b)
{
    static const char *const meta[] = {"metadata", NULL};
    static const char *const meta_status[] = {"metadata", "status", NULL};

    return !equal_except(
        a, b, res->kindid == TS__AS_JOB || (ver && ver->has_status) ? meta_status : meta);
}

static int new_finalizers(const cJSON *old, const cJSON *obj, struct ts_field_errors *errs)
{
    const cJSON *f, *o;

    cJSON_ArrayForEach(f, ts_json_get(obj, "metadata.finalizers"))
    {
        int found = 0;

        cJSON_ArrayForEach(o, ts_json_get(old, "metadata.finalizers")) found |= ts_json_equal(f, o);
        if (!found) {
            ts_field_errors_add(errs, TS_FIELD_FORBIDDEN, "metadata.finalizers", NULL, 0,
                                "no new finalizers can be added if the object is being deleted, "
                                "found new finalizers []string{\"%s\"}",
                                cJSON_IsString(f) ? f->valuestring : "");
            return 1;
        }
    }
    return 0;
}

/* Server-owned metadata on update: from old. */
static void keep_server_meta(cJSON *obj, const cJSON *old)
{
    cJSON *md = ts_json_mkpath(obj, "metadata", NULL);
    const cJSON *omd = cJSON_GetObjectItemCaseSensitive(old, "metadata");

    copy_member(md, omd, "uid");
    copy_member(md, omd, "creationTimestamp");
    copy_member(md, omd, "deletionTimestamp");
    copy_member(md, omd, "deletionGracePeriodSeconds");
    copy_member(md, omd, "generation");
    copy_member(md, omd, "namespace");
    copy_member(md, omd, "name");
    copy_member(md, omd, "resourceVersion");
}

/* Returns 0 to go on, -1 after replying. */
static int check_update(struct ts__as_req *q, struct ts__as_resp *r, const struct ts__as_obj *old,
                        cJSON *obj, int status_only)
{
    const char *rv = ts_json_get_string(obj, "metadata.resourceVersion");
    const char *orv = ts_json_get_string(old->json, "metadata.resourceVersion");
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;

    if (rv && rv[0] && strcmp(rv, orv)) {
        ts__as_reply_conflict(r, q->res, q->rt.name);
        return -1;
    }
    if ((!rv || !rv[0]) && !strcmp(q->method, "PUT") && q->res->kindid == TS__AS_CR) {
        ts_field_errors_add(&errs, TS_FIELD_INVALID, "metadata.resourceVersion", "0", 0,
                            "must be specified for an update");
    } else if (!status_only && ts_json_get(old->json, "metadata.deletionTimestamp")) {
        new_finalizers(old->json, obj, &errs);
    }
    if (errs.n) {
        ts__as_reply_invalid(r, q->res, q->rt.name, &errs);
        ts_field_errors_release(&errs);
        return -1;
    }
    return 0;
}

/* Builds the object to store on update; returns the new tree (obj is
 * consumed). */
static cJSON *merge_update(struct ts__as_req *q, const struct ts__as_obj *old, cJSON *obj,
                           int status_only)
{
    int sub = q->res->kindid == TS__AS_NAMESPACE || q->res->kindid == TS__AS_JOB ||
              q->res->kindid == TS__AS_CRD || (q->ver && q->ver->has_status);
    cJSON *out;

    if (status_only) {
        out = cJSON_Duplicate(old->json, 1);
        copy_member(out, obj, "status");
        cJSON_Delete(obj);
        return out;
    }
    keep_server_meta(obj, old->json);
    if (sub && q->res->kindid != TS__AS_CRD)
        copy_member(obj, old->json, "status");
    return obj;
}

static void bump_generation(struct ts__as_req *q, const struct ts__as_obj *old, cJSON *obj)
{
    int64_t gen = 0;

    if (!q->res->generation)
        return;
    ts_json_get_i64(ts_json_get(old->json, "metadata.generation"), &gen);
    if (spec_changed(q->res, q->ver, old->json, obj)) {
        cJSON *md = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
        cJSON_DeleteItemFromObjectCaseSensitive(md, "generation");
        cJSON_AddNumberToObject(md, "generation", (double)(gen + 1));
    }
}

/* Kind-specific preparation; 0 or -1 after replying. */
static int prepare_kind(struct ts__as_req *q, struct ts__as_resp *r, const cJSON *old, cJSON *obj)
{
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    const char *refused;

    switch (q->res->kindid) {
    case TS__AS_JOB:
        ts__as_job_default(obj);
        if (!q->rt.sub) /* the status subresource leaves the spec alone */
            ts__as_job_validate(obj, &errs);
        if (old && (refused = ts__as_job_template_refused(old, obj)))
            ts_field_errors_add(&errs, TS_FIELD_INVALID, refused, NULL, 0, "field is immutable");
        if (errs.n) {
            ts__as_reply_invalid(r, q->res, ts_json_get_string(obj, "metadata.name"), &errs);
            ts_field_errors_release(&errs);
            return -1;
        }
        break;
    case TS__AS_LIMITRANGE:
        ts__as_limitrange_default(obj);
        break;
    case TS__AS_CR:
        return ts__as_cr_prepare(q, r, old, obj);
    case TS__AS_CRD:
        if (ts__as_crd_prepare(q->s, obj, old, q->now, &errs)) {
            ts__as_reply_invalid(r, q->res, ts_json_get_string(obj, "metadata.name"), &errs);
            ts_field_errors_release(&errs);
            return -1;
        }
        break;
    default:
        break;
    }
    return 0;
}

static void reply_obj(struct ts__as_req *q, struct ts__as_resp *r, int code, const cJSON *obj)
{
    cJSON *c = ts__as_present(q, q->res, obj);

    ts__as_reply_json(r, code, c);
    cJSON_Delete(c);
}

/* A stored object's reply shares the text its watchers are sent: printed
 * once per write instead of copied and printed again for the writer. */
static void reply_stored(struct ts__as_req *q, struct ts__as_resp *r, int code,
                         struct ts__as_obj *o)
{
    if (!q->ver) {
        reply_obj(q, r, code, o->json);
        return;
    }
    r->code = code;
    ts_buf_reset(&r->body);
    ts__as_add_obj(q, o, &r->body);
}

static void store(struct ts__as_req *q, struct ts__as_resp *r, cJSON *obj, int code)
{
    struct ts__as_obj *o;
    int dry = ts__as_query(q, "dryRun") != NULL;

    if (dry) {
        reply_obj(q, r, code, obj);
        cJSON_Delete(obj);
        return;
    }
    if (ts_json_get(obj, "metadata.deletionTimestamp") &&
        cJSON_GetArraySize(ts_json_get(obj, "metadata.finalizers")) == 0 &&
        q->res->kindid != TS__AS_NAMESPACE) {
        struct ts__as_obj *cur = ts__as_store_put(q->s, q->res, obj);
        reply_stored(q, r, code, cur);
        ts__as_delete_obj(q->s, q->res, cur, q->now);
        return;
    }
    o = ts__as_store_put(q->s, q->res, obj);
    if (q->res->kindid == TS__AS_CRD)
        ts__as_crd_apply(q->s, o->json);
    reply_stored(q, r, code, o);
    if (code == 201 && ts_json_get(o->json, "metadata.ownerReferences"))
        ts__as_gc_dangling(q->s, q->res, o, q->now);
}

/* Equal apart from the times in metadata.managedFields: the field tracker
 * restamps its entry on every write, which must not turn a no-op into a
 * new resourceVersion (kube-apiserver skips such writes too); a change of
 * ownership still counts. */
static int same_but_managed_times(const cJSON *a, const cJSON *b)
{
    static const char *const meta[] = {"metadata", NULL};
    static const char *const managed[] = {"managedFields", NULL};
    static const char *const times[] = {"time", NULL};
    const cJSON *ma = cJSON_GetObjectItemCaseSensitive(a, "metadata");
    const cJSON *mb = cJSON_GetObjectItemCaseSensitive(b, "metadata");
    const cJSON *fa = cJSON_GetObjectItemCaseSensitive(ma, "managedFields");
    const cJSON *fb = cJSON_GetObjectItemCaseSensitive(mb, "managedFields");
    const cJSON *x, *y;

    if (!equal_except(a, b, meta) || !ma != !mb || (ma && !equal_except(ma, mb, managed)))
        return 0;
    if (!cJSON_IsArray(fa) || !cJSON_IsArray(fb))
        return ts_json_equal(fa, fb);
    for (x = fa->child, y = fb->child; x && y; x = x->next, y = y->next)
        if (!equal_except(x, y, times))
            return 0;
    return !x && !y;
}

static void commit_update(struct ts__as_req *q, struct ts__as_resp *r, struct ts__as_obj *old,
                          cJSON *obj, int status_only)
{
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;

    if (check_update(q, r, old, obj, status_only) || ts__as_admit_mutate(q, r, &obj, old)) {
        cJSON_Delete(obj);
        return;
    }
    obj = merge_update(q, old, obj, status_only);
    if (prepare_kind(q, r, old->json, obj)) {
        cJSON_Delete(obj);
        return;
    }
    validate_meta(q->res, obj, &errs);
    if (errs.n) {
        ts__as_reply_invalid(r, q->res, q->rt.name, &errs);
        ts_field_errors_release(&errs);
        cJSON_Delete(obj);
        return;
    }
    bump_generation(q, old, obj);
    ts__as_track_fields(q, old->json, obj);
    if (ts__as_admit_validate(q, r, &obj, old)) {
        cJSON_Delete(obj);
        return;
    }
    if (same_but_managed_times(obj, old->json)) { /* no-op: no new RV, no event */
        reply_stored(q, r, 200, old);
        cJSON_Delete(obj);
        return;
    }
    ts__as_to_storage(q->s, q->res, obj);
    store(q, r, obj, 200);
}

/* --- create --------------------------------------------------------------- */

static int generate_name(struct ts__as_req *q, cJSON *md)
{
    const char *gen = ts_json_get_string(md, "generateName");
    char name[80], suffix[6];

    for (int tries = 0; tries < 8; tries++) {
        ts__as_rand_chars(q->s, "bcdfghjklmnpqrstvwxz2456789", suffix, 5);
        snprintf(name, sizeof(name), "%.58s%s", gen, suffix);
        if (!ts__as_store_get(q->res, q->rt.ns, name)) {
            set_str(md, "name", name);
            return 0;
        }
    }
    return -1;
}

static void create_meta(struct ts__as_req *q, cJSON *obj)
{
    cJSON *md = ts_json_mkpath(obj, "metadata", NULL);
    char uid[37], ts[TS_TIME_STR_MAX];

    ts__as_new_uid(q->s, uid);
    ts_time_format(q->now, ts, sizeof(ts));
    set_str(md, "uid", uid);
    set_str(md, "creationTimestamp", ts);
    set_str(md, "resourceVersion", NULL);
    set_str(md, "deletionTimestamp", NULL);
    cJSON_DeleteItemFromObjectCaseSensitive(md, "deletionGracePeriodSeconds");
    cJSON_DeleteItemFromObjectCaseSensitive(md, "generation");
    if (q->res->generation)
        cJSON_AddNumberToObject(md, "generation", 1);
    set_str(md, "namespace", q->res->namespaced ? q->rt.ns : NULL);
}

static void create_kind(struct ts__as_req *q, cJSON *obj)
{
    int sub = q->res->kindid == TS__AS_JOB || (q->ver && q->ver->has_status);

    if (sub)
        cJSON_DeleteItemFromObjectCaseSensitive(obj, "status");
    if (q->res->kindid == TS__AS_SECRET &&
        !(ts_json_get_string(obj, "type") && ts_json_get_string(obj, "type")[0]))
        set_str(obj, "type", "Opaque");
    if (q->res->kindid == TS__AS_NAMESPACE) {
        const char *name = ts_json_get_string(obj, "metadata.name");
        cJSON *fin = cJSON_CreateArray();

        ts_json_set_string(obj, "metadata.labels[kubernetes.io/metadata.name]", name, NULL);
        cJSON_AddItemToArray(fin, cJSON_CreateString("kubernetes"));
        ts_json_set(obj, "spec.finalizers", fin, NULL);
        ts_json_set_string(obj, "status.phase", "Active", NULL);
    }
}

/* Namespace checks on create; 0 or -1 after replying. */
static int check_namespace(struct ts__as_req *q, struct ts__as_resp *r, const char *name)
{
    struct ts__as_res *nsres = ts__as_res_by_kind(q->s, "", "Namespace");
    struct ts__as_obj *ns;
    char msg[512];

    if (!q->res->namespaced)
        return 0;
    if (!(ns = ts__as_store_get(nsres, NULL, q->rt.ns))) {
        ts__as_reply_notfound(r, nsres, q->rt.ns);
        return -1;
    }
    if (ts_json_get(ns->json, "metadata.deletionTimestamp")) {
        snprintf(msg, sizeof(msg),
                 "%s \"%s\" is forbidden: unable to create new content in namespace %s because it "
                 "is being terminated",
                 q->res->resource, name ? name : "", q->rt.ns);
        ts__as_reply_status(r, 403, "Forbidden", msg, NULL);
        return -1;
    }
    return 0;
}

/* Create up to and including mutating admission and the name: 0 to go
 * on, -1 after replying (or while webhooks are pending). */
static int create_admit(struct ts__as_req *q, struct ts__as_resp *r, cJSON **obj)
{
    cJSON *md = ts_json_mkpath(*obj, "metadata", NULL);
    const char *name = ts_json_get_string(md, "name");

    if (!md || check_namespace(q, r, name)) {
        if (!md)
            ts__as_reply_badreq(r, "metadata must be an object");
        return -1;
    }
    if (q->res->namespaced)
        set_str(md, "namespace", q->rt.ns);
    if (ts__as_admit_mutate(q, r, obj, NULL))
        return -1;
    if (!(md = ts_json_mkpath(*obj, "metadata", NULL))) {
        ts__as_reply_badreq(r, "metadata must be an object");
        return -1;
    }
    name = ts_json_get_string(md, "name");
    if ((!name || !name[0]) && ts_json_get_string(md, "generateName") && generate_name(q, md)) {
        ts__as_reply_exists(r, q->res, ts_json_get_string(md, "generateName"));
        return -1;
    }
    return 0;
}

static void commit_create(struct ts__as_req *q, struct ts__as_resp *r, cJSON *obj)
{
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    const char *name;

    if (create_admit(q, r, &obj)) {
        cJSON_Delete(obj);
        return;
    }
    create_meta(q, obj);
    create_kind(q, obj);
    if (prepare_kind(q, r, NULL, obj)) {
        cJSON_Delete(obj);
        return;
    }
    validate_meta(q->res, obj, &errs);
    if (errs.n) {
        ts__as_reply_invalid(r, q->res, ts_json_get_string(obj, "metadata.name"), &errs);
        ts_field_errors_release(&errs);
        cJSON_Delete(obj);
        return;
    }
    ts__as_track_fields(q, NULL, obj);
    if (ts__as_admit_validate(q, r, &obj, NULL)) {
        cJSON_Delete(obj);
        return;
    }
    name = ts_json_get_string(obj, "metadata.name");
    if (ts__as_store_get(q->res, q->rt.ns, name)) {
        ts__as_reply_exists(r, q->res, name);
        cJSON_Delete(obj);
    } else {
        ts__as_to_storage(q->s, q->res, obj);
        store(q, r, obj, 201);
    }
}

void ts__as_commit(struct ts__as_req *q, struct ts__as_resp *r, struct ts__as_obj *old, cJSON *obj,
                   int status_only)
{
    char av[300];
    struct ts__as_obj view;

    if (!cJSON_IsObject(obj)) {
        ts__as_reply_badreq(r, "the body of the request must be a JSON object");
        cJSON_Delete(obj);
        return;
    }
    snprintf(av, sizeof(av), "%s%s%s", q->res->group, q->res->group[0] ? "/" : "", q->ver->name);
    set_str(obj, "apiVersion", av);
    set_str(obj, "kind", q->res->kind);
    if (old && (q->res->convert_kueue || q->res->conv_webhook)) {
        /* the update is worked out in the request's version */
        view = *old;
        view.json = ts__as_present(q, q->res, old->json);
        view.text = NULL;
        commit_update(q, r, &view, obj, status_only);
        cJSON_Delete(view.json);
        free(view.text); /* a no-op's reply prints it */
    } else if (old) {
        commit_update(q, r, old, obj, status_only);
    } else {
        commit_create(q, r, obj);
    }
}
