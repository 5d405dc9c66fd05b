/*
 * sel.c - label and field selector parsing and matching (see sel.h).
 */
#include "apiserver/sel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/names.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/parse.h"

enum tok {
    T_END = 0,
    T_ID,
    T_NOT,   /* ! */
    T_EQ,    /* = */
    T_DEQ,   /* == */
    T_NEQ,   /* != */
    T_GT,    /* > */
    T_LT,    /* < */
    T_OPEN,  /* ( */
    T_CLOSE, /* ) */
    T_COMMA, /* , */
    T_IN,    /* in */
    T_NOTIN, /* notin */
};

struct lex {
    const char *p;
    enum tok tok;
    char id[320];
};

static int special(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == ',' || c == '(' || c == ')' || c == '!' ||
           c == '=' || c == '<' || c == '>';
}

static enum tok word(struct lex *l)
{
    size_t n = 0;

    while (*l->p && !special(*l->p)) {
        if (n + 1 < sizeof(l->id))
            l->id[n++] = *l->p;
        l->p++;
    }
    l->id[n] = '\0';
    if (!strcmp(l->id, "in"))
        return T_IN;
    if (!strcmp(l->id, "notin"))
        return T_NOTIN;
    return T_ID;
}

static enum tok next(struct lex *l)
{
    char c;

    while (*l->p == ' ' || *l->p == '\t' || *l->p == '\n')
        l->p++;
    c = *l->p;
    l->id[0] = '\0';
    if (!c)
        return l->tok = T_END;
    if (!special(c))
        return l->tok = word(l);
    l->p++;
    if (c == '!' && *l->p == '=')
        return l->p++, l->tok = T_NEQ;
    if (c == '=' && *l->p == '=')
        return l->p++, l->tok = T_DEQ;
    switch (c) {
    case '!':
        return l->tok = T_NOT;
    case '=':
        return l->tok = T_EQ;
    case '<':
        return l->tok = T_LT;
    case '>':
        return l->tok = T_GT;
    case '(':
        return l->tok = T_OPEN;
    case ')':
        return l->tok = T_CLOSE;
    default:
        return l->tok = T_COMMA;
    }
}

static struct ts_sel_req *add_req(struct ts_sel *sel, const char *key, enum ts_sel_op op)
{
    struct ts_sel_req *r;

    TS_GROW(sel->reqs, sel->cap, sel->n + 1);
    r = &sel->reqs[sel->n++];
    r->key = ts_xstrdup(key);
    r->op = op;
    ts_strlist_init(&r->values);
    return r;
}

static int bad(struct ts_err *err, const char *what, const char *found)
{
    return ts_err_set(err, TS_EPARSE, "unable to parse requirement: found '%s', expected: %s",
                      found, what);
}

static int check_key(const char *key, struct ts_err *err)
{
    if (!ts_names_is_qualified(key))
        return ts_err_set(err, TS_EPARSE,
                          "unable to parse requirement: invalid label key \"%s\": name part must "
                          "consist of alphanumeric characters, '-', '_' or '.'",
                          key);
    return 0;
}

static int check_value(const char *v, struct ts_err *err)
{
    if (!ts_names_is_label_value(v))
        return ts_err_set(err, TS_EPARSE,
                          "unable to parse requirement: invalid label value: \"%s\": a valid "
                          "label must be an empty string or consist of alphanumeric characters, "
                          "'-', '_' or '.'",
                          v);
    return 0;
}

/* ( v1, v2 ) after in/notin */
static int parse_set(struct lex *l, struct ts_sel_req *r, struct ts_err *err)
{
    if (next(l) != T_OPEN)
        return bad(err, "'('", l->id);
    for (;;) {
        next(l);
        if (l->tok == T_CLOSE && r->values.n == 0)
            return 0;
        if (l->tok == T_ID) {
            if (check_value(l->id, err))
                return TS_EPARSE;
            ts_strlist_push(&r->values, l->id);
            next(l);
        } else if (l->tok == T_COMMA || l->tok == T_CLOSE) {
            ts_strlist_push(&r->values, ""); /* empty value */
        } else {
            return bad(err, "',', ')' or identifier", l->id);
        }
        if (l->tok == T_CLOSE)
            return 0;
        if (l->tok != T_COMMA)
            return bad(err, "',' or ')'", l->id);
    }
}

static int parse_value_op(struct lex *l, struct ts_sel *sel, const char *key, enum tok op,
                          struct ts_err *err)
{
    enum ts_sel_op o = op == T_NEQ  ? TS_SEL_NEQ
                       : op == T_GT ? TS_SEL_GT
                       : op == T_LT ? TS_SEL_LT
                                    : TS_SEL_EQ;
    struct ts_sel_req *r;
    int64_t num;

    next(l);
    if (l->tok != T_ID && l->tok != T_END && l->tok != T_COMMA)
        return bad(err, "identifier", l->id);
    if ((o == TS_SEL_GT || o == TS_SEL_LT) && ts_parse_i64_c(l->id, &num))
        return ts_err_set(err, TS_EPARSE,
                          "unable to parse requirement: for 'Gt', 'Lt' operators, the value must "
                          "be an integer");
    if (check_value(l->id, err))
        return TS_EPARSE;
    r = add_req(sel, key, o);
    ts_strlist_push(&r->values, l->id);
    if (l->tok == T_ID)
        next(l);
    return 0;
}

static int parse_req(struct lex *l, struct ts_sel *sel, struct ts_err *err)
{
    char key[320];
    enum tok op;

    if (l->tok == T_NOT) {
        if (next(l) != T_ID)
            return bad(err, "identifier", l->id);
        if (check_key(l->id, err))
            return TS_EPARSE;
        add_req(sel, l->id, TS_SEL_NOT_EXISTS);
        next(l);
        return 0;
    }
    if (l->tok != T_ID)
        return bad(err, "identifier", l->id);
    if (check_key(l->id, err))
        return TS_EPARSE;
    snprintf(key, sizeof(key), "%s", l->id);
    op = next(l);
    if (op == T_END || op == T_COMMA) {
        add_req(sel, key, TS_SEL_EXISTS);
        return 0;
    }
    if (op == T_IN || op == T_NOTIN) {
        struct ts_sel_req *r = add_req(sel, key, op == T_IN ? TS_SEL_IN : TS_SEL_NOTIN);

        if (parse_set(l, r, err))
            return TS_EPARSE;
        next(l);
        return 0;
    }
    if (op == T_EQ || op == T_DEQ || op == T_NEQ || op == T_GT || op == T_LT)
        return parse_value_op(l, sel, key, op, err);
    return bad(err, "'=', '!=', '==', 'in', notin'", l->id);
}

int ts_sel_parse_labels(const char *s, struct ts_sel *out, struct ts_err *err)
{
    struct lex l = {.p = s ? s : ""};

    if (next(&l) == T_END)
        return 0;
    for (;;) {
        if (parse_req(&l, out, err)) {
            ts_sel_release(out);
            return TS_EPARSE;
        }
        if (l.tok == T_END)
            return 0;
        if (l.tok != T_COMMA) {
            bad(err, "',' or 'end of string'", l.id);
            ts_sel_release(out);
            return TS_EPARSE;
        }
        next(&l);
    }
}

/* Unescapes one field-selector term [p, e) into out. */
static void unescape(const char *p, const char *e, struct ts_buf *out)
{
    ts_buf_reset(out);
    for (; p < e; p++) {
        if (*p == '\\' && p + 1 < e)
            p++;
        ts_buf_addc(out, *p);
    }
}

static const char *term_end(const char *p)
{
    for (; *p && *p != ','; p++)
        if (*p == '\\' && p[1])
            p++;
    return p;
}

static const char *find_op(const char *p, const char *e, enum ts_sel_op *op, size_t *oplen)
{
    for (; p < e; p++) {
        if (*p == '\\' && p + 1 < e) {
            p++;
            continue;
        }
        if (*p == '!' && p + 1 < e && p[1] == '=')
            return *op = TS_SEL_NEQ, *oplen = 2, p;
        if (*p == '=')
            return *op = TS_SEL_EQ, *oplen = (p + 1 < e && p[1] == '=') ? 2 : 1, p;
    }
    return NULL;
}

int ts_sel_parse_fields(const char *s, struct ts_sel *out, struct ts_err *err)
{
    struct ts_buf key = TS_BUF_INIT, val = TS_BUF_INIT;
    const char *p = s ? s : "";
    int rc = 0;

    while (*p && rc == 0) {
        const char *e = term_end(p), *o;
        enum ts_sel_op op;
        size_t oplen;

        if (!(o = find_op(p, e, &op, &oplen))) {
            rc = ts_err_set(err, TS_EPARSE, "invalid selector: '%s'; can't understand '%.*s'", s,
                            (int)(e - p), p);
            break;
        }
        unescape(p, o, &key);
        unescape(o + oplen, e, &val);
        ts_strlist_push(&add_req(out, key.ptr, op)->values, val.ptr);
        p = *e ? e + 1 : e;
    }
    ts_buf_release(&key);
    ts_buf_release(&val);
    if (rc)
        ts_sel_release(out);
    return rc;
}

static int req_matches(const struct ts_sel_req *r, const char *v)
{
    int64_t have, want;

    switch (r->op) {
    case TS_SEL_EQ:
        return v && !strcmp(v, r->values.items[0]);
    case TS_SEL_NEQ:
        return !v || strcmp(v, r->values.items[0]);
    case TS_SEL_IN:
        return v && ts_strlist_index(&r->values, v) >= 0;
    case TS_SEL_NOTIN:
        return !v || ts_strlist_index(&r->values, v) < 0;
    case TS_SEL_EXISTS:
        return v != NULL;
    case TS_SEL_NOT_EXISTS:
        return v == NULL;
    case TS_SEL_GT:
    case TS_SEL_LT:
        if (!v || ts_parse_i64_c(v, &have) || ts_parse_i64_c(r->values.items[0], &want))
            return 0;
        return r->op == TS_SEL_GT ? have > want : have < want;
    }
    return 0;
}

int ts_sel_matches(const struct ts_sel *sel, ts_sel_get_fn get, const void *ctx)
{
    for (size_t i = 0; i < sel->n; i++)
        if (!req_matches(&sel->reqs[i], get(ctx, sel->reqs[i].key)))
            return 0;
    return 1;
}

void ts_sel_release(struct ts_sel *sel)
{
    for (size_t i = 0; i < sel->n; i++) {
        free(sel->reqs[i].key);
        ts_strlist_release(&sel->reqs[i].values);
    }
    free(sel->reqs);
    sel->reqs = NULL;
    sel->n = sel->cap = 0;
}
