/*
 * jsonpath.h - the kubectl JSONPath subset that CRD printer columns and
 * `kubectl get -o jsonpath` use: `.a.b`, `['a.b']`, `[n]` (negative from
 * the end), `[*]`, `.*`, `..a` (recursive descent), `[a:b]` slices and
 * filters `[?(@.type=='Admitted')]` with ==, !=, <, <=, >, >= against a
 * quoted string, a number, true/false, or `[?(@.x)]` (exists).  The
 * expression may be wrapped in `{...}`.  Pure; no shared state.
 *
 * Ownership: a compiled path is freed with ts_jsonpath_free(); results
 * are borrowed pointers into the searched tree.
 */
#ifndef TS_APISERVER_JSONPATH_H
#define TS_APISERVER_JSONPATH_H

#include <cJSON.h>
#include <stddef.h>

#include "util/buf.h"
#include "util/err.h"

struct ts_jsonpath;

/* Compiles expr.  Returns 0 or TS_EPARSE ("unrecognized character ...").
 * Ownership: caller frees *out with ts_jsonpath_free(). */
int ts_jsonpath_compile(const char *expr, struct ts_jsonpath **out, struct ts_err *err);

/* Stores up to max matches of p in root into res (document order) and
 * returns how many there are in total (may exceed max). */
size_t ts_jsonpath_find(const struct ts_jsonpath *p, const cJSON *root, const cJSON **res,
                        size_t max);

/* Appends v as kubectl's JSONPath printer does: strings raw, numbers in
 * Go's shortest form, true/false, null as "<nil>"... objects and arrays as
 * compact JSON. */
void ts_jsonpath_print(const cJSON *v, struct ts_buf *out);

void ts_jsonpath_free(struct ts_jsonpath *p);

#endif
