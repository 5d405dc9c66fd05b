/*
 * resource_list.c - a sorted array of (name, quantity).
 *
 * Lists hold a handful of resources (cpu, memory, pods, a few GPUs), so a
 * sorted array with binary search and memmove beats any map: it is small,
 * cache-friendly, and already in the order encoders and comparisons want.
 */
#include "resource/resource_list.h"

#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

static const struct ts_quantity zero = {0, 0, TS_QUANTITY_DECIMAL_SI};

void ts_resource_list_init(struct ts_resource_list *l)
{
    l->items = NULL;
    l->n = 0;
    l->cap = 0;
}

void ts_resource_list_release(struct ts_resource_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->items[i].name);
    free(l->items);
    ts_resource_list_init(l);
}

void ts_resource_list_copy(struct ts_resource_list *dst, const struct ts_resource_list *src)
{
    ts_resource_list_init(dst);
    if (src->n == 0)
        return;
    TS_GROW(dst->items, dst->cap, src->n);
    for (size_t i = 0; i < src->n; i++) {
        dst->items[i].name = ts_xstrdup(src->items[i].name);
        dst->items[i].q = src->items[i].q;
    }
    dst->n = src->n;
}

/* Binary search: 1 and the index of name, or 0 and where it would go. */
static int find(const struct ts_resource_list *l, const char *name, size_t *at)
{
    size_t lo = 0, hi = l->n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(l->items[mid].name, name);

        if (c == 0) {
            *at = mid;
            return 1;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *at = lo;
    return 0;
}

/* Inserts at `at`; name and q are copied before the array may move, so
 * they may point into l. */
static void insert_at(struct ts_resource_list *l, size_t at, const char *name,
                      const struct ts_quantity *q)
{
    struct ts_resource r = {ts_xstrdup(name), *q};

    TS_GROW(l->items, l->cap, l->n + 1);
    memmove(&l->items[at + 1], &l->items[at], (l->n - at) * sizeof(l->items[0]));
    l->items[at] = r;
    l->n++;
}

void ts_resource_list_set(struct ts_resource_list *l, const char *name, const struct ts_quantity *q)
{
    size_t at;

    if (find(l, name, &at))
        l->items[at].q = *q;
    else
        insert_at(l, at, name, q);
}

const struct ts_quantity *ts_resource_list_get(const struct ts_resource_list *l, const char *name)
{
    size_t at;

    return find(l, name, &at) ? &l->items[at].q : NULL;
}

void ts_resource_list_remove(struct ts_resource_list *l, const char *name)
{
    size_t at;

    if (!find(l, name, &at))
        return;
    free(l->items[at].name);
    memmove(&l->items[at], &l->items[at + 1], (l->n - at - 1) * sizeof(l->items[0]));
    l->n--;
}

/* dst ±= src.  When dst == src every name is found, so nothing is inserted
 * and `r` stays valid. */
static int merge(struct ts_resource_list *dst, const struct ts_resource_list *src, int sub)
{
    for (size_t i = 0; i < src->n; i++) {
        const struct ts_resource *r = &src->items[i];
        struct ts_quantity sum;
        size_t at;
        int found = find(dst, r->name, &at);
        const struct ts_quantity *cur = found ? &dst->items[at].q : &zero;
        /* a missing entry is a zero, and zero ± x takes x's format */
        int rc = sub ? ts_quantity_sub(cur, &r->q, &sum) : ts_quantity_add(cur, &r->q, &sum);

        if (rc)
            return rc;
        if (found)
            dst->items[at].q = sum;
        else
            insert_at(dst, at, r->name, &sum);
    }
    return 0;
}

int ts_resource_list_add(struct ts_resource_list *dst, const struct ts_resource_list *src)
{
    return merge(dst, src, 0);
}

int ts_resource_list_sub(struct ts_resource_list *dst, const struct ts_resource_list *src)
{
    return merge(dst, src, 1);
}

int ts_resource_list_scale(struct ts_resource_list *dst, const struct ts_resource_list *src,
                           int64_t factor)
{
    struct ts_resource_list tmp;

    /* built aside so that overflow leaves dst untouched and dst may be src */
    ts_resource_list_copy(&tmp, src);
    for (size_t i = 0; i < tmp.n; i++) {
        int rc = ts_quantity_mul(&tmp.items[i].q, factor, &tmp.items[i].q);

        if (rc) {
            ts_resource_list_release(&tmp);
            return rc;
        }
    }
    ts_resource_list_release(dst);
    *dst = tmp;
    return 0;
}

int ts_resource_list_fits(const struct ts_resource_list *req, const struct ts_resource_list *avail,
                          const char **short_name)
{
    for (size_t i = 0; i < req->n; i++) {
        const struct ts_quantity *have = ts_resource_list_get(avail, req->items[i].name);

        if (ts_quantity_cmp(&req->items[i].q, have ? have : &zero) > 0) {
            if (short_name)
                *short_name = req->items[i].name;
            return 0;
        }
    }
    return 1;
}

/* Both lists are sorted, so one merge walk pairs up equal names. */
int ts_resource_list_equal(const struct ts_resource_list *a, const struct ts_resource_list *b)
{
    size_t i = 0, j = 0;

    while (i < a->n || j < b->n) {
        int c = i == a->n ? 1 : j == b->n ? -1 : strcmp(a->items[i].name, b->items[j].name);

        if (c < 0 && !ts_quantity_is_zero(&a->items[i].q))
            return 0;
        if (c > 0 && !ts_quantity_is_zero(&b->items[j].q))
            return 0;
        if (c == 0 && ts_quantity_cmp(&a->items[i].q, &b->items[j].q) != 0)
            return 0;
        if (c <= 0)
            i++;
        if (c >= 0)
            j++;
    }
    return 1;
}
