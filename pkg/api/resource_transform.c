/* resource_transform.c - excluded resource prefixes and resource
 * transformations of Kueue's Configuration: decoding, validation, and the
 * rewrite of a pod's requests (Kueue's pkg/workload/workload.go). */
#include "api/resource_transform.h"

#include "api/dec.h"
#include "util/alloc.h"
#include "util/err.h"

#include <stdlib.h>
#include <string.h>

void ts_resource_transforms_init(struct ts_resource_transforms *t)
{
    memset(t, 0, sizeof(*t));
}

void ts_resource_transforms_release(struct ts_resource_transforms *t)
{
    ts_strlist_release(&t->exclude_prefixes);
    for (size_t i = 0; i < t->n; i++) {
        free(t->items[i].input);
        free(t->items[i].multiply_by);
        ts_resource_list_release(&t->items[i].outputs);
    }
    free(t->items);
    ts_resource_transforms_init(t);
}

void ts_resource_transforms_copy(struct ts_resource_transforms *dst,
                                 const struct ts_resource_transforms *src)
{
    ts_resource_transforms_release(dst);
    ts_strlist_copy(&dst->exclude_prefixes, &src->exclude_prefixes);
    dst->items = src->n ? ts_xcalloc(src->n, sizeof(*dst->items)) : NULL;
    for (size_t i = 0; i < src->n; i++) {
        const struct ts_resource_transformation *s = &src->items[i];
        struct ts_resource_transformation *x = &dst->items[i];

        x->input = ts_xstrdup(s->input ? s->input : "");
        x->strategy = s->strategy;
        x->multiply_by = s->multiply_by ? ts_xstrdup(s->multiply_by) : NULL;
        ts_resource_list_copy(&x->outputs, &s->outputs);
    }
    dst->n = src->n;
}

int ts_resource_transforms_empty(const struct ts_resource_transforms *t)
{
    return !t || (!t->exclude_prefixes.n && !t->n);
}

/* --- decoding ------------------------------------------------------------- */

/* One transformations[i] (path pushed by the caller); Kueue's defaulting
 * (apis/config/v1beta2/defaults.go: "" is Retain) and validation. */
static void decode_one(struct ts_dec *d, const cJSON *e, struct ts_resource_transformation *x)
{
    char *strategy = NULL;

    ts_dec_string(d, e, "input", &x->input);
    if (!x->input)
        x->input = ts_xstrdup("");
    x->strategy = TS_RESOURCE_TRANSFORM_RETAIN;
    if (ts_dec_string(d, e, "strategy", &strategy) == 1 && strategy[0]) {
        if (!strcmp(strategy, "Replace"))
            x->strategy = TS_RESOURCE_TRANSFORM_REPLACE;
        else if (strcmp(strategy, "Retain"))
            ts_dec_error(d, TS_FIELD_NOT_SUPPORTED, "strategy", strategy,
                         "supported values: \"Retain\", \"Replace\"");
    }
    free(strategy);
    if (ts_dec_string(d, e, "multiplyBy", &x->multiply_by) == 1 && !x->multiply_by[0]) {
        free(x->multiply_by); /* Kueue: MultiplyBy != "" */
        x->multiply_by = NULL;
    }
    ts_dec_resource_list(d, e, "outputs", &x->outputs);
}

static void decode_list(struct ts_dec *d, const cJSON *list, struct ts_resource_transforms *t)
{
    const cJSON *e;
    size_t i = 0;

    t->items = ts_xcalloc((size_t)cJSON_GetArraySize(list) + 1, sizeof(*t->items));
    cJSON_ArrayForEach(e, list)
    {
        size_t mark = ts_path_push_index(&d->path, i++);
        struct ts_resource_transformation *x = &t->items[t->n];

        if (!cJSON_IsObject(e)) {
            ts_dec_error(d, TS_FIELD_TYPE_INVALID, NULL, NULL, "must be an object");
            ts_path_pop(&d->path, mark);
            continue;
        }
        decode_one(d, e, x);
        for (size_t j = 0; j < t->n; j++) {
            if (!strcmp(t->items[j].input, x->input)) {
                ts_dec_error(d, TS_FIELD_DUPLICATE, "input", x->input, "%s", "");
                break;
            }
        }
        t->n++;
        ts_path_pop(&d->path, mark);
    }
}

void ts_resource_transforms_decode(struct ts_dec *d, const cJSON *cfg,
                                   struct ts_resource_transforms *t)
{
    const cJSON *res = ts_dec_object(d, cfg, "resources"), *list;
    size_t mark;

    ts_resource_transforms_release(t);
    if (!res)
        return;
    mark = ts_path_push(&d->path, "resources");
    ts_dec_strlist(d, res, "excludeResourcePrefixes", &t->exclude_prefixes);
    if ((list = ts_dec_array(d, res, "transformations"))) {
        size_t m2 = ts_path_push(&d->path, "transformations");

        decode_list(d, list, t);
        ts_path_pop(&d->path, m2);
    }
    ts_path_pop(&d->path, mark);
}

/* --- applying --------------------------------------------------------------- */

static struct ts_quantity huge(int sign)
{
    return ts_quantity_from_int(sign < 0 ? -TS_RESOURCE_TRANSFORM_HUGE : TS_RESOURCE_TRANSFORM_HUGE,
                                TS_QUANTITY_DECIMAL_SI);
}

/* Kueue's Quantity.Value(): rounded up, here saturated. */
static int64_t value_sat(const struct ts_quantity *q, int *sat)
{
    int64_t v;

    if (!ts_quantity_value(q, &v))
        return v;
    *sat = 1;
    return ts_quantity_sign(q) < 0 ? -TS_RESOURCE_TRANSFORM_HUGE : TS_RESOURCE_TRANSFORM_HUGE;
}

static struct ts_quantity mul_sat(const struct ts_quantity *q, int64_t factor, int *sat)
{
    struct ts_quantity out;

    if (!ts_quantity_mul(q, factor, &out))
        return out;
    *sat = 1;
    return huge(ts_quantity_sign(q) * (factor < 0 ? -1 : 1));
}

/* l[name] += q, saturating. */
static void add_sat(struct ts_resource_list *l, const char *name, const struct ts_quantity *q,
                    int *sat)
{
    const struct ts_quantity *have = ts_resource_list_get(l, name);
    struct ts_quantity sum;

    if (!have) {
        ts_resource_list_set(l, name, q);
        return;
    }
    if (ts_quantity_add(have, q, &sum)) {
        *sat = 1;
        sum = huge(ts_quantity_sign(q));
    }
    ts_resource_list_set(l, name, &sum);
}

static const struct ts_resource_transformation *find(const struct ts_resource_transforms *t,
                                                     const char *input)
{
    for (size_t i = 0; i < t->n; i++) {
        if (!strcmp(t->items[i].input, input))
            return &t->items[i];
    }
    return NULL;
}

static int excluded(const struct ts_strlist *prefixes, const char *name)
{
    for (size_t i = 0; i < prefixes->n; i++) {
        if (!strncmp(name, prefixes->items[i], strlen(prefixes->items[i])))
            return 1;
    }
    return 0;
}

/* What transformation x makes of `q` of its input, added to out.  Kueue
 * sets a retained input after adding the outputs, so an output named as
 * the input itself is overwritten: it is skipped here. */
static void transform_one(const struct ts_resource_transformation *x, const struct ts_quantity *q,
                          const struct ts_resource_list *req, struct ts_resource_list *out,
                          int *sat)
{
    struct ts_quantity amount = *q;
    const struct ts_quantity *by =
        x->multiply_by ? ts_resource_list_get(req, x->multiply_by) : NULL;
    int64_t units;

    if (by)
        amount = mul_sat(&amount, value_sat(by, sat), sat);
    units = value_sat(&amount, sat);
    for (size_t o = 0; o < x->outputs.n; o++) {
        struct ts_quantity add;

        if (x->strategy == TS_RESOURCE_TRANSFORM_RETAIN &&
            !strcmp(x->outputs.items[o].name, x->input))
            continue;
        add = mul_sat(&x->outputs.items[o].q, units, sat);
        add_sat(out, x->outputs.items[o].name, &add, sat);
    }
    if (x->strategy == TS_RESOURCE_TRANSFORM_RETAIN)
        add_sat(out, x->input, &amount, sat);
}

int ts_resource_transforms_apply(const struct ts_resource_transforms *t,
                                 struct ts_resource_list *req)
{
    struct ts_resource_list out = TS_RESOURCE_LIST_INIT;
    int any = 0, sat = 0;

    if (ts_resource_transforms_empty(t))
        return 0;
    for (size_t i = req->n; i-- > 0;) {
        if (excluded(&t->exclude_prefixes, req->items[i].name))
            ts_resource_list_remove(req, req->items[i].name);
    }
    for (size_t i = 0; i < req->n && !any; i++)
        any = find(t, req->items[i].name) != NULL;
    if (!any)
        return 0;
    for (size_t i = 0; i < req->n; i++) {
        const struct ts_resource_transformation *x = find(t, req->items[i].name);

        if (x)
            transform_one(x, &req->items[i].q, req, &out, &sat);
        else
            add_sat(&out, req->items[i].name, &req->items[i].q, &sat);
    }
    ts_resource_list_release(req);
    *req = out;
    return sat ? TS_EOVERFLOW : 0;
}
