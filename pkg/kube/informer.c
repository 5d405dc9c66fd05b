/*
 * informer.c - list+watch into an indexed store (see informer.h).
 */
#include "kube/informer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "json/json.h"
#include "kube/backoff.h"
#include "kube/watch.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/hmap.h"
#include "util/log.h"

#define SEC          INT64_C(1000000000)
#define MAX_HANDLERS 8
#define MAX_INDEXES  8
#define KEY_MAX      330

struct index {
    char *name;
    ts_informer_index_fn fn;
    void *data;
    struct ts_hmap values; /* value -> struct ts_hmap * (set of keys) */
};

struct ts_informer {
    struct ts_kube_client *c;
    struct ts_informer_opts o;
    char *ns, *ls, *fs, *rv;
    /* key -> cJSON * (owned); compact: "rv\0json\0" text (owned, see pack()) */
    struct ts_hmap store;
    struct ts_buf scratch; /* compact: pack()'s printing buffer */
    struct ts_hmap seen;   /* compact: keys of the list under way, page by page */
    struct index idx[MAX_INDEXES];
    int nidx;
    struct ts_informer_handlers h[MAX_HANDLERS];
    int nh;
    struct ts_watch *watch;
    struct ts_kube_call *list;
    uint64_t timer, resync_timer;
    struct ts_backoff bo;
    int started, synced;
    struct ts_informer_stats st;
};

const char *ts_informer_key(const cJSON *obj, char *buf, size_t len)
{
    const char *ns = ts_json_get_string(obj, "metadata.namespace");
    const char *name = ts_json_get_string(obj, "metadata.name");

    if (!name)
        return NULL;
    if (ns && ns[0])
        snprintf(buf, len, "%s/%s", ns, name);
    else
        snprintf(buf, len, "%s", name);
    return buf;
}

/* --- indexes ------------------------------------------------------------------ */

static void index_update(struct ts_informer *inf, const char *key, const cJSON *obj, int add)
{
    struct ts_strlist vals = TS_STRLIST_INIT;

    for (int i = 0; i < inf->nidx; i++) {
        struct index *x = &inf->idx[i];

        ts_strlist_release(&vals);
        x->fn(obj, &vals, x->data);
        for (size_t v = 0; v < vals.n; v++) {
            struct ts_hmap *set = ts_hmap_get(&x->values, vals.items[v]);

            if (add) {
                if (!set) {
                    set = ts_xcalloc(1, sizeof(*set));
                    ts_hmap_put(&x->values, vals.items[v], set);
                }
                ts_hmap_put(set, key, (void *)1);
            } else if (set) {
                ts_hmap_del(set, key);
                if (!set->n) {
                    ts_hmap_release(ts_hmap_del(&x->values, vals.items[v]));
                    free(set);
                }
            }
        }
    }
    ts_strlist_release(&vals);
}

static void index_free(struct index *x)
{
    size_t it = 0;
    const char *k;
    void *v;

    while (ts_hmap_next(&x->values, &it, &k, &v)) {
        ts_hmap_release(v);
        free(v);
    }
    ts_hmap_release(&x->values);
    free(x->name);
}

/* --- store changes ---------------------------------------------------------------- */

/* --- compact store: "rv\0json\0" -------------------------------------------------- */

/* One allocation with the resourceVersion first (compared on every
 * update without parsing) and the compact JSON after it. */
static char *pack(struct ts_informer *inf, const cJSON *obj)
{
    const char *rv = ts_json_get_string(obj, "metadata.resourceVersion");
    size_t rvlen = rv ? strlen(rv) : 0;
    char *blob;

    ts_buf_reset(&inf->scratch);
    if (ts_json_print(obj, 0, &inf->scratch, NULL))
        ts_buf_adds(&inf->scratch, "{}"); /* not from a parser: cannot happen */
    blob = ts_xmalloc(rvlen + 1 + inf->scratch.len + 1);
    memcpy(blob, rv ? rv : "", rvlen + 1);
    memcpy(blob + rvlen + 1, inf->scratch.ptr, inf->scratch.len + 1);
    return blob;
}

static const char *packed_rv(const void *v)
{
    return v;
}

static cJSON *unpack(const void *v)
{
    const char *json = (const char *)v + strlen(v) + 1;
    cJSON *obj = NULL;

    ts_json_parse(json, strlen(json), &obj, NULL);
    return obj;
}

static const char *value_rv(const struct ts_informer *inf, const void *v)
{
    return inf->o.compact ? packed_rv(v) : ts_json_get_string(v, "metadata.resourceVersion");
}

static void value_free(const struct ts_informer *inf, void *v)
{
    if (inf->o.compact)
        free(v);
    else
        cJSON_Delete(v);
}

/* The stored object as a tree: borrowed (*tmp NULL) or parsed into *tmp. */
static const cJSON *value_obj(const struct ts_informer *inf, const void *v, cJSON **tmp)
{
    *tmp = NULL;
    if (!v || !inf->o.compact)
        return v;
    return *tmp = unpack(v);
}

/* --- store changes ---------------------------------------------------------------- */

/* Stores obj (consumed) under its key and notifies the handlers.  A
 * compact informer hands on_update a NULL old object. */
static void store_put(struct ts_informer *inf, const char *key, cJSON *obj)
{
    void *old = ts_hmap_put(&inf->store, key, inf->o.compact ? (void *)pack(inf, obj) : obj);
    const char *orv = old ? value_rv(inf, old) : NULL;
    const char *nrv = ts_json_get_string(obj, "metadata.resourceVersion");
    const cJSON *oldobj = inf->o.compact ? NULL : old;

    if (oldobj)
        index_update(inf, key, oldobj, 0);
    index_update(inf, key, obj, 1);
    if (!old) {
        inf->st.adds++;
        for (int i = 0; i < inf->nh; i++)
            if (inf->h[i].on_add)
                inf->h[i].on_add(inf, obj, inf->h[i].data);
    } else if (!orv || !nrv || !orv[0] || strcmp(orv, nrv)) {
        inf->st.updates++;
        for (int i = 0; i < inf->nh; i++)
            if (inf->h[i].on_update)
                inf->h[i].on_update(inf, oldobj, obj, inf->h[i].data);
    }
    if (old)
        value_free(inf, old);
    if (inf->o.compact)
        cJSON_Delete(obj);
}

/* Removes key; `last` (may be NULL) is the final state to report. */
static void store_del(struct ts_informer *inf, const char *key, const cJSON *last)
{
    void *old = ts_hmap_del(&inf->store, key);
    cJSON *tmp;
    const cJSON *oldobj;

    if (!old)
        return;
    oldobj = value_obj(inf, old, &tmp);
    if (oldobj)
        index_update(inf, key, oldobj, 0);
    inf->st.deletes++;
    for (int i = 0; i < inf->nh; i++)
        if (inf->h[i].on_delete && (last || oldobj))
            inf->h[i].on_delete(inf, last ? last : oldobj, inf->h[i].data);
    cJSON_Delete(tmp);
    value_free(inf, old);
}

/* What every stored object gets: the options' transform, and the type. */
static void normalize(const struct ts_informer *inf, cJSON *obj)
{
    char av[128];

    if (inf->o.strip_managed_fields) /* client-go's TransformStripManagedFields */
        cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(obj, "metadata"),
                                                "managedFields");
    if (!cJSON_GetObjectItemCaseSensitive(obj, "apiVersion"))
        cJSON_AddStringToObject(obj, "apiVersion", ts_kube_api_version(inf->o.res, av, sizeof(av)));
    if (!cJSON_GetObjectItemCaseSensitive(obj, "kind") && inf->o.res->kind)
        cJSON_AddStringToObject(obj, "kind", inf->o.res->kind);
}

static int on_event(enum ts_watch_type type, cJSON *obj, void *data)
{
    struct ts_informer *inf = data;
    char key[KEY_MAX];

    inf->st.events++;
    if (!ts_informer_key(obj, key, sizeof(key))) {
        cJSON_Delete(obj);
        return 0;
    }
    normalize(inf, obj);
    if (type == TS_WATCH_DELETED) {
        store_del(inf, key, obj);
        cJSON_Delete(obj);
    } else {
        store_put(inf, key, obj);
    }
    return 0;
}

/* --- list, relist, resync ------------------------------------------------------------ */

static void start_list(struct ts_informer *inf);
static void on_gone(struct ts_watch *w, void *data);

static void on_list_timer(struct ts_loop *loop, void *data)
{
    (void)loop;
    start_list(data);
}

static void start_watch(struct ts_informer *inf)
{
    struct ts_watch_opts wo = {0};
    struct ts_err e = {0};

    if (inf->watch) {
        ts_watch_resume(inf->watch, inf->rv);
        return;
    }
    wo.res = inf->o.res;
    wo.ns = inf->ns;
    wo.label_selector = inf->ls;
    wo.field_selector = inf->fs;
    wo.resource_version = inf->rv;
    wo.timeout_seconds = inf->o.watch_timeout_seconds;
    wo.backoff_base = inf->o.backoff_base;
    wo.backoff_cap = inf->o.backoff_cap;
    wo.strip_managed_fields = inf->o.strip_managed_fields;
    wo.transient = inf->o.compact; /* kept as text: the tree dies with the event */
    wo.on_event = on_event;
    wo.on_gone = on_gone;
    wo.data = inf;
    if (!(inf->watch = ts_watch_start(inf->c, &wo, &e)))
        ts_log_error("informer", "resource=%s %s", inf->o.res->resource, e.msg);
}

/* Stores listed items (consumed), noting their keys in seen. */
static void put_listed(struct ts_informer *inf, cJSON *items, struct ts_hmap *seen)
{
    char key[KEY_MAX];
    cJSON *it;

    while (items && (it = cJSON_DetachItemFromArray(items, 0))) {
        if (!ts_informer_key(it, key, sizeof(key))) {
            cJSON_Delete(it);
            continue;
        }
        normalize(inf, it);
        ts_hmap_put(seen, key, (void *)1);
        store_put(inf, key, it);
    }
}

/* Ends a complete list: what it did not name is gone. */
static void drop_unseen(struct ts_informer *inf, struct ts_hmap *seen)
{
    size_t pos = 0;
    const char *k;
    void *v;

    while (ts_hmap_next(&inf->store, &pos, &k, &v)) {
        if (!ts_hmap_get(seen, k)) {
            char gone[KEY_MAX];

            snprintf(gone, sizeof(gone), "%s", k); /* k dies with the entry */
            store_del(inf, gone, NULL);
        }
    }
    ts_hmap_release(seen);
}

/* A compact informer stores each page as it arrives (see on_page). */
static void on_page(cJSON *items, void *data)
{
    struct ts_informer *inf = data;

    if (!items) { /* the list starts over */
        ts_hmap_release(&inf->seen);
        return;
    }
    put_listed(inf, items, &inf->seen);
    cJSON_Delete(items);
}

static void on_list(struct ts_kube_client *c, struct ts_kube_result *res, void *data)
{
    struct ts_informer *inf = data;
    const char *rv;

    (void)c;
    inf->list = NULL;
    if (res->code) {
        ts_log_warn("informer", "resource=%s list failed: %s", inf->o.res->resource, res->err.msg);
        inf->timer = ts_loop_timer_add(ts_kube_client_loop(inf->c), ts_backoff_next(&inf->bo),
                                       on_list_timer, inf);
        return;
    }
    ts_backoff_reset(&inf->bo);
    rv = ts_json_get_string(res->obj, "metadata.resourceVersion");
    free(inf->rv);
    inf->rv = ts_xstrdup(rv ? rv : "");
    if (!inf->o.compact)
        put_listed(inf, cJSON_GetObjectItemCaseSensitive(res->obj, "items"), &inf->seen);
    drop_unseen(inf, &inf->seen);
    inf->synced = 1;
    start_watch(inf);
}

static void start_list(struct ts_informer *inf)
{
    struct ts_kube_req r = {0};
    struct ts_err e = {0};

    inf->timer = 0;
    r.verb = TS_KUBE_LIST;
    r.res = inf->o.res;
    r.ns = inf->ns;
    r.label_selector = inf->ls;
    r.field_selector = inf->fs;
    r.limit = inf->o.page_size > 0 ? inf->o.page_size : inf->o.page_size < 0 ? 0 : 500;
    r.on_page = inf->o.compact ? on_page : NULL;
    ts_hmap_release(&inf->seen);
    inf->st.lists++;
    if (ts_kube_list_all(inf->c, &r, on_list, inf, &inf->list, &e))
        ts_log_error("informer", "resource=%s cannot list: %s", inf->o.res->resource, e.msg);
}

static void on_gone(struct ts_watch *w, void *data)
{
    struct ts_informer *inf = data;

    (void)w;
    inf->st.relists++;
    start_list(inf);
}

static void on_resync(struct ts_loop *loop, void *data)
{
    struct ts_informer *inf = data;
    size_t it = 0;
    const char *k;
    void *v;

    inf->resync_timer = ts_loop_timer_add(loop, inf->o.resync_ns, on_resync, inf);
    while (inf->synced && ts_hmap_next(&inf->store, &it, &k, &v)) {
        cJSON *tmp;
        const cJSON *obj = value_obj(inf, v, &tmp);

        for (int i = 0; obj && i < inf->nh; i++)
            if (inf->h[i].on_update)
                inf->h[i].on_update(inf, inf->o.compact ? NULL : obj, obj, inf->h[i].data);
        cJSON_Delete(tmp);
    }
}

/* --- lifecycle and queries --------------------------------------------------------- */

struct ts_informer *ts_informer_new(struct ts_kube_client *c, const struct ts_informer_opts *o)
{
    struct ts_informer *inf = ts_xcalloc(1, sizeof(*inf));
    struct timespec ts;

    inf->c = c;
    inf->o = *o;
    inf->ns = o->ns ? ts_xstrdup(o->ns) : NULL;
    inf->ls = o->label_selector ? ts_xstrdup(o->label_selector) : NULL;
    inf->fs = o->field_selector ? ts_xstrdup(o->field_selector) : NULL;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts_backoff_init(&inf->bo, o->backoff_base > 0 ? o->backoff_base : SEC * 8 / 10,
                    o->backoff_cap > 0 ? o->backoff_cap : 30 * SEC, 2, 0.5,
                    (uint64_t)ts.tv_nsec + (uintptr_t)inf);
    return inf;
}

void ts_informer_free(struct ts_informer *inf)
{
    size_t it = 0;
    const char *k;
    void *v;

    if (!inf)
        return;
    ts_watch_stop(inf->watch);
    ts_kube_cancel(inf->list);
    ts_loop_timer_cancel(ts_kube_client_loop(inf->c), inf->timer);
    ts_loop_timer_cancel(ts_kube_client_loop(inf->c), inf->resync_timer);
    while (ts_hmap_next(&inf->store, &it, &k, &v))
        value_free(inf, v);
    ts_hmap_release(&inf->store);
    ts_hmap_release(&inf->seen);
    ts_buf_release(&inf->scratch);
    for (int i = 0; i < inf->nidx; i++)
        index_free(&inf->idx[i]);
    free(inf->ns);
    free(inf->ls);
    free(inf->fs);
    free(inf->rv);
    free(inf);
}

int ts_informer_add_index(struct ts_informer *inf, const char *name, ts_informer_index_fn fn,
                          void *data)
{
    if (inf->started || inf->o.compact)
        return TS_EINVAL;
    for (int i = 0; i < inf->nidx; i++)
        if (!strcmp(inf->idx[i].name, name))
            return TS_EEXIST;
    if (inf->nidx == MAX_INDEXES)
        return TS_EOVERFLOW;
    inf->idx[inf->nidx++] = (struct index){ts_xstrdup(name), fn, data, TS_HMAP_INIT};
    return 0;
}

int ts_informer_add_handlers(struct ts_informer *inf, const struct ts_informer_handlers *h)
{
    if (inf->started)
        return TS_EINVAL;
    if (inf->nh == MAX_HANDLERS)
        return TS_EOVERFLOW;
    inf->h[inf->nh++] = *h;
    return 0;
}

int ts_informer_start(struct ts_informer *inf, struct ts_err *err)
{
    if (inf->started || !inf->o.res)
        return ts_err_set(err, TS_EINVAL, "informer already started or without a resource");
    inf->started = 1;
    start_list(inf);
    if (inf->o.resync_ns > 0)
        inf->resync_timer =
            ts_loop_timer_add(ts_kube_client_loop(inf->c), inf->o.resync_ns, on_resync, inf);
    return 0;
}

int ts_informer_has_synced(const struct ts_informer *inf)
{
    return inf->synced;
}

const cJSON *ts_informer_get(const struct ts_informer *inf, const char *key)
{
    return inf->o.compact ? NULL : ts_hmap_get(&inf->store, key);
}

static const char *ns_key(const char *ns, const char *name, char *key, size_t len)
{
    if (ns && ns[0])
        snprintf(key, len, "%s/%s", ns, name);
    else
        snprintf(key, len, "%s", name);
    return key;
}

const cJSON *ts_informer_get_ns(const struct ts_informer *inf, const char *ns, const char *name)
{
    char key[KEY_MAX];

    return ts_informer_get(inf, ns_key(ns, name, key, sizeof(key)));
}

cJSON *ts_informer_fetch(const struct ts_informer *inf, const char *ns, const char *name)
{
    char key[KEY_MAX];
    void *v = ts_hmap_get(&inf->store, ns_key(ns, name, key, sizeof(key)));

    if (!v)
        return NULL;
    return inf->o.compact ? unpack(v) : cJSON_Duplicate(v, 1);
}

const char *ts_informer_rv_of(const struct ts_informer *inf, const char *ns, const char *name)
{
    char key[KEY_MAX];
    const void *v = ts_hmap_get(&inf->store, ns_key(ns, name, key, sizeof(key)));
    const char *rv = v ? value_rv(inf, v) : NULL;

    return v && !rv ? "" : rv;
}

size_t ts_informer_len(const struct ts_informer *inf)
{
    return inf->store.n;
}

size_t ts_informer_each(const struct ts_informer *inf, ts_informer_visit_fn fn, void *data)
{
    size_t it = 0, n = 0;
    const char *k;
    void *v;

    while (ts_hmap_next(&inf->store, &it, &k, &v)) {
        cJSON *tmp;
        const cJSON *obj = value_obj(inf, v, &tmp);
        int stop;

        n++;
        stop = obj && fn(k, obj, data);
        cJSON_Delete(tmp);
        if (stop)
            break;
    }
    return n;
}

size_t ts_informer_by_index(const struct ts_informer *inf, const char *index, const char *value,
                            ts_informer_visit_fn fn, void *data)
{
    size_t it = 0, n = 0;
    const char *k;
    void *v;

    for (int i = 0; i < inf->nidx; i++) {
        const struct ts_hmap *set;

        if (strcmp(inf->idx[i].name, index))
            continue;
        if (!(set = ts_hmap_get(&inf->idx[i].values, value)))
            return 0;
        while (ts_hmap_next(set, &it, &k, &v)) {
            n++;
            if (fn(k, ts_hmap_get(&inf->store, k), data))
                break;
        }
        return n;
    }
    return 0;
}

const char *ts_informer_rv(const struct ts_informer *inf)
{
    return inf->watch ? ts_watch_rv(inf->watch) : inf->rv ? inf->rv : "";
}

void ts_informer_stats(const struct ts_informer *inf, struct ts_informer_stats *out)
{
    *out = inf->st;
}
