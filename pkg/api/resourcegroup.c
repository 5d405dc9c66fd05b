#include "api/resourcegroup.h"

#include "api/enc.h"
#include "api/names.h"
#include "util/alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- ResourceGroup: lifecycle, decode, encode ------------------------------ */

void ts_resource_groups_init(struct ts_resource_groups *g)
{
    g->items = NULL;
    g->n = 0;
}

static void flavor_release(struct ts_flavor_quotas *f)
{
    for (size_t i = 0; i < f->n_resources; i++)
        free(f->resources[i].name);
    free(f->resources);
    free(f->name);
}

void ts_resource_groups_release(struct ts_resource_groups *g)
{
    for (size_t i = 0; i < g->n; i++) {
        struct ts_resource_group *rg = &g->items[i];

        ts_strlist_release(&rg->covered_resources);
        for (size_t j = 0; j < rg->n_flavors; j++)
            flavor_release(&rg->flavors[j]);
        free(rg->flavors);
    }
    free(g->items);
    ts_resource_groups_init(g);
}

static void quota_decode(struct ts_dec *d, const cJSON *e, void *item)
{
    struct ts_resource_quota *q = item;

    ts__queue_dec_required_string(d, e, "name", &q->name);
    if (ts_dec_quantity(d, e, "nominalQuota", &q->nominal_quota) == 0)
        ts_dec_error(d, TS_FIELD_REQUIRED, "nominalQuota", NULL, "%s", "");
    ts_dec_opt_quantity(d, e, "borrowingLimit", &q->borrowing_limit);
    ts_dec_opt_quantity(d, e, "lendingLimit", &q->lending_limit);
}

static void flavor_decode(struct ts_dec *d, const cJSON *e, void *item)
{
    struct ts_flavor_quotas *f = item;
    void *res = NULL;

    ts__queue_dec_required_string(d, e, "name", &f->name);
    f->n_resources =
        ts__queue_dec_array(d, e, "resources", 1, sizeof(*f->resources), quota_decode, &res);
    f->resources = res;
}

static void group_decode(struct ts_dec *d, const cJSON *e, void *item)
{
    struct ts_resource_group *rg = item;
    void *fl = NULL;

    if (ts_dec_strlist(d, e, "coveredResources", &rg->covered_resources) == 0)
        ts_dec_error(d, TS_FIELD_REQUIRED, "coveredResources", NULL, "%s", "");
    rg->n_flavors =
        ts__queue_dec_array(d, e, "flavors", 1, sizeof(*rg->flavors), flavor_decode, &fl);
    rg->flavors = fl;
}

void ts_resource_groups_decode(struct ts_dec *d, const cJSON *obj, const char *key,
                               struct ts_resource_groups *g)
{
    void *items = NULL;

    g->n = ts__queue_dec_array(d, obj, key, 0, sizeof(*g->items), group_decode, &items);
    g->items = items;
}

static void quota_encode(const struct ts_resource_quota *q, cJSON *a)
{
    cJSON *o = cJSON_CreateObject();

    ts_enc_string(o, "name", q->name);
    ts_enc_quantity(o, "nominalQuota", &q->nominal_quota);
    ts_enc_opt_quantity(o, "borrowingLimit", &q->borrowing_limit);
    ts_enc_opt_quantity(o, "lendingLimit", &q->lending_limit);
    cJSON_AddItemToArray(a, o);
}

static void group_encode(const struct ts_resource_group *rg, cJSON *a)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *fa;

    ts_enc_strlist(o, "coveredResources", &rg->covered_resources);
    fa = ts_enc_array(o, "flavors");
    for (size_t j = 0; j < rg->n_flavors; j++) {
        const struct ts_flavor_quotas *f = &rg->flavors[j];
        cJSON *fo = cJSON_CreateObject();
        cJSON *ra;

        ts_enc_string(fo, "name", f->name);
        ra = ts_enc_array(fo, "resources");
        for (size_t k = 0; k < f->n_resources; k++)
            quota_encode(&f->resources[k], ra);
        cJSON_AddItemToArray(fa, fo);
    }
    cJSON_AddItemToArray(a, o);
}

void ts_resource_groups_encode(const struct ts_resource_groups *g, cJSON *obj, const char *key)
{
    cJSON *a;

    if (!g->n)
        return;
    a = ts_enc_array(obj, key);
    for (size_t i = 0; i < g->n; i++)
        group_encode(&g->items[i], a);
}

/* --- ResourceGroup: lookups ---------------------------------------------- */

const struct ts_flavor_quotas *ts_resource_groups_find_flavor(const struct ts_resource_groups *g,
                                                              const char *name, size_t *group)
{
    for (size_t i = 0; i < g->n; i++) {
        for (size_t j = 0; j < g->items[i].n_flavors; j++) {
            const struct ts_flavor_quotas *f = &g->items[i].flavors[j];

            if (f->name && strcmp(f->name, name) == 0) {
                if (group)
                    *group = i;
                return f;
            }
        }
    }
    return NULL;
}

long ts_resource_groups_group_of(const struct ts_resource_groups *g, const char *resource)
{
    for (size_t i = 0; i < g->n; i++) {
        if (ts_strlist_index(&g->items[i].covered_resources, resource) >= 0)
            return (long)i;
    }
    return -1;
}

const struct ts_resource_quota *ts_flavor_quotas_find(const struct ts_flavor_quotas *f,
                                                      const char *resource)
{
    for (size_t k = 0; k < f->n_resources; k++) {
        if (f->resources[k].name && strcmp(f->resources[k].name, resource) == 0)
            return &f->resources[k];
    }
    return NULL;
}

int ts_resource_groups_has_borrowing_limit(const struct ts_resource_groups *g)
{
    for (size_t i = 0; i < g->n; i++) {
        for (size_t j = 0; j < g->items[i].n_flavors; j++) {
            const struct ts_flavor_quotas *f = &g->items[i].flavors[j];

            for (size_t k = 0; k < f->n_resources; k++) {
                if (f->resources[k].borrowing_limit.set)
                    return 1;
            }
        }
    }
    return 0;
}

/* --- ResourceGroup: CRD schema --------------------------------------------- */

/* listMap key uniqueness: "Duplicate value: {"name":"x"}" at the item. */
static void listmap_dup(const char *name, const char *const *seen, size_t n_seen, const char *path,
                        struct ts_field_errors *errs)
{
    for (size_t i = 0; name && i < n_seen; i++) {
        if (seen[i] && strcmp(seen[i], name) == 0) {
            struct ts_buf v = TS_BUF_INIT;

            ts_buf_addf(&v, "{\"name\":\"%s\"}", name);
            ts_field_errors_add(errs, TS_FIELD_DUPLICATE, path, v.ptr, 0, NULL);
            ts_buf_release(&v);
            return;
        }
    }
}

static void resources_schema(const struct ts_flavor_quotas *f, struct ts_path *p,
                             struct ts_field_errors *errs)
{
    size_t mark = ts_path_push(p, "resources");
    const char **seen = ts_xcalloc(f->n_resources + 1, sizeof(*seen));

    ts__queue_check_items(f->n_resources, 1, TS_RG_MAX_RESOURCES, ts_path_str(p), errs);
    for (size_t k = 0; k < f->n_resources; k++) {
        size_t m = ts_path_push_index(p, k);

        if (!f->resources[k].name) {
            ts_path_push(p, "name");
            ts_field_errors_add(errs, TS_FIELD_REQUIRED, ts_path_str(p), NULL, 0, NULL);
        } else {
            listmap_dup(f->resources[k].name, seen, k, ts_path_str(p), errs);
        }
        seen[k] = f->resources[k].name;
        ts_path_pop(p, m);
    }
    free(seen);
    ts_path_pop(p, mark);
}

static void flavor_schema(const struct ts_flavor_quotas *f, struct ts_path *p,
                          struct ts_field_errors *errs)
{
    size_t mark = ts_path_push(p, "name");

    if (!f->name)
        ts_field_errors_add(errs, TS_FIELD_REQUIRED, ts_path_str(p), NULL, 0, NULL);
    else
        ts__queue_check_ref(f->name, ts_path_str(p), errs);
    ts_path_pop(p, mark);
    resources_schema(f, p, errs);
}

static void group_schema(const struct ts_resource_group *rg, struct ts_path *p,
                         struct ts_field_errors *errs)
{
    size_t mark = ts_path_push(p, "coveredResources");
    const char **seen = ts_xcalloc(rg->n_flavors + 1, sizeof(*seen));
    int mismatch = 0;

    ts__queue_check_items(rg->covered_resources.n, 1, TS_RG_MAX_COVERED, ts_path_str(p), errs);
    ts_path_pop(p, mark);
    mark = ts_path_push(p, "flavors");
    ts__queue_check_items(rg->n_flavors, 1, TS_RG_MAX_FLAVORS, ts_path_str(p), errs);
    for (size_t j = 0; j < rg->n_flavors; j++) {
        size_t m = ts_path_push_index(p, j);

        flavor_schema(&rg->flavors[j], p, errs);
        listmap_dup(rg->flavors[j].name, seen, j, ts_path_str(p), errs);
        seen[j] = rg->flavors[j].name;
        mismatch |= rg->flavors[j].n_resources != rg->covered_resources.n;
        ts_path_pop(p, m);
    }
    free(seen);
    ts_path_pop(p, mark);
    if (mismatch)
        ts__queue_cel(errs, ts_path_str(p), "object",
                      "flavors must have the same number of resources as the coveredResources");
}

void ts_resource_groups_validate_schema(const struct ts_resource_groups *g, const char *path,
                                        struct ts_field_errors *errs)
{
    struct ts_path p;

    ts_path_init(&p, path);
    ts__queue_check_items(g->n, 0, TS_RG_MAX_GROUPS, path, errs);
    for (size_t i = 0; i < g->n; i++) {
        size_t m = ts_path_push_index(&p, i);

        group_schema(&g->items[i], &p, errs);
        ts_path_pop(&p, m);
    }
}

/* --- ResourceGroup: webhook ------------------------------------------------ */

static void quantity_invalid(const struct ts_quantity *q, const char *path, const char *msg,
                             struct ts_field_errors *errs)
{
    char buf[TS_QUANTITY_STR_MAX];

    ts_field_errors_add(errs, TS_FIELD_INVALID, path, ts_quantity_format(q, buf, sizeof(buf)), 1,
                        "%s", msg);
}

static void limit_check(const struct ts_opt_quantity *lim, const struct ts_quantity *nominal,
                        const struct ts_quota_rules *r, int lending, struct ts_path *p,
                        struct ts_field_errors *errs)
{
    size_t mark = ts_path_push(p, lending ? "lendingLimit" : "borrowingLimit");

    if (!lim->set) {
        ts_path_pop(p, mark);
        return;
    }
    /* Kueue's order: borrowing (parent, sign), lending (sign, parent, nominal) */
    if (lending)
        ts__queue_check_nonneg(&lim->q, ts_path_str(p), errs);
    if (!r->has_parent)
        quantity_invalid(&lim->q, ts_path_str(p), r->no_parent_msg, errs);
    if (!lending)
        ts__queue_check_nonneg(&lim->q, ts_path_str(p), errs);
    if (lending && r->lending_le_nominal && ts_quantity_cmp(nominal, &lim->q) < 0)
        quantity_invalid(&lim->q, ts_path_str(p), "must be less than or equal to the nominalQuota",
                         errs);
    ts_path_pop(p, mark);
}

static void quota_webhook(const struct ts_resource_quota *q, const char *covered,
                          const struct ts_quota_rules *r, struct ts_path *p,
                          struct ts_field_errors *errs)
{
    size_t mark = ts_path_push(p, "name");

    if (q->name && strcmp(q->name, covered) != 0)
        ts_field_errors_add(errs, TS_FIELD_INVALID, ts_path_str(p), q->name, 1,
                            "must match the name in coveredResources");
    ts_path_pop(p, mark);
    mark = ts_path_push(p, "nominalQuota");
    ts__queue_check_nonneg(&q->nominal_quota, ts_path_str(p), errs);
    ts_path_pop(p, mark);
    limit_check(&q->borrowing_limit, &q->nominal_quota, r, 0, p, errs);
    limit_check(&q->lending_limit, &q->nominal_quota, r, 1, p, errs);
}

static void flavor_webhook(const struct ts_flavor_quotas *f, const struct ts_strlist *covered,
                           const struct ts_quota_rules *r, struct ts_path *p,
                           struct ts_field_errors *errs)
{
    size_t mark = ts_path_push(p, "resources");

    for (size_t k = 0; k < f->n_resources && k < covered->n; k++) {
        size_t m = ts_path_push_index(p, k);

        quota_webhook(&f->resources[k], covered->items[k], r, p, errs);
        ts_path_pop(p, m);
    }
    ts_path_pop(p, mark);
}

/* Reports name at path as Duplicate when already in seen, else records it. */
static void seen_check(struct ts_strlist *seen, const char *name, const char *path,
                       struct ts_field_errors *errs)
{
    if (!name)
        return;
    if (ts_strlist_index(seen, name) >= 0)
        ts_field_errors_add(errs, TS_FIELD_DUPLICATE, path, name, 1, NULL);
    else
        ts_strlist_push(seen, name);
}

static void group_webhook(const struct ts_resource_group *rg, const struct ts_quota_rules *r,
                          struct ts_path *p, struct ts_strlist seen[2],
                          struct ts_field_errors *errs)
{
    size_t mark = ts_path_push(p, "coveredResources");

    for (size_t j = 0; j < rg->covered_resources.n; j++) {
        size_t m = ts_path_push_index(p, j);

        ts_names_qualified(rg->covered_resources.items[j], ts_path_str(p), errs);
        seen_check(&seen[0], rg->covered_resources.items[j], ts_path_str(p), errs);
        ts_path_pop(p, m);
    }
    ts_path_pop(p, mark);
    mark = ts_path_push(p, "flavors");
    for (size_t j = 0; j < rg->n_flavors; j++) {
        size_t m = ts_path_push_index(p, j);
        size_t m2;

        flavor_webhook(&rg->flavors[j], &rg->covered_resources, r, p, errs);
        m2 = ts_path_push(p, "name");
        seen_check(&seen[1], rg->flavors[j].name, ts_path_str(p), errs);
        ts_path_pop(p, m2);
        ts_path_pop(p, m);
    }
    ts_path_pop(p, mark);
}

static void totals_check(const struct ts_resource_groups *g, struct ts_path *p,
                         struct ts_field_errors *errs)
{
    size_t flavors = 0, covered = 0;
    char num[32];

    for (size_t i = 0; i < g->n; i++) {
        size_t combos = g->items[i].n_flavors * g->items[i].covered_resources.n;
        size_t m = ts_path_push_index(p, i);

        flavors += g->items[i].n_flavors;
        covered += g->items[i].covered_resources.n;
        snprintf(num, sizeof(num), "%zu", combos);
        if (combos > TS_RG_MAX_GROUP_COMBINATIONS)
            ts_field_errors_add(errs, TS_FIELD_INVALID, ts_path_str(p), num, 0,
                                "number of flavor-resource combinations in a resourceGroup "
                                "must be ≤ %d, got %zu",
                                TS_RG_MAX_GROUP_COMBINATIONS, combos);
        ts_path_pop(p, m);
    }
    snprintf(num, sizeof(num), "%zu", flavors);
    if (flavors > TS_RG_MAX_TOTAL_FLAVORS)
        ts_field_errors_add(errs, TS_FIELD_INVALID, ts_path_str(p), num, 0,
                            "total number of flavors across all resourceGroups must be ≤ %d, "
                            "got %zu",
                            TS_RG_MAX_TOTAL_FLAVORS, flavors);
    snprintf(num, sizeof(num), "%zu", covered);
    if (covered > TS_RG_MAX_TOTAL_COVERED)
        ts_field_errors_add(errs, TS_FIELD_INVALID, ts_path_str(p), num, 0,
                            "total number of covered resources across all resourceGroups must be "
                            "≤ %d, got %zu",
                            TS_RG_MAX_TOTAL_COVERED, covered);
}

void ts_resource_groups_validate(const struct ts_resource_groups *g,
                                 const struct ts_quota_rules *rules, const char *path,
                                 struct ts_field_errors *errs)
{
    struct ts_strlist seen[2] = {TS_STRLIST_INIT, TS_STRLIST_INIT};
    struct ts_path p;

    ts_path_init(&p, path);
    for (size_t i = 0; i < g->n; i++) {
        size_t m = ts_path_push_index(&p, i);

        group_webhook(&g->items[i], rules, &p, seen, errs);
        ts_path_pop(&p, m);
    }
    if (rules->limit_totals)
        totals_check(g, &p, errs);
    ts_strlist_release(&seen[0]);
    ts_strlist_release(&seen[1]);
}
