#include "util/strmap.h"

#include "util/alloc.h"

#include <stdlib.h>
#include <string.h>

void ts_strmap_init(struct ts_strmap *m)
{
    m->items = NULL;
    m->n = 0;
    m->cap = 0;
}

void ts_strmap_release(struct ts_strmap *m)
{
    for (size_t i = 0; i < m->n; i++) {
        free(m->items[i].key);
        free(m->items[i].value);
    }
    free(m->items);
    ts_strmap_init(m);
}

void ts_strmap_copy(struct ts_strmap *dst, const struct ts_strmap *src)
{
    for (size_t i = 0; i < src->n; i++)
        ts_strmap_set(dst, src->items[i].key, src->items[i].value);
}

/* Index of key, or of the slot where it would be inserted (*found = 0). */
static size_t find(const struct ts_strmap *m, const char *key, int *found)
{
    size_t lo = 0, hi = m->n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(m->items[mid].key, key);

        if (c == 0) {
            *found = 1;
            return mid;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = 0;
    return lo;
}

void ts_strmap_set(struct ts_strmap *m, const char *key, const char *value)
{
    int found;
    size_t i = find(m, key, &found);

    if (found) {
        char *v = ts_xstrdup(value);

        free(m->items[i].value);
        m->items[i].value = v;
        return;
    }
    TS_GROW(m->items, m->cap, m->n + 1);
    memmove(&m->items[i + 1], &m->items[i], (m->n - i) * sizeof(m->items[0]));
    m->items[i].key = ts_xstrdup(key);
    m->items[i].value = ts_xstrdup(value);
    m->n++;
}

const char *ts_strmap_get(const struct ts_strmap *m, const char *key)
{
    int found;
    size_t i = find(m, key, &found);

    return found ? m->items[i].value : NULL;
}

int ts_strmap_remove(struct ts_strmap *m, const char *key)
{
    int found;
    size_t i = find(m, key, &found);

    if (!found)
        return 0;
    free(m->items[i].key);
    free(m->items[i].value);
    memmove(&m->items[i], &m->items[i + 1], (m->n - i - 1) * sizeof(m->items[0]));
    m->n--;
    return 1;
}

int ts_strmap_equal(const struct ts_strmap *a, const struct ts_strmap *b)
{
    if (a->n != b->n)
        return 0;
    for (size_t i = 0; i < a->n; i++) {
        if (strcmp(a->items[i].key, b->items[i].key) ||
            strcmp(a->items[i].value, b->items[i].value))
            return 0;
    }
    return 1;
}
