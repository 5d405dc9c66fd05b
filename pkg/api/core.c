#include "api/core.h"

#include "api/enc.h"
#include "api/names.h"
#include "util/alloc.h"

#include <stdlib.h>
#include <string.h>

static const char *const selector_ops[] = {"In", "NotIn", "Exists", "DoesNotExist", NULL};

void ts_label_selector_init(struct ts_label_selector *s)
{
    memset(s, 0, sizeof(*s));
}

void ts_label_selector_release(struct ts_label_selector *s)
{
    ts_strmap_release(&s->match_labels);
    for (size_t i = 0; i < s->n_exprs; i++) {
        free(s->exprs[i].key);
        ts_strlist_release(&s->exprs[i].values);
    }
    free(s->exprs);
    ts_label_selector_init(s);
}

void ts_label_selector_copy(struct ts_label_selector *dst, const struct ts_label_selector *src)
{
    ts_label_selector_init(dst);
    ts_strmap_copy(&dst->match_labels, &src->match_labels);
    dst->n_exprs = src->n_exprs;
    dst->exprs = src->n_exprs ? ts_xcalloc(src->n_exprs, sizeof(*dst->exprs)) : NULL;
    for (size_t i = 0; i < src->n_exprs; i++) {
        dst->exprs[i].key = src->exprs[i].key ? ts_xstrdup(src->exprs[i].key) : NULL;
        dst->exprs[i].op = src->exprs[i].op;
        ts_strlist_copy(&dst->exprs[i].values, &src->exprs[i].values);
    }
}

static void exprs_decode(struct ts_dec *d, const cJSON *a, struct ts_label_selector *s)
{
    const cJSON *e;
    size_t i = 0;

    s->exprs = ts_xcalloc((size_t)cJSON_GetArraySize(a), sizeof(*s->exprs));
    cJSON_ArrayForEach(e, a)
    {
        struct ts_selector_req *r = &s->exprs[i];
        size_t mark = ts_path_push_index(&d->path, i++);
        int op = 0;
        char *opname = NULL;

        ts_dec_string(d, e, "key", &r->key);
        /* apimachinery's ValidateLabelSelector: any string decodes, an
         * unknown one is "not a valid selector operator" */
        if (ts_dec_string(d, e, "operator", &opname) == 0)
            ts_dec_error(d, TS_FIELD_REQUIRED, "operator", NULL, "%s", "");
        while (opname && selector_ops[op] && strcmp(selector_ops[op], opname))
            op++;
        if (opname && !selector_ops[op]) {
            ts_dec_error(d, TS_FIELD_INVALID, "operator", opname, "not a valid selector operator");
            op = 0;
        }
        free(opname);
        r->op = (enum ts_selector_op)op;
        ts_dec_strlist(d, e, "values", &r->values);
        ts_path_pop(&d->path, mark);
    }
    s->n_exprs = i;
}

int ts_label_selector_decode(struct ts_dec *d, const cJSON *obj, const char *key,
                             struct ts_label_selector *s)
{
    const cJSON *sel = ts_dec_object(d, obj, key);
    const cJSON *a;
    size_t before = d->errs->n;
    size_t mark;

    if (!sel)
        return d->errs->n > before ? -1 : 0;
    mark = ts_path_push(&d->path, key);
    ts_dec_strmap(d, sel, "matchLabels", &s->match_labels);
    a = ts_dec_array(d, sel, "matchExpressions");
    if (a) {
        size_t m2 = ts_path_push(&d->path, "matchExpressions");

        exprs_decode(d, a, s);
        ts_path_pop(&d->path, m2);
    }
    ts_path_pop(&d->path, mark);
    return d->errs->n > before ? -1 : 1;
}

void ts_label_selector_encode(const struct ts_label_selector *s, cJSON *obj, const char *key)
{
    cJSON *o = cJSON_AddObjectToObject(obj, key);

    ts_enc_strmap(o, "matchLabels", &s->match_labels);
    if (s->n_exprs) {
        cJSON *a = ts_enc_array(o, "matchExpressions");

        for (size_t i = 0; i < s->n_exprs; i++) {
            cJSON *e = cJSON_CreateObject();

            ts_enc_string(e, "key", s->exprs[i].key);
            ts_enc_string(e, "operator", selector_ops[s->exprs[i].op]);
            ts_enc_strlist(e, "values", &s->exprs[i].values);
            cJSON_AddItemToArray(a, e);
        }
    }
}

static int req_matches(const struct ts_selector_req *r, const struct ts_strmap *labels)
{
    const char *v = r->key ? ts_strmap_get(labels, r->key) : NULL;

    switch (r->op) {
    case TS_SELECTOR_IN:
        return v && ts_strlist_index(&r->values, v) >= 0;
    case TS_SELECTOR_NOT_IN:
        return !v || ts_strlist_index(&r->values, v) < 0;
    case TS_SELECTOR_EXISTS:
        return v != NULL;
    case TS_SELECTOR_DOES_NOT_EXIST:
        return v == NULL;
    }
    return 0;
}

int ts_label_selector_matches(const struct ts_label_selector *s, const struct ts_strmap *labels)
{
    for (size_t i = 0; i < s->match_labels.n; i++) {
        const char *v = ts_strmap_get(labels, s->match_labels.items[i].key);

        if (!v || strcmp(v, s->match_labels.items[i].value))
            return 0;
    }
    for (size_t i = 0; i < s->n_exprs; i++) {
        if (!req_matches(&s->exprs[i], labels))
            return 0;
    }
    return 1;
}

static void expr_validate(const struct ts_selector_req *r, struct ts_path *p,
                          struct ts_field_errors *errs)
{
    size_t mark;
    int needs_values = r->op == TS_SELECTOR_IN || r->op == TS_SELECTOR_NOT_IN;

    mark = ts_path_push(p, "values");
    if (needs_values && r->values.n == 0)
        ts_field_errors_add(errs, TS_FIELD_REQUIRED, ts_path_str(p), NULL, 0,
                            "must be specified when `operator` is 'In' or 'NotIn'");
    if (!needs_values && r->values.n)
        ts_field_errors_add(errs, TS_FIELD_FORBIDDEN, ts_path_str(p), NULL, 0,
                            "may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
    for (size_t j = 0; needs_values && j < r->values.n; j++) {
        size_t m2 = ts_path_push_index(p, j);

        ts_names_label_value(r->values.items[j], ts_path_str(p), errs);
        ts_path_pop(p, m2);
    }
    ts_path_pop(p, mark);
    mark = ts_path_push(p, "key");
    ts_names_qualified(r->key ? r->key : "", ts_path_str(p), errs);
    ts_path_pop(p, mark);
}

void ts_label_selector_validate(const struct ts_label_selector *s, const char *path,
                                struct ts_field_errors *errs)
{
    struct ts_path p;
    size_t mark;

    ts_path_init(&p, path);
    mark = ts_path_push(&p, "matchLabels");
    for (size_t i = 0; i < s->match_labels.n; i++) {
        ts_names_qualified(s->match_labels.items[i].key, ts_path_str(&p), errs);
        ts_names_label_value(s->match_labels.items[i].value, ts_path_str(&p), errs);
    }
    ts_path_pop(&p, mark);
    mark = ts_path_push(&p, "matchExpressions");
    for (size_t i = 0; i < s->n_exprs; i++) {
        size_t m2 = ts_path_push_index(&p, i);

        expr_validate(&s->exprs[i], &p, errs);
        ts_path_pop(&p, m2);
    }
    ts_path_pop(&p, mark);
}

/* --- taints and tolerations ----------------------------------------------- */

void ts_taint_release(struct ts_taint *t)
{
    free(t->key);
    free(t->value);
    free(t->effect);
    memset(t, 0, sizeof(*t));
}

void ts_toleration_release(struct ts_toleration *t)
{
    free(t->key);
    free(t->op);
    free(t->value);
    free(t->effect);
    memset(t, 0, sizeof(*t));
}

static char *dup_or_null(const char *s)
{
    return s ? ts_xstrdup(s) : NULL;
}

void ts_toleration_copy(struct ts_toleration *dst, const struct ts_toleration *src)
{
    dst->key = dup_or_null(src->key);
    dst->op = dup_or_null(src->op);
    dst->value = dup_or_null(src->value);
    dst->effect = dup_or_null(src->effect);
    dst->toleration_seconds = src->toleration_seconds;
}

void ts_taints_decode(struct ts_dec *d, const cJSON *obj, const char *key, struct ts_taint **out,
                      size_t *n)
{
    const cJSON *a = ts_dec_array(d, obj, key);
    const cJSON *e;
    size_t mark, i = 0;

    *out = NULL;
    *n = 0;
    if (!a)
        return;
    *out = ts_xcalloc((size_t)cJSON_GetArraySize(a), sizeof(**out));
    mark = ts_path_push(&d->path, key);
    cJSON_ArrayForEach(e, a)
    {
        size_t im = ts_path_push_index(&d->path, i);

        ts_dec_string(d, e, "key", &(*out)[i].key);
        ts_dec_string(d, e, "value", &(*out)[i].value);
        ts_dec_string(d, e, "effect", &(*out)[i].effect);
        ts_path_pop(&d->path, im);
        i++;
    }
    *n = i;
    ts_path_pop(&d->path, mark);
}

void ts_tolerations_decode(struct ts_dec *d, const cJSON *obj, const char *key,
                           struct ts_toleration **out, size_t *n)
{
    const cJSON *a = ts_dec_array(d, obj, key);
    const cJSON *e;
    size_t mark, i = 0;

    *out = NULL;
    *n = 0;
    if (!a)
        return;
    *out = ts_xcalloc((size_t)cJSON_GetArraySize(a), sizeof(**out));
    mark = ts_path_push(&d->path, key);
    cJSON_ArrayForEach(e, a)
    {
        struct ts_toleration *t = &(*out)[i];
        size_t im = ts_path_push_index(&d->path, i);

        ts_dec_string(d, e, "key", &t->key);
        ts_dec_string(d, e, "operator", &t->op);
        ts_dec_string(d, e, "value", &t->value);
        ts_dec_string(d, e, "effect", &t->effect);
        ts_dec_opt_i64(d, e, "tolerationSeconds", &t->toleration_seconds);
        ts_path_pop(&d->path, im);
        i++;
    }
    *n = i;
    ts_path_pop(&d->path, mark);
}

void ts_taints_encode(const struct ts_taint *t, size_t n, cJSON *obj, const char *key)
{
    cJSON *a;

    if (!n)
        return;
    a = ts_enc_array(obj, key);
    for (size_t i = 0; i < n; i++) {
        cJSON *e = cJSON_CreateObject();

        ts_enc_string(e, "key", t[i].key);
        ts_enc_string(e, "value", t[i].value);
        ts_enc_string(e, "effect", t[i].effect);
        cJSON_AddItemToArray(a, e);
    }
}

void ts_tolerations_encode(const struct ts_toleration *t, size_t n, cJSON *obj, const char *key)
{
    cJSON *a;

    if (!n)
        return;
    a = ts_enc_array(obj, key);
    for (size_t i = 0; i < n; i++) {
        cJSON *e = cJSON_CreateObject();

        ts_enc_string(e, "key", t[i].key);
        ts_enc_string(e, "operator", t[i].op);
        ts_enc_string(e, "value", t[i].value);
        ts_enc_string(e, "effect", t[i].effect);
        ts_enc_opt_i64(e, "tolerationSeconds", &t[i].toleration_seconds);
        cJSON_AddItemToArray(a, e);
    }
}

void ts_taints_free(struct ts_taint *t, size_t n)
{
    for (size_t i = 0; i < n; i++)
        ts_taint_release(&t[i]);
    free(t);
}

void ts_tolerations_free(struct ts_toleration *t, size_t n)
{
    for (size_t i = 0; i < n; i++)
        ts_toleration_release(&t[i]);
    free(t);
}

static int streq0(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "") == 0;
}

int ts_toleration_tolerates(const struct ts_toleration *tol, const struct ts_taint *taint)
{
    if (tol->effect && tol->effect[0] && !streq0(tol->effect, taint->effect))
        return 0;
    if (tol->key && tol->key[0] && !streq0(tol->key, taint->key))
        return 0;
    /* an empty key with Exists tolerates everything (k8s semantics) */
    if (tol->op && strcmp(tol->op, "Exists") == 0)
        return 1;
    if (!tol->op || !tol->op[0] || strcmp(tol->op, "Equal") == 0)
        return streq0(tol->value, taint->value);
    return 0;
}

int ts_tolerations_tolerate(const struct ts_toleration *tols, size_t n,
                            const struct ts_taint *taint)
{
    for (size_t i = 0; i < n; i++) {
        if (ts_toleration_tolerates(&tols[i], taint))
            return 1;
    }
    return 0;
}

int ts_toleration_equal(const struct ts_toleration *a, const struct ts_toleration *b)
{
    return streq0(a->key, b->key) && streq0(a->op, b->op) && streq0(a->value, b->value) &&
           streq0(a->effect, b->effect) && a->toleration_seconds.set == b->toleration_seconds.set &&
           a->toleration_seconds.v == b->toleration_seconds.v;
}
