/*
 * visibility.c - the visibility API's paths, options and documents (see
 * visibility.h).
 */
#include "api/visibility.h"

#include <stdio.h>
#include <string.h>

#include "api/meta.h"
#include "util/parse.h"

#define MAX_SEGS 8

static int known_version(const char *v)
{
    return !strcmp(v, "v1beta1") || !strcmp(v, "v1beta2");
}

/* Splits "/a/b/c" into at most MAX_SEGS segments (copies into buf).
 * Returns the count, or -1 for an empty segment or too many. */
static int split(const char *path, char *buf, size_t len, char **segs)
{
    int n = 0;
    char *p;

    if (snprintf(buf, len, "%s", path) >= (int)len || buf[0] != '/')
        return -1;
    p = buf + 1;
    if (!*p)
        return 0;
    for (;;) {
        char *slash = strchr(p, '/');

        if (n == MAX_SEGS)
            return -1;
        segs[n++] = p;
        if (!slash)
            break;
        *slash = '\0';
        p = slash + 1;
        if (!*p) /* a trailing slash is tolerated, as by the apiserver */
            break;
    }
    for (int i = 0; i < n; i++) {
        if (!segs[i][0])
            return -1;
    }
    return n;
}

static int copy_name(char *dst, size_t len, const char *src)
{
    return snprintf(dst, len, "%s", src) >= (int)len ? -1 : 0;
}

static int parse_count(const char *name, const char *raw, int64_t *out, struct ts_err *err)
{
    if (ts_parse_i64_c(raw, out))
        return ts_err_set(err, TS_EINVAL,
                          "invalid value \"%s\" for query parameter \"%s\": want an integer", raw,
                          name);
    return 0;
}

static int parse_options(const char *limit, const char *offset, struct ts_visibility_req *out,
                         struct ts_err *err)
{
    int64_t l = TS_VISIBILITY_LIMIT_DEFAULT, o = 0;

    if (limit && *limit && parse_count("limit", limit, &l, err))
        return err->code;
    if (offset && *offset && parse_count("offset", offset, &o, err))
        return err->code;
    if (o < 0)
        return ts_err_set(err, TS_EINVAL,
                          "invalid value \"%s\" for query parameter \"offset\": must be >= 0",
                          offset);
    if (l == 0) /* Kueue defaults a zero limit */
        l = TS_VISIBILITY_LIMIT_DEFAULT;
    out->limit = l < 0 ? 0 : l > TS_VISIBILITY_LIMIT_MAX ? TS_VISIBILITY_LIMIT_MAX : (size_t)l;
    out->offset = (size_t)o;
    return 0;
}

int ts_visibility_parse(const char *path, const char *limit, const char *offset,
                        struct ts_visibility_req *out, struct ts_err *err)
{
    char buf[1024];
    char *s[MAX_SEGS];
    int n = split(path, buf, sizeof(buf), s);

    memset(out, 0, sizeof(*out));
    if (n < 2 || strcmp(s[0], "apis") || strcmp(s[1], TS_VISIBILITY_GROUP))
        return ts_err_set(err, TS_ENOTFOUND, "the server could not find the requested resource");
    if (n == 2) {
        out->target = TS_VISIBILITY_GROUP_DOC;
        return 0;
    }
    if (!known_version(s[2]))
        return ts_err_set(err, TS_ENOTFOUND, "version \"%s\" of %s is not served", s[2],
                          TS_VISIBILITY_GROUP);
    snprintf(out->version, sizeof(out->version), "%s", s[2]);
    if (n == 3) {
        out->target = TS_VISIBILITY_RESOURCES;
        return 0;
    }
    if (n == 6 && !strcmp(s[3], "clusterqueues") && !strcmp(s[5], "pendingworkloads")) {
        out->target = TS_VISIBILITY_CQ_PENDING;
        if (copy_name(out->cluster_queue, sizeof(out->cluster_queue), s[4]))
            return ts_err_set(err, TS_ENOTFOUND, "clusterqueue name is too long");
        return parse_options(limit, offset, out, err);
    }
    if (n == 8 && !strcmp(s[3], "namespaces") && !strcmp(s[5], "localqueues") &&
        !strcmp(s[7], "pendingworkloads")) {
        out->target = TS_VISIBILITY_LQ_PENDING;
        if (copy_name(out->ns, sizeof(out->ns), s[4]) ||
            copy_name(out->local_queue, sizeof(out->local_queue), s[6]))
            return ts_err_set(err, TS_ENOTFOUND, "namespace or localqueue name is too long");
        return parse_options(limit, offset, out, err);
    }
    return ts_err_set(err, TS_ENOTFOUND, "the server could not find the requested resource");
}

cJSON *ts_visibility_group_doc(void)
{
    static const char *const versions[] = {"v1beta2", "v1beta1"};
    cJSON *g = ts_apigroup_new(TS_VISIBILITY_GROUP, versions, 2);

    cJSON_AddStringToObject(g, "kind", "APIGroup");
    cJSON_AddStringToObject(g, "apiVersion", "v1");
    return g;
}

static void add_resource(cJSON *list, const char *name, const char *singular, int namespaced,
                         const char *kind)
{
    cJSON *r = cJSON_CreateObject(), *verbs;

    cJSON_AddStringToObject(r, "name", name);
    cJSON_AddStringToObject(r, "singularName", singular);
    cJSON_AddBoolToObject(r, "namespaced", namespaced);
    cJSON_AddStringToObject(r, "kind", kind);
    verbs = cJSON_AddArrayToObject(r, "verbs");
    cJSON_AddItemToArray(verbs, cJSON_CreateString("get"));
    cJSON_AddItemToArray(list, r);
}

cJSON *ts_visibility_resources_doc(const char *version)
{
    cJSON *l = cJSON_CreateObject(), *rs;
    char gv[64];

    snprintf(gv, sizeof(gv), "%s/%s", TS_VISIBILITY_GROUP, version);
    cJSON_AddStringToObject(l, "kind", "APIResourceList");
    cJSON_AddStringToObject(l, "apiVersion", "v1");
    cJSON_AddStringToObject(l, "groupVersion", gv);
    rs = cJSON_AddArrayToObject(l, "resources");
    add_resource(rs, "clusterqueues/pendingworkloads", "", 0, "PendingWorkloadsSummary");
    add_resource(rs, "localqueues/pendingworkloads", "", 1, "PendingWorkloadsSummary");
    return l;
}

cJSON *ts_visibility_summary_new(const char *version)
{
    cJSON *s = cJSON_CreateObject(), *meta;
    char gv[64];

    snprintf(gv, sizeof(gv), "%s/%s", TS_VISIBILITY_GROUP, version);
    cJSON_AddStringToObject(s, "kind", "PendingWorkloadsSummary");
    cJSON_AddStringToObject(s, "apiVersion", gv);
    meta = cJSON_AddObjectToObject(s, "metadata");
    cJSON_AddNullToObject(meta, "creationTimestamp");
    cJSON_AddArrayToObject(s, "items");
    return s;
}

void ts_visibility_add_item(cJSON *summary, const struct ts_visibility_item *it)
{
    cJSON *w = cJSON_CreateObject(), *meta = cJSON_AddObjectToObject(w, "metadata");
    char stamp[40];

    cJSON_AddStringToObject(meta, "name", it->name);
    cJSON_AddStringToObject(meta, "namespace", it->ns);
    if (it->creation_stamp)
        cJSON_AddStringToObject(meta, "creationTimestamp", it->creation_stamp);
    else
        cJSON_AddStringToObject(meta, "creationTimestamp",
                                ts_time_format(it->created, stamp, sizeof(stamp)));
    if (it->owner_refs && cJSON_IsArray(it->owner_refs) && cJSON_GetArraySize(it->owner_refs))
        cJSON_AddItemToObject(meta, "ownerReferences", cJSON_Duplicate(it->owner_refs, 1));
    cJSON_AddNumberToObject(w, "priority", it->priority);
    cJSON_AddStringToObject(w, "localQueueName", it->local_queue ? it->local_queue : "");
    cJSON_AddNumberToObject(w, "positionInClusterQueue", (double)it->position_in_cq);
    cJSON_AddNumberToObject(w, "positionInLocalQueue", (double)it->position_in_lq);
    cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(summary, "items"), w);
}
