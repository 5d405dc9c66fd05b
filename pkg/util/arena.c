/*
 * arena.c - a bump allocator for short-lived trees (see arena.h).
 */
#include "util/arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define POISON(p, n)   ASAN_POISON_MEMORY_REGION((p), (n))
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define POISON(p, n)   ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define ALIGN     16 /* as malloc's: cJSON keeps doubles and pointers */
#define MIN_BLOCK 16384

struct ts_arena_spill {
    struct ts_arena_spill *next;
    size_t size;
    char mem[] __attribute__((aligned(ALIGN)));
};

static size_t round_up(size_t n)
{
    return (n + ALIGN - 1) & ~(size_t)(ALIGN - 1);
}

void *ts_arena_alloc(struct ts_arena *a, size_t n)
{
    struct ts_arena_spill *s;
    void *p;

    n = round_up(n ? n : 1);
    if (n <= a->cap - a->used) {
        p = a->base + a->used;
        a->used += n;
        UNPOISON(p, n);
        return p;
    }
    /* full: this round spills; the next gets a main block to fit it all */
    s = ts_xmalloc(sizeof(*s) + n);
    s->size = n;
    s->next = a->spill;
    a->spill = s;
    a->spilled += n;
    return s->mem;
}

void ts_arena_reset(struct ts_arena *a)
{
    size_t need = a->used + a->spilled;

    while (a->spill) {
        struct ts_arena_spill *next = a->spill->next;

        free(a->spill);
        a->spill = next;
    }
    a->spilled = 0;
    if (need > a->cap) {
        size_t cap = a->cap ? a->cap : MIN_BLOCK;

        while (cap < need)
            cap *= 2;
        UNPOISON(a->base, a->cap);
        free(a->base);
        a->base = ts_xmalloc(cap);
        a->cap = cap;
    }
    a->used = 0;
    POISON(a->base, a->cap);
}

int ts_arena_owns(const struct ts_arena *a, const void *p)
{
    uintptr_t u = (uintptr_t)p;

    if (a->base && u >= (uintptr_t)a->base && u < (uintptr_t)a->base + a->cap)
        return 1;
    for (const struct ts_arena_spill *s = a->spill; s; s = s->next)
        if (u >= (uintptr_t)s->mem && u < (uintptr_t)s->mem + s->size)
            return 1;
    return 0;
}

void ts_arena_release(struct ts_arena *a)
{
    while (a->spill) { /* not ts_arena_reset(): it would grow the block to free it */
        struct ts_arena_spill *next = a->spill->next;

        free(a->spill);
        a->spill = next;
    }
    UNPOISON(a->base, a->cap);
    free(a->base);
    memset(a, 0, sizeof(*a));
}
