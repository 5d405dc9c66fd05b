/*
 * admission_call.c - the AdmissionReview v1 calls, made without the
 * server lock: mutating webhooks one by one (their JSONPatch applied in
 * the webhook's version, reinvocationPolicy IfNeeded honoured once), then
 * the validating ones; failurePolicy, timeoutSeconds, sideEffects on dry
 * runs, response checks, denials as the client sees them
 * (webhookerrors.ToStatusErr) and warnings.
 */
#include "apiserver/admission_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/convert.h"
#include "apiserver/b64.h"
#include "json/json.h"
#include "json/patch.h"
#include "util/log.h"

enum { CALL_OK = 0, CALL_REPLIED = 1, CALL_IGNORED = 2 };

static const char *hook_name(const struct ts__as_hook *h)
{
    const char *n = ts_json_get_string(h->wh, "name");

    return n ? n : "";
}

/* Copy of obj in version v of the resource. */
static cJSON *in_version(const struct ts__as_adm *a, const struct ts__as_hook *h, const cJSON *obj,
                         const char *v)
{
    cJSON *c;
    char av[300];

    if (!obj)
        return cJSON_CreateNull();
    c = cJSON_Duplicate(obj, 1);
    snprintf(av, sizeof(av), "%s%s%s", a->group, a->group[0] ? "/" : "", v);
    if (h->kueue && ts_convert_kueue(c, av, NULL) == 0)
        return c;
    cJSON_DeleteItemFromObjectCaseSensitive(c, "apiVersion");
    cJSON_AddStringToObject(c, "apiVersion", av);
    return c;
}

static cJSON *gvk(const char *g, const char *v, const char *key, const char *val)
{
    cJSON *o = cJSON_CreateObject();

    cJSON_AddStringToObject(o, "group", g);
    cJSON_AddStringToObject(o, "version", v);
    cJSON_AddStringToObject(o, key, val);
    return o;
}

static cJSON *review(const struct ts__as_adm *a, const struct ts__as_hook *h, const cJSON *obj)
{
    cJSON *rv = cJSON_CreateObject(), *rq, *ui;

    cJSON_AddStringToObject(rv, "apiVersion", "admission.k8s.io/v1");
    cJSON_AddStringToObject(rv, "kind", "AdmissionReview");
    rq = cJSON_AddObjectToObject(rv, "request");
    cJSON_AddStringToObject(rq, "uid", a->uid);
    cJSON_AddItemToObject(rq, "kind", gvk(a->group, h->version, "kind", a->kind));
    cJSON_AddItemToObject(rq, "resource", gvk(a->group, h->version, "resource", a->resource));
    if (a->sub)
        cJSON_AddStringToObject(rq, "subResource", a->sub);
    cJSON_AddItemToObject(rq, "requestKind", gvk(a->group, a->version, "kind", a->kind));
    cJSON_AddItemToObject(rq, "requestResource",
                          gvk(a->group, a->version, "resource", a->resource));
    if (a->sub)
        cJSON_AddStringToObject(rq, "requestSubResource", a->sub);
    cJSON_AddStringToObject(rq, "name", a->name);
    if (a->ns)
        cJSON_AddStringToObject(rq, "namespace", a->ns);
    cJSON_AddStringToObject(rq, "operation", a->op);
    ui = cJSON_AddObjectToObject(rq, "userInfo");
    cJSON_AddStringToObject(ui, "username", "kubernetes-admin");
    cJSON_AddItemToObject(
        ui, "groups",
        cJSON_CreateStringArray((const char *[]){"system:masters", "system:authenticated"}, 2));
    cJSON_AddItemToObject(rq, "object", in_version(a, h, obj, h->version));
    cJSON_AddItemToObject(rq, "oldObject", in_version(a, h, a->old, h->version));
    cJSON_AddBoolToObject(rq, "dryRun", a->dry_run);
    cJSON_AddItemToObject(rq, "options", cJSON_Duplicate(a->options, 1));
    return rv;
}

static const char *reason_for(int code)
{
    switch (code) {
    case 400:
        return "BadRequest";
    case 401:
        return "Unauthorized";
    case 403:
        return "Forbidden";
    case 404:
        return "NotFound";
    case 409:
        return "Conflict";
    case 422:
        return "Invalid";
    case 429:
        return "TooManyRequests";
    default:
        return code >= 500 ? "InternalError" : "BadRequest";
    }
}

static void deny(struct ts__as_resp *r, const struct ts__as_hook *h, const cJSON *resp)
{
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(resp, "status");
    const char *msg = ts_json_get_string(st, "message"), *reason = ts_json_get_string(st, "reason");
    int64_t code = 0;
    struct ts_buf m = TS_BUF_INIT;

    ts_json_get_i64(cJSON_GetObjectItemCaseSensitive(st, "code"), &code);
    if (code < 400)
        code = 400;
    ts_buf_addf(&m, "admission webhook \"%s\" denied the request", hook_name(h));
    if (msg && msg[0])
        ts_buf_addf(&m, ": %s", msg);
    else if (reason && reason[0])
        ts_buf_addf(&m, ": %s", reason);
    else
        ts_buf_adds(&m, " without explanation");
    ts__as_reply_status(r, (int)code, reason && reason[0] ? reason : reason_for((int)code), m.ptr,
                        NULL);
    ts_buf_release(&m);
}

static int fail_or_ignore(struct ts__as_resp *r, const struct ts__as_hook *h, const char *why)
{
    const char *fp = ts_json_get_string(h->wh, "failurePolicy");
    char msg[1200];

    if (fp && !strcmp(fp, "Ignore")) {
        ts_log_warn("apiserver", "webhook=%s failed (ignored): %s", hook_name(h), why);
        return CALL_IGNORED;
    }
    snprintf(msg, sizeof(msg), "Internal error occurred: failed calling webhook \"%s\": %s",
             hook_name(h), why);
    ts__as_reply_status(r, 500, "InternalError", msg, NULL);
    return CALL_REPLIED;
}

static int response_ok(const struct ts__as_adm *a, const cJSON *doc, char *why, size_t len)
{
    const char *av = ts_json_get_string(doc, "apiVersion"), *k = ts_json_get_string(doc, "kind");
    const char *uid = ts_json_get_string(doc, "response.uid");

    if (!av || strcmp(av, "admission.k8s.io/v1") || !k || strcmp(k, "AdmissionReview"))
        snprintf(why, len,
                 "expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview");
    else if (!cJSON_IsObject(ts_json_get(doc, "response")))
        snprintf(why, len, "webhook response was absent");
    else if (!uid || strcmp(uid, a->uid))
        snprintf(why, len, "expected response.uid=\"%s\", got \"%s\"", a->uid, uid ? uid : "");
    else
        return 1;
    return 0;
}

/* Applies the response's JSONPatch to *obj (in the webhook's version). */
static int apply_patch(const struct ts__as_adm *a, const struct ts__as_hook *h, const cJSON *resp,
                       cJSON **obj, char *why, size_t len)
{
    const char *p = ts_json_get_string(resp, "patch"), *pt = ts_json_get_string(resp, "patchType");
    struct ts_buf raw = TS_BUF_INIT;
    struct ts_err err = {0};
    cJSON *patch = NULL, *in, *out = NULL;
    int rc = -1;

    if (!p)
        return 0;
    if (!pt || strcmp(pt, "JSONPatch"))
        snprintf(why, len, "unsupported patch type \"%s\"", pt ? pt : "");
    else if (ts_b64_decode(p, &raw) || ts_json_parse(raw.ptr, raw.len, &patch, &err))
        snprintf(why, len, "the patch is not valid base64 JSON: %s", err.msg);
    else {
        in = in_version(a, h, *obj, h->version);
        if (ts_json_patch_apply(in, patch, &out, &err) || !cJSON_IsObject(out)) {
            snprintf(why, len, "JSONPatch cannot be applied: %s", err.msg);
        } else {
            cJSON_Delete(*obj);
            *obj = in_version(a, h, out, a->version);
            rc = 0;
        }
        cJSON_Delete(in);
        cJSON_Delete(out);
    }
    cJSON_Delete(patch);
    ts_buf_release(&raw);
    return rc;
}

static int preflight(struct ts__as_resp *r, const struct ts__as_adm *a, const struct ts__as_hook *h)
{
    const char *se = ts_json_get_string(h->wh, "sideEffects");
    const cJSON *vers = cJSON_GetObjectItemCaseSensitive(h->wh, "admissionReviewVersions"), *v;
    char msg[600];
    int v1 = !vers;

    cJSON_ArrayForEach(v, vers) v1 |= cJSON_IsString(v) && !strcmp(v->valuestring, "v1");
    if (!v1)
        return fail_or_ignore(r, h, "webhook does not accept v1 AdmissionReview");
    if (a->dry_run && (!se || (strcmp(se, "None") && strcmp(se, "NoneOnDryRun")))) {
        snprintf(msg, sizeof(msg), "admission webhook \"%s\" does not support dry run",
                 hook_name(h));
        ts__as_reply_status(r, 400, "BadRequest", msg, NULL);
        return CALL_REPLIED;
    }
    return CALL_OK;
}

static int post(struct ts__as_req *q, struct ts__as_resp *r, const struct ts__as_adm *a,
                const struct ts__as_hook *h, const cJSON *obj, cJSON **doc)
{
    cJSON *rv = review(a, h, obj);
    struct ts_buf body = TS_BUF_INIT, out;
    struct ts_err err = {0};
    char why[700];
    int64_t t = 10;
    int rc;

    ts_json_get_i64(cJSON_GetObjectItemCaseSensitive(h->wh, "timeoutSeconds"), &t);
    ts_json_print(rv, TS_JSON_COMPACT, &body, NULL);
    cJSON_Delete(rv);
    ts_buf_init(&out, 64u << 20);
    rc = ts__as_hook_post(&q->s->svc_map, cJSON_GetObjectItemCaseSensitive(h->wh, "clientConfig"),
                          t < 1    ? 1
                          : t > 30 ? 30
                                   : (int)t,
                          &body, &out, &err);
    ts_buf_release(&body);
    *doc = NULL;
    if (rc) {
        snprintf(why, sizeof(why), "failed to call webhook: %s", err.msg);
        rc = fail_or_ignore(r, h, why);
    } else if (ts_json_parse(out.ptr, out.len, doc, &err)) {
        snprintf(why, sizeof(why), "received invalid webhook response: %s", err.msg);
        rc = fail_or_ignore(r, h, why);
    } else if (!response_ok(a, *doc, why, sizeof(why))) {
        rc = fail_or_ignore(r, h, why);
    }
    ts_buf_release(&out);
    if (rc) {
        cJSON_Delete(*doc);
        *doc = NULL;
    }
    return rc;
}

/* One webhook call.  obj: the object sent (mutating: replaced by the
 * patched one; *changed set when it differs). */
static int call_one(struct ts__as_req *q, struct ts__as_resp *r, struct ts__as_adm *a,
                    const struct ts__as_hook *h, cJSON **obj, int *changed)
{
    const cJSON *resp, *w;
    cJSON *doc, *before;
    char why[700];
    int rc;

    if ((rc = preflight(r, a, h)) || (rc = post(q, r, a, h, obj ? *obj : a->obj, &doc)))
        return rc == CALL_IGNORED ? CALL_OK : rc;
    resp = cJSON_GetObjectItemCaseSensitive(doc, "response");
    cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(resp, "warnings")) if (cJSON_IsString(w))
        ts_strlist_push(&a->warnings, w->valuestring);
    if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(resp, "allowed"))) {
        deny(r, h, resp);
        rc = CALL_REPLIED;
    } else if (changed && obj && *obj) {
        before = cJSON_Duplicate(*obj, 1);
        if (apply_patch(a, h, resp, obj, why, sizeof(why)))
            rc = fail_or_ignore(r, h, why);
        else if (!ts_json_equal(before, *obj))
            *changed = 1;
        cJSON_Delete(before);
    }
    cJSON_Delete(doc);
    return rc == CALL_IGNORED ? CALL_OK : rc;
}

static int if_needed(const struct ts__as_hook *h)
{
    const char *p = ts_json_get_string(h->wh, "reinvocationPolicy");

    return p && !strcmp(p, "IfNeeded");
}

static int run_mutating(struct ts__as_req *q, struct ts__as_resp *r, struct ts__as_adm *a)
{
    cJSON *obj = a->obj ? cJSON_Duplicate(a->obj, 1) : NULL;
    size_t last_change = 0;
    int any = 0;

    for (size_t i = 0; i < a->n_hooks; i++) {
        int changed = 0;

        if (call_one(q, r, a, &a->hooks[i], &obj, &changed)) {
            cJSON_Delete(obj);
            return 1;
        }
        if (changed)
            last_change = i, any = 1;
    }
    for (size_t i = 0; any && i < last_change; i++) { /* reinvocation, once */
        int changed = 0;

        if (if_needed(&a->hooks[i]) && call_one(q, r, a, &a->hooks[i], &obj, &changed)) {
            cJSON_Delete(obj);
            return 1;
        }
    }
    a->mutated = obj;
    a->mutated_done = 1;
    return 0;
}

static int run_validating(struct ts__as_req *q, struct ts__as_resp *r, struct ts__as_adm *a)
{
    for (size_t i = 0; i < a->n_hooks; i++)
        if (call_one(q, r, a, &a->hooks[i], NULL, NULL))
            return 1;
    a->validated_done = 1;
    return 0;
}

int ts__as_admit_run(struct ts__as_req *q, struct ts__as_resp *r)
{
    struct ts__as_adm *a = q->adm;
    int phase = a->phase, rc = 0;

    a->phase = TS__AS_ADM_IDLE;
    if (phase == TS__AS_ADM_MUTATE)
        rc = run_mutating(q, r, a);
    else if (phase == TS__AS_ADM_VALIDATE)
        rc = run_validating(q, r, a);
    ts__as_adm_clear_call(a);
    return rc;
}
