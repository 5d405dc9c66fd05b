/*
 * get.c - `turnstilectl get` (see get.h): a small user of pkg/kube.
 */
#include "cli/get.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "json/json.h"
#include "kube/client.h"
#include "kube/kubeconfig.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/time.h"
#include "yaml/yaml.h"

#define USAGE                                                                                      \
    "usage: turnstilectl get RESOURCE [NAME] [-A | -n NAMESPACE] [-l SELECTOR]\n"                  \
    "                        [-o wide|name|json|yaml] [--kubeconfig FILE] [--context NAME]\n"      \
    "resources: workloads (wl), clusterqueues (cq), localqueues (lq), resourceflavors (rf),\n"     \
    "           cohorts, workloadpriorityclasses (wpc), admissionchecks, jobs, pods,\n"            \
    "           namespaces (ns), events (ev), leases, configmaps (cm)\n"

/* A printed column: header and the field path (a condition type when the
 * path starts with '?'). */
struct col {
    const char *header, *path;
};

struct kind {
    const char *names; /* "plural singular short" */
    const struct ts_kube_resource *res;
    struct col cols[4];
};

static const struct kind kinds[] = {
    {" workloads workload wl ",
     &ts_kube_res_workloads,
     {{"QUEUE", "spec.queueName"},
      {"RESERVED IN", "status.admission.clusterQueue"},
      {"ADMITTED", "?Admitted"},
      {"FINISHED", "?Finished"}}},
    {" clusterqueues clusterqueue cq ",
     &ts_kube_res_clusterqueues,
     {{"COHORT", "spec.cohortName|spec.cohort"}, {"PENDING WORKLOADS", "status.pendingWorkloads"}}},
    {" localqueues localqueue lq queue queues ",
     &ts_kube_res_localqueues,
     {{"CLUSTERQUEUE", "spec.clusterQueue"},
      {"PENDING WORKLOADS", "status.pendingWorkloads"},
      {"ADMITTED WORKLOADS", "status.admittedWorkloads"}}},
    {" resourceflavors resourceflavor rf flavor flavors ", &ts_kube_res_resourceflavors, {{0}}},
    {" cohorts cohort ", &ts_kube_res_cohorts, {{"PARENT", "spec.parentName"}}},
    {" workloadpriorityclasses workloadpriorityclass wpc ",
     &ts_kube_res_workloadpriorityclasses,
     {{"VALUE", "value"}}},
    {" admissionchecks admissioncheck ",
     &ts_kube_res_admissionchecks,
     {{"CONTROLLER", "spec.controllerName"}}},
    {" jobs job ", &ts_kube_res_jobs, {{"SUSPEND", "spec.suspend"}}},
    {" pods pod po ", &ts_kube_res_pods, {{"STATUS", "status.phase"}}},
    {" namespaces namespace ns ", &ts_kube_res_namespaces, {{"STATUS", "status.phase"}}},
    {" events event ev ",
     &ts_kube_res_events,
     {{"TYPE", "type"},
      {"REASON", "reason"},
      {"OBJECT", "involvedObject.name"},
      {"MESSAGE", "message"}}},
    {" leases lease ", &ts_kube_res_leases, {{"HOLDER", "spec.holderIdentity"}}},
    {" configmaps configmap cm ", &ts_kube_res_configmaps, {{0}}},
};

struct opts {
    const char *resource, *name, *ns, *selector, *output, *kubeconfig, *context;
    int all;
};

const char *ts_cli_human_duration(long long s, char *buf, size_t len)
{
    long long m = s / 60, h = s / 3600, d = s / 86400, y = d / 365;

    if (s < -1)
        snprintf(buf, len, "<invalid>");
    else if (s < 0)
        snprintf(buf, len, "0s");
    else if (s < 120)
        snprintf(buf, len, "%llds", s);
    else if (m < 10)
        snprintf(buf, len, s % 60 ? "%lldm%llds" : "%lldm", m, s % 60);
    else if (m < 180)
        snprintf(buf, len, "%lldm", m);
    else if (h < 8)
        snprintf(buf, len, m % 60 ? "%lldh%lldm" : "%lldh", h, m % 60);
    else if (h < 48)
        snprintf(buf, len, "%lldh", h);
    else if (h < 192)
        snprintf(buf, len, h % 24 ? "%lldd%lldh" : "%lldd", d, h % 24);
    else if (y < 2)
        snprintf(buf, len, "%lldd", d);
    else if (y < 8)
        snprintf(buf, len, d % 365 ? "%lldy%lldd" : "%lldy", y, d % 365);
    else
        snprintf(buf, len, "%lldy", y);
    return buf;
}

static const struct kind *find_kind(const char *name)
{
    char key[96];

    snprintf(key, sizeof(key), " %s ", name);
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
        if (strstr(kinds[i].names, key) ||
            (strchr(name, '.') && !strncmp(name, kinds[i].names + 1, strcspn(name, "."))))
            return &kinds[i];
    return NULL;
}

static int parse(int argc, char **argv, struct opts *o, FILE *err)
{
    memset(o, 0, sizeof(*o));
    o->output = "";
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char **slot = !strcmp(a, "-n") || !strcmp(a, "--namespace")  ? &o->ns
                            : !strcmp(a, "-l") || !strcmp(a, "--selector") ? &o->selector
                            : !strcmp(a, "-o") || !strcmp(a, "--output")   ? &o->output
                            : !strcmp(a, "--kubeconfig")                   ? &o->kubeconfig
                            : !strcmp(a, "--context")                      ? &o->context
                                                                           : NULL;

        if (slot && i + 1 < argc)
            *slot = argv[++i];
        else if (slot || (a[0] == '-' && strcmp(a, "-A") && strcmp(a, "--all-namespaces")))
            return fprintf(err, "turnstilectl get: bad flag '%s'\n%s", a, USAGE), 2;
        else if (a[0] == '-')
            o->all = 1;
        else if (!o->resource)
            o->resource = a;
        else if (!o->name)
            o->name = a;
        else
            return fprintf(err, "turnstilectl get: unexpected '%s'\n%s", a, USAGE), 2;
    }
    if (!o->resource)
        return fprintf(err, "%s", USAGE), 2;
    return 0;
}

/* The text of one cell ("" when missing); "a|b" is a, else b (a field
 * renamed between API versions). */
static void cell(const cJSON *obj, const char *path, char *buf, size_t len)
{
    const cJSON *v, *c;
    const char *bar = strchr(path, '|');

    buf[0] = '\0';
    if (bar) {
        char first[128];

        snprintf(first, sizeof(first), "%.*s", (int)(bar - path), path);
        cell(obj, first, buf, len);
        if (!buf[0])
            cell(obj, bar + 1, buf, len);
        return;
    }
    if (path[0] == '?') {
        cJSON_ArrayForEach(c, ts_json_get(obj, "status.conditions"))
        {
            const char *t = ts_json_get_string(c, "type"), *s = ts_json_get_string(c, "status");

            if (t && s && !strcmp(t, path + 1))
                snprintf(buf, len, "%s", s);
        }
        return;
    }
    v = ts_json_get(obj, path);
    if (cJSON_IsString(v))
        snprintf(buf, len, "%s", v->valuestring);
    else if (cJSON_IsNumber(v))
        snprintf(buf, len, "%.0f", v->valuedouble);
    else if (cJSON_IsBool(v))
        snprintf(buf, len, "%s", cJSON_IsTrue(v) ? "true" : "false");
}

struct table {
    char ***rows;
    size_t n, cap, ncols;
    size_t width[8];
};

static void add_row(struct table *t, char **row)
{
    TS_GROW(t->rows, t->cap, t->n + 1);
    t->rows[t->n++] = row;
    for (size_t c = 0; c < t->ncols; c++)
        if (strlen(row[c]) > t->width[c])
            t->width[c] = strlen(row[c]);
}

static char **make_row(const struct kind *k, const cJSON *obj, int with_ns, time_t now)
{
    char **row = ts_xcalloc(8, sizeof(*row)), buf[512];
    size_t n = 0;
    ts_time created = 0;

    if (with_ns)
        row[n++] = ts_xstrdup(ts_str_c(ts_json_get_string(obj, "metadata.namespace")).ptr
                                  ? ts_json_get_string(obj, "metadata.namespace")
                                  : "");
    row[n++] = ts_xstrdup(
        ts_json_get_string(obj, "metadata.name") ? ts_json_get_string(obj, "metadata.name") : "");
    for (size_t c = 0; c < 4 && k->cols[c].header; c++) {
        cell(obj, k->cols[c].path, buf, sizeof(buf));
        row[n++] = ts_xstrdup(buf);
    }
    if (ts_time_parse(ts_str_c(ts_json_get_string(obj, "metadata.creationTimestamp")).ptr
                          ? ts_json_get_string(obj, "metadata.creationTimestamp")
                          : "",
                      &created))
        row[n++] = ts_xstrdup("<unknown>");
    else
        row[n++] = ts_xstrdup(
            ts_cli_human_duration((long long)now - created / TS_TIME_SECOND, buf, sizeof(buf)));
    return row;
}

static void print_table(const struct kind *k, const cJSON *items, int with_ns, FILE *out)
{
    struct table t = {0};
    char **head = ts_xcalloc(8, sizeof(*head));
    const cJSON *it;
    size_t n = 0;

    if (with_ns)
        head[n++] = ts_xstrdup("NAMESPACE");
    head[n++] = ts_xstrdup("NAME");
    for (size_t c = 0; c < 4 && k->cols[c].header; c++)
        head[n++] = ts_xstrdup(k->cols[c].header);
    head[n++] = ts_xstrdup("AGE");
    t.ncols = n;
    add_row(&t, head);
    cJSON_ArrayForEach(it, items)
    {
        add_row(&t, make_row(k, it, with_ns, time(NULL)));
    }
    for (size_t r = 0; r < t.n; r++) {
        for (size_t c = 0; c < t.ncols; c++) {
            if (c + 1 < t.ncols)
                fprintf(out, "%-*s   ", (int)t.width[c], t.rows[r][c]);
            else
                fprintf(out, "%s\n", t.rows[r][c]);
            free(t.rows[r][c]);
        }
        free(t.rows[r]);
    }
    free(t.rows);
}

static int print(const struct opts *o, const struct kind *k, cJSON *reply, FILE *out, FILE *err)
{
    cJSON *items = o->name ? NULL : cJSON_GetObjectItemCaseSensitive(reply, "items"), *it;
    struct ts_buf b = TS_BUF_INIT;

    if (!strcmp(o->output, "json") || !strcmp(o->output, "yaml")) {
        if (!strcmp(o->output, "json"))
            ts_json_print(reply, TS_JSON_PRETTY, &b, NULL), ts_buf_addc(&b, '\n');
        else
            ts_yaml_encode(reply, 0, &b, NULL);
        fputs(b.ptr, out);
    } else if (!strcmp(o->output, "name")) {
        cJSON_ArrayForEach(it, items)
        {
            fprintf(out, "%s/%s\n", k->res->resource, ts_json_get_string(it, "metadata.name"));
        }
        if (o->name)
            fprintf(out, "%s/%s\n", k->res->resource, o->name);
    } else if (o->output[0] && strcmp(o->output, "wide")) {
        fprintf(err, "turnstilectl get: unknown output format '%s'\n", o->output);
        ts_buf_release(&b);
        return 2;
    } else if (!o->name && !cJSON_GetArraySize(items)) {
        fprintf(err, "No resources found%s%s.\n", o->all || !k->res->namespaced ? "" : " in ",
                o->all || !k->res->namespaced ? "" : o->ns);
    } else {
        cJSON *one = NULL;

        if (o->name) {
            one = cJSON_CreateArray();
            cJSON_AddItemReferenceToArray(one, reply);
        }
        print_table(k, o->name ? one : items, o->all && k->res->namespaced, out);
        cJSON_Delete(one);
    }
    ts_buf_release(&b);
    return 0;
}

static int run(const struct opts *o, const struct kind *k, struct ts_kube_client *c, FILE *out,
               FILE *err)
{
    struct ts_kube_req r = {.verb = o->name ? TS_KUBE_GET : TS_KUBE_LIST,
                            .res = k->res,
                            .name = o->name,
                            .label_selector = o->selector,
                            .limit = 500};
    struct ts_err e = {0};
    cJSON *reply = NULL;
    int rc;

    if (k->res->namespaced && !(o->all && !o->name))
        r.ns = o->ns;
    rc = o->name ? ts_kube_do(c, &r, &reply, &e) : ts_kube_list_sync(c, &r, &reply, &e);
    if (rc == TS_ENOTFOUND && !strcmp(k->res->group, "kueue.x-k8s.io")) {
        /* a Kueue older than v1beta2 (its objects then carry v1beta1 fields) */
        struct ts_kube_resource old = *k->res;

        old.version = "v1beta1";
        r.res = &old;
        cJSON_Delete(reply);
        reply = NULL;
        ts_err_clear(&e);
        rc = o->name ? ts_kube_do(c, &r, &reply, &e) : ts_kube_list_sync(c, &r, &reply, &e);
    }
    if (rc) {
        fprintf(err, "Error from server (%s): %s\n", ts_err_name(rc), e.msg);
        return 1;
    }
    rc = print(o, k, reply, out, err);
    cJSON_Delete(reply);
    return rc;
}

int ts_cli_get(int argc, char **argv, FILE *out, FILE *err)
{
    struct ts_kubeconfig_opts ko = {0};
    struct ts_kubeconfig cfg;
    struct ts_kube_client *c;
    struct ts_loop *loop;
    const struct kind *k;
    struct ts_err e = {0};
    struct opts o;
    int rc;

    if ((rc = parse(argc, argv, &o, err)))
        return rc;
    if (!(k = find_kind(o.resource)))
        return fprintf(err, "error: the server doesn't have a resource type \"%s\"\n%s", o.resource,
                       USAGE),
               2;
    ko.path = o.kubeconfig;
    ko.context = o.context;
    if (ts_kubeconfig_load(&ko, &cfg, &e)) {
        fprintf(err, "error: %s\n", e.msg);
        ts_kubeconfig_release(&cfg);
        return 1;
    }
    if (!o.ns)
        o.ns = cfg.namespace;
    loop = ts_loop_new();
    if (!(c = ts_kube_client_new(loop, &cfg, NULL, &e))) {
        fprintf(err, "error: %s\n", e.msg);
        rc = 1;
    } else {
        rc = run(&o, k, c, out, err);
    }
    ts_kube_client_free(c);
    ts_loop_free(loop);
    ts_kubeconfig_release(&cfg);
    return rc;
}
