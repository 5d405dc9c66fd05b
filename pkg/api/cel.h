/*
 * cel.h - a subset of the Common Expression Language, enough for the
 * x-kubernetes-validations rules of CustomResourceDefinitions, evaluated
 * over cJSON values.  Pure.
 *
 * Supported: literals (int, uint with a `u` suffix, double, strings in ''
 * "" ''' """ and raw r'' quotes with CEL's escapes, true, false, null,
 * lists), the variables self and oldSelf, field selection, indexing of
 * lists and maps, has(), size() (also as a method), the macros all,
 * exists, exists_one, filter and map (two and three arguments), the
 * operators ! - * / % + < <= > >= == != in && || ?:, and the functions
 * startsWith, endsWith, contains, int(), uint(), double(), string().
 * Not supported (a compile error): map and message literals, bytes,
 * regular expressions, optional values, timestamps and durations.
 *
 * Semantics are CEL's: selecting a field an object lacks is an error,
 * `&&` and `||` absorb an error on one side when the other decides the
 * result (false, true), `?:` and `!` need a bool, integer arithmetic that
 * overflows int64 (or underflows uint64) is an error and never wraps,
 * division and modulus by zero are errors, int and double compare by
 * value but do not mix in arithmetic.  JSON numbers are int when the
 * schema types them integer (or, untyped, when they are integral) and
 * double otherwise.
 *
 * Bounds: an expression nests at most TS_CEL_MAX_DEPTH levels (deeper ones
 * do not compile, so evaluation recursion is bounded) and one evaluation
 * takes at most TS_CEL_MAX_STEPS steps (then it is an error), so hostile
 * rules and objects cost bounded time and stack.
 *
 * Ownership: programs are owned by the caller of ts_cel_compile() and
 * freed with ts_cel_free(); they are read-only after compiling, so threads
 * may share them.  Inputs (values, schemas) are borrowed for the call.
 */
#ifndef TS_API_CEL_H
#define TS_API_CEL_H

#include <cJSON.h>

#include "util/buf.h"

#define TS_CEL_MAX_DEPTH 48
#define TS_CEL_MAX_STEPS 1000000L

struct ts_cel_prog;

/* Compiles src.  Returns NULL and appends the reason to err (may be NULL)
 * when src is not in the subset or refers to a variable other than self,
 * oldSelf and macro variables.  Ownership: the caller frees the result
 * with ts_cel_free(). */
struct ts_cel_prog *ts_cel_compile(const char *src, struct ts_buf *err);
void ts_cel_free(struct ts_cel_prog *p);

/* Whether the program refers to oldSelf (a transition rule). */
int ts_cel_uses_old_self(const struct ts_cel_prog *p);

/* The variables of one evaluation: self and its schema node (which types
 * its numbers; may be NULL), oldSelf (NULL: not declared, using it is an
 * error). */
struct ts_cel_vars {
    const cJSON *self;
    const cJSON *schema;
    const cJSON *old_self;
};

/* Evaluates p.  On success returns 0 and sets *out to the result as JSON
 * (ints and doubles both become numbers).  On an evaluation error returns
 * -1 and appends CEL's message ("no such key: x", "integer overflow", ...)
 * to err.  Ownership: the caller deletes *out. */
int ts_cel_eval(const struct ts_cel_prog *p, const struct ts_cel_vars *v, cJSON **out,
                struct ts_buf *err);

/* Evaluates p as a validation rule: 1 true, 0 false, -1 an error (its
 * message appended to err; a result that is not a bool is the error
 * "no such overload"). */
int ts_cel_eval_bool(const struct ts_cel_prog *p, const struct ts_cel_vars *v, struct ts_buf *err);

/* Evaluates p as a messageExpression: 0 with the string appended to out,
 * -1 when it fails or is not a string (out then holds the reason). */
int ts_cel_eval_string(const struct ts_cel_prog *p, const struct ts_cel_vars *v,
                       struct ts_buf *out);

#endif
