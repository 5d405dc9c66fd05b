/*
 * h_write.c - POST (create), PUT (update) and PATCH (merge, JSON, strategic
 * merge, and server-side apply as create-or-merge) requests: body decoding
 * and the checks that come before the common commit pipeline.
 */
#include "apiserver/server_int.h"

#include <stdio.h>
#include <string.h>

#include "apiserver/pb.h"
#include "json/smp.h"
#include "apiserver/ssa.h"
#include "json/json.h"
#include "json/patch.h"
#include "yaml/yaml.h"

#define MT_MERGE "application/merge-patch+json"
#define MT_JSON  "application/json-patch+json"
#define MT_SMP   "application/strategic-merge-patch+json"
#define MT_APPLY "application/apply-patch+yaml"

/* Whether the Content-Type's media type (before ';') is mt. */
static int media_is(const char *ctype, const char *mt)
{
    size_t n = strlen(mt);

    return ctype && !strncmp(ctype, mt, n) && (ctype[n] == '\0' || ctype[n] == ';');
}

static void unsupported_media(struct ts__as_resp *r, int patch)
{
    ts__as_reply_status(r, 415, "UnsupportedMediaType",
                        patch ? "the body of the request was in an unknown format - accepted "
                                "media types include: application/json-patch+json, "
                                "application/merge-patch+json, application/apply-patch+yaml"
                              : "the body of the request was in an unknown format - accepted "
                                "media types include: application/json, application/yaml",
                        NULL);
}

static int body_is_json(const struct ts__as_req *q)
{
    return !(q->ctype && strstr(q->ctype, "protobuf")) && !media_is(q->ctype, "application/yaml");
}

void ts__as_body_preparse(struct ts__as_req *q)
{
    if ((strcmp(q->method, "POST") && strcmp(q->method, "PUT")) || !q->body.len ||
        !body_is_json(q) || ts_json_parse(q->body.ptr, q->body.len, &q->parsed, NULL))
        q->parsed = NULL;
}

/* kube-apiserver's 400 for a body it cannot read as the resource's kind:
 * the reason, then the body's first 30 bytes. */
static void unrecognized(struct ts__as_req *q, struct ts__as_resp *r, const char *what,
                         const char *detail)
{
    int n = q->body.len > 30 ? 30 : (int)q->body.len;

    ts__as_reply_badreq(
        r, "the object provided is unrecognized (must be of type %s): %s%s (%.*s%s)", q->res->kind,
        what, detail, n, q->body.ptr ? q->body.ptr : "", q->body.len > 30 ? " ..." : "");
}

/* Decodes a JSON (or YAML) body; NULL after replying. */
static cJSON *decode_body(struct ts__as_req *q, struct ts__as_resp *r, int yaml)
{
    struct ts_err err = {0};
    cJSON *v = NULL;

    if (q->parsed && !yaml && body_is_json(q)) {
        v = q->parsed;
        q->parsed = NULL;
        return v;
    }
    if (q->ctype && strstr(q->ctype, "protobuf")) {
        int rc =
            yaml ? TS_EUNSUPPORTED
                 : ts_pb_decode(q->body.ptr, q->body.len, q->res->group, q->res->kind, &v, &err);

        if (rc == TS_EPARSE || rc == TS_EINVAL)
            ts__as_reply_badreq(r, "%s", err.msg);
        else if (rc)
            unsupported_media(r, 0);
        return v;
    }
    if (yaml || media_is(q->ctype, "application/yaml")) {
        if (ts_yaml_decode_one(q->body.ptr, q->body.len, &v, &err))
            ts__as_reply_badreq(r, "error decoding YAML: %s", err.msg);
    } else if (ts_json_parse(q->body.ptr, q->body.len, &v, &err)) {
        unrecognized(q, r, "couldn't get version/kind; json parse error: ", err.msg);
    }
    return v;
}

/* Body apiVersion / namespace / name consistency; 0 or -1 after
 * replying.  An apiVersion other than the URL's is refused, as
 * kube-apiserver does (a client sends each version to its own URL). */
static int check_body_ids(struct ts__as_req *q, struct ts__as_resp *r, cJSON *obj)
{
    const char *ns = ts_json_get_string(obj, "metadata.namespace");
    const char *name = ts_json_get_string(obj, "metadata.name");
    const char *av = ts_json_get_string(obj, "apiVersion");
    char want[300];

    if (!cJSON_IsObject(obj)) {
        ts__as_reply_badreq(r, "the body of the request must be a JSON object");
        return -1;
    }
    snprintf(want, sizeof(want), "%s%s%s", q->res->group, q->res->group[0] ? "/" : "",
             q->ver->name);
    /* a built-in kind's body may leave apiVersion and kind to the URL; a
     * custom resource's is unstructured and must say both */
    if ((av && av[0] && strcmp(av, want)) || (q->res->kindid == TS__AS_CR && (!av || !av[0]))) {
        ts__as_reply_badreq(r,
                            "the API version in the data (%s) does not match the expected API "
                            "version (%s)",
                            av ? av : "", want);
        return -1;
    }
    if (q->res->kindid == TS__AS_CR && !ts_json_get_string(obj, "kind")) {
        struct ts_buf text = TS_BUF_INIT;

        ts_buf_add(&text, q->body.ptr ? q->body.ptr : "", q->body.len);
        ts_buf_addc(&text, '\'');
        unrecognized(q, r, "Object 'Kind' is missing in '", text.ptr);
        ts_buf_release(&text);
        return -1;
    }
    if (q->res->namespaced && ns && ns[0] && q->rt.ns && strcmp(ns, q->rt.ns)) {
        ts__as_reply_badreq(r, "the namespace of the provided object does not match the "
                               "namespace sent on the request");
        return -1;
    }
    if (q->rt.name && name && name[0] && strcmp(name, q->rt.name)) {
        ts__as_reply_badreq(r,
                            "the name of the object (%s) does not match the name on the URL "
                            "(%s)",
                            name, q->rt.name);
        return -1;
    }
    if (q->rt.name && (!name || !name[0]))
        ts_json_set_string(obj, "metadata.name", q->rt.name, NULL);
    return 0;
}

void ts__as_handle_create(struct ts__as_req *q, struct ts__as_resp *r)
{
    cJSON *obj;

    if (q->res->namespaced && !q->rt.ns) {
        ts__as_reply_nopath(r);
        return;
    }
    if (!(obj = decode_body(q, r, 0)))
        return;
    if (check_body_ids(q, r, obj)) {
        cJSON_Delete(obj);
        return;
    }
    ts__as_commit(q, r, NULL, obj, 0);
}

static int status_sub(const struct ts__as_req *q)
{
    return q->rt.sub && !strcmp(q->rt.sub, "status");
}

void ts__as_handle_update(struct ts__as_req *q, struct ts__as_resp *r)
{
    struct ts__as_obj *old;
    cJSON *obj;

    if (!(obj = decode_body(q, r, 0)))
        return;
    if (check_body_ids(q, r, obj)) {
        cJSON_Delete(obj);
        return;
    }
    if (!(old = ts__as_store_get(q->res, q->rt.ns, q->rt.name))) {
        ts__as_reply_notfound(r, q->res, q->rt.name);
        cJSON_Delete(obj);
        return;
    }
    ts__as_commit(q, r, old, obj, status_sub(q));
}

static int apply_patch(struct ts__as_req *q, const cJSON *cur, const cJSON *patch, cJSON **out,
                       struct ts_err *err)
{
    if (media_is(q->ctype, MT_JSON))
        return ts_json_patch_apply(cur, patch, out, err);
    if (media_is(q->ctype, MT_SMP))
        return ts_smp_apply(cur, patch, out, err);
    return ts_json_merge_patch_apply(cur, patch, out, err);
}

static void ssa_ctx(struct ts__as_req *q, struct ts_ssa_ctx *c, char *av, size_t avlen, char *ts,
                    const char *manager)
{
    snprintf(av, avlen, "%s%s%s", q->res->group, q->res->group[0] ? "/" : "", q->ver->name);
    ts_time_format(q->now, ts, TS_TIME_STR_MAX);
    memset(c, 0, sizeof(*c));
    c->manager = manager;
    c->api_version = av;
    c->time = ts;
    c->subresource = q->rt.sub;
    c->schema = q->res->kindid == TS__AS_CR ? q->ver->schema : NULL;
}

/* A CRD's status is the server's own write: kube-apiserver's
 * apiextensions controllers own it as "kube-apiserver", an Update of the
 * status subresource.  Only the status's changes are attributed. */
static void track_crd_status(struct ts__as_req *q, const cJSON *old, cJSON *crd)
{
    const cJSON *st = ts_json_get(old, "status"), *sv;
    cJSON *before = cJSON_Duplicate(crd, 1);
    char ts[TS_TIME_STR_MAX];
    struct ts_ssa_ctx c = {.manager = "kube-apiserver",
                           .api_version = "apiextensions.k8s.io/v1",
                           .time = ts,
                           .subresource = "status"};

    ts_time_format(q->now, ts, sizeof(ts));
    cJSON_DeleteItemFromObjectCaseSensitive(before, "status");
    if (st)
        cJSON_AddItemToObject(before, "status", cJSON_Duplicate(st, 1));
    /* storedVersions is the registry's, set on every write: nobody's */
    sv = ts_json_get(crd, "status.storedVersions");
    if (sv)
        ts_json_set(before, "status.storedVersions", cJSON_Duplicate(sv, 1), NULL);
    ts_ssa_track(before, crd, &c);
    cJSON_Delete(before);
}

void ts__as_track_fields(struct ts__as_req *q, const cJSON *old, cJSON *obj)
{
    const char *fm = ts__as_query(q, "fieldManager");
    char av[300], ts[TS_TIME_STR_MAX], ua[128];
    struct ts_ssa_ctx c;

    if (!q->is_apply) {      /* an apply's fields were tracked by ts_ssa_apply */
        if (!fm || !fm[0]) { /* kube-apiserver: the User-Agent's product name */
            snprintf(ua, sizeof(ua), "%s", q->user_agent ? q->user_agent : "unknown");
            ua[strcspn(ua, "/ ")] = '\0';
            fm = ua[0] ? ua : "unknown";
        }
        ssa_ctx(q, &c, av, sizeof(av), ts, fm);
        ts_ssa_track(old, obj, &c);
    }
    if (q->res->kindid == TS__AS_CRD)
        track_crd_status(q, old, obj);
}

static void reply_apply_conflict(struct ts__as_resp *r, const struct ts_ssa_conflicts *cf)
{
    struct ts_buf msg = TS_BUF_INIT;
    cJSON *d = cJSON_CreateObject(), *causes;

    /* kube-apiserver's apply conflict names no object in its details */
    ts_ssa_conflicts_message(cf, &msg);
    causes = cJSON_AddArrayToObject(d, "causes");
    for (size_t i = 0; i < cf->n; i++) {
        cJSON *c = cJSON_CreateObject();
        char m[600];

        snprintf(m, sizeof(m), "conflict with %s", cf->items[i].who);
        cJSON_AddStringToObject(c, "reason", "FieldManagerConflict");
        cJSON_AddStringToObject(c, "message", m);
        cJSON_AddStringToObject(c, "field", cf->items[i].field);
        cJSON_AddItemToArray(causes, c);
    }
    ts__as_reply_status(r, 409, "Conflict", msg.ptr, d);
    ts_buf_release(&msg);
}

static void server_side_apply(struct ts__as_req *q, struct ts__as_resp *r, struct ts__as_obj *old,
                              cJSON *patch)
{
    const char *fm = ts__as_query(q, "fieldManager");
    struct ts_ssa_conflicts cf = {0};
    char av[300], ts[TS_TIME_STR_MAX];
    struct ts_ssa_ctx c;
    cJSON *view, *obj = NULL;

    if (!fm || !fm[0]) {
        ts__as_reply_badreq(r, "PATCH requests with apply-patch+yaml must have a fieldManager");
        return;
    }
    if (!cJSON_IsObject(patch)) {
        ts__as_reply_badreq(r, "the applied configuration must be an object");
        return;
    }
    ssa_ctx(q, &c, av, sizeof(av), ts, fm);
    view = old ? ts__as_present(q, q->res, old->json) : NULL;
    q->is_apply = 1;
    if (ts_ssa_apply(view, patch, ts__as_query_bool(q, "force"), &c, &obj, &cf))
        reply_apply_conflict(r, &cf);
    else if (!old && check_body_ids(q, r, obj) == 0)
        ts__as_commit(q, r, NULL, obj, 0);
    else if (old)
        ts__as_commit(q, r, old, obj, status_sub(q));
    else
        cJSON_Delete(obj);
    ts_ssa_conflicts_release(&cf);
    cJSON_Delete(view);
}

static int patch_type_ok(struct ts__as_req *q, struct ts__as_resp *r)
{
    if (media_is(q->ctype, MT_SMP) && q->res->kindid == TS__AS_CR) {
        ts__as_reply_status(r, 415, "UnsupportedMediaType",
                            "the body of the request was in an unknown format - accepted media "
                            "types include: application/json-patch+json, "
                            "application/merge-patch+json, application/apply-patch+yaml",
                            NULL);
        return 0;
    }
    if (!media_is(q->ctype, MT_MERGE) && !media_is(q->ctype, MT_JSON) &&
        !media_is(q->ctype, MT_SMP) && !media_is(q->ctype, MT_APPLY)) {
        unsupported_media(r, 1);
        return 0;
    }
    return 1;
}

void ts__as_handle_patch(struct ts__as_req *q, struct ts__as_resp *r)
{
    struct ts__as_obj *old = ts__as_store_get(q->res, q->rt.ns, q->rt.name);
    struct ts_err err = {0};
    cJSON *patch, *obj;
    int rc;

    if (!patch_type_ok(q, r) || !(patch = decode_body(q, r, media_is(q->ctype, MT_APPLY))))
        return;
    if (media_is(q->ctype, MT_APPLY)) {
        server_side_apply(q, r, old, patch);
    } else if (!old) {
        ts__as_reply_notfound(r, q->res, q->rt.name);
    } else {
        /* patches apply to the object as the client sees it */
        cJSON *view = ts__as_present(q, q->res, old->json);

        if ((rc = apply_patch(q, view, patch, &obj, &err))) {
            if (rc == TS_ECONFLICT)
                ts__as_reply_status(r, 422, "Invalid", err.msg, NULL);
            else
                ts__as_reply_badreq(r, "%s", err.msg);
        } else {
            ts__as_commit(q, r, old, obj, status_sub(q));
        }
        cJSON_Delete(view);
    }
    cJSON_Delete(patch);
}
