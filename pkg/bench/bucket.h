/*
 * bucket.h - a token bucket (client-go's flowcontrol QPS/burst limiter) in
 * virtual time, with its waiters served first come, first served.
 *
 * The bucket starts full (burst tokens) and refills at qps tokens a second
 * up to burst.  ts_bench_bucket_take() asks for one token at time `t` and
 * returns when it is granted: never before t, never before the previous
 * grant (requests queue in order), and at once when a token is there.
 * Pure; a value type the caller keeps.
 */
#ifndef TS_BENCH_BUCKET_H
#define TS_BENCH_BUCKET_H

#include "util/time.h"

struct ts_bench_bucket {
    double qps;    /* <= 0: unlimited */
    double burst;  /* >= 1 */
    double tokens; /* at time `last` */
    ts_time last;  /* time of the last grant (or 0) */
};

/* qps <= 0 means unlimited (every take is granted at once). */
void ts_bench_bucket_init(struct ts_bench_bucket *b, double qps, double burst);

/* Takes one token, asked for at time t; returns the grant time (>= t). */
ts_time ts_bench_bucket_take(struct ts_bench_bucket *b, ts_time t);

/* The earliest time `need` takes (at least 1, at most the burst) would
 * all be granted at once, nobody queued ahead: the live controller
 * decides only then (ts_kube_client_batch_ready()). */
ts_time ts_bench_bucket_ready_at(const struct ts_bench_bucket *b, double need);

#endif
