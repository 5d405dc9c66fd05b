/*
 * jsonpath.c - compile and evaluate the kubectl JSONPath subset (see
 * jsonpath.h).  Evaluation keeps the current node set in an array and
 * applies one step at a time.
 */
#include "apiserver/jsonpath.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json/json.h"
#include "util/alloc.h"
#include "util/parse.h"

enum step_kind {
    S_FIELD = 0,
    S_INDEX,
    S_WILD,
    S_RECUR,
    S_SLICE,
    S_FILTER,
};

enum cmp_op {
    OP_EXISTS = 0,
    OP_EQ,
    OP_NE,
    OP_LT,
    OP_LE,
    OP_GT,
    OP_GE,
};

struct step {
    enum step_kind kind;
    char *field;
    int64_t idx, lo, hi;
    int has_lo, has_hi;
    struct ts_jsonpath *lhs; /* filter: @-relative path */
    enum cmp_op op;
    cJSON *rhs; /* filter literal */
};

struct ts_jsonpath {
    struct step *steps;
    size_t n, cap;
};

struct nodes {
    const cJSON **v;
    size_t n, cap;
};

static void push(struct nodes *ns, const cJSON *v)
{
    TS_GROW(ns->v, ns->cap, ns->n + 1);
    ns->v[ns->n++] = v;
}

static struct step *add_step(struct ts_jsonpath *p, enum step_kind k)
{
    TS_GROW(p->steps, p->cap, p->n + 1);
    memset(&p->steps[p->n], 0, sizeof(p->steps[0]));
    p->steps[p->n].kind = k;
    return &p->steps[p->n++];
}

static int fail(struct ts_err *err, const char *at)
{
    return ts_err_set(err, TS_EPARSE, "unrecognized character in jsonpath at '%.20s'", at);
}

/* A dotted name: up to '.', '[' or the end; '\' escapes. */
static const char *parse_name(const char *s, const char *end, struct ts_jsonpath *p)
{
    struct ts_buf b = TS_BUF_INIT;

    while (s < end && *s != '.' && *s != '[') {
        if (*s == '\\' && s + 1 < end)
            s++;
        ts_buf_addc(&b, *s++);
    }
    if (!strcmp(b.ptr, "*")) {
        add_step(p, S_WILD);
        ts_buf_release(&b);
    } else {
        add_step(p, S_FIELD)->field = ts_buf_take(&b);
    }
    return s;
}

static int compile_range(const char *s, const char *end, struct ts_jsonpath *p, struct ts_err *err);

static const char *find_close(const char *s, const char *end, const char *close)
{
    char q = 0;
    size_t cl = strlen(close);

    for (; s < end; s++) {
        if (q) {
            if (*s == q)
                q = 0;
        } else if (*s == '\'' || *s == '"') {
            q = *s;
        } else if ((size_t)(end - s) >= cl && !strncmp(s, close, cl)) {
            return s;
        }
    }
    return NULL;
}

static cJSON *parse_literal(const char *s, const char *e)
{
    int64_t n;

    while (s < e && isspace((unsigned char)*s))
        s++;
    while (e > s && isspace((unsigned char)e[-1]))
        e--;
    if (e - s >= 2 && (*s == '\'' || *s == '"') && e[-1] == *s) {
        char *t = ts_xstrndup(s + 1, (size_t)(e - s - 2));
        cJSON *v = cJSON_CreateString(t);

        free(t);
        return v;
    }
    if (e - s == 4 && !strncmp(s, "true", 4))
        return cJSON_CreateTrue();
    if (e - s == 5 && !strncmp(s, "false", 5))
        return cJSON_CreateFalse();
    if (!ts_parse_i64(s, (size_t)(e - s), &n))
        return cJSON_CreateNumber((double)n);
    return NULL;
}

static const char *op_at(const char *s, const char *e, enum cmp_op *op, size_t *len)
{
    static const struct {
        const char *t;
        enum cmp_op op;
    } ops[] = {
        {"==", OP_EQ}, {"!=", OP_NE}, {"<=", OP_LE}, {">=", OP_GE}, {"<", OP_LT}, {">", OP_GT},
    };
    char q = 0;

    for (; s < e; s++) {
        if (q) {
            q = *s == q ? 0 : q;
            continue;
        }
        if (*s == '\'' || *s == '"') {
            q = *s;
            continue;
        }
        for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
            if (!strncmp(s, ops[i].t, strlen(ops[i].t)))
                return *op = ops[i].op, *len = strlen(ops[i].t), s;
    }
    return NULL;
}

static int parse_filter(const char *s, const char *e, struct ts_jsonpath *p, struct ts_err *err)
{
    struct step *st;
    enum cmp_op op = OP_EXISTS;
    size_t oplen = 0;
    const char *o = op_at(s, e, &op, &oplen), *le = o ? o : e;

    while (s < le && isspace((unsigned char)*s))
        s++;
    while (le > s && isspace((unsigned char)le[-1]))
        le--;
    if (s >= le || *s != '@')
        return fail(err, s);
    st = add_step(p, S_FILTER);
    st->lhs = ts_xcalloc(1, sizeof(*st->lhs));
    st->op = op;
    if (compile_range(s + 1, le, st->lhs, err))
        return TS_EPARSE;
    if (o && !(st->rhs = parse_literal(o + oplen, e)))
        return fail(err, o + oplen);
    return 0;
}

static int parse_index(const char *s, const char *e, struct ts_jsonpath *p, struct ts_err *err)
{
    const char *colon = memchr(s, ':', (size_t)(e - s));
    struct step *st;

    if (e - s == 1 && *s == '*')
        return add_step(p, S_WILD), 0;
    if ((*s == '\'' || *s == '"') && e - s >= 2 && e[-1] == *s) {
        add_step(p, S_FIELD)->field = ts_xstrndup(s + 1, (size_t)(e - s - 2));
        return 0;
    }
    if (!colon) {
        st = add_step(p, S_INDEX);
        return ts_parse_i64(s, (size_t)(e - s), &st->idx) ? fail(err, s) : 0;
    }
    st = add_step(p, S_SLICE);
    if ((st->has_lo = colon > s) && ts_parse_i64(s, (size_t)(colon - s), &st->lo))
        return fail(err, s);
    if ((st->has_hi = e > colon + 1) && ts_parse_i64(colon + 1, (size_t)(e - colon - 1), &st->hi))
        return fail(err, s);
    return 0;
}

static const char *parse_bracket(const char *s, const char *end, struct ts_jsonpath *p,
                                 struct ts_err *err)
{
    const char *close;

    if (s + 1 < end && s[1] == '?') {
        if (s + 2 >= end || s[2] != '(' || !(close = find_close(s + 3, end, ")]")))
            return fail(err, s), NULL;
        return parse_filter(s + 3, close, p, err) ? NULL : close + 2;
    }
    if (!(close = find_close(s + 1, end, "]")))
        return fail(err, s), NULL;
    return parse_index(s + 1, close, p, err) ? NULL : close + 1;
}

static int compile_range(const char *s, const char *end, struct ts_jsonpath *p, struct ts_err *err)
{
    if (s < end && *s == '$')
        s++;
    while (s < end) {
        if (*s == '[') {
            if (!(s = parse_bracket(s, end, p, err)))
                return TS_EPARSE;
        } else if (*s == '.') {
            s++;
            if (s < end && *s == '.') {
                add_step(p, S_RECUR);
                s++;
            }
            if (s < end && *s != '[' && *s != '.')
                s = parse_name(s, end, p);
        } else {
            return fail(err, s);
        }
    }
    return 0;
}

int ts_jsonpath_compile(const char *expr, struct ts_jsonpath **out, struct ts_err *err)
{
    struct ts_jsonpath *p = ts_xcalloc(1, sizeof(*p));
    const char *s = expr, *e = expr + strlen(expr);

    while (s < e && isspace((unsigned char)*s))
        s++;
    while (e > s && isspace((unsigned char)e[-1]))
        e--;
    if (e - s >= 2 && *s == '{' && e[-1] == '}')
        s++, e--;
    if (compile_range(s, e, p, err)) {
        ts_jsonpath_free(p);
        *out = NULL;
        return TS_EPARSE;
    }
    *out = p;
    return 0;
}

static void descend(const cJSON *v, struct nodes *out)
{
    const cJSON *c;

    push(out, v);
    if (cJSON_IsObject(v) || cJSON_IsArray(v))
        cJSON_ArrayForEach(c, v) descend(c, out);
}

static int compare(const cJSON *a, enum cmp_op op, const cJSON *b)
{
    double d;

    if (op == OP_EQ || op == OP_NE) {
        int eq = (cJSON_IsNumber(a) && cJSON_IsNumber(b)) ? a->valuedouble == b->valuedouble
                                                          : ts_json_equal(a, b);
        return op == OP_EQ ? eq : !eq;
    }
    if (!cJSON_IsNumber(a) || !cJSON_IsNumber(b))
        return 0;
    d = a->valuedouble - b->valuedouble;
    return op == OP_LT ? d < 0 : op == OP_LE ? d <= 0 : op == OP_GT ? d > 0 : d >= 0;
}

static int filter_ok(const struct step *st, const cJSON *v)
{
    const cJSON *hit[1];
    size_t n = ts_jsonpath_find(st->lhs, v, hit, 1);

    if (st->op == OP_EXISTS)
        return n > 0;
    return n > 0 && compare(hit[0], st->op, st->rhs);
}

static void apply_slice(const struct step *st, const cJSON *v, struct nodes *out)
{
    int64_t n = cJSON_GetArraySize(v), lo = st->has_lo ? st->lo : 0, hi = st->has_hi ? st->hi : n;

    lo = lo < 0 ? lo + n : lo;
    hi = hi < 0 ? hi + n : hi;
    for (int64_t i = lo < 0 ? 0 : lo; i < hi && i < n; i++)
        push(out, cJSON_GetArrayItem(v, (int)i));
}

static void apply(const struct step *st, const cJSON *v, struct nodes *out)
{
    const cJSON *c;
    int64_t n;

    switch (st->kind) {
    case S_FIELD:
        if (cJSON_IsObject(v) && (c = cJSON_GetObjectItemCaseSensitive(v, st->field)))
            push(out, c);
        break;
    case S_INDEX:
        n = cJSON_GetArraySize(v);
        if (cJSON_IsArray(v) && st->idx < n && st->idx >= -n)
            push(out, cJSON_GetArrayItem(v, (int)(st->idx < 0 ? st->idx + n : st->idx)));
        break;
    case S_WILD:
        if (cJSON_IsObject(v) || cJSON_IsArray(v))
            cJSON_ArrayForEach(c, v) push(out, c);
        break;
    case S_RECUR:
        descend(v, out);
        break;
    case S_SLICE:
        if (cJSON_IsArray(v))
            apply_slice(st, v, out);
        break;
    case S_FILTER:
        if (cJSON_IsArray(v))
            cJSON_ArrayForEach(c, v) if (filter_ok(st, c)) push(out, c);
        break;
    }
}

size_t ts_jsonpath_find(const struct ts_jsonpath *p, const cJSON *root, const cJSON **res,
                        size_t max)
{
    struct nodes cur = {0}, nxt = {0};
    size_t total;

    push(&cur, root);
    for (size_t i = 0; i < p->n && cur.n; i++) {
        nxt.n = 0;
        for (size_t j = 0; j < cur.n; j++)
            apply(&p->steps[i], cur.v[j], &nxt);
        struct nodes t = cur;
        cur = nxt;
        nxt = t;
    }
    total = cur.n;
    for (size_t i = 0; i < total && i < max; i++)
        res[i] = cur.v[i];
    free(cur.v);
    free(nxt.v);
    return total;
}

void ts_jsonpath_print(const cJSON *v, struct ts_buf *out)
{
    if (cJSON_IsString(v))
        ts_buf_adds(out, v->valuestring);
    else if (cJSON_IsNull(v))
        ts_buf_adds(out, "<nil>");
    else
        ts_json_print(v, TS_JSON_COMPACT, out, NULL);
}

void ts_jsonpath_free(struct ts_jsonpath *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->n; i++) {
        free(p->steps[i].field);
        ts_jsonpath_free(p->steps[i].lhs);
        cJSON_Delete(p->steps[i].rhs);
    }
    free(p->steps);
    free(p);
}
