/*
 * openapi.c - OpenAPI v3: the root listing every served group-version
 * with a content hash, and one document per group-version whose patch
 * operations carry x-kubernetes-group-version-kind and the
 * fieldValidation parameter (what kubectl apply's validation needs), plus
 * components.schemas from CRD schemas for kubectl explain.
 * /openapi/v2 is 404 on purpose (kubectl tolerates it).
 */
#include "apiserver/server_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/json.h"
#include "util/alloc.h"

static void flush_cache(struct ts_apiserver *s)
{
    ts_hmap_release_free(&s->oa_cache); /* reusable after */
    s->oa_gen = s->gen;
}

/* "kueue.x-k8s.io" -> "io.x-k8s.kueue"; core -> "io.k8s.api.core". */
static void schema_name(const struct ts__as_res *res, const char *ver, struct ts_buf *out)
{
    const char *g = res->group, *end = g + strlen(g);

    if (!g[0] || !strchr(g, '.')) {
        ts_buf_addf(out, "io.k8s.api.%s.%s.%s", g[0] ? g : "core", ver, res->kind);
        return;
    }
    while (end > g) {
        const char *dot = end - 1;

        while (dot > g && *dot != '.')
            dot--;
        const char *start = *dot == '.' ? dot + 1 : dot;
        ts_buf_addf(out, "%s%.*s", out->len ? "." : "", (int)(end - start), start);
        end = dot;
    }
    ts_buf_addf(out, ".%s.%s", ver, res->kind);
}

static cJSON *param(const char *name, const char *in)
{
    cJSON *p = cJSON_CreateObject();

    cJSON_AddStringToObject(p, "name", name);
    cJSON_AddStringToObject(p, "in", in);
    if (!strcmp(in, "path"))
        cJSON_AddTrueToObject(p, "required");
    cJSON_AddStringToObject(cJSON_AddObjectToObject(p, "schema"), "type", "string");
    return p;
}

static cJSON *operation(const struct ts__as_res *res, const char *ver, const char *action,
                        const char *verb)
{
    cJSON *op = cJSON_CreateObject(), *k = cJSON_CreateObject(), *ps;
    char id[300];

    snprintf(id, sizeof(id), "%s%s", verb, res->kind);
    cJSON_AddStringToObject(op, "operationId", id);
    cJSON_AddStringToObject(op, "x-kubernetes-action", action);
    cJSON_AddStringToObject(k, "group", res->group);
    cJSON_AddStringToObject(k, "version", ver);
    cJSON_AddStringToObject(k, "kind", res->kind);
    cJSON_AddItemToObject(op, "x-kubernetes-group-version-kind", k);
    ps = cJSON_AddArrayToObject(op, "parameters");
    if (!strcmp(action, "patch") || !strcmp(action, "put") || !strcmp(action, "post")) {
        cJSON_AddItemToArray(ps, param("dryRun", "query"));
        cJSON_AddItemToArray(ps, param("fieldManager", "query"));
        cJSON_AddItemToArray(ps, param("fieldValidation", "query"));
    }
    if (!strcmp(action, "patch"))
        cJSON_AddItemToArray(ps, param("force", "query"));
    cJSON_AddStringToObject(
        cJSON_AddObjectToObject(cJSON_AddObjectToObject(op, "responses"), "200"), "description",
        "OK");
    return op;
}

static void add_paths(cJSON *paths, const struct ts__as_res *res, const char *ver, int ns)
{
    struct ts_buf p = TS_BUF_INIT;
    cJSON *item, *coll;

    if (res->group[0])
        ts_buf_addf(&p, "/apis/%s/%s/", res->group, ver);
    else
        ts_buf_addf(&p, "/api/%s/", ver);
    if (ns)
        ts_buf_adds(&p, "namespaces/{namespace}/");
    ts_buf_adds(&p, res->resource);
    coll = cJSON_AddObjectToObject(paths, p.ptr);
    cJSON_AddItemToObject(coll, "get", operation(res, ver, "list", "list"));
    cJSON_AddItemToObject(coll, "post", operation(res, ver, "post", "create"));
    ts_buf_adds(&p, "/{name}");
    item = cJSON_AddObjectToObject(paths, p.ptr);
    cJSON_AddItemToObject(item, "get", operation(res, ver, "get", "read"));
    cJSON_AddItemToObject(item, "put", operation(res, ver, "put", "replace"));
    cJSON_AddItemToObject(item, "patch", operation(res, ver, "patch", "patch"));
    cJSON_AddItemToObject(item, "delete", operation(res, ver, "delete", "delete"));
    ts_buf_release(&p);
}

static void add_schema(cJSON *schemas, const struct ts__as_res *res, const struct ts__as_ver *v)
{
    struct ts_buf name = TS_BUF_INIT;
    cJSON *sch = v->schema ? cJSON_Duplicate(v->schema, 1) : cJSON_CreateObject();
    cJSON *k = cJSON_CreateObject(), *arr;

    if (!v->schema)
        cJSON_AddStringToObject(sch, "type", "object");
    cJSON_DeleteItemFromObjectCaseSensitive(sch, "x-kubernetes-group-version-kind");
    cJSON_AddStringToObject(k, "group", res->group);
    cJSON_AddStringToObject(k, "kind", res->kind);
    cJSON_AddStringToObject(k, "version", v->name);
    arr = cJSON_AddArrayToObject(sch, "x-kubernetes-group-version-kind");
    cJSON_AddItemToArray(arr, k);
    schema_name(res, v->name, &name);
    cJSON_AddItemToObject(schemas, name.ptr, sch);
    ts_buf_release(&name);
}

static char *gv_doc(struct ts_apiserver *s, const char *group, const char *version)
{
    cJSON *doc = cJSON_CreateObject(), *info = cJSON_AddObjectToObject(doc, "info"), *paths,
          *schemas;
    int found = 0;
    char *text;

    cJSON_AddStringToObject(doc, "openapi", "3.0.0");
    cJSON_AddStringToObject(info, "title", "Kubernetes");
    cJSON_AddStringToObject(info, "version", "v1.32.0");
    paths = cJSON_AddObjectToObject(doc, "paths");
    schemas = cJSON_AddObjectToObject(cJSON_AddObjectToObject(doc, "components"), "schemas");
    for (size_t i = 0; i < s->n_res; i++) {
        struct ts__as_res *res = s->res[i];
        struct ts__as_ver *v;

        if (res->dead || strcmp(res->group, group) || !(v = ts__as_res_version(res, version)))
            continue;
        found = 1;
        add_paths(paths, res, version, 0);
        if (res->namespaced)
            add_paths(paths, res, version, 1);
        add_schema(schemas, res, v);
    }
    text = found ? ts_json_dumps(doc, TS_JSON_COMPACT) : NULL;
    cJSON_Delete(doc);
    return text;
}

/* Cached document for "g/v" ("" group for core), or NULL. Borrowed. */
static const char *cached_doc(struct ts_apiserver *s, const char *group, const char *version)
{
    char key[512];
    char *doc;

    if (s->oa_gen != s->gen)
        flush_cache(s);
    snprintf(key, sizeof(key), "%s/%s", group, version);
    if ((doc = ts_hmap_get(&s->oa_cache, key)))
        return doc;
    if (!(doc = gv_doc(s, group, version)))
        return NULL;
    ts_hmap_put(&s->oa_cache, key, doc);
    return doc;
}

static void add_root_entry(struct ts_apiserver *s, cJSON *paths, const char *group,
                           const char *version)
{
    const char *doc = cached_doc(s, group, version);
    char key[512], url[600];
    cJSON *e;

    if (!doc)
        return;
    if (group[0])
        snprintf(key, sizeof(key), "apis/%s/%s", group, version);
    else
        snprintf(key, sizeof(key), "api/%s", version);
    if (cJSON_GetObjectItemCaseSensitive(paths, key))
        return;
    snprintf(url, sizeof(url), "/openapi/v3/%s?hash=%016llX", key,
             (unsigned long long)ts_hash_str(doc));
    e = cJSON_AddObjectToObject(paths, key);
    cJSON_AddStringToObject(e, "serverRelativeURL", url);
}

static void reply_root(struct ts__as_req *q, struct ts__as_resp *r)
{
    struct ts_apiserver *s = q->s;
    cJSON *root = cJSON_CreateObject(), *paths = cJSON_AddObjectToObject(root, "paths");

    for (size_t i = 0; i < s->n_res; i++)
        for (size_t j = 0; j < s->res[i]->n_vers; j++)
            if (!s->res[i]->dead && s->res[i]->vers[j].served)
                add_root_entry(s, paths, s->res[i]->group, s->res[i]->vers[j].name);
    ts__as_reply_json(r, 200, root);
    cJSON_Delete(root);
}

/* A minimal OpenAPI v2 document (no definitions): kubectl 1.27/1.28 read
 * only v2 for client-side validation and skip kinds it does not list.
 * Protobuf is the gnostic openapi_v2.Document: swagger=1, info=2 {title=1,
 * version=2}. */
static void reply_v2(struct ts__as_req *q, struct ts__as_resp *r)
{
    static const char pb[] = "\x0a\x03"
                             "2.0"
                             "\x12\x15"
                             "\x0a\x0a"
                             "Kubernetes"
                             "\x12\x07"
                             "v1.32.0";

    r->code = 200;
    ts_buf_reset(&r->body);
    if (q->accept && strstr(q->accept, "protobuf")) {
        ts_buf_add(&r->body, pb, sizeof(pb) - 1);
        r->ctype = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";
        return;
    }
    ts_buf_adds(&r->body, "{\"swagger\":\"2.0\",\"info\":{\"title\":\"Kubernetes\","
                          "\"version\":\"v1.32.0\"},\"paths\":{},\"definitions\":{}}");
}

int ts__as_openapi(struct ts__as_req *q, struct ts__as_resp *r)
{
    const char *p = q->path, *doc;
    struct ts__as_route rt;

    if (!strcmp(p, "/openapi/v2")) {
        reply_v2(q, r);
        return 1;
    }
    if (!strcmp(p, "/openapi/v3") || !strcmp(p, "/openapi/v3/")) {
        reply_root(q, r);
        return 1;
    }
    if (strncmp(p, "/openapi/v3/", 12))
        return 0;
    if (ts__as_route_parse(p + 11, &rt) || !rt.version || rt.is_resource) {
        ts__as_route_release(&rt);
        return 0;
    }
    doc = cached_doc(q->s, rt.group, rt.version);
    ts__as_route_release(&rt);
    if (!doc)
        return 0;
    r->code = 200;
    ts_buf_reset(&r->body);
    ts_buf_adds(&r->body, doc);
    return 1;
}
