/*
 * cqusage.h - ClusterQueue usage the way Kueue's performance runner reads
 * it (test/performance/scheduler/runner/recorder in Kueue): from the
 * ClusterQueues' status, not from the workloads.  Each status the runner
 * sees holds its status.flavorsUsage total until the next one; a queue
 * class's usage is the sum over its queues of those totals integrated over
 * time, divided by the sum of their nominal quotas times the span from the
 * class's first status to its last.  Kueue's checker bounds that figure
 * with clusterQueueClassesMinUsage.  Reading status, it also depends on
 * how often the controller writes it.
 *
 * Pure: times are passed in.  Ownership: a recorder owns its array;
 * release with ts_bench_cq_usage_release().
 */
#ifndef TS_BENCH_CQUSAGE_H
#define TS_BENCH_CQUSAGE_H

#include <cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "bench/gen.h"

struct ts_bench_cq_seen {
    int seen;
    double first_ms, last_ms; /* first and latest status seen */
    int64_t last_milli;       /* cpu usage (milli) in the latest status */
    double used;              /* integral so far: milli x ms */
};

struct ts_bench_cq_usage {
    size_t n_queues; /* the plan's */
    struct ts_bench_cq_seen *q;
};

void ts_bench_cq_usage_init(struct ts_bench_cq_usage *u, const struct ts_bench_plan *p);
void ts_bench_cq_usage_release(struct ts_bench_cq_usage *u);

/* Queue `queue` of the plan showed `usage_milli` of cpu at t_ms (times
 * never go back). */
void ts_bench_cq_usage_observe(struct ts_bench_cq_usage *u, size_t queue, double t_ms,
                               int64_t usage_milli);

/* The same from a ClusterQueue object: the total of its
 * status.flavorsUsage[0].resources[0] (the first flavor's first resource,
 * as Kueue's recorder reads it; none or unreadable: 0). */
void ts_bench_cq_usage_observe_cq(struct ts_bench_cq_usage *u, size_t queue, double t_ms,
                                  const cJSON *cq);

/* The usage of queue class `q_class` in percent, as Kueue's checker
 * computes it; -1 when no queue of the class showed two statuses apart. */
double ts_bench_cq_usage_percent(const struct ts_bench_cq_usage *u, const struct ts_bench_plan *p,
                                 size_t q_class);

#endif
