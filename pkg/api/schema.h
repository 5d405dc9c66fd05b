/*
 * schema.h - structural OpenAPI v3 schemas of CustomResourceDefinitions:
 * pruning of unknown fields, defaulting, and validation with
 * kube-apiserver's field errors (types, enum, required, minimum/maximum,
 * minLength/maxLength, minItems/maxItems, pattern, nullable,
 * x-kubernetes-int-or-string, x-kubernetes-list-type set/map).  Pure.
 *
 * Patterns are Go RE2 syntax; they are run as POSIX extended regular
 * expressions after translating \d, \w, \s (a pattern POSIX cannot
 * compile is not checked).
 *
 * Ownership: schemas and objects are borrowed; mutators change obj in
 * place; strings appended to lists are copies.
 */
#ifndef TS_API_SCHEMA_H
#define TS_API_SCHEMA_H

#include <cJSON.h>

#include "api/field.h"
#include "util/strlist.h"

/* Removes fields of obj the schema does not declare (and nulls of fields
 * that are not nullable).  With root set, apiVersion and kind are kept and
 * metadata is cut down to ObjectMeta.  Each removed unknown field's path
 * ("spec.foo", "spec.items[0].bar") is appended to pruned (may be NULL). */
void ts_schema_prune(const cJSON *schema, cJSON *obj, int root, struct ts_strlist *pruned);

/* Applies `default` values to absent fields, top-down. */
void ts_schema_default(const cJSON *schema, cJSON *obj);

/* Validates obj (the root object when path is "") and appends problems to
 * errs.  Patterns are compiled on each use. */
void ts_schema_validate(const cJSON *schema, const cJSON *obj, const char *path,
                        struct ts_field_errors *errs);

/* The patterns of a schema, compiled once: compiling them on every write
 * would cost more than the write.  It keeps copies of the
 * pattern texts; it is read-only after ts_schema_patterns_new(), so
 * threads may share it.
 * Ownership: the caller frees the result with ts_schema_patterns_free(). */
struct ts_schema_patterns;
struct ts_schema_patterns *ts_schema_patterns_new(const cJSON *schema);
void ts_schema_patterns_free(struct ts_schema_patterns *p);

/* ts_schema_validate() with the patterns of `schema` compiled in pats. */
void ts_schema_validate_with(const cJSON *schema, const struct ts_schema_patterns *pats,
                             const cJSON *obj, const char *path, struct ts_field_errors *errs);

#endif
