/*
 * ratelimit.h - token bucket (golang.org/x/time/rate as client-go uses it)
 * with the time passed in, so tests drive it with a fake clock.
 *
 * The bucket holds at most `burst` tokens and refills at `qps` tokens per
 * second.  ts_ratelimit_reserve() always takes a token, letting the count
 * go negative, and returns how long the caller must wait before using it
 * (rate.Limiter.Reserve): callers that reserve in order are served in
 * order, spaced 1/qps apart once the burst is spent.
 *
 * Kueue's client defaults (Configuration.clientConnection): QPS 20, burst 30.
 *
 * Thread rule: none (one owner).  Ownership: plain value type.
 */
#ifndef TS_KUBE_RATELIMIT_H
#define TS_KUBE_RATELIMIT_H

#include <stdint.h>

#define TS_RATELIMIT_KUEUE_QPS   20.0
#define TS_RATELIMIT_KUEUE_BURST 30

struct ts_ratelimit {
    double qps;    /* <= 0: unlimited */
    double burst;  /* bucket size, >= 1 */
    double tokens; /* may be negative after reservations */
    int64_t last;  /* time of the last refill (ns) */
};

/* Starts a full bucket at time `now` (ns).  qps <= 0 disables limiting;
 * burst < 1 is treated as 1. */
void ts_ratelimit_init(struct ts_ratelimit *rl, double qps, int burst, int64_t now);

/* Takes one token and returns the wait in ns (0 = go now). */
int64_t ts_ratelimit_reserve(struct ts_ratelimit *rl, int64_t now);

/* Takes a token only if one is available now; returns 1 if taken. */
int ts_ratelimit_try(struct ts_ratelimit *rl, int64_t now);

/* Whether at least n tokens are in the bucket now (always, unlimited). */
int ts_ratelimit_has(struct ts_ratelimit *rl, int64_t now, double n);

/* Gives back a token taken by ts_ratelimit_reserve() that was not used
 * (a cancelled request). */
void ts_ratelimit_cancel(struct ts_ratelimit *rl);

#endif
