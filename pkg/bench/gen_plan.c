/* gen_plan.c - a decoded generator expanded into objects and timed workloads. */
#include "bench/gen.h"

#include "resource/quantity.h"
#include "util/alloc.h"
#include "util/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MS INT64_C(1000000)

/* Index of name in the list, appended when new. */
static size_t intern(char ***list, size_t *n, const char *name)
{
    size_t cap = *n;

    for (size_t i = 0; i < *n; i++) {
        if (!strcmp((*list)[i], name))
            return i;
    }
    TS_GROW(*list, cap, *n + 1);
    (*list)[*n] = ts_xstrdup(name);
    return (*n)++;
}

static cJSON *object(const char *kind, const char *ns, const char *name)
{
    cJSON *o = cJSON_CreateObject(), *meta;

    cJSON_AddStringToObject(o, "apiVersion", "kueue.x-k8s.io/v1beta2");
    cJSON_AddStringToObject(o, "kind", kind);
    meta = cJSON_AddObjectToObject(o, "metadata");
    if (ns)
        cJSON_AddStringToObject(meta, "namespace", ns);
    cJSON_AddStringToObject(meta, "name", name);
    cJSON_AddStringToObject(cJSON_AddObjectToObject(meta, "labels"), TS_BENCH_CLEANUP_LABEL,
                            "true");
    return o;
}

static void add_quantity(cJSON *o, const char *name, int64_t milli)
{
    struct ts_quantity q = ts_quantity_from_milli(milli);
    char buf[TS_QUANTITY_STR_MAX];

    cJSON_AddStringToObject(o, name, ts_quantity_format(&q, buf, sizeof(buf)));
}

static cJSON *cluster_queue(const char *name, const char *cohort,
                            const struct ts_bench_queue_set *qs)
{
    cJSON *cq = object("ClusterQueue", NULL, name);
    cJSON *spec = cJSON_AddObjectToObject(cq, "spec"), *pre, *rg, *fl, *res;

    cJSON_AddStringToObject(spec, "cohortName", cohort);
    cJSON_AddObjectToObject(spec, "namespaceSelector");
    pre = cJSON_AddObjectToObject(spec, "preemption");
    cJSON_AddStringToObject(pre, "reclaimWithinCohort",
                            qs->reclaim_within_cohort ? qs->reclaim_within_cohort : "Never");
    cJSON_AddStringToObject(pre, "withinClusterQueue",
                            qs->within_cluster_queue ? qs->within_cluster_queue : "Never");
    rg = cJSON_CreateObject();
    cJSON_AddItemToArray(cJSON_AddArrayToObject(spec, "resourceGroups"), rg);
    cJSON_AddItemToArray(cJSON_AddArrayToObject(rg, "coveredResources"), cJSON_CreateString("cpu"));
    fl = cJSON_CreateObject();
    cJSON_AddItemToArray(cJSON_AddArrayToObject(rg, "flavors"), fl);
    cJSON_AddStringToObject(fl, "name", TS_BENCH_FLAVOR);
    res = cJSON_CreateObject();
    cJSON_AddItemToArray(cJSON_AddArrayToObject(fl, "resources"), res);
    cJSON_AddStringToObject(res, "name", "cpu");
    add_quantity(res, "nominalQuota", qs->nominal_milli);
    if (qs->borrowing_milli >= 0)
        add_quantity(res, "borrowingLimit", qs->borrowing_milli);
    return cq;
}

static cJSON *local_queue(const char *name)
{
    cJSON *lq = object("LocalQueue", TS_BENCH_NAMESPACE, name);

    cJSON_AddStringToObject(cJSON_AddObjectToObject(lq, "spec"), "clusterQueue", name);
    return lq;
}

/* The workloads of one ClusterQueue, in generator order. */
static void add_queue_workloads(struct ts_bench_plan *p, size_t *cap, size_t queue,
                                const struct ts_bench_queue_set *qs)
{
    size_t seq = 0;

    for (size_t s = 0; s < qs->n_sets; s++) {
        const struct ts_bench_wl_set *set = &qs->sets[s];

        for (int64_t k = 0; k < set->count; k++) {
            const struct ts_bench_wl_template *t = &set->templates[(size_t)k % set->n_templates];
            struct ts_bench_wl *w;
            struct ts_buf name = TS_BUF_INIT;

            TS_GROW(p->wls, *cap, p->n_wls + 1);
            w = &p->wls[p->n_wls++];
            ts_buf_addf(&name, "%s-%s-%zu", p->queues[queue].name, t->class_name, seq++);
            w->name = ts_buf_take(&name);
            w->queue = queue;
            w->wl_class = intern(&p->classes, &p->n_classes, t->class_name);
            w->created = k * set->interval_ms * MS;
            w->runtime = t->runtime_ms * MS;
            w->priority = t->priority;
            w->request_milli = t->request_milli;
        }
    }
}

static void add_queue(struct ts_bench_plan *p, size_t *qcap, size_t *wcap, const char *cohort,
                      const struct ts_bench_queue_set *qs, int64_t j)
{
    struct ts_bench_queue *q;
    struct ts_buf name = TS_BUF_INIT;

    ts_buf_addf(&name, "%s-%s-%lld", cohort, qs->class_name, (long long)j);
    TS_GROW(p->queues, *qcap, p->n_queues + 1);
    q = &p->queues[p->n_queues++];
    q->name = ts_buf_take(&name);
    q->cohort = ts_xstrdup(cohort);
    q->q_class = intern(&p->queue_classes, &p->n_queue_classes, qs->class_name);
    q->nominal_milli = qs->nominal_milli;
    cJSON_AddItemToArray(p->objects, cluster_queue(q->name, cohort, qs));
    cJSON_AddItemToArray(p->objects, local_queue(q->name));
    add_queue_workloads(p, wcap, p->n_queues - 1, qs);
}

/* Creation time, then generator order: the order the runner creates in. */
static int by_created(const void *a, const void *b)
{
    const struct ts_bench_wl *x = a, *y = b;

    if (x->created != y->created)
        return x->created < y->created ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void ts_bench_plan_build(const struct ts_bench_gen *g, struct ts_bench_plan *out)
{
    size_t qcap = 0, wcap = 0;

    memset(out, 0, sizeof(*out));
    out->objects = cJSON_CreateArray();
    cJSON_AddItemToArray(out->objects, object("ResourceFlavor", NULL, TS_BENCH_FLAVOR));
    for (size_t c = 0; c < g->n_cohort_sets; c++) {
        const struct ts_bench_cohort_set *cs = &g->cohort_sets[c];

        for (int64_t i = 0; i < cs->count; i++) {
            char cohort[256];

            snprintf(cohort, sizeof(cohort), "%s-%lld", cs->class_name, (long long)i);
            cJSON_AddItemToArray(out->objects, object("Cohort", NULL, cohort));
            for (size_t q = 0; q < cs->n_queue_sets; q++) {
                for (int64_t j = 0; j < cs->queue_sets[q].count; j++)
                    add_queue(out, &qcap, &wcap, cohort, &cs->queue_sets[q], j);
            }
        }
    }
    for (size_t i = 0; i < out->n_wls; i++)
        out->wls[i].seq = i;
    qsort(out->wls, out->n_wls, sizeof(*out->wls), by_created);
}

void ts_bench_plan_release(struct ts_bench_plan *p)
{
    cJSON_Delete(p->objects);
    for (size_t i = 0; i < p->n_queues; i++) {
        free(p->queues[i].name);
        free(p->queues[i].cohort);
    }
    free(p->queues);
    for (size_t i = 0; i < p->n_classes; i++)
        free(p->classes[i]);
    free(p->classes);
    for (size_t i = 0; i < p->n_queue_classes; i++)
        free(p->queue_classes[i]);
    free(p->queue_classes);
    for (size_t i = 0; i < p->n_wls; i++)
        free(p->wls[i].name);
    free(p->wls);
    memset(p, 0, sizeof(*p));
}

cJSON *ts_bench_plan_workload(const struct ts_bench_plan *p, size_t i, ts_time created)
{
    const struct ts_bench_wl *w = &p->wls[i];
    cJSON *o = object("Workload", TS_BENCH_NAMESPACE, w->name);
    cJSON *spec = cJSON_AddObjectToObject(o, "spec"), *ps, *c, *req;
    char ts[TS_TIME_STR_MAX];

    if (created) {
        cJSON_AddStringToObject(cJSON_GetObjectItemCaseSensitive(o, "metadata"),
                                "creationTimestamp", ts_time_format_micro(created, ts, sizeof(ts)));
    }
    cJSON_AddStringToObject(spec, "queueName", p->queues[w->queue].name);
    cJSON_AddNumberToObject(spec, "priority", w->priority);
    ps = cJSON_CreateObject();
    cJSON_AddItemToArray(cJSON_AddArrayToObject(spec, "podSets"), ps);
    cJSON_AddStringToObject(ps, "name", "main");
    cJSON_AddNumberToObject(ps, "count", 1);
    c = cJSON_CreateObject();
    cJSON_AddItemToArray(
        cJSON_AddArrayToObject(
            cJSON_AddObjectToObject(cJSON_AddObjectToObject(ps, "template"), "spec"), "containers"),
        c);
    cJSON_AddStringToObject(c, "name", "c");
    cJSON_AddStringToObject(c, "image", "registry.k8s.io/pause:3.9");
    req = cJSON_AddObjectToObject(cJSON_AddObjectToObject(c, "resources"), "requests");
    add_quantity(req, "cpu", w->request_milli);
    return o;
}

cJSON *ts_bench_plan_job(const struct ts_bench_plan *p, size_t i)
{
    const struct ts_bench_wl *w = &p->wls[i];
    cJSON *o = cJSON_CreateObject(), *meta, *labels, *ann, *spec, *c, *req;
    char v[64];

    cJSON_AddStringToObject(o, "apiVersion", "batch/v1");
    cJSON_AddStringToObject(o, "kind", "Job");
    meta = cJSON_AddObjectToObject(o, "metadata");
    cJSON_AddStringToObject(meta, "namespace", TS_BENCH_NAMESPACE);
    cJSON_AddStringToObject(meta, "name", w->name);
    labels = cJSON_AddObjectToObject(meta, "labels");
    cJSON_AddStringToObject(labels, TS_BENCH_CLEANUP_LABEL, "true");
    cJSON_AddStringToObject(labels, "kueue.x-k8s.io/queue-name", p->queues[w->queue].name);
    snprintf(v, sizeof(v), TS_BENCH_PRIORITY_CLASS "%d", (int)w->priority);
    cJSON_AddStringToObject(labels, "kueue.x-k8s.io/priority-class", v);
    ann = cJSON_AddObjectToObject(meta, "annotations");
    snprintf(v, sizeof(v), "%lldms", (long long)(w->runtime / 1000000));
    cJSON_AddStringToObject(ann, "turnstile.dev/simulated-runtime", v);
    spec = cJSON_AddObjectToObject(o, "spec");
    cJSON_AddNumberToObject(spec, "parallelism", 1);
    cJSON_AddNumberToObject(spec, "completions", 1);
    cJSON_AddBoolToObject(spec, "suspend", 1);
    spec = cJSON_AddObjectToObject(cJSON_AddObjectToObject(spec, "template"), "spec");
    cJSON_AddStringToObject(spec, "restartPolicy", "Never");
    c = cJSON_CreateObject();
    cJSON_AddItemToArray(cJSON_AddArrayToObject(spec, "containers"), c);
    cJSON_AddStringToObject(c, "name", "c");
    cJSON_AddStringToObject(c, "image", "registry.k8s.io/pause:3.9");
    req = cJSON_AddObjectToObject(cJSON_AddObjectToObject(c, "resources"), "requests");
    add_quantity(req, "cpu", w->request_milli);
    return o;
}

cJSON *ts_bench_plan_priority_classes(const struct ts_bench_plan *p)
{
    cJSON *out = cJSON_CreateArray(), *o;
    int32_t *seen = ts_xcalloc(p->n_wls + 1, sizeof(*seen));
    size_t n = 0, j;

    for (size_t i = 0; i < p->n_wls; i++) {
        char name[64];

        for (j = 0; j < n && seen[j] != p->wls[i].priority; j++)
            ;
        if (j < n)
            continue;
        seen[n++] = p->wls[i].priority;
        snprintf(name, sizeof(name), TS_BENCH_PRIORITY_CLASS "%d", (int)p->wls[i].priority);
        o = object("WorkloadPriorityClass", NULL, name);
        cJSON_AddNumberToObject(o, "value", p->wls[i].priority);
        cJSON_AddItemToArray(out, o);
    }
    free(seen);
    return out;
}
