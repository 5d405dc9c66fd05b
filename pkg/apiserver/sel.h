/*
 * sel.h - label selectors (the k8s.io/apimachinery labels.Parse grammar)
 * and field selectors (fields.ParseSelector) as list and watch queries
 * send them, and their matching.  Pure: no I/O, no shared state.
 *
 * Label grammar: requirements joined by ',' (AND); each is `k=v`, `k==v`,
 * `k!=v`, `k in (a,b)`, `k notin (a,b)`, `k` (exists), `!k` (does not
 * exist), `k>N`, `k<N` (integers).  `!=` and `notin` match objects that
 * lack the key.  Keys must be qualified names and values label values.
 * Field grammar: `k=v`, `k==v`, `k!=v` joined by ','; a value may be
 * empty; '\' escapes ',', '=' and '\'.
 *
 * Ownership: a struct ts_sel owns its strings; release it with
 * ts_sel_release().
 */
#ifndef TS_APISERVER_SEL_H
#define TS_APISERVER_SEL_H

#include <stddef.h>

#include "util/err.h"
#include "util/strlist.h"

enum ts_sel_op {
    TS_SEL_EQ = 0,
    TS_SEL_NEQ,
    TS_SEL_IN,
    TS_SEL_NOTIN,
    TS_SEL_EXISTS,
    TS_SEL_NOT_EXISTS,
    TS_SEL_GT,
    TS_SEL_LT,
};

struct ts_sel_req {
    char *key;
    enum ts_sel_op op;
    struct ts_strlist values;
};

struct ts_sel {
    struct ts_sel_req *reqs;
    size_t n;
    size_t cap;
};

#define TS_SEL_INIT                                                                                \
    {                                                                                              \
        NULL, 0, 0                                                                                 \
    }

/* Looks up key for matching: returns the value (borrowed) or NULL when the
 * key is absent. */
typedef const char *(*ts_sel_get_fn)(const void *ctx, const char *key);

/* Parses a label selector ("" selects everything).  Returns 0 or
 * TS_EPARSE with a labels.Parse-like message in err.
 * Ownership: out must be initialised; release it with ts_sel_release(). */
int ts_sel_parse_labels(const char *s, struct ts_sel *out, struct ts_err *err);

/* Parses a field selector ("" selects everything).  Returns 0 or
 * TS_EPARSE.  Ownership: as ts_sel_parse_labels(). */
int ts_sel_parse_fields(const char *s, struct ts_sel *out, struct ts_err *err);

/* 1 when every requirement holds for the values get(ctx, key) gives. */
int ts_sel_matches(const struct ts_sel *sel, ts_sel_get_fn get, const void *ctx);

void ts_sel_release(struct ts_sel *sel);

#endif
