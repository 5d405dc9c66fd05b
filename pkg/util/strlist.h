/*
 * strlist.h - an ordered list of owned strings (finalizers, covered
 * resources, label selector values).
 *
 * Ownership: the list owns copies of its strings.
 */
#ifndef TS_STRLIST_H
#define TS_STRLIST_H

#include <stddef.h>

struct ts_strlist {
    char **items;
    size_t n;
    size_t cap;
};

#define TS_STRLIST_INIT                                                                            \
    {                                                                                              \
        NULL, 0, 0                                                                                 \
    }

void ts_strlist_init(struct ts_strlist *l);
void ts_strlist_release(struct ts_strlist *l);
/* dst = deep copy of src (dst must be initialised and empty). */
void ts_strlist_copy(struct ts_strlist *dst, const struct ts_strlist *src);
/* Appends a copy of s. */
void ts_strlist_push(struct ts_strlist *l, const char *s);
/* Index of s, or -1. */
long ts_strlist_index(const struct ts_strlist *l, const char *s);
/* Removes every occurrence of s; returns how many were removed. */
size_t ts_strlist_remove(struct ts_strlist *l, const char *s);
/* 1 when both lists hold the same strings in the same order. */
int ts_strlist_equal(const struct ts_strlist *a, const struct ts_strlist *b);

#endif
