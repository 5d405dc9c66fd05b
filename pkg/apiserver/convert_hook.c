/*
 * convert_hook.c - CRD conversion for conversion.strategy Webhook:
 * ConversionReview v1 to the CRD's clientConfig (url, or a service mapped
 * with --webhook-service), one object per review.  When no webhook is
 * configured with a reachable address, kueue.x-k8s.io objects are
 * converted in-process with Kueue's converter (ts_convert_kueue, the same
 * code Turnstile's conversion webhook serves) and other kinds get only
 * their apiVersion rewritten (strategy None).
 * Called with the server lock held: a conversion webhook must not call
 * back into this server (kube-apiserver's own rule of thumb too).
 */
#include "apiserver/server_int.h"

#include <stdio.h>
#include <string.h>

#include "api/convert.h"
#include "json/json.h"
#include "util/log.h"

#define CONVERT_TIMEOUT_S 10

static cJSON *review(struct ts_apiserver *s, const cJSON *obj, const char *av, char uid[37])
{
    cJSON *rv = cJSON_CreateObject(), *rq;

    ts__as_new_uid(s, uid);
    cJSON_AddStringToObject(rv, "apiVersion", "apiextensions.k8s.io/v1");
    cJSON_AddStringToObject(rv, "kind", "ConversionReview");
    rq = cJSON_AddObjectToObject(rv, "request");
    cJSON_AddStringToObject(rq, "uid", uid);
    cJSON_AddStringToObject(rq, "desiredAPIVersion", av);
    cJSON_AddItemToArray(cJSON_AddArrayToObject(rq, "objects"), cJSON_Duplicate(obj, 1));
    return rv;
}

/* The converted object of a ConversionReview reply, or NULL (why set). */
static cJSON *converted(const struct ts_buf *out, const char *uid, const char *av,
                        struct ts_err *err)
{
    cJSON *doc = NULL, *o;
    const char *st, *ruid, *oav;

    if (ts_json_parse(out->ptr, out->len, &doc, err))
        return NULL;
    st = ts_json_get_string(doc, "response.result.status");
    ruid = ts_json_get_string(doc, "response.uid");
    o = ts_json_get(doc, "response.convertedObjects[0]");
    oav = ts_json_get_string(o, "apiVersion");
    if (!ruid || strcmp(ruid, uid) || !st || strcmp(st, "Success") || !cJSON_IsObject(o) || !oav ||
        strcmp(oav, av)) {
        ts_err_set(err, TS_EINVAL, "conversion webhook failed: %s",
                   ts_json_get_string(doc, "response.result.message")
                       ? ts_json_get_string(doc, "response.result.message")
                       : "malformed ConversionReview response");
        cJSON_Delete(doc);
        return NULL;
    }
    o = cJSON_DetachItemViaPointer(ts_json_get(doc, "response.convertedObjects"), o);
    cJSON_Delete(doc);
    return o;
}

/* Converts through the webhook; 0 on success (obj replaced in place). */
static int call(struct ts_apiserver *s, const struct ts__as_res *res, cJSON *obj, const char *av,
                struct ts_err *err)
{
    char uid[37];
    cJSON *rv = review(s, obj, av, uid), *o;
    struct ts_buf body = TS_BUF_INIT, out;
    int rc;

    ts_json_print(rv, TS_JSON_COMPACT, &body, NULL);
    cJSON_Delete(rv);
    ts_buf_init(&out, 64u << 20);
    rc = ts__as_hook_post(&s->svc_map, res->conv_cc, CONVERT_TIMEOUT_S, &body, &out, err);
    if (!rc && !(o = converted(&out, uid, av, err)))
        rc = TS_EINVAL;
    if (!rc) { /* swap the converted members into obj */
        cJSON *c;
        while (obj->child)
            cJSON_Delete(cJSON_DetachItemViaPointer(obj, obj->child));
        while ((c = o->child))
            cJSON_AddItemToObject(obj, c->string, cJSON_DetachItemViaPointer(o, c));
        cJSON_Delete(o);
    }
    ts_buf_release(&body);
    ts_buf_release(&out);
    return rc;
}

void ts__as_convert(struct ts_apiserver *s, const struct ts__as_res *res, cJSON *obj,
                    const char *av)
{
    const char *cur = ts_json_get_string(obj, "apiVersion");
    struct ts_err err = {0};

    if (cur && !strcmp(cur, av))
        return;
    if (res->conv_cc && cur) {
        if (call(s, res, obj, av, &err) == 0)
            return;
        ts_log_debug("apiserver", "conversion webhook for %s.%s: %s (converting in-process)",
                     res->resource, res->group, err.msg);
    }
    if (res->convert_kueue && ts_convert_kueue(obj, av, NULL) == 0)
        return;
    cJSON_DeleteItemFromObjectCaseSensitive(obj, "apiVersion");
    cJSON_AddStringToObject(obj, "apiVersion", av);
}

void ts__as_crd_conversion(struct ts__as_res *res, const cJSON *crd, const struct ts_strlist *map)
{
    const char *strategy = ts_json_get_string(crd, "spec.conversion.strategy");
    const cJSON *cc = ts_json_get(crd, "spec.conversion.webhook.clientConfig");
    char url[2048], conn[1024];

    cJSON_Delete(res->conv_cc);
    res->conv_cc = NULL;
    res->conv_webhook = strategy && !strcmp(strategy, "Webhook");
    if (res->conv_webhook && cc &&
        !ts__as_hook_url(map, cc, url, sizeof(url), conn, sizeof(conn), NULL))
        res->conv_cc = cJSON_Duplicate(cc, 1);
}
