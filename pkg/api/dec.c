#include "api/dec.h"

#include "util/alloc.h"
#include "util/buf.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void ts_dec_init(struct ts_dec *d, struct ts_field_errors *errs)
{
    ts_path_init(&d->path, NULL);
    d->errs = errs;
    d->flags = 0;
}

void ts_dec_error(struct ts_dec *d, enum ts_field_error_type type, const char *key,
                  const char *value, const char *fmt, ...)
{
    struct ts_buf detail = TS_BUF_INIT;
    size_t mark = d->path.len;
    va_list ap;

    if (key)
        ts_path_push(&d->path, key);
    va_start(ap, fmt);
    ts_buf_vaddf(&detail, fmt, ap);
    va_end(ap);
    ts_field_errors_add(d->errs, type, ts_path_str(&d->path), value, 1, "%s", detail.ptr);
    ts_buf_release(&detail);
    ts_path_pop(&d->path, mark);
}

char *ts_dec_render(const cJSON *v)
{
    char *s;

    if (cJSON_IsString(v))
        return ts_xstrndup(v->valuestring, 64);
    s = cJSON_PrintUnformatted(v);
    if (s && strlen(s) > 64)
        s[64] = '\0';
    return s ? s : ts_xstrdup("?");
}

static const char *type_name(const cJSON *v)
{
    if (cJSON_IsString(v))
        return "string";
    if (cJSON_IsNumber(v))
        return "number";
    if (cJSON_IsBool(v))
        return "boolean";
    if (cJSON_IsArray(v))
        return "array";
    if (cJSON_IsObject(v))
        return "object";
    return "null";
}

/* The child or NULL when absent/null. */
static const cJSON *child(const cJSON *obj, const char *key)
{
    const cJSON *c = obj ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;

    return c && !cJSON_IsNull(c) ? c : NULL;
}

static void type_error(struct ts_dec *d, const char *key, const cJSON *v, const char *want)
{
    char *r = ts_dec_render(v);

    ts_dec_error(d, TS_FIELD_TYPE_INVALID, key, r, "must be of type %s, got %s", want,
                 type_name(v));
    free(r);
}

const cJSON *ts_dec_object(struct ts_dec *d, const cJSON *obj, const char *key)
{
    const cJSON *c = child(obj, key);

    if (c && !cJSON_IsObject(c)) {
        type_error(d, key, c, "object");
        return NULL;
    }
    return c;
}

const cJSON *ts_dec_array(struct ts_dec *d, const cJSON *obj, const char *key)
{
    const cJSON *c = child(obj, key);

    if (c && !cJSON_IsArray(c)) {
        type_error(d, key, c, "array");
        return NULL;
    }
    return c;
}

int ts_dec_string(struct ts_dec *d, const cJSON *obj, const char *key, char **out)
{
    const cJSON *c = child(obj, key);

    if (!c)
        return 0;
    if (!cJSON_IsString(c)) {
        type_error(d, key, c, "string");
        return -1;
    }
    free(*out);
    *out = ts_xstrdup(c->valuestring);
    return 1;
}

int ts_dec_bool(struct ts_dec *d, const cJSON *obj, const char *key, int *out)
{
    const cJSON *c = child(obj, key);

    if (!c)
        return 0;
    if (!cJSON_IsBool(c)) {
        type_error(d, key, c, "boolean");
        return -1;
    }
    *out = cJSON_IsTrue(c);
    return 1;
}

int ts_dec_opt_bool(struct ts_dec *d, const cJSON *obj, const char *key, struct ts_opt_bool *out)
{
    int rc = ts_dec_bool(d, obj, key, &out->v);

    if (rc == 1)
        out->set = 1;
    return rc;
}

static int dec_int(struct ts_dec *d, const cJSON *obj, const char *key, double lo, double hi,
                   const char *want, int64_t *out)
{
    const cJSON *c = child(obj, key);
    double v;

    if (!c)
        return 0;
    if (!cJSON_IsNumber(c)) {
        type_error(d, key, c, want);
        return -1;
    }
    v = c->valuedouble;
    if (v != floor(v) || v < lo || v > hi) {
        char *r = ts_dec_render(c);

        ts_dec_error(d, TS_FIELD_INVALID, key, r, "must be a whole number of type %s", want);
        free(r);
        return -1;
    }
    *out = (int64_t)v;
    return 1;
}

int ts_dec_i32(struct ts_dec *d, const cJSON *obj, const char *key, int32_t *out)
{
    int64_t v;
    int rc = dec_int(d, obj, key, (double)INT32_MIN, (double)INT32_MAX, "int32", &v);

    if (rc == 1)
        *out = (int32_t)v;
    return rc;
}

int ts_dec_i64(struct ts_dec *d, const cJSON *obj, const char *key, int64_t *out)
{
    /* doubles hold integers exactly only up to 2^53 */
    return dec_int(d, obj, key, -9007199254740992.0, 9007199254740992.0, "int64", out);
}

int ts_dec_opt_i32(struct ts_dec *d, const cJSON *obj, const char *key, struct ts_opt_i32 *out)
{
    int rc = ts_dec_i32(d, obj, key, &out->v);

    if (rc == 1)
        out->set = 1;
    return rc;
}

int ts_dec_opt_i64(struct ts_dec *d, const cJSON *obj, const char *key, struct ts_opt_i64 *out)
{
    int rc = ts_dec_i64(d, obj, key, &out->v);

    if (rc == 1)
        out->set = 1;
    return rc;
}

/* Parses a quantity held in a JSON string or number. */
static int quantity_of(const cJSON *c, struct ts_quantity *out, struct ts_err *err)
{
    char *text;
    int rc;

    if (cJSON_IsString(c))
        return ts_quantity_parse_c(c->valuestring, out, err);
    text = cJSON_PrintUnformatted(c);
    rc = ts_quantity_parse_c(text ? text : "", out, err);
    free(text);
    return rc;
}

int ts_dec_quantity(struct ts_dec *d, const cJSON *obj, const char *key, struct ts_quantity *out)
{
    const cJSON *c = child(obj, key);
    struct ts_err err = {0};

    if (!c)
        return 0;
    if (!cJSON_IsString(c) && !cJSON_IsNumber(c)) {
        type_error(d, key, c, "quantity (string or number)");
        return -1;
    }
    if (quantity_of(c, out, &err)) {
        char *r = ts_dec_render(c);

        ts_dec_error(d, TS_FIELD_INVALID, key, r, "%s", err.msg);
        free(r);
        return -1;
    }
    return 1;
}

int ts_dec_opt_quantity(struct ts_dec *d, const cJSON *obj, const char *key,
                        struct ts_opt_quantity *out)
{
    int rc = ts_dec_quantity(d, obj, key, &out->q);

    if (rc == 1)
        out->set = 1;
    return rc;
}

int ts_dec_time(struct ts_dec *d, const cJSON *obj, const char *key, ts_time *out)
{
    const cJSON *c = child(obj, key);

    if (!c)
        return 0;
    if (!cJSON_IsString(c)) {
        type_error(d, key, c, "string");
        return -1;
    }
    if (ts_time_parse(c->valuestring, out)) {
        ts_dec_error(d, TS_FIELD_INVALID, key, c->valuestring,
                     "must be an RFC 3339 timestamp such as 2006-01-02T15:04:05Z");
        return -1;
    }
    return 1;
}

int ts_dec_strmap(struct ts_dec *d, const cJSON *obj, const char *key, struct ts_strmap *out)
{
    const cJSON *m = ts_dec_object(d, obj, key);
    const cJSON *e;
    int rc = 1;

    if (!m)
        return child(obj, key) ? -1 : 0;
    cJSON_ArrayForEach(e, m)
    {
        if (!cJSON_IsString(e)) {
            size_t mark = ts_path_push(&d->path, key);

            ts_path_push_mapkey(&d->path, e->string);
            type_error(d, NULL, e, "string");
            ts_path_pop(&d->path, mark);
            rc = -1;
            continue;
        }
        ts_strmap_set(out, e->string, e->valuestring);
    }
    return rc;
}

int ts_dec_strlist(struct ts_dec *d, const cJSON *obj, const char *key, struct ts_strlist *out)
{
    const cJSON *a = ts_dec_array(d, obj, key);
    const cJSON *e;
    size_t i = 0;
    int rc = 1;

    if (!a)
        return child(obj, key) ? -1 : 0;
    cJSON_ArrayForEach(e, a)
    {
        if (!cJSON_IsString(e)) {
            size_t mark = ts_path_push(&d->path, key);

            ts_path_push_index(&d->path, i);
            type_error(d, NULL, e, "string");
            ts_path_pop(&d->path, mark);
            rc = -1;
        } else {
            ts_strlist_push(out, e->valuestring);
        }
        i++;
    }
    return rc;
}

int ts_dec_resource_list(struct ts_dec *d, const cJSON *obj, const char *key,
                         struct ts_resource_list *out)
{
    const cJSON *m = ts_dec_object(d, obj, key);
    const cJSON *e;
    size_t mark;
    int rc = 1;

    if (!m)
        return child(obj, key) ? -1 : 0;
    mark = ts_path_push(&d->path, key);
    cJSON_ArrayForEach(e, m)
    {
        struct ts_quantity q;

        if (ts_dec_quantity(d, m, e->string, &q) == 1)
            ts_resource_list_set(out, e->string, &q);
        else
            rc = -1;
    }
    ts_path_pop(&d->path, mark);
    return rc;
}

int ts_dec_enum(struct ts_dec *d, const cJSON *obj, const char *key, const char *const *allowed,
                int *out)
{
    char *s = NULL;
    struct ts_buf list = TS_BUF_INIT;
    int rc = ts_dec_string(d, obj, key, &s);

    if (rc != 1)
        return rc;
    for (int i = 0; allowed[i]; i++) {
        if (strcmp(allowed[i], s) == 0) {
            *out = i;
            free(s);
            ts_buf_release(&list);
            return 1;
        }
        ts_buf_addf(&list, "%s\"%s\"", i ? ", " : "", allowed[i]);
    }
    ts_dec_error(d, TS_FIELD_NOT_SUPPORTED, key, s, "supported values: %s", list.ptr);
    ts_buf_release(&list);
    free(s);
    return -1;
}
