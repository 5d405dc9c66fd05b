#include "util/alloc.h"
#include "util/arena.h"

#include <cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void oom(size_t size)
{
    fprintf(stderr, "fatal: out of memory allocating %zu bytes\n", size);
    abort();
}

void *ts_xmalloc(size_t size)
{
    void *p = malloc(size ? size : 1);

    if (!p)
        oom(size);
    return p;
}

void *ts_xcalloc(size_t nmemb, size_t size)
{
    void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

    if (!p)
        oom(nmemb * size);
    return p;
}

void *ts_xrealloc(void *ptr, size_t size)
{
    void *p = realloc(ptr, size ? size : 1);

    if (!p)
        oom(size);
    return p;
}

char *ts_xstrdup(const char *s)
{
    return ts_xstrndup(s, strlen(s));
}

char *ts_xstrndup(const char *s, size_t n)
{
    size_t len = strnlen(s, n);
    char *p = ts_xmalloc(len + 1);

    memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

void ts_xgrow(void **items, size_t *cap, size_t need, size_t elem)
{
    size_t ncap;

    if (need <= *cap)
        return;
    ncap = *cap ? *cap : 4;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2 / elem)
            oom(SIZE_MAX);
        ncap *= 2;
    }
    *items = ts_xrealloc(*items, ncap * elem);
    *cap = ncap;
}

/* cJSON's hooks are process-wide, so a parse into an arena routes them
 * through these, for its own thread and its own duration only. */
static __thread struct ts_arena *cjson_into;
static __thread struct ts_arena *cjson_arenas[TS_ALLOC_CJSON_ARENAS];

static void *cjson_malloc(size_t size)
{
    return cjson_into ? ts_arena_alloc(cjson_into, size) : ts_xmalloc(size);
}

/* A tree parsed into an arena is deleted like any other: its nodes are
 * skipped, and nodes added to it later from the heap are freed. */
static void cjson_free(void *p)
{
    for (int i = 0; i < TS_ALLOC_CJSON_ARENAS && cjson_arenas[i]; i++)
        if (ts_arena_owns(cjson_arenas[i], p))
            return;
    free(p);
}

int ts_alloc_cjson_register(struct ts_arena *a)
{
    for (int i = 0; i < TS_ALLOC_CJSON_ARENAS; i++)
        if (!cjson_arenas[i]) {
            cjson_arenas[i] = a;
            return 0;
        }
    return -1;
}

void ts_alloc_cjson_unregister(struct ts_arena *a)
{
    int i, last;

    for (last = 0; last < TS_ALLOC_CJSON_ARENAS && cjson_arenas[last]; last++)
        ;
    for (i = 0; i < last; i++)
        if (cjson_arenas[i] == a) {
            cjson_arenas[i] = cjson_arenas[last - 1]; /* stays packed */
            cjson_arenas[last - 1] = NULL;
            return;
        }
}

void ts_alloc_cjson_into(struct ts_arena *a)
{
    cjson_into = a;
}

void ts_alloc_init(void)
{
    cJSON_Hooks hooks = {cjson_malloc, cjson_free};

    cJSON_InitHooks(&hooks);
}
