/*
 * kueue_int.h - private to kueue.c and kueue_defs.c: the table of Kueue's
 * metric families, indexed by enum ts__km.
 */
#ifndef TS_METRICS_KUEUE_INT_H
#define TS_METRICS_KUEUE_INT_H

#include "metrics/registry.h"

enum ts__km {
    TS__KM_ATTEMPTS = 0,
    TS__KM_ATTEMPT_DURATION,
    TS__KM_PREEMPTION_SKIPS,
    TS__KM_RECOMPUTATIONS,
    TS__KM_BUILD_INFO,
    TS__KM_PENDING,
    TS__KM_PENDING_HASHES,
    TS__KM_LQ_PENDING,
    TS__KM_FINISHED,
    TS__KM_LQ_FINISHED,
    TS__KM_QR_TOTAL,
    TS__KM_ADMITTED_TOTAL,
    TS__KM_FINISHED_TOTAL,
    TS__KM_LQ_QR_TOTAL,
    TS__KM_LQ_ADMITTED_TOTAL,
    TS__KM_LQ_FINISHED_TOTAL,
    TS__KM_QR_WAIT,
    TS__KM_READY_WAIT,
    TS__KM_ADMITTED_UNTIL_READY,
    TS__KM_CHECKS_WAIT,
    TS__KM_ADMISSION_WAIT,
    TS__KM_EXECUTION,
    TS__KM_LQ_QR_WAIT,
    TS__KM_LQ_ADMISSION_WAIT,
    TS__KM_LQ_CHECKS_WAIT,
    TS__KM_LQ_READY_WAIT,
    TS__KM_LQ_ADMITTED_UNTIL_READY,
    TS__KM_LQ_EXECUTION,
    TS__KM_READY_TO_EVICTED,
    TS__KM_CREATION_LATENCY,
    TS__KM_EVICTED_TOTAL,
    TS__KM_EVICTED_ONCE_TOTAL,
    TS__KM_LQ_EVICTED_TOTAL,
    TS__KM_SLICES_REPLACED,
    TS__KM_PREEMPTED_TOTAL,
    TS__KM_EVICTION_LATENCY,
    TS__KM_RESERVING_ACTIVE,
    TS__KM_ADMITTED_ACTIVE,
    TS__KM_LQ_RESERVING_ACTIVE,
    TS__KM_LQ_ADMITTED_ACTIVE,
    TS__KM_CQ_STATUS,
    TS__KM_LQ_STATUS,
    TS__KM_UNADMITTED,
    TS__KM_LQ_UNADMITTED,
    TS__KM_CQ_RESERVATION,
    TS__KM_CQ_USAGE,
    TS__KM_CQ_NOMINAL,
    TS__KM_CQ_BORROWING,
    TS__KM_CQ_LENDING,
    TS__KM_CQ_PENDING_RESOURCE,
    TS__KM_LQ_RESERVATION,
    TS__KM_LQ_USAGE,
    TS__KM_LQ_FAIR_SHARING_USAGE,
    TS__KM_CQ_WEIGHTED_SHARE,
    TS__KM_COHORT_WEIGHTED_SHARE,
    TS__KM_COHORT_QUOTA,
    TS__KM_COHORT_RESERVATIONS,
    TS__KM_COHORT_ADMITTED_TOTAL,
    TS__KM_COHORT_ADMITTED_ACTIVE,
    TS__KM_N,
};

enum ts__km_buckets {
    TS__KM_NO_BUCKETS = 0,
    TS__KM_DEFAULT_BUCKETS, /* client_golang's DefBuckets */
    TS__KM_EXP14,           /* {1, 2.5*2^k, k = 0..12} */
    TS__KM_EXP16,           /* {1, 2.5*2^k, k = 0..14} */
    TS__KM_CREATION,        /* 0.01*2^k, k = 0..10 */
};

struct ts__km_def {
    enum ts_metrics_kind kind;
    const char *name;
    const char *labels[TS_METRICS_MAX_LABELS]; /* NULL-terminated, replica_role not included */
    enum ts__km_buckets buckets;
    int no_role; /* build_info only */
    const char *help;
};

extern const struct ts__km_def ts__kmetrics_defs[TS__KM_N];

#endif
