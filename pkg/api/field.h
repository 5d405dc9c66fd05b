/*
 * field.h - field paths and field errors, shaped like apimachinery's
 * field.Path / field.ErrorList so that every decode or validation problem
 * names the object field it is about, and the local API server can turn
 * the list into a 422 Status with causes exactly as kube-apiserver does.
 *
 * Message format (ts_field_error_format) is Kubernetes':
 *   spec.resourceGroups[0].flavors[0].resources[1].name: Invalid value: "gpu": must match ...
 *   metadata.name: Required value
 *   spec.queueingStrategy: Unsupported value: "X": supported values: "BestEffortFIFO", "StrictFIFO"
 *
 * Ownership: a ts_field_errors list owns its entries' strings; release it
 * with ts_field_errors_release().  struct ts_path is a fixed-size value
 * type (paths longer than TS_PATH_MAX are truncated with "...").
 */
#ifndef TS_FIELD_H
#define TS_FIELD_H

#include <stddef.h>

#include "util/buf.h"
#include "util/err.h"

enum ts_field_error_type {
    TS_FIELD_REQUIRED = 0,  /* "Required value" */
    TS_FIELD_INVALID,       /* "Invalid value" */
    TS_FIELD_NOT_SUPPORTED, /* "Unsupported value" */
    TS_FIELD_DUPLICATE,     /* "Duplicate value" */
    TS_FIELD_TOO_MANY,      /* "Too many" */
    TS_FIELD_TOO_LONG,      /* "Too long" */
    TS_FIELD_FORBIDDEN,     /* "Forbidden" */
    TS_FIELD_TYPE_INVALID,  /* "Invalid value" for a JSON type mismatch */
    TS_FIELD_NOT_FOUND,     /* "Not found" */
};

struct ts_field_error {
    enum ts_field_error_type type;
    char *field;  /* "spec.cohort"; never NULL */
    char *value;  /* rendered bad value, or NULL when none is shown */
    char *detail; /* human detail, or NULL */
};

struct ts_field_errors {
    struct ts_field_error *items;
    size_t n;
    size_t cap;
};

#define TS_FIELD_ERRORS_INIT                                                                       \
    {                                                                                              \
        NULL, 0, 0                                                                                 \
    }

void ts_field_errors_init(struct ts_field_errors *errs);
void ts_field_errors_release(struct ts_field_errors *errs);

/* Appends an error.  `value` is shown quoted when `quote` is set (strings)
 * and bare otherwise (numbers); NULL shows none.  detail is printf-style
 * and may be NULL.  Strings are copied. */
void ts_field_errors_add(struct ts_field_errors *errs, enum ts_field_error_type type,
                         const char *field, const char *value, int quote, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

/* Appends every error of src (copied). */
void ts_field_errors_extend(struct ts_field_errors *dst, const struct ts_field_errors *src);

/* Kubernetes' reason string for a cause: "FieldValueRequired",
 * "FieldValueInvalid", ...  Static string. */
const char *ts_field_error_reason(enum ts_field_error_type type);

/* Appends the Kubernetes message of one error to out. */
void ts_field_error_format(const struct ts_field_error *e, struct ts_buf *out);

/* Appends all messages joined by ", " (as kube-apiserver's aggregate does)
 * into out; "[a, b]" brackets when there is more than one. */
void ts_field_errors_format(const struct ts_field_errors *errs, struct ts_buf *out);

/* When errs is non-empty, sets err (TS_EINVAL) to the joined messages,
 * prefixed with `what` (e.g. "clusterqueue \"cq\"") if not NULL, and
 * returns TS_EINVAL; returns 0 for an empty list. */
int ts_field_errors_to_err(const struct ts_field_errors *errs, const char *what,
                           struct ts_err *err);

/* --- paths ---------------------------------------------------------------- */

#define TS_PATH_MAX 256

struct ts_path {
    char buf[TS_PATH_MAX];
    size_t len;
};

/* Initialises p to `root` ("" or e.g. "spec"). */
void ts_path_init(struct ts_path *p, const char *root);
/* Appends ".key" (or "key" at the start); returns the previous length to
 * pass to ts_path_pop(). */
size_t ts_path_push(struct ts_path *p, const char *key);
/* Appends "[i]"; returns the previous length. */
size_t ts_path_push_index(struct ts_path *p, size_t i);
/* Appends "[key]" for map entries (Kubernetes prints labels as
 * metadata.labels[app]); returns the previous length. */
size_t ts_path_push_mapkey(struct ts_path *p, const char *key);
/* Restores the path to an earlier length. */
void ts_path_pop(struct ts_path *p, size_t len);
/* The path as a C string, borrowed from p.  "<root>" is never returned:
 * an empty path yields "". */
const char *ts_path_str(const struct ts_path *p);

#endif
