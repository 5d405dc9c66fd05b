/*
 * json.h - small helpers around cJSON trees, the object model of Turnstile.
 *
 * Kubernetes objects are cJSON trees (Debian libcjson 1.7.15).  These
 * helpers add what cJSON lacks: parse errors with a line and column,
 * kubectl-style pretty printing into a struct ts_buf, field paths
 * ("spec.resourceGroups[0].flavors[1].name"), deep equality and setters
 * that create intermediate objects.
 *
 * Field paths: keys separated by dots, array indexes in brackets.  A key
 * that itself contains dots or brackets is written in brackets, as
 * Kubernetes field paths print map keys:
 *   metadata.annotations[kueue.x-k8s.io/queue-name]
 * Bracket text may be quoted ('x' or "x"); the quotes are dropped.  A
 * bracket segment applied to an array is an index (decimal digits), applied
 * to an object it is a key.  A leading dot is allowed; "" is the root.
 *
 * Numbers: cJSON keeps numbers as doubles, so integers beyond 2^53 parsed
 * from JSON lose precision.  The YAML decoder (yaml/yaml.h) keeps such
 * integers exact as cJSON_Raw nodes holding the decimal text (valuedouble
 * is set too); ts_json_get_i64() accepts both forms.
 *
 * Thread rule: no shared state; a tree belongs to one thread at a time.
 * Ownership: cJSON trees returned by these functions are freed with
 * cJSON_Delete(); getters return borrowed pointers into the tree.
 */
#ifndef TS_JSON_H
#define TS_JSON_H

#include <cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"
#include "util/err.h"

enum ts_json_print_flags {
    TS_JSON_COMPACT = 0,
    TS_JSON_PRETTY = 1 << 0, /* 4-space indent, one member per line (kubectl -o json) */
};

/* Parses exactly one JSON value from s[0..len) (trailing whitespace
 * allowed).  An object member whose key appears again later in the same
 * object is dropped: the last one wins, as in Go's encoding/json that
 * Kubernetes decodes with; a number beyond the range of a double (1e400)
 * is refused, as Go refuses it.  Returns 0, or TS_EPARSE with a message naming the line,
 * column and byte offset ("invalid JSON at line 3 column 7 (byte 41)").
 * Ownership: on success the caller frees *out with cJSON_Delete(); on
 * failure *out is NULL. */
int ts_json_parse(const char *s, size_t len, cJSON **out, struct ts_err *err);

struct ts_arena;

/* ts_json_parse() into a's memory, for a tree that dies soon (a watch
 * event): a is reset first, so the tree parsed into it before must be
 * dead.  a must be registered on this thread (ts_alloc_cjson_register()).
 * Ownership: *out may be given to cJSON_Delete() (which frees only what
 * was added to it from the heap) and must not outlive the next parse into
 * a, nor a. */
int ts_json_parse_arena(struct ts_arena *a, const char *s, size_t len, cJSON **out,
                        struct ts_err *err);

/* Appends the JSON text of v to out (compact or TS_JSON_PRETTY; no
 * trailing newline).  Numbers are written exactly: integral values below
 * 1e21 in full, others in the shortest form that reads back as the same
 * double (cJSON_Print rounds to 15 digits).  Returns 0, TS_EOVERFLOW
 * (out's cap reached; out is left as it was) or TS_EINVAL (v holds
 * something JSON cannot show: a non-finite number, a NULL raw node).
 * Ownership: out stays owned by the caller. */
int ts_json_print(const cJSON *v, unsigned flags, struct ts_buf *out, struct ts_err *err);

/* Appends s as a JSON string (quoted, escaped) to out: for a document
 * written as text, with no tree built for it.  Returns 0 or TS_EOVERFLOW.
 * Ownership: out stays owned by the caller. */
int ts_json_print_string(const char *s, struct ts_buf *out);

/* Same as ts_json_print() into a fresh string of exactly its size; NULL
 * only when v cannot be printed.  Ownership: caller frees the result with
 * free(). */
char *ts_json_dumps(const cJSON *v, unsigned flags);

/* Copies the string at `path` (object keys separated by dots, no
 * brackets) in JSON text into out, without building a tree: for one field
 * of a large reply nobody else reads.  Returns 0, TS_ENOTFOUND (missing,
 * not a string, or the text is malformed on the way) or TS_EINVAL (the
 * string has escapes, or does not fit in cap with its NUL).  Keys are
 * compared as written (a key with escapes never matches). */
int ts_json_scan_string(const char *text, size_t len, const char *path, char *out, size_t cap);

/* Finds the member at `path` (as ts_json_scan_string()) in JSON text and
 * sets [*off, *off + *n) to the bytes that remove it: its key, its value
 * and one comma next to it, so that the text without them is the same
 * JSON without that member.  For dropping a large member nobody reads
 * before parsing.  Returns 0 or TS_ENOTFOUND (missing, or the text is
 * malformed on the way). */
int ts_json_scan_member(const char *text, size_t len, const char *path, size_t *off, size_t *n);

/* Returns the node at `path` under root, or NULL when it does not exist or
 * the path is malformed.  Ownership: borrowed, valid while root lives and
 * is not modified at that place. */
cJSON *ts_json_get(const cJSON *root, const char *path);

/* The string at `path`, or NULL if missing or not a string.
 * Ownership: borrowed like ts_json_get(). */
const char *ts_json_get_string(const cJSON *root, const char *path);

/* Reads an exact integer from v: a number with an integral value in int64
 * range, or an integer raw node (see top comment).  Returns 0, TS_EINVAL
 * (not an integer) or TS_EOVERFLOW. */
int ts_json_get_i64(const cJSON *v, int64_t *out);

/* Deep equality: objects compare as unordered sets of members, arrays in
 * order, numbers by value, raw nodes by text.  Two NULLs are equal. */
int ts_json_equal(const cJSON *a, const cJSON *b);

/* Returns the object at `path`, creating missing objects on the way
 * (indexes must name existing array elements).  Returns NULL with
 * TS_EINVAL when a non-object stands in the way, an index is out of range
 * or the path is malformed.  Ownership: borrowed pointer into root. */
cJSON *ts_json_mkpath(cJSON *root, const char *path, struct ts_err *err);

/* Stores value at `path` (creating parent objects like ts_json_mkpath()),
 * replacing any existing member or array element; path "" is refused.
 * Returns 0 or TS_EINVAL.  Ownership: value is consumed, also on failure. */
int ts_json_set(cJSON *root, const char *path, cJSON *value, struct ts_err *err);

/* ts_json_set() with a copy of the string s. */
int ts_json_set_string(cJSON *root, const char *path, const char *s, struct ts_err *err);

/* Path iteration, for modules that walk a parallel structure (the YAML
 * line map).  Stores the next segment of *cursor in *seg and advances
 * *cursor.  Returns 1 when a segment was produced, 0 at the end of the
 * path, TS_EINVAL when the path is malformed (empty key, unclosed '[').
 * Ownership: seg points into the path string. */
int ts_json_path_next(const char **cursor, struct ts_str *seg);

/* Parses a path segment as an array index (decimal digits only).
 * Returns 0 or TS_EINVAL. */
int ts_json_path_index(struct ts_str seg, size_t *out);

#endif
