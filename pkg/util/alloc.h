/*
 * alloc.h - the one place memory is allocated.
 *
 * Every allocation in Turnstile goes through these wrappers, which abort
 * the process on out-of-memory (git's xmalloc policy: a controller that
 * cannot allocate is restarted by kubelet; partial failure handling would
 * only add untested paths).  cJSON is routed through the same wrappers by
 * ts_alloc_init(), so one policy applies everywhere.
 */
#ifndef TS_ALLOC_H
#define TS_ALLOC_H

#include <stddef.h>

/* Installs the wrappers as cJSON's allocator.  Call once at start-up from
 * main() or a test's setup, before any cJSON object exists. */
void ts_alloc_init(void);

/* malloc/calloc/realloc/strdup that never return NULL.
 * Ownership: the caller frees the result with free(). */
void *ts_xmalloc(size_t size);
void *ts_xcalloc(size_t nmemb, size_t size);
void *ts_xrealloc(void *ptr, size_t size);
char *ts_xstrdup(const char *s);
/* Copies at most n bytes of s and NUL-terminates. */
char *ts_xstrndup(const char *s, size_t n);

/* Grows *items (each of `elem` bytes) so that at least `need` fit, doubling
 * *cap.  Ownership: *items stays owned by the caller. */
void ts_xgrow(void **items, size_t *cap, size_t need, size_t elem);

#define TS_GROW(arr, cap, need) ts_xgrow((void **)&(arr), &(cap), (need), sizeof(*(arr)))

#endif
