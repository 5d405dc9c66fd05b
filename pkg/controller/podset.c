#include "controller/podset.h"

#include "api/names.h"
#include "util/alloc.h"
#include "json/json.h"

#include <string.h>

static cJSON *object_at(cJSON *parent, const char *key)
{
    cJSON *o = cJSON_GetObjectItemCaseSensitive(parent, key);

    if (cJSON_IsObject(o))
        return o;
    if (o)
        cJSON_DeleteItemFromObjectCaseSensitive(parent, key);
    return cJSON_AddObjectToObject(parent, key);
}

/* Sets key=value in a string map; TS_ECONFLICT if it holds another value. */
static int merge_kv(cJSON *map, const char *what, const char *key, const char *value,
                    struct ts_err *err)
{
    cJSON *cur = cJSON_GetObjectItemCaseSensitive(map, key);

    if (cJSON_IsString(cur)) {
        if (strcmp(cur->valuestring, value) == 0)
            return 0;
        return ts_err_set(err, TS_ECONFLICT, "%s \"%s\" is already \"%s\", admission wants \"%s\"",
                          what, key, cur->valuestring, value);
    }
    if (cur)
        cJSON_DeleteItemFromObjectCaseSensitive(map, key);
    cJSON_AddStringToObject(map, key, value);
    return 0;
}

static const struct ts_podset_assignment *assignment(const struct ts_workload *wl, const char *ps)
{
    const struct ts_admission *a = wl->status.admission;

    for (size_t i = 0; a && i < a->n_podset_assignments; i++) {
        const char *n = a->podset_assignments[i].name;

        if (strcmp(n ? n : TS_WL_DEFAULT_PODSET, ps) == 0)
            return &a->podset_assignments[i];
    }
    return NULL;
}

static cJSON *toleration_json(const struct ts_toleration *t)
{
    cJSON *o = cJSON_CreateObject();

    if (t->key)
        cJSON_AddStringToObject(o, "key", t->key);
    if (t->op)
        cJSON_AddStringToObject(o, "operator", t->op);
    if (t->value)
        cJSON_AddStringToObject(o, "value", t->value);
    if (t->effect)
        cJSON_AddStringToObject(o, "effect", t->effect);
    if (t->toleration_seconds.set)
        cJSON_AddNumberToObject(o, "tolerationSeconds", (double)t->toleration_seconds.v);
    return o;
}

static void add_tolerations(cJSON *spec, const struct ts_toleration *tols, size_t n)
{
    cJSON *list = cJSON_GetObjectItemCaseSensitive(spec, "tolerations");

    if (!n)
        return;
    if (!cJSON_IsArray(list)) {
        cJSON_DeleteItemFromObjectCaseSensitive(spec, "tolerations");
        list = cJSON_AddArrayToObject(spec, "tolerations");
    }
    for (size_t i = 0; i < n; i++) {
        cJSON *t = toleration_json(&tols[i]);
        const cJSON *e;
        int dup = 0;

        cJSON_ArrayForEach(e, list) dup |= ts_json_equal(e, t);
        if (dup)
            cJSON_Delete(t);
        else
            cJSON_AddItemToArray(list, t);
    }
}

/* nodeSelector and tolerations of one flavor. */
static int inject_flavor(cJSON *spec, const struct ts_resource_flavor *rf, struct ts_err *err)
{
    cJSON *sel = object_at(spec, "nodeSelector");
    int rc;

    for (size_t i = 0; i < rf->spec.node_labels.n; i++) {
        rc = merge_kv(sel, "nodeSelector", rf->spec.node_labels.items[i].key,
                      rf->spec.node_labels.items[i].value, err);
        if (rc)
            return rc;
    }
    if (!cJSON_GetArraySize(sel))
        cJSON_DeleteItemFromObjectCaseSensitive(spec, "nodeSelector");
    add_tolerations(spec, rf->spec.tolerations, rf->spec.n_tolerations);
    return 0;
}

static int merge_map(cJSON *parent, const char *key, const char *what, const struct ts_strmap *m,
                     struct ts_err *err)
{
    cJSON *map;
    int rc = 0;

    if (!m->n)
        return 0;
    map = object_at(parent, key);
    for (size_t i = 0; i < m->n && !rc; i++)
        rc = merge_kv(map, what, m->items[i].key, m->items[i].value, err);
    return rc;
}

/* The podSetUpdates of every admission check for pod set ps (Kueue's
 * PodSetInfo.Merge of each update): labels, annotations and nodeSelector
 * merged, a key with another value a conflict; tolerations added. */
static int inject_updates(cJSON *tmpl, const struct ts_workload *wl, const char *ps,
                          struct ts_err *err)
{
    int rc = 0;

    for (size_t i = 0; i < wl->status.n_admission_checks && !rc; i++) {
        const struct ts_admission_check_state *c = &wl->status.admission_checks[i];

        for (size_t j = 0; j < c->n_podset_updates && !rc; j++) {
            const struct ts_podset_update *u = &c->podset_updates[j];
            cJSON *meta = object_at(tmpl, "metadata"), *spec = object_at(tmpl, "spec");

            if (strcmp(u->name ? u->name : "", ps))
                continue;
            rc = merge_map(meta, "labels", "label", &u->labels, err);
            if (!rc)
                rc = merge_map(meta, "annotations", "annotation", &u->annotations, err);
            if (!rc)
                rc = merge_map(spec, "nodeSelector", "nodeSelector", &u->node_selector, err);
            if (!rc)
                add_tolerations(spec, u->tolerations, u->n_tolerations);
            if (rc)
                ts_err_prefix(err, "admission check %s", c->name ? c->name : "");
        }
    }
    return rc;
}

static int inject_labels(cJSON *tmpl, const struct ts_workload *wl, const char *ps,
                         struct ts_err *err)
{
    cJSON *labels = object_at(object_at(tmpl, "metadata"), "labels");
    const char *cq = wl->status.admission->cluster_queue;
    int rc = merge_kv(labels, "label", TS_LABEL_PODSET, ps, err);

    if (!rc && wl->spec.queue_name)
        rc = merge_kv(labels, "label", TS_LABEL_LOCAL_QUEUE_NAME, wl->spec.queue_name, err);
    /* Kueue adds the ClusterQueue label only when the name is a valid value */
    if (!rc && cq && ts_names_is_dns1123_label(cq))
        rc = merge_kv(labels, "label", TS_LABEL_CLUSTER_QUEUE_NAME, cq, err);
    return rc;
}

int ts_podset_inject_flavors(cJSON *tmpl, const struct ts_workload *wl, const char *ps,
                             ts_flavor_lookup_fn lookup, void *ctx, struct ts_err *err)
{
    const struct ts_podset_assignment *a = assignment(wl, ps);
    cJSON *spec = object_at(tmpl, "spec");
    struct ts_strlist done = TS_STRLIST_INIT;
    int rc = 0;

    if (!a)
        return ts_err_set(err, TS_ENOTFOUND, "workload has no assignment for pod set \"%s\"", ps);
    for (size_t i = 0; i < a->flavors.n && !rc; i++) {
        const char *fname = a->flavors.items[i].value;
        const struct ts_resource_flavor *rf;

        if (ts_strlist_index(&done, fname) >= 0)
            continue;
        ts_strlist_push(&done, fname);
        if (!(rf = lookup(ctx, fname)))
            rc = ts_err_set(err, TS_ENOTFOUND, "resourceflavor \"%s\" not found", fname);
        else
            rc = inject_flavor(spec, rf, err);
    }
    ts_strlist_release(&done);
    return rc;
}

int ts_podset_inject(cJSON *tmpl, const struct ts_workload *wl, const char *ps,
                     ts_flavor_lookup_fn lookup, void *ctx, struct ts_err *err)
{
    int rc = ts_podset_inject_flavors(tmpl, wl, ps, lookup, ctx, err);

    if (!rc)
        rc = inject_updates(tmpl, wl, ps, err);
    if (!rc)
        rc = inject_labels(tmpl, wl, ps, err);
    if (rc)
        ts_err_prefix(err, "pod set %s", ps);
    return rc;
}

static int restore_key(cJSON *parent, const cJSON *orig, const char *key)
{
    cJSON *cur = cJSON_GetObjectItemCaseSensitive(parent, key);
    const cJSON *want = orig ? cJSON_GetObjectItemCaseSensitive(orig, key) : NULL;

    if ((!cur && !want) || (cur && want && ts_json_equal(cur, want)))
        return 0;
    if (cur)
        cJSON_DeleteItemFromObjectCaseSensitive(parent, key);
    if (want)
        cJSON_AddItemToObject(parent, key, cJSON_Duplicate(want, 1));
    return 1;
}

/* Labels the job controller puts on a batch Job's template (and Kueue strips
 * from the Workload's copy): the Job's selector needs them, so they stay. */
static const char *const controller_labels[] = {"controller-uid", "job-name",
                                                "batch.kubernetes.io/controller-uid",
                                                "batch.kubernetes.io/job-name", NULL};

static int restore_labels(cJSON *meta, const cJSON *om)
{
    cJSON *cur = cJSON_GetObjectItemCaseSensitive(meta, "labels");
    cJSON *keep = cJSON_CreateObject();
    cJSON *before = cur ? cJSON_Duplicate(cur, 1) : NULL;
    const cJSON *after;
    int changed;

    for (size_t i = 0; cur && controller_labels[i]; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(cur, controller_labels[i]);

        if (cJSON_IsString(v))
            cJSON_AddStringToObject(keep, controller_labels[i], v->valuestring);
    }
    restore_key(meta, om, "labels");
    if (cJSON_GetArraySize(keep)) {
        cJSON *labels = object_at(meta, "labels");
        const cJSON *k;

        cJSON_ArrayForEach(k, keep)
        {
            if (!cJSON_GetObjectItemCaseSensitive(labels, k->string))
                cJSON_AddStringToObject(labels, k->string, k->valuestring);
        }
    }
    cJSON_Delete(keep);
    after = cJSON_GetObjectItemCaseSensitive(meta, "labels");
    changed = !((!before && !after) || (before && after && ts_json_equal(before, after)));
    cJSON_Delete(before);
    return changed;
}

int ts_podset_restore(cJSON *tmpl, const struct ts_workload *wl, const char *ps, int *changed,
                      struct ts_err *err)
{
    const struct ts_podset *p = ts_workload_find_podset(wl, ps);
    const cJSON *orig, *om, *os;
    int n = 0;

    if (!p)
        return ts_err_set(err, TS_ENOTFOUND, "workload has no pod set \"%s\"", ps);
    orig = p->template.raw;
    om = cJSON_GetObjectItemCaseSensitive(orig, "metadata");
    os = cJSON_GetObjectItemCaseSensitive(orig, "spec");
    n += restore_labels(object_at(tmpl, "metadata"), om);
    n += restore_key(object_at(tmpl, "metadata"), om, "annotations");
    n += restore_key(object_at(tmpl, "spec"), os, "nodeSelector");
    n += restore_key(object_at(tmpl, "spec"), os, "tolerations");
    n += restore_key(object_at(tmpl, "spec"), os, "schedulingGates");
    /* injection may have created metadata the original did not have */
    if (!om && !cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(tmpl, "metadata")))
        cJSON_DeleteItemFromObjectCaseSensitive(tmpl, "metadata");
    if (changed)
        *changed = n > 0;
    return 0;
}
