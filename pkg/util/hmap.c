#include "util/hmap.h"

#include "util/alloc.h"

#include <stdlib.h>
#include <string.h>

static char tomb_marker;
#define TOMB (&tomb_marker)

uint64_t ts_hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ULL;

    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ULL;
    }
    return h;
}

void ts_hmap_init(struct ts_hmap *m)
{
    memset(m, 0, sizeof(*m));
}

void ts_hmap_release(struct ts_hmap *m)
{
    for (size_t i = 0; i < m->cap; i++) {
        if (m->slots[i].key && m->slots[i].key != TOMB)
            free(m->slots[i].key);
    }
    free(m->slots);
    ts_hmap_init(m);
}

void ts_hmap_release_free(struct ts_hmap *m)
{
    for (size_t i = 0; i < m->cap; i++) {
        if (m->slots[i].key && m->slots[i].key != TOMB)
            free(m->slots[i].value);
    }
    ts_hmap_release(m);
}

/* Slot holding key, or NULL. */
static struct ts_hmap_slot *find(const struct ts_hmap *m, const char *key, uint64_t h)
{
    if (!m->cap)
        return NULL;
    for (size_t i = h & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        struct ts_hmap_slot *s = &m->slots[i];

        if (!s->key)
            return NULL;
        if (s->key != TOMB && s->hash == h && strcmp(s->key, key) == 0)
            return s;
    }
}

static void rehash(struct ts_hmap *m, size_t ncap)
{
    struct ts_hmap_slot *old = m->slots;
    size_t ocap = m->cap;

    m->slots = ts_xcalloc(ncap, sizeof(*m->slots));
    m->cap = ncap;
    m->used = m->n;
    for (size_t i = 0; i < ocap; i++) {
        size_t j;

        if (!old[i].key || old[i].key == TOMB)
            continue;
        for (j = old[i].hash & (ncap - 1); m->slots[j].key; j = (j + 1) & (ncap - 1))
            ;
        m->slots[j] = old[i];
    }
    free(old);
}

void *ts_hmap_get(const struct ts_hmap *m, const char *key)
{
    struct ts_hmap_slot *s = find(m, key, ts_hash_str(key));

    return s ? s->value : NULL;
}

void *ts_hmap_put(struct ts_hmap *m, const char *key, void *value)
{
    uint64_t h = ts_hash_str(key);
    struct ts_hmap_slot *s = find(m, key, h);
    size_t i;

    if (s) {
        void *prev = s->value;

        s->value = value;
        return prev;
    }
    /* keep load (with tombstones) under 3/4 */
    if ((m->used + 1) * 4 > m->cap * 3)
        rehash(m, m->cap ? (m->n + 1) * 4 > m->cap * 2 ? m->cap * 2 : m->cap : 16);
    for (i = h & (m->cap - 1); m->slots[i].key && m->slots[i].key != TOMB;
         i = (i + 1) & (m->cap - 1))
        ;
    if (!m->slots[i].key)
        m->used++;
    m->slots[i].key = ts_xstrdup(key);
    m->slots[i].hash = h;
    m->slots[i].value = value;
    m->n++;
    return NULL;
}

void *ts_hmap_del(struct ts_hmap *m, const char *key)
{
    struct ts_hmap_slot *s = find(m, key, ts_hash_str(key));
    void *v;

    if (!s)
        return NULL;
    v = s->value;
    free(s->key);
    s->key = TOMB;
    s->value = NULL;
    m->n--;
    return v;
}

int ts_hmap_next(const struct ts_hmap *m, size_t *it, const char **key, void **value)
{
    for (; *it < m->cap; (*it)++) {
        const struct ts_hmap_slot *s = &m->slots[*it];

        if (s->key && s->key != TOMB) {
            *key = s->key;
            *value = s->value;
            (*it)++;
            return 1;
        }
    }
    return 0;
}
