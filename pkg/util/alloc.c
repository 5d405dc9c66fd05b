#include "util/alloc.h"

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

static void *cjson_malloc(size_t size)
{
    return ts_xmalloc(size);
}

void ts_alloc_init(void)
{
    cJSON_Hooks hooks = {cjson_malloc, free};

    cJSON_InitHooks(&hooks);
}
