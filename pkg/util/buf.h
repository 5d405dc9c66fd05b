/*
 * buf.h - borrowed string views and owned, growing, NUL-terminated buffers.
 *
 * struct ts_str is a borrowed view (pointer + length, not NUL-terminated
 * necessarily); it never owns memory.
 *
 * struct ts_buf owns its bytes.  Invariants (git strbuf): ptr is never NULL
 * after ts_buf_init() (it points at a static "" until the first write),
 * ptr[len] == '\0', len < cap when allocated.  A hard cap (`max`, 0 = no
 * limit) set at init makes hostile input fail with TS_EOVERFLOW instead of
 * growing without bound (curl dynbuf's toobig).
 */
#ifndef TS_BUF_H
#define TS_BUF_H

#include <stdarg.h>
#include <stddef.h>

struct ts_str {
    const char *ptr;
    size_t len;
};

/* A view of a NUL-terminated string (NULL gives the empty view). */
struct ts_str ts_str_c(const char *s);
/* Whether the view equals the NUL-terminated string s. */
int ts_str_eq(struct ts_str a, const char *s);

struct ts_buf {
    char *ptr;
    size_t len;
    size_t cap;
    size_t max;
};

#define TS_BUF_INIT                                                                                \
    {                                                                                              \
        ts__buf_empty, 0, 0, 0                                                                     \
    }
extern char ts__buf_empty[1];

/* Initialises an empty buffer that refuses to grow beyond `max` bytes of
 * content (0 = unlimited). */
void ts_buf_init(struct ts_buf *b, size_t max);
/* Frees the bytes and leaves b empty and reusable (same max). */
void ts_buf_release(struct ts_buf *b);
/* Empties b without freeing its storage. */
void ts_buf_reset(struct ts_buf *b);

/* Append bytes / a C string / one char / printf output.
 * Return 0 or TS_EOVERFLOW when the cap would be exceeded (b unchanged). */
int ts_buf_add(struct ts_buf *b, const void *data, size_t len);
int ts_buf_adds(struct ts_buf *b, const char *s);
int ts_buf_addc(struct ts_buf *b, char c);
int ts_buf_addf(struct ts_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int ts_buf_vaddf(struct ts_buf *b, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

/* Moves the content out: returns a malloc'd NUL-terminated string (never
 * NULL) and leaves b empty.  Ownership: caller frees the result. */
char *ts_buf_take(struct ts_buf *b);

#endif
