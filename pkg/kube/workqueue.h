/*
 * workqueue.h - client-go's rate-limited work queue for reconcile keys,
 * with the time passed in.
 *
 * Semantics (k8s.io/client-go/util/workqueue):
 *  - a dirty set de-duplicates: a key added many times before it is taken
 *    is processed once;
 *  - a processing set: a key taken by ts_workqueue_get() is not handed out
 *    again until ts_workqueue_done(); adds meanwhile mark it dirty and it
 *    is queued again at done;
 *  - delayed adds wait in a heap (a key waiting twice keeps the earlier
 *    time);
 *  - ts_workqueue_add_rate_limited() delays by the larger of a per-key
 *    exponential backoff (5 ms * 2^failures, at most 1000 s) and an
 *    overall token bucket (10 qps, burst 100): DefaultControllerRateLimiter;
 *    ts_workqueue_forget() clears a key's failures;
 *  - shutdown stops new adds and drops delayed ones; keys already queued
 *    can still be taken, and ts_workqueue_drained() says when the last
 *    one is done (ShutDownWithDrain).
 *
 * ts_workqueue_run_on() drives a queue from the event loop: each
 * iteration's before_sleep hook takes at most `batch` keys (so other
 * work, such as webhook requests, never waits long) and a timer wakes the
 * loop when the next delayed key is due.
 *
 * Thread rule: one owner (the loop thread).
 * Ownership: keys are copied on add; ts_workqueue_get() returns an owned
 * copy the caller frees with free().
 */
#ifndef TS_KUBE_WORKQUEUE_H
#define TS_KUBE_WORKQUEUE_H

#include <stddef.h>
#include <stdint.h>

#include "kube/loop.h"

struct ts_workqueue;

struct ts_workqueue_opts {
    int64_t base_delay; /* 0: 5 ms */
    int64_t max_delay;  /* 0: 1000 s */
    double qps;         /* overall bucket; 0: 10; < 0: none */
    int burst;          /* 0: 100 */
    int64_t now;        /* time the bucket starts full */
};

/* Handles one key; it must call ts_workqueue_done(q, key) when finished
 * (now or later, e.g. when an async request completes).  key is borrowed
 * for the call. */
typedef void (*ts_workqueue_fn)(struct ts_workqueue *q, const char *key, void *data);

/* Creates a queue (o may be NULL for the defaults).
 * Ownership: caller frees with ts_workqueue_free(). */
struct ts_workqueue *ts_workqueue_new(const struct ts_workqueue_opts *o);

/* Frees everything (detaches from a loop first).  NULL ok. */
void ts_workqueue_free(struct ts_workqueue *q);

/* Adds key now (ignored after shutdown). */
void ts_workqueue_add(struct ts_workqueue *q, const char *key);

/* Adds key `delay` ns after `now` (delay <= 0: now). */
void ts_workqueue_add_after(struct ts_workqueue *q, const char *key, int64_t delay, int64_t now);

/* Adds key after its rate-limited delay; counts a failure.  Returns the
 * delay used. */
int64_t ts_workqueue_add_rate_limited(struct ts_workqueue *q, const char *key, int64_t now);

/* Forgets key's failures (after a success). */
void ts_workqueue_forget(struct ts_workqueue *q, const char *key);

/* Failures counted for key since the last forget. */
unsigned ts_workqueue_requeues(const struct ts_workqueue *q, const char *key);

/* Moves due delayed keys into the queue and takes the first ready key.
 * Returns it (owned), or NULL when none is ready. */
char *ts_workqueue_get(struct ts_workqueue *q, int64_t now);

/* Marks key processed; if it was added meanwhile it is queued again. */
void ts_workqueue_done(struct ts_workqueue *q, const char *key);

/* ns from `now` until the next delayed key is due (0 if one is due, -1
 * when none waits). */
int64_t ts_workqueue_next_delay(const struct ts_workqueue *q, int64_t now);

/* Keys ready to be taken / waiting / being processed. */
size_t ts_workqueue_len(const struct ts_workqueue *q);
size_t ts_workqueue_waiting(const struct ts_workqueue *q);
size_t ts_workqueue_processing(const struct ts_workqueue *q);

/* Stops accepting keys and drops delayed ones (queued keys remain). */
void ts_workqueue_shutdown(struct ts_workqueue *q);
int ts_workqueue_shutting_down(const struct ts_workqueue *q);

/* Shut down, nothing queued and nothing being processed. */
int ts_workqueue_drained(const struct ts_workqueue *q);

/* Processes keys from the loop (see top comment); fn runs on the loop
 * thread with loop time.  Returns 0 or TS_EOVERFLOW (no hook slot). */
int ts_workqueue_run_on(struct ts_workqueue *q, struct ts_loop *loop, size_t batch,
                        ts_workqueue_fn fn, void *data);

#endif
