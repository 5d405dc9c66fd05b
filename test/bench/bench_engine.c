/* bench_engine - throughput of the admission engine on Kueue's scheduler
 * performance shapes (a benchmark, not a test: `make bench-engine`).
 *
 * Baseline: 5 cohorts x 6 ClusterQueues, nominal 20 cpu and borrowingLimit
 * 100 per queue, 500 workloads per queue (requests 1/5/20 cpu in the
 * proportion 350:100:50, priorities 50/100/200).  Large scale: 10 x 100
 * queues, 50,000 workloads.  Each run: cycles until nothing changes, then
 * finish the admitted workloads in batches (oldest first) and cycle again,
 * until the backlog is drained.  Reported: heads evaluated per second
 * (every head a cycle looks at gets a decision: admit, or stay pending),
 * status-changing decisions per second, mean and p99 cycle time, peak RSS.
 * Then the cost of one cycle as the number of admitted workloads grows.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "api/object.h"
#include "engine/engine.h"
#include "util/alloc.h"
#include "util/buf.h"

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void put(struct ts_engine *e, const char *json)
{
    cJSON *obj = cJSON_Parse(json);
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_object o;
    struct ts_err err = {0};
    int rc = 0;

    if (!obj || ts_object_decode(obj, &o, &errs, &err) || errs.n) {
        fprintf(stderr, "bench: bad object %s\n", json);
        exit(1);
    }
    switch (o.kind) {
    case TS_KIND_RESOURCE_FLAVOR:
        rc = ts_engine_put_flavor(e, &o.u.rf, &err);
        break;
    case TS_KIND_CLUSTER_QUEUE:
        rc = ts_engine_put_cluster_queue(e, &o.u.cq, &err);
        break;
    case TS_KIND_LOCAL_QUEUE:
        rc = ts_engine_put_local_queue(e, &o.u.lq, &err);
        break;
    case TS_KIND_WORKLOAD:
        rc = ts_engine_put_workload(e, &o.u.wl, 0, &err);
        break;
    default:
        break;
    }
    if (rc) {
        fprintf(stderr, "bench: %s\n", err.msg);
        exit(1);
    }
    ts_object_release(&o);
    ts_field_errors_release(&errs);
    cJSON_Delete(obj);
}

static void put_queues(struct ts_engine *e, int cohorts, int queues, int64_t nominal,
                       int64_t borrowing, int preemption)
{
    char buf[1024];

    put(e, "{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"ResourceFlavor\","
           "\"metadata\":{\"name\":\"default\"}}");
    for (int c = 0; c < cohorts; c++) {
        for (int q = 0; q < queues; q++) {
            snprintf(buf, sizeof(buf),
                     "{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"ClusterQueue\","
                     "\"metadata\":{\"name\":\"cq-%d-%d\"},\"spec\":{\"namespaceSelector\":{},"
                     "%s\"cohortName\":\"cohort-%d\",\"resourceGroups\":[{\"coveredResources\":["
                     "\"cpu\"],\"flavors\":[{\"name\":\"default\",\"resources\":[{\"name\":"
                     "\"cpu\",\"nominalQuota\":%lld,\"borrowingLimit\":%lld}]}]}]}}",
                     c, q,
                     preemption ? "\"preemption\":{\"reclaimWithinCohort\":\"Any\","
                                  "\"withinClusterQueue\":\"LowerPriority\"},"
                                : "",
                     c, (long long)nominal, (long long)borrowing);
            put(e, buf);
            snprintf(buf, sizeof(buf),
                     "{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"LocalQueue\","
                     "\"metadata\":{\"namespace\":\"ns\",\"name\":\"lq-%d-%d\"},"
                     "\"spec\":{\"clusterQueue\":\"cq-%d-%d\"}}",
                     c, q, c, q);
            put(e, buf);
        }
    }
}

static void put_workload(struct ts_engine *e, const char *name, const char *lq, int cpu, int prio,
                         long seq)
{
    char buf[1024];

    snprintf(buf, sizeof(buf),
             "{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"Workload\",\"metadata\":{"
             "\"namespace\":\"ns\",\"name\":\"%s\",\"uid\":\"%s\",\"creationTimestamp\":"
             "\"2026-01-01T%02ld:%02ld:%02ldZ\"},\"spec\":{\"queueName\":\"%s\",\"priority\":%d,"
             "\"podSets\":[{\"name\":\"main\",\"count\":1,\"template\":{\"spec\":{\"containers\":"
             "[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":\"%d\"}}}]}}}]}}",
             name, name, seq / 3600 % 24, seq / 60 % 60, seq % 60, lq, prio, cpu);
    put(e, buf);
}

/* Kueue's baseline classes: 350 small (1 cpu, prio 50), 100 medium (5, 100),
 * 50 large (20, 200) per queue, interleaved in creation order. */
static void put_backlog(struct ts_engine *e, int cohorts, int queues, int per_queue, char ***names,
                        size_t *n)
{
    long seq = 0;

    *names = ts_xcalloc((size_t)(cohorts * queues * per_queue), sizeof(char *));
    *n = 0;
    for (int i = 0; i < per_queue; i++) {
        int slot = i % 10; /* 7:2:1 = 350:100:50 */
        int cpu = slot < 7 ? 1 : slot < 9 ? 5 : 20;
        int prio = slot < 7 ? 50 : slot < 9 ? 100 : 200;

        for (int c = 0; c < cohorts; c++) {
            for (int q = 0; q < queues; q++) {
                char name[64], lq[32];

                snprintf(name, sizeof(name), "wl-%d-%d-%d", c, q, i);
                snprintf(lq, sizeof(lq), "lq-%d-%d", c, q);
                put_workload(e, name, lq, cpu, prio, seq++);
                (*names)[(*n)++] = ts_xstrdup(name);
            }
        }
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

struct stats {
    size_t cycles, heads, decisions, admitted, preempted;
    double busy;
    double *times;
    size_t cap;
};

/* Evicts preemption victims at once (their jobs stop immediately here):
 * the engine sees them pending again, holding nothing. */
static void evict(struct ts_engine *e, const struct ts_decision *d, struct stats *st)
{
    for (size_t t = 0; t < d->n_targets; t++) {
        ts_engine_release(e, d->targets[t].ns, d->targets[t].name);
        st->preempted++;
    }
}

/* Admitted names, in admission order (a preempted workload that comes back
 * appears twice; deleting it twice is harmless). */
struct names {
    char **items;
    size_t n, cap;
};

static size_t cycle(struct ts_engine *e, struct stats *st, struct names *adm)
{
    struct ts_cycle c;
    double t0 = now_s(), dt;
    size_t changed;

    ts_cycle_init(&c);
    changed = ts_engine_cycle(e, 0, &c);
    for (size_t i = 0; i < c.n; i++) {
        if (c.items[i].kind == TS_DECISION_PREEMPT)
            evict(e, &c.items[i], st);
        if (c.items[i].kind != TS_DECISION_ADMIT)
            continue;
        ts_engine_admit_confirm(e, c.items[i].ns, c.items[i].name);
        TS_GROW(adm->items, adm->cap, adm->n + 1);
        adm->items[adm->n++] = ts_xstrdup(c.items[i].name);
        st->admitted++;
    }
    dt = now_s() - t0;
    st->heads += c.heads;
    st->decisions += c.n;
    ts_cycle_release(&c);
    TS_GROW(st->times, st->cap, st->cycles + 1);
    st->times[st->cycles++] = dt;
    st->busy += dt;
    return changed;
}

static void run_shape(const char *label, int cohorts, int queues, int per_queue, int preemption)
{
    struct ts_engine *e = ts_engine_new(NULL);
    struct stats st = {0};
    struct names adm = {NULL, 0, 0};
    char **names;
    size_t n, finished = 0;
    struct rusage ru;

    put_queues(e, cohorts, queues, 20, 100, preemption);
    put_backlog(e, cohorts, queues, per_queue, &names, &n);
    for (;;) {
        size_t batch;

        while (cycle(e, &st, &adm))
            ;
        if (finished == adm.n)
            break; /* nothing new admitted: drained (or stuck) */
        batch = (adm.n - finished + 1) / 2;
        for (size_t i = 0; i < batch; i++, finished++)
            ts_engine_delete_workload(e, "ns", adm.items[finished]);
    }
    qsort(st.times, st.cycles, sizeof(double), cmp_double);
    getrusage(RUSAGE_SELF, &ru);
    printf("%-18s %6zu wl %6zu cycles %8.0f heads/s %8.0f decisions/s %6.1f us/admission "
           "admitted %zu preempted %zu cycle mean %.1f us p99 %.1f us peak RSS %ld MiB\n",
           label, n, st.cycles, st.heads / st.busy, st.decisions / st.busy,
           st.busy / (double)st.admitted * 1e6, st.admitted, st.preempted,
           st.busy / (double)st.cycles * 1e6, st.times[st.cycles * 99 / 100] * 1e6,
           ru.ru_maxrss / 1024);
    for (size_t i = 0; i < adm.n; i++)
        free(adm.items[i]);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    free(adm.items);
    free(st.times);
    ts_engine_free(e);
}

/* Cycle cost with `held` admitted workloads already holding quota: one
 * queue per cohort, 30 heads per cycle that do not fit. */
static void run_flat(size_t held)
{
    struct ts_engine *e = ts_engine_new(NULL);
    char name[64];
    double t0, total = 0;
    int rounds = 200;

    put_queues(e, 30, 1, (int64_t)held / 30 + 1, 0, 0);
    for (size_t i = 0; i < held; i++) {
        snprintf(name, sizeof(name), "held-%zu", i);
        put_workload(e, name, "lq-0-0", 0, 0, (long)i);
    }
    /* admit the held ones (1 cpu each would need quota: they request 0) */
    for (;;) {
        struct ts_cycle c;
        size_t ch;

        ts_cycle_init(&c);
        ch = ts_engine_cycle(e, 0, &c);
        for (size_t i = 0; i < c.n; i++)
            if (c.items[i].kind == TS_DECISION_ADMIT)
                ts_engine_admit_confirm(e, c.items[i].ns, c.items[i].name);
        ts_cycle_release(&c);
        if (!ch)
            break;
    }
    for (int c = 0; c < 30; c++) {
        char lq[32];

        snprintf(lq, sizeof(lq), "lq-%d-0", c);
        for (int i = 0; i < rounds; i++) {
            snprintf(name, sizeof(name), "probe-%d-%d", c, i);
            /* distinct requests: no two probes share an equivalence class */
            put_workload(e, name, lq, 1000000 + i, 0, i);
        }
    }
    for (int r = 0; r < rounds; r++) {
        struct ts_cycle c;

        ts_cycle_init(&c);
        t0 = now_s();
        ts_engine_cycle(e, 0, &c);
        total += now_s() - t0;
        ts_cycle_release(&c);
    }
    printf("%-12s %7zu admitted: cycle of 30 heads %.1f us\n", "admitted", held,
           total / rounds * 1e6);
    ts_engine_free(e);
}

int main(int argc, char **argv)
{
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;

    if (argc > 2 && strcmp(argv[1], "--flat") == 0) { /* for instruction counts */
        ts_alloc_init();
        run_flat((size_t)strtoull(argv[2], NULL, 10));
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "--baseline-only") == 0) { /* for profiling */
        ts_alloc_init();
        run_shape("baseline", 5, 6, 500, 0);
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "--large-only") == 0) {
        ts_alloc_init();
        run_shape("large-scale", 10, 100, 50, 0);
        return 0;
    }
    ts_alloc_init();
    run_shape("baseline", 5, 6, quick ? 50 : 500, 0);
    run_shape("baseline+preempt", 5, 6, quick ? 50 : 500, 1);
    if (!quick) {
        run_shape("large-scale", 10, 100, 50, 0);
        run_shape("large+preempt", 10, 100, 50, 1);
    }
    run_flat(1000);
    run_flat(10000);
    if (!quick)
        run_flat(100000);
    return 0;
}
