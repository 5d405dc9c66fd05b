/*
 * stats.h - the statistics the benchmark reports: mean, nearest-rank
 * percentiles, and mean +- sample standard deviation over repeated runs.
 * Pure.
 */
#ifndef TS_BENCH_STATS_H
#define TS_BENCH_STATS_H

#include <stddef.h>

struct ts_bench_summary {
    size_t n;
    double mean, p50, p90, p99, max;
};

/* Summarises v[0..n) (sorted in place).  All zero when n is 0. */
void ts_bench_summarize(double *v, size_t n, struct ts_bench_summary *out);

/* The nearest-rank p-th percentile (0 < p <= 100) of sorted v[0..n):
 * the smallest value with at least p % of the values at or below it. */
double ts_bench_percentile(const double *sorted, size_t n, double p);

/* Mean and sample standard deviation (n - 1; 0 for n < 2). */
void ts_bench_mean_stdev(const double *v, size_t n, double *mean, double *stdev);

#endif
