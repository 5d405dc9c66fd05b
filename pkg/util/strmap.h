/*
 * strmap.h - string -> string maps (labels, annotations, nodeSelector),
 * kept sorted by key so encoding and comparison are deterministic.
 *
 * Ownership: the map owns copies of its keys and values.  Borrowed pointers
 * from _get() are valid until the next change to the map.
 */
#ifndef TS_STRMAP_H
#define TS_STRMAP_H

#include <stddef.h>

struct ts_strmap_entry {
    char *key;
    char *value;
};

struct ts_strmap {
    struct ts_strmap_entry *items;
    size_t n;
    size_t cap;
};

#define TS_STRMAP_INIT                                                                             \
    {                                                                                              \
        NULL, 0, 0                                                                                 \
    }

void ts_strmap_init(struct ts_strmap *m);
void ts_strmap_release(struct ts_strmap *m);
/* dst = deep copy of src (dst must be initialised and empty). */
void ts_strmap_copy(struct ts_strmap *dst, const struct ts_strmap *src);
/* Inserts or replaces key (both strings copied). */
void ts_strmap_set(struct ts_strmap *m, const char *key, const char *value);
/* The value of key or NULL.  Borrowed. */
const char *ts_strmap_get(const struct ts_strmap *m, const char *key);
/* Removes key; returns 1 if it was present. */
int ts_strmap_remove(struct ts_strmap *m, const char *key);
/* 1 when both maps hold the same pairs. */
int ts_strmap_equal(const struct ts_strmap *a, const struct ts_strmap *b);

#endif
