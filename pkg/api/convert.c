/* ts_convert_kueue(): version dispatch by kind, plus the conversion-data
 * annotation helpers the per-kind hooks share. */
#include "api/convert.h"

#include "api/convert_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*convert_fn)(cJSON *obj, struct ts_err *err);

static int ac_up(cJSON *obj, struct ts_err *err);
static int ac_down(cJSON *obj, struct ts_err *err);

/* Kinds served by kueue.x-k8s.io v1beta1 and v1beta2; NULL hooks = the two
 * schemas are identical and only apiVersion changes. */
static const struct {
    const char *kind;
    convert_fn up;
    convert_fn down;
} kinds[] = {
    {"ClusterQueue", ts__convert_cluster_queue_up, ts__convert_cluster_queue_down},
    {"LocalQueue", ts__convert_local_queue_up, ts__convert_local_queue_down},
    {"Workload", ts__convert_workload_up, ts__convert_workload_down},
    {"AdmissionCheck", ac_up, ac_down},
    {"Cohort", NULL, NULL},
    {"ResourceFlavor", NULL, NULL},
    {"WorkloadPriorityClass", NULL, NULL},
    {"Topology", NULL, NULL},
    {"ProvisioningRequestConfig", NULL, NULL},
    {"MultiKueueConfig", NULL, NULL},
    {"MultiKueueCluster", NULL, NULL},
};

#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

/* AdmissionCheck: v1beta2 dropped the deprecated spec.retryDelayMinutes. */
static int ac_up(cJSON *obj, struct ts_err *err)
{
    (void)err;
    ts__convert_stash(obj, "spec.retryDelayMinutes");
    return 0;
}

static int ac_down(cJSON *obj, struct ts_err *err)
{
    (void)err;
    ts__convert_restore(obj, "spec.retryDelayMinutes");
    return 0;
}

/* 1 = v1beta1, 2 = v1beta2, 0 = other kueue version, -1 = not kueue. */
static int version_of(const char *api_version)
{
    size_t glen = strlen(TS_KUEUE_GROUP);

    if (strncmp(api_version, TS_KUEUE_GROUP, glen) != 0 || api_version[glen] != '/')
        return -1;
    if (strcmp(api_version, TS_KUEUE_V1BETA1) == 0)
        return 1;
    if (strcmp(api_version, TS_KUEUE_V1BETA2) == 0)
        return 2;
    return 0;
}

static int kind_index(const char *kind)
{
    for (size_t i = 0; i < NKINDS; i++) {
        if (strcmp(kinds[i].kind, kind) == 0)
            return (int)i;
    }
    return -1;
}

static void set_string(cJSON *obj, const char *key, const char *v)
{
    cJSON *s = cJSON_CreateString(v);

    if (cJSON_GetObjectItemCaseSensitive(obj, key))
        cJSON_ReplaceItemInObjectCaseSensitive(obj, key, s);
    else
        cJSON_AddItemToObject(obj, key, s);
}

static int convert_one(cJSON *obj, const char *to, int to_v, const char *dflt_kind,
                       struct ts_err *err);

/* <Kind>List: converts every item (items inherit the list's apiVersion and
 * the element kind when they do not carry their own). */
static int convert_list(cJSON *obj, const char *kind, const char *api_version, const char *to,
                        int to_v, struct ts_err *err)
{
    char item_kind[128];
    cJSON *items = cJSON_GetObjectItemCaseSensitive(obj, "items");
    cJSON *e;
    int i = 0;

    snprintf(item_kind, sizeof(item_kind), "%.*s", (int)(strlen(kind) - 4), kind);
    if (kind_index(item_kind) < 0)
        return ts_err_set(err, TS_EUNSUPPORTED, "kind: unsupported kind \"%s\" in %s", kind,
                          TS_KUEUE_GROUP);
    cJSON_ArrayForEach(e, items)
    {
        int rc;

        if (!cJSON_IsObject(e))
            return ts_err_set(err, TS_EINVAL, "items[%d]: must be an object", i);
        if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(e, "apiVersion")))
            set_string(e, "apiVersion", api_version);
        rc = convert_one(e, to, to_v, item_kind, err);
        if (rc)
            return ts_err_prefix(err, "items[%d]", i);
        i++;
    }
    set_string(obj, "apiVersion", to);
    return 0;
}

static int convert_one(cJSON *obj, const char *to, int to_v, const char *dflt_kind,
                       struct ts_err *err)
{
    const cJSON *av = cJSON_GetObjectItemCaseSensitive(obj, "apiVersion");
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(obj, "kind");
    const char *kind = cJSON_IsString(k) ? k->valuestring : dflt_kind;
    size_t klen;
    int from_v, idx, rc;

    if (!cJSON_IsString(av))
        return ts_err_set(err, TS_EINVAL, "apiVersion: Required value");
    from_v = version_of(av->valuestring);
    if (from_v < 0)
        return ts_err_set(err, TS_EINVAL, "apiVersion: not a %s object: \"%s\"", TS_KUEUE_GROUP,
                          av->valuestring);
    if (from_v == 0)
        return ts_err_set(err, TS_EINVAL,
                          "apiVersion: unsupported version \"%s\" (served: v1beta1, v1beta2)",
                          av->valuestring);
    if (!kind)
        return ts_err_set(err, TS_EINVAL, "kind: Required value");
    klen = strlen(kind);
    if (klen > 4 && strcmp(kind + klen - 4, "List") == 0 && kind_index(kind) < 0)
        return convert_list(obj, kind, av->valuestring, to, to_v, err);
    idx = kind_index(kind);
    if (idx < 0)
        return ts_err_set(err, TS_EUNSUPPORTED, "kind: unsupported kind \"%s\" in %s", kind,
                          TS_KUEUE_GROUP);
    if (from_v == to_v)
        return 0;
    if (to_v == 2 && kinds[idx].up && (rc = kinds[idx].up(obj, err)) != 0)
        return rc;
    if (to_v == 1 && kinds[idx].down && (rc = kinds[idx].down(obj, err)) != 0)
        return rc;
    set_string(obj, "apiVersion", to);
    return 0;
}

int ts_convert_kueue(cJSON *obj, const char *to_api_version, struct ts_err *err)
{
    int to_v;

    if (!cJSON_IsObject(obj))
        return ts_err_set(err, TS_EINVAL, "conversion: the object must be a JSON object");
    to_v = to_api_version ? version_of(to_api_version) : -1;
    if (to_v <= 0)
        return ts_err_set(err, TS_EINVAL,
                          "conversion: unsupported target version \"%s\" (want %s or %s)",
                          to_api_version ? to_api_version : "", TS_KUEUE_V1BETA1, TS_KUEUE_V1BETA2);
    return convert_one(obj, to_api_version, to_v, NULL, err);
}

/* --- conversion-data annotation ---------------------------------------------- */

/* The object holding the last segment of dotted `path`, creating missing
 * objects when `create`; *leaf points at the last segment.  NULL when a
 * non-object is in the way (or a segment is missing and !create). */
static cJSON *walk(cJSON *obj, const char *path, int create, const char **leaf)
{
    const char *seg = path;
    const char *dot;

    while ((dot = strchr(seg, '.')) != NULL) {
        char key[128];
        cJSON *c;

        snprintf(key, sizeof(key), "%.*s", (int)(dot - seg), seg);
        c = cJSON_GetObjectItemCaseSensitive(obj, key);
        if (!c && create)
            c = cJSON_AddObjectToObject(obj, key);
        if (!cJSON_IsObject(c))
            return NULL;
        obj = c;
        seg = dot + 1;
    }
    *leaf = seg;
    return obj;
}

/* The parsed annotation, or NULL when absent or not a JSON object.
 * Ownership: caller deletes. */
static cJSON *data_load(const cJSON *obj)
{
    const cJSON *md = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    const cJSON *an = cJSON_GetObjectItemCaseSensitive(md, "annotations");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(an, TS_CONVERT_ANNOTATION);
    cJSON *data;

    if (!cJSON_IsString(v))
        return NULL;
    data = cJSON_Parse(v->valuestring);
    if (!cJSON_IsObject(data)) {
        cJSON_Delete(data);
        return NULL;
    }
    return data;
}

/* metadata.annotations, created when missing and `create`; NULL when a
 * non-object is in the way.  (Not walk(): the annotation key has dots.) */
static cJSON *annotations(cJSON *obj, int create)
{
    const char *leaf;

    return walk(obj, "metadata.annotations.x", create, &leaf);
}

/* Writes data into the annotation; an empty data removes it (and an
 * annotations map left empty). */
static void data_store(cJSON *obj, const cJSON *data)
{
    cJSON *an = annotations(obj, 1);
    char *text;

    if (!an)
        return;
    cJSON_DeleteItemFromObjectCaseSensitive(an, TS_CONVERT_ANNOTATION);
    if (!data->child) {
        if (!an->child)
            cJSON_DeleteItemFromObjectCaseSensitive(
                cJSON_GetObjectItemCaseSensitive(obj, "metadata"), "annotations");
        return;
    }
    text = cJSON_PrintUnformatted(data);
    cJSON_AddStringToObject(an, TS_CONVERT_ANNOTATION, text ? text : "{}");
    free(text);
}

void ts__convert_stash(cJSON *obj, const char *path)
{
    const char *leaf;
    cJSON *parent = walk(obj, path, 0, &leaf);
    cJSON *item, *data;

    if (!parent || !(item = cJSON_DetachItemFromObjectCaseSensitive(parent, leaf)))
        return;
    data = data_load(obj);
    if (!data)
        data = cJSON_CreateObject();
    cJSON_DeleteItemFromObjectCaseSensitive(data, path);
    cJSON_AddItemToObject(data, path, item);
    data_store(obj, data);
    cJSON_Delete(data);
}

void ts__convert_restore(cJSON *obj, const char *path)
{
    cJSON *data = data_load(obj);
    cJSON *item, *parent;
    const char *leaf;

    if (!data)
        return;
    item = cJSON_DetachItemFromObjectCaseSensitive(data, path);
    if (item) {
        parent = walk(obj, path, 1, &leaf);
        if (parent) {
            cJSON_DeleteItemFromObjectCaseSensitive(parent, leaf);
            cJSON_AddItemToObject(parent, leaf, item);
        } else {
            cJSON_Delete(item);
        }
        data_store(obj, data);
    }
    cJSON_Delete(data);
}
