/* limitrange.c - the namespace's LimitRanges and the RuntimeClasses in the
 * Workloads the engine counts (api/limitrange.h; Kueue's AdjustResources
 * as its workload controller and queue manager call it), and, as Kueue's
 * resourceUpdatesHandler does, the pending Workloads put again when a
 * LimitRange or RuntimeClass changes. */
#include "api/limitrange.h"
#include "controller/manager_int.h"
#include "json/json.h"
#include "util/alloc.h"

#include <stdlib.h>
#include <string.h>

struct lr_list {
    const char *ns;
    const cJSON **items;
    size_t n, cap;
};

static int collect(const char *key, const cJSON *obj, void *data)
{
    struct lr_list *l = data;
    const char *ns = ts_json_get_string(obj, "metadata.namespace");

    (void)key;
    if (ns && !strcmp(ns, l->ns)) {
        TS_GROW(l->items, l->cap, l->n + 1);
        l->items[l->n++] = obj;
    }
    return 0;
}

static int by_name(const void *a, const void *b)
{
    const char *x = ts_json_get_string(*(const cJSON *const *)a, "metadata.name");
    const char *y = ts_json_get_string(*(const cJSON *const *)b, "metadata.name");

    return strcmp(x ? x : "", y ? y : "");
}

static const cJSON *runtime_class(void *ctx, const char *name)
{
    struct ts_ctl *c = ctx;

    return c->inf[TS__CTL_RC] ? ts_informer_get_ns(c->inf[TS__CTL_RC], NULL, name) : NULL;
}

#define NS_INDEX "namespace"

static void ns_of(const cJSON *obj, struct ts_strlist *out, void *data)
{
    const char *ns = ts_json_get_string(obj, "metadata.namespace");

    (void)data;
    if (ns)
        ts_strlist_push(out, ns);
}

void ts__ctl_limitrange_index(struct ts_ctl *c)
{
    if (c->inf[TS__CTL_LR]) /* every Workload event reads its namespace's */
        ts_informer_add_index(c->inf[TS__CTL_LR], NS_INDEX, ns_of, NULL);
}

char *ts__ctl_adjust_workload(struct ts_ctl *c, struct ts_workload *wl)
{
    struct lr_list l = {wl->meta.namespace_ ? wl->meta.namespace_ : "", NULL, 0, 0};
    struct ts_limitrange_summary s;
    char *msg;

    ts_limitrange_summary_init(&s);
    if (c->inf[TS__CTL_LR])
        ts_informer_by_index(c->inf[TS__CTL_LR], NS_INDEX, l.ns, collect, &l);
    /* the first default wins: in the API server's list order */
    if (l.n > 1)
        qsort(l.items, l.n, sizeof(*l.items), by_name);
    for (size_t i = 0; i < l.n; i++)
        ts_limitrange_summary_add(&s, l.items[i]);
    free(l.items);
    ts_limitrange_adjust_workload(wl, &s, runtime_class, c);
    msg = ts_limitrange_workload_message(wl, &s);
    ts_limitrange_summary_release(&s);
    return msg;
}

struct changed {
    struct ts_ctl *c;
    const char *ns; /* a LimitRange's namespace, or NULL */
    const char *rc; /* a RuntimeClass's name, or NULL */
    void (*put)(struct ts_ctl *c, const cJSON *obj);
};

static int uses_runtime_class(const cJSON *wl, const char *name)
{
    const cJSON *ps;

    cJSON_ArrayForEach(ps, ts_json_get(wl, "spec.podSets"))
    {
        const char *rc = ts_json_get_string(ps, "template.spec.runtimeClassName");

        if (rc && !strcmp(rc, name))
            return 1;
    }
    return 0;
}

static int repeat_pending(const char *key, const cJSON *wl, void *data)
{
    const struct changed *ch = data;
    const char *ns = ts_json_get_string(wl, "metadata.namespace");

    (void)key;
    if (ts_json_get(wl, "status.admission")) /* Kueue: quota not reserved only */
        return 0;
    if (ch->ns ? (ns && !strcmp(ns, ch->ns)) : uses_runtime_class(wl, ch->rc))
        ch->put(ch->c, wl);
    return 0;
}

void ts__ctl_limitrange_changed(struct ts_ctl *c, enum ts__ctl_inf which, const cJSON *obj,
                                void (*put)(struct ts_ctl *c, const cJSON *wl))
{
    struct changed ch = {c, NULL, NULL, put};
    const char *name = ts_json_get_string(obj, "metadata.name");

    if (which == TS__CTL_LR)
        ch.ns = ts_json_get_string(obj, "metadata.namespace");
    else
        ch.rc = name;
    if ((!ch.ns && !ch.rc) || !c->inf[TS__CTL_WL])
        return;
    ts_informer_each(c->inf[TS__CTL_WL], repeat_pending, &ch);
    ts__ctl_kick(c);
}
