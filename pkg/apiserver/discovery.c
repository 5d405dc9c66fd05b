/*
 * discovery.c - API discovery: aggregated apidiscovery.k8s.io v2 and
 * v2beta1 for /api and /apis with exact Content-Type negotiation (only a
 * version the client listed), and legacy APIVersions / APIGroupList /
 * APIGroup / APIResourceList.
 */
#include "apiserver/server_int.h"

#include "api/meta.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

static const char *const verbs[] = {"create", "delete", "deletecollection", "get",
                                    "list",   "patch",  "update",           "watch"};
static const char *const sub_verbs[] = {"get", "patch", "update"};

static cJSON *str_array(const char *const *v, size_t n)
{
    cJSON *a = cJSON_CreateArray();

    for (size_t i = 0; i < n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateString(v[i]));
    return a;
}

static cJSON *gvk(const struct ts__as_res *res, const char *version)
{
    cJSON *k = cJSON_CreateObject();

    cJSON_AddStringToObject(k, "group", res->group);
    cJSON_AddStringToObject(k, "version", version);
    cJSON_AddStringToObject(k, "kind", res->kind);
    return k;
}

static void add_names(cJSON *o, const struct ts__as_res *res)
{
    if (res->short_names.n)
        cJSON_AddItemToObject(
            o, "shortNames",
            str_array((const char *const *)res->short_names.items, res->short_names.n));
    if (res->categories.n)
        cJSON_AddItemToObject(
            o, "categories",
            str_array((const char *const *)res->categories.items, res->categories.n));
}

static cJSON *agg_resource(const struct ts__as_res *res, const struct ts__as_ver *v)
{
    cJSON *o = cJSON_CreateObject();

    cJSON_AddStringToObject(o, "resource", res->resource);
    cJSON_AddItemToObject(o, "responseKind", gvk(res, v->name));
    cJSON_AddStringToObject(o, "scope", res->namespaced ? "Namespaced" : "Cluster");
    cJSON_AddStringToObject(o, "singularResource", res->singular);
    cJSON_AddItemToObject(o, "verbs", str_array(verbs, 8));
    add_names(o, res);
    if (v->has_status) {
        cJSON *subs = cJSON_AddArrayToObject(o, "subresources"), *st = cJSON_CreateObject();

        cJSON_AddStringToObject(st, "subresource", "status");
        cJSON_AddItemToObject(st, "responseKind", gvk(res, v->name));
        cJSON_AddItemToObject(st, "verbs", str_array(sub_verbs, 3));
        cJSON_AddItemToArray(subs, st);
    }
    return o;
}

static int cmp_res(const void *a, const void *b)
{
    return strcmp((*(struct ts__as_res *const *)a)->resource,
                  (*(struct ts__as_res *const *)b)->resource);
}

static int cmp_ver(const void *a, const void *b)
{
    return ts__as_version_cmp(*(const char *const *)a, *(const char *const *)b);
}

/* Distinct served versions of group, by priority.  Caller frees array. */
static const char **group_versions(struct ts_apiserver *s, const char *group, size_t *n)
{
    const char **out = NULL;
    size_t cap = 0;

    *n = 0;
    for (size_t i = 0; i < s->n_res; i++) {
        struct ts__as_res *res = s->res[i];

        if (res->dead || strcmp(res->group, group))
            continue;
        for (size_t j = 0; j < res->n_vers; j++) {
            size_t k;

            for (k = 0; k < *n && strcmp(out[k], res->vers[j].name); k++)
                ;
            if (k == *n && res->vers[j].served) {
                TS_GROW(out, cap, *n + 1);
                out[(*n)++] = res->vers[j].name;
            }
        }
    }
    if (*n > 1) /* qsort(NULL, 0, ...) is undefined */
        qsort(out, *n, sizeof(*out), cmp_ver);
    return out;
}

/* Served resources of group/version sorted by plural. Caller frees. */
static struct ts__as_res **gv_resources(struct ts_apiserver *s, const char *group,
                                        const char *version, size_t *n)
{
    struct ts__as_res **out = ts_xmalloc((s->n_res + 1) * sizeof(*out));

    *n = 0;
    for (size_t i = 0; i < s->n_res; i++)
        if (!s->res[i]->dead && !strcmp(s->res[i]->group, group) &&
            ts__as_res_version(s->res[i], version))
            out[(*n)++] = s->res[i];
    qsort(out, *n, sizeof(*out), cmp_res);
    return out;
}

static cJSON *agg_group(struct ts_apiserver *s, const char *group)
{
    cJSON *g = cJSON_CreateObject(), *vs;
    size_t nv;
    const char **vers = group_versions(s, group, &nv);

    cJSON_AddStringToObject(cJSON_AddObjectToObject(g, "metadata"), "name", group);
    vs = cJSON_AddArrayToObject(g, "versions");
    for (size_t i = 0; i < nv; i++) {
        cJSON *v = cJSON_CreateObject(), *rs;
        size_t nr;
        struct ts__as_res **res = gv_resources(s, group, vers[i], &nr);

        cJSON_AddStringToObject(v, "version", vers[i]);
        rs = cJSON_AddArrayToObject(v, "resources");
        for (size_t j = 0; j < nr; j++)
            cJSON_AddItemToArray(rs, agg_resource(res[j], ts__as_res_version(res[j], vers[i])));
        cJSON_AddStringToObject(v, "freshness", "Current");
        cJSON_AddItemToArray(vs, v);
        free(res);
    }
    free(vers);
    return g;
}

/* Distinct non-core groups in registration order.  Caller frees. */
static const char **groups(struct ts_apiserver *s, size_t *n)
{
    const char **out = ts_xmalloc((s->n_res + 1) * sizeof(*out));

    *n = 0;
    for (size_t i = 0; i < s->n_res; i++) {
        size_t k;

        if (s->res[i]->dead || !s->res[i]->group[0])
            continue;
        for (k = 0; k < *n && strcmp(out[k], s->res[i]->group); k++)
            ;
        if (k == *n)
            out[(*n)++] = s->res[i]->group;
    }
    return out;
}

static void reply_aggregated(struct ts__as_req *q, struct ts__as_resp *r, int core,
                             const char *dver)
{
    cJSON *l = cJSON_CreateObject(), *items;
    char av[64];

    snprintf(av, sizeof(av), "apidiscovery.k8s.io/%s", dver);
    cJSON_AddStringToObject(l, "kind", "APIGroupDiscoveryList");
    cJSON_AddStringToObject(l, "apiVersion", av);
    cJSON_AddObjectToObject(l, "metadata");
    items = cJSON_AddArrayToObject(l, "items");
    if (core) {
        cJSON_AddItemToArray(items, agg_group(q->s, ""));
    } else {
        size_t n;
        const char **gs = groups(q->s, &n);

        for (size_t i = 0; i < n; i++)
            cJSON_AddItemToArray(items, agg_group(q->s, gs[i]));
        free(gs);
    }
    ts__as_reply_json(r, 200, l);
    r->ctype = !strcmp(dver, "v2")
                   ? "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
                   : "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList";
    cJSON_Delete(l);
}

static cJSON *api_group(struct ts_apiserver *s, const char *group)
{
    size_t nv;
    const char **vers = group_versions(s, group, &nv);
    cJSON *g = ts_apigroup_new(group, vers, nv);

    free(vers);
    return g;
}

static void reply_legacy_root(struct ts__as_req *q, struct ts__as_resp *r, int core)
{
    cJSON *l = cJSON_CreateObject();

    if (core) {
        cJSON *c = cJSON_CreateObject();
        char addr[64];

        cJSON_AddStringToObject(l, "kind", "APIVersions");
        cJSON_AddItemToObject(l, "versions", str_array((const char *const[]){"v1"}, 1));
        snprintf(addr, sizeof(addr), "127.0.0.1:%d", q->s->port);
        cJSON_AddStringToObject(c, "clientCIDR", "0.0.0.0/0");
        cJSON_AddStringToObject(c, "serverAddress", addr);
        cJSON_AddItemToArray(cJSON_AddArrayToObject(l, "serverAddressByClientCIDRs"), c);
    } else {
        size_t n;
        const char **gs = groups(q->s, &n);
        cJSON *arr;

        cJSON_AddStringToObject(l, "kind", "APIGroupList");
        cJSON_AddStringToObject(l, "apiVersion", "v1");
        arr = cJSON_AddArrayToObject(l, "groups");
        for (size_t i = 0; i < n; i++)
            cJSON_AddItemToArray(arr, api_group(q->s, gs[i]));
        free(gs);
    }
    ts__as_reply_json(r, 200, l);
    cJSON_Delete(l);
}

static cJSON *legacy_resource(const struct ts__as_res *res, const char *version, int sub)
{
    cJSON *o = cJSON_CreateObject();
    char name[300];

    snprintf(name, sizeof(name), "%s%s", res->resource, sub ? "/status" : "");
    cJSON_AddStringToObject(o, "name", name);
    cJSON_AddStringToObject(o, "singularName", sub ? "" : res->singular);
    cJSON_AddBoolToObject(o, "namespaced", res->namespaced);
    if (res->group[0] && sub) {
        cJSON_AddStringToObject(o, "group", res->group);
        cJSON_AddStringToObject(o, "version", version);
    }
    cJSON_AddStringToObject(o, "kind", res->kind);
    cJSON_AddItemToObject(o, "verbs", sub ? str_array(sub_verbs, 3) : str_array(verbs, 8));
    if (!sub)
        add_names(o, res);
    return o;
}

static int reply_resource_list(struct ts__as_req *q, struct ts__as_resp *r, const char *group,
                               const char *version)
{
    size_t n;
    struct ts__as_res **res = gv_resources(q->s, group, version, &n);
    cJSON *l, *arr;
    char gv[512];

    if (!n) {
        free(res);
        return 0;
    }
    snprintf(gv, sizeof(gv), "%s%s%s", group, group[0] ? "/" : "", version);
    l = cJSON_CreateObject();
    cJSON_AddStringToObject(l, "kind", "APIResourceList");
    cJSON_AddStringToObject(l, "apiVersion", "v1");
    cJSON_AddStringToObject(l, "groupVersion", gv);
    arr = cJSON_AddArrayToObject(l, "resources");
    for (size_t i = 0; i < n; i++) {
        cJSON_AddItemToArray(arr, legacy_resource(res[i], version, 0));
        if (ts__as_res_version(res[i], version)->has_status)
            cJSON_AddItemToArray(arr, legacy_resource(res[i], version, 1));
    }
    ts__as_reply_json(r, 200, l);
    cJSON_Delete(l);
    free(res);
    return 1;
}

static int reply_group(struct ts__as_req *q, struct ts__as_resp *r, const char *group)
{
    cJSON *g;

    if (!ts__as_group_preferred(q->s, group))
        return 0;
    g = api_group(q->s, group);
    cJSON_AddStringToObject(g, "kind", "APIGroup");
    cJSON_AddStringToObject(g, "apiVersion", "v1");
    ts__as_reply_json(r, 200, g);
    cJSON_Delete(g);
    return 1;
}

int ts__as_discovery(struct ts__as_req *q, struct ts__as_resp *r)
{
    const char *p = q->path;
    int core = !strcmp(p, "/api") || !strcmp(p, "/api/");

    if (core || !strcmp(p, "/apis") || !strcmp(p, "/apis/")) {
        int v2 = q->accept ? ts__as_accept_has(q->accept, "apidiscovery.k8s.io", "v2",
                                               "APIGroupDiscoveryList")
                           : 0;
        int b1 = q->accept ? ts__as_accept_has(q->accept, "apidiscovery.k8s.io", "v2beta1",
                                               "APIGroupDiscoveryList")
                           : 0;

        if (v2 && (!b1 || v2 < b1))
            reply_aggregated(q, r, core, "v2");
        else if (b1)
            reply_aggregated(q, r, core, "v2beta1");
        else
            reply_legacy_root(q, r, core);
        return 1;
    }
    if (!q->rt.version || q->rt.is_resource)
        return 0;
    if (!strcmp(p, "/api/v1") || !strcmp(p, "/api/v1/"))
        return reply_resource_list(q, r, "", "v1");
    if (!strncmp(p, "/apis/", 6))
        return reply_resource_list(q, r, q->rt.group, q->rt.version);
    return 0;
}

/* /apis/<group>: the route parser needs three segments, so it is matched
 * here by hand. */
int ts__as_discovery_group(struct ts__as_req *q, struct ts__as_resp *r)
{
    const char *p = q->path;
    char group[256];
    size_t n;

    if (strncmp(p, "/apis/", 6))
        return 0;
    p += 6;
    n = strcspn(p, "/");
    if (!n || n >= sizeof(group) || (p[n] && p[n + 1]))
        return 0;
    memcpy(group, p, n);
    group[n] = '\0';
    return reply_group(q, r, group);
}
