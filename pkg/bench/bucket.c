#include "bench/bucket.h"

#include <math.h>

void ts_bench_bucket_init(struct ts_bench_bucket *b, double qps, double burst)
{
    b->qps = qps;
    b->burst = burst < 1 ? 1 : burst;
    b->tokens = b->burst;
    b->last = 0;
}

ts_time ts_bench_bucket_take(struct ts_bench_bucket *b, ts_time t)
{
    if (b->qps <= 0)
        return t;
    if (t < b->last)
        t = b->last; /* queued behind the previous request */
    if (b->last)
        b->tokens = fmin(b->burst, b->tokens + (double)(t - b->last) / 1e9 * b->qps);
    if (b->tokens >= 1) {
        b->tokens -= 1;
        b->last = t;
        return t;
    }
    /* wait for the missing fraction, rounded up to a whole nanosecond */
    b->last = t + (ts_time)ceil((1 - b->tokens) / b->qps * 1e9);
    b->tokens = 0;
    return b->last;
}

ts_time ts_bench_bucket_ready_at(const struct ts_bench_bucket *b, double need)
{
    need = fmax(1, fmin(need, b->burst));
    if (b->qps <= 0 || b->tokens >= need)
        return b->last;
    return b->last + (ts_time)ceil((need - b->tokens) / b->qps * 1e9);
}
