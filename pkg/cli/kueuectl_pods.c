/*
 * kueuectl_pods.c - `kubectl kueue list pods --for TYPE/NAME`
 * (cmd/kueuectl/app/list/list_pods.go): find the object, list the Pods of
 * its kind's label selector (jobframework's PodLabelSelector), and print
 * them as kubectl's pod table (NAME READY STATUS RESTARTS AGE; -o wide adds
 * IP NODE NOMINATED NODE READINESS GATES), -o name|json|yaml one by one.
 * The columns are computed here as kubectl's server-side pod printer
 * computes them (pkg/printers/internalversion printPod), so any server
 * gives the same table.
 */
#include "cli/kueuectl_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cli/get.h"
#include "json/json.h"
#include "kube/client.h"
#include "util/buf.h"
#include "yaml/yaml.h"

/* A kind --for accepts: its words, resource and pod label selector. */
struct for_kind {
    const char *words; /* " job jobs job.batch jobs.batch " */
    struct ts_kube_resource res;
    const char *label;    /* label holding the name; NULL: a Pod's group */
    const char *operator; /* training operator's name, or NULL */
};

#define KF "training.kubeflow.org/job-name"

static const struct for_kind for_kinds[] = {
    {" job jobs job.batch jobs.batch ",
     {"batch", "v1", "jobs", "Job", 1},
     "batch.kubernetes.io/job-name",
     NULL},
    {" pod pods po ", {"", "v1", "pods", "Pod", 1}, NULL, NULL},
    {" jobset jobsets jobset.jobset.x-k8s.io jobsets.jobset.x-k8s.io ",
     {"jobset.x-k8s.io", "v1alpha2", "jobsets", "JobSet", 1},
     "jobset.sigs.k8s.io/jobset-name",
     NULL},
    {" pytorchjob pytorchjobs pytorchjob.kubeflow.org pytorchjobs.kubeflow.org ",
     {"kubeflow.org", "v1", "pytorchjobs", "PyTorchJob", 1},
     KF,
     "pytorchjob-controller"},
    {" tfjob tfjobs tfjob.kubeflow.org tfjobs.kubeflow.org ",
     {"kubeflow.org", "v1", "tfjobs", "TFJob", 1},
     KF,
     "tfjob-controller"},
    {" xgboostjob xgboostjobs xgboostjob.kubeflow.org xgboostjobs.kubeflow.org ",
     {"kubeflow.org", "v1", "xgboostjobs", "XGBoostJob", 1},
     KF,
     "xgboostjob-controller"},
    {" paddlejob paddlejobs paddlejob.kubeflow.org paddlejobs.kubeflow.org ",
     {"kubeflow.org", "v1", "paddlejobs", "PaddleJob", 1},
     KF,
     "paddlejob-controller"},
    {" jaxjob jaxjobs jaxjob.kubeflow.org jaxjobs.kubeflow.org ",
     {"kubeflow.org", "v1", "jaxjobs", "JAXJob", 1},
     KF,
     "jaxjob-controller"},
    {" mpijob mpijobs mpijob.kubeflow.org mpijobs.kubeflow.org ",
     {"kubeflow.org", "v2beta1", "mpijobs", "MPIJob", 1},
     KF,
     "mpi-operator"},
};

/* The kind of a TYPE[.GROUP] word (case-insensitive, as kubectl lowers it). */
static const struct for_kind *for_kind_of(const char *type)
{
    char key[160];
    size_t i;

    key[0] = ' ';
    for (i = 0; type[i] && i + 3 < sizeof(key); i++)
        key[i + 1] = (char)tolower((unsigned char)type[i]);
    key[i + 1] = ' ';
    key[i + 2] = '\0';
    for (i = 0; i < sizeof(for_kinds) / sizeof(for_kinds[0]); i++)
        if (strstr(for_kinds[i].words, key))
            return &for_kinds[i];
    return NULL;
}

int ts__kctl_pod_selector(const char *kind, const cJSON *obj, char *sel, size_t len)
{
    const char *name = ts_json_get_string(obj, "metadata.name");

    for (size_t i = 0; i < sizeof(for_kinds) / sizeof(for_kinds[0]); i++) {
        const struct for_kind *f = &for_kinds[i];

        if (strcmp(f->res.kind, kind))
            continue;
        if (f->label) {
            snprintf(sel, len, "%s=%s%s%s", f->label, name ? name : "",
                     f->operator ? ",training.kubeflow.org/operator-name=" : "",
                     f->operator ? f->operator : "");
            return 0;
        }
        /* pod_controller.go: the pods of its group */
        {
            const cJSON *g = cJSON_GetObjectItemCaseSensitive(ts_json_get(obj, "metadata.labels"),
                                                              "kueue.x-k8s.io/pod-group-name");

            snprintf(sel, len, "kueue.x-k8s.io/pod-group-name=%s",
                     cJSON_IsString(g) ? g->valuestring : "");
        }
        return 0;
    }
    return -1;
}

static const char *str(const cJSON *o, const char *path)
{
    const char *s = ts_json_get_string(o, path);

    return s ? s : "";
}

static long long num(const cJSON *o, const char *path)
{
    int64_t v = 0;

    ts_json_get_i64(ts_json_get(o, path), &v);
    return (long long)v;
}

static int cond_true(const cJSON *pod, const char *type)
{
    const cJSON *c;

    cJSON_ArrayForEach(c, ts_json_get(pod, "status.conditions"))
    {
        if (!strcmp(str(c, "type"), type))
            return !strcmp(str(c, "status"), "True");
    }
    return 0;
}

/* A terminated state's reason, or Signal:N / ExitCode:N. */
static void terminated_reason(const cJSON *t, const char *prefix, char *out, size_t len)
{
    if (*str(t, "reason"))
        snprintf(out, len, "%s%s", prefix, str(t, "reason"));
    else if (num(t, "signal"))
        snprintf(out, len, "%sSignal:%lld", prefix, num(t, "signal"));
    else
        snprintf(out, len, "%sExitCode:%lld", prefix, num(t, "exitCode"));
}

/* The init containers' part of the status; 1 while initializing. */
static int init_status(const cJSON *pod, char *reason, size_t len, long long *restarts,
                       ts_time *last)
{
    const cJSON *st, *t;
    int i = 0, n = cJSON_GetArraySize(ts_json_get(pod, "spec.initContainers"));

    cJSON_ArrayForEach(st, ts_json_get(pod, "status.initContainerStatuses"))
    {
        ts_time at;

        *restarts += num(st, "restartCount");
        if ((t = ts_json_get(st, "lastState.terminated")) &&
            !ts_time_parse(str(t, "finishedAt"), &at) && at > *last)
            *last = at;
        if ((t = ts_json_get(st, "state.terminated")) && !num(t, "exitCode")) {
            i++;
            continue;
        }
        if (t)
            terminated_reason(t, "Init:", reason, len);
        else if (*str(st, "state.waiting.reason") &&
                 strcmp(str(st, "state.waiting.reason"), "PodInitializing"))
            snprintf(reason, len, "Init:%s", str(st, "state.waiting.reason"));
        else
            snprintf(reason, len, "Init:%d/%d", i, n);
        return 1;
    }
    return 0;
}

void ts__kctl_pod_columns(const cJSON *pod, ts_time now, int wide, char cells[][64])
{
    const cJSON *st, *arr = ts_json_get(pod, "status.containerStatuses");
    char reason[64];
    long long restarts = 0;
    int ready = 0, total = cJSON_GetArraySize(ts_json_get(pod, "spec.containers")), running = 0;
    ts_time last = 0;

    snprintf(reason, sizeof(reason), "%s",
             *str(pod, "status.reason") ? str(pod, "status.reason") : str(pod, "status.phase"));
    cJSON_ArrayForEach(st, ts_json_get(pod, "status.conditions"))
    {
        if (!strcmp(str(st, "type"), "PodScheduled") &&
            !strcmp(str(st, "reason"), "SchedulingGated"))
            snprintf(reason, sizeof(reason), "SchedulingGated");
    }
    if (!init_status(pod, reason, sizeof(reason), &restarts, &last) ||
        cond_true(pod, "Initialized")) {
        restarts = 0;
        /* printPod walks the statuses from the last one */
        for (int i = cJSON_GetArraySize(arr) - 1; i >= 0; i--) {
            const cJSON *t;
            ts_time at;

            st = cJSON_GetArrayItem(arr, i);
            restarts += num(st, "restartCount");
            if ((t = ts_json_get(st, "lastState.terminated")) &&
                !ts_time_parse(str(t, "finishedAt"), &at) && at > last)
                last = at;
            t = ts_json_get(st, "state.terminated");
            if (*str(st, "state.waiting.reason"))
                snprintf(reason, sizeof(reason), "%s", str(st, "state.waiting.reason"));
            else if (t)
                terminated_reason(t, "", reason, sizeof(reason));
            else if (cJSON_IsTrue(ts_json_get(st, "ready")) && ts_json_get(st, "state.running"))
                running = 1, ready++;
        }
        if (!strcmp(reason, "Completed") && running)
            snprintf(reason, sizeof(reason), "%s",
                     cond_true(pod, "Ready") ? "Running" : "NotReady");
    }
    if (ts_json_get(pod, "metadata.deletionTimestamp"))
        snprintf(reason, sizeof(reason), "%s",
                 !strcmp(str(pod, "status.reason"), "NodeLost") ? "Unknown" : "Terminating");
    snprintf(cells[0], 64, "%d/%d", ready, total);
    snprintf(cells[1], 64, "%s", reason);
    snprintf(cells[2], 64, "%lld", restarts);
    if (restarts && last) {
        char ago[32];

        ts_cli_human_duration((long long)((now - last) / TS_TIME_SECOND), ago, sizeof(ago));
        snprintf(cells[2], 64, "%lld (%s ago)", restarts, ago);
    }
    if (!wide)
        return;
    snprintf(cells[3], 64, "%s", *str(pod, "status.podIP") ? str(pod, "status.podIP") : "<none>");
    snprintf(cells[4], 64, "%s", *str(pod, "spec.nodeName") ? str(pod, "spec.nodeName") : "<none>");
    snprintf(cells[5], 64, "%s",
             *str(pod, "status.nominatedNodeName") ? str(pod, "status.nominatedNodeName")
                                                   : "<none>");
    if (!cJSON_GetArraySize(ts_json_get(pod, "spec.readinessGates"))) {
        snprintf(cells[6], 64, "<none>");
    } else {
        const cJSON *g;
        int n = 0, ok = 0;

        cJSON_ArrayForEach(g, ts_json_get(pod, "spec.readinessGates"))
        {
            n++;
            ok += cond_true(pod, str(g, "conditionType"));
        }
        snprintf(cells[6], 64, "%d/%d", ok, n);
    }
}

static void no_resources(struct ts__kctl *k)
{
    if (!k->o.all_ns)
        fprintf(k->err, "No resources found in %s namespace.\n", k->ns);
    else
        fprintf(k->err, "No resources found.\n");
}

/* Complete(): the --for object.  Returns 0 with *obj set, 0 with *obj
 * NULL after "No resources found", or 1 (reported). */
static int for_object(struct ts__kctl *k, const struct for_kind **fk, cJSON **obj)
{
    const char *arg = k->o.for_obj, *slash = arg ? strchr(arg, '/') : NULL;
    struct ts_kube_req r = {.verb = TS_KUBE_LIST, .limit = 1};
    char type[128], sel[400], msg[512];
    cJSON *l = NULL, *items;

    *obj = NULL;
    if (!arg)
        return ts__kctl_fail(k, "required flag(s) \"for\" not set");
    if (slash && strchr(slash + 1, '/'))
        return ts__kctl_fail(k, "arguments in resource/name form may not have more than one "
                                "slash");
    if (!slash)
        return ts__kctl_fail(k,
                             "invalid value '%s' used in --for flag; value must be in the format "
                             "TYPE[.API-GROUP]/NAME",
                             arg);
    snprintf(type, sizeof(type), "%.*s", (int)(slash - arg), arg);
    if (!(*fk = for_kind_of(type)))
        return ts__kctl_fail(k, "no matches for /, Resource=%s", type);
    r.res = &(*fk)->res;
    snprintf(sel, sizeof(sel), "metadata.name=%s", slash + 1);
    r.field_selector = sel;
    r.ns = k->o.all_ns ? NULL : k->ns;
    if (ts__kctl_call(k, &r, &l, msg, sizeof(msg)))
        return cJSON_Delete(l), ts__kctl_fail(k, "%s", msg);
    items = ts_json_get(l, "items");
    if (!cJSON_GetArraySize(items)) {
        no_resources(k);
        cJSON_Delete(l);
        return 0;
    }
    *obj = cJSON_DetachItemViaPointer(items, items->child);
    cJSON_Delete(l);
    return 0;
}

static void print_table(struct ts__kctl *k, const cJSON *pods, int wide)
{
    static const char *const h[] = {"NAME", "READY", "STATUS",         "RESTARTS",       "AGE",
                                    "IP",   "NODE",  "NOMINATED NODE", "READINESS GATES"};
    const char *headers[9];
    struct ts__kctl_table t;
    struct timespec ts;
    const cJSON *p;
    size_t n = wide ? 9 : 5;
    ts_time now;

    clock_gettime(CLOCK_REALTIME, &ts);
    now = (ts_time)ts.tv_sec * TS_TIME_SECOND + ts.tv_nsec;
    memcpy(headers, h, sizeof(headers));
    ts__kctl_table_init(&t, headers, n, k->o.all_ns);
    cJSON_ArrayForEach(p, pods)
    {
        char cells[7][64], age[32];
        const char *row[9];
        ts_time created;

        ts__kctl_pod_columns(p, now, wide, cells);
        if (ts_time_parse(str(p, "metadata.creationTimestamp"), &created))
            snprintf(age, sizeof(age), "<unknown>");
        else
            ts_cli_human_duration((long long)((now - created) / TS_TIME_SECOND), age, sizeof(age));
        row[0] = str(p, "metadata.name");
        row[1] = cells[0], row[2] = cells[1], row[3] = cells[2], row[4] = age;
        for (size_t i = 5; i < n; i++)
            row[i] = cells[i - 2];
        ts__kctl_table_add_row(&t, k->o.all_ns ? str(p, "metadata.namespace") : NULL, row);
    }
    ts__kctl_table_print(&t, k->out);
    ts__kctl_table_release(&t);
}

/* -o name|json|yaml: each Pod on its own, as kubectl's printers do. */
static int print_each(struct ts__kctl *k, const cJSON *pods)
{
    const char *o = k->o.output;
    const cJSON *p;
    int first = 1;

    if (strcmp(o, "name") && strcmp(o, "json") && strcmp(o, "yaml"))
        return ts__kctl_fail(k, "turnstile: -o %s is not implemented yet for list pods", o);
    cJSON_ArrayForEach(p, pods)
    {
        struct ts_buf b = TS_BUF_INIT;

        if (!strcmp(o, "name")) {
            fprintf(k->out, "pod/%s\n", str(p, "metadata.name"));
            continue;
        }
        if (*o == 'y') {
            cJSON *copy = cJSON_Duplicate(p, 1);

            cJSON_AddStringToObject(copy, "apiVersion", "v1");
            cJSON_AddStringToObject(copy, "kind", "Pod");
            cJSON_DeleteItemFromObjectCaseSensitive(ts_json_get(copy, "metadata"), "managedFields");
            ts_yaml_encode(copy, TS_YAML_SORT_KEYS, &b, NULL);
            cJSON_Delete(copy);
            fprintf(k->out, "%s%s", first ? "" : "---\n", b.ptr);
        } else {
            ts_json_print(p, TS_JSON_PRETTY, &b, NULL);
            fprintf(k->out, "%s\n", b.ptr);
        }
        first = 0;
        ts_buf_release(&b);
    }
    return 0;
}

int ts__kctl_list_pods(struct ts__kctl *k)
{
    struct ts_kube_req r = {.verb = TS_KUBE_LIST, .res = &ts_kube_res_pods};
    const struct for_kind *fk = NULL;
    char sel[512], all[1024], msg[512];
    cJSON *obj = NULL, *l = NULL, *pods;
    int rc;

    if ((rc = for_object(k, &fk, &obj)) || !obj)
        return rc;
    if (ts__kctl_pod_selector(fk->res.kind, obj, sel, sizeof(sel))) {
        cJSON_Delete(obj);
        return ts__kctl_fail(k, "unsupported kind: %s", fk->res.kind);
    }
    cJSON_Delete(obj);
    snprintf(all, sizeof(all), "%s%s%s", k->o.selector ? k->o.selector : "",
             k->o.selector ? "," : "", sel);
    r.ns = k->o.all_ns ? NULL : k->ns;
    r.label_selector = all;
    r.field_selector = k->o.field_selector;
    if (ts__kctl_call(k, &r, &l, msg, sizeof(msg)))
        return cJSON_Delete(l), ts__kctl_fail(k, "%s", msg);
    pods = ts_json_get(l, "items");
    if (!cJSON_GetArraySize(pods))
        no_resources(k);
    else if (k->o.output && strcmp(k->o.output, "wide"))
        rc = print_each(k, pods);
    else
        print_table(k, pods, k->o.output != NULL);
    cJSON_Delete(l);
    return rc;
}
