/*
 * gen.h - Kueue's scheduler performance generator (test/performance/
 * scheduler in Kueue's repository): the YAML schema and its expansion into
 * objects and timed workload creations.
 *
 * A generator file is a list of cohort sets:
 *
 *   - className: cohort            # cohorts are named <className>-<i>
 *     count: 5
 *     queuesSets:
 *     - className: cq              # ClusterQueues <cohort>-<className>-<j>
 *       count: 6
 *       nominalQuota: 20           # cpu (a quantity)
 *       borrowingLimit: 100
 *       reclaimWithinCohort: Any
 *       withinClusterQueue: LowerPriority
 *       workloadsSets:
 *       - count: 350               # per ClusterQueue
 *         creationIntervalMs: 100
 *         workloads:               # cycled over: the k-th uses [k % n]
 *         - {className: small, runtimeMs: 200, priority: 50, request: 1}
 *
 * Expansion, as Kueue's generator does it: one ResourceFlavor, one
 * resource (cpu); a Cohort per cohort; a ClusterQueue per queue in its
 * cohort with the nominal quota, borrowing limit and preemption policy;
 * one LocalQueue per ClusterQueue (same name, namespace "default"); each
 * workloads set creates `count` Workloads per ClusterQueue, the k-th at
 * k x creationIntervalMs after the start, every set independently.
 *
 * Pure: no I/O, no clock.  Ownership: a decoded generator and a plan own
 * everything they point to; release them with the matching _release().
 */
#ifndef TS_BENCH_GEN_H
#define TS_BENCH_GEN_H

#include <cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"
#include "util/time.h"

struct ts_bench_wl_template {
    char *class_name;
    int64_t runtime_ms;
    int32_t priority;
    int64_t request_milli; /* cpu */
};

struct ts_bench_wl_set {
    int64_t count;
    int64_t interval_ms;
    size_t n_templates;
    struct ts_bench_wl_template *templates;
};

struct ts_bench_queue_set {
    char *class_name;
    int64_t count;
    int64_t nominal_milli;
    int64_t borrowing_milli;     /* -1: no borrowingLimit */
    char *reclaim_within_cohort; /* NULL: Kueue's default (Never) */
    char *within_cluster_queue;  /* NULL: Kueue's default (Never) */
    size_t n_sets;
    struct ts_bench_wl_set *sets;
};

struct ts_bench_cohort_set {
    char *class_name;
    int64_t count;
    size_t n_queue_sets;
    struct ts_bench_queue_set *queue_sets;
};

struct ts_bench_gen {
    size_t n_cohort_sets;
    struct ts_bench_cohort_set *cohort_sets;
};

/* Decodes a generator file's tree (the YAML list).  Returns 0 or TS_EINVAL
 * with the first problem naming its field, e.g. "[0].queuesSets[1]
 * .nominalQuota: Required value".  On failure out is left empty.
 * Ownership: release out with ts_bench_gen_release(). */
int ts_bench_gen_decode(const cJSON *root, struct ts_bench_gen *out, struct ts_err *err);
void ts_bench_gen_release(struct ts_bench_gen *g);

/* One workload to create. */
struct ts_bench_wl {
    char *name;      /* <clusterQueue>-<className>-<n>, unique */
    size_t queue;    /* index into ts_bench_plan.queues */
    size_t wl_class; /* index into ts_bench_plan.classes */
    ts_time created; /* offset from the start (ns) */
    ts_time runtime; /* ns */
    int32_t priority;
    int64_t request_milli;
    size_t seq; /* generator order (ties in creation time keep it) */
};

struct ts_bench_queue {
    char *name; /* ClusterQueue and LocalQueue name */
    char *cohort;
    size_t q_class; /* index into ts_bench_plan.queue_classes */
    int64_t nominal_milli;
};

#define TS_BENCH_NAMESPACE "default"
#define TS_BENCH_FLAVOR    "default-flavor"
/* Every object a plan makes carries this label (value "true"), as Kueue's
 * generator marks its queues: a run on someone's cluster removes exactly
 * these afterwards. */
#define TS_BENCH_CLEANUP_LABEL "kueue.x-k8s.io/performance-scheduler-cleanup"

struct ts_bench_plan {
    cJSON *objects; /* array: ResourceFlavor, Cohorts, ClusterQueues, LocalQueues (v1beta2) */
    size_t n_queues;
    struct ts_bench_queue *queues;
    size_t n_classes; /* workload class names, in order of first appearance */
    char **classes;
    size_t n_queue_classes;
    char **queue_classes;
    size_t n_wls;
    struct ts_bench_wl *wls; /* sorted by creation time (stable: generator order) */
};

/* Expands a generator into a plan.  Ownership: release with
 * ts_bench_plan_release(). */
void ts_bench_plan_build(const struct ts_bench_gen *g, struct ts_bench_plan *out);
void ts_bench_plan_release(struct ts_bench_plan *p);

/* The Workload object (v1beta2 JSON) for plan workload i, created at the
 * absolute time `created`.  Ownership: caller cJSON_Delete()s it. */
cJSON *ts_bench_plan_workload(const struct ts_bench_plan *p, size_t i, ts_time created);

/* Plan workload i as a suspended batch/v1 Job (live --jobs): queue-name
 * label, priority class TS_BENCH_PRIORITY_CLASS<priority>, one pod of the
 * request, and the runtime in turnstile-apiserver's
 * turnstile.dev/simulated-runtime annotation (--simulate-job-runtime).
 * Ownership: caller cJSON_Delete()s it. */
cJSON *ts_bench_plan_job(const struct ts_bench_plan *p, size_t i);

/* The WorkloadPriorityClasses the plan's Jobs name, one per distinct
 * priority.  Ownership: caller cJSON_Delete()s the array. */
cJSON *ts_bench_plan_priority_classes(const struct ts_bench_plan *p);

#define TS_BENCH_PRIORITY_CLASS "bench-priority-"

#endif
