/*
 * handler.c - request dispatch: /version, health checks, OpenAPI,
 * discovery, then resource routes by method and subresource.  Runs with
 * the server mutex held.
 */
#include "apiserver/server_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/json.h"

static void reply_version(struct ts__as_req *q, struct ts__as_resp *r)
{
    cJSON *v = cJSON_CreateObject();
    char git[32];

    snprintf(git, sizeof(git), "v1.%s.0", q->s->minor);
    cJSON_AddStringToObject(v, "major", "1");
    cJSON_AddStringToObject(v, "minor", q->s->minor);
    cJSON_AddStringToObject(v, "gitVersion", git);
    cJSON_AddStringToObject(v, "gitCommit", "0000000000000000000000000000000000000000");
    cJSON_AddStringToObject(v, "gitTreeState", "clean");
    cJSON_AddStringToObject(v, "buildDate", "2026-01-01T00:00:00Z");
    cJSON_AddStringToObject(v, "goVersion", "go1.23.0");
    cJSON_AddStringToObject(v, "compiler", "gc");
    cJSON_AddStringToObject(v, "platform", "linux/amd64");
    ts__as_reply_json(r, 200, v);
    cJSON_Delete(v);
}

static int health_path(const char *p)
{
    static const char *const roots[] = {"/healthz", "/readyz", "/livez"};

    for (size_t i = 0; i < 3; i++) {
        size_t n = strlen(roots[i]);

        if (!strncmp(p, roots[i], n) && (p[n] == '\0' || p[n] == '/'))
            return 1;
    }
    return 0;
}

static void method_not_allowed(struct ts__as_resp *r)
{
    ts__as_reply_status(r, 405, "MethodNotAllowed",
                        "the server does not allow this method on the requested resource",
                        cJSON_CreateObject());
}

static void add_deprecation(struct ts__as_req *q, struct ts__as_resp *r)
{
    char w[600];

    if (!q->ver->deprecated)
        return;
    if (q->ver->warning)
        snprintf(w, sizeof(w), "%s", q->ver->warning);
    else
        snprintf(w, sizeof(w), "%s/%s %s is deprecated", q->res->group, q->ver->name, q->res->kind);
    ts_strlist_push(&r->warnings, w);
}

static void dispatch_object(struct ts__as_req *q, struct ts__as_resp *r)
{
    const char *m = q->method;

    if (!strcmp(m, "GET"))
        ts__as_handle_get(q, r);
    else if (!strcmp(m, "PUT"))
        ts__as_handle_update(q, r);
    else if (!strcmp(m, "PATCH"))
        ts__as_handle_patch(q, r);
    else if (!strcmp(m, "DELETE") && !q->rt.sub)
        ts__as_handle_delete(q, r);
    else
        method_not_allowed(r);
}

static void dispatch_collection(struct ts__as_req *q, struct ts__as_resp *r)
{
    const char *m = q->method;

    if (!strcmp(m, "GET")) {
        if (ts__as_query_bool(q, "watch"))
            ts__as_handle_watch(q, r);
        else
            ts__as_handle_list(q, r);
    } else if (!strcmp(m, "POST")) {
        ts__as_handle_create(q, r);
    } else if (!strcmp(m, "DELETE")) {
        ts__as_handle_delete_collection(q, r);
    } else {
        method_not_allowed(r);
    }
}

/* Resolves the resource and checks scope and subresource; 0 or -1 after
 * replying. */
static int resolve(struct ts__as_req *q, struct ts__as_resp *r)
{
    struct ts__as_route *rt = &q->rt;

    q->res = ts__as_res_find(q->s, rt->group, rt->version, rt->resource, &q->ver);
    if (!q->res || (rt->ns && !q->res->namespaced)) {
        ts__as_reply_nopath(r);
        return -1;
    }
    if (rt->sub && !(q->ver->has_status && !strcmp(rt->sub, "status")) &&
        !(q->res->kindid == TS__AS_NAMESPACE && !strcmp(rt->sub, "finalize"))) {
        ts__as_reply_nopath(r);
        return -1;
    }
    if (rt->sub && !strcmp(rt->sub, "finalize")) {
        free(rt->sub);
        rt->sub = NULL;
    }
    return 0;
}

void ts__as_handle(struct ts__as_req *q, struct ts__as_resp *r)
{
    const char *p = q->path;

    if (!strcmp(p, "/version") || !strcmp(p, "/version/"))
        return reply_version(q, r);
    if (health_path(p)) {
        r->ctype = "text/plain; charset=utf-8";
        ts_buf_adds(&r->body, "ok");
        return;
    }
    if (ts__as_faults_endpoint(q, r))
        return;
    if (!strncmp(p, "/openapi/", 9)) {
        if (!ts__as_openapi(q, r))
            ts__as_reply_nopath(r);
        return;
    }
    if (ts__as_route_parse(p, &q->rt)) {
        ts__as_reply_nopath(r);
        return;
    }
    if (!q->rt.is_resource) {
        if (!ts__as_discovery(q, r) && !ts__as_discovery_group(q, r) &&
            !ts__as_aggregated_group(q, r))
            ts__as_reply_nopath(r);
        return;
    }
    if (resolve(q, r))
        return;
    add_deprecation(q, r);
    if (q->rt.name)
        dispatch_object(q, r);
    else
        dispatch_collection(q, r);
}
