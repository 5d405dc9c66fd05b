/*
 * cel_parse.c - recursive-descent parser of the CEL subset (cel.h) into a
 * syntax tree, with the macros (has, all, exists, exists_one, filter, map)
 * recognised at parse time and every identifier resolved against self,
 * oldSelf and the macro variables in scope.
 *
 * Grammar (CEL's, less map and message literals):
 *   Expr     = Or ["?" Or ":" Expr]
 *   Or       = And {"||" And}          And = Rel {"&&" Rel}
 *   Rel      = Add {("<"|"<="|">"|">="|"=="|"!="|"in") Add}
 *   Add      = Mul {("+"|"-") Mul}     Mul = Unary {("*"|"/"|"%") Unary}
 *   Unary    = Member | "!" {"!"} Member | "-" {"-"} Member
 *   Member   = Primary {"." IDENT ["(" [Args] ")"] | "[" Expr "]"}
 *   Primary  = IDENT ["(" [Args] ")"] | "(" Expr ")" | "[" [Args] [","] "]" | literal
 *
 * Depth is bounded twice: nested parentheses, brackets and calls by
 * counting parse_expr() frames, and chains (a.b.c..., !!!x, a+b+c...) by
 * the depth recorded in every node; both stop at TS_CEL_MAX_DEPTH.
 */
#include "api/cel_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

#define MAX_SCOPE TS_CEL_MAX_DEPTH

struct parser {
    struct cel_lexer lx;
    struct cel_token tok;
    struct ts_buf *err;
    int failed;
    int nest;
    int uses_old_self;
    const char *scope[MAX_SCOPE]; /* macro variables, innermost last */
    int n_scope;
};

static void fail(struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void fail(struct parser *p, const char *fmt, ...)
{
    va_list ap;

    if (p->failed)
        return;
    p->failed = 1;
    if (!p->err)
        return;
    ts_buf_addf(p->err, "ERROR: <input>:1:%zu: ", p->tok.pos + 1);
    va_start(ap, fmt);
    ts_buf_vaddf(p->err, fmt, ap);
    va_end(ap);
}

static void advance(struct parser *p)
{
    free(p->tok.text);
    ts__cel_lex_next(&p->lx, &p->tok);
    if (p->tok.kind == CT_ERR)
        fail(p, "%s", p->tok.text);
}

static int accept(struct parser *p, enum cel_tok k)
{
    if (p->failed || p->tok.kind != k)
        return 0;
    advance(p);
    return 1;
}

static int expect(struct parser *p, enum cel_tok k, const char *what)
{
    if (accept(p, k))
        return 1;
    fail(p, "syntax error: expected %s", what);
    return 0;
}

/* The kind of the token after the current one. */
static enum cel_tok peek(const struct parser *p)
{
    struct cel_lexer copy = p->lx;
    struct cel_token t;
    enum cel_tok k;

    ts__cel_lex_next(&copy, &t);
    k = t.kind;
    free(t.text);
    return k;
}

void ts__cel_node_free(struct cel_node *n)
{
    if (!n)
        return;
    ts__cel_node_free(n->a);
    ts__cel_node_free(n->b);
    ts__cel_node_free(n->c);
    for (size_t i = 0; i < n->n_args; i++)
        ts__cel_node_free(n->args[i]);
    free(n->args);
    free(n->str);
    free(n);
}

static int depth_of(const struct cel_node *n)
{
    return n ? n->depth : 0;
}

/* Sets n's depth from its operands; frees n and fails when too deep. */
static struct cel_node *seal(struct parser *p, struct cel_node *n)
{
    int d = depth_of(n->a);

    if (depth_of(n->b) > d)
        d = depth_of(n->b);
    if (depth_of(n->c) > d)
        d = depth_of(n->c);
    for (size_t i = 0; i < n->n_args; i++)
        if (depth_of(n->args[i]) > d)
            d = depth_of(n->args[i]);
    n->depth = d + 1;
    if (n->depth > TS_CEL_MAX_DEPTH) {
        fail(p, "expression nests more than %d levels", TS_CEL_MAX_DEPTH);
        ts__cel_node_free(n);
        return NULL;
    }
    return n;
}

static struct cel_node *node(enum cel_node_kind kind)
{
    struct cel_node *n = ts_xcalloc(1, sizeof(*n));

    n->kind = kind;
    return n;
}

static struct cel_node *node2(struct parser *p, enum cel_node_kind kind, int op, struct cel_node *a,
                              struct cel_node *b)
{
    struct cel_node *n;

    if (!a || !b) {
        ts__cel_node_free(a);
        ts__cel_node_free(b);
        return NULL;
    }
    n = node(kind);
    n->op = op;
    n->a = a;
    n->b = b;
    return seal(p, n);
}

static struct cel_node *parse_expr(struct parser *p);

/* Arguments up to the closing token `close`; the opening one is consumed.
 * Returns 0 on failure (args freed). */
static int parse_args(struct parser *p, enum cel_tok close, struct cel_node ***args, size_t *n,
                      int trailing_comma)
{
    size_t cap = 0;

    *args = NULL;
    *n = 0;
    if (accept(p, close))
        return 1;
    for (;;) {
        struct cel_node *a = parse_expr(p);

        if (!a)
            break;
        TS_GROW(*args, cap, *n + 1);
        (*args)[(*n)++] = a;
        if (accept(p, CT_COMMA)) {
            if (trailing_comma && accept(p, close))
                return 1;
            continue;
        }
        if (expect(p, close, close == CT_RPAREN ? "')'" : "']'"))
            return 1;
        break;
    }
    for (size_t i = 0; i < *n; i++)
        ts__cel_node_free((*args)[i]);
    free(*args);
    *args = NULL;
    *n = 0;
    return 0;
}

static int in_scope(const struct parser *p, const char *name)
{
    for (int i = p->n_scope - 1; i >= 0; i--)
        if (!strcmp(p->scope[i], name))
            return 1;
    return 0;
}

static const struct {
    const char *name;
    enum cel_fn fn;
    int method; /* 1: target.fn(arg...), 0: fn(arg) */
    int n_args;
} functions[] = {
    {"size", CF_SIZE, 0, 1},
    {"size", CF_SIZE, 1, 0},
    {"startsWith", CF_STARTS_WITH, 1, 1},
    {"endsWith", CF_ENDS_WITH, 1, 1},
    {"contains", CF_CONTAINS, 1, 1},
    {"int", CF_INT, 0, 1},
    {"uint", CF_UINT, 0, 1},
    {"double", CF_DOUBLE, 0, 1},
    {"string", CF_STRING, 0, 1},
};

static struct cel_node *call(struct parser *p, const char *name, struct cel_node *target)
{
    struct cel_node *n = node(CN_CALL);
    int found = 0;

    n->a = target;
    if (!parse_args(p, CT_RPAREN, &n->args, &n->n_args, 0)) {
        ts__cel_node_free(n);
        return NULL;
    }
    for (size_t i = 0; i < sizeof(functions) / sizeof(functions[0]); i++) {
        if (strcmp(functions[i].name, name) || functions[i].method != (target != NULL))
            continue;
        found = 1;
        if ((size_t)functions[i].n_args == n->n_args) {
            n->op = (int)functions[i].fn;
            return seal(p, n);
        }
    }
    if (found)
        fail(p, "found no matching overload for '%s' applied to %zu argument(s)", name, n->n_args);
    else
        fail(p, "undeclared reference to '%s'", name);
    ts__cel_node_free(n);
    return NULL;
}

static int macro_of(const char *name, enum cel_macro *m)
{
    static const char *const names[] = {"all", "exists", "exists_one", "filter", "map"};

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (!strcmp(names[i], name)) {
            *m = (enum cel_macro)i;
            return 1;
        }
    return 0;
}

/* target.macro(var, e [, e]) with the '(' consumed. */
static struct cel_node *macro(struct parser *p, enum cel_macro m, struct cel_node *target)
{
    struct cel_node *n = node(CN_MACRO), *e1, *e2 = NULL;

    n->op = (int)m;
    n->a = target;
    if (p->tok.kind != CT_IDENT || peek(p) != CT_COMMA) {
        fail(p, "argument must be a simple name");
        ts__cel_node_free(n);
        return NULL;
    }
    n->str = p->tok.text;
    p->tok.text = NULL;
    advance(p);
    advance(p); /* the comma */
    if (p->n_scope == MAX_SCOPE) {
        fail(p, "too many nested macros");
        ts__cel_node_free(n);
        return NULL;
    }
    p->scope[p->n_scope++] = n->str;
    e1 = parse_expr(p);
    if (e1 && m == CM_MAP && accept(p, CT_COMMA))
        e2 = parse_expr(p);
    p->n_scope--;
    if (!e1 || (m == CM_MAP && p->failed) || !expect(p, CT_RPAREN, "')'")) {
        ts__cel_node_free(e1);
        ts__cel_node_free(e2);
        ts__cel_node_free(n);
        return NULL;
    }
    if (m == CM_MAP && !e2) {
        n->c = e1; /* map(x, transform) */
    } else if (m == CM_MAP) {
        n->b = e1; /* map(x, filter, transform) */
        n->c = e2;
    } else {
        n->b = e1;
    }
    return seal(p, n);
}

static struct cel_node *suffixes(struct parser *p, struct cel_node *n)
{
    while (n && !p->failed) {
        if (accept(p, CT_DOT)) {
            char *name;
            enum cel_macro m;

            if (p->tok.kind != CT_IDENT) {
                fail(p, "syntax error: expected a field name");
                break;
            }
            name = p->tok.text;
            p->tok.text = NULL;
            advance(p);
            if (accept(p, CT_LPAREN)) {
                n = macro_of(name, &m) ? macro(p, m, n) : call(p, name, n);
                free(name);
                continue;
            }
            {
                struct cel_node *s = node(CN_SELECT);

                s->a = n;
                s->str = name;
                s->len = strlen(name);
                n = seal(p, s);
            }
        } else if (accept(p, CT_LBRACKET)) {
            struct cel_node *i = parse_expr(p);

            if (!i || !expect(p, CT_RBRACKET, "']'")) {
                ts__cel_node_free(i);
                break;
            }
            n = node2(p, CN_INDEX, 0, n, i);
        } else {
            return n;
        }
    }
    if (p->failed) {
        ts__cel_node_free(n);
        return NULL;
    }
    return n;
}

static struct cel_node *ident(struct parser *p)
{
    char *name = p->tok.text;
    struct cel_node *n;

    p->tok.text = NULL;
    advance(p);
    if (accept(p, CT_LPAREN)) {
        if (!strcmp(name, "has")) {
            n = parse_expr(p);
            free(name);
            if (n && n->kind != CN_SELECT) {
                fail(p, "invalid argument to has() macro");
                ts__cel_node_free(n);
                return NULL;
            }
            if (!n || !expect(p, CT_RPAREN, "')'")) {
                ts__cel_node_free(n);
                return NULL;
            }
            n->kind = CN_HAS;
            return n;
        }
        n = call(p, name, NULL);
        free(name);
        return n;
    }
    if (strcmp(name, "self") && strcmp(name, "oldSelf") && !in_scope(p, name)) {
        fail(p, "undeclared reference to '%s'", name);
        free(name);
        return NULL;
    }
    p->uses_old_self |= !strcmp(name, "oldSelf") && !in_scope(p, name);
    n = node(CN_IDENT);
    n->str = name;
    n->len = strlen(name);
    n->depth = 1;
    return n;
}

static struct cel_node *literal_int(struct parser *p, int negate)
{
    struct cel_node *n = node(CN_INT);

    n->depth = 1;
    if (p->tok.u > (uint64_t)INT64_MAX + (negate ? 1u : 0u)) {
        fail(p, "invalid int literal");
        free(n);
        return NULL;
    }
    if (negate)
        n->i = p->tok.u == (uint64_t)INT64_MAX + 1u ? INT64_MIN : -(int64_t)p->tok.u;
    else
        n->i = (int64_t)p->tok.u;
    advance(p);
    return n;
}

static struct cel_node *primary(struct parser *p)
{
    struct cel_node *n;

    switch (p->tok.kind) {
    case CT_IDENT:
        return ident(p);
    case CT_INT:
        return literal_int(p, 0);
    case CT_UINT:
        n = node(CN_UINT);
        n->u = p->tok.u;
        break;
    case CT_DOUBLE:
        n = node(CN_DOUBLE);
        n->d = p->tok.d;
        break;
    case CT_STRING:
        n = node(CN_STRING);
        n->str = p->tok.text;
        n->len = p->tok.len;
        p->tok.text = NULL;
        break;
    case CT_TRUE:
    case CT_FALSE:
        n = node(CN_BOOL);
        n->i = p->tok.kind == CT_TRUE;
        break;
    case CT_NULL:
        n = node(CN_NULL);
        break;
    case CT_LPAREN:
        advance(p);
        n = parse_expr(p);
        if (n && !expect(p, CT_RPAREN, "')'")) {
            ts__cel_node_free(n);
            return NULL;
        }
        return n;
    case CT_LBRACKET:
        advance(p);
        n = node(CN_LIST);
        if (!parse_args(p, CT_RBRACKET, &n->args, &n->n_args, 1)) {
            ts__cel_node_free(n);
            return NULL;
        }
        return seal(p, n);
    case CT_LBRACE:
        fail(p, "map literals are not supported");
        return NULL;
    case CT_EOF:
        fail(p, "syntax error: unexpected end of input");
        return NULL;
    default:
        fail(p, "syntax error: unexpected token");
        return NULL;
    }
    n->depth = 1;
    advance(p);
    return n;
}

static struct cel_node *unary(struct parser *p)
{
    struct cel_node *n;
    int nots = 0, negs = 0;

    while (p->tok.kind == CT_NOT || p->tok.kind == CT_MINUS) {
        if (p->tok.kind == CT_MINUS && peek(p) == CT_INT)
            break; /* a negative literal: -9223372036854775808 fits */
        if (p->tok.kind == CT_NOT)
            nots++;
        else
            negs++;
        if (nots && negs) {
            fail(p, "syntax error: mixed unary operators");
            return NULL;
        }
        if (nots + negs > TS_CEL_MAX_DEPTH) {
            fail(p, "expression nests more than %d levels", TS_CEL_MAX_DEPTH);
            return NULL;
        }
        advance(p);
    }
    if (p->failed)
        return NULL;
    if (p->tok.kind == CT_MINUS) {
        advance(p);
        n = suffixes(p, literal_int(p, 1));
    } else {
        n = suffixes(p, primary(p));
    }
    for (int k = nots + negs; n && k > 0; k--) {
        struct cel_node *u = node(nots ? CN_NOT : CN_NEG);

        u->a = n;
        n = seal(p, u);
    }
    return n;
}

static struct cel_node *multiplicative(struct parser *p)
{
    struct cel_node *n = unary(p);

    while (n && (p->tok.kind == CT_STAR || p->tok.kind == CT_SLASH || p->tok.kind == CT_PERCENT)) {
        enum cel_tok op = p->tok.kind;

        advance(p);
        n = node2(p, CN_BINARY, (int)op, n, unary(p));
    }
    return n;
}

static struct cel_node *additive(struct parser *p)
{
    struct cel_node *n = multiplicative(p);

    while (n && (p->tok.kind == CT_PLUS || p->tok.kind == CT_MINUS)) {
        enum cel_tok op = p->tok.kind;

        advance(p);
        n = node2(p, CN_BINARY, (int)op, n, multiplicative(p));
    }
    return n;
}

static int is_relation(enum cel_tok k)
{
    return k == CT_LT || k == CT_LE || k == CT_GT || k == CT_GE || k == CT_EQ || k == CT_NE ||
           k == CT_IN;
}

static struct cel_node *relation(struct parser *p)
{
    struct cel_node *n = additive(p);

    while (n && is_relation(p->tok.kind)) {
        enum cel_tok op = p->tok.kind;

        advance(p);
        n = node2(p, CN_BINARY, (int)op, n, additive(p));
    }
    return n;
}

static struct cel_node *conjunction(struct parser *p)
{
    struct cel_node *n = relation(p);

    while (n && accept(p, CT_AND))
        n = node2(p, CN_AND, 0, n, relation(p));
    return n;
}

static struct cel_node *disjunction(struct parser *p)
{
    struct cel_node *n = conjunction(p);

    while (n && accept(p, CT_OR))
        n = node2(p, CN_OR, 0, n, conjunction(p));
    return n;
}

static struct cel_node *parse_expr(struct parser *p)
{
    struct cel_node *n, *t, *f, *c;

    if (p->failed)
        return NULL;
    if (++p->nest > TS_CEL_MAX_DEPTH) {
        fail(p, "expression nests more than %d levels", TS_CEL_MAX_DEPTH);
        p->nest--;
        return NULL;
    }
    n = disjunction(p);
    if (n && accept(p, CT_QUESTION)) {
        t = disjunction(p);
        if (t && !expect(p, CT_COLON, "':'")) {
            ts__cel_node_free(t);
            t = NULL;
        }
        f = t ? parse_expr(p) : NULL;
        if (!t || !f) {
            ts__cel_node_free(n);
            ts__cel_node_free(t);
            ts__cel_node_free(f);
            n = NULL;
        } else {
            c = node(CN_COND);
            c->a = n;
            c->b = t;
            c->c = f;
            n = seal(p, c);
        }
    }
    p->nest--;
    if (p->failed) {
        ts__cel_node_free(n);
        return NULL;
    }
    return n;
}

struct ts_cel_prog *ts_cel_compile(const char *src, struct ts_buf *err)
{
    struct parser p;
    struct cel_node *root;
    struct ts_cel_prog *prog;

    memset(&p, 0, sizeof(p));
    p.lx.src = src ? src : "";
    p.err = err;
    advance(&p);
    root = parse_expr(&p);
    if (root && p.tok.kind != CT_EOF)
        fail(&p, "syntax error: unexpected token after the expression");
    free(p.tok.text);
    if (p.failed || !root) {
        if (!p.failed)
            fail(&p, "syntax error");
        ts__cel_node_free(root);
        return NULL;
    }
    prog = ts_xcalloc(1, sizeof(*prog));
    prog->root = root;
    prog->uses_old_self = p.uses_old_self;
    return prog;
}

void ts_cel_free(struct ts_cel_prog *p)
{
    if (!p)
        return;
    ts__cel_node_free(p->root);
    free(p);
}

int ts_cel_uses_old_self(const struct ts_cel_prog *p)
{
    return p && p->uses_old_self;
}
