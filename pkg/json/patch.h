/*
 * patch.h - JSON merge patch (RFC 7386) and JSON patch (RFC 6902 with JSON
 * pointers, RFC 6901): apply, and create one from two documents.
 *
 * Application never mutates its inputs: it works on a copy and hands the
 * result back only on success, so a failed patch leaves nothing half done.
 * Errors name the operation index and its path:
 *   "operation 2 (test) path '/a/b': value differs"
 *
 * Creation produces a patch p with apply(from, p) == to (deep equality,
 * ts_json_equal()).  ts_json_patch_create() compares objects member by
 * member and arrays element by element (then adds or removes the tail);
 * it does not look for moves, so the patch is correct, not minimal.
 *
 * Thread rule: no shared state.
 * Ownership: inputs are borrowed (const); results are new trees the caller
 * frees with cJSON_Delete().
 */
#ifndef TS_JSON_PATCH_H
#define TS_JSON_PATCH_H

#include <cJSON.h>

#include "util/buf.h"
#include "util/err.h"

/* Applies merge patch `patch` to `target` (NULL = no document) and stores
 * the result in *out.  Members whose patch value is null are removed; a
 * patch that is not an object replaces the target.  Returns 0 or
 * TS_EINVAL (patch is NULL).  Ownership: caller frees *out. */
int ts_json_merge_patch_apply(const cJSON *target, const cJSON *patch, cJSON **out,
                              struct ts_err *err);

/* Creates the merge patch that turns `from` into `to` ({} when equal).
 * Returns 0, TS_EINVAL (an argument is NULL) or TS_EUNSUPPORTED when `to`
 * holds an object member whose value is null (a merge patch can only
 * express null as "delete"; arrays are replaced whole so nulls inside
 * arrays are fine).  Ownership: caller frees *out; NULL on failure. */
int ts_json_merge_patch_create(const cJSON *from, const cJSON *to, cJSON **out, struct ts_err *err);

/* Applies the RFC 6902 patch `patch` (an array of operations: add, remove,
 * replace, move, copy, test) to `doc`.  Unknown members of an operation
 * are ignored; duplicate members make it invalid.  Returns 0, TS_EINVAL
 * (malformed patch, bad pointer, missing target, index out of range) or
 * TS_ECONFLICT (a test operation failed).  Removing the whole document
 * ("remove" with path "") is refused.  Ownership: caller frees *out;
 * *out is NULL on failure and doc is untouched. */
int ts_json_patch_apply(const cJSON *doc, const cJSON *patch, cJSON **out, struct ts_err *err);

/* Creates an RFC 6902 patch (array of operations) turning `from` into
 * `to`; [] when they are equal.  Returns 0 or TS_EINVAL (NULL argument).
 * Ownership: caller frees *out. */
int ts_json_patch_create(const cJSON *from, const cJSON *to, cJSON **out, struct ts_err *err);

/* Resolves the JSON pointer `ptr` ("" = doc, "/a/0", "~0" = '~', "~1" =
 * '/') in doc.  Returns 0, or TS_EINVAL (malformed pointer) or
 * TS_ENOTFOUND.  Ownership: *out is borrowed from doc. */
int ts_json_pointer_get(const cJSON *doc, const char *ptr, cJSON **out, struct ts_err *err);

/* Appends "/" and the escaped form of one reference token (a key or an
 * index) to out.  Returns 0 or TS_EOVERFLOW. */
int ts_json_pointer_append(struct ts_buf *out, const char *token);

#endif
