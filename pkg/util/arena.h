/*
 * arena.h - a bump allocator for short-lived trees.
 *
 * A parsed watch event is a few hundred small allocations that all die
 * together a moment later.  From the heap they would be a large share of
 * the controller's malloc calls, scattered over cold memory; from an arena
 * they are one warm block, reused for the next event.  Memory is handed
 * out until ts_arena_reset(), which takes it all back at once.
 */
#ifndef TS_ARENA_H
#define TS_ARENA_H

#include <stddef.h>

struct ts_arena_spill; /* a block taken when the main one was full */

struct ts_arena {
    char *base; /* main block: grows at reset to the last round's use */
    size_t cap, used;
    struct ts_arena_spill *spill;
    size_t spilled; /* bytes handed out from spill blocks this round */
};

#define TS_ARENA_INIT                                                                              \
    {                                                                                              \
        NULL, 0, 0, NULL, 0                                                                        \
    }

/* Returns n bytes aligned for any type (never NULL; aborts on OOM).
 * Ownership: the arena's; valid until the next reset or release. */
void *ts_arena_alloc(struct ts_arena *a, size_t n);
/* Takes back everything handed out (under ASan it is poisoned: a use
 * after the reset is reported). */
void ts_arena_reset(struct ts_arena *a);
/* Whether p was handed out by a (in its current round or an earlier one
 * whose memory it still holds). */
int ts_arena_owns(const struct ts_arena *a, const void *p);
/* Frees every block; a is left empty (TS_ARENA_INIT). */
void ts_arena_release(struct ts_arena *a);

#endif
