/*
 * cel_val.c - runtime values of the CEL subset: JSON typed by its schema,
 * errors, equality and ordering with CEL's rules (numbers of different
 * types compare by value, other types never equal), conversion back to
 * JSON.
 */
#include "api/cel_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

struct cel_val ts__cel_err(struct cel_ctx *x, const char *fmt, ...)
{
    struct cel_val v = {.t = CV_ERR};
    struct ts_buf b = TS_BUF_INIT;
    char *s;
    va_list ap;

    va_start(ap, fmt);
    ts_buf_vaddf(&b, fmt, ap);
    va_end(ap);
    s = ts_arena_alloc(&x->arena, b.len + 1);
    memcpy(s, b.ptr ? b.ptr : "", b.len + 1);
    ts_buf_release(&b);
    v.s = s;
    v.n = strlen(s);
    return v;
}

struct cel_val ts__cel_bool(int b)
{
    struct cel_val v = {.t = CV_BOOL};

    v.b = !!b;
    return v;
}

struct cel_val ts__cel_int(int64_t i)
{
    struct cel_val v = {.t = CV_INT};

    v.i = i;
    return v;
}

struct cel_val ts__cel_str(const char *s, size_t n)
{
    struct cel_val v = {.t = CV_STRING};

    v.s = s;
    v.n = n;
    return v;
}

static const char *schema_type(const cJSON *schema)
{
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(schema, "type"));
}

struct cel_val ts__cel_from_json(const cJSON *j, const cJSON *schema)
{
    struct cel_val v = {.t = CV_NULL};
    const char *type = schema_type(schema);

    if (cJSON_IsBool(j)) {
        v = ts__cel_bool(cJSON_IsTrue(j));
    } else if (cJSON_IsNumber(j)) {
        double d = j->valuedouble;
        int integral = floor(d) == d && d >= -9223372036854775808.0 && d < 9223372036854775808.0;

        if (integral && !(type && !strcmp(type, "number"))) {
            v = ts__cel_int((int64_t)d);
        } else {
            v.t = CV_DOUBLE;
            v.d = d;
        }
    } else if (cJSON_IsString(j)) {
        v = ts__cel_str(j->valuestring, strlen(j->valuestring));
    } else if (cJSON_IsArray(j)) {
        v.t = CV_LIST;
        v.json = j;
        v.schema = cJSON_GetObjectItemCaseSensitive(schema, "items");
        v.n = (size_t)cJSON_GetArraySize(j);
    } else if (cJSON_IsObject(j)) {
        v.t = CV_MAP;
        v.json = j;
        v.schema = schema;
        v.n = (size_t)cJSON_GetArraySize(j);
    }
    return v;
}

size_t ts__cel_list_len(const struct cel_val *l)
{
    return l->n;
}

const struct cel_val *ts__cel_list_items(struct cel_ctx *x, const struct cel_val *l)
{
    struct cel_val *items;
    const cJSON *c;
    size_t i = 0;

    if (!l->json)
        return l->items;
    items = ts_arena_alloc(&x->arena, (l->n ? l->n : 1) * sizeof(*items));
    for (c = l->json->child; c && i < l->n; c = c->next)
        items[i++] = ts__cel_from_json(c, l->schema);
    return items;
}

static const cJSON *field_schema(const cJSON *schema, const char *key)
{
    const cJSON *props = cJSON_GetObjectItemCaseSensitive(schema, "properties");
    const cJSON *addl = cJSON_GetObjectItemCaseSensitive(schema, "additionalProperties");
    const cJSON *s = props ? cJSON_GetObjectItemCaseSensitive(props, key) : NULL;

    return s ? s : (cJSON_IsObject(addl) ? addl : NULL);
}

int ts__cel_map_get(const struct cel_val *m, const char *key, size_t klen, struct cel_val *out)
{
    const cJSON *c;

    if (!m->json)
        return 0;
    for (c = m->json->child; c; c = c->next) {
        if (c->string && strlen(c->string) == klen && !memcmp(c->string, key, klen)) {
            *out = ts__cel_from_json(c, field_schema(m->schema, c->string));
            return 1;
        }
    }
    return 0;
}

/* Walks a list without an arena: JSON children or built items. */
struct iter {
    const struct cel_val *l;
    const cJSON *c;
    size_t i;
};

static void iter_init(struct iter *it, const struct cel_val *l)
{
    it->l = l;
    it->c = l->json ? l->json->child : NULL;
    it->i = 0;
}

static int iter_next(struct iter *it, struct cel_val *out)
{
    if (it->i >= it->l->n)
        return 0;
    if (it->l->json) {
        if (!it->c)
            return 0;
        *out = ts__cel_from_json(it->c, it->l->schema);
        it->c = it->c->next;
    } else {
        *out = it->l->items[it->i];
    }
    it->i++;
    return 1;
}

static int is_number(enum cel_type t)
{
    return t == CV_INT || t == CV_UINT || t == CV_DOUBLE;
}

/* Numbers of any two types: <0, 0, >0, or 2 when a NaN makes them
 * unordered. */
static int compare_numbers(const struct cel_val *a, const struct cel_val *b)
{
    if (a->t == CV_INT && b->t == CV_INT)
        return a->i < b->i ? -1 : a->i > b->i;
    if (a->t == CV_UINT && b->t == CV_UINT)
        return a->u < b->u ? -1 : a->u > b->u;
    if (a->t == CV_INT && b->t == CV_UINT)
        return a->i < 0 ? -1 : ((uint64_t)a->i < b->u ? -1 : (uint64_t)a->i > b->u);
    if (a->t == CV_UINT && b->t == CV_INT)
        return -compare_numbers(b, a);
    {
        long double x =
            a->t == CV_INT ? (long double)a->i : (a->t == CV_UINT ? (long double)a->u : a->d);
        long double y =
            b->t == CV_INT ? (long double)b->i : (b->t == CV_UINT ? (long double)b->u : b->d);

        if (isnan(x) || isnan(y))
            return 2;
        return x < y ? -1 : x > y;
    }
}

static int map_equal(const struct cel_val *a, const struct cel_val *b)
{
    const cJSON *c;

    if (a->n != b->n)
        return 0;
    for (c = a->json ? a->json->child : NULL; c; c = c->next) {
        struct cel_val x = ts__cel_from_json(c, field_schema(a->schema, c->string)), y;

        if (!ts__cel_map_get(b, c->string, strlen(c->string), &y) || !ts__cel_equal(&x, &y))
            return 0;
    }
    return 1;
}

int ts__cel_equal(const struct cel_val *a, const struct cel_val *b)
{
    struct iter ia, ib;
    struct cel_val x, y;

    if (is_number(a->t) && is_number(b->t))
        return compare_numbers(a, b) == 0;
    if (a->t != b->t)
        return 0;
    switch (a->t) {
    case CV_NULL:
        return 1;
    case CV_BOOL:
        return a->b == b->b;
    case CV_STRING:
        return a->n == b->n && (!a->n || !memcmp(a->s, b->s, a->n));
    case CV_LIST:
        if (a->n != b->n)
            return 0;
        iter_init(&ia, a);
        iter_init(&ib, b);
        while (iter_next(&ia, &x) && iter_next(&ib, &y))
            if (!ts__cel_equal(&x, &y))
                return 0;
        return 1;
    case CV_MAP:
        return map_equal(a, b);
    default:
        return 0;
    }
}

int ts__cel_compare(const struct cel_val *a, const struct cel_val *b)
{
    if (is_number(a->t) && is_number(b->t))
        return compare_numbers(a, b);
    if (a->t != b->t)
        return 2;
    if (a->t == CV_STRING) {
        size_t n = a->n < b->n ? a->n : b->n;
        int c = n ? memcmp(a->s, b->s, n) : 0;

        if (c)
            return c < 0 ? -1 : 1;
        return a->n < b->n ? -1 : a->n > b->n;
    }
    if (a->t == CV_BOOL)
        return a->b - b->b;
    return 2;
}

cJSON *ts__cel_to_json(const struct cel_val *v)
{
    cJSON *out;
    char *s;
    struct iter it;
    struct cel_val x;

    switch (v->t) {
    case CV_NULL:
        return cJSON_CreateNull();
    case CV_BOOL:
        return cJSON_CreateBool(v->b);
    case CV_INT:
        return cJSON_CreateNumber((double)v->i);
    case CV_UINT:
        return cJSON_CreateNumber((double)v->u);
    case CV_DOUBLE:
        return cJSON_CreateNumber(v->d);
    case CV_STRING:
        s = ts_xstrndup(v->s ? v->s : "", v->n);
        out = cJSON_CreateString(s);
        free(s);
        return out;
    case CV_LIST:
        if (v->json)
            return cJSON_Duplicate(v->json, 1);
        out = cJSON_CreateArray();
        iter_init(&it, v);
        while (iter_next(&it, &x))
            cJSON_AddItemToArray(out, ts__cel_to_json(&x));
        return out;
    case CV_MAP:
        return cJSON_Duplicate(v->json, 1);
    default:
        return NULL;
    }
}

const char *ts__cel_type_name(enum cel_type t)
{
    static const char *const names[] = {"error",  "null_type", "bool", "int", "uint",
                                        "double", "string",    "list", "map"};

    return (size_t)t < sizeof(names) / sizeof(names[0]) ? names[t] : "unknown";
}
