/* The non-quota parts of resourcegroup.h: FairSharing, usage lists,
 * StopPolicy and the ts__queue_* helpers the kind modules share. */
#include "api/resourcegroup.h"

#include "api/enc.h"
#include "api/names.h"
#include "util/alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- FairSharing ----------------------------------------------------------- */

void ts_fair_sharing_init(struct ts_fair_sharing *fs)
{
    memset(fs, 0, sizeof(*fs));
}

void ts_fair_sharing_decode(struct ts_dec *d, const cJSON *obj, const char *key,
                            struct ts_fair_sharing *fs)
{
    const cJSON *o = ts_dec_object(d, obj, key);
    size_t mark;

    if (!o)
        return;
    fs->set = 1;
    fs->weight = ts_quantity_from_int(1, TS_QUANTITY_DECIMAL_SI);
    mark = ts_path_push(&d->path, key);
    ts_dec_quantity(d, o, "weight", &fs->weight);
    ts_path_pop(&d->path, mark);
}

void ts_fair_sharing_encode(const struct ts_fair_sharing *fs, cJSON *obj, const char *key)
{
    if (fs->set)
        ts_enc_quantity(ts_enc_object(obj, key), "weight", &fs->weight);
}

void ts_fair_sharing_validate(const struct ts_fair_sharing *fs, const char *path,
                              struct ts_field_errors *errs)
{
    struct ts_quantity one_nano = {1, -9, TS_QUANTITY_DECIMAL_SI};
    char buf[TS_QUANTITY_STR_MAX];

    /* Kueue names the fairSharing object, not its weight, in these errors */
    if (!fs->set)
        return;
    ts__queue_check_nonneg(&fs->weight, path, errs);
    if (ts_quantity_sign(&fs->weight) > 0 && ts_quantity_cmp(&fs->weight, &one_nano) <= 0)
        ts_field_errors_add(errs, TS_FIELD_INVALID, path,
                            ts_quantity_format(&fs->weight, buf, sizeof(buf)), 1,
                            "When not 0, weight must be > 10e-9");
}

struct ts_quantity ts_fair_sharing_weight(const struct ts_fair_sharing *fs)
{
    return fs->set ? fs->weight : ts_quantity_from_int(1, TS_QUANTITY_DECIMAL_SI);
}

void ts_fair_sharing_status_init(struct ts_fair_sharing_status *s)
{
    memset(s, 0, sizeof(*s));
}

void ts_fair_sharing_status_release(struct ts_fair_sharing_status *s)
{
    ts_resource_list_release(&s->consumed_resources);
    ts_fair_sharing_status_init(s);
}

void ts_fair_sharing_status_decode(struct ts_dec *d, const cJSON *obj, const char *key,
                                   struct ts_fair_sharing_status *s)
{
    const cJSON *o = ts_dec_object(d, obj, key);
    const cJSON *a;
    size_t mark;

    if (!o)
        return;
    s->set = 1;
    mark = ts_path_push(&d->path, key);
    ts_dec_i64(d, o, "weightedShare", &s->weighted_share);
    a = ts_dec_object(d, o, "admissionFairSharingStatus");
    if (a) {
        size_t m2 = ts_path_push(&d->path, "admissionFairSharingStatus");

        s->has_admission = 1;
        ts_dec_resource_list(d, a, "consumedResources", &s->consumed_resources);
        ts_dec_time(d, a, "lastUpdate", &s->last_update);
        ts_path_pop(&d->path, m2);
    }
    ts_path_pop(&d->path, mark);
}

void ts_fair_sharing_status_encode(const struct ts_fair_sharing_status *s, cJSON *obj,
                                   const char *key)
{
    cJSON *o;

    if (!s->set)
        return;
    o = ts_enc_object(obj, key);
    ts_enc_int(o, "weightedShare", s->weighted_share);
    if (s->has_admission) {
        cJSON *a = ts_enc_object(o, "admissionFairSharingStatus");

        ts_enc_resource_list(a, "consumedResources", &s->consumed_resources);
        ts_enc_time(a, "lastUpdate", s->last_update);
    }
}

/* --- usage lists ----------------------------------------------------------- */

void ts_flavor_usages_init(struct ts_flavor_usages *u)
{
    u->items = NULL;
    u->n = 0;
}

void ts_flavor_usages_release(struct ts_flavor_usages *u)
{
    for (size_t i = 0; i < u->n; i++) {
        for (size_t k = 0; k < u->items[i].n_resources; k++)
            free(u->items[i].resources[k].name);
        free(u->items[i].resources);
        free(u->items[i].name);
    }
    free(u->items);
    ts_flavor_usages_init(u);
}

static void resource_usage_decode(struct ts_dec *d, const cJSON *e, void *item)
{
    struct ts_resource_usage *r = item;

    ts__queue_dec_required_string(d, e, "name", &r->name);
    ts_dec_quantity(d, e, "total", &r->total);
    ts_dec_quantity(d, e, "borrowed", &r->borrowed);
}

static void flavor_usage_decode(struct ts_dec *d, const cJSON *e, void *item)
{
    struct ts_flavor_usage *f = item;
    void *res = NULL;

    ts__queue_dec_required_string(d, e, "name", &f->name);
    f->n_resources = ts__queue_dec_array(d, e, "resources", 0, sizeof(*f->resources),
                                         resource_usage_decode, &res);
    f->resources = res;
}

void ts_flavor_usages_decode(struct ts_dec *d, const cJSON *obj, const char *key,
                             struct ts_flavor_usages *u)
{
    void *items = NULL;

    u->n = ts__queue_dec_array(d, obj, key, 0, sizeof(*u->items), flavor_usage_decode, &items);
    u->items = items;
}

void ts_flavor_usages_encode(const struct ts_flavor_usages *u, cJSON *obj, const char *key,
                             unsigned flags)
{
    cJSON *a;

    if (!u->n)
        return;
    a = ts_enc_array(obj, key);
    for (size_t i = 0; i < u->n; i++) {
        cJSON *fo = cJSON_CreateObject();
        cJSON *ra;

        ts_enc_string(fo, "name", u->items[i].name);
        ra = ts_enc_array(fo, "resources");
        for (size_t k = 0; k < u->items[i].n_resources; k++) {
            const struct ts_resource_usage *r = &u->items[i].resources[k];
            cJSON *ro = cJSON_CreateObject();

            ts_enc_string(ro, "name", r->name);
            ts_enc_quantity(ro, "total", &r->total);
            if (flags & TS_USAGE_WITH_BORROWED)
                ts_enc_quantity(ro, "borrowed", &r->borrowed);
            cJSON_AddItemToArray(ra, ro);
        }
        cJSON_AddItemToArray(a, fo);
    }
}

void ts_flavor_usages_validate_schema(const struct ts_flavor_usages *u, const char *path,
                                      struct ts_field_errors *errs)
{
    struct ts_path p;

    ts_path_init(&p, path);
    ts__queue_check_items(u->n, 0, TS_USAGE_MAX_FLAVORS, path, errs);
    for (size_t i = 0; i < u->n; i++) {
        size_t m = ts_path_push_index(&p, i);

        ts_path_push(&p, "resources");
        ts__queue_check_items(u->items[i].n_resources, 0, TS_RG_MAX_RESOURCES, ts_path_str(&p),
                              errs);
        ts_path_pop(&p, m);
    }
}

static struct ts_flavor_usage *usage_flavor(struct ts_flavor_usages *u, const char *flavor)
{
    struct ts_flavor_usage *f;

    for (size_t i = 0; i < u->n; i++) {
        if (u->items[i].name && strcmp(u->items[i].name, flavor) == 0)
            return &u->items[i];
    }
    u->items = ts_xrealloc(u->items, (u->n + 1) * sizeof(*u->items));
    f = &u->items[u->n++];
    memset(f, 0, sizeof(*f));
    f->name = ts_xstrdup(flavor);
    return f;
}

struct ts_resource_usage *ts_flavor_usages_at(struct ts_flavor_usages *u, const char *flavor,
                                              const char *resource)
{
    struct ts_flavor_usage *f = usage_flavor(u, flavor);
    struct ts_resource_usage *r;

    for (size_t k = 0; k < f->n_resources; k++) {
        if (f->resources[k].name && strcmp(f->resources[k].name, resource) == 0)
            return &f->resources[k];
    }
    f->resources = ts_xrealloc(f->resources, (f->n_resources + 1) * sizeof(*f->resources));
    r = &f->resources[f->n_resources++];
    memset(r, 0, sizeof(*r));
    r->name = ts_xstrdup(resource);
    return r;
}

/* --- StopPolicy ------------------------------------------------------------ */

static const char *const stop_names[] = {"None", "Hold", "HoldAndDrain", NULL};

const char *ts_stop_policy_name(enum ts_stop_policy p)
{
    return (unsigned)p <= TS_STOP_HOLD_AND_DRAIN ? stop_names[p] : "None";
}

void ts_stop_policy_decode(struct ts_dec *d, const cJSON *obj, const char *key,
                           enum ts_stop_policy *p)
{
    int v = (int)*p;

    ts__queue_dec_enum(d, obj, key, stop_names, 0, &v);
    *p = (enum ts_stop_policy)v;
}

/* --- shared helpers ---------------------------------------------------------- */

size_t ts__queue_dec_array(struct ts_dec *d, const cJSON *obj, const char *key, int required,
                           size_t elem, ts__queue_elem_fn fn, void **out)
{
    const cJSON *raw = obj ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
    const cJSON *a = ts_dec_array(d, obj, key);
    const cJSON *e;
    char *items;
    size_t mark, i = 0;

    *out = NULL;
    if (!a) {
        if (required && (!raw || cJSON_IsNull(raw)))
            ts_dec_error(d, TS_FIELD_REQUIRED, key, NULL, "%s", "");
        return 0;
    }
    items = ts_xcalloc((size_t)cJSON_GetArraySize(a), elem);
    mark = ts_path_push(&d->path, key);
    cJSON_ArrayForEach(e, a)
    {
        size_t m = ts_path_push_index(&d->path, i);

        if (cJSON_IsObject(e)) {
            fn(d, e, items + i * elem);
        } else {
            char *r = ts_dec_render(e);

            ts_dec_error(d, TS_FIELD_TYPE_INVALID, NULL, r, "must be of type object");
            free(r);
        }
        ts_path_pop(&d->path, m);
        i++;
    }
    ts_path_pop(&d->path, mark);
    *out = items;
    return i;
}

void ts__queue_dec_required_string(struct ts_dec *d, const cJSON *obj, const char *key, char **out)
{
    if (ts_dec_string(d, obj, key, out) == 0)
        ts_dec_error(d, TS_FIELD_REQUIRED, key, NULL, "%s", "");
}

int ts__queue_dec_enum(struct ts_dec *d, const cJSON *obj, const char *key,
                       const char *const *table, int offset, int *out)
{
    int idx;
    int rc = ts_dec_enum(d, obj, key, table, &idx);

    if (rc == 1)
        *out = idx + offset;
    return rc;
}

void ts__queue_dec_check_type(struct ts_dec *d, const cJSON *obj, const char *api_version,
                              const char *kind)
{
    const cJSON *av = cJSON_GetObjectItemCaseSensitive(obj, "apiVersion");
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(obj, "kind");

    if (cJSON_IsString(av) && strcmp(av->valuestring, api_version) != 0)
        ts_dec_error(d, TS_FIELD_INVALID, "apiVersion", av->valuestring,
                     "must be %s (convert the object first)", api_version);
    if (cJSON_IsString(k) && strcmp(k->valuestring, kind) != 0)
        ts_dec_error(d, TS_FIELD_INVALID, "kind", k->valuestring, "must be %s", kind);
}

cJSON *ts__queue_new_object(const char *api_version, const char *kind)
{
    cJSON *o = cJSON_CreateObject();

    cJSON_AddStringToObject(o, "apiVersion", api_version);
    cJSON_AddStringToObject(o, "kind", kind);
    return o;
}

#define REF_PATTERN "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"

void ts__queue_check_ref(const char *v, const char *path, struct ts_field_errors *errs)
{
    if (strlen(v) > 253) {
        ts_field_errors_add(errs, TS_FIELD_TOO_LONG, path, NULL, 0,
                            "may not be more than 253 bytes");
        return;
    }
    if (!ts_names_is_dns1123_subdomain(v))
        ts_field_errors_add(errs, TS_FIELD_INVALID, path, v, 1, "%s in body should match '%s'",
                            path, REF_PATTERN);
}

void ts__queue_check_items(size_t n, size_t min, size_t max, const char *path,
                           struct ts_field_errors *errs)
{
    char num[32];

    snprintf(num, sizeof(num), "%zu", n);
    if (n < min)
        ts_field_errors_add(errs, TS_FIELD_INVALID, path, num, 0,
                            "%s in body should have at least %zu items", path, min);
    if (max && n > max)
        ts_field_errors_add(errs, TS_FIELD_TOO_MANY, path, num, 0, "must have at most %zu items",
                            max);
}

void ts__queue_cel(struct ts_field_errors *errs, const char *path, const char *type,
                   const char *msg)
{
    /* kube-apiserver shows no value for a rule on an object or a list */
    int omit = !strcmp(type, "object") || !strcmp(type, "array");

    ts_field_errors_add(errs, TS_FIELD_INVALID, path, omit ? NULL : type, 1, "%s", msg);
}

void ts__queue_check_name(const struct ts_object_meta *m, int label, struct ts_field_errors *errs)
{
    if (!m->name || !m->name[0]) {
        if (!m->generate_name || !m->generate_name[0])
            ts_field_errors_add(errs, TS_FIELD_REQUIRED, "metadata.name", NULL, 0,
                                "name or generateName is required");
        return;
    }
    if (label)
        ts_names_dns1123_label(m->name, "metadata.name", errs);
    else
        ts_names_dns1123_subdomain(m->name, "metadata.name", errs);
}

void ts__queue_check_nonneg(const struct ts_quantity *q, const char *path,
                            struct ts_field_errors *errs)
{
    char buf[TS_QUANTITY_STR_MAX];

    if (ts_quantity_sign(q) < 0)
        ts_field_errors_add(errs, TS_FIELD_INVALID, path, ts_quantity_format(q, buf, sizeof(buf)),
                            1, "must be greater than or equal to 0");
}
