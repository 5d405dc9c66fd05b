/*
 * cel_eval.c - evaluation of a CEL syntax tree (cel_int.h) over JSON
 * values, with CEL's error semantics: an error is a value that flows up
 * through every operator except && and ||, which let the side that
 * decides the result absorb an error on the other (false && error is
 * false), and all / exists, which do the same over their elements.
 *
 * Every evaluated node costs a step and building a string or list costs
 * steps by its size, so TS_CEL_MAX_STEPS bounds both time and memory.
 */
#include "api/cel_int.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

#define NO_OVERLOAD "no such overload"

struct scope {
    const char *name;
    struct cel_val val;
    const struct scope *up;
};

static struct cel_val eval(struct cel_ctx *x, const struct cel_node *n, const struct scope *sc);

static int charge(struct cel_ctx *x, size_t units)
{
    x->steps -= (long)(units > (size_t)TS_CEL_MAX_STEPS ? (size_t)TS_CEL_MAX_STEPS : units);
    return x->steps >= 0;
}

static struct cel_val cost_exceeded(struct cel_ctx *x)
{
    return ts__cel_err(x, "operation cancelled: actual cost limit exceeded");
}

static struct cel_val overflow(struct cel_ctx *x)
{
    return ts__cel_err(x, "integer overflow");
}

static struct cel_val uint_val(uint64_t u)
{
    struct cel_val v = {.t = CV_UINT};

    v.u = u;
    return v;
}

static struct cel_val dbl_val(double d)
{
    struct cel_val v = {.t = CV_DOUBLE};

    v.d = d;
    return v;
}

static struct cel_val built_list(struct cel_val *items, size_t n)
{
    struct cel_val v = {.t = CV_LIST};

    v.items = items;
    v.n = n;
    return v;
}

static struct cel_val variable(struct cel_ctx *x, const struct cel_node *n, const struct scope *sc)
{
    for (; sc; sc = sc->up)
        if (!strcmp(sc->name, n->str))
            return sc->val;
    if (!strcmp(n->str, "self"))
        return ts__cel_from_json(x->vars->self, x->vars->schema);
    if (!x->vars->old_self)
        return ts__cel_err(x, "no such attribute: %s", n->str);
    return ts__cel_from_json(x->vars->old_self, x->vars->schema);
}

static struct cel_val select_field(struct cel_ctx *x, const struct cel_node *n,
                                   const struct scope *sc, int test_only)
{
    struct cel_val m = eval(x, n->a, sc), out;

    if (m.t == CV_ERR)
        return m;
    if (m.t != CV_MAP)
        return ts__cel_err(x, NO_OVERLOAD);
    if (ts__cel_map_get(&m, n->str, n->len, &out))
        return test_only ? ts__cel_bool(1) : out;
    return test_only ? ts__cel_bool(0) : ts__cel_err(x, "no such key: %s", n->str);
}

/* An int index from an int, a uint, or a double with an integral value. */
static int as_index(const struct cel_val *v, int64_t *out)
{
    if (v->t == CV_INT)
        *out = v->i;
    else if (v->t == CV_UINT && v->u <= (uint64_t)INT64_MAX)
        *out = (int64_t)v->u;
    else if (v->t == CV_DOUBLE && floor(v->d) == v->d && fabs(v->d) < 9.0e18)
        *out = (int64_t)v->d;
    else
        return 0;
    return 1;
}

static struct cel_val index_value(struct cel_ctx *x, const struct cel_node *n,
                                  const struct scope *sc)
{
    struct cel_val a = eval(x, n->a, sc), b, out;
    int64_t i;

    if (a.t == CV_ERR)
        return a;
    b = eval(x, n->b, sc);
    if (b.t == CV_ERR)
        return b;
    if (a.t == CV_LIST) {
        if (!as_index(&b, &i))
            return ts__cel_err(x, NO_OVERLOAD);
        if (i < 0 || (uint64_t)i >= ts__cel_list_len(&a))
            return ts__cel_err(x, "index out of bounds: %" PRId64, i);
        if (!charge(x, a.n / 16))
            return cost_exceeded(x);
        return ts__cel_list_items(x, &a)[i];
    }
    if (a.t == CV_MAP && b.t == CV_STRING) {
        if (ts__cel_map_get(&a, b.s, b.n, &out))
            return out;
        return ts__cel_err(x, "no such key: %.*s", (int)(b.n > 256 ? 256 : b.n), b.s);
    }
    return ts__cel_err(x, NO_OVERLOAD);
}

static size_t utf8_len(const char *s, size_t n)
{
    size_t cps = 0;

    for (size_t i = 0; i < n; i++)
        cps += ((unsigned char)s[i] & 0xC0) != 0x80;
    return cps;
}

static int has_sub(const struct cel_val *s, const struct cel_val *sub, int where)
{
    if (sub->n > s->n)
        return 0;
    if (where < 0)
        return !memcmp(s->s, sub->s, sub->n);
    if (where > 0)
        return !memcmp(s->s + s->n - sub->n, sub->s, sub->n);
    for (size_t i = 0; i + sub->n <= s->n; i++)
        if (!memcmp(s->s + i, sub->s, sub->n))
            return 1;
    return 0;
}

static struct cel_val arena_str(struct cel_ctx *x, const char *s)
{
    size_t n = strlen(s);
    char *p = ts_arena_alloc(&x->arena, n + 1);

    memcpy(p, s, n + 1);
    return ts__cel_str(p, n);
}

/* The shortest text that reads back as d (Go's strconv 'g', -1). */
static void format_double(double d, char *buf, size_t size)
{
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, size, "%.*g", prec, d);
        if (strtod(buf, NULL) == d)
            return;
    }
}

static struct cel_val convert(struct cel_ctx *x, enum cel_fn fn, const struct cel_val *v)
{
    char buf[64], *end, *tmp;

    switch (fn) {
    case CF_INT:
        if (v->t == CV_INT)
            return *v;
        if (v->t == CV_UINT)
            return v->u <= (uint64_t)INT64_MAX ? ts__cel_int((int64_t)v->u)
                                               : ts__cel_err(x, "range error");
        if (v->t == CV_DOUBLE)
            return v->d > -9223372036854775808.0 && v->d < 9223372036854775808.0
                       ? ts__cel_int((int64_t)v->d)
                       : ts__cel_err(x, "range error");
        if (v->t == CV_STRING) {
            int64_t i;

            tmp = ts_xstrndup(v->s, v->n);
            errno = 0;
            i = strtoll(tmp, &end, 10);
            if (errno || !*tmp || *end) {
                free(tmp);
                return ts__cel_err(x, "type conversion error");
            }
            free(tmp);
            return ts__cel_int(i);
        }
        break;
    case CF_UINT:
        if (v->t == CV_UINT)
            return *v;
        if (v->t == CV_INT)
            return v->i >= 0 ? uint_val((uint64_t)v->i) : ts__cel_err(x, "range error");
        if (v->t == CV_DOUBLE)
            return v->d >= 0 && v->d < 18446744073709551616.0 ? uint_val((uint64_t)v->d)
                                                              : ts__cel_err(x, "range error");
        break;
    case CF_DOUBLE:
        if (v->t == CV_DOUBLE)
            return *v;
        if (v->t == CV_INT)
            return dbl_val((double)v->i);
        if (v->t == CV_UINT)
            return dbl_val((double)v->u);
        if (v->t == CV_STRING) {
            double d;

            tmp = ts_xstrndup(v->s, v->n);
            d = strtod(tmp, &end);
            if (!*tmp || *end) {
                free(tmp);
                return ts__cel_err(x, "type conversion error");
            }
            free(tmp);
            return dbl_val(d);
        }
        break;
    case CF_STRING:
        if (v->t == CV_STRING)
            return *v;
        if (v->t == CV_INT)
            snprintf(buf, sizeof(buf), "%" PRId64, v->i);
        else if (v->t == CV_UINT)
            snprintf(buf, sizeof(buf), "%" PRIu64, v->u);
        else if (v->t == CV_DOUBLE)
            format_double(v->d, buf, sizeof(buf));
        else if (v->t == CV_BOOL)
            snprintf(buf, sizeof(buf), "%s", v->b ? "true" : "false");
        else
            break;
        return arena_str(x, buf);
    default:
        break;
    }
    return ts__cel_err(x, NO_OVERLOAD);
}

static struct cel_val call(struct cel_ctx *x, const struct cel_node *n, const struct scope *sc)
{
    struct cel_val t, arg = {.t = CV_NULL};

    /* size(x) and the conversions take their operand as the argument,
     * methods as the target */
    t = eval(x, n->a ? n->a : n->args[0], sc);
    if (t.t == CV_ERR)
        return t;
    if (n->a && n->n_args) {
        arg = eval(x, n->args[0], sc);
        if (arg.t == CV_ERR)
            return arg;
    }
    switch ((enum cel_fn)n->op) {
    case CF_SIZE:
        if (t.t == CV_STRING)
            return ts__cel_int((int64_t)utf8_len(t.s, t.n));
        if (t.t == CV_LIST || t.t == CV_MAP)
            return ts__cel_int((int64_t)t.n);
        break;
    case CF_STARTS_WITH:
    case CF_ENDS_WITH:
    case CF_CONTAINS:
        if (t.t != CV_STRING || arg.t != CV_STRING)
            break;
        if (!charge(x, t.n / 16))
            return cost_exceeded(x);
        return ts__cel_bool(
            has_sub(&t, &arg, n->op == CF_STARTS_WITH ? -1 : (n->op == CF_ENDS_WITH)));
    default:
        return convert(x, (enum cel_fn)n->op, &t);
    }
    return ts__cel_err(x, NO_OVERLOAD);
}

static struct cel_val concat(struct cel_ctx *x, const struct cel_val *a, const struct cel_val *b)
{
    if (!charge(x, (a->n + b->n) / 16))
        return cost_exceeded(x);
    if (a->t == CV_STRING) {
        char *s = ts_arena_alloc(&x->arena, a->n + b->n + 1);

        if (a->n)
            memcpy(s, a->s, a->n);
        if (b->n)
            memcpy(s + a->n, b->s, b->n);
        s[a->n + b->n] = '\0';
        return ts__cel_str(s, a->n + b->n);
    }
    {
        struct cel_val *items = ts_arena_alloc(&x->arena, (a->n + b->n + 1) * sizeof(*items));
        const struct cel_val *ia = ts__cel_list_items(x, a), *ib = ts__cel_list_items(x, b);

        if (a->n)
            memcpy(items, ia, a->n * sizeof(*items));
        if (b->n)
            memcpy(items + a->n, ib, b->n * sizeof(*items));
        return built_list(items, a->n + b->n);
    }
}

static struct cel_val int_arith(struct cel_ctx *x, int op, int64_t a, int64_t b)
{
    int64_t r;

    switch (op) {
    case CT_PLUS:
        return __builtin_add_overflow(a, b, &r) ? overflow(x) : ts__cel_int(r);
    case CT_MINUS:
        return __builtin_sub_overflow(a, b, &r) ? overflow(x) : ts__cel_int(r);
    case CT_STAR:
        return __builtin_mul_overflow(a, b, &r) ? overflow(x) : ts__cel_int(r);
    case CT_SLASH:
        if (!b)
            return ts__cel_err(x, "division by zero");
        return a == INT64_MIN && b == -1 ? overflow(x) : ts__cel_int(a / b);
    default:
        if (!b)
            return ts__cel_err(x, "modulus by zero");
        return a == INT64_MIN && b == -1 ? overflow(x) : ts__cel_int(a % b);
    }
}

static struct cel_val uint_arith(struct cel_ctx *x, int op, uint64_t a, uint64_t b)
{
    uint64_t r;

    switch (op) {
    case CT_PLUS:
        return __builtin_add_overflow(a, b, &r) ? overflow(x) : uint_val(r);
    case CT_MINUS:
        return __builtin_sub_overflow(a, b, &r) ? overflow(x) : uint_val(r);
    case CT_STAR:
        return __builtin_mul_overflow(a, b, &r) ? overflow(x) : uint_val(r);
    case CT_SLASH:
        return b ? uint_val(a / b) : ts__cel_err(x, "division by zero");
    default:
        return b ? uint_val(a % b) : ts__cel_err(x, "modulus by zero");
    }
}

static struct cel_val arith(struct cel_ctx *x, int op, const struct cel_val *a,
                            const struct cel_val *b)
{
    if (a->t != b->t)
        return ts__cel_err(x, NO_OVERLOAD);
    if (a->t == CV_INT)
        return int_arith(x, op, a->i, b->i);
    if (a->t == CV_UINT)
        return uint_arith(x, op, a->u, b->u);
    if (a->t == CV_DOUBLE && op != CT_PERCENT) {
        switch (op) {
        case CT_PLUS:
            return dbl_val(a->d + b->d);
        case CT_MINUS:
            return dbl_val(a->d - b->d);
        case CT_STAR:
            return dbl_val(a->d * b->d);
        default:
            return dbl_val(a->d / b->d);
        }
    }
    if (op == CT_PLUS && (a->t == CV_STRING || a->t == CV_LIST))
        return concat(x, a, b);
    return ts__cel_err(x, NO_OVERLOAD);
}

static struct cel_val membership(struct cel_ctx *x, const struct cel_val *a,
                                 const struct cel_val *b)
{
    struct cel_val v;

    if (b->t == CV_LIST) {
        const struct cel_val *items = ts__cel_list_items(x, b);

        if (!charge(x, b->n))
            return cost_exceeded(x);
        for (size_t i = 0; i < b->n; i++)
            if (ts__cel_equal(a, &items[i]))
                return ts__cel_bool(1);
        return ts__cel_bool(0);
    }
    if (b->t == CV_MAP && a->t == CV_STRING)
        return ts__cel_bool(ts__cel_map_get(b, a->s, a->n, &v));
    if (b->t == CV_MAP)
        return ts__cel_bool(0);
    return ts__cel_err(x, NO_OVERLOAD);
}

static int is_number(enum cel_type t)
{
    return t == CV_INT || t == CV_UINT || t == CV_DOUBLE;
}

static struct cel_val binary(struct cel_ctx *x, const struct cel_node *n, const struct scope *sc)
{
    struct cel_val a = eval(x, n->a, sc), b;
    int c;

    if (a.t == CV_ERR)
        return a;
    b = eval(x, n->b, sc);
    if (b.t == CV_ERR)
        return b;
    switch (n->op) {
    case CT_EQ:
        return ts__cel_bool(ts__cel_equal(&a, &b));
    case CT_NE:
        return ts__cel_bool(!ts__cel_equal(&a, &b));
    case CT_LT:
    case CT_LE:
    case CT_GT:
    case CT_GE:
        c = ts__cel_compare(&a, &b);
        if (c == 2)
            return is_number(a.t) && is_number(b.t)
                       ? ts__cel_bool(0) /* a NaN: unordered, every comparison false */
                       : ts__cel_err(x, NO_OVERLOAD);
        return ts__cel_bool(n->op == CT_LT   ? c < 0
                            : n->op == CT_LE ? c <= 0
                            : n->op == CT_GT ? c > 0
                                             : c >= 0);
    case CT_IN:
        return membership(x, &a, &b);
    default:
        return arith(x, n->op, &a, &b);
    }
}

/* && (is_and) and ||: the deciding value wins over an error. */
static struct cel_val logic(struct cel_ctx *x, const struct cel_node *n, const struct scope *sc,
                            int is_and)
{
    struct cel_val a = eval(x, n->a, sc), b;
    int decide = is_and ? 0 : 1;

    if (a.t == CV_BOOL && a.b == decide)
        return a;
    b = eval(x, n->b, sc);
    if (b.t == CV_BOOL && b.b == decide)
        return b;
    if (a.t == CV_ERR)
        return a;
    if (b.t == CV_ERR)
        return b;
    if (a.t != CV_BOOL || b.t != CV_BOOL)
        return ts__cel_err(x, NO_OVERLOAD);
    return ts__cel_bool(!decide);
}

/* The elements a macro ranges over: a list's items or a map's keys. */
static const struct cel_val *range_of(struct cel_ctx *x, const struct cel_val *r, size_t *n)
{
    struct cel_val *keys;
    const cJSON *c;
    size_t i = 0;

    *n = r->n;
    if (r->t == CV_LIST)
        return ts__cel_list_items(x, r);
    keys = ts_arena_alloc(&x->arena, (r->n ? r->n : 1) * sizeof(*keys));
    for (c = r->json ? r->json->child : NULL; c && i < r->n; c = c->next)
        keys[i++] = ts__cel_str(c->string, strlen(c->string));
    *n = i;
    return keys;
}

static struct cel_val macro(struct cel_ctx *x, const struct cel_node *n, const struct scope *sc)
{
    struct cel_val r = eval(x, n->a, sc), err = {.t = CV_NULL}, *out = NULL;
    const struct cel_val *items;
    struct scope var = {n->str, {.t = CV_NULL}, sc};
    size_t len, kept = 0, count = 0;
    enum cel_macro m = (enum cel_macro)n->op;

    if (r.t == CV_ERR)
        return r;
    if (r.t != CV_LIST && r.t != CV_MAP)
        return ts__cel_err(x, NO_OVERLOAD);
    if (!charge(x, r.n / 4))
        return cost_exceeded(x);
    items = range_of(x, &r, &len);
    if (m == CM_FILTER || m == CM_MAP)
        out = ts_arena_alloc(&x->arena, (len ? len : 1) * sizeof(*out));
    for (size_t i = 0; i < len; i++) {
        struct cel_val v = {.t = CV_BOOL};

        var.val = items[i];
        v.b = 1;
        if (n->b) {
            v = eval(x, n->b, &var);
            if (v.t != CV_BOOL && v.t != CV_ERR)
                v = ts__cel_err(x, NO_OVERLOAD);
        }
        if (v.t == CV_ERR && x->steps < 0)
            return v;
        if (m == CM_ALL || m == CM_EXISTS) {
            if (v.t == CV_BOOL && v.b == (m == CM_EXISTS))
                return v;
            if (v.t == CV_ERR && err.t != CV_ERR)
                err = v;
            continue;
        }
        if (v.t == CV_ERR)
            return v;
        if (m == CM_EXISTS_ONE) {
            count += v.b;
            continue;
        }
        if (!v.b)
            continue;
        if (m == CM_MAP) {
            v = eval(x, n->c, &var);
            if (v.t == CV_ERR)
                return v;
        } else {
            v = items[i];
        }
        out[kept++] = v;
    }
    if (err.t == CV_ERR)
        return err;
    switch (m) {
    case CM_ALL:
        return ts__cel_bool(1);
    case CM_EXISTS:
        return ts__cel_bool(0);
    case CM_EXISTS_ONE:
        return ts__cel_bool(count == 1);
    default:
        return built_list(out, kept);
    }
}

static struct cel_val list_literal(struct cel_ctx *x, const struct cel_node *n,
                                   const struct scope *sc)
{
    struct cel_val *items = ts_arena_alloc(&x->arena, (n->n_args + 1) * sizeof(*items));

    for (size_t i = 0; i < n->n_args; i++) {
        items[i] = eval(x, n->args[i], sc);
        if (items[i].t == CV_ERR)
            return items[i];
    }
    return built_list(items, n->n_args);
}

static struct cel_val eval(struct cel_ctx *x, const struct cel_node *n, const struct scope *sc)
{
    struct cel_val v = {.t = CV_NULL};

    if (!charge(x, 1))
        return cost_exceeded(x);
    switch (n->kind) {
    case CN_INT:
        return ts__cel_int(n->i);
    case CN_UINT:
        return uint_val(n->u);
    case CN_DOUBLE:
        return dbl_val(n->d);
    case CN_STRING:
        return ts__cel_str(n->str, n->len);
    case CN_BOOL:
        return ts__cel_bool((int)n->i);
    case CN_NULL:
        return v;
    case CN_LIST:
        return list_literal(x, n, sc);
    case CN_IDENT:
        return variable(x, n, sc);
    case CN_SELECT:
        return select_field(x, n, sc, 0);
    case CN_HAS:
        return select_field(x, n, sc, 1);
    case CN_INDEX:
        return index_value(x, n, sc);
    case CN_CALL:
        return call(x, n, sc);
    case CN_NOT:
        v = eval(x, n->a, sc);
        if (v.t == CV_BOOL)
            return ts__cel_bool(!v.b);
        return v.t == CV_ERR ? v : ts__cel_err(x, NO_OVERLOAD);
    case CN_NEG:
        v = eval(x, n->a, sc);
        if (v.t == CV_INT)
            return v.i == INT64_MIN ? overflow(x) : ts__cel_int(-v.i);
        if (v.t == CV_DOUBLE)
            return dbl_val(-v.d);
        return v.t == CV_ERR ? v : ts__cel_err(x, NO_OVERLOAD);
    case CN_BINARY:
        return binary(x, n, sc);
    case CN_AND:
        return logic(x, n, sc, 1);
    case CN_OR:
        return logic(x, n, sc, 0);
    case CN_COND:
        v = eval(x, n->a, sc);
        if (v.t == CV_ERR)
            return v;
        if (v.t != CV_BOOL)
            return ts__cel_err(x, NO_OVERLOAD);
        return eval(x, v.b ? n->b : n->c, sc);
    case CN_MACRO:
        return macro(x, n, sc);
    }
    return ts__cel_err(x, NO_OVERLOAD);
}

/* Runs p; *res is valid until x's arena is released. */
static void run(const struct ts_cel_prog *p, const struct ts_cel_vars *v, struct cel_ctx *x,
                struct cel_val *res)
{
    static const struct ts_cel_vars none = {NULL, NULL, NULL};
    struct ts_arena init = TS_ARENA_INIT;

    x->arena = init;
    x->steps = TS_CEL_MAX_STEPS;
    x->vars = v ? v : &none;
    *res = eval(x, p->root, NULL);
}

int ts_cel_eval(const struct ts_cel_prog *p, const struct ts_cel_vars *v, cJSON **out,
                struct ts_buf *err)
{
    struct cel_ctx x;
    struct cel_val r;
    int rc = 0;

    *out = NULL;
    run(p, v, &x, &r);
    if (r.t == CV_ERR) {
        if (err)
            ts_buf_add(err, r.s, r.n);
        rc = -1;
    } else {
        *out = ts__cel_to_json(&r);
    }
    ts_arena_release(&x.arena);
    return rc;
}

int ts_cel_eval_bool(const struct ts_cel_prog *p, const struct ts_cel_vars *v, struct ts_buf *err)
{
    struct cel_ctx x;
    struct cel_val r;
    int rc;

    run(p, v, &x, &r);
    if (r.t == CV_BOOL) {
        rc = r.b;
    } else {
        rc = -1;
        if (err && r.t == CV_ERR)
            ts_buf_add(err, r.s, r.n);
        else if (err)
            ts_buf_adds(err, NO_OVERLOAD);
    }
    ts_arena_release(&x.arena);
    return rc;
}

int ts_cel_eval_string(const struct ts_cel_prog *p, const struct ts_cel_vars *v, struct ts_buf *out)
{
    struct cel_ctx x;
    struct cel_val r;
    int rc = 0;

    run(p, v, &x, &r);
    if (r.t == CV_STRING) {
        ts_buf_add(out, r.s, r.n);
    } else {
        rc = -1;
        if (r.t == CV_ERR)
            ts_buf_add(out, r.s, r.n);
        else
            ts_buf_addf(out, "expected a string, got %s", ts__cel_type_name(r.t));
    }
    ts_arena_release(&x.arena);
    return rc;
}
