/*
 * backoff.h - jittered exponential backoff (wait.Backoff / client-go's
 * retry and reflector backoff): delay_k = min(base * factor^k, cap), then
 * jittered down to [delay * (1 - jitter), delay] ("equal jitter", so a
 * herd of clients spreads out but never waits longer than the cap).
 *
 * The jitter comes from a seeded xorshift generator owned by the struct:
 * tests get reproducible delays, and no global RNG state exists.
 *
 * Thread rule: none.  Ownership: plain value type.
 */
#ifndef TS_KUBE_BACKOFF_H
#define TS_KUBE_BACKOFF_H

#include <stdint.h>

struct ts_backoff {
    int64_t base;   /* first delay (ns) */
    int64_t cap;    /* largest delay (ns) */
    double factor;  /* growth per step, >= 1 */
    double jitter;  /* 0..1: fraction of the delay that is random */
    unsigned steps; /* delays handed out since the last reset */
    uint64_t rng;   /* xorshift state, never 0 */
};

/* Initialises a backoff.  seed 0 picks a fixed non-zero seed. */
void ts_backoff_init(struct ts_backoff *b, int64_t base, int64_t cap, double factor, double jitter,
                     uint64_t seed);

/* Returns the next delay (ns) and advances. */
int64_t ts_backoff_next(struct ts_backoff *b);

/* Starts over from `base` (after a success). */
void ts_backoff_reset(struct ts_backoff *b);

/* A uniformly distributed double in [0, 1) from the backoff's generator. */
double ts_backoff_rand(struct ts_backoff *b);

#endif
