/*
 * dec.h - typed reads from cJSON objects that report every problem as a
 * field error with its full path (spec.resourceGroups[0].flavors[1].name).
 *
 * A decoder never stops at the first problem: each getter records a
 * TS_FIELD_TYPE_INVALID (or TS_FIELD_INVALID) error and goes on, so a
 * user sees all mistakes of an object at once.  JSON null is treated as
 * absent, as Kubernetes does.
 *
 * Getter return values: 1 = present and stored, 0 = absent/null (output
 * untouched), -1 = present but wrong (error recorded, output untouched).
 *
 * Usage:
 *     size_t mark = ts_path_push(&d->path, "spec");
 *     ts_dec_string(d, spec, "cohortName", &cq->spec.cohort_name);
 *     ts_path_pop(&d->path, mark);
 *
 * Ownership: strings stored through char ** are malloc'd copies owned by
 * the caller (any previous value is freed first); maps and lists are
 * filled into caller-owned, initialised containers.
 */
#ifndef TS_API_DEC_H
#define TS_API_DEC_H

#include <cJSON.h>
#include <stdint.h>

#include "api/field.h"
#include "api/opt.h"
#include "resource/quantity.h"
#include "resource/resource_list.h"
#include "util/strlist.h"
#include "util/strmap.h"
#include "util/time.h"

struct ts_dec {
    struct ts_path path;
    struct ts_field_errors *errs; /* borrowed; errors are appended */
    unsigned flags;               /* enum ts_decode_flags (api/object.h) */
};

/* Starts decoding at an empty path, appending errors to errs. */
void ts_dec_init(struct ts_dec *d, struct ts_field_errors *errs);

/* Records an error at path.key (key may be NULL for the current path).
 * value is shown quoted (NULL = none). */
void ts_dec_error(struct ts_dec *d, enum ts_field_error_type type, const char *key,
                  const char *value, const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* The child `key` of obj when it is an object / array; NULL when absent or
 * null, NULL plus an error when it has another type. Borrowed. */
const cJSON *ts_dec_object(struct ts_dec *d, const cJSON *obj, const char *key);
const cJSON *ts_dec_array(struct ts_dec *d, const cJSON *obj, const char *key);

int ts_dec_string(struct ts_dec *d, const cJSON *obj, const char *key, char **out);
int ts_dec_bool(struct ts_dec *d, const cJSON *obj, const char *key, int *out);
int ts_dec_opt_bool(struct ts_dec *d, const cJSON *obj, const char *key, struct ts_opt_bool *out);
/* Integers must be JSON numbers with no fraction within the type's range. */
int ts_dec_i32(struct ts_dec *d, const cJSON *obj, const char *key, int32_t *out);
int ts_dec_i64(struct ts_dec *d, const cJSON *obj, const char *key, int64_t *out);
int ts_dec_opt_i32(struct ts_dec *d, const cJSON *obj, const char *key, struct ts_opt_i32 *out);
int ts_dec_opt_i64(struct ts_dec *d, const cJSON *obj, const char *key, struct ts_opt_i64 *out);
/* A quantity given as a string ("1536Mi") or a number (9, 0.5). */
int ts_dec_quantity(struct ts_dec *d, const cJSON *obj, const char *key, struct ts_quantity *out);
int ts_dec_opt_quantity(struct ts_dec *d, const cJSON *obj, const char *key,
                        struct ts_opt_quantity *out);
/* An RFC 3339 timestamp string. */
int ts_dec_time(struct ts_dec *d, const cJSON *obj, const char *key, ts_time *out);
/* A map of strings (labels, nodeSelector); entries are added to out. */
int ts_dec_strmap(struct ts_dec *d, const cJSON *obj, const char *key, struct ts_strmap *out);
/* An array of strings; entries are appended to out. */
int ts_dec_strlist(struct ts_dec *d, const cJSON *obj, const char *key, struct ts_strlist *out);
/* A ResourceList {name: quantity}; entries are set in out. */
int ts_dec_resource_list(struct ts_dec *d, const cJSON *obj, const char *key,
                         struct ts_resource_list *out);
/* A string that must be one of `allowed` (NULL-terminated array); stores
 * the index.  Otherwise records "Unsupported value: "X": supported values:
 * "A", "B"" and returns -1. */
int ts_dec_enum(struct ts_dec *d, const cJSON *obj, const char *key, const char *const *allowed,
                int *out);

/* Renders a JSON value briefly for an error message (strings raw, other
 * values printed compactly, truncated).  Ownership: caller frees. */
char *ts_dec_render(const cJSON *v);

#endif
