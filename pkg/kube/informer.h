/*
 * informer.h - list+watch into a local store (client-go's
 * SharedIndexInformer, minus the threads).
 *
 * The informer lists the resource (in pages of 500), fills its store
 * (keys "namespace/name", or "name" when cluster-scoped), then watches
 * from the list's resourceVersion (watch.h).  When the watch reports 410
 * it lists again and reconciles the store with the fresh list: objects
 * that vanished are deleted (on_delete), changed ones updated, new ones
 * added, so the store converges whatever was missed.
 *
 * Handlers run on the loop thread after the store was changed, so a
 * handler that reads the store sees the new state.  on_update is called
 * only when the resourceVersion changed, and on every object at each
 * resync period (old == new) when resync is enabled.  List items get the
 * apiVersion and kind of the resource when the server left them out.
 *
 * Indexes: a function maps an object to index values (e.g. a Workload to
 * its queue name, a Job to its owner's uid); ts_informer_by_index()
 * finds the objects with a value.
 *
 * Compact informers (opts.compact) keep each object as its JSON text: a
 * fraction of the memory of a cJSON tree.  Their objects are read with
 * ts_informer_fetch() (a parsed copy); ts_informer_get() finds nothing,
 * on_update gets a NULL `old`, ts_informer_each() parses each object for
 * its visit, and they take no indexes.
 *
 * Thread rule: loop thread only.  Nothing may block in a handler, and
 * handlers must not free the informer.
 * Ownership: the store owns its objects; every const cJSON * handed out
 * is borrowed until the next change of that key (for handlers: until the
 * handler returns, for `old` objects).
 */
#ifndef TS_KUBE_INFORMER_H
#define TS_KUBE_INFORMER_H

#include <cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "kube/client.h"
#include "util/strlist.h"

struct ts_informer;

struct ts_informer_handlers {
    void (*on_add)(struct ts_informer *inf, const cJSON *obj, void *data);
    void (*on_update)(struct ts_informer *inf, const cJSON *old, const cJSON *obj, void *data);
    void (*on_delete)(struct ts_informer *inf, const cJSON *obj, void *data);
    void *data;
};

/* Adds the index values of obj to out (none is fine). */
typedef void (*ts_informer_index_fn)(const cJSON *obj, struct ts_strlist *out, void *data);

/* Visits one object; return nonzero to stop. */
typedef int (*ts_informer_visit_fn)(const char *key, const cJSON *obj, void *data);

struct ts_informer_opts {
    const struct ts_kube_resource *res;
    const char *ns; /* NULL: all namespaces */
    const char *label_selector, *field_selector;
    long page_size;                    /* 0: 500; < 0: one unpaged list */
    int64_t resync_ns;                 /* 0: no periodic resync */
    long watch_timeout_seconds;        /* 0: random 5–10 min */
    int64_t backoff_base, backoff_cap; /* list and watch retries; 0: 800 ms, 30 s */
    int compact;                       /* keep JSON text, not trees (see above) */
    /* drop metadata.managedFields from every object (client-go's
     * TransformStripManagedFields): a large part of a Workload's JSON.  An
     * update whose body has none keeps the stored ones. */
    int strip_managed_fields;
};

struct ts_informer_stats {
    uint64_t lists, relists, events, adds, updates, deletes;
};

/* Creates an informer (not started).  Ownership: borrows the client;
 * free with ts_informer_free() before the client. */
struct ts_informer *ts_informer_new(struct ts_kube_client *c, const struct ts_informer_opts *o);

/* Stops watching and frees the store.  NULL ok. */
void ts_informer_free(struct ts_informer *inf);

/* Adds an index (before start).  Returns 0, TS_EEXIST (name taken) or
 * TS_EINVAL (already started, or a compact informer).  name is copied. */
int ts_informer_add_index(struct ts_informer *inf, const char *name, ts_informer_index_fn fn,
                          void *data);

/* Adds a set of handlers (up to 8; before start).  Returns 0,
 * TS_EOVERFLOW or TS_EINVAL.  h is copied. */
int ts_informer_add_handlers(struct ts_informer *inf, const struct ts_informer_handlers *h);

/* Starts the first list.  Returns 0 or TS_EINVAL. */
int ts_informer_start(struct ts_informer *inf, struct ts_err *err);

/* Whether the first list has been applied to the store. */
int ts_informer_has_synced(const struct ts_informer *inf);

/* The object stored under key ("ns/name" or "name"), or NULL (always
 * for a compact informer: use ts_informer_fetch()). */
const cJSON *ts_informer_get(const struct ts_informer *inf, const char *key);

/* Same by namespace (NULL for cluster-scoped) and name. */
const cJSON *ts_informer_get_ns(const struct ts_informer *inf, const char *ns, const char *name);

/* A copy of the object ns (NULL for cluster-scoped)/name, for any
 * informer, or NULL.  Ownership: the caller frees it with cJSON_Delete(). */
cJSON *ts_informer_fetch(const struct ts_informer *inf, const char *ns, const char *name);

/* The resourceVersion of the stored object ns/name ("" if it has none),
 * or NULL if none is stored; without parsing a compact one.  Borrowed:
 * valid until the store changes. */
const char *ts_informer_rv_of(const struct ts_informer *inf, const char *ns, const char *name);

size_t ts_informer_len(const struct ts_informer *inf);

/* Visits every object (unspecified order).  Returns the number visited.
 * A compact informer's objects live only for their visit. */
size_t ts_informer_each(const struct ts_informer *inf, ts_informer_visit_fn fn, void *data);

/* Visits the objects whose index `index` holds `value`.  Returns the
 * number visited, or 0 when the index does not exist. */
size_t ts_informer_by_index(const struct ts_informer *inf, const char *index, const char *value,
                            ts_informer_visit_fn fn, void *data);

/* The store key of obj into buf ("ns/name" or "name"); returns buf, or
 * NULL when obj has no metadata.name. */
const char *ts_informer_key(const cJSON *obj, char *buf, size_t len);

/* The resourceVersion the informer is at (list or last event).  Borrowed. */
const char *ts_informer_rv(const struct ts_informer *inf);

void ts_informer_stats(const struct ts_informer *inf, struct ts_informer_stats *out);

#endif
