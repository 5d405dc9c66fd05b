#include "api/meta.h"

#include <stdio.h>

#include "api/enc.h"
#include "util/alloc.h"

#include <stdlib.h>
#include <string.h>

void ts_object_meta_init(struct ts_object_meta *m)
{
    memset(m, 0, sizeof(*m));
}

static void owner_ref_release(struct ts_owner_ref *r)
{
    free(r->api_version);
    free(r->kind);
    free(r->name);
    free(r->uid);
}

void ts_object_meta_release(struct ts_object_meta *m)
{
    free(m->name);
    free(m->generate_name);
    free(m->namespace_);
    free(m->uid);
    free(m->resource_version);
    ts_strmap_release(&m->labels);
    ts_strmap_release(&m->annotations);
    for (size_t i = 0; i < m->n_owner_refs; i++)
        owner_ref_release(&m->owner_refs[i]);
    free(m->owner_refs);
    ts_strlist_release(&m->finalizers);
    ts_object_meta_init(m);
}

static char *dup_or_null(const char *s)
{
    return s ? ts_xstrdup(s) : NULL;
}

void ts_object_meta_copy(struct ts_object_meta *dst, const struct ts_object_meta *src)
{
    *dst = *src;
    dst->name = dup_or_null(src->name);
    dst->generate_name = dup_or_null(src->generate_name);
    dst->namespace_ = dup_or_null(src->namespace_);
    dst->uid = dup_or_null(src->uid);
    dst->resource_version = dup_or_null(src->resource_version);
    ts_strmap_init(&dst->labels);
    ts_strmap_copy(&dst->labels, &src->labels);
    ts_strmap_init(&dst->annotations);
    ts_strmap_copy(&dst->annotations, &src->annotations);
    ts_strlist_init(&dst->finalizers);
    ts_strlist_copy(&dst->finalizers, &src->finalizers);
    dst->owner_refs =
        src->n_owner_refs ? ts_xcalloc(src->n_owner_refs, sizeof(*dst->owner_refs)) : NULL;
    for (size_t i = 0; i < src->n_owner_refs; i++) {
        const struct ts_owner_ref *s = &src->owner_refs[i];
        struct ts_owner_ref *o = &dst->owner_refs[i];

        *o = *s;
        o->api_version = dup_or_null(s->api_version);
        o->kind = dup_or_null(s->kind);
        o->name = dup_or_null(s->name);
        o->uid = dup_or_null(s->uid);
    }
}

static void owner_refs_decode(struct ts_dec *d, const cJSON *md, struct ts_object_meta *m)
{
    const cJSON *a = ts_dec_array(d, md, "ownerReferences");
    const cJSON *e;
    size_t mark, i = 0;

    if (!a)
        return;
    m->owner_refs = ts_xcalloc((size_t)cJSON_GetArraySize(a), sizeof(*m->owner_refs));
    mark = ts_path_push(&d->path, "ownerReferences");
    cJSON_ArrayForEach(e, a)
    {
        struct ts_owner_ref *r = &m->owner_refs[i];
        size_t im = ts_path_push_index(&d->path, i++);

        ts_dec_string(d, e, "apiVersion", &r->api_version);
        ts_dec_string(d, e, "kind", &r->kind);
        ts_dec_string(d, e, "name", &r->name);
        ts_dec_string(d, e, "uid", &r->uid);
        ts_dec_opt_bool(d, e, "controller", &r->controller);
        ts_dec_opt_bool(d, e, "blockOwnerDeletion", &r->block_owner_deletion);
        ts_path_pop(&d->path, im);
    }
    m->n_owner_refs = i;
    ts_path_pop(&d->path, mark);
}

void ts_object_meta_decode(struct ts_dec *d, const cJSON *obj, struct ts_object_meta *m)
{
    const cJSON *md = ts_dec_object(d, obj, "metadata");
    size_t mark;

    if (!md)
        return;
    mark = ts_path_push(&d->path, "metadata");
    ts_dec_string(d, md, "name", &m->name);
    ts_dec_string(d, md, "generateName", &m->generate_name);
    ts_dec_string(d, md, "namespace", &m->namespace_);
    ts_dec_string(d, md, "uid", &m->uid);
    ts_dec_string(d, md, "resourceVersion", &m->resource_version);
    ts_dec_i64(d, md, "generation", &m->generation);
    ts_dec_time(d, md, "creationTimestamp", &m->creation_timestamp);
    ts_dec_time(d, md, "deletionTimestamp", &m->deletion_timestamp);
    ts_dec_opt_i64(d, md, "deletionGracePeriodSeconds", &m->deletion_grace_period_seconds);
    ts_dec_strmap(d, md, "labels", &m->labels);
    ts_dec_strmap(d, md, "annotations", &m->annotations);
    owner_refs_decode(d, md, m);
    ts_dec_strlist(d, md, "finalizers", &m->finalizers);
    ts_path_pop(&d->path, mark);
}

void ts_object_meta_encode(const struct ts_object_meta *m, cJSON *obj)
{
    cJSON *md = ts_enc_object(obj, "metadata");

    ts_enc_string(md, "name", m->name);
    ts_enc_string(md, "generateName", m->generate_name);
    ts_enc_string(md, "namespace", m->namespace_);
    ts_enc_string(md, "uid", m->uid);
    ts_enc_string(md, "resourceVersion", m->resource_version);
    if (m->generation)
        ts_enc_int(md, "generation", m->generation);
    ts_enc_time(md, "creationTimestamp", m->creation_timestamp);
    ts_enc_time(md, "deletionTimestamp", m->deletion_timestamp);
    ts_enc_opt_i64(md, "deletionGracePeriodSeconds", &m->deletion_grace_period_seconds);
    ts_enc_strmap(md, "labels", &m->labels);
    ts_enc_strmap(md, "annotations", &m->annotations);
    if (m->n_owner_refs) {
        cJSON *a = ts_enc_array(md, "ownerReferences");

        for (size_t i = 0; i < m->n_owner_refs; i++) {
            const struct ts_owner_ref *r = &m->owner_refs[i];
            cJSON *o = cJSON_CreateObject();

            ts_enc_string(o, "apiVersion", r->api_version);
            ts_enc_string(o, "kind", r->kind);
            ts_enc_string(o, "name", r->name);
            ts_enc_string(o, "uid", r->uid);
            ts_enc_opt_bool(o, "controller", &r->controller);
            ts_enc_opt_bool(o, "blockOwnerDeletion", &r->block_owner_deletion);
            cJSON_AddItemToArray(a, o);
        }
    }
    ts_enc_strlist(md, "finalizers", &m->finalizers);
}

const struct ts_owner_ref *ts_object_meta_controller(const struct ts_object_meta *m)
{
    for (size_t i = 0; i < m->n_owner_refs; i++) {
        if (m->owner_refs[i].controller.set && m->owner_refs[i].controller.v)
            return &m->owner_refs[i];
    }
    return NULL;
}

/* --- conditions ---------------------------------------------------------- */

void ts_conditions_init(struct ts_conditions *c)
{
    memset(c, 0, sizeof(*c));
}

static void condition_release(struct ts_condition *x)
{
    free(x->type);
    free(x->status);
    free(x->reason);
    free(x->message);
}

void ts_conditions_release(struct ts_conditions *c)
{
    for (size_t i = 0; i < c->n; i++)
        condition_release(&c->items[i]);
    free(c->items);
    ts_conditions_init(c);
}

void ts_conditions_copy(struct ts_conditions *dst, const struct ts_conditions *src)
{
    for (size_t i = 0; i < src->n; i++) {
        const struct ts_condition *s = &src->items[i];
        struct ts_condition *x;

        TS_GROW(dst->items, dst->cap, dst->n + 1);
        x = &dst->items[dst->n++];
        *x = *s;
        x->type = dup_or_null(s->type);
        x->status = dup_or_null(s->status);
        x->reason = dup_or_null(s->reason);
        x->message = dup_or_null(s->message);
    }
}

static struct ts_condition *find_mut(const struct ts_conditions *c, const char *type)
{
    for (size_t i = 0; i < c->n; i++) {
        if (c->items[i].type && strcmp(c->items[i].type, type) == 0)
            return &c->items[i];
    }
    return NULL;
}

const struct ts_condition *ts_conditions_find(const struct ts_conditions *c, const char *type)
{
    return find_mut(c, type);
}

int ts_conditions_is_true(const struct ts_conditions *c, const char *type)
{
    const struct ts_condition *x = ts_conditions_find(c, type);

    return x && x->status && strcmp(x->status, "True") == 0;
}

static int set_str(char **dst, const char *v)
{
    if ((*dst == NULL && v == NULL) || (*dst && v && strcmp(*dst, v) == 0))
        return 0;
    free(*dst);
    *dst = dup_or_null(v);
    return 1;
}

int ts_conditions_set(struct ts_conditions *c, const char *type, const char *status,
                      const char *reason, const char *message, int64_t observed_generation,
                      ts_time now)
{
    struct ts_condition *x = find_mut(c, type);
    int changed = 0;

    if (!x) {
        TS_GROW(c->items, c->cap, c->n + 1);
        x = &c->items[c->n++];
        memset(x, 0, sizeof(*x));
        x->type = ts_xstrdup(type);
        changed = 1;
    }
    if (set_str(&x->status, status)) {
        x->last_transition_time = now;
        changed = 1;
    }
    changed |= set_str(&x->reason, reason);
    changed |= set_str(&x->message, message);
    if (x->observed_generation != observed_generation) {
        x->observed_generation = observed_generation;
        changed = 1;
    }
    return changed;
}

int ts_conditions_remove(struct ts_conditions *c, const char *type)
{
    for (size_t i = 0; i < c->n; i++) {
        if (c->items[i].type && strcmp(c->items[i].type, type) == 0) {
            condition_release(&c->items[i]);
            memmove(&c->items[i], &c->items[i + 1], (c->n - i - 1) * sizeof(c->items[0]));
            c->n--;
            return 1;
        }
    }
    return 0;
}

void ts_conditions_decode(struct ts_dec *d, const cJSON *obj, const char *key,
                          struct ts_conditions *c)
{
    const cJSON *a = ts_dec_array(d, obj, key);
    const cJSON *e;
    size_t mark, i = 0;

    if (!a)
        return;
    mark = ts_path_push(&d->path, key);
    cJSON_ArrayForEach(e, a)
    {
        size_t im = ts_path_push_index(&d->path, i++);
        struct ts_condition *x;

        TS_GROW(c->items, c->cap, c->n + 1);
        x = &c->items[c->n++];
        memset(x, 0, sizeof(*x));
        ts_dec_string(d, e, "type", &x->type);
        ts_dec_string(d, e, "status", &x->status);
        ts_dec_string(d, e, "reason", &x->reason);
        ts_dec_string(d, e, "message", &x->message);
        ts_dec_time(d, e, "lastTransitionTime", &x->last_transition_time);
        ts_dec_i64(d, e, "observedGeneration", &x->observed_generation);
        if (!x->type)
            ts_dec_error(d, TS_FIELD_REQUIRED, "type", NULL, "%s", "");
        ts_path_pop(&d->path, im);
    }
    ts_path_pop(&d->path, mark);
}

void ts_conditions_encode(const struct ts_conditions *c, cJSON *obj, const char *key)
{
    cJSON *a;

    if (!c->n)
        return;
    a = ts_enc_array(obj, key);
    for (size_t i = 0; i < c->n; i++) {
        const struct ts_condition *x = &c->items[i];
        cJSON *o = cJSON_CreateObject();

        ts_enc_string(o, "type", x->type);
        ts_enc_string(o, "status", x->status);
        if (x->observed_generation)
            ts_enc_int(o, "observedGeneration", x->observed_generation);
        ts_enc_time(o, "lastTransitionTime", x->last_transition_time);
        ts_enc_string(o, "reason", x->reason);
        ts_enc_string(o, "message", x->message);
        cJSON_AddItemToArray(a, o);
    }
}

cJSON *ts_status_new(int code, const char *reason, const char *msg, cJSON *details)
{
    cJSON *st = cJSON_CreateObject();

    cJSON_AddStringToObject(st, "kind", "Status");
    cJSON_AddStringToObject(st, "apiVersion", "v1");
    cJSON_AddItemToObject(st, "metadata", cJSON_CreateObject());
    cJSON_AddStringToObject(st, "status", code < 400 ? "Success" : "Failure");
    if (msg)
        cJSON_AddStringToObject(st, "message", msg);
    if (reason)
        cJSON_AddStringToObject(st, "reason", reason);
    if (details)
        cJSON_AddItemToObject(st, "details", details);
    cJSON_AddNumberToObject(st, "code", code);
    return st;
}

static cJSON *group_version(const char *group, const char *version)
{
    cJSON *v = cJSON_CreateObject();
    char gv[512];

    snprintf(gv, sizeof(gv), "%s/%s", group, version);
    cJSON_AddStringToObject(v, "groupVersion", gv);
    cJSON_AddStringToObject(v, "version", version);
    return v;
}

cJSON *ts_apigroup_new(const char *group, const char *const *versions, size_t n)
{
    cJSON *g = cJSON_CreateObject(), *vs;

    cJSON_AddStringToObject(g, "name", group);
    vs = cJSON_AddArrayToObject(g, "versions");
    for (size_t i = 0; i < n; i++)
        cJSON_AddItemToArray(vs, group_version(group, versions[i]));
    if (n)
        cJSON_AddItemToObject(g, "preferredVersion", group_version(group, versions[0]));
    return g;
}
