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

static void key_of(uint64_t shape, char *buf, size_t len)
{
    snprintf(buf, len, "%016llx", (unsigned long long)shape);
}

static struct ts__eng_class *class_get(struct ts__eng_cq *cq, uint64_t shape, int create)
{
    char key[24];
    struct ts__eng_class *k;

    key_of(shape, key, sizeof(key));
    k = ts_hmap_get(&cq->classes, key);
    if (k || !create)
        return k;
    k = ts_xcalloc(1, sizeof(*k));
    k->shape = shape;
    ts_heap_init(&k->members, ts__eng_wl_less, ts__eng_wl_pos);
    ts_hmap_put(&cq->classes, key, k);
    return k;
}

void ts__eng_park(struct ts__eng_cq *cq, struct ts__eng_wl *wl, uint64_t shape)
{
    struct ts__eng_class *k = class_get(cq, shape, 1);

    ts_heap_push(&k->members, wl);
    wl->inadmissible = 1;
    wl->klass = k;
    cq->n_inadmissible++;
    ts__eng_touch(wl);
}

void ts__eng_unpark(struct ts__eng_cq *cq, struct ts__eng_wl *wl)
{
    if (!wl->inadmissible)
        return;
    ts_heap_remove(&wl->klass->members, wl);
    wl->inadmissible = 0;
    wl->klass = NULL;
    cq->n_inadmissible--;
    ts__eng_touch(wl);
}

static void release_one(struct ts__eng_cq *cq, struct ts__eng_class *k)
{
    struct ts__eng_wl *wl = ts_heap_pop(&k->members);

    if (!wl)
        return;
    wl->inadmissible = 0;
    wl->klass = NULL;
    cq->n_inadmissible--;
    cq->status_seq++; /* its count changed, even if wl->cq is another queue now */
    ts__eng_touch(wl);
    if (wl->state == TS__ENG_WL_PENDING && wl->cq == cq)
        ts_heap_push(&cq->pending, wl);
}

void ts__eng_release_classes(struct ts__eng_cq *cq)
{
    size_t it = 0;
    const char *k;
    void *v;

    while (ts_hmap_next(&cq->classes, &it, &k, &v)) {
        struct ts__eng_class *c = v;

        release_one(cq, c);
        if (!c->members.n) { /* drop empty classes so the map stays small */
            ts_hmap_del(&cq->classes, k);
            ts_heap_release(&c->members);
            free(c);
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

    for (size_t i = 0; k && i < k->members.n; i++)
        fn(k->members.items[i], arg);
}

void ts__eng_free_classes(struct ts__eng_cq *cq)
{
    size_t it = 0;
    const char *k;
    void *v;

    while (ts_hmap_next(&cq->classes, &it, &k, &v)) {
        struct ts__eng_class *c = v;

        for (size_t i = 0; i < c->members.n; i++) {
            struct ts__eng_wl *wl = c->members.items[i];

            wl->inadmissible = 0;
            wl->klass = NULL;
        }
        ts_heap_release(&c->members);
        free(c);
    }
    ts_hmap_release(&cq->classes);
    cq->n_inadmissible = 0;
}
