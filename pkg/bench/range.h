/*
 * range.h - Kueue's range checker (test/performance/scheduler/checker):
 * a range file gives upper bounds on wall time, the controller's CPU and
 * memory, the mean time to admission of each workload class, and lower
 * bounds on the usage of each ClusterQueue class:
 *
 *   cmd:
 *     maxWallMs: 425000
 *     maxUserMs: 3600000        # controller user CPU (live mode only)
 *     maxSysMs: 3600000         # controller system CPU (live mode only)
 *     maxrss: 1024000           # controller peak RSS, KiB (live mode only)
 *   clusterQueueClassesMinUsage:
 *     cq: 50                    # percent, the least used queue of the class
 *   wlClassesMaxAvgTimeToAdmissionMs:
 *     large: 23000
 *
 * Pure.  Ownership: a decoded range owns its strings; release it.
 */
#ifndef TS_BENCH_RANGE_H
#define TS_BENCH_RANGE_H

#include <cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "bench/report.h"
#include "util/buf.h"
#include "util/err.h"

struct ts_bench_bound {
    char *name;
    double value;
};

struct ts_bench_range {
    double max_wall_ms, max_user_ms, max_sys_ms, max_rss_kib; /* < 0: no bound */
    size_t n_usage;
    struct ts_bench_bound *min_usage; /* per ClusterQueue class, percent */
    size_t n_tta;
    struct ts_bench_bound *max_tta_ms; /* per workload class */
};

/* Decodes a range file's tree.  Returns 0 or TS_EINVAL naming the field
 * ("wlClassesMaxAvgTimeToAdmissionMs.large: Invalid value: must be a
 * non-negative number").  Ownership: release with ts_bench_range_release(). */
int ts_bench_range_decode(const cJSON *root, struct ts_bench_range *out, struct ts_err *err);
void ts_bench_range_release(struct ts_bench_range *r);

/* What the controller process used (live mode); NULL in ideal mode, when
 * the cmd CPU and memory bounds are not checked. */
struct ts_bench_proc {
    double user_ms, sys_ms, max_rss_kib;
};

/* Appends one line per violated bound to out ("wall 431.2 s > maxWallMs
 * 425000", "class small: mean time to admission ... > ...", a class the
 * range names that the run does not have); returns the number of
 * violations. */
size_t ts_bench_range_check(const struct ts_bench_range *r, const struct ts_bench_report *rep,
                            const struct ts_bench_proc *proc, struct ts_buf *out);

#endif
