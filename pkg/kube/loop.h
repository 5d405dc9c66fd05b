/*
 * loop.h - the single-threaded event loop every shell module runs on
 * (modelled on redis ae): epoll fd watchers, a timer heap, a before_sleep
 * hook and signals through signalfd.
 *
 * One iteration, in nginx/libuv order: compute the timeout from the nearest
 * timer (0 if a hook asked for another pass) -> epoll_wait -> dispatch fd
 * callbacks -> run expired timers -> run the before_sleep hooks (where the
 * work queue is drained a bounded number of keys at a time).
 *
 * Time: ts_loop_now() is CLOCK_MONOTONIC in nanoseconds, cached once per
 * iteration (so every callback of one pass sees the same "now");
 * ts_loop_wall() is CLOCK_REALTIME.  Both can be replaced by a fake clock
 * for tests with ts_loop_set_clock().
 *
 * Thread rule: a loop and everything registered on it belong to the thread
 * that runs it.  Nothing in a callback may block.
 * Ownership: the loop never owns the `data` pointers given to it; timers
 * are freed by the loop after they fire or are cancelled.
 */
#ifndef TS_LOOP_H
#define TS_LOOP_H

#include <stdint.h>

#include "util/err.h"

struct ts_loop;

enum ts_loop_events {
    TS_LOOP_READ = 1 << 0,
    TS_LOOP_WRITE = 1 << 1,
    TS_LOOP_ERROR = 1 << 2, /* reported only: EPOLLERR or EPOLLHUP */
};

typedef void (*ts_loop_io_fn)(struct ts_loop *loop, int fd, unsigned events, void *data);
typedef void (*ts_loop_timer_fn)(struct ts_loop *loop, void *data);
typedef void (*ts_loop_signal_fn)(struct ts_loop *loop, int signo, void *data);
/* Returns the current time in nanoseconds (fake clocks for tests). */
typedef int64_t (*ts_loop_clock_fn)(void *data);

/* Creates a loop.  Returns NULL only if epoll_create1() fails (errno set).
 * Ownership: caller frees with ts_loop_free(). */
struct ts_loop *ts_loop_new(void);

/* Frees the loop, its pending timers and its signalfd; fds being watched
 * are not closed.  NULL does nothing. */
void ts_loop_free(struct ts_loop *loop);

/* Watches fd for `events` (TS_LOOP_READ|TS_LOOP_WRITE), replacing any
 * earlier watch on the same fd.  Returns 0 or TS_EIO (epoll_ctl failed). */
int ts_loop_watch(struct ts_loop *loop, int fd, unsigned events, ts_loop_io_fn fn, void *data);

/* Stops watching fd (no-op when not watched).  Safe from inside callbacks. */
void ts_loop_unwatch(struct ts_loop *loop, int fd);

/* Runs fn(data) once, `delay_ns` from now (<= 0: on the next pass).
 * Returns the timer id (> 0), valid until the timer runs or is cancelled. */
uint64_t ts_loop_timer_add(struct ts_loop *loop, int64_t delay_ns, ts_loop_timer_fn fn, void *data);

/* Cancels a pending timer; returns 1 if it was pending, 0 otherwise
 * (already run, cancelled, or id 0). */
int ts_loop_timer_cancel(struct ts_loop *loop, uint64_t id);

/* Registers a hook run at the end of every iteration, before sleeping.
 * Up to 8 hooks run in registration order.  Returns 0 or TS_EOVERFLOW. */
int ts_loop_before_sleep(struct ts_loop *loop, ts_loop_timer_fn fn, void *data);

/* Removes a hook registered with the same fn and data. */
void ts_loop_before_sleep_remove(struct ts_loop *loop, ts_loop_timer_fn fn, void *data);

/* Asks for another pass without sleeping (a hook that stopped early,
 * e.g. a work queue with keys left, calls this). */
void ts_loop_wake(struct ts_loop *loop);

/* Blocks `signos[0..n)` and delivers them through a signalfd to fn.
 * Returns 0 or TS_EIO.  One signal handler per loop. */
int ts_loop_signals(struct ts_loop *loop, const int *signos, int n, ts_loop_signal_fn fn,
                    void *data);

/* Monotonic time in ns, cached at the start of the current iteration. */
int64_t ts_loop_now(const struct ts_loop *loop);

/* Re-reads the monotonic clock into the cache and returns it. */
int64_t ts_loop_update_time(struct ts_loop *loop);

/* Wall-clock time in ns since the epoch (for timestamps written to objects). */
int64_t ts_loop_wall(const struct ts_loop *loop);

/* Replaces the monotonic and wall clocks (either may be NULL to keep the
 * real one).  For tests; `data` is passed to both. */
void ts_loop_set_clock(struct ts_loop *loop, ts_loop_clock_fn mono, ts_loop_clock_fn wall,
                       void *data);

/* Runs one iteration, sleeping at most `max_wait_ns` (< 0: until an event
 * or timer).  Returns the number of fd events and timers dispatched. */
int ts_loop_run_once(struct ts_loop *loop, int64_t max_wait_ns);

/* Runs iterations until ts_loop_stop(), at once if it was already called
 * (also from within ts_loop_run_once).  Returns 0. */
int ts_loop_run(struct ts_loop *loop);

/* Makes ts_loop_run() return after the current iteration; for good. */
void ts_loop_stop(struct ts_loop *loop);

/* Whether ts_loop_stop() was called. */
int ts_loop_stopped(const struct ts_loop *loop);

/* Number of pending timers (for tests and leak checks). */
int ts_loop_timer_count(const struct ts_loop *loop);

#endif
