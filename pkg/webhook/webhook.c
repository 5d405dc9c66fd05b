/*
 * webhook.c - the AdmissionReview envelope: path dispatch, request
 * parsing, response building (uid echo, base64 JSONPatch, denial Status,
 * warnings), and the response helpers the per-kind handlers share.
 */
#include "webhook/webhook.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "json/json.h"
#include "json/patch.h"
#include "util/alloc.h"
#include "webhook/cert.h"
#include "webhook/webhook_int.h"

#define REVIEW_V1      "admission.k8s.io/v1"
#define REVIEW_V1BETA1 "admission.k8s.io/v1beta1"

/* Kueue kinds are served under both versions: prefix + "v1beta2" or
 * "v1beta1" + suffix.  Job routes have no suffix: prefix is the path. */
#define MUTATE_KUEUE   "/mutate-kueue-x-k8s-io-"
#define VALIDATE_KUEUE "/validate-kueue-x-k8s-io-"

static const struct route {
    const char *prefix;
    const char *suffix;
    ts__wh_fn fn;
    enum ts_kind kind;
} routes[] = {
    {MUTATE_KUEUE, "-clusterqueue", ts__wh_mutate_kueue, TS_KIND_CLUSTER_QUEUE},
    {MUTATE_KUEUE, "-resourceflavor", ts__wh_mutate_kueue, TS_KIND_RESOURCE_FLAVOR},
    {MUTATE_KUEUE, "-workload", ts__wh_mutate_kueue, TS_KIND_WORKLOAD},
    {VALIDATE_KUEUE, "-clusterqueue", ts__wh_validate_kueue, TS_KIND_CLUSTER_QUEUE},
    {VALIDATE_KUEUE, "-localqueue", ts__wh_validate_kueue, TS_KIND_LOCAL_QUEUE},
    {VALIDATE_KUEUE, "-resourceflavor", ts__wh_validate_kueue, TS_KIND_RESOURCE_FLAVOR},
    {VALIDATE_KUEUE, "-cohort", ts__wh_validate_kueue, TS_KIND_COHORT},
    {VALIDATE_KUEUE, "-workload", ts__wh_validate_kueue, TS_KIND_WORKLOAD},
    {VALIDATE_KUEUE, "-workloadpriorityclass", ts__wh_validate_kueue,
     TS_KIND_WORKLOAD_PRIORITY_CLASS},
    {"/mutate-batch-v1-job", NULL, ts__wh_mutate_job, TS_KIND_JOB},
    {"/validate-batch-v1-job", NULL, ts__wh_validate_job, TS_KIND_JOB},
    {"/mutate-kubeflow-org-v1-pytorchjob", NULL, ts__wh_mutate_job, TS_KIND_PYTORCH_JOB},
    {"/validate-kubeflow-org-v1-pytorchjob", NULL, ts__wh_validate_job, TS_KIND_PYTORCH_JOB},
    {"/mutate-kubeflow-org-v1-tfjob", NULL, ts__wh_mutate_job, TS_KIND_TF_JOB},
    {"/validate-kubeflow-org-v1-tfjob", NULL, ts__wh_validate_job, TS_KIND_TF_JOB},
    {"/mutate-kubeflow-org-v2beta1-mpijob", NULL, ts__wh_mutate_job, TS_KIND_MPI_JOB},
    {"/validate-kubeflow-org-v2beta1-mpijob", NULL, ts__wh_validate_job, TS_KIND_MPI_JOB},
    {"/mutate-kubeflow-org-v1-xgboostjob", NULL, ts__wh_mutate_job, TS_KIND_XGBOOST_JOB},
    {"/validate-kubeflow-org-v1-xgboostjob", NULL, ts__wh_validate_job, TS_KIND_XGBOOST_JOB},
    {"/mutate-kubeflow-org-v1-paddlejob", NULL, ts__wh_mutate_job, TS_KIND_PADDLE_JOB},
    {"/validate-kubeflow-org-v1-paddlejob", NULL, ts__wh_validate_job, TS_KIND_PADDLE_JOB},
    {"/mutate-kubeflow-org-v1-jaxjob", NULL, ts__wh_mutate_job, TS_KIND_JAX_JOB},
    {"/validate-kubeflow-org-v1-jaxjob", NULL, ts__wh_validate_job, TS_KIND_JAX_JOB},
    {"/mutate-jobset-x-k8s-io-v1alpha2-jobset", NULL, ts__wh_mutate_job, TS_KIND_JOBSET},
    {"/validate-jobset-x-k8s-io-v1alpha2-jobset", NULL, ts__wh_validate_job, TS_KIND_JOBSET},
    {"/mutate--v1-pod", NULL, ts__wh_mutate_job, TS_KIND_POD},
    {"/validate--v1-pod", NULL, ts__wh_validate_job, TS_KIND_POD},
    {"/mutate-apps-v1-deployment", NULL, ts__wh_mutate_deployment, TS_KIND_UNKNOWN},
    {"/validate-apps-v1-deployment", NULL, ts__wh_validate_deployment, TS_KIND_UNKNOWN},
    {"/mutate-apps-v1-statefulset", NULL, ts__wh_mutate_statefulset, TS_KIND_UNKNOWN},
    {"/validate-apps-v1-statefulset", NULL, ts__wh_validate_statefulset, TS_KIND_UNKNOWN},
    {"/mutate-ray-io-v1-rayjob", NULL, ts__wh_mutate_job, TS_KIND_RAY_JOB},
    {"/validate-ray-io-v1-rayjob", NULL, ts__wh_validate_job, TS_KIND_RAY_JOB},
    {"/mutate-ray-io-v1-raycluster", NULL, ts__wh_mutate_job, TS_KIND_RAY_CLUSTER},
    {"/validate-ray-io-v1-raycluster", NULL, ts__wh_validate_job, TS_KIND_RAY_CLUSTER},
    {"/mutate-trainer-kubeflow-org-v1alpha1-trainjob", NULL, ts__wh_mutate_job, TS_KIND_TRAINJOB},
    {"/validate-trainer-kubeflow-org-v1alpha1-trainjob", NULL, ts__wh_validate_job,
     TS_KIND_TRAINJOB},
};

#define N_ROUTES (sizeof(routes) / sizeof(routes[0]))

void ts_webhook_options_init(struct ts_webhook_options *o)
{
    memset(o, 0, sizeof(*o));
    o->partial_admission = 1;
    o->wpc_defaulting = 1;
    o->manage_pods = o->manage_deployments = o->manage_statefulsets = 1;
    o->system_namespace = TS_WEBHOOK_DEFAULT_NAMESPACE;
}

struct ts_webhook *ts_webhook_new(const struct ts_webhook_options *o)
{
    struct ts_webhook *wh = ts_xcalloc(1, sizeof(*wh));

    wh->opts = *o;
    wh->ns = ts_xstrdup(o->system_namespace && *o->system_namespace ? o->system_namespace
                                                                    : TS_WEBHOOK_DEFAULT_NAMESPACE);
    wh->opts.system_namespace = wh->ns;
    return wh;
}

void ts_webhook_free(struct ts_webhook *wh)
{
    if (!wh)
        return;
    free(wh->ns);
    free(wh);
}

/* Length of path without its query string. */
static size_t path_len(const char *path)
{
    const char *q = strchr(path, '?');

    return q ? (size_t)(q - path) : strlen(path);
}

/* Whether path[0..n) starts with `s`; advances *off past it. */
static int eat(const char *path, size_t n, size_t *off, const char *s)
{
    size_t k = strlen(s);

    if (n - *off < k || memcmp(path + *off, s, k) != 0)
        return 0;
    *off += k;
    return 1;
}

static int route_matches(const struct route *r, const char *path, size_t n)
{
    size_t off = 0;

    if (!eat(path, n, &off, r->prefix))
        return 0;
    if (!r->suffix)
        return off == n;
    if (!eat(path, n, &off, "v1beta2") && !eat(path, n, &off, "v1beta1"))
        return 0;
    return eat(path, n, &off, r->suffix) && off == n;
}

static const struct route *find_route(const char *path)
{
    size_t n = path_len(path);

    for (size_t i = 0; i < N_ROUTES; i++) {
        if (route_matches(&routes[i], path, n))
            return &routes[i];
    }
    return NULL;
}

static int path_is(const char *path, const char *want)
{
    size_t n = path_len(path);

    return n == strlen(want) && memcmp(path, want, n) == 0;
}

int ts_webhook_path_known(const char *path)
{
    return find_route(path) || path_is(path, "/convert") || path_is(path, "/healthz") ||
           path_is(path, "/readyz");
}

/* --- response helpers ------------------------------------------------------ */

void ts__wh_deny(struct ts__wh_resp *rs, int code, const char *reason, const char *fmt, ...)
{
    va_list ap;

    rs->allowed = 0;
    rs->code = code;
    rs->reason = reason;
    ts_buf_reset(&rs->message);
    va_start(ap, fmt);
    ts_buf_vaddf(&rs->message, fmt, ap);
    va_end(ap);
}

void ts__wh_deny_errs(struct ts__wh_resp *rs, const struct ts_field_errors *errs)
{
    if (!errs->n)
        return;
    rs->allowed = 0;
    rs->code = 403;
    rs->reason = "Forbidden";
    ts_buf_reset(&rs->message);
    ts_field_errors_format(errs, &rs->message);
}

void ts__wh_set_patch(struct ts__wh_resp *rs, const cJSON *orig, const cJSON *mutated)
{
    cJSON *p = NULL;

    cJSON_Delete(rs->patch);
    rs->patch = NULL;
    if (ts_json_patch_create(orig, mutated, &p, NULL) == 0 && cJSON_GetArraySize(p) > 0) {
        rs->patch = p;
        return;
    }
    cJSON_Delete(p);
}

int ts__wh_op_is(const struct ts__wh_req *rq, const char *op)
{
    return strcmp(rq->operation, op) == 0;
}

const char *ts__wh_namespace(const struct ts__wh_req *rq)
{
    const char *ns;

    if (rq->namespace_ && *rq->namespace_)
        return rq->namespace_;
    ns = ts_json_get_string(rq->object ? rq->object : rq->old_object, "metadata.namespace");
    return ns ? ns : "";
}

int ts__wh_namespace_managed(const struct ts_webhook *wh, const char *ns)
{
    if (wh->opts.lookup.namespace_managed)
        return wh->opts.lookup.namespace_managed(wh->opts.lookup.ctx, ns);
    return strcmp(ns, "kube-system") != 0 && strcmp(ns, wh->ns) != 0;
}

void ts__wh_status_json(struct ts_buf *out, int code, const char *reason, const char *message)
{
    cJSON *st = ts_status_new(code, reason, message, NULL);

    ts_json_print(st, TS_JSON_COMPACT, out, NULL);
    cJSON_Delete(st);
}

/* --- the review ------------------------------------------------------------ */

static const cJSON *object_or_null(const cJSON *req, const char *key)
{
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(req, key);

    return cJSON_IsObject(o) ? o : NULL;
}

static const char *str_or(const cJSON *obj, const char *key, const char *dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

    return cJSON_IsString(v) ? v->valuestring : dflt;
}

/* Reads the envelope; returns 0 or denies rs with 400 and returns -1. */
static int parse_request(const cJSON *review, struct ts__wh_req *rq, struct ts__wh_resp *rs)
{
    const char *av = str_or(review, "apiVersion", "");
    const cJSON *req = cJSON_GetObjectItemCaseSensitive(review, "request");

    memset(rq, 0, sizeof(*rq));
    if ((strcmp(av, REVIEW_V1) != 0 && strcmp(av, REVIEW_V1BETA1) != 0) ||
        strcmp(str_or(review, "kind", ""), "AdmissionReview") != 0) {
        ts__wh_deny(rs, 400, "BadRequest",
                    "unsupported review: apiVersion \"%s\", kind \"%s\" (want %s AdmissionReview)",
                    av, str_or(review, "kind", ""), REVIEW_V1);
        return -1;
    }
    if (!cJSON_IsObject(req)) {
        ts__wh_deny(rs, 400, "BadRequest", "AdmissionReview has no request");
        return -1;
    }
    rq->uid = str_or(req, "uid", NULL);
    rq->operation = str_or(req, "operation", "");
    rq->namespace_ = str_or(req, "namespace", "");
    rq->sub_resource = str_or(req, "subResource", "");
    rq->object = object_or_null(req, "object");
    rq->old_object = object_or_null(req, "oldObject");
    if (!rq->uid || !*rq->uid) {
        ts__wh_deny(rs, 400, "BadRequest", "AdmissionReview request.uid is missing");
        return -1;
    }
    return 0;
}

/* Validates what every operation needs before a handler runs. */
static int check_operation(const struct ts__wh_req *rq, struct ts__wh_resp *rs)
{
    static const char *const ops[] = {"CREATE", "UPDATE", "DELETE", "CONNECT"};

    for (size_t i = 0; i < 4; i++) {
        if (ts__wh_op_is(rq, ops[i]))
            break;
        if (i == 3) {
            ts__wh_deny(rs, 400, "BadRequest", "unknown operation \"%s\"", rq->operation);
            return -1;
        }
    }
    if ((ts__wh_op_is(rq, "CREATE") || ts__wh_op_is(rq, "UPDATE")) && !rq->object) {
        ts__wh_deny(rs, 400, "BadRequest", "%s request without an object", rq->operation);
        return -1;
    }
    if (ts__wh_op_is(rq, "UPDATE") && !rq->old_object) {
        ts__wh_deny(rs, 400, "BadRequest", "UPDATE request without an oldObject");
        return -1;
    }
    return 0;
}

static void add_status(cJSON *resp, const struct ts__wh_resp *rs)
{
    cJSON *st = cJSON_AddObjectToObject(resp, "status");

    cJSON_AddItemToObject(st, "metadata", cJSON_CreateObject());
    cJSON_AddStringToObject(st, "status", "Failure");
    cJSON_AddStringToObject(st, "message", rs->message.ptr);
    cJSON_AddStringToObject(st, "reason", rs->reason ? rs->reason : "Forbidden");
    cJSON_AddNumberToObject(st, "code", rs->code);
}

static void add_patch(cJSON *resp, const cJSON *patch)
{
    struct ts_buf text = TS_BUF_INIT, b64 = TS_BUF_INIT;

    ts_json_print(patch, TS_JSON_COMPACT, &text, NULL);
    ts_cert_base64(text.ptr, text.len, &b64);
    cJSON_AddStringToObject(resp, "patchType", "JSONPatch");
    cJSON_AddStringToObject(resp, "patch", b64.ptr);
    ts_buf_release(&text);
    ts_buf_release(&b64);
}

static void write_review(const char *api_version, const char *uid, const struct ts__wh_resp *rs,
                         struct ts_buf *out)
{
    cJSON *rv = cJSON_CreateObject();
    cJSON *resp;

    cJSON_AddStringToObject(rv, "apiVersion", api_version);
    cJSON_AddStringToObject(rv, "kind", "AdmissionReview");
    resp = cJSON_AddObjectToObject(rv, "response");
    cJSON_AddStringToObject(resp, "uid", uid ? uid : "");
    cJSON_AddBoolToObject(resp, "allowed", rs->allowed);
    if (!rs->allowed)
        add_status(resp, rs);
    else if (rs->patch)
        add_patch(resp, rs->patch);
    if (rs->warnings.n) {
        cJSON *w = cJSON_AddArrayToObject(resp, "warnings");

        for (size_t i = 0; i < rs->warnings.n; i++)
            cJSON_AddItemToArray(w, cJSON_CreateString(rs->warnings.items[i]));
    }
    ts_json_print(rv, TS_JSON_COMPACT, out, NULL);
    cJSON_Delete(rv);
}

static void admission(const struct ts_webhook *wh, const struct route *r, const char *body,
                      size_t len, struct ts_buf *out)
{
    struct ts__wh_resp rs = {1, 0, NULL, TS_BUF_INIT, NULL, TS_STRLIST_INIT};
    struct ts__wh_req rq = {0};
    struct ts_err err = {0};
    cJSON *review = NULL;
    const char *av = REVIEW_V1;

    if (ts_json_parse(body, len, &review, &err) != 0 || !cJSON_IsObject(review)) {
        ts__wh_deny(&rs, 400, "BadRequest", "cannot decode AdmissionReview: %s",
                    review ? "not a JSON object" : err.msg);
    } else if (parse_request(review, &rq, &rs) == 0 && check_operation(&rq, &rs) == 0) {
        av = str_or(review, "apiVersion", REVIEW_V1);
        r->fn(wh, &rq, r->kind, &rs);
    } else if (rq.uid == NULL && cJSON_IsObject(cJSON_GetObjectItem(review, "request"))) {
        rq.uid = str_or(cJSON_GetObjectItem(review, "request"), "uid", NULL);
    }
    write_review(av, rq.uid, &rs, out);
    cJSON_Delete(rs.patch);
    ts_buf_release(&rs.message);
    ts_strlist_release(&rs.warnings);
    cJSON_Delete(review);
}

int ts_webhook_handle(const struct ts_webhook *wh, const char *path, const char *body, size_t len,
                      struct ts_buf *out)
{
    const struct route *r;

    if (!path)
        path = "";
    if (path_is(path, "/healthz") || path_is(path, "/readyz")) {
        ts_buf_adds(out, "ok");
        return 200;
    }
    if (len > TS_WEBHOOK_MAX_BODY) {
        ts__wh_status_json(out, 413, "RequestEntityTooLarge",
                           "request entity is too large; limit is 3145728 bytes");
        return 413;
    }
    if (path_is(path, "/convert")) {
        ts__wh_convert(body ? body : "", body ? len : 0, out);
        return 200;
    }
    if (!(r = find_route(path))) {
        ts__wh_status_json(out, 404, "NotFound",
                           "the server could not find the requested resource");
        return 404;
    }
    admission(wh, r, body ? body : "", body ? len : 0, out);
    return 200;
}
