/*
 * ratelimit.c - token bucket with reservations (see ratelimit.h).
 */
#include "kube/ratelimit.h"

void ts_ratelimit_init(struct ts_ratelimit *rl, double qps, int burst, int64_t now)
{
    rl->qps = qps;
    rl->burst = burst < 1 ? 1 : burst;
    rl->tokens = rl->burst;
    rl->last = now;
}

static void refill(struct ts_ratelimit *rl, int64_t now)
{
    if (now <= rl->last)
        return;
    rl->tokens += (double)(now - rl->last) * rl->qps / 1e9;
    if (rl->tokens > rl->burst)
        rl->tokens = rl->burst;
    rl->last = now;
}

int64_t ts_ratelimit_reserve(struct ts_ratelimit *rl, int64_t now)
{
    double missing;

    if (rl->qps <= 0)
        return 0;
    refill(rl, now);
    rl->tokens -= 1;
    if (rl->tokens >= 0)
        return 0;
    missing = -rl->tokens;
    /* round up: waking a nanosecond early would find the token missing */
    return (int64_t)(missing * 1e9 / rl->qps + 0.999999);
}

int ts_ratelimit_try(struct ts_ratelimit *rl, int64_t now)
{
    if (rl->qps <= 0)
        return 1;
    refill(rl, now);
    if (rl->tokens < 1)
        return 0;
    rl->tokens -= 1;
    return 1;
}

int ts_ratelimit_has(struct ts_ratelimit *rl, int64_t now, double n)
{
    if (rl->qps <= 0)
        return 1;
    refill(rl, now);
    return rl->tokens >= n;
}

void ts_ratelimit_cancel(struct ts_ratelimit *rl)
{
    if (rl->qps > 0 && rl->tokens + 1 <= rl->burst)
        rl->tokens += 1;
}
