/*
 * status.c - replies: JSON bodies and metav1.Status errors shaped exactly
 * as kube-apiserver writes them (Kubernetes API conventions, "Response
 * Status Kind").
 */
#include "apiserver/server_int.h"

#include "api/meta.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "json/json.h"

void ts__as_resp_init(struct ts__as_resp *r)
{
    memset(r, 0, sizeof(*r));
    r->code = 200;
    r->ctype = "application/json";
    ts_buf_init(&r->body, 0);
    ts_strlist_init(&r->warnings);
}

void ts__as_resp_release(struct ts__as_resp *r)
{
    ts_buf_release(&r->body);
    ts_strlist_release(&r->warnings);
}

void ts__as_reply_json(struct ts__as_resp *r, int code, const cJSON *v)
{
    r->code = code;
    ts_buf_reset(&r->body);
    if (ts_json_print(v, TS_JSON_COMPACT, &r->body, NULL) != 0) {
        ts_buf_reset(&r->body);
        r->code = 500;
        ts_buf_adds(&r->body, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
                              "\"status\":\"Failure\",\"message\":\"cannot encode object\","
                              "\"reason\":\"InternalError\",\"code\":500}");
    }
}

void ts__as_reply_status(struct ts__as_resp *r, int code, const char *reason, const char *msg,
                         cJSON *details)
{
    cJSON *st = ts_status_new(code, reason, msg, details);

    r->ctype = "application/json";
    ts__as_reply_json(r, code, st);
    cJSON_Delete(st);
}

void ts__as_reply_badreq(struct ts__as_resp *r, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    ts__as_reply_status(r, 400, "BadRequest", msg, NULL);
}

void ts__as_qualified(const struct ts__as_res *res, struct ts_buf *out)
{
    ts_buf_adds(out, res->resource);
    if (res->group[0])
        ts_buf_addf(out, ".%s", res->group);
}

static cJSON *details(const struct ts__as_res *res, const char *name, const char *kind)
{
    cJSON *d = cJSON_CreateObject();

    if (name && name[0])
        cJSON_AddStringToObject(d, "name", name);
    if (res->group[0])
        cJSON_AddStringToObject(d, "group", res->group);
    cJSON_AddStringToObject(d, "kind", kind);
    return d;
}

static void reply_named(struct ts__as_resp *r, const struct ts__as_res *res, const char *name,
                        int code, const char *reason, const char *pre, const char *post)
{
    struct ts_buf q = TS_BUF_INIT, msg = TS_BUF_INIT;

    ts__as_qualified(res, &q);
    ts_buf_addf(&msg, "%s%s \"%s\"%s", pre, q.ptr, name ? name : "", post);
    ts__as_reply_status(r, code, reason, msg.ptr, details(res, name, res->resource));
    ts_buf_release(&q);
    ts_buf_release(&msg);
}

void ts__as_reply_notfound(struct ts__as_resp *r, const struct ts__as_res *res, const char *name)
{
    reply_named(r, res, name, 404, "NotFound", "", " not found");
}

void ts__as_reply_exists(struct ts__as_resp *r, const struct ts__as_res *res, const char *name)
{
    reply_named(r, res, name, 409, "AlreadyExists", "", " already exists");
}

void ts__as_reply_conflict(struct ts__as_resp *r, const struct ts__as_res *res, const char *name)
{
    reply_named(r, res, name, 409, "Conflict", "Operation cannot be fulfilled on ",
                ": the object has been modified; please apply your changes to the latest "
                "version and try again");
}

void ts__as_reply_invalid(struct ts__as_resp *r, const struct ts__as_res *res, const char *name,
                          const struct ts_field_errors *errs)
{
    struct ts_buf msg = TS_BUF_INIT, one = TS_BUF_INIT;
    cJSON *d = details(res, name, res->kind), *causes = cJSON_CreateArray();

    ts_buf_addf(&msg, "%s%s%s \"%s\" is invalid: ", res->kind, res->group[0] ? "." : "", res->group,
                name ? name : "");
    ts_field_errors_format(errs, &msg);
    for (size_t i = 0; i < errs->n; i++) {
        cJSON *c = cJSON_CreateObject();

        ts_buf_reset(&one);
        ts_field_error_format(&errs->items[i], &one);
        /* the cause message is the part after "field: " */
        size_t skip = strlen(errs->items[i].field);
        const char *m = one.ptr + (skip && one.len > skip + 2 ? skip + 2 : 0);
        cJSON_AddStringToObject(c, "reason", ts_field_error_reason(errs->items[i].type));
        cJSON_AddStringToObject(c, "message", m);
        cJSON_AddStringToObject(c, "field", errs->items[i].field);
        cJSON_AddItemToArray(causes, c);
    }
    cJSON_AddItemToObject(d, "causes", causes);
    ts__as_reply_status(r, 422, "Invalid", msg.ptr, d);
    ts_buf_release(&msg);
    ts_buf_release(&one);
}

void ts__as_reply_nopath(struct ts__as_resp *r)
{
    ts__as_reply_status(r, 404, "NotFound", "the server could not find the requested resource",
                        cJSON_CreateObject());
}
