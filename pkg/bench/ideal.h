/*
 * ideal.h - the zero-latency ideal: the real admission engine (pkg/engine)
 * driven in virtual time.  Every creation and finish happens at its exact
 * time, a scheduling cycle runs the instant anything changed, and a
 * workload finishes its runtime after its admission (an evicted one starts
 * over when admitted again).  No scheduler with the same policy can admit
 * sooner.
 *
 * With a write budget (qps > 0), every Workload status write the
 * controller would make for a decision (an admission, an eviction) takes a
 * token from a token bucket (bench/bucket.h); writes queue first come,
 * first served.  An admission holds its quota from its decision (the
 * engine assumes it, so nothing is over-committed) but counts as admitted,
 * and its runtime starts, only when its write is granted; an eviction
 * releases the victim's quota when its write is granted.  Pending-reason
 * writes are not modelled.
 *
 * Pure: no I/O, no clock.
 */
#ifndef TS_BENCH_IDEAL_H
#define TS_BENCH_IDEAL_H

#include "bench/gen.h"
#include "bench/report.h"
#include "util/err.h"

struct ts_bench_ideal_opts {
    double qps; /* write budget; <= 0: unlimited */
    double burst;
    /* tests: the engine's self-check (ts_engine_check, with check_memo)
     * after every step; the first failure ends the run (TS_EINTERNAL) */
    int check;
};

/* Runs the plan to the end into out (initialised here).  Returns 0, or
 * TS_EINVAL when the engine refuses a generated object (message names it)
 * or TS_EINTERNAL when cycles at one instant never settle.
 * Ownership: release out with ts_bench_result_release() (also on error). */
int ts_bench_ideal_run(const struct ts_bench_plan *p, const struct ts_bench_ideal_opts *o,
                       struct ts_bench_result *out, struct ts_err *err);

#endif
