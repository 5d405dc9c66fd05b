/*
 * kueuectl_cq.c - the ClusterQueue `kubectl kueue create clusterqueue`
 * sends (see kueuectl_int.h), as cmd/kueuectl/app/create/
 * create_clusterqueue.go builds it: the defaults (BestEffortFIFO, Never,
 * Never, an empty namespace selector), and --nominal-quota,
 * --borrowing-limit and --lending-limit ("FLAVOR:RES=Q;RES=Q,FLAVOR2:...")
 * merged first by flavor, then into resource groups by covered resources,
 * with kueuectl's errors.  Pure.
 */
#include "cli/kueuectl_int.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "json/json.h"
#include "resource/quantity.h"
#include "util/alloc.h"

/* parseUserSpecifiedResourceQuotas' pattern in POSIX ERE (Go's \w is
 * [0-9A-Za-z_]); the language is the same, only "matches" is asked. */
#define W         "[0-9A-Za-z_]"
#define RES_SPEC  "(" W "+[.-]?)*/?" W "+=" W "+"
#define QUOTA_ERE "^([a-z0-9][-a-z0-9.]{0,252}):(" RES_SPEC ";)*" RES_SPEC ";?$"

enum quota_type { NOMINAL = 0, BORROWING, LENDING };

static int fail(struct ts_buf *err, const char *msg)
{
    if (err) {
        ts_buf_reset(err);
        ts_buf_adds(err, msg);
    }
    return TS_EINVAL;
}

/* strings.TrimSpace of s[0..n) into out. */
static void trimmed(const char *s, size_t n, char *out, size_t len)
{
    while (n && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r'))
        s++, n--;
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
        n--;
    snprintf(out, len, "%.*s", (int)n, s);
}

/* A ResourceQuota in Go's field order; NULL limits are left out. */
static cJSON *quota_obj(const char *name, const char *nominal, const char *borrow, const char *lend)
{
    cJSON *o = cJSON_CreateObject();

    if (*name)
        cJSON_AddStringToObject(o, "name", name);
    cJSON_AddStringToObject(o, "nominalQuota", nominal);
    if (borrow)
        cJSON_AddStringToObject(o, "borrowingLimit", borrow);
    if (lend)
        cJSON_AddStringToObject(o, "lendingLimit", lend);
    return o;
}

/* toResourceQuota: "RES=Q" into a quota of the given type. */
static int to_quota(const char *spec, size_t n, enum quota_type type, cJSON **out,
                    struct ts_buf *err)
{
    const char *eq = memchr(spec, '=', n);
    char name[512], q[256], canon[TS_QUANTITY_STR_MAX];
    struct ts_quantity qty;

    trimmed(spec, eq ? (size_t)(eq - spec) : n, name, sizeof(name));
    trimmed(eq ? eq + 1 : "", eq ? (size_t)(spec + n - eq - 1) : 0, q, sizeof(q));
    if (ts_quantity_parse_c(q, &qty, NULL))
        return fail(err, "invalid resource quota");
    ts_quantity_format(&qty, canon, sizeof(canon));
    *out = quota_obj(name, type == NOMINAL ? canon : "0", type == BORROWING ? canon : NULL,
                     type == LENDING ? canon : NULL);
    return 0;
}

/* toResourceGroup: one "FLAVOR:RES=Q;..." into a group of one flavor. */
static int to_group(const char *item, enum quota_type type, cJSON **out, struct ts_buf *err)
{
    const char *colon = strchr(item, ':'), *rest = colon ? colon + 1 : "";
    cJSON *g = cJSON_CreateObject(), *cov = cJSON_AddArrayToObject(g, "coveredResources");
    cJSON *fl = cJSON_CreateObject(), *res;
    char name[512];

    trimmed(item, colon ? (size_t)(colon - item) : strlen(item), name, sizeof(name));
    cJSON_AddStringToObject(fl, "name", name);
    res = cJSON_AddArrayToObject(fl, "resources");
    cJSON_AddItemToArray(cJSON_AddArrayToObject(g, "flavors"), fl);
    for (;;) {
        size_t n = strcspn(rest, ";");
        const char *eq = memchr(rest, '=', n);
        char rname[512];
        cJSON *q = NULL;

        trimmed(rest, eq ? (size_t)(eq - rest) : n, rname, sizeof(rname));
        cJSON_AddItemToArray(cov, cJSON_CreateString(rname));
        if (to_quota(rest, n, type, &q, err)) {
            cJSON_Delete(g);
            return TS_EINVAL;
        }
        cJSON_AddItemToArray(res, q);
        if (!rest[n])
            break;
        rest += n + 1;
    }
    *out = g;
    return 0;
}

/* parseUserSpecifiedResourceQuotas: every item of the flag's values
 * (pflag's StringSlice: comma-separated, repeated flags append) checked
 * against the pattern and appended to groups as a group of one flavor. */
static int parse_quotas(const char *const *vals, size_t nvals, enum quota_type type, cJSON *groups,
                        struct ts_buf *err)
{
    regex_t re;
    int rc = 0;

    if (regcomp(&re, QUOTA_ERE, REG_EXTENDED | REG_NOSUB))
        return fail(err, "invalid resources specification");
    for (size_t i = 0; i < nvals && !rc; i++) {
        const char *s = vals[i];

        while (*s && !rc) {
            size_t n = strcspn(s, ",");
            char *item = ts_xmalloc(n + 1);
            cJSON *g = NULL;

            memcpy(item, s, n);
            item[n] = '\0';
            if (regexec(&re, item, 0, NULL, 0))
                rc = fail(err, "invalid resources specification");
            else if (!(rc = to_group(item, type, &g, err)))
                cJSON_AddItemToArray(groups, g);
            free(item);
            s += n + (s[n] == ',');
        }
    }
    regfree(&re);
    return rc;
}

static cJSON *find_named(const cJSON *arr, const char *name)
{
    cJSON *it;

    cJSON_ArrayForEach(it, arr)
    {
        const char *n = ts_json_get_string(it, "name");

        if (n && !strcmp(n, name))
            return it;
    }
    return NULL;
}

static const char *str_or_null(const cJSON *o, const char *key)
{
    return ts_json_get_string(o, key);
}

/* mergeResourceQuotas: every resource of a must be in b; a's values win
 * unless unset (a zero nominal quota counts as unset).  Replaces a's
 * items.  Returns 0 or -1. */
static int merge_quotas(cJSON *a, const cJSON *b)
{
    cJSON *merged = cJSON_CreateArray(), *q1;

    cJSON_ArrayForEach(q1, a)
    {
        const char *name = ts_json_get_string(q1, "name"), *nom = str_or_null(q1, "nominalQuota");
        const cJSON *q2 = find_named(b, name ? name : "");
        const char *bl = str_or_null(q1, "borrowingLimit"), *ll = str_or_null(q1, "lendingLimit");

        if (!q2) {
            cJSON_Delete(merged);
            return -1;
        }
        if (!strcmp(nom, "0"))
            nom = str_or_null(q2, "nominalQuota");
        bl = bl ? bl : str_or_null(q2, "borrowingLimit");
        ll = ll ? ll : str_or_null(q2, "lendingLimit");
        cJSON_AddItemToArray(merged, quota_obj(name ? name : "", nom, bl, ll));
    }
    while (a->child)
        cJSON_Delete(cJSON_DetachItemViaPointer(a, a->child));
    while (merged->child)
        cJSON_AddItemToArray(a, cJSON_DetachItemViaPointer(merged, merged->child));
    cJSON_Delete(merged);
    return 0;
}

static cJSON *first_flavor(const cJSON *g)
{
    return cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(g, "flavors"), 0);
}

/* mergeResourcesByFlavor: groups naming the same flavor become one. */
static int merge_by_flavor(cJSON *groups, struct ts_buf *err)
{
    cJSON *g = groups->child;

    while (g) {
        cJSON *next = g->next, *prev;
        const char *name = ts_json_get_string(first_flavor(g), "name");

        for (prev = groups->child; prev != g; prev = prev->next)
            if (!strcmp(ts_json_get_string(first_flavor(prev), "name"), name))
                break;
        if (prev != g) {
            if (merge_quotas(ts_json_get(first_flavor(prev), "resources"),
                             ts_json_get(first_flavor(g), "resources")))
                return fail(err, "invalid flavor");
            cJSON_Delete(cJSON_DetachItemViaPointer(groups, g));
        }
        g = next;
    }
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* getResourcesGroupID: the covered resources sorted, joined with ".".
 * Ownership: caller frees. */
static char *group_id(const cJSON *g)
{
    const cJSON *cov = cJSON_GetObjectItemCaseSensitive(g, "coveredResources"), *c;
    size_t n = 0, total = (size_t)cJSON_GetArraySize(cov);
    const char **names = ts_xcalloc(total + 1, sizeof(*names));
    struct ts_buf b = TS_BUF_INIT;

    cJSON_ArrayForEach(c, cov)
    {
        names[n++] = c->valuestring;
    }
    qsort(names, n, sizeof(*names), cmp_str);
    ts_buf_adds(&b, "");
    for (size_t i = 0; i < n; i++)
        ts_buf_addf(&b, "%s%s", i ? "." : "", names[i]);
    free(names);
    return ts_buf_take(&b);
}

/* mergeFlavorsByCoveredResources: groups covering the same resources
 * become one group of several flavors; a group whose id is part of an
 * earlier group's (kueuectl's substring check) is refused. */
static int merge_by_resources(cJSON *groups, struct ts_buf *err)
{
    cJSON *g = groups->child;
    char **ids = ts_xcalloc((size_t)cJSON_GetArraySize(groups) + 1, sizeof(*ids));
    size_t n = 0;
    int rc = 0;

    while (g && !rc) {
        cJSON *next = g->next, *kept = groups->child;
        char *id = group_id(g);
        size_t i;

        for (i = 0; i < n && strcmp(ids[i], id); i++)
            kept = kept->next;
        if (i < n) {
            cJSON_AddItemToArray(
                cJSON_GetObjectItemCaseSensitive(kept, "flavors"),
                cJSON_DetachItemViaPointer(cJSON_GetObjectItemCaseSensitive(g, "flavors"),
                                           first_flavor(g)));
            cJSON_Delete(cJSON_DetachItemViaPointer(groups, g));
            free(id);
        } else {
            for (i = 0; i < n && !strstr(ids[i], id); i++)
                ;
            if (i < n)
                rc = fail(err, "invalid resource group");
            ids[n++] = id;
        }
        g = next;
    }
    for (size_t i = 0; i < n; i++)
        free(ids[i]);
    free(ids);
    return rc;
}

static int resource_groups(const struct ts__kctl_cq_opts *o, cJSON **out, struct ts_buf *err)
{
    cJSON *groups = cJSON_CreateArray();
    int rc;

    *out = NULL;
    if ((rc = parse_quotas(o->nominal, o->n_nominal, NOMINAL, groups, err)) ||
        (rc = parse_quotas(o->borrowing, o->n_borrowing, BORROWING, groups, err)) ||
        (rc = parse_quotas(o->lending, o->n_lending, LENDING, groups, err)) ||
        (rc = merge_by_flavor(groups, err)) || (rc = merge_by_resources(groups, err))) {
        cJSON_Delete(groups);
        return rc;
    }
    *out = groups;
    return 0;
}

int ts__kctl_new_clusterqueue(const struct ts__kctl_cq_opts *o, cJSON **out, struct ts_buf *err)
{
    cJSON *groups = NULL, *labels = NULL, *cq, *spec, *sel, *pre, *status;

    *out = NULL;
    if (o->n_ns_selector &&
        ts__kctl_parse_labels(o->ns_selector, o->n_ns_selector, "namespace-selector", &labels, err))
        return TS_EINVAL;
    if (resource_groups(o, &groups, err)) {
        cJSON_Delete(labels);
        return TS_EINVAL;
    }
    cq = cJSON_CreateObject();
    cJSON_AddStringToObject(cq, "kind", "ClusterQueue");
    cJSON_AddStringToObject(cq, "apiVersion", "kueue.x-k8s.io/v1beta2");
    cJSON_AddStringToObject(cJSON_AddObjectToObject(cq, "metadata"), "name", o->name);
    spec = cJSON_AddObjectToObject(cq, "spec");
    if (cJSON_GetArraySize(groups))
        cJSON_AddItemToObject(spec, "resourceGroups", groups), groups = NULL;
    cJSON_Delete(groups);
    if (o->cohort && *o->cohort)
        cJSON_AddStringToObject(spec, "cohortName", o->cohort);
    if (!o->queuing_strategy || *o->queuing_strategy)
        cJSON_AddStringToObject(spec, "queueingStrategy",
                                o->queuing_strategy ? o->queuing_strategy : "BestEffortFIFO");
    sel = cJSON_AddObjectToObject(spec, "namespaceSelector");
    if (cJSON_GetArraySize(labels))
        cJSON_AddItemToObject(sel, "matchLabels", labels), labels = NULL;
    cJSON_Delete(labels);
    pre = cJSON_AddObjectToObject(spec, "preemption");
    if (!o->reclaim || *o->reclaim)
        cJSON_AddStringToObject(pre, "reclaimWithinCohort", o->reclaim ? o->reclaim : "Never");
    if (!o->within_cq || *o->within_cq)
        cJSON_AddStringToObject(pre, "withinClusterQueue", o->within_cq ? o->within_cq : "Never");
    status = cJSON_AddObjectToObject(cq, "status");
    cJSON_AddNumberToObject(status, "pendingWorkloads", 0);
    cJSON_AddNumberToObject(status, "reservingWorkloads", 0);
    cJSON_AddNumberToObject(status, "admittedWorkloads", 0);
    *out = cq;
    return 0;
}
