/* yaml_doc.c - decoded documents: the line map, error formatting, streams. */
#include "yaml/yaml_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/json.h"
#include "util/alloc.h"

void ts__yaml_loc_release(struct ts__yaml_loc *l)
{
    for (size_t i = 0; i < l->n; i++)
        ts__yaml_loc_release(&l->kids[i]);
    free(l->kids);
    free(l->key);
    memset(l, 0, sizeof(*l));
}

void ts__yaml_loc_copy(struct ts__yaml_loc *dst, const struct ts__yaml_loc *src)
{
    *dst = *src;
    dst->key = src->key ? ts_xstrdup(src->key) : NULL;
    dst->kids = NULL;
    dst->cap = 0;
    if (!src->n)
        return;
    dst->kids = ts_xcalloc(src->n, sizeof(*dst->kids));
    dst->cap = src->n;
    for (size_t i = 0; i < src->n; i++)
        ts__yaml_loc_copy(&dst->kids[i], &src->kids[i]);
}

void ts__yaml_loc_add(struct ts__yaml_loc *parent, struct ts__yaml_loc *child, const char *key)
{
    struct ts__yaml_loc *k;

    TS_GROW(parent->kids, parent->cap, parent->n + 1);
    k = &parent->kids[parent->n++];
    *k = *child;
    free(k->key);
    k->key = key ? ts_xstrdup(key) : NULL;
    memset(child, 0, sizeof(*child));
}

void ts__yaml_loc_replace(struct ts__yaml_loc *parent, size_t i, struct ts__yaml_loc *child)
{
    struct ts__yaml_loc *k = &parent->kids[i];
    char *key = k->key;

    k->key = NULL;
    ts__yaml_loc_release(k);
    *k = *child;
    free(k->key);
    k->key = key;
    memset(child, 0, sizeof(*child));
}

static const struct ts__yaml_loc *loc_child(const struct ts__yaml_loc *l, struct ts_str seg)
{
    size_t idx;

    if (l->is_array)
        return ts_json_path_index(seg, &idx) == 0 && idx < l->n ? &l->kids[idx] : NULL;
    for (size_t i = 0; i < l->n; i++) {
        const char *k = l->kids[i].key;

        if (k && strlen(k) == seg.len && !memcmp(k, seg.ptr, seg.len))
            return &l->kids[i];
    }
    return NULL;
}

int ts__yaml_loc_find(const struct ts__yaml_loc *root, const char *path)
{
    const char *cur = path ? path : "";
    const struct ts__yaml_loc *l = root;
    struct ts_str seg;

    while (ts_json_path_next(&cur, &seg) == 1) {
        const struct ts__yaml_loc *next = loc_child(l, seg);

        if (!next)
            break;
        l = next;
    }
    return l->line;
}

int ts_yaml_doc_line(const struct ts_yaml_doc *doc, const char *path)
{
    return doc->locs ? ts__yaml_loc_find(doc->locs, path) : doc->line;
}

int ts_yaml_doc_err(const struct ts_yaml_doc *doc, const char *path, struct ts_err *err, int code,
                    const char *fmt, ...)
{
    char msg[TS_ERR_MSG_MAX];
    int line = ts_yaml_doc_line(doc, path);
    const char *sep = path && *path ? ": " : "";
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (doc->name)
        return ts_err_set(err, code, "%s:%d: %s%s%s", doc->name, line, sep[0] ? path : "", sep,
                          msg);
    return ts_err_set(err, code, "line %d: %s%s%s", line, sep[0] ? path : "", sep, msg);
}

cJSON *ts_yaml_doc_take(struct ts_yaml_doc *doc)
{
    cJSON *root = doc->root;

    doc->root = NULL;
    return root;
}

void ts_yaml_stream_init(struct ts_yaml_stream *s)
{
    memset(s, 0, sizeof(*s));
}

void ts__yaml_stream_truncate(struct ts_yaml_stream *s, size_t n)
{
    while (s->n > n) {
        struct ts_yaml_doc *d = &s->docs[--s->n];

        cJSON_Delete(d->root);
        if (d->locs) {
            ts__yaml_loc_release(d->locs);
            free(d->locs);
        }
        free(d->name);
    }
}

void ts_yaml_stream_release(struct ts_yaml_stream *s)
{
    ts__yaml_stream_truncate(s, 0);
    free(s->docs);
    ts_yaml_stream_init(s);
}
