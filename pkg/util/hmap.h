/*
 * hmap.h - a string-keyed hash map (open addressing, linear probing,
 * FNV-1a) from owned keys to borrowed void * values.
 *
 * Used wherever objects are looked up by name or namespace/name: the
 * engine's workload and queue indexes, caches, the API server's store.
 * Iteration order is unspecified.  Thread rule: none (one owner).
 *
 * Ownership: the map copies keys and frees them; values are never freed by
 * the map (the caller owns what they point to).
 */
#ifndef TS_HMAP_H
#define TS_HMAP_H

#include <stddef.h>
#include <stdint.h>

struct ts_hmap_slot {
    char *key; /* NULL = empty; TS__HMAP_TOMB = deleted */
    uint64_t hash;
    void *value;
};

struct ts_hmap {
    struct ts_hmap_slot *slots;
    size_t cap;  /* power of two, 0 when empty */
    size_t n;    /* live entries */
    size_t used; /* live + tombstones */
};

#define TS_HMAP_INIT                                                                               \
    {                                                                                              \
        NULL, 0, 0, 0                                                                              \
    }

void ts_hmap_init(struct ts_hmap *m);
/* Frees keys and slots (not values). */
void ts_hmap_release(struct ts_hmap *m);
/* Frees every value with free(), then releases the map. */
void ts_hmap_release_free(struct ts_hmap *m);

/* The value stored under key, or NULL.  Borrowed. */
void *ts_hmap_get(const struct ts_hmap *m, const char *key);
/* Stores value under key (key copied); returns the previous value or NULL. */
void *ts_hmap_put(struct ts_hmap *m, const char *key, void *value);
/* Removes key; returns its value or NULL. */
void *ts_hmap_del(struct ts_hmap *m, const char *key);

/* Iteration: `size_t it = 0; const char *k; void *v;
 * while (ts_hmap_next(m, &it, &k, &v)) ...`.  The map must not change
 * during iteration, except through ts_hmap_del of the current key. */
int ts_hmap_next(const struct ts_hmap *m, size_t *it, const char **key, void **value);

uint64_t ts_hash_str(const char *s);

#endif
