#include "engine/heap.h"

#include "util/alloc.h"

#include <stdlib.h>

void ts_heap_init(struct ts_heap *h, ts_heap_less_fn less, ts_heap_pos_fn pos)
{
    h->items = NULL;
    h->n = 0;
    h->cap = 0;
    h->less = less;
    h->pos = pos;
}

void ts_heap_release(struct ts_heap *h)
{
    for (size_t i = 0; i < h->n; i++)
        *h->pos(h->items[i]) = TS_HEAP_NOT_IN;
    free(h->items);
    h->items = NULL;
    h->n = h->cap = 0;
}

static void place(struct ts_heap *h, size_t i, void *e)
{
    h->items[i] = e;
    *h->pos(e) = i;
}

static void up(struct ts_heap *h, size_t i)
{
    void *e = h->items[i];

    while (i > 0) {
        size_t parent = (i - 1) / 2;

        if (h->less(e, h->items[parent]) >= 0)
            break;
        place(h, i, h->items[parent]);
        i = parent;
    }
    place(h, i, e);
}

static void down(struct ts_heap *h, size_t i)
{
    void *e = h->items[i];

    for (;;) {
        size_t l = 2 * i + 1, best = i;
        void *b = e;

        if (l < h->n && h->less(h->items[l], b) < 0) {
            best = l;
            b = h->items[l];
        }
        if (l + 1 < h->n && h->less(h->items[l + 1], b) < 0)
            best = l + 1;
        if (best == i)
            break;
        place(h, i, h->items[best]);
        i = best;
    }
    place(h, i, e);
}

void ts_heap_push(struct ts_heap *h, void *e)
{
    TS_GROW(h->items, h->cap, h->n + 1);
    place(h, h->n++, e);
    up(h, h->n - 1);
}

void *ts_heap_peek(const struct ts_heap *h)
{
    return h->n ? h->items[0] : NULL;
}

int ts_heap_contains(const struct ts_heap *h, void *e)
{
    size_t i = *h->pos(e);

    return i < h->n && h->items[i] == e;
}

int ts_heap_remove(struct ts_heap *h, void *e)
{
    size_t i;

    if (!ts_heap_contains(h, e))
        return 0;
    i = *h->pos(e);
    *h->pos(e) = TS_HEAP_NOT_IN;
    if (i == --h->n)
        return 1;
    {
        void *moved = h->items[h->n];

        place(h, i, moved);
        up(h, i);
        down(h, *h->pos(moved));
    }
    return 1;
}

void *ts_heap_pop(struct ts_heap *h)
{
    void *e = ts_heap_peek(h);

    if (e)
        ts_heap_remove(h, e);
    return e;
}

void ts_heap_fix(struct ts_heap *h, void *e)
{
    size_t i;

    if (!ts_heap_contains(h, e))
        return;
    i = *h->pos(e);
    up(h, i);
    down(h, *h->pos(e));
}
