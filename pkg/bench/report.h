/*
 * report.h - what one benchmark run measured, and its summary in the
 * terms of Kueue's checker: time to admission per workload class, wall
 * time (first creation to last finish) and ClusterQueue usage (quota held
 * over nominal quota x wall time, per ClusterQueue).
 *
 * A run (ideal or live) fills a ts_bench_result: per workload the first
 * admission and the finish, and per ClusterQueue the held quota integral
 * (ts_bench_result_hold() for each interval a workload held quota).
 * Pure.  Ownership: results and reports own their arrays; release them.
 */
#ifndef TS_BENCH_REPORT_H
#define TS_BENCH_REPORT_H

#include <stddef.h>

#include "bench/gen.h"
#include "bench/stats.h"

struct ts_bench_wl_result {
    ts_time admitted; /* first admission, offset from the start; -1: never */
    ts_time finished; /* offset; -1: never */
    unsigned evictions;
};

struct ts_bench_result {
    size_t n_wls; /* = plan's */
    struct ts_bench_wl_result *wls;
    size_t n_queues;
    double *held;      /* per queue: sum of cpu milli x ns held */
    size_t cycles;     /* scheduling cycles that decided something */
    size_t admissions; /* admission writes (re-admissions after eviction included) */
    size_t evictions;  /* eviction writes */
};

/* Ownership: release with ts_bench_result_release(). */
void ts_bench_result_init(struct ts_bench_result *r, const struct ts_bench_plan *p);
void ts_bench_result_release(struct ts_bench_result *r);
/* Workload i of the plan held its request in its queue over [from, to). */
void ts_bench_result_hold(struct ts_bench_result *r, const struct ts_bench_plan *p, size_t i,
                          ts_time from, ts_time to);

struct ts_bench_class_report {
    const char *name;            /* borrowed from the plan */
    struct ts_bench_summary tta; /* time to admission, seconds */
};

struct ts_bench_queue_class_report {
    const char *name;             /* borrowed from the plan */
    double min_usage, mean_usage; /* percent */
};

struct ts_bench_report {
    size_t n_classes;
    struct ts_bench_class_report *classes;
    size_t n_queue_classes;
    struct ts_bench_queue_class_report *queue_classes;
    double wall;       /* seconds, first creation to last finish */
    double min_usage;  /* percent, over every ClusterQueue */
    double mean_usage; /* percent */
    size_t admitted, finished, never_admitted;
    double admissions_per_s;                                   /* admitted / wall */
    size_t cycles, admission_writes, eviction_writes, evicted; /* as in the result */
};

/* Summarises a result.  Ownership: release with ts_bench_report_release();
 * names are borrowed from the plan. */
void ts_bench_report_build(const struct ts_bench_plan *p, const struct ts_bench_result *r,
                           struct ts_bench_report *out);
void ts_bench_report_release(struct ts_bench_report *rep);

#endif
