#include "util/strlist.h"

#include "util/alloc.h"

#include <stdlib.h>
#include <string.h>

void ts_strlist_init(struct ts_strlist *l)
{
    l->items = NULL;
    l->n = 0;
    l->cap = 0;
}

void ts_strlist_release(struct ts_strlist *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->items[i]);
    free(l->items);
    ts_strlist_init(l);
}

void ts_strlist_copy(struct ts_strlist *dst, const struct ts_strlist *src)
{
    for (size_t i = 0; i < src->n; i++)
        ts_strlist_push(dst, src->items[i]);
}

void ts_strlist_push(struct ts_strlist *l, const char *s)
{
    TS_GROW(l->items, l->cap, l->n + 1);
    l->items[l->n++] = ts_xstrdup(s);
}

long ts_strlist_index(const struct ts_strlist *l, const char *s)
{
    for (size_t i = 0; i < l->n; i++) {
        if (strcmp(l->items[i], s) == 0)
            return (long)i;
    }
    return -1;
}

size_t ts_strlist_remove(struct ts_strlist *l, const char *s)
{
    size_t out = 0, removed = 0;

    for (size_t i = 0; i < l->n; i++) {
        if (strcmp(l->items[i], s) == 0) {
            free(l->items[i]);
            removed++;
        } else {
            l->items[out++] = l->items[i];
        }
    }
    l->n = out;
    return removed;
}

int ts_strlist_equal(const struct ts_strlist *a, const struct ts_strlist *b)
{
    if (a->n != b->n)
        return 0;
    for (size_t i = 0; i < a->n; i++) {
        if (strcmp(a->items[i], b->items[i]))
            return 0;
    }
    return 1;
}
