/*
 * client_req.c - request building (paths, query strings, bodies, content
 * types), the resource table and the blocking helpers of client.h.
 */
#include "kube/client_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/json.h"
#include "util/alloc.h"

/* clang-format off */
const struct ts_kube_resource
    ts_kube_res_namespaces = {"", "v1", "namespaces", "Namespace", 0},
    ts_kube_res_pods = {"", "v1", "pods", "Pod", 1},
    ts_kube_res_events = {"", "v1", "events", "Event", 1},
    ts_kube_res_configmaps = {"", "v1", "configmaps", "ConfigMap", 1},
    ts_kube_res_jobs = {"batch", "v1", "jobs", "Job", 1},
    ts_kube_res_leases = {"coordination.k8s.io", "v1", "leases", "Lease", 1},
    ts_kube_res_workloads = {"kueue.x-k8s.io", "v1beta2", "workloads", "Workload", 1},
    ts_kube_res_clusterqueues = {"kueue.x-k8s.io", "v1beta2", "clusterqueues", "ClusterQueue", 0},
    ts_kube_res_localqueues = {"kueue.x-k8s.io", "v1beta2", "localqueues", "LocalQueue", 1},
    ts_kube_res_resourceflavors = {"kueue.x-k8s.io", "v1beta2", "resourceflavors",
                                   "ResourceFlavor", 0},
    ts_kube_res_cohorts = {"kueue.x-k8s.io", "v1beta2", "cohorts", "Cohort", 0},
    ts_kube_res_workloadpriorityclasses = {"kueue.x-k8s.io", "v1beta2", "workloadpriorityclasses",
                                           "WorkloadPriorityClass", 0},
    ts_kube_res_admissionchecks = {"kueue.x-k8s.io", "v1beta2", "admissionchecks",
                                   "AdmissionCheck", 0},
    ts_kube_res_priorityclasses = {"scheduling.k8s.io", "v1", "priorityclasses",
                                   "PriorityClass", 0},
    ts_kube_res_crds = {"apiextensions.k8s.io", "v1", "customresourcedefinitions",
                        "CustomResourceDefinition", 0},
    ts_kube_res_limitranges = {"", "v1", "limitranges", "LimitRange", 1},
    ts_kube_res_runtimeclasses = {"node.k8s.io", "v1", "runtimeclasses", "RuntimeClass", 0},
    ts_kube_res_provisioningrequestconfigs = {"kueue.x-k8s.io", "v1beta2",
                                              "provisioningrequestconfigs",
                                              "ProvisioningRequestConfig", 0},
    ts_kube_res_provisioningrequests = {"autoscaling.x-k8s.io", "v1", "provisioningrequests",
                                        "ProvisioningRequest", 1},
    ts_kube_res_podtemplates = {"", "v1", "podtemplates", "PodTemplate", 1},
    ts_kube_res_trainingruntimes = {"trainer.kubeflow.org", "v1alpha1", "trainingruntimes",
                                    "TrainingRuntime", 1},
    ts_kube_res_clustertrainingruntimes = {"trainer.kubeflow.org", "v1alpha1",
                                           "clustertrainingruntimes", "ClusterTrainingRuntime", 0};
/* clang-format on */

const char *ts_kube_api_version(const struct ts_kube_resource *res, char *buf, size_t len)
{
    if (!res->group || !res->group[0])
        snprintf(buf, len, "%s", res->version);
    else
        snprintf(buf, len, "%s/%s", res->group, res->version);
    return buf;
}

int ts_kube_verb_writes(enum ts_kube_verb v)
{
    return v == TS_KUBE_CREATE || v == TS_KUBE_UPDATE || v == TS_KUBE_PATCH ||
           v == TS_KUBE_DELETE || v == TS_KUBE_DELETE_COLLECTION;
}

static const char *const verb_names[] = {"get",   "list",   "create", "update",
                                         "patch", "delete", "watch",  "deletecollection"};

void ts__kube_escape(struct ts_buf *b, const char *s)
{
    static const char hex[] = "0123456789ABCDEF";

    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;

        if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
            ch == '-' || ch == '.' || ch == '_' || ch == '~') {
            ts_buf_addc(b, (char)ch);
        } else {
            ts_buf_addc(b, '%');
            ts_buf_addc(b, hex[ch >> 4]);
            ts_buf_addc(b, hex[ch & 15]);
        }
    }
}

/* A path segment must not smuggle '/', '?' or '#' into the URL. */
static int bad_segment(const char *s)
{
    return !s[0] || strpbrk(s, "/?#%") || !strcmp(s, ".") || !strcmp(s, "..");
}

static int check_names(const struct ts_kube_req *r, struct ts_err *err)
{
    const char *v = verb_names[r->verb];

    if (!r->res || !r->res->version || !r->res->resource)
        return ts_err_set(err, TS_EINVAL, "%s: no resource given", v);
    if (r->ns && bad_segment(r->ns))
        return ts_err_set(err, TS_EINVAL, "%s %s: invalid namespace '%s'", v, r->res->resource,
                          r->ns);
    if (r->name && bad_segment(r->name))
        return ts_err_set(err, TS_EINVAL, "%s %s: invalid name '%s'", v, r->res->resource, r->name);
    if (r->subresource && bad_segment(r->subresource))
        return ts_err_set(err, TS_EINVAL, "%s %s: invalid subresource", v, r->res->resource);
    if (r->res->namespaced && !r->ns && r->verb != TS_KUBE_LIST && r->verb != TS_KUBE_WATCH)
        return ts_err_set(err, TS_EINVAL, "%s %s: namespace required", v, r->res->resource);
    return 0;
}

int ts_kube_path(const struct ts_kube_req *r, struct ts_buf *out, struct ts_err *err)
{
    int rc;
    int collection = r->verb == TS_KUBE_LIST || r->verb == TS_KUBE_WATCH ||
                     r->verb == TS_KUBE_CREATE || r->verb == TS_KUBE_DELETE_COLLECTION;

    if ((rc = check_names(r, err)))
        return rc;
    if (r->verb == TS_KUBE_DELETE_COLLECTION && r->name)
        return ts_err_set(err, TS_EINVAL, "%s %s: a collection has no name (use delete)",
                          verb_names[r->verb], r->res->resource);
    if (!collection && !r->name)
        return ts_err_set(err, TS_EINVAL, "%s %s: name required", verb_names[r->verb],
                          r->res->resource);
    if (!r->res->group || !r->res->group[0])
        ts_buf_addf(out, "/api/%s", r->res->version);
    else
        ts_buf_addf(out, "/apis/%s/%s", r->res->group, r->res->version);
    if (r->res->namespaced && r->ns)
        ts_buf_addf(out, "/namespaces/%s", r->ns);
    ts_buf_addf(out, "/%s", r->res->resource);
    if (!collection || (r->verb == TS_KUBE_CREATE && r->subresource && r->name))
        ts_buf_addf(out, "/%s", r->name);
    if (r->subresource && (!collection || r->name))
        ts_buf_addf(out, "/%s", r->subresource);
    return 0;
}

static void add_param(struct ts_buf *b, const char *key, const char *val)
{
    if (!val)
        return;
    ts_buf_addc(b, strchr(b->ptr, '?') ? '&' : '?');
    ts_buf_addf(b, "%s=", key);
    ts__kube_escape(b, val);
}

static void add_query(const struct ts_kube_req *r, struct ts_buf *b)
{
    char num[32];

    if (r->verb == TS_KUBE_LIST || r->verb == TS_KUBE_WATCH ||
        r->verb == TS_KUBE_DELETE_COLLECTION) {
        add_param(b, "labelSelector", r->label_selector);
        add_param(b, "fieldSelector", r->field_selector);
        add_param(b, "resourceVersion", r->resource_version);
    }
    if (r->verb == TS_KUBE_WATCH) {
        add_param(b, "watch", "true");
        add_param(b, "allowWatchBookmarks", r->bookmarks ? "true" : NULL);
        snprintf(num, sizeof(num), "%ld", r->timeout_seconds);
        add_param(b, "timeoutSeconds", r->timeout_seconds > 0 ? num : NULL);
    }
    if (ts_kube_verb_writes(r->verb) && r->verb != TS_KUBE_DELETE &&
        r->verb != TS_KUBE_DELETE_COLLECTION)
        add_param(b, "fieldManager", r->field_manager);
    if (r->verb == TS_KUBE_PATCH && r->patch == TS_KUBE_PATCH_APPLY)
        add_param(b, "force", r->force ? "true" : "false");
    if (ts_kube_verb_writes(r->verb))
        add_param(b, "dryRun", r->dry_run);
}

static cJSON *delete_options(const struct ts_kube_req *r)
{
    cJSON *o = cJSON_CreateObject(), *pre;

    cJSON_AddStringToObject(o, "kind", "DeleteOptions");
    cJSON_AddStringToObject(o, "apiVersion", "v1");
    if (r->propagation)
        cJSON_AddStringToObject(o, "propagationPolicy", r->propagation);
    if (r->has_grace)
        cJSON_AddNumberToObject(o, "gracePeriodSeconds", (double)r->grace_seconds);
    if (r->precondition_uid || r->precondition_rv) {
        pre = cJSON_AddObjectToObject(o, "preconditions");
        if (r->precondition_uid)
            cJSON_AddStringToObject(pre, "uid", r->precondition_uid);
        if (r->precondition_rv)
            cJSON_AddStringToObject(pre, "resourceVersion", r->precondition_rv);
    }
    if (r->dry_run)
        cJSON_AddItemToObject(o, "dryRun", cJSON_CreateStringArray(&r->dry_run, 1));
    return o;
}

static const char *patch_type(enum ts_kube_patch p)
{
    switch (p) {
    case TS_KUBE_PATCH_JSON:
        return "application/json-patch+json";
    case TS_KUBE_PATCH_STRATEGIC:
        return "application/strategic-merge-patch+json";
    case TS_KUBE_PATCH_APPLY:
        return "application/apply-patch+yaml";
    default:
        return "application/merge-patch+json";
    }
}

static int build_body(const struct ts_kube_req *r, struct ts_kube_call *call, struct ts_err *err)
{
    static const char *const methods[] = {"GET",   "GET",    "POST", "PUT",
                                          "PATCH", "DELETE", "GET",  "DELETE"};
    cJSON *del = NULL;
    const cJSON *body = r->body;

    call->method = methods[r->verb];
    if (r->verb == TS_KUBE_DELETE || r->verb == TS_KUBE_DELETE_COLLECTION)
        body = del = delete_options(r);
    else if (!ts_kube_verb_writes(r->verb))
        return 0;
    call->content_type = r->verb == TS_KUBE_PATCH ? patch_type(r->patch) : "application/json";
    if (!body && r->body_text) {
        call->body = ts_xstrndup(r->body_text, r->body_len);
        call->body_len = r->body_len;
        return 0;
    }
    if (!body)
        return ts_err_set(err, TS_EINVAL, "%s %s: body required", verb_names[r->verb],
                          r->res->resource);
    call->body = ts_json_dumps(body, TS_JSON_COMPACT);
    cJSON_Delete(del);
    if (!call->body)
        return ts_err_set(err, TS_EINVAL, "%s %s: body cannot be printed as JSON",
                          verb_names[r->verb], r->res->resource);
    call->body_len = strlen(call->body);
    return 0;
}

int ts__kube_build(struct ts_kube_client *c, const struct ts_kube_req *r, struct ts_kube_call *call,
                   struct ts_err *err)
{
    struct ts_buf b = TS_BUF_INIT;
    int rc;

    (void)c;
    if ((unsigned)r->verb > TS_KUBE_DELETE_COLLECTION)
        return ts_err_set(err, TS_EINVAL, "unknown verb %d", (int)r->verb);
    if ((rc = ts_kube_path(r, &b, err)) || (rc = build_body(r, call, err))) {
        ts_buf_release(&b);
        return rc;
    }
    if (r->verb == TS_KUBE_PATCH && r->patch == TS_KUBE_PATCH_APPLY && !r->field_manager) {
        ts_buf_release(&b);
        return ts_err_set(err, TS_EINVAL, "apply %s: a field manager is required",
                          r->res->resource);
    }
    add_query(r, &b);
    call->path = ts_buf_take(&b);
    call->verb = r->verb;
    call->limit = r->limit;
    call->cont = r->cont ? ts_xstrdup(r->cont) : NULL;
    return 0;
}

char *ts__kube_url(const struct ts_kube_call *call)
{
    struct ts_buf b = TS_BUF_INIT;
    char num[32];

    ts_buf_addf(&b, "%s%s", call->c->base, call->path);
    if (call->verb == TS_KUBE_LIST && call->limit > 0) {
        snprintf(num, sizeof(num), "%ld", call->limit);
        add_param(&b, "limit", num);
        add_param(&b, "continue", call->cont);
    }
    return ts_buf_take(&b);
}

/* --- blocking helpers ------------------------------------------------------ */

struct sync {
    int done, code;
    cJSON *obj;
    struct ts_err *err;
};

static void sync_done(struct ts_kube_client *c, struct ts_kube_result *res, void *data)
{
    struct sync *s = data;

    (void)c;
    s->done = 1;
    s->code = res->code;
    s->obj = res->obj;
    res->obj = NULL;
    if (res->code && s->err)
        *s->err = res->err;
}

static int run_sync(struct ts_kube_client *c, const struct ts_kube_req *r, int all, cJSON **out,
                    struct ts_err *err)
{
    struct sync s = {0, 0, NULL, err};
    struct ts_kube_call *call = NULL;
    int rc = all ? ts_kube_list_all(c, r, sync_done, &s, &call, err)
                 : ts_kube_submit(c, r, sync_done, &s, &call, err);

    if (rc)
        return rc;
    while (!s.done && !ts_loop_stopped(c->loop))
        ts_loop_run_once(c->loop, -1);
    /* a SIGTERM handled while we waited: a request that retries (a server
     * down, a 401) must not keep the process from stopping */
    if (!s.done) {
        ts_kube_cancel(call);
        return ts_err_set(err, TS_ECANCELED, "%s: the event loop was stopped",
                          r->res ? r->res->resource : "request");
    }
    if (out)
        *out = s.obj;
    else
        cJSON_Delete(s.obj);
    return s.code;
}

int ts_kube_do(struct ts_kube_client *c, const struct ts_kube_req *r, cJSON **out,
               struct ts_err *err)
{
    return run_sync(c, r, 0, out, err);
}

int ts_kube_list_sync(struct ts_kube_client *c, const struct ts_kube_req *r, cJSON **out,
                      struct ts_err *err)
{
    return run_sync(c, r, 1, out, err);
}

int ts_kube_get_sync(struct ts_kube_client *c, const struct ts_kube_resource *res, const char *ns,
                     const char *name, cJSON **out, struct ts_err *err)
{
    struct ts_kube_req r = {.verb = TS_KUBE_GET, .res = res, .ns = ns, .name = name};

    return run_sync(c, &r, 0, out, err);
}

int ts_kube_create_sync(struct ts_kube_client *c, const struct ts_kube_resource *res,
                        const char *ns, const cJSON *obj, cJSON **out, struct ts_err *err)
{
    struct ts_kube_req r = {.verb = TS_KUBE_CREATE, .res = res, .ns = ns, .body = obj};

    return run_sync(c, &r, 0, out, err);
}

int ts_kube_delete_sync(struct ts_kube_client *c, const struct ts_kube_resource *res,
                        const char *ns, const char *name, struct ts_err *err)
{
    struct ts_kube_req r = {
        .verb = TS_KUBE_DELETE, .res = res, .ns = ns, .name = name, .propagation = "Background"};

    return run_sync(c, &r, 0, NULL, err);
}
