/*
 * cel_int.h - private shared parts of the CEL subset (cel.h): tokens
 * (cel_lex.c), the syntax tree (cel_parse.c), runtime values
 * (cel_val.c) and the evaluator (cel_eval.c).
 *
 * Invariants:
 *  - a syntax tree is at most TS_CEL_MAX_DEPTH deep (the parser refuses
 *    deeper ones), so every recursion over it is bounded;
 *  - runtime values are small structs passed by value; whatever they point
 *    to is either borrowed from the evaluation's inputs or allocated from
 *    the evaluation's arena, which dies with the evaluation.
 */
#ifndef TS_API_CEL_INT_H
#define TS_API_CEL_INT_H

#include <stddef.h>
#include <stdint.h>

#include <cJSON.h>

#include "api/cel.h"
#include "util/arena.h"
#include "util/buf.h"

/* --- tokens --------------------------------------------------------------- */

enum cel_tok {
    CT_EOF = 0,
    CT_ERR,   /* lexical error; text is the message */
    CT_IDENT, /* text */
    CT_INT,   /* u: the magnitude (a leading '-' is an operator) */
    CT_UINT,  /* u */
    CT_DOUBLE,
    CT_STRING, /* text, len: decoded bytes (owned by the lexer's caller) */
    CT_TRUE,
    CT_FALSE,
    CT_NULL,
    CT_IN,
    CT_LPAREN,
    CT_RPAREN,
    CT_LBRACKET,
    CT_RBRACKET,
    CT_LBRACE,
    CT_RBRACE,
    CT_DOT,
    CT_COMMA,
    CT_COLON,
    CT_QUESTION,
    CT_NOT,
    CT_MINUS,
    CT_PLUS,
    CT_STAR,
    CT_SLASH,
    CT_PERCENT,
    CT_LT,
    CT_LE,
    CT_GT,
    CT_GE,
    CT_EQ,
    CT_NE,
    CT_AND,
    CT_OR,
};

struct cel_token {
    enum cel_tok kind;
    uint64_t u;
    double d;
    char *text; /* heap (ident, string, error message) or NULL */
    size_t len;
    size_t pos; /* offset in the source */
};

struct cel_lexer {
    const char *src;
    size_t pos;
};

/* Reads the next token.  Ownership: tok->text is the caller's (free()). */
void ts__cel_lex_next(struct cel_lexer *lx, struct cel_token *tok);

/* --- syntax tree ---------------------------------------------------------- */

enum cel_node_kind {
    CN_INT,
    CN_UINT,
    CN_DOUBLE,
    CN_STRING,
    CN_BOOL,
    CN_NULL,
    CN_LIST,   /* args */
    CN_IDENT,  /* str: self, oldSelf or a macro variable */
    CN_SELECT, /* a.str */
    CN_HAS,    /* has(a.str) */
    CN_INDEX,  /* a[b] */
    CN_CALL,   /* fn(args) or a.fn(args): fn, a may be NULL */
    CN_NOT,
    CN_NEG,
    CN_BINARY, /* a op b; op is a token kind (arithmetic, relations, in) */
    CN_AND,
    CN_OR,
    CN_COND, /* a ? b : c */
    CN_MACRO /* a.macro(str, b) or a.map(str, b, c) / a.map(str, c) */
};

enum cel_fn {
    CF_SIZE,
    CF_STARTS_WITH,
    CF_ENDS_WITH,
    CF_CONTAINS,
    CF_INT,
    CF_UINT,
    CF_DOUBLE,
    CF_STRING,
};

enum cel_macro { CM_ALL, CM_EXISTS, CM_EXISTS_ONE, CM_FILTER, CM_MAP };

struct cel_node {
    enum cel_node_kind kind;
    int op; /* CN_BINARY: token kind; CN_CALL: enum cel_fn; CN_MACRO: enum cel_macro */
    int64_t i;
    uint64_t u;
    double d;
    char *str; /* identifier, field, macro variable or string bytes (owned) */
    size_t len;
    struct cel_node *a, *b, *c; /* operands; CN_MACRO: a range, b filter (or NULL), c map */
    struct cel_node **args;     /* CN_LIST items, CN_CALL arguments (owned) */
    size_t n_args;
    int depth; /* 1 + the deepest operand's */
};

struct ts_cel_prog {
    struct cel_node *root;
    int uses_old_self;
};

void ts__cel_node_free(struct cel_node *n);

/* --- values --------------------------------------------------------------- */

enum cel_type {
    CV_ERR = 0, /* s: message */
    CV_NULL,
    CV_BOOL,
    CV_INT,
    CV_UINT,
    CV_DOUBLE,
    CV_STRING, /* s, n: bytes (not NUL-terminated) */
    CV_LIST,   /* json (an array) or items/n */
    CV_MAP,    /* json (an object) */
};

struct cel_val {
    enum cel_type t;
    int b;
    int64_t i;
    uint64_t u;
    double d;
    const char *s;
    size_t n;
    const cJSON *json;           /* CV_LIST / CV_MAP backed by JSON */
    const cJSON *schema;         /* the schema node of json, or NULL */
    const struct cel_val *items; /* CV_LIST built by the evaluation (n items) */
};

/* One evaluation's state. */
struct cel_ctx {
    struct ts_arena arena;
    long steps; /* left before the evaluation is cut off */
    const struct ts_cel_vars *vars;
};

struct cel_val ts__cel_err(struct cel_ctx *x, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
struct cel_val ts__cel_bool(int b);
struct cel_val ts__cel_int(int64_t i);
struct cel_val ts__cel_str(const char *s, size_t n);
/* The value of JSON v typed by its schema node (may be NULL). */
struct cel_val ts__cel_from_json(const cJSON *v, const cJSON *schema);
/* A list's length; its items (materialised into the arena when JSON). */
size_t ts__cel_list_len(const struct cel_val *l);
const struct cel_val *ts__cel_list_items(struct cel_ctx *x, const struct cel_val *l);
/* CEL's ==: 1 equal, 0 not (values of different types are not equal,
 * numbers compare by value). */
int ts__cel_equal(const struct cel_val *a, const struct cel_val *b);
/* Ordering: <0, 0, >0, or 2 when the types have no order. */
int ts__cel_compare(const struct cel_val *a, const struct cel_val *b);
/* The value as JSON (owned by the caller). */
cJSON *ts__cel_to_json(const struct cel_val *v);
/* CEL's type name ("int", "list", ...). */
const char *ts__cel_type_name(enum cel_type t);

/* Field of a map value (JSON object): 1 found (*out set), 0 absent. */
int ts__cel_map_get(const struct cel_val *m, const char *key, size_t klen, struct cel_val *out);

#endif
