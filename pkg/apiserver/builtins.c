/*
 * builtins.c - the built-in resource types with kube-apiserver's scope,
 * short names, categories and Table columns, the seeded namespaces,
 * batch/v1 Job defaulting (kube-apiserver's SetDefaults_Job) and core/v1
 * LimitRange defaulting (SetDefaults_LimitRangeItem).
 */
#include "apiserver/server_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/json.h"
#include "resource/quantity.h"
#include "util/alloc.h"

#define AGE                                                                                        \
    {                                                                                              \
        "Age", "date", ".metadata.creationTimestamp", 0                                            \
    }
#define NCOLS(a) (sizeof(a) / sizeof((a)[0]))

static const struct ts__as_col ns_cols[] = {{"Status", "string", ".status.phase", 0}, AGE};
static const struct ts__as_col job_cols[] = {
    {"Status", "string", "#jobstatus", 0},      {"Completions", "string", "#jobcompletions", 0},
    {"Duration", "string", "#jobduration", 0},  AGE,
    {"Containers", "string", "#containers", 1}, {"Images", "string", "#images", 1},
    {"Selector", "string", "#selector", 1},
};
static const struct ts__as_col cm_cols[] = {{"Data", "integer", "#datacount", 0}, AGE};
static const struct ts__as_col secret_cols[] = {
    {"Type", "string", ".type", 0}, {"Data", "integer", "#datacount", 0}, AGE};
static const struct ts__as_col pc_cols[] = {{"Value", "integer", ".value", 0},
                                            {"Global-Default", "boolean", ".globalDefault", 0},
                                            AGE,
                                            {"PreemptionPolicy", "string", ".preemptionPolicy", 0}};
static const struct ts__as_col lease_cols[] = {{"Holder", "string", ".spec.holderIdentity", 0},
                                               AGE};
static const struct ts__as_col crd_cols[] = {{"Created At", "date", "#createdat", 0}};
static const struct ts__as_col ev_cols[] = {{"Last Seen", "string", "#lastseen", 0},
                                            {"Type", "string", ".type", 0},
                                            {"Reason", "string", ".reason", 0},
                                            {"Object", "string", "#involved", 0},
                                            {"Message", "string", ".message", 0}};
static const struct ts__as_col lr_cols[] = {{"Created At", "date", "#createdat", 0}};
static const struct ts__as_col rtc_cols[] = {{"Handler", "string", ".handler", 0}, AGE};
static const struct ts__as_col hook_cols[] = {{"Webhooks", "integer", "#webhooks", 0}, AGE};

struct builtin {
    const char *group, *version, *resource, *kind;
    int namespaced, kindid, generation, status;
    const char *shorts, *cats; /* comma-separated */
    const struct ts__as_col *cols;
    size_t n_cols;
};

static const struct builtin builtins[] = {
    {"", "v1", "namespaces", "Namespace", 0, TS__AS_NAMESPACE, 0, 1, "ns", "", ns_cols,
     NCOLS(ns_cols)},
    {"", "v1", "events", "Event", 1, TS__AS_EVENT, 0, 0, "ev", "", ev_cols, NCOLS(ev_cols)},
    {"", "v1", "configmaps", "ConfigMap", 1, TS__AS_CONFIGMAP, 0, 0, "cm", "", cm_cols,
     NCOLS(cm_cols)},
    {"", "v1", "secrets", "Secret", 1, TS__AS_SECRET, 0, 0, "", "", secret_cols,
     NCOLS(secret_cols)},
    {"", "v1", "serviceaccounts", "ServiceAccount", 1, 0, 0, 0, "sa", "", NULL, 0},
    {"apiregistration.k8s.io", "v1", "apiservices", "APIService", 0, 0, 0, 1, "", "api-extensions",
     NULL, 0},
    {"events.k8s.io", "v1", "events", "Event", 1, TS__AS_EVENT, 0, 0, "ev", "", NULL, 0},
    {"batch", "v1", "jobs", "Job", 1, TS__AS_JOB, 1, 1, "", "all", job_cols, NCOLS(job_cols)},
    {"scheduling.k8s.io", "v1", "priorityclasses", "PriorityClass", 0, 0, 0, 0, "pc", "", pc_cols,
     NCOLS(pc_cols)},
    {"coordination.k8s.io", "v1", "leases", "Lease", 1, 0, 0, 0, "", "", lease_cols,
     NCOLS(lease_cols)},
    {"apiextensions.k8s.io", "v1", "customresourcedefinitions", "CustomResourceDefinition", 0,
     TS__AS_CRD, 1, 1, "crd,crds", "api-extensions", crd_cols, NCOLS(crd_cols)},
    /* stored only (no controllers behind them), so that a whole install
     * (kubectl apply -k config/default) applies locally as on a cluster */
    {"", "v1", "pods", "Pod", 1, 0, 0, 1, "po", "all", NULL, 0},
    {"", "v1", "services", "Service", 1, 0, 0, 1, "svc", "all", NULL, 0},
    {"apps", "v1", "deployments", "Deployment", 1, 0, 1, 1, "deploy", "all", NULL, 0},
    {"apps", "v1", "statefulsets", "StatefulSet", 1, 0, 1, 1, "sts", "all", NULL, 0},
    {"rbac.authorization.k8s.io", "v1", "roles", "Role", 1, 0, 0, 0, "", "", NULL, 0},
    {"rbac.authorization.k8s.io", "v1", "rolebindings", "RoleBinding", 1, 0, 0, 0, "", "", NULL, 0},
    {"rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole", 0, 0, 0, 0, "", "", NULL, 0},
    {"rbac.authorization.k8s.io", "v1", "clusterrolebindings", "ClusterRoleBinding", 0, 0, 0, 0, "",
     "", NULL, 0},
    {"admissionregistration.k8s.io", "v1", "mutatingwebhookconfigurations",
     "MutatingWebhookConfiguration", 0, 0, 1, 0, "", "api-extensions", hook_cols, NCOLS(hook_cols)},
    {"admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations",
     "ValidatingWebhookConfiguration", 0, 0, 1, 0, "", "api-extensions", hook_cols,
     NCOLS(hook_cols)},
    /* read by the controller: LimitRange defaults and RuntimeClass
     * overhead enter a pod set's requests (nothing enforces them on pods) */
    {"", "v1", "limitranges", "LimitRange", 1, TS__AS_LIMITRANGE, 0, 0, "limits", "", lr_cols,
     NCOLS(lr_cols)},
    {"node.k8s.io", "v1", "runtimeclasses", "RuntimeClass", 0, 0, 0, 0, "", "", rtc_cols,
     NCOLS(rtc_cols)},
    /* written by the controller for ProvisioningRequests (stored only) */
    {"", "v1", "podtemplates", "PodTemplate", 1, 0, 0, 0, "", "", NULL, 0},
};

static void push_csv(struct ts_strlist *l, const char *csv)
{
    while (*csv) {
        const char *c = strchr(csv, ',');
        size_t n = c ? (size_t)(c - csv) : strlen(csv);
        char *s = ts_xstrndup(csv, n);

        ts_strlist_push(l, s);
        free(s);
        csv += n + (c ? 1 : 0);
    }
}

void ts__as_builtins_register(struct ts_apiserver *s)
{
    for (size_t i = 0; i < NCOLS(builtins); i++) {
        const struct builtin *b = &builtins[i];
        struct ts__as_res *res = ts__as_res_new(b->group, b->resource, b->kind, b->namespaced);

        ts__as_res_add_version(res, b->version);
        res->vers[0].has_status = b->status;
        res->kindid = b->kindid;
        res->generation = b->generation;
        res->cols = b->cols;
        res->n_cols = b->n_cols;
        push_csv(&res->short_names, b->shorts);
        push_csv(&res->categories, b->cats);
        ts__as_res_register(s, res);
    }
}

void ts__as_builtins_seed(struct ts_apiserver *s, ts_time now)
{
    static const char *const names[] = {"default", "kube-system", "kube-public", "kube-node-lease"};
    struct ts__as_res *res = ts__as_res_by_kind(s, "", "Namespace");
    char ts[TS_TIME_STR_MAX], uid[37];

    ts_time_format(now, ts, sizeof(ts));
    for (size_t i = 0; i < NCOLS(names); i++) {
        cJSON *ns = cJSON_CreateObject();
        cJSON *md = cJSON_AddObjectToObject(ns, "metadata");

        cJSON_AddStringToObject(ns, "apiVersion", "v1");
        cJSON_AddStringToObject(ns, "kind", "Namespace");
        cJSON_AddStringToObject(md, "name", names[i]);
        ts__as_new_uid(s, uid);
        cJSON_AddStringToObject(md, "uid", uid);
        cJSON_AddStringToObject(md, "creationTimestamp", ts);
        cJSON_AddStringToObject(cJSON_AddObjectToObject(md, "labels"),
                                "kubernetes.io/metadata.name", names[i]);
        cJSON_AddItemToArray(
            cJSON_AddArrayToObject(cJSON_AddObjectToObject(ns, "spec"), "finalizers"),
            cJSON_CreateString("kubernetes"));
        cJSON_AddStringToObject(cJSON_AddObjectToObject(ns, "status"), "phase", "Active");
        ts__as_store_put(s, res, ns);
    }
}

/* --- Job defaulting ------------------------------------------------------ */

static void set_default(cJSON *obj, const char *key, cJSON *v)
{
    if (!cJSON_GetObjectItemCaseSensitive(obj, key))
        cJSON_AddItemToObject(obj, key, v);
    else
        cJSON_Delete(v);
}

static cJSON *obj_member(cJSON *parent, const char *key)
{
    cJSON *v = cJSON_GetObjectItemCaseSensitive(parent, key);

    if (!cJSON_IsObject(v)) {
        cJSON_DeleteItemFromObjectCaseSensitive(parent, key);
        v = cJSON_AddObjectToObject(parent, key);
    }
    return v;
}

static void canon_quantities(cJSON *list)
{
    cJSON *q, *nx;

    for (q = list ? list->child : NULL; q; q = nx) {
        struct ts_quantity qq;
        char buf[TS_QUANTITY_STR_MAX];
        const char *text = cJSON_IsString(q) ? q->valuestring : NULL;
        char num[64];

        nx = q->next;
        if (cJSON_IsNumber(q)) {
            snprintf(num, sizeof(num), "%.17g", q->valuedouble);
            text = num;
        }
        if (!text || ts_quantity_parse_c(text, &qq, NULL))
            continue;
        ts_quantity_format(&qq, buf, sizeof(buf));
        cJSON_ReplaceItemInObjectCaseSensitive(list, q->string, cJSON_CreateString(buf));
    }
}

static void default_container(cJSON *c)
{
    const char *image = ts_json_get_string(c, "image");
    const char *tag = image ? strrchr(image, ':') : NULL;
    int latest = !image || strchr(image, '@') == NULL;
    cJSON *res, *p;

    if (tag && !strchr(tag, '/'))
        latest = latest && !strcmp(tag, ":latest");
    set_default(c, "terminationMessagePath", cJSON_CreateString("/dev/termination-log"));
    set_default(c, "terminationMessagePolicy", cJSON_CreateString("File"));
    set_default(c, "imagePullPolicy", cJSON_CreateString(latest ? "Always" : "IfNotPresent"));
    res = obj_member(c, "resources");
    canon_quantities(cJSON_GetObjectItemCaseSensitive(res, "requests"));
    canon_quantities(cJSON_GetObjectItemCaseSensitive(res, "limits"));
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(c, "ports")) if (cJSON_IsObject(p))
        set_default(p, "protocol", cJSON_CreateString("TCP"));
}

static void default_pod_spec(cJSON *spec)
{
    static const char *const lists[] = {"containers", "initContainers"};
    cJSON *c;

    set_default(spec, "restartPolicy", cJSON_CreateString("Always"));
    set_default(spec, "terminationGracePeriodSeconds", cJSON_CreateNumber(30));
    set_default(spec, "dnsPolicy", cJSON_CreateString("ClusterFirst"));
    set_default(spec, "securityContext", cJSON_CreateObject());
    set_default(spec, "schedulerName", cJSON_CreateString("default-scheduler"));
    for (size_t i = 0; i < 2; i++)
        cJSON_ArrayForEach(c,
                           cJSON_GetObjectItemCaseSensitive(spec, lists[i])) if (cJSON_IsObject(c))
            default_container(c);
}

static void job_selector(cJSON *job, cJSON *spec, cJSON *tmpl_md)
{
    const char *uid = ts_json_get_string(job, "metadata.uid");
    const char *name = ts_json_get_string(job, "metadata.name");
    cJSON *labels = obj_member(tmpl_md, "labels"), *sel;

    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(spec, "manualSelector")) || !uid || !name)
        return;
    cJSON_DeleteItemFromObjectCaseSensitive(labels, "batch.kubernetes.io/controller-uid");
    cJSON_DeleteItemFromObjectCaseSensitive(labels, "batch.kubernetes.io/job-name");
    cJSON_DeleteItemFromObjectCaseSensitive(labels, "controller-uid");
    cJSON_DeleteItemFromObjectCaseSensitive(labels, "job-name");
    cJSON_AddStringToObject(labels, "batch.kubernetes.io/controller-uid", uid);
    cJSON_AddStringToObject(labels, "batch.kubernetes.io/job-name", name);
    cJSON_AddStringToObject(labels, "controller-uid", uid);
    cJSON_AddStringToObject(labels, "job-name", name);
    if (!cJSON_GetObjectItemCaseSensitive(spec, "selector")) {
        sel = cJSON_AddObjectToObject(spec, "selector");
        cJSON_AddStringToObject(cJSON_AddObjectToObject(sel, "matchLabels"),
                                "batch.kubernetes.io/controller-uid", uid);
    }
}

void ts__as_job_default(cJSON *job)
{
    cJSON *spec = obj_member(job, "spec"), *tmpl = obj_member(spec, "template");
    cJSON *tmd = obj_member(tmpl, "metadata"), *md = obj_member(job, "metadata");
    cJSON *tl = cJSON_GetObjectItemCaseSensitive(tmd, "labels");
    int has_c = cJSON_GetObjectItemCaseSensitive(spec, "completions") != NULL;

    if (!has_c && !cJSON_GetObjectItemCaseSensitive(spec, "parallelism"))
        cJSON_AddNumberToObject(spec, "completions", 1);
    set_default(spec, "parallelism", cJSON_CreateNumber(1));
    set_default(spec, "backoffLimit",
                cJSON_CreateNumber(cJSON_GetObjectItemCaseSensitive(spec, "backoffLimitPerIndex")
                                       ? 2147483647.0
                                       : 6.0));
    if (cJSON_IsObject(tl) && tl->child && !cJSON_GetObjectItemCaseSensitive(md, "labels"))
        cJSON_AddItemToObject(md, "labels", cJSON_Duplicate(tl, 1));
    set_default(spec, "completionMode", cJSON_CreateString("NonIndexed"));
    set_default(spec, "suspend", cJSON_CreateFalse());
    set_default(spec, "podReplacementPolicy",
                cJSON_CreateString(cJSON_GetObjectItemCaseSensitive(spec, "podFailurePolicy")
                                       ? "Failed"
                                       : "TerminatingOrFailed"));
    job_selector(job, spec, tmd);
    set_default(tmd, "creationTimestamp", cJSON_CreateNull());
    default_pod_spec(obj_member(tmpl, "spec"));
}

/* --- LimitRange defaulting ---------------------------------------------- */

/* Names of src missing from dst's list `key` are copied there. */
static void fill_missing(cJSON *item, const char *key, const cJSON *src)
{
    const cJSON *q;
    cJSON *dst;

    if (!cJSON_IsObject(src) || !src->child)
        return;
    dst = obj_member(item, key);
    cJSON_ArrayForEach(q, src) if (!cJSON_GetObjectItemCaseSensitive(dst, q->string))
        cJSON_AddItemToObject(dst, q->string, cJSON_Duplicate(q, 1));
}

void ts__as_limitrange_default(cJSON *lr)
{
    static const char *const lists[] = {"max", "min", "default", "defaultRequest",
                                        "maxLimitRequestRatio"};
    cJSON *item;

    cJSON_ArrayForEach(item, ts_json_get(lr, "spec.limits"))
    {
        const char *type = ts_json_get_string(item, "type");

        if (!cJSON_IsObject(item))
            continue;
        for (size_t i = 0; i < NCOLS(lists); i++)
            canon_quantities(cJSON_GetObjectItemCaseSensitive(item, lists[i]));
        if (!type || strcmp(type, "Container"))
            continue;
        /* max -> default, default -> defaultRequest, min -> defaultRequest */
        fill_missing(item, "default", cJSON_GetObjectItemCaseSensitive(item, "max"));
        fill_missing(item, "defaultRequest", cJSON_GetObjectItemCaseSensitive(item, "default"));
        fill_missing(item, "defaultRequest", cJSON_GetObjectItemCaseSensitive(item, "min"));
    }
}
