/*
 * h_read.c - GET of one object and LIST with label/field selectors,
 * limit/continue paging and Table output.
 */
#include "api/convert.h"
#include "apiserver/server_int.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apiserver/b64.h"
#include "apiserver/jsonpath.h"
#include "apiserver/sel.h"
#include "json/json.h"
#include "util/alloc.h"
#include "util/parse.h"

struct ts__as_filter {
    struct ts_sel labels;
    struct ts_sel fields;
};

static const char *const event_fields[] = {"involvedObject.kind",
                                           "involvedObject.namespace",
                                           "involvedObject.name",
                                           "involvedObject.uid",
                                           "involvedObject.apiVersion",
                                           "involvedObject.resourceVersion",
                                           "involvedObject.fieldPath",
                                           "reason",
                                           "type",
                                           "source",
                                           "reportingComponent",
                                           "regarding.kind",
                                           "regarding.namespace",
                                           "regarding.name",
                                           "regarding.uid",
                                           "reportingController",
                                           NULL};

static int field_supported(const struct ts__as_res *res, const struct ts__as_ver *ver,
                           const char *key)
{
    const cJSON *f;

    if (!strcmp(key, "metadata.name") || (res->namespaced && !strcmp(key, "metadata.namespace")))
        return 1;
    if (res->kindid == TS__AS_EVENT)
        for (size_t i = 0; event_fields[i]; i++)
            if (!strcmp(event_fields[i], key))
                return 1;
    if (res->kindid == TS__AS_NAMESPACE && !strcmp(key, "status.phase"))
        return 1;
    if (res->kindid == TS__AS_SECRET && !strcmp(key, "type"))
        return 1;
    if (res->kindid == TS__AS_JOB && !strcmp(key, "status.successful"))
        return 1;
    const cJSON *sel = ver ? ver->selectable : NULL;

    cJSON_ArrayForEach(f, sel)
    {
        const char *p = ts_json_get_string(f, "jsonPath");

        if (p && !strcmp(p + (p[0] == '.'), key))
            return 1;
    }
    return 0;
}

int ts__as_filter_new(const struct ts__as_req *q, struct ts__as_resp *r, struct ts__as_filter **out)
{
    struct ts__as_filter *f = ts_xcalloc(1, sizeof(*f));
    struct ts_err err = {0};

    *out = NULL;
    if (ts_sel_parse_labels(ts__as_query(q, "labelSelector"), &f->labels, &err) ||
        ts_sel_parse_fields(ts__as_query(q, "fieldSelector"), &f->fields, &err)) {
        ts__as_reply_badreq(r, "%s", err.msg);
        ts__as_filter_free(f);
        return -1;
    }
    for (size_t i = 0; i < f->fields.n; i++) {
        if (!field_supported(q->res, q->ver, f->fields.reqs[i].key)) {
            ts__as_reply_badreq(r, "field label not supported: %s", f->fields.reqs[i].key);
            ts__as_filter_free(f);
            return -1;
        }
    }
    *out = f;
    return 0;
}

void ts__as_filter_free(struct ts__as_filter *f)
{
    if (!f)
        return;
    ts_sel_release(&f->labels);
    ts_sel_release(&f->fields);
    free(f);
}

static const char *get_label(const void *ctx, const char *key)
{
    return cJSON_GetStringValue(
        cJSON_GetObjectItemCaseSensitive(ts_json_get(ctx, "metadata.labels"), key));
}

struct field_ctx {
    const cJSON *obj;
    char scratch[64];
};

static const char *get_field(const void *ctx, const char *key)
{
    struct field_ctx *fc = (struct field_ctx *)(uintptr_t)ctx;
    const cJSON *v = ts_json_get(fc->obj, !strcmp(key, "source") ? "source.component" : key);
    int64_t i;

    if (cJSON_IsString(v))
        return v->valuestring;
    if (cJSON_IsBool(v))
        return cJSON_IsTrue(v) ? "true" : "false";
    if (v && !ts_json_get_i64(v, &i)) {
        snprintf(fc->scratch, sizeof(fc->scratch), "%lld", (long long)i);
        return fc->scratch;
    }
    return "";
}

int ts__as_filter_match(const struct ts__as_filter *f, const struct ts__as_res *res,
                        const cJSON *obj)
{
    struct field_ctx fc = {.obj = obj};

    (void)res;
    if (!f)
        return 1;
    return ts_sel_matches(&f->labels, get_label, obj) && ts_sel_matches(&f->fields, get_field, &fc);
}

cJSON *ts__as_present(const struct ts__as_req *q, struct ts__as_res *res, const cJSON *o)
{
    cJSON *c = cJSON_Duplicate(o, 1);
    char av[300];

    if (q->ver) {
        snprintf(av, sizeof(av), "%s%s%s", res->group, res->group[0] ? "/" : "", q->ver->name);
        if (res->convert_kueue || res->conv_webhook) {
            ts__as_convert(q->s, res, c, av);
            return c;
        }
        cJSON_DeleteItemFromObjectCaseSensitive(c, "apiVersion");
        cJSON_AddStringToObject(c, "apiVersion", av);
    }
    return c;
}

void ts__as_to_storage(struct ts_apiserver *s, const struct ts__as_res *res, cJSON *obj)
{
    char av[300];

    if (!res->convert_kueue && !res->conv_webhook)
        return;
    for (size_t i = 0; i < res->n_vers; i++) {
        if (res->vers[i].storage) {
            snprintf(av, sizeof(av), "%s/%s", res->group, res->vers[i].name);
            ts__as_convert(s, res, obj, av);
            return;
        }
    }
}

void ts__as_add_obj(const struct ts__as_req *q, struct ts__as_obj *o, struct ts_buf *out)
{
    const char *av = ts_json_get_string(o->json, "apiVersion");
    char want[300];
    size_t len;

    snprintf(want, sizeof(want), "%s%s%s", q->res->group, q->res->group[0] ? "/" : "",
             q->ver->name);
    if (av && !strcmp(av, want)) {
        const char *t = ts__as_obj_text(o, &len);
        ts_buf_add(out, t, len);
    } else {
        cJSON *c = ts__as_present(q, q->res, o->json);
        ts_json_print(c, TS_JSON_COMPACT, out, NULL);
        cJSON_Delete(c);
    }
}

void ts__as_handle_get(struct ts__as_req *q, struct ts__as_resp *r)
{
    struct ts__as_obj *o = ts__as_store_get(q->res, q->rt.ns, q->rt.name);

    if (!o) {
        ts__as_reply_notfound(r, q->res, q->rt.name);
        return;
    }
    if (ts__as_want_table(q)) {
        cJSON *t = ts__as_table(q, q->res, &o, 1, 1);
        char rv[32];

        snprintf(rv, sizeof(rv), "%lld", (long long)o->rv);
        cJSON_AddStringToObject(cJSON_GetObjectItemCaseSensitive(t, "metadata"), "resourceVersion",
                                rv);
        ts__as_reply_json(r, 200, t);
        cJSON_Delete(t);
        return;
    }
    r->code = 200;
    ts__as_add_obj(q, o, &r->body);
}

/* Parses a continue token "base64(rv/key)": 0, or -1 after replying. */
static int parse_continue(struct ts__as_req *q, struct ts__as_resp *r, int64_t *rv,
                          struct ts_buf *key)
{
    const char *tok = ts__as_query(q, "continue"), *slash;
    struct ts_buf raw = TS_BUF_INIT;

    if (!tok || !tok[0])
        return 0;
    if (ts_b64_decode(tok, &raw) || !(slash = strchr(raw.ptr, '/')) ||
        ts_parse_i64(raw.ptr, (size_t)(slash - raw.ptr), rv)) {
        ts_buf_release(&raw);
        ts__as_reply_badreq(r, "continue key is not valid: illegal base64 data");
        return -1;
    }
    ts_buf_adds(key, slash + 1);
    ts_buf_release(&raw);
    if (*rv < q->s->ring_floor) {
        ts__as_reply_status(r, 410, "Expired",
                            "The provided continue parameter is too old to display a consistent "
                            "list result. You can start a new list without the continue "
                            "parameter.",
                            NULL);
        return -1;
    }
    return 1;
}

static void obj_key(struct ts__as_obj *o, struct ts_buf *out)
{
    ts__as_key(ts_json_get_string(o->json, "metadata.namespace"),
               ts_json_get_string(o->json, "metadata.name"), out);
}

/* Filters and pages objs in place; returns the count kept and fills
 * next (the continue token) when more remain. */
static size_t page(struct ts__as_req *q, struct ts__as_obj **objs, size_t n,
                   const struct ts__as_filter *f, const char *after, int64_t limit, int64_t rv,
                   struct ts_buf *next, size_t *remaining)
{
    struct ts_buf k = TS_BUF_INIT, raw = TS_BUF_INIT;
    size_t kept = 0, more = 0;

    for (size_t i = 0; i < n; i++) {
        obj_key(objs[i], &k);
        if ((after && strcmp(k.ptr, after) <= 0) || !ts__as_filter_match(f, q->res, objs[i]->json))
            continue;
        if (limit > 0 && (int64_t)kept == limit) {
            more++;
            continue;
        }
        objs[kept++] = objs[i];
    }
    if (more) {
        obj_key(objs[kept - 1], &k);
        ts_buf_addf(&raw, "%lld/%s", (long long)rv, k.ptr);
        ts_b64_encode(raw.ptr, raw.len, next);
    }
    *remaining = more;
    ts_buf_release(&k);
    ts_buf_release(&raw);
    return kept;
}

static void reply_list(struct ts__as_req *q, struct ts__as_resp *r, struct ts__as_obj **objs,
                       size_t n, int64_t rv, const struct ts_buf *next, size_t remaining)
{
    struct ts_buf *b = &r->body;

    r->code = 200;
    ts_buf_addf(b, "{\"kind\":\"%s\",\"apiVersion\":\"%s%s%s\",\"metadata\":{", q->res->list_kind,
                q->res->group, q->res->group[0] ? "/" : "", q->ver->name);
    ts_buf_addf(b, "\"resourceVersion\":\"%lld\"", (long long)rv);
    if (next->len)
        ts_buf_addf(b, ",\"continue\":\"%s\",\"remainingItemCount\":%zu", next->ptr, remaining);
    else if (q->res->kindid == TS__AS_CR)
        /* a custom resource's list is unstructured on kube-apiserver: its
         * empty continue token is not omitted */
        ts_buf_adds(b, ",\"continue\":\"\"");
    ts_buf_adds(b, "},\"items\":[");
    for (size_t i = 0; i < n; i++) {
        if (i)
            ts_buf_addc(b, ',');
        ts__as_add_obj(q, objs[i], b);
    }
    ts_buf_adds(b, "]}");
}

static void reply_table(struct ts__as_req *q, struct ts__as_resp *r, struct ts__as_obj **objs,
                        size_t n, int64_t rv, const struct ts_buf *next)
{
    cJSON *t = ts__as_table(q, q->res, objs, n, 1);
    cJSON *md = cJSON_GetObjectItemCaseSensitive(t, "metadata");
    char num[32];

    snprintf(num, sizeof(num), "%lld", (long long)rv);
    cJSON_AddStringToObject(md, "resourceVersion", num);
    if (next->len)
        cJSON_AddStringToObject(md, "continue", next->ptr);
    ts__as_reply_json(r, 200, t);
    r->ctype = "application/json;as=Table;v=v1;g=meta.k8s.io";
    cJSON_Delete(t);
}

void ts__as_handle_list(struct ts__as_req *q, struct ts__as_resp *r)
{
    struct ts__as_filter *f;
    struct ts_buf after = TS_BUF_INIT, next = TS_BUF_INIT;
    int64_t limit = 0, rv = q->s->rv;
    const char *lim = ts__as_query(q, "limit");
    struct ts__as_obj **objs;
    size_t n, remaining = 0;
    int cont;

    if (ts__as_filter_new(q, r, &f))
        return;
    if ((cont = parse_continue(q, r, &rv, &after)) < 0) {
        ts__as_filter_free(f);
        ts_buf_release(&after);
        return;
    }
    if (lim && ts_parse_i64_c(lim, &limit))
        limit = 0;
    objs = ts__as_store_list(q->res, q->res->namespaced ? q->rt.ns : NULL, &n);
    n = page(q, objs, n, f, cont ? after.ptr : NULL, limit, rv, &next, &remaining);
    if (ts__as_want_table(q))
        reply_table(q, r, objs, n, rv, &next);
    else
        reply_list(q, r, objs, n, rv, &next, remaining);
    free(objs);
    ts__as_filter_free(f);
    ts_buf_release(&after);
    ts_buf_release(&next);
}
