/*
 * workqueue.c - dirty/processing sets, FIFO, delay heap and rate limiter
 * of a work queue (see workqueue.h).
 */
#include "kube/workqueue.h"

#include <stdlib.h>
#include <string.h>

#include "kube/ratelimit.h"
#include "util/alloc.h"
#include "util/hmap.h"

#define MS  INT64_C(1000000)
#define SEC INT64_C(1000000000)

struct waiting {
    int64_t when;
    uint64_t seq; /* FIFO among equal times */
    char *key;
    size_t idx; /* position in the heap */
};

struct ts_workqueue {
    char **fifo; /* ring buffer of owned keys */
    size_t head, n, cap;
    struct ts_hmap dirty, processing;
    struct waiting **heap;
    size_t nheap, capheap;
    struct ts_hmap waiting; /* key -> struct waiting * */
    uint64_t seq;
    struct ts_hmap failures; /* key -> (uintptr_t)count */
    struct ts_ratelimit bucket;
    int64_t base, max;
    int shutting_down;
    /* loop driver */
    struct ts_loop *loop;
    uint64_t timer;
    size_t batch;
    ts_workqueue_fn fn;
    void *data;
};

struct ts_workqueue *ts_workqueue_new(const struct ts_workqueue_opts *o)
{
    struct ts_workqueue *q = ts_xcalloc(1, sizeof(*q));
    struct ts_workqueue_opts d = {0};

    if (o)
        d = *o;
    q->base = d.base_delay > 0 ? d.base_delay : 5 * MS;
    q->max = d.max_delay > 0 ? d.max_delay : 1000 * SEC;
    ts_ratelimit_init(&q->bucket, d.qps == 0 ? 10 : d.qps, d.burst > 0 ? d.burst : 100, d.now);
    return q;
}

/* --- FIFO ------------------------------------------------------------------- */

static void fifo_push(struct ts_workqueue *q, const char *key)
{
    if (q->n == q->cap) {
        size_t ncap = q->cap ? q->cap * 2 : 16;
        char **nf = ts_xmalloc(ncap * sizeof(*nf));

        for (size_t i = 0; i < q->n; i++)
            nf[i] = q->fifo[(q->head + i) % q->cap];
        free(q->fifo);
        q->fifo = nf;
        q->head = 0;
        q->cap = ncap;
    }
    q->fifo[(q->head + q->n++) % q->cap] = ts_xstrdup(key);
}

static char *fifo_pop(struct ts_workqueue *q)
{
    char *k = q->fifo[q->head];

    q->head = (q->head + 1) % q->cap;
    q->n--;
    return k;
}

/* --- delay heap ------------------------------------------------------------------ */

static int before(const struct waiting *a, const struct waiting *b)
{
    return a->when < b->when || (a->when == b->when && a->seq < b->seq);
}

static void heap_set(struct ts_workqueue *q, size_t i, struct waiting *w)
{
    q->heap[i] = w;
    w->idx = i;
}

static void sift_up(struct ts_workqueue *q, size_t i)
{
    struct waiting *w = q->heap[i];

    while (i > 0 && before(w, q->heap[(i - 1) / 2])) {
        heap_set(q, i, q->heap[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    heap_set(q, i, w);
}

static void sift_down(struct ts_workqueue *q, size_t i)
{
    for (;;) {
        size_t c = 2 * i + 1, m = i;
        struct waiting *t;

        if (c < q->nheap && before(q->heap[c], q->heap[m]))
            m = c;
        if (c + 1 < q->nheap && before(q->heap[c + 1], q->heap[m]))
            m = c + 1;
        if (m == i)
            return;
        t = q->heap[i];
        heap_set(q, i, q->heap[m]);
        heap_set(q, m, t);
        i = m;
    }
}

static struct waiting *heap_pop(struct ts_workqueue *q)
{
    struct waiting *w = q->heap[0];

    q->nheap--;
    if (q->nheap) {
        heap_set(q, 0, q->heap[q->nheap]);
        sift_down(q, 0);
    }
    ts_hmap_del(&q->waiting, w->key);
    return w;
}

static void wait_add(struct ts_workqueue *q, const char *key, int64_t when)
{
    struct waiting *w = ts_hmap_get(&q->waiting, key);

    if (w) { /* keep the earlier time */
        if (when < w->when) {
            w->when = when;
            sift_up(q, w->idx);
        }
        return;
    }
    w = ts_xmalloc(sizeof(*w));
    w->when = when;
    w->seq = q->seq++;
    w->key = ts_xstrdup(key);
    TS_GROW(q->heap, q->capheap, q->nheap + 1);
    q->heap[q->nheap] = w;
    w->idx = q->nheap++;
    sift_up(q, w->idx);
    ts_hmap_put(&q->waiting, key, w);
}

static void clear_waiting(struct ts_workqueue *q)
{
    for (size_t i = 0; i < q->nheap; i++) {
        free(q->heap[i]->key);
        free(q->heap[i]);
    }
    q->nheap = 0;
    ts_hmap_release(&q->waiting);
}

/* --- operations --------------------------------------------------------------------- */

void ts_workqueue_add(struct ts_workqueue *q, const char *key)
{
    if (q->shutting_down || ts_hmap_get(&q->dirty, key))
        return;
    ts_hmap_put(&q->dirty, key, (void *)1);
    if (!ts_hmap_get(&q->processing, key))
        fifo_push(q, key);
    if (q->loop)
        ts_loop_wake(q->loop);
}

void ts_workqueue_add_after(struct ts_workqueue *q, const char *key, int64_t delay, int64_t now)
{
    if (q->shutting_down)
        return;
    if (delay <= 0) {
        ts_workqueue_add(q, key);
        return;
    }
    wait_add(q, key, now + delay);
    if (q->loop)
        ts_loop_wake(q->loop);
}

int64_t ts_workqueue_add_rate_limited(struct ts_workqueue *q, const char *key, int64_t now)
{
    uintptr_t fails = (uintptr_t)ts_hmap_get(&q->failures, key);
    int64_t item = q->base, bucket;

    for (uintptr_t i = 0; i < fails && item < q->max; i++)
        item *= 2;
    if (item > q->max)
        item = q->max;
    ts_hmap_put(&q->failures, key, (void *)(fails + 1));
    bucket = ts_ratelimit_reserve(&q->bucket, now);
    item = item > bucket ? item : bucket;
    ts_workqueue_add_after(q, key, item, now);
    return item;
}

void ts_workqueue_forget(struct ts_workqueue *q, const char *key)
{
    ts_hmap_del(&q->failures, key);
}

unsigned ts_workqueue_requeues(const struct ts_workqueue *q, const char *key)
{
    return (unsigned)(uintptr_t)ts_hmap_get(&q->failures, key);
}

char *ts_workqueue_get(struct ts_workqueue *q, int64_t now)
{
    char *key;

    while (q->nheap && q->heap[0]->when <= now) {
        struct waiting *w = heap_pop(q);

        ts_workqueue_add(q, w->key);
        free(w->key);
        free(w);
    }
    if (!q->n)
        return NULL;
    key = fifo_pop(q);
    ts_hmap_put(&q->processing, key, (void *)1);
    ts_hmap_del(&q->dirty, key);
    return key;
}

void ts_workqueue_done(struct ts_workqueue *q, const char *key)
{
    if (!ts_hmap_del(&q->processing, key))
        return;
    if (ts_hmap_get(&q->dirty, key)) {
        fifo_push(q, key);
        if (q->loop)
            ts_loop_wake(q->loop);
    }
}

int64_t ts_workqueue_next_delay(const struct ts_workqueue *q, int64_t now)
{
    if (!q->nheap)
        return -1;
    return q->heap[0]->when > now ? q->heap[0]->when - now : 0;
}

size_t ts_workqueue_len(const struct ts_workqueue *q)
{
    return q->n;
}

size_t ts_workqueue_waiting(const struct ts_workqueue *q)
{
    return q->nheap;
}

size_t ts_workqueue_processing(const struct ts_workqueue *q)
{
    return q->processing.n;
}

void ts_workqueue_shutdown(struct ts_workqueue *q)
{
    q->shutting_down = 1;
    clear_waiting(q);
    if (q->loop)
        ts_loop_wake(q->loop);
}

int ts_workqueue_shutting_down(const struct ts_workqueue *q)
{
    return q->shutting_down;
}

int ts_workqueue_drained(const struct ts_workqueue *q)
{
    return q->shutting_down && !q->n && !q->processing.n;
}

/* --- loop driver -------------------------------------------------------------------- */

static void on_timer(struct ts_loop *loop, void *data)
{
    struct ts_workqueue *q = data;

    (void)loop;
    q->timer = 0; /* the hook runs right after the timers */
}

static void on_hook(struct ts_loop *loop, void *data)
{
    struct ts_workqueue *q = data;
    int64_t now = ts_loop_now(loop), next;
    size_t done = 0;
    char *key;

    while (done < q->batch && (key = ts_workqueue_get(q, now))) {
        q->fn(q, key, q->data);
        free(key);
        done++;
    }
    if (q->n)
        ts_loop_wake(loop);
    next = ts_workqueue_next_delay(q, now);
    ts_loop_timer_cancel(loop, q->timer);
    q->timer = next >= 0 ? ts_loop_timer_add(loop, next, on_timer, q) : 0;
}

int ts_workqueue_run_on(struct ts_workqueue *q, struct ts_loop *loop, size_t batch,
                        ts_workqueue_fn fn, void *data)
{
    int rc = ts_loop_before_sleep(loop, on_hook, q);

    if (rc)
        return rc;
    q->loop = loop;
    q->batch = batch ? batch : 1;
    q->fn = fn;
    q->data = data;
    ts_loop_wake(loop);
    return 0;
}

void ts_workqueue_free(struct ts_workqueue *q)
{
    if (!q)
        return;
    if (q->loop) {
        ts_loop_before_sleep_remove(q->loop, on_hook, q);
        ts_loop_timer_cancel(q->loop, q->timer);
    }
    while (q->n)
        free(fifo_pop(q));
    free(q->fifo);
    clear_waiting(q);
    free(q->heap);
    ts_hmap_release(&q->dirty);
    ts_hmap_release(&q->processing);
    ts_hmap_release(&q->failures);
    free(q);
}
