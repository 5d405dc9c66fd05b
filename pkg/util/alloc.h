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

/* --- cJSON trees in an arena (json.h: ts_json_parse_arena()) ---------------- */

struct ts_arena;

#define TS_ALLOC_CJSON_ARENAS 8

/* While a is registered on this thread, cJSON_Delete() there skips a's
 * memory (and frees the rest).  Returns -1 when TS_ALLOC_CJSON_ARENAS are
 * registered already.  Unregister before releasing a. */
int ts_alloc_cjson_register(struct ts_arena *a);
void ts_alloc_cjson_unregister(struct ts_arena *a);
/* Routes this thread's cJSON allocations to a (registered), or back to
 * the heap when a is NULL. */
void ts_alloc_cjson_into(struct ts_arena *a);

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
