/* engine.c - lifecycle, name interning, flavors, namespaces and priority
 * classes.  Queues are in queues.c, workloads in workloads.c, the cycle in
 * cycle.c. */
#include "engine/engine.h"

#include "api/config.h"
#include "api/resourceflavor.h"
#include "engine/engine_int.h"
#include "util/alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ts_engine_config_init(struct ts_engine_config *c)
{
    memset(c, 0, sizeof(*c));
    c->partial_admission = 1;
}

void ts_engine_config_release(struct ts_engine_config *c)
{
    ts_resource_transforms_release(&c->resources);
    ts_engine_config_init(c);
}

void ts_engine_config_from(struct ts_engine_config *out, const struct ts_config *c)
{
    ts_engine_config_init(out);
    out->fair_sharing = c->fair_sharing;
    out->partial_admission = c->partial_admission;
    out->priority_boost = c->priority_boost;
    out->block_admission = c->wait_for_pods_ready && c->block_admission;
    out->n_strategies = c->n_strategies;
    for (size_t i = 0; i < c->n_strategies && i < 2; i++)
        out->strategies[i] = c->strategies[i] == TS_CONFIG_FS_LESS_THAN_INITIAL_SHARE
                                 ? TS_FS_LESS_THAN_INITIAL_SHARE
                                 : TS_FS_LESS_THAN_OR_EQUAL_TO_FINAL_SHARE;
    ts_resource_transforms_copy(&out->resources, &c->resources);
}

struct ts_engine *ts_engine_new(const struct ts_engine_config *config)
{
    struct ts_engine *e = ts_xcalloc(1, sizeof(*e));

    ts_engine_config_init(&e->config);
    if (config) {
        e->config = *config;
        ts_resource_transforms_init(&e->config.resources);
        ts_resource_transforms_copy(&e->config.resources, &config->resources);
    }
    return e;
}

static void flavor_free(struct ts__eng_flavor *f)
{
    if (!f)
        return;
    free(f->name);
    ts_strmap_release(&f->node_labels);
    ts_taints_free(f->taints, f->n_taints);
    ts_tolerations_free(f->tolerations, f->n_tolerations);
    free(f);
}

void ts_engine_free(struct ts_engine *e)
{
    size_t it = 0;
    const char *k;
    void *v;

    if (!e)
        return;
    ts__eng_free_workloads(e);
    ts__eng_free_queues(e);
    ts__eng_free_checks(e);
    while (ts_hmap_next(&e->flavors, &it, &k, &v))
        flavor_free(v);
    it = 0;
    while (ts_hmap_next(&e->namespaces, &it, &k, &v)) {
        ts_strmap_release(v);
        free(v);
    }
    ts_hmap_release(&e->flavors);
    ts_hmap_release(&e->namespaces);
    ts_hmap_release_free(&e->wpcs);
    ts_hmap_release_free(&e->pcs);
    ts_hmap_release(&e->resource_ids);
    ts_hmap_release(&e->fr_ids);
    ts_hmap_release(&e->status_gone);
    for (size_t i = 0; i < e->n_resources; i++)
        free(e->resource_names[i]);
    free(e->resource_names);
    for (size_t i = 0; i < e->nfr; i++)
        free(e->fr_flavor[i]);
    free(e->fr_flavor);
    free(e->fr_resource);
    free(e->scratch);
    ts_resource_transforms_release(&e->config.resources);
    free(e);
}

/* --- interning ------------------------------------------------------------ */

size_t ts__eng_resource_id(struct ts_engine *e, const char *name)
{
    void *v = ts_hmap_get(&e->resource_ids, name);

    if (v)
        return (size_t)((uintptr_t)v - 1);
    TS_GROW(e->resource_names, e->cap_resources, e->n_resources + 1);
    e->resource_names[e->n_resources] = ts_xstrdup(name);
    ts_hmap_put(&e->resource_ids, name, (void *)(uintptr_t)(e->n_resources + 1));
    return e->n_resources++;
}

long ts__eng_find_fr(const struct ts_engine *e, const char *flavor, const char *resource)
{
    char key[512];
    void *v;

    snprintf(key, sizeof(key), "%s/%s", flavor, resource);
    v = ts_hmap_get(&e->fr_ids, key);
    return v ? (long)((uintptr_t)v - 1) : -1;
}

size_t ts__eng_fr_id(struct ts_engine *e, const char *flavor, const char *resource)
{
    long id = ts__eng_find_fr(e, flavor, resource);
    char key[512];
    size_t cap_res = e->cap_fr;

    if (id >= 0)
        return (size_t)id;
    snprintf(key, sizeof(key), "%s/%s", flavor, resource);
    TS_GROW(e->fr_flavor, e->cap_fr, e->nfr + 1);
    TS_GROW(e->fr_resource, cap_res, e->nfr + 1);
    e->fr_flavor[e->nfr] = ts_xstrdup(flavor);
    e->fr_resource[e->nfr] = ts__eng_resource_id(e, resource);
    ts_hmap_put(&e->fr_ids, key, (void *)(uintptr_t)(e->nfr + 1));
    e->nfr++;
    ts__eng_resize_nodes(e);
    return e->nfr - 1;
}

/* --- flavors ---------------------------------------------------------------- */

int ts_engine_put_flavor(struct ts_engine *e, const struct ts_resource_flavor *rf,
                         struct ts_err *err)
{
    struct ts__eng_flavor *f;

    ts__eng_config_changed(e);
    if (!rf->meta.name)
        return ts_err_set(err, TS_EINVAL, "resourceflavor: metadata.name: Required value");
    f = ts_xcalloc(1, sizeof(*f));
    f->name = ts_xstrdup(rf->meta.name);
    ts_strmap_copy(&f->node_labels, &rf->spec.node_labels);
    f->n_taints = rf->spec.n_node_taints;
    f->taints = ts_xcalloc(f->n_taints ? f->n_taints : 1, sizeof(*f->taints));
    for (size_t i = 0; i < f->n_taints; i++) {
        const struct ts_taint *t = &rf->spec.node_taints[i];

        f->taints[i].key = t->key ? ts_xstrdup(t->key) : NULL;
        f->taints[i].value = t->value ? ts_xstrdup(t->value) : NULL;
        f->taints[i].effect = t->effect ? ts_xstrdup(t->effect) : NULL;
    }
    f->n_tolerations = rf->spec.n_tolerations;
    f->tolerations = ts_xcalloc(f->n_tolerations ? f->n_tolerations : 1, sizeof(*f->tolerations));
    for (size_t i = 0; i < f->n_tolerations; i++)
        ts_toleration_copy(&f->tolerations[i], &rf->spec.tolerations[i]);
    flavor_free(ts_hmap_put(&e->flavors, f->name, f));
    ts__eng_flavors_changed(e);
    return 0;
}

void ts_engine_delete_flavor(struct ts_engine *e, const char *name)
{
    struct ts__eng_flavor *f = ts_hmap_del(&e->flavors, name);

    ts__eng_config_changed(e);
    if (!f)
        return;
    flavor_free(f);
    ts__eng_flavors_changed(e);
}

/* --- namespaces and priority classes ---------------------------------------- */

void ts_engine_put_namespace(struct ts_engine *e, const char *name, const struct ts_strmap *labels)
{
    struct ts_strmap *m = ts_xcalloc(1, sizeof(*m));
    struct ts_strmap *old;

    ts__eng_config_changed(e);
    ts_strmap_copy(m, labels);
    if (!ts_strmap_get(m, "kubernetes.io/metadata.name"))
        ts_strmap_set(m, "kubernetes.io/metadata.name", name);
    old = ts_hmap_put(&e->namespaces, name, m);
    if (old) {
        ts_strmap_release(old);
        free(old);
    }
    ts__eng_requeue_all(e);
}

void ts_engine_delete_namespace(struct ts_engine *e, const char *name)
{
    struct ts_strmap *m = ts_hmap_del(&e->namespaces, name);

    ts__eng_config_changed(e);
    if (m) {
        ts_strmap_release(m);
        free(m);
    }
}

/* Values of the priority class maps: the value comes first, so a pointer to
 * the entry is also a pointer to its int32_t value. */
struct prio_entry {
    int32_t value;
    int global_default;
};

static void put_int(struct ts_hmap *m, const char *name, int32_t value, int global_default)
{
    struct prio_entry *v = ts_hmap_get(m, name);

    if (!v) {
        v = ts_xcalloc(1, sizeof(*v));
        ts_hmap_put(m, name, v);
    }
    v->value = value;
    v->global_default = global_default;
}

static void del_int(struct ts_hmap *m, const char *name)
{
    free(ts_hmap_del(m, name));
}

void ts_engine_put_workload_priority_class(struct ts_engine *e, const char *name, int32_t value)
{
    put_int(&e->wpcs, name, value, 0);
}

void ts_engine_delete_workload_priority_class(struct ts_engine *e, const char *name)
{
    del_int(&e->wpcs, name);
}

void ts_engine_put_priority_class(struct ts_engine *e, const char *name, int32_t value,
                                  int global_default)
{
    put_int(&e->pcs, name, value, global_default);
}

void ts_engine_delete_priority_class(struct ts_engine *e, const char *name)
{
    del_int(&e->pcs, name);
}

int ts_engine_priority_class(const struct ts_engine *e, int wpc, const char *name, int32_t *value)
{
    const struct prio_entry *v = ts_hmap_get(wpc ? &e->wpcs : &e->pcs, name);

    if (!v)
        return 0;
    *value = v->value;
    return 1;
}

int ts_engine_default_priority_class(const struct ts_engine *e, const char **name, int32_t *value)
{
    size_t it = 0;
    const char *k;
    void *v;
    int found = 0;

    while (ts_hmap_next(&e->pcs, &it, &k, &v)) {
        const struct prio_entry *p = v;

        if (p->global_default && (!found || p->value < *value)) {
            *name = k;
            *value = p->value;
            found = 1;
        }
    }
    return found;
}
