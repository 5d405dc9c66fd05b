/*
 * backoff.c - jittered exponential backoff (see backoff.h).
 */
#include "kube/backoff.h"

void ts_backoff_init(struct ts_backoff *b, int64_t base, int64_t cap, double factor, double jitter,
                     uint64_t seed)
{
    b->base = base > 0 ? base : 1;
    b->cap = cap >= b->base ? cap : b->base;
    b->factor = factor >= 1 ? factor : 1;
    b->jitter = jitter < 0 ? 0 : jitter > 1 ? 1 : jitter;
    b->steps = 0;
    b->rng = seed ? seed : UINT64_C(0x9e3779b97f4a7c15);
}

double ts_backoff_rand(struct ts_backoff *b)
{
    uint64_t x = b->rng;

    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    b->rng = x;
    return (double)(x >> 11) / (double)(UINT64_C(1) << 53);
}

int64_t ts_backoff_next(struct ts_backoff *b)
{
    double d = (double)b->base;

    for (unsigned i = 0; i < b->steps && d < (double)b->cap; i++)
        d *= b->factor;
    if (d > (double)b->cap)
        d = (double)b->cap;
    b->steps++;
    d -= d * b->jitter * ts_backoff_rand(b);
    return (int64_t)d;
}

void ts_backoff_reset(struct ts_backoff *b)
{
    b->steps = 0;
}
