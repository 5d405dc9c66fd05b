#include "api/pod.h"

#include <inttypes.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/names.h"
#include "json/json.h"
#include "util/alloc.h"
#include "util/parse.h"

void ts_pod_init(struct ts_pod *p)
{
    memset(p, 0, sizeof(*p));
    ts_object_meta_init(&p->meta);
    ts_pod_template_init(&p->template);
}

void ts_pod_release(struct ts_pod *p)
{
    ts_object_meta_release(&p->meta);
    ts_pod_template_release(&p->template);
    free(p->phase);
    free(p->message);
    free(p->node_name);
    ts_pod_init(p);
}

static int ready_true(const cJSON *conds)
{
    const cJSON *c;

    cJSON_ArrayForEach(c, conds)
    {
        const cJSON *type = cJSON_GetObjectItemCaseSensitive(c, "type");
        const cJSON *status = cJSON_GetObjectItemCaseSensitive(c, "status");

        if (cJSON_IsString(type) && !strcmp(type->valuestring, "Ready"))
            return cJSON_IsString(status) && !strcmp(status->valuestring, "True");
    }
    return 0;
}

void ts_pod_decode(struct ts_dec *d, const cJSON *obj, struct ts_pod *p)
{
    const cJSON *spec, *status;
    cJSON *tmpl;
    size_t mark;

    ts_pod_release(p);
    if (!cJSON_IsObject(obj)) {
        ts_dec_error(d, TS_FIELD_TYPE_INVALID, NULL, NULL, "must be of type object");
        return;
    }
    ts_object_meta_decode(d, obj, &p->meta);
    spec = ts_dec_object(d, obj, "spec");
    tmpl = cJSON_CreateObject();
    if (spec)
        cJSON_AddItemToObject(tmpl, "spec", cJSON_Duplicate(spec, 1));
    ts_pod_template_decode(d, tmpl, &p->template);
    cJSON_Delete(tmpl);
    mark = ts_path_push(&d->path, "spec");
    if (spec)
        ts_dec_string(d, spec, "nodeName", &p->node_name);
    ts_path_pop(&d->path, mark);
    p->gated = ts_pod_json_has_gate(obj, TS_POD_GATE);
    status = ts_dec_object(d, obj, "status");
    mark = ts_path_push(&d->path, "status");
    if (status) {
        ts_dec_string(d, status, "phase", &p->phase);
        ts_dec_string(d, status, "message", &p->message);
        p->ready = ready_true(cJSON_GetObjectItemCaseSensitive(status, "conditions"));
    }
    ts_path_pop(&d->path, mark);
}

int ts_pod_is_terminated(const struct ts_pod *p)
{
    return p->phase && (!strcmp(p->phase, "Succeeded") || !strcmp(p->phase, "Failed"));
}

int ts_pod_is_suspended(const struct ts_pod *p)
{
    return ts_pod_is_terminated(p) || p->gated;
}

static cJSON *gates_of(const cJSON *pod)
{
    return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(pod, "spec"),
                                            "schedulingGates");
}

static cJSON *gate_item(const cJSON *pod, const char *gate)
{
    cJSON *g;

    cJSON_ArrayForEach(g, gates_of(pod))
    {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(g, "name");

        if (cJSON_IsString(name) && !strcmp(name->valuestring, gate))
            return g;
    }
    return NULL;
}

int ts_pod_json_has_gate(const cJSON *pod, const char *gate)
{
    return gate_item(pod, gate) != NULL;
}

int ts_pod_json_remove_gate(cJSON *pod, const char *gate)
{
    cJSON *gates = gates_of(pod), *g = gate_item(pod, gate);

    if (!g)
        return 0;
    cJSON_Delete(cJSON_DetachItemViaPointer(gates, g));
    if (cJSON_GetArraySize(gates) == 0)
        cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(pod, "spec"),
                                                "schedulingGates");
    return 1;
}

int ts_pod_json_add_gate(cJSON *pod, const char *gate)
{
    cJSON *spec = cJSON_GetObjectItemCaseSensitive(pod, "spec"), *gates, *g;

    if (!cJSON_IsObject(spec) || gate_item(pod, gate))
        return 0;
    gates = cJSON_GetObjectItemCaseSensitive(spec, "schedulingGates");
    if (!cJSON_IsArray(gates)) {
        cJSON_DeleteItemFromObjectCaseSensitive(spec, "schedulingGates");
        gates = cJSON_AddArrayToObject(spec, "schedulingGates");
    }
    g = cJSON_CreateObject();
    cJSON_AddStringToObject(g, "name", gate);
    cJSON_AddItemToArray(gates, g);
    return 1;
}

/* Adds spec[key] (or null) to the shape, as Go marshals a nil field. */
static void shape_field(cJSON *shape, const cJSON *spec, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(spec, key);

    cJSON_AddItemToObject(shape, key, v ? cJSON_Duplicate(v, 1) : cJSON_CreateNull());
}

static cJSON *containers_shape(const cJSON *list)
{
    cJSON *out, *c;

    if (cJSON_GetArraySize(list) == 0)
        return cJSON_CreateNull();
    out = cJSON_CreateArray();
    cJSON_ArrayForEach(c, list)
    {
        cJSON *one = cJSON_CreateObject(), *res = cJSON_CreateObject();
        const cJSON *req = ts_json_get(c, "resources.requests");

        shape_field(one, c, "ports");
        cJSON_AddItemToObject(res, "requests", req ? cJSON_Duplicate(req, 1) : cJSON_CreateNull());
        cJSON_AddItemToObject(one, "resources", res);
        cJSON_AddItemToArray(out, one);
    }
    return out;
}

static int by_key(const void *a, const void *b)
{
    const cJSON *x = *(cJSON *const *)a, *y = *(cJSON *const *)b;

    return strcmp(x->string, y->string);
}

/* Orders every object's members by key, as Go marshals a map. */
static void sort_keys(cJSON *v)
{
    size_t n = 0, i = 0;
    cJSON **items, *c;

    cJSON_ArrayForEach(c, v) sort_keys(c);
    if (!cJSON_IsObject(v) || !v->child)
        return;
    cJSON_ArrayForEach(c, v) n++;
    items = ts_xcalloc(n, sizeof(*items));
    cJSON_ArrayForEach(c, v) items[i++] = c;
    qsort(items, n, sizeof(*items), by_key);
    for (i = 0; i < n; i++) {
        items[i]->prev = i ? items[i - 1] : items[n - 1]; /* cJSON: head's prev is the tail */
        items[i]->next = i + 1 < n ? items[i + 1] : NULL;
    }
    v->child = items[0];
    free(items);
}

int ts_pod_role_hash(const cJSON *pod, char out[9])
{
    static const char *const fields[] = {
        "affinity",       "nodeSelector",     "overhead",    "priority",
        "resourceClaims", "runtimeClassName", "tolerations", "topologySpreadConstraints"};
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(pod, "spec");
    const char *given =
        ts_json_get_string(pod, "metadata.annotations[" TS_POD_ANNOTATION_ROLE_HASH "]");
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    cJSON *shape, *s;
    char *text;

    if (given) {
        snprintf(out, 9, "%s", given);
        return 0;
    }
    if (!cJSON_IsObject(spec))
        return -1;
    shape = cJSON_CreateObject();
    s = cJSON_AddObjectToObject(shape, "spec");
    cJSON_AddItemToObject(s, "containers",
                          containers_shape(cJSON_GetObjectItemCaseSensitive(spec, "containers")));
    cJSON_AddItemToObject(
        s, "initContainers",
        containers_shape(cJSON_GetObjectItemCaseSensitive(spec, "initContainers")));
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
        shape_field(s, spec, fields[i]);
    sort_keys(shape);
    text = ts_json_dumps(shape, 0);
    if (!text) {
        cJSON_Delete(shape);
        return -1;
    }
    EVP_Digest(text, strlen(text), md, &mdlen, EVP_sha256(), NULL);
    for (unsigned i = 0; i < 4 && i < mdlen; i++)
        snprintf(out + 2 * i, 3, "%02x", md[i]);
    free(text);
    cJSON_Delete(shape);
    return 0;
}

static cJSON *object_at(cJSON *obj, const char *key)
{
    cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

    if (cJSON_IsObject(v))
        return v;
    cJSON_DeleteItemFromObjectCaseSensitive(obj, key);
    return cJSON_AddObjectToObject(obj, key);
}

static void set_string(cJSON *obj, const char *key, const char *value)
{
    cJSON_DeleteItemFromObjectCaseSensitive(obj, key);
    cJSON_AddStringToObject(obj, key, value);
}

void ts_pod_json_mark_managed(cJSON *pod, int finalizer)
{
    cJSON *meta = object_at(pod, "metadata"), *fin, *f;
    char hash[9];

    set_string(object_at(meta, "labels"), TS_POD_LABEL_MANAGED, "true");
    if (!finalizer)
        goto gate;
    fin = cJSON_GetObjectItemCaseSensitive(meta, "finalizers");
    if (!cJSON_IsArray(fin)) {
        cJSON_DeleteItemFromObjectCaseSensitive(meta, "finalizers");
        fin = cJSON_AddArrayToObject(meta, "finalizers");
    }
    cJSON_ArrayForEach(f, fin)
    {
        if (cJSON_IsString(f) && !strcmp(f->valuestring, TS_POD_FINALIZER))
            break;
    }
    if (!f)
        cJSON_AddItemToArray(fin, cJSON_CreateString(TS_POD_FINALIZER));
gate:
    object_at(pod, "spec");
    ts_pod_json_add_gate(pod, TS_POD_GATE);
    if (ts_pod_role_hash(pod, hash) == 0)
        set_string(object_at(meta, "annotations"), TS_POD_ANNOTATION_ROLE_HASH, hash);
}

#define PATH_MANAGED   "metadata.labels[" TS_POD_LABEL_MANAGED "]"
#define PATH_GROUP     "metadata.labels[" TS_POD_LABEL_GROUP_NAME "]"
#define PATH_TOTAL     "metadata.annotations[" TS_POD_ANNOTATION_GROUP_TOTAL "]"
#define PATH_RETRIABLE "metadata.annotations[" TS_POD_ANNOTATION_RETRIABLE "]"
#define PATH_PREBUILT  "metadata.labels[kueue.x-k8s.io/prebuilt-workload-name]"
#define BOTH_MESSAGE                                                                               \
    "both the '" TS_POD_ANNOTATION_GROUP_TOTAL "' annotation and the '" TS_POD_LABEL_GROUP_NAME    \
    "' label should be set"

/* Kueue's groupTotalCount(): Go's strconv.Atoi, then > 0. */
static void check_total(const char *v, struct ts_field_errors *errs)
{
    int64_t n;
    int rc = ts_parse_i64_c(v, &n);

    if (rc)
        ts_field_errors_add(errs, TS_FIELD_INVALID, PATH_TOTAL, v, 1,
                            "strconv.Atoi: parsing \"%s\": %s", v,
                            rc == TS_EOVERFLOW ? "value out of range" : "invalid syntax");
    else if (n < 1)
        ts_field_errors_add(errs, TS_FIELD_INVALID, PATH_TOTAL, v, 1,
                            "incorrect annotation value '%s=%s': group total count should be "
                            "greater than zero",
                            TS_POD_ANNOTATION_GROUP_TOTAL, v);
}

void ts_pod_validate(const struct ts_pod *p, struct ts_field_errors *errs)
{
    const char *managed = ts_strmap_get(&p->meta.labels, TS_POD_LABEL_MANAGED);
    const char *group = ts_strmap_get(&p->meta.labels, TS_POD_LABEL_GROUP_NAME);
    const char *total = ts_strmap_get(&p->meta.annotations, TS_POD_ANNOTATION_GROUP_TOTAL);
    const char *prebuilt = ts_strmap_get(&p->meta.labels, "kueue.x-k8s.io/prebuilt-workload-name");

    if (managed && strcmp(managed, "true"))
        ts_field_errors_add(errs, TS_FIELD_FORBIDDEN, PATH_MANAGED, NULL, 0,
                            "managed label value can only be 'true'");
    if (group && !*group)
        group = NULL; /* Kueue's podGroupName(): an empty label is no group */
    if (!group && total) {
        ts_field_errors_add(errs, TS_FIELD_REQUIRED, PATH_GROUP, NULL, 0, "%s", BOTH_MESSAGE);
        return;
    }
    if (!group)
        return;
    if (!ts_names_is_dns1123_subdomain(group))
        ts_names_dns1123_subdomain(group, PATH_GROUP, errs);
    if (!total) {
        ts_field_errors_add(errs, TS_FIELD_REQUIRED, PATH_TOTAL, NULL, 0, "%s", BOTH_MESSAGE);
        return;
    }
    check_total(total, errs);
    if (prebuilt && strcmp(prebuilt, group))
        ts_field_errors_add(errs, TS_FIELD_INVALID, PATH_PREBUILT, PATH_PREBUILT, 1,
                            "prebuilt workload and pod group should be equal");
}

static int unretriable(const struct ts_pod *p)
{
    const char *v = ts_strmap_get(&p->meta.annotations, TS_POD_ANNOTATION_RETRIABLE);

    return v && !strcmp(v, "false");
}

void ts_pod_validate_update(const struct ts_pod *old, const struct ts_pod *nw,
                            struct ts_field_errors *errs)
{
    const char *og = ts_strmap_get(&old->meta.labels, TS_POD_LABEL_GROUP_NAME);
    const char *ng = ts_strmap_get(&nw->meta.labels, TS_POD_LABEL_GROUP_NAME);

    ts_pod_validate(nw, errs);
    if (ng && *ng && unretriable(old) && !unretriable(nw))
        ts_field_errors_add(errs, TS_FIELD_FORBIDDEN, PATH_RETRIABLE, NULL, 0,
                            "unretriable pod group can't be converted to retriable");
    if (og && *og && strcmp(ng ? ng : "", og))
        ts_field_errors_add(errs, TS_FIELD_INVALID, PATH_GROUP, ng ? ng : "", 1,
                            "field is immutable");
}
