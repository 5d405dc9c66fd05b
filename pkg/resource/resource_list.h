/*
 * resource_list.h - a ResourceList: resource name -> quantity, kept sorted
 * by name (so iteration, encoding and comparison are deterministic).
 *
 * Ownership: the list owns its names (copied on insert).  Release with
 * ts_resource_list_release().  Borrowed pointers returned by _get() are
 * valid until the next modification of the list.
 */
#ifndef TS_RESOURCE_LIST_H
#define TS_RESOURCE_LIST_H

#include <stddef.h>

#include "resource/quantity.h"

struct ts_resource {
    char *name;
    struct ts_quantity q;
};

struct ts_resource_list {
    struct ts_resource *items;
    size_t n;
    size_t cap;
};

/* clang-format would spread this brace initialiser over four lines */
/* clang-format off */
#define TS_RESOURCE_LIST_INIT {NULL, 0, 0}
/* clang-format on */

void ts_resource_list_init(struct ts_resource_list *l);
void ts_resource_list_release(struct ts_resource_list *l);
/* Deep copy of src into dst (dst is initialised, not released first). */
void ts_resource_list_copy(struct ts_resource_list *dst, const struct ts_resource_list *src);

/* Sets name to q (inserting or replacing).  Name is copied; name and q
 * may point into l itself. */
void ts_resource_list_set(struct ts_resource_list *l, const char *name,
                          const struct ts_quantity *q);
/* The quantity of name, or NULL when absent.  Borrowed. */
const struct ts_quantity *ts_resource_list_get(const struct ts_resource_list *l, const char *name);
/* Removes name if present. */
void ts_resource_list_remove(struct ts_resource_list *l, const char *name);

/* dst += src / dst -= src, per resource (missing entries count as zero;
 * sub may produce negatives).  Return 0 or TS_EOVERFLOW (dst may be
 * partially updated only on overflow, which callers treat as fatal input). */
int ts_resource_list_add(struct ts_resource_list *dst, const struct ts_resource_list *src);
int ts_resource_list_sub(struct ts_resource_list *dst, const struct ts_resource_list *src);
/* dst = src * factor (per resource).  dst must be initialised; its old
 * content is released.  dst may be src.  Returns 0 or TS_EOVERFLOW, in
 * which case dst is unchanged. */
int ts_resource_list_scale(struct ts_resource_list *dst, const struct ts_resource_list *src,
                           int64_t factor);

/* 1 when every resource of `req` is <= the same resource in `avail`
 * (absent in avail = 0).  When it does not fit and `short_name` is not
 * NULL, *short_name points at the first resource (by name) that does not
 * fit (borrowed from req). */
int ts_resource_list_fits(const struct ts_resource_list *req, const struct ts_resource_list *avail,
                          const char **short_name);
/* 1 when both lists hold the same names with equal quantities (zero
 * entries are equal to absent ones). */
int ts_resource_list_equal(const struct ts_resource_list *a, const struct ts_resource_list *b);

#endif
