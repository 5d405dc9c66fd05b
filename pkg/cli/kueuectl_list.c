/*
 * kueuectl_list.c - `kubectl kueue list clusterqueue|localqueue|workload|
 * resourceflavor` (cmd/kueuectl/app/list/list_*.go): list with the label
 * and field selectors, filter as kueuectl does (--active, --clusterqueue,
 * --localqueue, --status, --for), then print the table of
 * kueuectl_print.c or the list as -o json|yaml|name.
 */
#include "cli/kueuectl_int.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "json/json.h"
#include "kube/client.h"
#include "util/buf.h"
#include "util/parse.h"

static const struct ts_kube_resource visibility_cqs = {"visibility.kueue.x-k8s.io", "v1beta2",
                                                       "clusterqueues", "ClusterQueue", 0};

static const struct ts_kube_resource *res_of(enum ts__kctl_kind kind)
{
    switch (kind) {
    case TS__KCTL_CQ:
        return &ts_kube_res_clusterqueues;
    case TS__KCTL_LQ:
        return &ts_kube_res_localqueues;
    case TS__KCTL_WL:
        return &ts_kube_res_workloads;
    case TS__KCTL_RF:
        break;
    }
    return &ts_kube_res_resourceflavors;
}

/* --status values (list_workload.go getWorkloadStatuses); "" = all. */
static int check_statuses(struct ts__kctl *k)
{
    for (size_t i = 0; i < k->o.n_status; i++)
        if (strcasecmp(k->o.status[i], "all") && strcasecmp(k->o.status[i], "pending") &&
            strcasecmp(k->o.status[i], "quotareserved") && strcasecmp(k->o.status[i], "admitted") &&
            strcasecmp(k->o.status[i], "finished"))
            return ts__kctl_fail(k,
                                 "invalid status value (%s). Must be \"all\", \"pending\", "
                                 "\"admitted\" or \"finished\"",
                                 k->o.status[i]);
    return 0;
}

static int status_wanted(const struct ts__kctl *k, const cJSON *wl)
{
    const char *s = ts__kctl_wl_status(wl);

    if (!k->o.n_status)
        return 1;
    for (size_t i = 0; i < k->o.n_status; i++)
        if (!strcasecmp(k->o.status[i], "all") || !strcasecmp(k->o.status[i], s))
            return 1;
    return 0;
}

/* strconv.ParseBool; -1 when it is not a boolean. */
static int parse_bool(const char *s)
{
    static const char *const t[] = {"1", "t", "T", "TRUE", "true", "True"};
    static const char *const f[] = {"0", "f", "F", "FALSE", "false", "False"};

    for (size_t i = 0; i < 6; i++) {
        if (!strcmp(s, t[i]))
            return 1;
        if (!strcmp(s, f[i]))
            return 0;
    }
    return -1;
}

/* --active (list_clusterqueue.go): -1 no filter, 0 or 1; -2 on error. */
static int active_filter(struct ts__kctl *k)
{
    int v = -1;

    for (size_t i = 0; i < k->o.n_active; i++) {
        const char *s = k->o.active[i];

        while (*s) {
            size_t n = strcspn(s, ",");
            char one[16];

            snprintf(one, sizeof(one), "%.*s", (int)n, s);
            if ((v = parse_bool(one)) < 0)
                return ts__kctl_fail(k,
                                     "invalid argument \"%s\" for \"--active\" flag: "
                                     "strconv.ParseBool: parsing \"%s\": invalid syntax",
                                     k->o.active[i], one),
                       -2;
            s += n + (s[n] == ',');
        }
    }
    if (k->o.n_active > 1 || (k->o.n_active && strchr(k->o.active[0], ',')))
        return ts__kctl_fail(k, "only one active flag can be provided"), -2;
    return v;
}

struct owner {
    const char *uid;
    int by_ref; /* filter by ownerReferences (no Workload carries the job-uid label) */
};

static int keep(struct ts__kctl *k, enum ts__kctl_kind kind, const cJSON *it, int active,
                const struct owner *own)
{
    const char *v;
    const cJSON *ref;
    int found = 0;

    if (kind == TS__KCTL_CQ)
        return active < 0 || ts__kctl_cq_active(it) == active;
    if (kind == TS__KCTL_LQ)
        return !k->o.cq ||
               ((v = ts_json_get_string(it, "spec.clusterQueue")) && !strcmp(v, k->o.cq));
    if (kind != TS__KCTL_WL)
        return 1;
    if (k->o.lq && (!(v = ts_json_get_string(it, "spec.queueName")) || strcmp(v, k->o.lq)))
        return 0;
    if (k->o.cq &&
        (!(v = ts_json_get_string(it, "status.admission.clusterQueue")) || strcmp(v, k->o.cq)))
        return 0;
    if (!status_wanted(k, it))
        return 0;
    if (!own->by_ref)
        return 1;
    cJSON_ArrayForEach(ref, ts_json_get(it, "metadata.ownerReferences"))
    {
        v = ts_json_get_string(ref, "uid");
        found |= v && !strcmp(v, own->uid);
    }
    return found;
}

static void filter(struct ts__kctl *k, enum ts__kctl_kind kind, cJSON *items, int active,
                   const struct owner *own)
{
    cJSON *it = items ? items->child : NULL;

    while (it) {
        cJSON *next = it->next;

        if (!keep(k, kind, it, active, own))
            cJSON_Delete(cJSON_DetachItemViaPointer(items, it));
        it = next;
    }
}

/* The ClusterQueue of each pending Workload's LocalQueue, for Workloads
 * without an admission ("ns/lq" -> "cq"), as list_workload.go's
 * localQueues(). */
static int lq_map(struct ts__kctl *k, const cJSON *items, cJSON *map, char *msg, size_t len)
{
    const cJSON *wl;

    cJSON_ArrayForEach(wl, items)
    {
        const char *ns = ts_json_get_string(wl, "metadata.namespace"),
                   *q = ts_json_get_string(wl, "spec.queueName");
        struct ts_kube_req r = {.verb = TS_KUBE_GET, .res = &ts_kube_res_localqueues};
        char key[512];
        cJSON *lq = NULL;
        int rc;

        if (ts_json_get_string(wl, "status.admission.clusterQueue") || !ns || !q)
            continue;
        snprintf(key, sizeof(key), "%s/%s", ns, q);
        if (cJSON_GetObjectItemCaseSensitive(map, key))
            continue;
        r.ns = ns;
        r.name = q;
        rc = ts__kctl_call(k, &r, &lq, msg, len);
        if (rc && rc != TS_ENOTFOUND)
            return rc;
        q = ts_json_get_string(lq, "spec.clusterQueue");
        cJSON_AddItemToObject(map, key, q ? cJSON_CreateString(q) : cJSON_CreateNull());
        cJSON_Delete(lq);
    }
    return 0;
}

/* Positions of the pending Workloads in their LocalQueues, from the
 * visibility API's pendingworkloads of their ClusterQueue (list_workload.go
 * pendingWorkloads(); a ClusterQueue it does not know is skipped). */
static int positions(struct ts__kctl *k, const cJSON *items, const cJSON *map, cJSON *pos,
                     char *msg, size_t len)
{
    cJSON *seen = cJSON_CreateObject();
    const cJSON *wl, *p;
    int rc = 0;

    cJSON_ArrayForEach(wl, items)
    {
        const char *cq = ts_json_get_string(wl, "status.admission.clusterQueue");
        struct ts_kube_req r = {.verb = TS_KUBE_GET, .res = &visibility_cqs};
        char key[512];
        cJSON *sum = NULL;

        snprintf(key, sizeof(key), "%s/%s", ts_json_get_string(wl, "metadata.namespace"),
                 ts_json_get_string(wl, "spec.queueName"));
        if (!cq && cJSON_IsString(p = cJSON_GetObjectItemCaseSensitive(map, key)))
            cq = p->valuestring;
        if (strcmp(ts__kctl_wl_status(wl), "pending") || !cq ||
            cJSON_GetObjectItemCaseSensitive(seen, cq))
            continue;
        cJSON_AddTrueToObject(seen, cq);
        r.name = cq;
        r.subresource = "pendingworkloads";
        if ((rc = ts__kctl_call(k, &r, &sum, msg, len)) && rc != TS_ENOTFOUND)
            break;
        rc = 0;
        cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(sum, "items"))
        {
            int64_t n = 0;

            snprintf(key, sizeof(key), "%s/%s", ts_json_get_string(p, "metadata.namespace"),
                     ts_json_get_string(p, "metadata.name"));
            ts_json_get_i64(cJSON_GetObjectItemCaseSensitive(p, "positionInLocalQueue"), &n);
            cJSON_DeleteItemFromObjectCaseSensitive(pos, key);
            cJSON_AddNumberToObject(pos, key, (double)n);
        }
        cJSON_Delete(sum);
    }
    cJSON_Delete(seen);
    return rc;
}

/* --for TYPE/NAME (list_workload.go Complete): the object's uid, or 1
 * when kueuectl would print "No resources found" and stop. */
static int for_object(struct ts__kctl *k, struct owner *own, cJSON **keep_alive)
{
    const char *arg = k->o.for_obj, *slash = strchr(arg, '/');
    struct ts_kube_req r = {.verb = TS_KUBE_LIST, .res = &ts_kube_res_jobs, .limit = 1};
    char type[128], sel[400], msg[512];
    cJSON *l = NULL;
    int rc;

    if (slash && strchr(slash + 1, '/'))
        return ts__kctl_fail(k, "arguments in resource/name form may not have more than one "
                                "slash");
    if (!slash)
        return ts__kctl_fail(k, "--for must be in resource/name form");
    snprintf(type, sizeof(type), "%.*s", (int)(slash - arg), arg);
    if (!strcmp(type, "pod") || !strcmp(type, "pods") || !strcmp(type, "po"))
        r.res = &ts_kube_res_pods;
    else if (strcmp(type, "job") && strcmp(type, "jobs") && strcmp(type, "job.batch") &&
             strcmp(type, "jobs.batch"))
        return ts__kctl_fail(k,
                             "turnstile: --for %s/NAME is not implemented yet (jobs and pods "
                             "are)",
                             type);
    snprintf(sel, sizeof(sel), "metadata.name=%s", slash + 1);
    r.field_selector = sel;
    r.ns = k->o.all_ns ? NULL : k->ns;
    if ((rc = ts__kctl_call(k, &r, &l, msg, sizeof(msg))))
        return cJSON_Delete(l), ts__kctl_fail(k, "%s", msg);
    if (!cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(l, "items"))) {
        if (!k->o.all_ns)
            fprintf(k->err, "No resources found in %s namespace.\n", k->ns);
        else
            fprintf(k->err, "No resources found\n");
        cJSON_Delete(l);
        return -1;
    }
    own->uid = ts_json_get_string(
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(l, "items"), 0), "metadata.uid");
    *keep_alive = l;
    return own->uid ? 0 : ts__kctl_fail(k, "%s has no uid", arg);
}

static const char *const list_kinds[] = {"ClusterQueueList", "LocalQueueList", "WorkloadList",
                                         "ResourceFlavorList"};
static const char *const singular[] = {"clusterqueue", "localqueue", "workload", "resourceflavor"};

static int print_list(struct ts__kctl *k, enum ts__kctl_kind kind, cJSON *l, const cJSON *map,
                      const cJSON *pos)
{
    cJSON *items = cJSON_GetObjectItemCaseSensitive(l, "items"), *it;
    const char *const *headers;
    struct ts__kctl_table t;
    struct timespec ts;
    ts_time now;
    size_t n = 0;

    if (k->o.output && strcmp(k->o.output, "name")) {
        cJSON_DeleteItemFromObjectCaseSensitive(l, "apiVersion");
        cJSON_DeleteItemFromObjectCaseSensitive(l, "kind");
        cJSON_AddStringToObject(l, "apiVersion", "kueue.x-k8s.io/v1beta2");
        cJSON_AddStringToObject(l, "kind", list_kinds[kind]);
        return ts__kctl_print_obj(k, l, "", "");
    }
    if (k->o.output) {
        cJSON_ArrayForEach(it, items)
        {
            ts__kctl_print_obj(k, it, singular[kind], "");
        }
        return 0;
    }
    clock_gettime(CLOCK_REALTIME, &ts);
    now = (ts_time)ts.tv_sec * TS_TIME_SECOND + ts.tv_nsec;
    headers = ts__kctl_headers(kind, &n);
    ts__kctl_table_init(&t, headers, n, k->o.all_ns && kind != TS__KCTL_CQ && kind != TS__KCTL_RF);
    cJSON_ArrayForEach(it, items)
    {
        ts__kctl_table_add(&t, kind, it, map, pos, now);
    }
    ts__kctl_table_print(&t, k->out);
    ts__kctl_table_release(&t);
    return 0;
}

/* KUEUECTL_LIST_REQUEST_LIMIT, default 100 (list/helpers.go). */
static int page_limit(long *limit)
{
    const char *env = getenv("KUEUECTL_LIST_REQUEST_LIMIT");
    int64_t v = 100;

    if (env && *env && ts_parse_i64_c(env, &v))
        return -1;
    *limit = (long)v;
    return 0;
}

/* Fetches the list, retrying without the job-uid label when --for found
 * no Workload carrying it (kueuectl's owner-reference fallback). */
static int fetch(struct ts__kctl *k, struct ts_kube_req *r, struct owner *own, char *sel,
                 size_t len, cJSON **l, char *msg, size_t mlen)
{
    int rc;

    if (own->uid) {
        snprintf(sel, len, "%s%skueue.x-k8s.io/job-uid=%s", k->o.selector ? k->o.selector : "",
                 k->o.selector ? "," : "", own->uid);
        r->label_selector = sel;
    }
    rc = ts__kctl_call(k, r, l, msg, mlen);
    if (rc || !own->uid || cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(*l, "items")))
        return rc;
    cJSON_Delete(*l);
    own->by_ref = 1;
    r->label_selector = k->o.selector;
    return ts__kctl_call(k, r, l, msg, mlen);
}

int ts__kctl_list(struct ts__kctl *k, enum ts__kctl_kind kind)
{
    const struct ts_kube_resource *res = res_of(kind);
    struct ts_kube_req r = {.verb = TS_KUBE_LIST, .res = res};
    struct owner own = {NULL, 0};
    cJSON *l = NULL, *job = NULL, *map = cJSON_CreateObject(), *pos = cJSON_CreateObject();
    char msg[512], sel[1024];
    int active = -1, rc = 0;

    if (page_limit(&r.limit))
        rc = ts__kctl_fail(k, "invalid list request limit");
    else if ((kind == TS__KCTL_WL && check_statuses(k)) ||
             (kind == TS__KCTL_CQ && (active = active_filter(k)) == -2))
        rc = 1;
    else if (kind == TS__KCTL_WL && k->o.for_obj && (rc = for_object(k, &own, &job)))
        rc = rc < 0 ? 0 : rc;
    else {
        r.ns = res->namespaced && !k->o.all_ns ? k->ns : NULL;
        r.label_selector = k->o.selector;
        r.field_selector = k->o.field_selector;
        if (fetch(k, &r, &own, sel, sizeof(sel), &l, msg, sizeof(msg)))
            rc = ts__kctl_fail(k, "%s", msg);
    }
    if (!rc && l) {
        cJSON *items = cJSON_GetObjectItemCaseSensitive(l, "items");

        filter(k, kind, items, active, &own);
        if (kind == TS__KCTL_WL && (lq_map(k, items, map, msg, sizeof(msg)) ||
                                    positions(k, items, map, pos, msg, sizeof(msg))))
            rc = ts__kctl_fail(k, "%s", msg);
        else
            rc = print_list(k, kind, l, map, pos);
        if (!rc && !cJSON_GetArraySize(items)) {
            if (res->namespaced && !k->o.all_ns)
                fprintf(k->err, "No resources found in %s namespace.\n", k->ns);
            else
                fprintf(k->err, "No resources found\n");
        }
    }
    cJSON_Delete(l);
    cJSON_Delete(job);
    cJSON_Delete(map);
    cJSON_Delete(pos);
    return rc;
}
