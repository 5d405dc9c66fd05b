/*
 * loop.c - epoll event loop with a binary timer heap (see loop.h).
 */
#include "kube/loop.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/log.h"

#define MAX_EVENTS 64
#define MAX_HOOKS  8

struct watcher {
    ts_loop_io_fn fn; /* NULL = not watched */
    void *data;
    unsigned events;
};

struct timer {
    int64_t when;
    uint64_t id;
    ts_loop_timer_fn fn;
    void *data;
};

struct hook {
    ts_loop_timer_fn fn;
    void *data;
};

struct ts_loop {
    int epfd;
    struct watcher *w; /* indexed by fd */
    size_t nw;
    struct timer **heap;
    size_t nheap, capheap;
    uint64_t next_id;
    struct hook hooks[MAX_HOOKS];
    int nhooks;
    int stop, woken;
    int64_t now;
    ts_loop_clock_fn mono, wall;
    void *clock_data;
    int sigfd;
    ts_loop_signal_fn sig_fn;
    void *sig_data;
};

static int64_t clock_ns(clockid_t id)
{
    struct timespec ts;

    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

struct ts_loop *ts_loop_new(void)
{
    struct ts_loop *l;
    int fd = epoll_create1(EPOLL_CLOEXEC);

    if (fd < 0)
        return NULL;
    l = ts_xcalloc(1, sizeof(*l));
    l->epfd = fd;
    l->sigfd = -1;
    l->next_id = 1;
    ts_loop_update_time(l);
    return l;
}

void ts_loop_free(struct ts_loop *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->nheap; i++)
        free(l->heap[i]);
    free(l->heap);
    free(l->w);
    if (l->sigfd >= 0)
        close(l->sigfd);
    close(l->epfd);
    free(l);
}

static uint32_t to_epoll(unsigned ev)
{
    return ((ev & TS_LOOP_READ) ? EPOLLIN : 0) | ((ev & TS_LOOP_WRITE) ? EPOLLOUT : 0);
}

int ts_loop_watch(struct ts_loop *l, int fd, unsigned events, ts_loop_io_fn fn, void *data)
{
    struct epoll_event ev = {0};
    int op;

    TS_BUG_ON(fd < 0 || !fn);
    if ((size_t)fd >= l->nw) {
        size_t n = (size_t)fd + 16;

        l->w = ts_xrealloc(l->w, n * sizeof(*l->w));
        memset(l->w + l->nw, 0, (n - l->nw) * sizeof(*l->w));
        l->nw = n;
    }
    op = l->w[fd].fn ? EPOLL_CTL_MOD : EPOLL_CTL_ADD;
    ev.events = to_epoll(events);
    ev.data.fd = fd;
    if (epoll_ctl(l->epfd, op, fd, &ev) < 0) {
        ts_log_errno("loop", "epoll_ctl fd=%d", fd);
        return TS_EIO;
    }
    l->w[fd] = (struct watcher){fn, data, events};
    return 0;
}

void ts_loop_unwatch(struct ts_loop *l, int fd)
{
    if (fd < 0 || (size_t)fd >= l->nw || !l->w[fd].fn)
        return;
    epoll_ctl(l->epfd, EPOLL_CTL_DEL, fd, NULL);
    l->w[fd].fn = NULL;
    l->w[fd].data = NULL;
}

/* --- timer heap ordered by (when, id) ------------------------------------ */

static int before(const struct timer *a, const struct timer *b)
{
    return a->when < b->when || (a->when == b->when && a->id < b->id);
}

static void heap_swap(struct ts_loop *l, size_t i, size_t j)
{
    struct timer *t = l->heap[i];

    l->heap[i] = l->heap[j];
    l->heap[j] = t;
}

static void sift_up(struct ts_loop *l, size_t i)
{
    while (i > 0 && before(l->heap[i], l->heap[(i - 1) / 2])) {
        heap_swap(l, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
}

static void sift_down(struct ts_loop *l, size_t i)
{
    for (;;) {
        size_t c = 2 * i + 1, m = i;

        if (c < l->nheap && before(l->heap[c], l->heap[m]))
            m = c;
        if (c + 1 < l->nheap && before(l->heap[c + 1], l->heap[m]))
            m = c + 1;
        if (m == i)
            return;
        heap_swap(l, i, m);
        i = m;
    }
}

static struct timer *heap_remove(struct ts_loop *l, size_t i)
{
    struct timer *t = l->heap[i];

    l->heap[i] = l->heap[--l->nheap];
    if (i < l->nheap) {
        sift_down(l, i);
        sift_up(l, i);
    }
    return t;
}

uint64_t ts_loop_timer_add(struct ts_loop *l, int64_t delay_ns, ts_loop_timer_fn fn, void *data)
{
    struct timer *t = ts_xmalloc(sizeof(*t));

    t->when = l->now + (delay_ns > 0 ? delay_ns : 0);
    t->id = l->next_id++;
    t->fn = fn;
    t->data = data;
    TS_GROW(l->heap, l->capheap, l->nheap + 1);
    l->heap[l->nheap++] = t;
    sift_up(l, l->nheap - 1);
    return t->id;
}

/* Linear in the number of timers: cancels are rare (stopping a watch or a
 * request) and shell modules keep few timers each. */
int ts_loop_timer_cancel(struct ts_loop *l, uint64_t id)
{
    for (size_t i = 0; id && i < l->nheap; i++) {
        if (l->heap[i]->id == id) {
            free(heap_remove(l, i));
            return 1;
        }
    }
    return 0;
}

int ts_loop_timer_count(const struct ts_loop *l)
{
    return (int)l->nheap;
}

int ts_loop_before_sleep(struct ts_loop *l, ts_loop_timer_fn fn, void *data)
{
    if (l->nhooks == MAX_HOOKS)
        return TS_EOVERFLOW;
    l->hooks[l->nhooks++] = (struct hook){fn, data};
    return 0;
}

void ts_loop_before_sleep_remove(struct ts_loop *l, ts_loop_timer_fn fn, void *data)
{
    for (int i = 0; i < l->nhooks; i++) {
        if (l->hooks[i].fn == fn && l->hooks[i].data == data) {
            memmove(&l->hooks[i], &l->hooks[i + 1],
                    (size_t)(l->nhooks - i - 1) * sizeof(struct hook));
            l->nhooks--;
            return;
        }
    }
}

void ts_loop_wake(struct ts_loop *l)
{
    l->woken = 1;
}

/* --- signals ------------------------------------------------------------- */

static void on_signal(struct ts_loop *l, int fd, unsigned events, void *data)
{
    struct signalfd_siginfo si;

    (void)events;
    (void)data;
    while (read(fd, &si, sizeof(si)) == (ssize_t)sizeof(si))
        l->sig_fn(l, (int)si.ssi_signo, l->sig_data);
}

int ts_loop_signals(struct ts_loop *l, const int *signos, int n, ts_loop_signal_fn fn, void *data)
{
    sigset_t set;

    sigemptyset(&set);
    for (int i = 0; i < n; i++)
        sigaddset(&set, signos[i]);
    if (sigprocmask(SIG_BLOCK, &set, NULL) < 0 ||
        (l->sigfd = signalfd(l->sigfd, &set, SFD_NONBLOCK | SFD_CLOEXEC)) < 0) {
        ts_log_errno("loop", "signalfd");
        return TS_EIO;
    }
    l->sig_fn = fn;
    l->sig_data = data;
    return ts_loop_watch(l, l->sigfd, TS_LOOP_READ, on_signal, NULL);
}

/* --- time ---------------------------------------------------------------- */

int64_t ts_loop_now(const struct ts_loop *l)
{
    return l->now;
}

int64_t ts_loop_update_time(struct ts_loop *l)
{
    l->now = l->mono ? l->mono(l->clock_data) : clock_ns(CLOCK_MONOTONIC);
    return l->now;
}

int64_t ts_loop_wall(const struct ts_loop *l)
{
    return l->wall ? l->wall(l->clock_data) : clock_ns(CLOCK_REALTIME);
}

void ts_loop_set_clock(struct ts_loop *l, ts_loop_clock_fn mono, ts_loop_clock_fn wall, void *data)
{
    l->mono = mono;
    l->wall = wall;
    l->clock_data = data;
    ts_loop_update_time(l);
}

/* --- running ------------------------------------------------------------- */

static int wait_ms(const struct ts_loop *l, int64_t max_wait_ns)
{
    int64_t ns = max_wait_ns;

    if (l->woken)
        return 0;
    if (l->nheap) {
        int64_t d = l->heap[0]->when - l->now;

        if (d < 0)
            d = 0;
        if (ns < 0 || d < ns)
            ns = d;
    }
    if (ns < 0)
        return -1;
    /* round up so a timer is never woken for just before it is due */
    return ns > (int64_t)1000 * 1000 * 1000 * 3600 ? 3600 * 1000 : (int)((ns + 999999) / 1000000);
}

static int dispatch_io(struct ts_loop *l, int timeout_ms)
{
    struct epoll_event evs[MAX_EVENTS];
    int n = epoll_wait(l->epfd, evs, MAX_EVENTS, timeout_ms);

    ts_loop_update_time(l);
    if (n < 0) {
        if (errno != EINTR)
            ts_log_errno("loop", "epoll_wait");
        return 0;
    }
    for (int i = 0; i < n; i++) {
        int fd = evs[i].data.fd;
        unsigned ev = 0;

        if ((size_t)fd >= l->nw || !l->w[fd].fn)
            continue; /* unwatched by an earlier callback of this batch */
        ev |= (evs[i].events & EPOLLIN) ? TS_LOOP_READ : 0;
        ev |= (evs[i].events & EPOLLOUT) ? TS_LOOP_WRITE : 0;
        ev |= (evs[i].events & (EPOLLERR | EPOLLHUP)) ? TS_LOOP_ERROR : 0;
        l->w[fd].fn(l, fd, ev, l->w[fd].data);
    }
    return n;
}

static int run_timers(struct ts_loop *l)
{
    uint64_t limit = l->next_id; /* timers added by these callbacks wait a pass */
    int n = 0;

    while (l->nheap && l->heap[0]->when <= l->now && l->heap[0]->id < limit) {
        struct timer *t = heap_remove(l, 0);
        ts_loop_timer_fn fn = t->fn;
        void *data = t->data;

        free(t);
        fn(l, data);
        n++;
    }
    return n;
}

int ts_loop_run_once(struct ts_loop *l, int64_t max_wait_ns)
{
    int n;

    ts_loop_update_time(l);
    n = dispatch_io(l, wait_ms(l, max_wait_ns));
    l->woken = 0;
    n += run_timers(l);
    for (int i = 0; i < l->nhooks; i++)
        l->hooks[i].fn(l, l->hooks[i].data);
    return n;
}

int ts_loop_run(struct ts_loop *l)
{
    /* no reset: a stop asked for while the caller ran the loop itself
     * (a synchronous request during start-up, a SIGTERM handled in it)
     * must not be forgotten here, or the process runs on */
    while (!l->stop)
        ts_loop_run_once(l, -1);
    return 0;
}

void ts_loop_stop(struct ts_loop *l)
{
    l->stop = 1;
}

int ts_loop_stopped(const struct ts_loop *l)
{
    return l->stop;
}
