/*
 * table.c - meta.k8s.io/v1 Table replies (kubectl get columns): CRD
 * additionalPrinterColumns through JSONPath, built-in columns, ages
 * computed by the server (duration.HumanDuration), and each row's
 * PartialObjectMetadata.
 */
#include "apiserver/server_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apiserver/jsonpath.h"
#include "json/json.h"
#include "util/alloc.h"

#define NAME_DESC                                                                                  \
    "Name must be unique within a namespace. Is required when creating resources, although some "  \
    "resources may allow a client to request the generation of an appropriate name "               \
    "automatically. Name is primarily intended for creation idempotence and configuration "        \
    "definition. Cannot be updated. More info: "                                                   \
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names"

struct col {
    char *name, *type, *format, *desc, *path;
    int priority;
    struct ts_jsonpath *jp;
};

int ts__as_want_table(const struct ts__as_req *q)
{
    return q->accept && (ts__as_accept_has(q->accept, "meta.k8s.io", "v1", "Table") ||
                         ts__as_accept_has(q->accept, "meta.k8s.io", "v1beta1", "Table"));
}

/* duration.HumanDuration */
static void human(int64_t sec, char *out, size_t len)
{
    int64_t m = sec / 60, h = sec / 3600, d = h / 24;

    if (sec < -1)
        snprintf(out, len, "<invalid>");
    else if (sec < 0)
        snprintf(out, len, "0s");
    else if (sec < 120)
        snprintf(out, len, "%llds", (long long)sec);
    else if (m < 10 && sec % 60)
        snprintf(out, len, "%lldm%llds", (long long)m, (long long)(sec % 60));
    else if (m < 180)
        snprintf(out, len, "%lldm", (long long)m);
    else if (h < 8 && m % 60)
        snprintf(out, len, "%lldh%lldm", (long long)h, (long long)(m % 60));
    else if (h < 48)
        snprintf(out, len, "%lldh", (long long)h);
    else if (h < 192 && h % 24)
        snprintf(out, len, "%lldd%lldh", (long long)d, (long long)(h % 24));
    else if (h < 24 * 365 * 2)
        snprintf(out, len, "%lldd", (long long)d);
    else if (h < 24 * 365 * 8 && d % 365)
        snprintf(out, len, "%lldy%lldd", (long long)(d / 365), (long long)(d % 365));
    else
        snprintf(out, len, "%lldy", (long long)(d / 365));
}

static cJSON *age_cell(const cJSON *v, ts_time now)
{
    ts_time t;
    char buf[32];

    if (!cJSON_IsString(v) || ts_time_parse(v->valuestring, &t))
        return cJSON_CreateNull();
    human((now - t) / TS_TIME_SECOND, buf, sizeof(buf));
    return cJSON_CreateString(buf);
}

static cJSON *typed_cell(const char *type, const cJSON *v, ts_time now)
{
    int64_t i;

    if (!strcmp(type, "date"))
        return age_cell(v, now);
    if (!strcmp(type, "integer"))
        return ts_json_get_i64(v, &i) ? cJSON_CreateNull() : cJSON_CreateNumber((double)i);
    if (!strcmp(type, "number"))
        return cJSON_IsNumber(v) ? cJSON_CreateNumber(v->valuedouble) : cJSON_CreateNull();
    if (!strcmp(type, "boolean"))
        return cJSON_IsBool(v) ? cJSON_CreateBool(cJSON_IsTrue(v)) : cJSON_CreateNull();
    return cJSON_CreateNull();
}

static cJSON *cell(const struct col *c, const cJSON *obj, ts_time now)
{
    const cJSON *hit[1];
    struct ts_buf b = TS_BUF_INIT;
    cJSON *out;

    if (c->path[0] == '#')
        return ts__as_builtin_cell(c->path + 1, obj, now);
    if (!c->jp || ts_jsonpath_find(c->jp, obj, hit, 1) == 0)
        return cJSON_CreateNull();
    if (strcmp(c->type, "string"))
        return typed_cell(c->type, hit[0], now);
    ts_jsonpath_print(hit[0], &b);
    out = cJSON_CreateString(b.ptr);
    ts_buf_release(&b);
    return out;
}

static void col_add(struct col **cols, size_t *n, const char *name, const char *type,
                    const char *format, const char *desc, const char *path, int prio)
{
    struct col *c;

    *cols = ts_xrealloc(*cols, (*n + 1) * sizeof(**cols));
    c = &(*cols)[(*n)++];
    c->name = ts_xstrdup(name);
    c->type = ts_xstrdup(type);
    c->format = ts_xstrdup(format ? format : "");
    c->desc = ts_xstrdup(desc);
    c->path = ts_xstrdup(path);
    c->priority = prio;
    c->jp = NULL;
    if (path[0] != '#')
        ts_jsonpath_compile(path, &c->jp, NULL);
}

static void crd_cols(const cJSON *defs, struct col **cols, size_t *n)
{
    const cJSON *d;
    struct ts_buf desc = TS_BUF_INIT;

    cJSON_ArrayForEach(d, defs)
    {
        const char *path = ts_json_get_string(d, "jsonPath"), *name = ts_json_get_string(d, "name");
        const char *type = ts_json_get_string(d, "type"),
                   *dd = ts_json_get_string(d, "description");
        int64_t prio = 0;

        if (!path || !name || !type)
            continue;
        ts_json_get_i64(cJSON_GetObjectItemCaseSensitive(d, "priority"), &prio);
        ts_buf_reset(&desc);
        if (dd)
            ts_buf_adds(&desc, dd);
        else
            ts_buf_addf(&desc, "Custom resource definition column (in JSONPath format): %s", path);
        col_add(cols, n, name, type, ts_json_get_string(d, "format"), desc.ptr, path, (int)prio);
    }
    ts_buf_release(&desc);
}

static struct col *columns(const struct ts__as_req *q, struct ts__as_res *res, size_t *n)
{
    struct col *cols = NULL;

    *n = 0;
    col_add(&cols, n, "Name", "string", "name", NAME_DESC, ".metadata.name", 0);
    if (res->kindid == TS__AS_CR && q->ver && q->ver->columns) {
        crd_cols(q->ver->columns, &cols, n);
    } else if (res->cols) {
        for (size_t i = 0; i < res->n_cols; i++)
            col_add(&cols, n, res->cols[i].name, res->cols[i].type, "", res->cols[i].name,
                    res->cols[i].path, res->cols[i].priority);
    } else {
        col_add(&cols, n, "Age", "date", "",
                "CreationTimestamp is a timestamp representing the server time when this object "
                "was created.",
                ".metadata.creationTimestamp", 0);
    }
    return cols;
}

static void free_cols(struct col *cols, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(cols[i].name);
        free(cols[i].type);
        free(cols[i].format);
        free(cols[i].desc);
        free(cols[i].path);
        ts_jsonpath_free(cols[i].jp);
    }
    free(cols);
}

static cJSON *row_object(const struct ts__as_req *q, struct ts__as_res *res, const cJSON *obj)
{
    const char *inc = ts__as_query(q, "includeObject");
    cJSON *o;

    if (inc && !strcmp(inc, "None"))
        return NULL;
    if (inc && !strcmp(inc, "Object"))
        return ts__as_present(q, res, obj);
    o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "kind", "PartialObjectMetadata");
    cJSON_AddStringToObject(o, "apiVersion", "meta.k8s.io/v1");
    cJSON_AddItemToObject(o, "metadata",
                          cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(obj, "metadata"), 1));
    return o;
}

static cJSON *col_defs(const struct col *cols, size_t n)
{
    cJSON *defs = cJSON_CreateArray();

    for (size_t i = 0; i < n; i++) {
        cJSON *d = cJSON_CreateObject();

        cJSON_AddStringToObject(d, "name", cols[i].name);
        cJSON_AddStringToObject(d, "type", cols[i].type);
        cJSON_AddStringToObject(d, "format", cols[i].format);
        cJSON_AddStringToObject(d, "description", cols[i].desc);
        cJSON_AddNumberToObject(d, "priority", cols[i].priority);
        cJSON_AddItemToArray(defs, d);
    }
    return defs;
}

cJSON *ts__as_table(const struct ts__as_req *q, struct ts__as_res *res, struct ts__as_obj **objs,
                    size_t n, int with_columns)
{
    size_t nc;
    struct col *cols = columns(q, res, &nc);
    cJSON *t = cJSON_CreateObject(), *rows;

    cJSON_AddStringToObject(t, "kind", "Table");
    cJSON_AddStringToObject(t, "apiVersion", "meta.k8s.io/v1");
    cJSON_AddObjectToObject(t, "metadata");
    cJSON_AddItemToObject(t, "columnDefinitions",
                          with_columns ? col_defs(cols, nc) : cJSON_CreateArray());
    rows = cJSON_AddArrayToObject(t, "rows");
    for (size_t i = 0; i < n; i++) {
        cJSON *row = cJSON_CreateObject(), *cells = cJSON_AddArrayToObject(row, "cells"), *o;

        for (size_t j = 0; j < nc; j++)
            cJSON_AddItemToArray(cells, cell(&cols[j], objs[i]->json, q->now));
        if ((o = row_object(q, res, objs[i]->json)))
            cJSON_AddItemToObject(row, "object", o);
        cJSON_AddItemToArray(rows, row);
    }
    free_cols(cols, nc);
    return t;
}

/* --- computed built-in cells ---------------------------------------------- */

static int has_cond(const cJSON *obj, const char *type)
{
    const cJSON *c;

    cJSON_ArrayForEach(c, ts_json_get(obj, "status.conditions"))
    {
        const char *t = ts_json_get_string(c, "type"), *st = ts_json_get_string(c, "status");

        if (t && st && !strcmp(t, type) && !strcmp(st, "True"))
            return 1;
    }
    return 0;
}

static cJSON *job_status(const cJSON *obj)
{
    static const char *const order[] = {"Complete",  "Failed",        NULL,
                                        "Suspended", "FailureTarget", "SuccessCriteriaMet"};

    for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
        if (!order[i]) {
            if (ts_json_get(obj, "metadata.deletionTimestamp"))
                return cJSON_CreateString("Terminating");
        } else if (has_cond(obj, order[i])) {
            return cJSON_CreateString(order[i]);
        }
    }
    return cJSON_CreateString("Running");
}

static cJSON *job_completions(const cJSON *obj)
{
    int64_t succ = 0, comp, par = 0;
    char buf[64];

    ts_json_get_i64(ts_json_get(obj, "status.succeeded"), &succ);
    if (!ts_json_get_i64(ts_json_get(obj, "spec.completions"), &comp))
        snprintf(buf, sizeof(buf), "%lld/%lld", (long long)succ, (long long)comp);
    else if (!ts_json_get_i64(ts_json_get(obj, "spec.parallelism"), &par) && par > 1)
        snprintf(buf, sizeof(buf), "%lld/1 of %lld", (long long)succ, (long long)par);
    else
        snprintf(buf, sizeof(buf), "%lld/1", (long long)succ);
    return cJSON_CreateString(buf);
}

static cJSON *job_duration(const cJSON *obj, ts_time now)
{
    const char *st = ts_json_get_string(obj, "status.startTime");
    const char *ct = ts_json_get_string(obj, "status.completionTime");
    ts_time a, b = now;
    char buf[32];

    if (!st || ts_time_parse(st, &a) || (ct && ts_time_parse(ct, &b)))
        return cJSON_CreateString("");
    human((b - a) / TS_TIME_SECOND, buf, sizeof(buf));
    return cJSON_CreateString(buf);
}

static cJSON *containers(const cJSON *obj, const char *field)
{
    struct ts_buf b = TS_BUF_INIT;
    const cJSON *c;
    cJSON *out;

    cJSON_ArrayForEach(c, ts_json_get(obj, "spec.template.spec.containers"))
    {
        const char *v = ts_json_get_string(c, field);

        ts_buf_addf(&b, "%s%s", b.len ? "," : "", v ? v : "");
    }
    out = cJSON_CreateString(b.ptr);
    ts_buf_release(&b);
    return out;
}

static cJSON *selector(const cJSON *obj)
{
    struct ts_buf b = TS_BUF_INIT;
    const cJSON *l;
    cJSON *out;

    cJSON_ArrayForEach(l, ts_json_get(obj, "spec.selector.matchLabels")) if (cJSON_IsString(l))
        ts_buf_addf(&b, "%s%s=%s", b.len ? "," : "", l->string, l->valuestring);
    out = cJSON_CreateString(b.len ? b.ptr : "<none>");
    ts_buf_release(&b);
    return out;
}

static cJSON *involved(const cJSON *obj)
{
    const char *k = ts_json_get_string(obj, "involvedObject.kind");
    const char *n = ts_json_get_string(obj, "involvedObject.name");
    char buf[512];
    size_t i;

    snprintf(buf, sizeof(buf), "%s/%s", k ? k : "", n ? n : "");
    for (i = 0; buf[i] && buf[i] != '/'; i++)
        buf[i] = (char)(buf[i] >= 'A' && buf[i] <= 'Z' ? buf[i] + 32 : buf[i]);
    return cJSON_CreateString(buf);
}

static cJSON *last_seen(const cJSON *obj, ts_time now)
{
    static const char *const paths[] = {"lastTimestamp", "eventTime", "firstTimestamp",
                                        "metadata.creationTimestamp"};

    for (size_t i = 0; i < 4; i++) {
        const cJSON *v = ts_json_get(obj, paths[i]);

        if (cJSON_IsString(v))
            return age_cell(v, now);
    }
    return cJSON_CreateString("<unknown>");
}

cJSON *ts__as_builtin_cell(const char *fn, const cJSON *obj, ts_time now)
{
    if (!strcmp(fn, "jobstatus"))
        return job_status(obj);
    if (!strcmp(fn, "jobcompletions"))
        return job_completions(obj);
    if (!strcmp(fn, "jobduration"))
        return job_duration(obj, now);
    if (!strcmp(fn, "containers"))
        return containers(obj, "name");
    if (!strcmp(fn, "images"))
        return containers(obj, "image");
    if (!strcmp(fn, "selector"))
        return selector(obj);
    if (!strcmp(fn, "datacount"))
        return cJSON_CreateNumber(cJSON_GetArraySize(ts_json_get(obj, "data")) +
                                  cJSON_GetArraySize(ts_json_get(obj, "binaryData")));
    if (!strcmp(fn, "webhooks"))
        return cJSON_CreateNumber(cJSON_GetArraySize(ts_json_get(obj, "webhooks")));
    if (!strcmp(fn, "createdat")) {
        const cJSON *v = ts_json_get(obj, "metadata.creationTimestamp");
        return v ? cJSON_Duplicate(v, 1) : cJSON_CreateNull();
    }
    if (!strcmp(fn, "involved"))
        return involved(obj);
    if (!strcmp(fn, "lastseen"))
        return last_seen(obj, now);
    return cJSON_CreateNull();
}
