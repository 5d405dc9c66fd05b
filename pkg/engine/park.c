/* park.c - inadmissible workloads, parked by equivalence class.
 *
 * Kueue moves every inadmissible workload of a cohort tree back to the
 * queue whenever quota is released there, and re-evaluates each: on deep
 * queues that is O(backlog log backlog) per completed job.  Workloads of one
 * shape (same requests, placement, priority, namespace) get the same answer
 * from flavor assignment, so a requeue here releases only the first
 * workload of each class; the next one follows when that one is admitted.
 * The order in which workloads are considered is unchanged (within a class
 * they are already in queue order), only the repeated identical
 * evaluations are gone.
 */
#include "engine/engine_int.h"
#include "util/alloc.h"

#include <stdio.h>
#include <stdlib.h>

/* The class map's key: shape in hex, without printf (every parking). */
static void key_of(uint64_t shape, char buf[17])
{
    static const char hex[] = "0123456789abcdef";

    for (int i = 15; i >= 0; i--, shape >>= 4)
        buf[i] = hex[shape & 0xf];
    buf[16] = '\0';
}

static size_t class_n(const struct ts__eng_class *k)
{
    return (k->first != NULL) + k->rest.n;
}

static void class_push(struct ts__eng_class *k, struct ts__eng_wl *wl)
{
    const struct ts__eng_wl *head = k->first ? k->first : ts_heap_peek(&k->rest);

    if (head && ts__eng_wl_less(head, wl) < 0) {
        ts_heap_push(&k->rest, wl);
        return;
    }
    if (k->first)
        ts_heap_push(&k->rest, k->first);
    k->first = wl;
}

static struct ts__eng_wl *class_pop(struct ts__eng_class *k)
{
    struct ts__eng_wl *wl = k->first;

    if (!wl)
        return ts_heap_pop(&k->rest);
    k->first = NULL;
    return wl;
}

static void class_remove(struct ts__eng_class *k, struct ts__eng_wl *wl)
{
    if (k->first == wl)
        k->first = NULL;
    else
        ts_heap_remove(&k->rest, wl);
}

static struct ts__eng_wl *class_at(const struct ts__eng_class *k, size_t i)
{
    if (k->first)
        return i ? k->rest.items[i - 1] : k->first;
    return k->rest.items[i];
}

static void class_free(struct ts__eng_class *k)
{
    ts_heap_release(&k->rest);
    free(k);
}

static struct ts__eng_class *class_get(struct ts__eng_cq *cq, uint64_t shape, int create)
{
    char key[17];
    struct ts__eng_class *k;

    key_of(shape, key);
    k = ts_hmap_get(&cq->classes, key);
    if (k || !create)
        return k;
    k = ts_xcalloc(1, sizeof(*k));
    k->shape = shape;
    ts_heap_init(&k->rest, ts__eng_wl_less, ts__eng_wl_pos);
    ts_hmap_put(&cq->classes, key, k);
    return k;
}

void ts__eng_park(struct ts__eng_cq *cq, struct ts__eng_wl *wl, uint64_t shape)
{
    struct ts__eng_class *k = class_get(cq, shape, 1);

    class_push(k, wl);
    wl->inadmissible = 1;
    wl->klass = k;
    cq->n_inadmissible++;
    ts__eng_touch_parking(wl); /* it came from cq's active list */
}

void ts__eng_unpark(struct ts__eng_cq *cq, struct ts__eng_wl *wl)
{
    if (!wl->inadmissible)
        return;
    class_remove(wl->klass, wl);
    wl->inadmissible = 0;
    wl->klass = NULL;
    cq->n_inadmissible--;
    ts__eng_touch(wl);
}

static void release_one(struct ts__eng_cq *cq, struct ts__eng_class *k)
{
    struct ts__eng_wl *wl = class_pop(k);

    if (!wl)
        return;
    wl->inadmissible = 0;
    wl->klass = NULL;
    cq->n_inadmissible--;
    if (wl->state == TS__ENG_WL_PENDING && wl->cq == cq) {
        ts_heap_push(&cq->pending, wl);
        ts__eng_touch_parking(wl);
        return;
    }
    cq->status_seq++; /* its count changed, even if wl->cq is another queue now */
    ts__eng_touch(wl);
}

void ts__eng_release_classes(struct ts__eng_cq *cq)
{
    size_t it = 0;
    const char *k;
    void *v;

    while (ts_hmap_next(&cq->classes, &it, &k, &v)) {
        struct ts__eng_class *c = v;

        release_one(cq, c);
        if (!class_n(c)) { /* drop empty classes so the map stays small */
            ts_hmap_del(&cq->classes, k);
            class_free(c);
        }
    }
}

void ts__eng_release_next(struct ts__eng_cq *cq, uint64_t shape)
{
    struct ts__eng_class *k = class_get(cq, shape, 0);

    if (k)
        release_one(cq, k);
}

void ts__eng_class_each(struct ts__eng_cq *cq, uint64_t shape,
                        void (*fn)(struct ts__eng_wl *wl, void *arg), void *arg)
{
    struct ts__eng_class *k = class_get(cq, shape, 0);

    for (size_t i = 0; k && i < class_n(k); i++)
        fn(class_at(k, i), arg);
}

void ts__eng_free_classes(struct ts__eng_cq *cq)
{
    size_t it = 0;
    const char *k;
    void *v;

    while (ts_hmap_next(&cq->classes, &it, &k, &v)) {
        struct ts__eng_class *c = v;

        for (size_t i = 0; i < class_n(c); i++) {
            struct ts__eng_wl *wl = class_at(c, i);

            wl->inadmissible = 0;
            wl->klass = NULL;
        }
        class_free(c);
    }
    ts_hmap_release(&cq->classes);
    cq->n_inadmissible = 0;
}

size_t ts__eng_parked(const struct ts__eng_cq *cq, struct ts__eng_wl **out)
{
    size_t it = 0, n = 0;
    const char *k;
    void *v;

    while (ts_hmap_next(&cq->classes, &it, &k, &v)) {
        const struct ts__eng_class *c = v;

        for (size_t i = 0; i < class_n(c); i++)
            out[n++] = class_at(c, i);
    }
    return n;
}

int ts__eng_classes_check(const struct ts__eng_cq *cq, char *msg, size_t len)
{
    size_t it = 0, n = 0;
    const char *k;
    void *v;

    while (ts_hmap_next(&cq->classes, &it, &k, &v)) {
        const struct ts__eng_class *c = v;
        const struct ts__eng_wl *head = ts_heap_peek(&c->rest);

        if (c->first && head && ts__eng_wl_less(head, c->first) < 0) {
            snprintf(msg, len, "clusterqueue %s: parked %s ahead of the first of its class %s",
                     cq->name, head->key, c->first->key);
            return -1;
        }
        for (size_t i = 0; i < class_n(c); i++) {
            const struct ts__eng_wl *wl = class_at(c, i);

            if (!wl->inadmissible || wl->klass != c) {
                snprintf(msg, len, "clusterqueue %s: %s in a class without being parked there",
                         cq->name, wl->key);
                return -1;
            }
        }
        n += class_n(c);
    }
    if (n != cq->n_inadmissible) {
        snprintf(msg, len, "clusterqueue %s: %zu workloads parked, %zu counted", cq->name, n,
                 cq->n_inadmissible);
        return -1;
    }
    return 0;
}
