/* written.c - read your own Workload writes.  A status write that landed
 * is the newest version of its Workload, but the cache shows it only once
 * the watch brings it.  On a loaded API server that takes long enough for
 * the next write on the same Workload (an admission right after its
 * pending reason) to be built on the version before, and refused with a
 * 409 at the cost of a request and a retry, again and again until the
 * watch catches up.  So a landed write stands in for the cached object
 * while the cache still shows the very version that write was built on;
 * any other version in the cache (the write's own event, or a newer one)
 * ends it.  Nobody else can have written in between: the write carried
 * that version as its precondition. */
#include "controller/manager_int.h"
#include "json/json.h"
#include "util/alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ts__ctl_written {
    char *base_rv; /* the version the write was built on */
    char *rv;      /* the version it made */
    cJSON *obj;    /* what was written, at rv */
};

static void entry_free(struct ts__ctl_written *e)
{
    if (!e)
        return;
    free(e->base_rv);
    free(e->rv);
    cJSON_Delete(e->obj);
    free(e);
}

static void key_of(const char *ns, const char *name, char *buf, size_t len)
{
    snprintf(buf, len, "%s/%s", ns ? ns : "", name);
}

/* The entry of ns/name while the cache still shows its base version; a
 * stale one is dropped on the way. */
static struct ts__ctl_written *current(struct ts_ctl *c, const char *ns, const char *name)
{
    char key[512];
    struct ts__ctl_written *e;
    const char *rv;

    key_of(ns, name, key, sizeof(key));
    if (!(e = ts_hmap_get(&c->wl_written, key)))
        return NULL;
    rv = ts_informer_rv_of(c->inf[TS__CTL_WL], ns, name);
    if (rv && !strcmp(rv, e->base_rv))
        return e;
    entry_free(ts_hmap_del(&c->wl_written, key));
    return NULL;
}

void ts__ctl_written_put(struct ts_ctl *c, const char *ns, const char *name, const char *base_rv,
                         const char *rv, cJSON *obj)
{
    struct ts__ctl_written *e;
    char key[512];

    if (!base_rv || !rv || !*rv || !obj) {
        cJSON_Delete(obj);
        return;
    }
    key_of(ns, name, key, sizeof(key));
    e = ts_xcalloc(1, sizeof(*e));
    e->base_rv = ts_xstrdup(base_rv);
    e->rv = ts_xstrdup(rv);
    ts_json_set_string(obj, "metadata.resourceVersion", rv, NULL);
    e->obj = obj;
    entry_free(ts_hmap_put(&c->wl_written, key, e));
}

cJSON *ts__ctl_workload_fetch(struct ts_ctl *c, const char *ns, const char *name)
{
    struct ts__ctl_written *e = current(c, ns, name);

    return e ? cJSON_Duplicate(e->obj, 1) : ts_informer_fetch(c->inf[TS__CTL_WL], ns, name);
}

const char *ts__ctl_workload_rv(struct ts_ctl *c, const char *ns, const char *name)
{
    struct ts__ctl_written *e = current(c, ns, name);

    return e ? e->rv : ts_informer_rv_of(c->inf[TS__CTL_WL], ns, name);
}

void ts__ctl_written_seen(struct ts_ctl *c, const cJSON *obj)
{
    const char *name = ts_json_get_string(obj, "metadata.name");

    if (name && c->wl_written.n)
        (void)current(c, ts_json_get_string(obj, "metadata.namespace"), name);
}

void ts__ctl_written_release(struct ts_ctl *c)
{
    size_t it = 0;
    const char *k;
    void *v;

    while (ts_hmap_next(&c->wl_written, &it, &k, &v))
        entry_free(v);
    ts_hmap_release(&c->wl_written);
}
