#include "bench/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

double ts_bench_percentile(const double *sorted, size_t n, double p)
{
    double rank;
    size_t i;

    if (!n)
        return 0;
    rank =
        ceil(p / 100.0 * (double)n - 1e-9); /* 1-based; the epsilon absorbs 0.9 * 10 = 9.000001 */
    i = rank < 1 ? 0 : (size_t)rank - 1;
    return sorted[i < n ? i : n - 1];
}

void ts_bench_summarize(double *v, size_t n, struct ts_bench_summary *out)
{
    double sum = 0;

    memset(out, 0, sizeof(*out));
    if (!n)
        return;
    qsort(v, n, sizeof(*v), cmp_double);
    for (size_t i = 0; i < n; i++)
        sum += v[i];
    out->n = n;
    out->mean = sum / (double)n;
    out->p50 = ts_bench_percentile(v, n, 50);
    out->p90 = ts_bench_percentile(v, n, 90);
    out->p99 = ts_bench_percentile(v, n, 99);
    out->max = v[n - 1];
}

void ts_bench_mean_stdev(const double *v, size_t n, double *mean, double *stdev)
{
    double sum = 0, sq = 0;

    *mean = *stdev = 0;
    if (!n)
        return;
    for (size_t i = 0; i < n; i++)
        sum += v[i];
    *mean = sum / (double)n;
    if (n < 2)
        return;
    for (size_t i = 0; i < n; i++)
        sq += (v[i] - *mean) * (v[i] - *mean);
    *stdev = sqrt(sq / (double)(n - 1));
}
