/* bench_print.c - the report of `turnstilectl bench`: a table per class or
 * JSON, each value alone (one run) or as mean ± stdev over the runs. */
#include "bench/stats.h"
#include "cli/bench_int.h"
#include "util/alloc.h"

#include <cJSON.h>
#include <stdlib.h>
#include <string.h>

/* Collects `expr` (over R, the run's report) from every run into v. */
#define COLLECT(v, reps, n, expr)                                                                  \
    for (size_t r_ = 0; r_ < (n); r_++) {                                                          \
        const struct ts_bench_report *R = &(reps)[r_];                                             \
        (v)[r_] = (expr);                                                                          \
    }

static char *cell(char *buf, size_t len, const double *v, size_t n, int decimals)
{
    double mean, sd;

    ts_bench_mean_stdev(v, n, &mean, &sd);
    if (n == 1)
        snprintf(buf, len, "%.*f", decimals, mean);
    else
        snprintf(buf, len, "%.*f±%.*f", decimals, mean, decimals, sd);
    return buf;
}

/* Live: the ideal under the same budget, the ratios, the controller's
 * cost and the API writes (of the first run). */
static void print_live(const struct ts__bench_opts *o, const struct ts_bench_plan *plan,
                       const struct ts_bench_report *reps, const struct ts__bench_live *live,
                       const struct ts_bench_report *ideal, FILE *out)
{
    size_t n = o->runs;
    double *v = ts_xcalloc(n, sizeof(*v));
    char a[64], b[64];

    fprintf(out, "\nideal (same write budget): wall %.2f s", ideal->wall);
    for (size_t k = 0; k < plan->n_classes; k++)
        fprintf(out, ", %s mean %.2f s", plan->classes[k], ideal->classes[k].tta.mean);
    COLLECT(v, reps, n, ideal->wall > 0 ? R->wall / ideal->wall : 0)
    fprintf(out, "\nlive/ideal: wall %sx; live - ideal:", cell(a, sizeof(a), v, n, 3));
    for (size_t k = 0; k < plan->n_classes; k++) {
        COLLECT(v, reps, n, R->classes[k].tta.mean - ideal->classes[k].tta.mean)
        fprintf(out, " %s mean %s s", plan->classes[k], cell(a, sizeof(a), v, n, 2));
    }
    for (size_t r = 0; r < n; r++)
        v[r] = live[r].cpu_s;
    cell(a, sizeof(a), v, n, 2);
    for (size_t r = 0; r < n; r++)
        v[r] = reps[r].wall > 0 ? live[r].cpu_s / reps[r].wall * 1000 : 0;
    fprintf(out, "\ncontroller: CPU %s s, average %s mCPU", a, cell(b, sizeof(b), v, n, 1));
    for (size_t r = 0; r < n; r++)
        v[r] = live[r].rss_kib / 1024;
    fprintf(out, ", peak RSS %s MiB", cell(a, sizeof(a), v, n, 1));
    for (size_t r = 0; r < n; r++)
        v[r] = live[r].ctl_wall_s;
    fprintf(out, ", process wall %s s\n", cell(a, sizeof(a), v, n, 2));
    fprintf(out, "ClusterQueue usage as Kueue's runner reads their status (first run):");
    for (size_t k = 0; k < live[0].n_kueue_usage; k++)
        fprintf(out, " %s %.1f %%", plan->queue_classes[k], live[0].kueue_usage[k]);
    fputc('\n', out);
    if (!live[0].writes_counted) {
        fprintf(out, "API writes: not counted (the cluster's own API server; its audit log has "
                     "them)\n");
        free(v);
        return;
    }
    for (size_t r = 0; r < n; r++)
        v[r] = live[r].admissions ? (double)live[r].ctl_wl_writes / (double)live[r].admissions : 0;
    fprintf(out, "controller Workload writes: %zu for %zu admissions (%s per admission)\n",
            live[0].ctl_wl_writes, live[0].admissions, cell(a, sizeof(a), v, n, 3));
    fprintf(out, "API writes (every client, first run):\n%s", live[0].writes.ptr);
    free(v);
}

static void print_mode(const struct ts__bench_opts *o, FILE *out)
{
    if (o->live && o->qps > 0)
        fprintf(out, "mode: live, controller client budget %g/%g qps/burst\n", o->qps, o->burst);
    else if (o->live)
        fprintf(out, "mode: live, controller client budget unlimited\n");
    else if (o->qps > 0)
        fprintf(out, "mode: ideal, write budget %g/%g qps/burst\n", o->qps, o->burst);
    else
        fprintf(out, "mode: ideal, no write budget\n");
}

static void print_table(const struct ts__bench_opts *o, const struct ts_bench_plan *plan,
                        const struct ts_bench_report *reps, FILE *out)
{
    size_t n = o->runs;
    double *v = ts_xcalloc(n, sizeof(*v));
    char a[64], b[64], c[64], d[64], e[64];

    print_mode(o, out);
    fprintf(out, "workloads: %zu  ClusterQueues: %zu  runs: %zu\n\n", plan->n_wls, plan->n_queues,
            n);
    fprintf(out, "%-12s %7s %14s %14s %14s %14s   (time to admission, s)\n", "CLASS", "COUNT",
            "MEAN", "P50", "P90", "P99");
    for (size_t k = 0; k < plan->n_classes; k++) {
        COLLECT(v, reps, n, R->classes[k].tta.mean)
        cell(a, sizeof(a), v, n, 2);
        COLLECT(v, reps, n, R->classes[k].tta.p50)
        cell(b, sizeof(b), v, n, 2);
        COLLECT(v, reps, n, R->classes[k].tta.p90)
        cell(c, sizeof(c), v, n, 2);
        COLLECT(v, reps, n, R->classes[k].tta.p99)
        cell(d, sizeof(d), v, n, 2);
        fprintf(out, "%-12s %7zu %14s %14s %14s %14s\n", plan->classes[k], reps[0].classes[k].tta.n,
                a, b, c, d);
    }
    COLLECT(v, reps, n, R->wall)
    fprintf(out, "\nwall: %s s", cell(a, sizeof(a), v, n, 2));
    COLLECT(v, reps, n, R->admissions_per_s)
    fprintf(out, "  admitted/s: %s", cell(a, sizeof(a), v, n, 1));
    COLLECT(v, reps, n, R->min_usage)
    cell(a, sizeof(a), v, n, 1);
    COLLECT(v, reps, n, R->mean_usage)
    fprintf(out, "  ClusterQueue usage: min %s %%, mean %s %%\n", a, cell(e, sizeof(e), v, n, 1));
    fprintf(out, "admitted: %zu  finished: %zu  never admitted: %zu  evictions: %zu\n",
            reps[0].admitted, reps[0].finished, reps[0].never_admitted, reps[0].evicted);
    if (!o->live)
        fprintf(out, "cycles: %zu  Workload writes: %zu admissions, %zu evictions\n",
                reps[0].cycles, reps[0].admission_writes, reps[0].eviction_writes);
    free(v);
}

static cJSON *stat_json(const double *v, size_t n)
{
    cJSON *o = cJSON_CreateObject();
    double mean, sd;

    ts_bench_mean_stdev(v, n, &mean, &sd);
    cJSON_AddNumberToObject(o, "mean", mean);
    cJSON_AddNumberToObject(o, "stdev", sd);
    return o;
}

static cJSON *classes_json(const struct ts_bench_plan *plan, const struct ts_bench_report *reps,
                           size_t n, double *v)
{
    cJSON *cls = cJSON_CreateObject();

    for (size_t k = 0; k < plan->n_classes; k++) {
        cJSON *c = cJSON_AddObjectToObject(cls, plan->classes[k]);

        cJSON_AddNumberToObject(c, "count", (double)reps[0].classes[k].tta.n);
        COLLECT(v, reps, n, R->classes[k].tta.mean)
        cJSON_AddItemToObject(c, "meanSeconds", stat_json(v, n));
        COLLECT(v, reps, n, R->classes[k].tta.p50)
        cJSON_AddItemToObject(c, "p50Seconds", stat_json(v, n));
        COLLECT(v, reps, n, R->classes[k].tta.p90)
        cJSON_AddItemToObject(c, "p90Seconds", stat_json(v, n));
        COLLECT(v, reps, n, R->classes[k].tta.p99)
        cJSON_AddItemToObject(c, "p99Seconds", stat_json(v, n));
    }
    return cls;
}

static cJSON *live_json(const struct ts__bench_opts *o, const struct ts_bench_plan *plan,
                        const struct ts_bench_report *reps, const struct ts__bench_live *live,
                        const struct ts_bench_report *ideal, double *v)
{
    cJSON *l = cJSON_CreateObject();
    size_t n = o->runs;

    cJSON_AddNumberToObject(l, "idealWallSeconds", ideal->wall);
    COLLECT(v, reps, n, ideal->wall > 0 ? R->wall / ideal->wall : 0)
    cJSON_AddItemToObject(l, "wallRatio", stat_json(v, n));
    for (size_t r = 0; r < n; r++)
        v[r] = live[r].cpu_s;
    cJSON_AddItemToObject(l, "controllerCPUSeconds", stat_json(v, n));
    for (size_t r = 0; r < n; r++)
        v[r] = reps[r].wall > 0 ? live[r].cpu_s / reps[r].wall * 1000 : 0;
    cJSON_AddItemToObject(l, "controllerMilliCPU", stat_json(v, n));
    for (size_t r = 0; r < n; r++)
        v[r] = live[r].rss_kib / 1024;
    cJSON_AddItemToObject(l, "controllerPeakRSSMiB", stat_json(v, n));
    for (size_t r = 0; r < n; r++)
        v[r] = live[r].ctl_wall_s;
    cJSON_AddItemToObject(l, "controllerWallSeconds", stat_json(v, n));
    {
        cJSON *ku = cJSON_AddObjectToObject(l, "kueueRecorderUsagePercent");

        for (size_t k = 0; k < live[0].n_kueue_usage; k++)
            cJSON_AddNumberToObject(ku, plan->queue_classes[k], live[0].kueue_usage[k]);
    }
    cJSON_AddNumberToObject(l, "admissions", (double)live[0].admissions);
    if (!live[0].writes_counted)
        return l;
    cJSON_AddNumberToObject(l, "controllerWorkloadWrites", (double)live[0].ctl_wl_writes);
    cJSON_AddNumberToObject(l, "runnerWorkloadWrites", (double)live[0].runner_wl_writes);
    for (size_t r = 0; r < n; r++)
        v[r] = live[r].admissions ? (double)live[r].ctl_wl_writes / (double)live[r].admissions : 0;
    cJSON_AddItemToObject(l, "workloadWritesPerAdmission", stat_json(v, n));
    cJSON_AddStringToObject(l, "apiWrites", live[0].writes.ptr);
    return l;
}

static void add_mode(const struct ts__bench_opts *o, cJSON *root)
{
    cJSON *wb;

    cJSON_AddStringToObject(root, "mode", o->live ? "live" : "ideal");
    if (o->qps <= 0)
        return;
    wb = cJSON_AddObjectToObject(root, o->live ? "clientBudget" : "writeBudget");
    cJSON_AddNumberToObject(wb, "qps", o->qps);
    cJSON_AddNumberToObject(wb, "burst", o->burst);
}

static void print_json(const struct ts__bench_opts *o, const struct ts_bench_plan *plan,
                       const struct ts_bench_report *reps, const struct ts__bench_live *live,
                       const struct ts_bench_report *ideal, FILE *out)
{
    size_t n = o->runs;
    double *v = ts_xcalloc(n, sizeof(*v));
    cJSON *root = cJSON_CreateObject();
    char *s;

    add_mode(o, root);
    cJSON_AddNumberToObject(root, "runs", (double)n);
    cJSON_AddNumberToObject(root, "workloads", (double)plan->n_wls);
    cJSON_AddNumberToObject(root, "clusterQueues", (double)plan->n_queues);
    cJSON_AddItemToObject(root, "classes", classes_json(plan, reps, n, v));
    COLLECT(v, reps, n, R->wall)
    cJSON_AddItemToObject(root, "wallSeconds", stat_json(v, n));
    COLLECT(v, reps, n, R->min_usage)
    cJSON_AddItemToObject(root, "minUsagePercent", stat_json(v, n));
    COLLECT(v, reps, n, R->mean_usage)
    cJSON_AddItemToObject(root, "meanUsagePercent", stat_json(v, n));
    COLLECT(v, reps, n, R->admissions_per_s)
    cJSON_AddItemToObject(root, "admittedPerSecond", stat_json(v, n));
    cJSON_AddNumberToObject(root, "admitted", (double)reps[0].admitted);
    cJSON_AddNumberToObject(root, "neverAdmitted", (double)reps[0].never_admitted);
    cJSON_AddNumberToObject(root, "evictions", (double)reps[0].evicted);
    cJSON_AddNumberToObject(root, "cycles", (double)reps[0].cycles);
    cJSON_AddNumberToObject(root, "admissionWrites", (double)reps[0].admission_writes);
    cJSON_AddNumberToObject(root, "evictionWrites", (double)reps[0].eviction_writes);
    if (live)
        cJSON_AddItemToObject(root, "live", live_json(o, plan, reps, live, ideal, v));
    s = cJSON_Print(root);
    fprintf(out, "%s\n", s);
    free(s);
    cJSON_Delete(root);
    free(v);
}

void ts__bench_print(const struct ts__bench_opts *o, const struct ts_bench_plan *plan,
                     const struct ts_bench_report *reps, const struct ts__bench_live *live,
                     const struct ts_bench_report *ideal, FILE *out)
{
    if (o->json) {
        print_json(o, plan, reps, live, ideal, out);
        return;
    }
    print_table(o, plan, reps, out);
    if (live)
        print_live(o, plan, reps, live, ideal, out);
}

void ts__bench_mean(const struct ts_bench_report *reps, size_t n, struct ts_bench_report *out)
{
    double k = (double)n;

    *out = reps[0];
    out->classes = ts_xcalloc(reps[0].n_classes + 1, sizeof(*out->classes));
    out->queue_classes = ts_xcalloc(reps[0].n_queue_classes + 1, sizeof(*out->queue_classes));
    memcpy(out->classes, reps[0].classes, reps[0].n_classes * sizeof(*out->classes));
    memcpy(out->queue_classes, reps[0].queue_classes,
           reps[0].n_queue_classes * sizeof(*out->queue_classes));
    for (size_t r = 1; r < n; r++) {
        out->wall += reps[r].wall;
        out->min_usage += reps[r].min_usage;
        out->mean_usage += reps[r].mean_usage;
        for (size_t c = 0; c < out->n_classes; c++)
            out->classes[c].tta.mean += reps[r].classes[c].tta.mean;
        for (size_t c = 0; c < out->n_queue_classes; c++)
            out->queue_classes[c].min_usage += reps[r].queue_classes[c].min_usage;
    }
    out->wall /= k;
    out->min_usage /= k;
    out->mean_usage /= k;
    for (size_t c = 0; c < out->n_classes; c++)
        out->classes[c].tta.mean /= k;
    for (size_t c = 0; c < out->n_queue_classes; c++)
        out->queue_classes[c].min_usage /= k;
}
