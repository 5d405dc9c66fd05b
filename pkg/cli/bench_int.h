/* bench_int.h - private to `turnstilectl bench` (pkg/cli/bench*.c). */
#ifndef TS_CLI_BENCH_INT_H
#define TS_CLI_BENCH_INT_H

#include <stddef.h>
#include <stdio.h>

#include "bench/gen.h"
#include "bench/report.h"

struct ts__bench_opts {
    const char *file;
    int ideal;
    double qps, burst; /* qps 0: no write budget */
    size_t runs;
    int json;
    const char *check;
};

/* Prints the runs' reports (one run: values; several: mean ± stdev) as a
 * table or JSON. */
void ts__bench_print(const struct ts__bench_opts *o, const struct ts_bench_plan *plan,
                     const struct ts_bench_report *reps, FILE *out);

/* The mean of n reports (same plan), field by field.  Ownership: release
 * *out with ts_bench_report_release(); names stay borrowed from the plan. */
void ts__bench_mean(const struct ts_bench_report *reps, size_t n, struct ts_bench_report *out);

#endif
