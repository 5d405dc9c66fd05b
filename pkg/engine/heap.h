/*
 * heap.h - an indexed binary min-heap of pointers.
 *
 * Each element stores its own position (through the `pos` callback's
 * pointer), so removal and re-prioritisation of an arbitrary element are
 * O(log n): a workload leaving a queue never costs a scan.
 *
 * Ownership: the heap borrows its elements; it never frees them.
 */
#ifndef TS_ENGINE_HEAP_H
#define TS_ENGINE_HEAP_H

#include <stddef.h>

/* Returns < 0 when a must come out before b. */
typedef int (*ts_heap_less_fn)(const void *a, const void *b);
/* Returns the address where element e keeps its heap index. */
typedef size_t *(*ts_heap_pos_fn)(void *e);

#define TS_HEAP_NOT_IN ((size_t)-1)

struct ts_heap {
    void **items;
    size_t n;
    size_t cap;
    ts_heap_less_fn less;
    ts_heap_pos_fn pos;
};

void ts_heap_init(struct ts_heap *h, ts_heap_less_fn less, ts_heap_pos_fn pos);
void ts_heap_release(struct ts_heap *h);
/* Inserts e (must not be in a heap). */
void ts_heap_push(struct ts_heap *h, void *e);
/* The first element or NULL. Borrowed. */
void *ts_heap_peek(const struct ts_heap *h);
/* Removes and returns the first element, or NULL. */
void *ts_heap_pop(struct ts_heap *h);
/* Removes e if it is in h; returns 1 when removed. */
int ts_heap_remove(struct ts_heap *h, void *e);
/* Restores order after e's key changed. */
void ts_heap_fix(struct ts_heap *h, void *e);
/* 1 when e is in h. */
int ts_heap_contains(const struct ts_heap *h, void *e);

#endif
