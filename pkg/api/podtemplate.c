#include "api/podtemplate.h"

#include "api/enc.h"
#include "api/object.h" /* TS_DECODE_NO_RAW */
#include "api/podtemplate_int.h"
#include "util/alloc.h"
#include "json/json.h"

#include <stdlib.h>
#include <string.h>

static const char *const op_names[] = {"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", NULL};

#define REQUIRED_KEY "requiredDuringSchedulingIgnoredDuringExecution"

const char *ts_node_selector_op_name(enum ts_node_selector_op op)
{
    return (unsigned)op < sizeof(op_names) / sizeof(op_names[0]) - 1 ? op_names[op] : "";
}

/* --- raw JSON helpers (podtemplate_int.h) ------------------------------- */

static int is_empty_value(const cJSON *v)
{
    return cJSON_IsNull(v) || ((cJSON_IsObject(v) || cJSON_IsArray(v)) && !v->child);
}

void ts__podtemplate_put(cJSON *obj, const char *key, cJSON *item)
{
    cJSON *old = cJSON_GetObjectItemCaseSensitive(obj, key);

    if (!item) {
        if (old && !is_empty_value(old))
            cJSON_DeleteItemFromObjectCaseSensitive(obj, key);
        return;
    }
    if (old && ts_json_equal(old, item)) {
        cJSON_Delete(item); /* unchanged: keep the original node */
        return;
    }
    if (old)
        cJSON_ReplaceItemInObjectCaseSensitive(obj, key, item);
    else
        cJSON_AddItemToObject(obj, key, item);
}

cJSON *ts__podtemplate_child(cJSON *obj, const char *key, int create)
{
    cJSON *c = cJSON_GetObjectItemCaseSensitive(obj, key);

    if (c && cJSON_IsObject(c))
        return c;
    if (!create)
        return NULL;
    c = cJSON_CreateObject();
    ts__podtemplate_put(obj, key, c);
    return c;
}

void ts__podtemplate_prune(cJSON *obj, const char *key)
{
    cJSON *c = cJSON_GetObjectItemCaseSensitive(obj, key);

    if (c && cJSON_IsObject(c) && !c->child)
        cJSON_DeleteItemFromObjectCaseSensitive(obj, key);
}

/* Encodes with an enc.h writer into a scratch object and moves the result. */
static cJSON *detach(cJSON *tmp, const char *key)
{
    cJSON *v = cJSON_DetachItemFromObjectCaseSensitive(tmp, key);

    cJSON_Delete(tmp);
    return v;
}

void ts__podtemplate_put_string(cJSON *obj, const char *key, const char *v)
{
    ts__podtemplate_put(obj, key, v ? cJSON_CreateString(v) : NULL);
}

void ts__podtemplate_put_strmap(cJSON *obj, const char *key, const struct ts_strmap *m)
{
    cJSON *tmp = cJSON_CreateObject();

    ts_enc_strmap(tmp, key, m);
    ts__podtemplate_put(obj, key, detach(tmp, key));
}

/* Parses a raw quantity (string or number) without reporting errors. */
static int raw_quantity(const cJSON *v, struct ts_quantity *q)
{
    char *text;
    int rc;

    if (cJSON_IsString(v))
        return ts_quantity_parse_c(v->valuestring, q, NULL);
    if (!cJSON_IsNumber(v))
        return -1;
    text = cJSON_PrintUnformatted(v);
    rc = ts_quantity_parse_c(text ? text : "", q, NULL);
    free(text);
    return rc;
}

/* 1 when the raw ResourceList holds exactly l's names with equal values
 * (so "cpu: 1" is kept rather than rewritten as "1"). */
static int same_resources(const cJSON *raw, const struct ts_resource_list *l)
{
    const cJSON *e;
    size_t n = 0;

    if (!cJSON_IsObject(raw))
        return 0;
    cJSON_ArrayForEach(e, raw)
    {
        const struct ts_quantity *want = ts_resource_list_get(l, e->string);
        struct ts_quantity q;

        if (!want || raw_quantity(e, &q) || ts_quantity_cmp(&q, want) != 0)
            return 0;
        n++;
    }
    return n == l->n;
}

void ts__podtemplate_put_resources(cJSON *obj, const char *key, const struct ts_resource_list *l)
{
    cJSON *tmp;

    if (l->n && same_resources(cJSON_GetObjectItemCaseSensitive(obj, key), l))
        return;
    tmp = cJSON_CreateObject();
    ts_enc_resource_list(tmp, key, l);
    ts__podtemplate_put(obj, key, detach(tmp, key));
}

void ts__podtemplate_put_time(cJSON *obj, const char *key, ts_time t)
{
    const cJSON *old = cJSON_GetObjectItemCaseSensitive(obj, key);
    char buf[TS_TIME_STR_MAX];
    ts_time was;

    if (t && cJSON_IsString(old) && ts_time_parse(old->valuestring, &was) == 0 &&
        was / TS_TIME_SECOND == t / TS_TIME_SECOND)
        return; /* same second: keep the original text (and its fraction) */
    ts__podtemplate_put(obj, key,
                        t ? cJSON_CreateString(ts_time_format(t, buf, sizeof(buf))) : NULL);
}

/* The ObjectMeta fields ts_object_meta_encode() models. */
static const char *const meta_keys[] = {
    "name",
    "generateName",
    "namespace",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "labels",
    "annotations",
    "ownerReferences",
    "finalizers",
    NULL,
};

void ts__podtemplate_put_meta(cJSON *obj, const struct ts_object_meta *m)
{
    int had = cJSON_GetObjectItemCaseSensitive(obj, "metadata") != NULL;
    cJSON *tmp = cJSON_CreateObject();
    cJSON *src, *md;

    ts_object_meta_encode(m, tmp);
    src = cJSON_GetObjectItemCaseSensitive(tmp, "metadata");
    md = ts__podtemplate_child(obj, "metadata", 1);
    for (int i = 0; meta_keys[i]; i++)
        ts__podtemplate_put(md, meta_keys[i],
                            cJSON_DetachItemFromObjectCaseSensitive(src, meta_keys[i]));
    cJSON_Delete(tmp);
    if (!had)
        ts__podtemplate_prune(obj, "metadata");
}

/* --- lifecycle ----------------------------------------------------------- */

static char *dup_or_null(const char *s)
{
    return s ? ts_xstrdup(s) : NULL;
}

static void container_release(struct ts_container *c)
{
    free(c->name);
    free(c->restart_policy);
    ts_resource_list_release(&c->requests);
    ts_resource_list_release(&c->limits);
}

static void containers_free(struct ts_container *c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        container_release(&c[i]);
    free(c);
}

static void terms_free(struct ts_node_selector_term *t, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < t[i].n_exprs; j++) {
            free(t[i].exprs[j].key);
            ts_strlist_release(&t[i].exprs[j].values);
        }
        free(t[i].exprs);
    }
    free(t);
}

void ts_pod_template_init(struct ts_pod_template *t)
{
    memset(t, 0, sizeof(*t));
}

void ts_pod_template_release(struct ts_pod_template *t)
{
    cJSON_Delete(t->raw);
    ts_strmap_release(&t->labels);
    ts_strmap_release(&t->annotations);
    containers_free(t->containers, t->n_containers);
    containers_free(t->init_containers, t->n_init_containers);
    ts_resource_list_release(&t->overhead);
    ts_strmap_release(&t->node_selector);
    ts_tolerations_free(t->tolerations, t->n_tolerations);
    terms_free(t->affinity_terms, t->n_affinity_terms);
    free(t->priority_class_name);
    free(t->runtime_class_name);
    ts_resource_list_release(&t->pod_requests);
    ts_resource_list_release(&t->pod_limits);
    ts_pod_template_init(t);
}

static struct ts_container *containers_copy(const struct ts_container *src, size_t n)
{
    struct ts_container *dst = n ? ts_xcalloc(n, sizeof(*dst)) : NULL;

    for (size_t i = 0; i < n; i++) {
        dst[i].name = dup_or_null(src[i].name);
        dst[i].restart_policy = dup_or_null(src[i].restart_policy);
        ts_resource_list_copy(&dst[i].requests, &src[i].requests);
        ts_resource_list_copy(&dst[i].limits, &src[i].limits);
    }
    return dst;
}

static struct ts_node_selector_term *terms_copy(const struct ts_node_selector_term *src, size_t n)
{
    struct ts_node_selector_term *dst = n ? ts_xcalloc(n, sizeof(*dst)) : NULL;

    for (size_t i = 0; i < n; i++) {
        dst[i].n_exprs = src[i].n_exprs;
        dst[i].exprs = src[i].n_exprs ? ts_xcalloc(src[i].n_exprs, sizeof(*dst[i].exprs)) : NULL;
        for (size_t j = 0; j < src[i].n_exprs; j++) {
            dst[i].exprs[j].key = dup_or_null(src[i].exprs[j].key);
            dst[i].exprs[j].op = src[i].exprs[j].op;
            ts_strlist_copy(&dst[i].exprs[j].values, &src[i].exprs[j].values);
        }
    }
    return dst;
}

static void placement_copy(struct ts_pod_template *dst, const struct ts_pod_template *src)
{
    ts_strmap_copy(&dst->node_selector, &src->node_selector);
    dst->tolerations =
        src->n_tolerations ? ts_xcalloc(src->n_tolerations, sizeof(struct ts_toleration)) : NULL;
    for (size_t i = 0; i < src->n_tolerations; i++)
        ts_toleration_copy(&dst->tolerations[i], &src->tolerations[i]);
    dst->n_tolerations = src->n_tolerations;
    dst->has_required_affinity = src->has_required_affinity;
    dst->affinity_terms = terms_copy(src->affinity_terms, src->n_affinity_terms);
    dst->n_affinity_terms = src->n_affinity_terms;
}

void ts_pod_template_copy_placement(struct ts_pod_template *dst, const struct ts_pod_template *src)
{
    ts_pod_template_release(dst);
    placement_copy(dst, src);
}

void ts_pod_template_copy(struct ts_pod_template *dst, const struct ts_pod_template *src)
{
    ts_pod_template_release(dst);
    dst->raw = src->raw ? cJSON_Duplicate(src->raw, 1) : NULL;
    ts_strmap_copy(&dst->labels, &src->labels);
    ts_strmap_copy(&dst->annotations, &src->annotations);
    dst->containers = containers_copy(src->containers, src->n_containers);
    dst->n_containers = src->n_containers;
    dst->init_containers = containers_copy(src->init_containers, src->n_init_containers);
    dst->n_init_containers = src->n_init_containers;
    ts_resource_list_copy(&dst->overhead, &src->overhead);
    placement_copy(dst, src);
    dst->priority_class_name = dup_or_null(src->priority_class_name);
    dst->runtime_class_name = dup_or_null(src->runtime_class_name);
    ts_resource_list_copy(&dst->pod_requests, &src->pod_requests);
    ts_resource_list_copy(&dst->pod_limits, &src->pod_limits);
}

/* --- decode -------------------------------------------------------------- */

static void resources_decode(struct ts_dec *d, const cJSON *obj, struct ts_resource_list *req,
                             struct ts_resource_list *lim)
{
    const cJSON *res = ts_dec_object(d, obj, "resources");
    size_t mark;

    if (!res)
        return;
    mark = ts_path_push(&d->path, "resources");
    ts_dec_resource_list(d, res, "requests", req);
    ts_dec_resource_list(d, res, "limits", lim);
    ts_path_pop(&d->path, mark);
}

static void containers_decode(struct ts_dec *d, const cJSON *spec, const char *key, int init,
                              struct ts_container **out, size_t *n)
{
    const cJSON *a = ts_dec_array(d, spec, key);
    const cJSON *e;
    size_t mark, i = 0;

    if (!a)
        return;
    *out = ts_xcalloc((size_t)cJSON_GetArraySize(a), sizeof(**out));
    mark = ts_path_push(&d->path, key);
    cJSON_ArrayForEach(e, a)
    {
        struct ts_container *c = &(*out)[i];
        size_t im = ts_path_push_index(&d->path, i++);

        ts_resource_list_init(&c->requests);
        ts_resource_list_init(&c->limits);
        ts_dec_string(d, e, "name", &c->name);
        resources_decode(d, e, &c->requests, &c->limits);
        if (init)
            ts_dec_string(d, e, "restartPolicy", &c->restart_policy);
        ts_path_pop(&d->path, im);
    }
    *n = i;
    ts_path_pop(&d->path, mark);
}

static void exprs_decode(struct ts_dec *d, const cJSON *term, struct ts_node_selector_term *t)
{
    const cJSON *a = ts_dec_array(d, term, "matchExpressions");
    const cJSON *e;
    size_t mark, i = 0;

    if (!a)
        return;
    t->exprs = ts_xcalloc((size_t)cJSON_GetArraySize(a), sizeof(*t->exprs));
    mark = ts_path_push(&d->path, "matchExpressions");
    cJSON_ArrayForEach(e, a)
    {
        struct ts_node_selector_req *r = &t->exprs[i];
        size_t im = ts_path_push_index(&d->path, i++);
        int op = 0;

        ts_dec_string(d, e, "key", &r->key);
        if (ts_dec_enum(d, e, "operator", op_names, &op) == 0)
            ts_dec_error(d, TS_FIELD_REQUIRED, "operator", NULL, "%s", "");
        r->op = (enum ts_node_selector_op)op;
        ts_dec_strlist(d, e, "values", &r->values);
        ts_path_pop(&d->path, im);
    }
    t->n_exprs = i;
    ts_path_pop(&d->path, mark);
}

static void affinity_decode(struct ts_dec *d, const cJSON *spec, struct ts_pod_template *t)
{
    const cJSON *aff = ts_dec_object(d, spec, "affinity");
    const cJSON *na, *req, *terms, *e;
    size_t mark, i = 0;

    if (!aff)
        return;
    mark = ts_path_push(&d->path, "affinity");
    na = ts_dec_object(d, aff, "nodeAffinity");
    ts_path_push(&d->path, "nodeAffinity");
    req = ts_dec_object(d, na, REQUIRED_KEY);
    ts_path_push(&d->path, REQUIRED_KEY);
    terms = ts_dec_array(d, req, "nodeSelectorTerms");
    t->has_required_affinity = req != NULL;
    if (terms) {
        t->affinity_terms =
            ts_xcalloc((size_t)cJSON_GetArraySize(terms), sizeof(*t->affinity_terms));
        ts_path_push(&d->path, "nodeSelectorTerms");
        cJSON_ArrayForEach(e, terms)
        {
            size_t im = ts_path_push_index(&d->path, i);

            exprs_decode(d, e, &t->affinity_terms[i++]);
            ts_path_pop(&d->path, im);
        }
        t->n_affinity_terms = i;
    }
    ts_path_pop(&d->path, mark);
}

static void spec_decode(struct ts_dec *d, const cJSON *spec, struct ts_pod_template *t)
{
    containers_decode(d, spec, "initContainers", 1, &t->init_containers, &t->n_init_containers);
    containers_decode(d, spec, "containers", 0, &t->containers, &t->n_containers);
    ts_dec_resource_list(d, spec, "overhead", &t->overhead);
    ts_dec_strmap(d, spec, "nodeSelector", &t->node_selector);
    ts_tolerations_decode(d, spec, "tolerations", &t->tolerations, &t->n_tolerations);
    affinity_decode(d, spec, t);
    ts_dec_string(d, spec, "priorityClassName", &t->priority_class_name);
    ts_dec_string(d, spec, "runtimeClassName", &t->runtime_class_name);
    resources_decode(d, spec, &t->pod_requests, &t->pod_limits);
}

void ts_pod_template_decode(struct ts_dec *d, const cJSON *tmpl, struct ts_pod_template *t)
{
    const cJSON *md, *spec;
    size_t mark;

    ts_pod_template_release(t);
    if (!tmpl || cJSON_IsNull(tmpl))
        return;
    if (!cJSON_IsObject(tmpl)) {
        ts_dec_error(d, TS_FIELD_TYPE_INVALID, NULL, NULL, "must be of type object");
        return;
    }
    if (!(d->flags & TS_DECODE_NO_RAW))
        t->raw = cJSON_Duplicate(tmpl, 1);
    md = ts_dec_object(d, tmpl, "metadata");
    mark = ts_path_push(&d->path, "metadata");
    ts_dec_strmap(d, md, "labels", &t->labels);
    ts_dec_strmap(d, md, "annotations", &t->annotations);
    ts_path_pop(&d->path, mark);
    spec = ts_dec_object(d, tmpl, "spec");
    mark = ts_path_push(&d->path, "spec");
    if (spec)
        spec_decode(d, spec, t);
    ts_path_pop(&d->path, mark);
}

/* --- encode -------------------------------------------------------------- */

static void container_encode(cJSON *co, const struct ts_container *c, int init)
{
    int had = cJSON_GetObjectItemCaseSensitive(co, "resources") != NULL;
    cJSON *res = ts__podtemplate_child(co, "resources", 1);

    ts__podtemplate_put_string(co, "name", c->name);
    ts__podtemplate_put_resources(res, "limits", &c->limits);
    ts__podtemplate_put_resources(res, "requests", &c->requests);
    if (!had)
        ts__podtemplate_prune(co, "resources");
    if (init)
        ts__podtemplate_put_string(co, "restartPolicy", c->restart_policy);
}

static void containers_encode(cJSON *spec, const char *key, const struct ts_container *c, size_t n,
                              int init)
{
    cJSON *old = cJSON_GetObjectItemCaseSensitive(spec, key);
    int old_n = cJSON_IsArray(old) ? cJSON_GetArraySize(old) : 0;
    cJSON *arr;

    if (!n) {
        ts__podtemplate_put(spec, key, NULL);
        return;
    }
    arr = cJSON_CreateArray();
    for (size_t i = 0; i < n; i++) {
        cJSON *co = (int)i < old_n ? cJSON_Duplicate(cJSON_GetArrayItem(old, (int)i), 1) : NULL;

        if (!cJSON_IsObject(co)) {
            cJSON_Delete(co);
            co = cJSON_CreateObject();
        }
        container_encode(co, &c[i], init);
        cJSON_AddItemToArray(arr, co);
    }
    ts__podtemplate_put(spec, key, arr);
}

static cJSON *expr_encode(const struct ts_node_selector_req *r)
{
    cJSON *o = cJSON_CreateObject();

    ts_enc_string(o, "key", r->key);
    ts_enc_string(o, "operator", ts_node_selector_op_name(r->op));
    ts_enc_strlist(o, "values", &r->values);
    return o;
}

static cJSON *required_encode(const cJSON *old, const struct ts_pod_template *t)
{
    cJSON *req = cJSON_IsObject(old) ? cJSON_Duplicate(old, 1) : cJSON_CreateObject();
    const cJSON *old_terms = cJSON_GetObjectItemCaseSensitive(old, "nodeSelectorTerms");
    int old_n = cJSON_IsArray(old_terms) ? cJSON_GetArraySize(old_terms) : 0;
    cJSON *arr = cJSON_CreateArray();

    for (size_t i = 0; i < t->n_affinity_terms; i++) {
        const struct ts_node_selector_term *term = &t->affinity_terms[i];
        cJSON *o =
            (int)i < old_n ? cJSON_Duplicate(cJSON_GetArrayItem(old_terms, (int)i), 1) : NULL;
        cJSON *exprs = term->n_exprs ? cJSON_CreateArray() : NULL;

        if (!cJSON_IsObject(o)) {
            cJSON_Delete(o);
            o = cJSON_CreateObject();
        }
        for (size_t j = 0; j < term->n_exprs; j++)
            cJSON_AddItemToArray(exprs, expr_encode(&term->exprs[j]));
        ts__podtemplate_put(o, "matchExpressions", exprs);
        cJSON_AddItemToArray(arr, o);
    }
    ts__podtemplate_put(req, "nodeSelectorTerms", arr);
    return req;
}

static void affinity_encode(cJSON *spec, const struct ts_pod_template *t)
{
    cJSON *aff = ts__podtemplate_child(spec, "affinity", t->has_required_affinity);
    cJSON *na = aff ? ts__podtemplate_child(aff, "nodeAffinity", t->has_required_affinity) : NULL;

    if (!na)
        return;
    if (t->has_required_affinity) {
        ts__podtemplate_put(na, REQUIRED_KEY,
                            required_encode(cJSON_GetObjectItemCaseSensitive(na, REQUIRED_KEY), t));
        return;
    }
    cJSON_DeleteItemFromObjectCaseSensitive(na, REQUIRED_KEY);
    ts__podtemplate_prune(aff, "nodeAffinity");
    ts__podtemplate_prune(spec, "affinity");
}

static void tolerations_encode(cJSON *spec, const struct ts_pod_template *t)
{
    cJSON *tmp = cJSON_CreateObject();

    ts_tolerations_encode(t->tolerations, t->n_tolerations, tmp, "tolerations");
    ts__podtemplate_put(spec, "tolerations", detach(tmp, "tolerations"));
}

static void spec_encode(cJSON *spec, const struct ts_pod_template *t)
{
    int had_res = cJSON_GetObjectItemCaseSensitive(spec, "resources") != NULL;
    cJSON *res;

    containers_encode(spec, "initContainers", t->init_containers, t->n_init_containers, 1);
    containers_encode(spec, "containers", t->containers, t->n_containers, 0);
    ts__podtemplate_put_resources(spec, "overhead", &t->overhead);
    ts__podtemplate_put_strmap(spec, "nodeSelector", &t->node_selector);
    tolerations_encode(spec, t);
    affinity_encode(spec, t);
    ts__podtemplate_put_string(spec, "priorityClassName", t->priority_class_name);
    ts__podtemplate_put_string(spec, "runtimeClassName", t->runtime_class_name);
    res = ts__podtemplate_child(spec, "resources", 1);
    ts__podtemplate_put_resources(res, "limits", &t->pod_limits);
    ts__podtemplate_put_resources(res, "requests", &t->pod_requests);
    if (!had_res)
        ts__podtemplate_prune(spec, "resources");
}

cJSON *ts_pod_template_encode(const struct ts_pod_template *t)
{
    cJSON *o = t->raw ? cJSON_Duplicate(t->raw, 1) : cJSON_CreateObject();
    int had_md = cJSON_GetObjectItemCaseSensitive(o, "metadata") != NULL;
    int had_spec = cJSON_GetObjectItemCaseSensitive(o, "spec") != NULL;
    cJSON *md = ts__podtemplate_child(o, "metadata", 1);

    ts__podtemplate_put_strmap(md, "labels", &t->labels);
    ts__podtemplate_put_strmap(md, "annotations", &t->annotations);
    if (!had_md)
        ts__podtemplate_prune(o, "metadata");
    spec_encode(ts__podtemplate_child(o, "spec", 1), t);
    if (!had_spec)
        ts__podtemplate_prune(o, "spec");
    return o;
}

/* Drops null members: an API server prunes them (a job template's
 * "creationTimestamp": null), so null and absent mean the same. */
static void drop_nulls(cJSON *v)
{
    cJSON *c = v ? v->child : NULL;

    while (c) {
        cJSON *next = c->next;

        if (cJSON_IsNull(c) && cJSON_IsObject(v))
            cJSON_Delete(cJSON_DetachItemViaPointer(v, c));
        else
            drop_nulls(c);
        c = next;
    }
}

int ts_pod_template_equal(const struct ts_pod_template *a, const struct ts_pod_template *b)
{
    cJSON *ea = ts_pod_template_encode(a);
    cJSON *eb = ts_pod_template_encode(b);
    int eq;

    drop_nulls(ea);
    drop_nulls(eb);
    eq = ts_json_equal(ea, eb);
    cJSON_Delete(ea);
    cJSON_Delete(eb);
    return eq;
}

void ts__podtemplate_put_template(cJSON *obj, const char *key, const struct ts_pod_template *t)
{
    cJSON *enc = ts_pod_template_encode(t);

    if (!enc->child && !cJSON_GetObjectItemCaseSensitive(obj, key)) {
        cJSON_Delete(enc);
        return;
    }
    ts__podtemplate_put(obj, key, enc);
}
