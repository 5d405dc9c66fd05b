#include "bench/report.h"

#include "util/alloc.h"

#include <stdlib.h>
#include <string.h>

void ts_bench_result_init(struct ts_bench_result *r, const struct ts_bench_plan *p)
{
    memset(r, 0, sizeof(*r));
    r->n_wls = p->n_wls;
    r->wls = ts_xcalloc(p->n_wls + 1, sizeof(*r->wls));
    for (size_t i = 0; i < p->n_wls; i++)
        r->wls[i].admitted = r->wls[i].finished = -1;
    r->n_queues = p->n_queues;
    r->held = ts_xcalloc(p->n_queues + 1, sizeof(*r->held));
}

void ts_bench_result_release(struct ts_bench_result *r)
{
    free(r->wls);
    free(r->held);
    memset(r, 0, sizeof(*r));
}

void ts_bench_result_hold(struct ts_bench_result *r, const struct ts_bench_plan *p, size_t i,
                          ts_time from, ts_time to)
{
    if (to > from)
        r->held[p->wls[i].queue] += (double)p->wls[i].request_milli * (double)(to - from);
}

static void class_times(const struct ts_bench_plan *p, const struct ts_bench_result *r, size_t c,
                        struct ts_bench_summary *out)
{
    double *v = ts_xcalloc(p->n_wls + 1, sizeof(*v));
    size_t n = 0;

    for (size_t i = 0; i < p->n_wls; i++) {
        if (p->wls[i].wl_class == c && r->wls[i].admitted >= 0)
            v[n++] = (double)(r->wls[i].admitted - p->wls[i].created) / 1e9;
    }
    ts_bench_summarize(v, n, out);
    free(v);
}

/* Usage of each queue (percent) over the wall time. */
static double *queue_usage(const struct ts_bench_plan *p, const struct ts_bench_result *r,
                           double wall_ns)
{
    double *u = ts_xcalloc(p->n_queues + 1, sizeof(*u));

    for (size_t q = 0; q < p->n_queues; q++) {
        double cap = (double)p->queues[q].nominal_milli * wall_ns;

        u[q] = cap > 0 ? 100.0 * r->held[q] / cap : 0;
    }
    return u;
}

/* Minimum and mean of the queues whose class is qc (every queue: SIZE_MAX). */
static void usage_of(const struct ts_bench_plan *p, const double *u, size_t qc, double *min,
                     double *mean)
{
    size_t n = 0;
    double sum = 0;

    *min = *mean = 0;
    for (size_t q = 0; q < p->n_queues; q++) {
        if (qc != SIZE_MAX && p->queues[q].q_class != qc)
            continue;
        *min = n ? (u[q] < *min ? u[q] : *min) : u[q];
        sum += u[q];
        n++;
    }
    if (n)
        *mean = sum / (double)n;
}

void ts_bench_report_build(const struct ts_bench_plan *p, const struct ts_bench_result *r,
                           struct ts_bench_report *out)
{
    ts_time last = 0;
    double *u;

    memset(out, 0, sizeof(*out));
    for (size_t i = 0; i < p->n_wls; i++) {
        const struct ts_bench_wl_result *w = &r->wls[i];

        out->admitted += w->admitted >= 0;
        out->finished += w->finished >= 0;
        out->never_admitted += w->admitted < 0;
        out->evicted += w->evictions;
        if (w->finished > last)
            last = w->finished;
    }
    out->wall = (double)last / 1e9;
    out->classes = ts_xcalloc(p->n_classes + 1, sizeof(*out->classes));
    out->n_classes = p->n_classes;
    for (size_t c = 0; c < p->n_classes; c++) {
        out->classes[c].name = p->classes[c];
        class_times(p, r, c, &out->classes[c].tta);
    }
    u = queue_usage(p, r, (double)last);
    usage_of(p, u, SIZE_MAX, &out->min_usage, &out->mean_usage);
    out->queue_classes = ts_xcalloc(p->n_queue_classes + 1, sizeof(*out->queue_classes));
    out->n_queue_classes = p->n_queue_classes;
    for (size_t c = 0; c < p->n_queue_classes; c++) {
        out->queue_classes[c].name = p->queue_classes[c];
        usage_of(p, u, c, &out->queue_classes[c].min_usage, &out->queue_classes[c].mean_usage);
    }
    free(u);
    out->cycles = r->cycles;
    out->admission_writes = r->admissions;
    out->eviction_writes = r->evictions;
    out->admissions_per_s = out->wall > 0 ? (double)out->admitted / out->wall : 0;
}

void ts_bench_report_release(struct ts_bench_report *rep)
{
    free(rep->classes);
    free(rep->queue_classes);
    memset(rep, 0, sizeof(*rep));
}
