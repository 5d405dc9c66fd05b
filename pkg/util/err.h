/*
 * err.h - error codes and error context for every Turnstile module.
 *
 * Fallible functions return int: 0 on success or a negative TS_E* code.
 * Context (a human message naming the object and field) travels in an
 * optional last parameter `struct ts_err *err`; NULL is always allowed.
 *
 * Idiom:  return ts_err_set(err, TS_EINVAL, "spec.cohort: invalid name '%s'", s);
 *
 * Thread rule: a struct ts_err belongs to one caller; no shared state.
 */
#ifndef TS_ERR_H
#define TS_ERR_H

#include <stddef.h>

/* X-macro: name, value, text.  The HTTP-flavoured codes map one to one to
 * the status codes of the Kubernetes API (see ts_err_retryable()). */
#define TS_ERRNO_MAP(XX)                                                                           \
    XX(ENOMEM, -1, "out of memory")                                                                \
    XX(EINVAL, -2, "invalid argument")                                                             \
    XX(EIO, -3, "input/output error")                                                              \
    XX(ETIMEDOUT, -4, "timed out")                                                                 \
    XX(ECONFLICT, -5, "conflict")                                                                  \
    XX(EGONE, -6, "resource version too old")                                                      \
    XX(ENOTFOUND, -7, "not found")                                                                 \
    XX(EPARSE, -8, "parse error")                                                                  \
    XX(ETLS, -9, "TLS error")                                                                      \
    XX(EOVERFLOW, -10, "value out of range")                                                       \
    XX(EEXIST, -11, "already exists")                                                              \
    XX(EUNSUPPORTED, -12, "not supported")                                                         \
    XX(ETOOMANY, -13, "too many requests")                                                         \
    XX(EUNAVAILABLE, -14, "service unavailable")                                                   \
    XX(EFORBIDDEN, -15, "forbidden")                                                               \
    XX(EUNAUTHORIZED, -16, "unauthorized")                                                         \
    XX(EINTERNAL, -17, "internal error")                                                           \
    XX(ECANCELED, -18, "cancelled")

enum ts_errno {
    TS_OK = 0,
#define TS__ERR_ENUM(name, val, text) TS_##name = (val),
    TS_ERRNO_MAP(TS__ERR_ENUM)
#undef TS__ERR_ENUM
};

#define TS_ERR_MSG_MAX 256

/* Caller-owned error context; init with `struct ts_err e = {0};`. */
struct ts_err {
    int code;
    char msg[TS_ERR_MSG_MAX];
};

/* Returns the static description of `code` ("unknown error" if unknown).
 * Ownership: static string, never freed. */
const char *ts_strerror(int code);

/* Returns the symbolic name of `code` ("EINVAL"), or "UNKNOWN".
 * Ownership: static string. */
const char *ts_err_name(int code);

/* Sets err->code and formats err->msg (truncated to fit); returns `code`
 * so callers can `return ts_err_set(...)`.  A NULL err only returns code. */
int ts_err_set(struct ts_err *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Prepends "prefix: " to err->msg (for adding the object name or the file
 * as an error travels up).  Returns err->code, or 0 when err is NULL. */
int ts_err_prefix(struct ts_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Resets err to the success state. NULL is allowed. */
void ts_err_clear(struct ts_err *err);

/* Whether an operation that failed with `code` may succeed when retried
 * (timeouts, conflicts, 410 relists, 429, 5xx, I/O).  One place decides
 * between requeue and give-up. */
int ts_err_retryable(int code);

#endif
