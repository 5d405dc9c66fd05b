#include "api/field.h"

#include "util/alloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ts_field_errors_init(struct ts_field_errors *errs)
{
    errs->items = NULL;
    errs->n = 0;
    errs->cap = 0;
}

void ts_field_errors_release(struct ts_field_errors *errs)
{
    for (size_t i = 0; i < errs->n; i++) {
        free(errs->items[i].field);
        free(errs->items[i].value);
        free(errs->items[i].detail);
    }
    free(errs->items);
    ts_field_errors_init(errs);
}

static void push(struct ts_field_errors *errs, enum ts_field_error_type type, const char *field,
                 char *value, char *detail)
{
    struct ts_field_error *e;

    TS_GROW(errs->items, errs->cap, errs->n + 1);
    e = &errs->items[errs->n++];
    e->type = type;
    e->field = ts_xstrdup(field ? field : "");
    e->value = value;
    e->detail = detail;
}

void ts_field_errors_add(struct ts_field_errors *errs, enum ts_field_error_type type,
                         const char *field, const char *value, int quote, const char *fmt, ...)
{
    struct ts_buf v = TS_BUF_INIT;
    struct ts_buf d = TS_BUF_INIT;
    char *vs = NULL;
    char *ds = NULL;

    if (value) {
        if (quote)
            ts_buf_addf(&v, "\"%s\"", value);
        else
            ts_buf_adds(&v, value);
        vs = ts_buf_take(&v);
    }
    if (fmt) {
        va_list ap;

        va_start(ap, fmt);
        ts_buf_vaddf(&d, fmt, ap);
        va_end(ap);
        ds = ts_buf_take(&d);
    }
    push(errs, type, field, vs, ds);
}

void ts_field_errors_extend(struct ts_field_errors *dst, const struct ts_field_errors *src)
{
    for (size_t i = 0; i < src->n; i++) {
        const struct ts_field_error *e = &src->items[i];

        push(dst, e->type, e->field, e->value ? ts_xstrdup(e->value) : NULL,
             e->detail ? ts_xstrdup(e->detail) : NULL);
    }
}

const char *ts_field_error_reason(enum ts_field_error_type type)
{
    switch (type) {
    case TS_FIELD_REQUIRED:
        return "FieldValueRequired";
    case TS_FIELD_NOT_SUPPORTED:
        return "FieldValueNotSupported";
    case TS_FIELD_DUPLICATE:
        return "FieldValueDuplicate";
    case TS_FIELD_TOO_MANY:
        return "FieldValueTooMany";
    case TS_FIELD_TOO_LONG:
        return "FieldValueTooLong";
    case TS_FIELD_FORBIDDEN:
        return "FieldValueForbidden";
    case TS_FIELD_TYPE_INVALID:
        return "FieldValueTypeInvalid";
    case TS_FIELD_NOT_FOUND:
        return "FieldValueNotFound";
    case TS_FIELD_INVALID:
        break;
    }
    return "FieldValueInvalid";
}

static const char *type_text(enum ts_field_error_type type)
{
    switch (type) {
    case TS_FIELD_REQUIRED:
        return "Required value";
    case TS_FIELD_NOT_SUPPORTED:
        return "Unsupported value";
    case TS_FIELD_DUPLICATE:
        return "Duplicate value";
    case TS_FIELD_TOO_MANY:
        return "Too many";
    case TS_FIELD_TOO_LONG:
        return "Too long";
    case TS_FIELD_FORBIDDEN:
        return "Forbidden";
    case TS_FIELD_NOT_FOUND:
        return "Not found";
    case TS_FIELD_TYPE_INVALID:
    case TS_FIELD_INVALID:
        break;
    }
    return "Invalid value";
}

void ts_field_error_format(const struct ts_field_error *e, struct ts_buf *out)
{
    if (e->field[0])
        ts_buf_addf(out, "%s: ", e->field);
    ts_buf_adds(out, type_text(e->type));
    if (e->value)
        ts_buf_addf(out, ": %s", e->value);
    if (e->detail && e->detail[0])
        ts_buf_addf(out, ": %s", e->detail);
}

void ts_field_errors_format(const struct ts_field_errors *errs, struct ts_buf *out)
{
    if (errs->n > 1)
        ts_buf_addc(out, '[');
    for (size_t i = 0; i < errs->n; i++) {
        if (i)
            ts_buf_adds(out, ", ");
        ts_field_error_format(&errs->items[i], out);
    }
    if (errs->n > 1)
        ts_buf_addc(out, ']');
}

int ts_field_errors_to_err(const struct ts_field_errors *errs, const char *what, struct ts_err *err)
{
    struct ts_buf b = TS_BUF_INIT;

    if (!errs->n)
        return 0;
    if (what)
        ts_buf_addf(&b, "%s is invalid: ", what);
    ts_field_errors_format(errs, &b);
    ts_err_set(err, TS_EINVAL, "%s", b.ptr);
    ts_buf_release(&b);
    return TS_EINVAL;
}

/* --- paths ---------------------------------------------------------------- */

static void path_append(struct ts_path *p, const char *text)
{
    size_t n = strlen(text);

    if (p->len + n >= TS_PATH_MAX) {
        /* keep paths bounded; mark the cut so messages never lie */
        if (p->len + 4 < TS_PATH_MAX) {
            memcpy(p->buf + p->len, "...", 4);
            p->len += 3;
        }
        return;
    }
    memcpy(p->buf + p->len, text, n + 1);
    p->len += n;
}

void ts_path_init(struct ts_path *p, const char *root)
{
    p->len = 0;
    p->buf[0] = '\0';
    if (root)
        path_append(p, root);
}

size_t ts_path_push(struct ts_path *p, const char *key)
{
    size_t old = p->len;

    if (p->len)
        path_append(p, ".");
    path_append(p, key);
    return old;
}

size_t ts_path_push_index(struct ts_path *p, size_t i)
{
    char idx[32];
    size_t old = p->len;

    snprintf(idx, sizeof(idx), "[%zu]", i);
    path_append(p, idx);
    return old;
}

size_t ts_path_push_mapkey(struct ts_path *p, const char *key)
{
    size_t old = p->len;

    path_append(p, "[");
    path_append(p, key);
    path_append(p, "]");
    return old;
}

void ts_path_pop(struct ts_path *p, size_t len)
{
    if (len <= p->len) {
        p->len = len;
        p->buf[len] = '\0';
    }
}

const char *ts_path_str(const struct ts_path *p)
{
    return p->buf;
}
