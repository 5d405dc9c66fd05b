/*
 * yaml_decode.c - libyaml events to cJSON trees plus a line map.
 *
 * The builder keeps an explicit stack of open mappings/sequences (no
 * recursion on input depth).  A finished node is attached to its parent;
 * anchors keep a copy of their node, aliases copy it again.
 */
#include "yaml/yaml_int.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "util/alloc.h"
#include "util/log.h"
#include "util/hmap.h"

#define ALIAS_BASE  100000 /* nodes aliases may add, plus ALIAS_RATIO per node */
#define ALIAS_RATIO 10
#define MAX_EXACT   (INT64_C(1) << 53)
#define TAG_PREFIX  "tag:yaml.org,2002:"
#define INDEX_AT    16 /* members before a mapping gets a key index */

struct anchor {
    char *name;
    cJSON *value; /* NULL when the scalar has no JSON form (.inf) */
    char *key;    /* key text; NULL when unusable as a map key */
    struct ts__yaml_loc loc;
    size_t nodes;
    int height;
};

struct frame {
    cJSON *node; /* object or array being filled */
    struct ts__yaml_loc loc;
    char *anchor;
    size_t nodes_at_start;
    char *key; /* pending key of a mapping; NULL while a key is expected */
    yaml_mark_t key_mark;
    int merge;             /* the pending key is "<<" */
    struct ts_hmap *index; /* key -> member position + 1, for large mappings */
};

struct dec {
    yaml_parser_t parser;
    const char *name;
    const char *data;
    size_t len;
    struct frame *stack;
    size_t depth, cap;
    struct anchor *anchors;
    size_t nanchors, acap;
    cJSON *root;
    struct ts__yaml_loc root_loc;
    size_t nodes, alias_nodes;
    struct ts_yaml_stream *out;
    struct ts_err *err;
};

static int fail(struct dec *d, const yaml_mark_t *m, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail(struct dec *d, const yaml_mark_t *m, int code, const char *fmt, ...)
{
    char msg[TS_ERR_MSG_MAX];
    int line = (int)m->line + 1;
    int col = (int)m->column + 1;
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    d->out->err_line = line;
    d->out->err_col = col;
    if (d->name)
        return ts_err_set(d->err, code, "%s:%d:%d: %s", d->name, line, col, msg);
    return ts_err_set(d->err, code, "yaml: line %d column %d: %s", line, col, msg);
}

static int parser_fail(struct dec *d)
{
    yaml_parser_t *p = &d->parser;
    const char *problem = p->problem ? p->problem : "unknown error";
    yaml_mark_t m = p->problem_mark;

    if (p->error == YAML_MEMORY_ERROR)
        return ts_err_set(d->err, TS_ENOMEM, "yaml: out of memory");
    if (p->error == YAML_READER_ERROR) {
        memset(&m, 0, sizeof(m));
        for (size_t i = 0; i < p->problem_offset && i < d->len; i++) {
            m.column = d->data[i] == '\n' ? 0 : m.column + 1;
            m.line += d->data[i] == '\n';
        }
    }
    if (p->context)
        return fail(d, &m, TS_EPARSE, "%s (%s at line %d)", problem, p->context,
                    (int)p->context_mark.line + 1);
    return fail(d, &m, TS_EPARSE, "%s", problem);
}

static const char *kind_tag(enum ts__yaml_kind k)
{
    static const char *const names[] = {"!!str", "!!null",  "!!bool",     "!!int",
                                        "!!int", "!!float", "!!timestamp"};

    return names[k];
}

/* Scalars with an explicit tag: !!int/!!float/!!bool/!!null must match
 * what the text resolves to; !!binary is refused; others are strings. */
static int type_tagged(struct dec *d, const yaml_event_t *ev, const char *tag,
                       struct ts__yaml_scalar *sc)
{
    const char *s = (const char *)ev->data.scalar.value;
    const char *t;
    enum ts__yaml_kind want;

    if (strncmp(tag, TAG_PREFIX, strlen(TAG_PREFIX)))
        return 0;
    t = tag + strlen(TAG_PREFIX);
    if (!strcmp(t, "binary"))
        return fail(d, &ev->start_mark, TS_EUNSUPPORTED, "!!binary values are not supported");
    if (!strcmp(t, "int"))
        want = TS__YAML_INT;
    else if (!strcmp(t, "float"))
        want = TS__YAML_FLOAT;
    else if (!strcmp(t, "bool"))
        want = TS__YAML_BOOL;
    else if (!strcmp(t, "null"))
        want = TS__YAML_NULL;
    else
        return 0;
    ts__yaml_resolve_plain(s, ev->data.scalar.length, sc);
    if (want == TS__YAML_FLOAT && (sc->kind == TS__YAML_INT || sc->kind == TS__YAML_UINT)) {
        sc->d = sc->kind == TS__YAML_INT ? (double)sc->i : (double)sc->u;
        sc->kind = TS__YAML_FLOAT;
    }
    if (sc->kind == want || (want == TS__YAML_INT && sc->kind == TS__YAML_UINT))
        return 0;
    return fail(d, &ev->start_mark, TS_EPARSE, "cannot decode %s `%s` as a !!%s",
                kind_tag(sc->kind), s, t);
}

static int type_scalar(struct dec *d, const yaml_event_t *ev, struct ts__yaml_scalar *sc)
{
    const char *tag = (const char *)ev->data.scalar.tag;
    const char *s = (const char *)ev->data.scalar.value;
    size_t len = ev->data.scalar.length;

    memset(sc, 0, sizeof(*sc));
    sc->kind = TS__YAML_STR;
    if (memchr(s, '\0', len))
        return fail(d, &ev->start_mark, TS_EPARSE, "string holds a NUL character");
    if (tag)
        return type_tagged(d, ev, tag, sc);
    if (ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
        ts__yaml_resolve_plain(s, len, sc);
    if (sc->kind == TS__YAML_TIMESTAMP)
        sc->kind = TS__YAML_STR;
    return 0;
}

static cJSON *raw_int(const char *text, double approx)
{
    cJSON *r = cJSON_CreateRaw(text);

    r->valuedouble = approx;
    return r;
}

/* The JSON form of a typed scalar; NULL for infinity and NaN. */
static cJSON *scalar_json(const struct ts__yaml_scalar *sc, const char *s)
{
    char buf[32];

    switch (sc->kind) {
    case TS__YAML_NULL:
        return cJSON_CreateNull();
    case TS__YAML_BOOL:
        return cJSON_CreateBool(sc->b);
    case TS__YAML_INT:
        if (sc->i >= -MAX_EXACT && sc->i <= MAX_EXACT)
            return cJSON_CreateNumber((double)sc->i);
        snprintf(buf, sizeof(buf), "%" PRId64, sc->i);
        return raw_int(buf, (double)sc->i);
    case TS__YAML_UINT:
        snprintf(buf, sizeof(buf), "%" PRIu64, sc->u);
        return raw_int(buf, (double)sc->u);
    case TS__YAML_FLOAT:
        return isfinite(sc->d) ? cJSON_CreateNumber(sc->d) : NULL;
    default:
        return cJSON_CreateString(s);
    }
}

/* The map-key form sigs.k8s.io/yaml gives a typed scalar; NULL for null. */
static char *scalar_key(const struct ts__yaml_scalar *sc, const char *s)
{
    char buf[40];

    switch (sc->kind) {
    case TS__YAML_NULL:
        return NULL;
    case TS__YAML_BOOL:
        return ts_xstrdup(sc->b ? "true" : "false");
    case TS__YAML_INT:
        snprintf(buf, sizeof(buf), "%" PRId64, sc->i);
        break;
    case TS__YAML_UINT:
        snprintf(buf, sizeof(buf), "%" PRIu64, sc->u);
        break;
    case TS__YAML_FLOAT:
        if (isnan(sc->d))
            return ts_xstrdup(".nan");
        if (isinf(sc->d))
            return ts_xstrdup(sc->d > 0 ? ".inf" : "-.inf");
        ts__yaml_format_float(sc->d, 32, buf, sizeof(buf));
        break;
    default:
        return ts_xstrdup(s);
    }
    return ts_xstrdup(buf);
}

static int height(const cJSON *v)
{
    int h = 0;

    for (const cJSON *c = v ? v->child : NULL; c; c = c->next) {
        int ch = height(c);

        h = ch > h ? ch : h;
    }
    return v ? h + 1 : 0;
}

/* Registers an anchor.  Ownership: value and loc are copied, key is
 * consumed. */
static void add_anchor(struct dec *d, const char *name, const cJSON *value,
                       const struct ts__yaml_loc *loc, size_t nodes, char *key)
{
    struct anchor *a;

    TS_GROW(d->anchors, d->acap, d->nanchors + 1);
    a = &d->anchors[d->nanchors++];
    a->name = ts_xstrdup(name);
    a->value = value ? cJSON_Duplicate(value, 1) : NULL;
    a->key = key;
    ts__yaml_loc_copy(&a->loc, loc);
    a->nodes = nodes;
    a->height = height(value);
}

static const struct anchor *find_anchor(const struct dec *d, const char *name)
{
    for (size_t i = d->nanchors; i > 0; i--)
        if (!strcmp(d->anchors[i - 1].name, name))
            return &d->anchors[i - 1];
    return NULL;
}

static void clear_anchors(struct dec *d)
{
    for (size_t i = 0; i < d->nanchors; i++) {
        free(d->anchors[i].name);
        free(d->anchors[i].key);
        cJSON_Delete(d->anchors[i].value);
        ts__yaml_loc_release(&d->anchors[i].loc);
    }
    d->nanchors = 0;
}

static struct frame *top_frame(struct dec *d)
{
    return d->depth ? &d->stack[d->depth - 1] : NULL;
}

/* Whether the next node of the innermost collection is a map key. */
static int key_expected(struct dec *d)
{
    struct frame *f = top_frame(d);

    return f && cJSON_IsObject(f->node) && !f->key;
}

/* Position of key among the members of f's mapping, or SIZE_MAX.  Small
 * mappings are scanned; large ones use f->index (kept by add_member()). */
static size_t find_member(const struct frame *f, const char *key)
{
    void *pos;

    if (f->index) {
        pos = ts_hmap_get(f->index, key);
        return pos ? (size_t)(uintptr_t)pos - 1 : SIZE_MAX;
    }
    for (size_t i = 0; i < f->loc.n; i++)
        if (!strcmp(f->loc.kids[i].key, key))
            return i;
    return SIZE_MAX;
}

/* Appends key: v to f's mapping.  Ownership: v and loc are consumed. */
static void add_member(struct frame *f, const char *key, cJSON *v, struct ts__yaml_loc *loc)
{
    cJSON_AddItemToObject(f->node, key, v);
    ts__yaml_loc_add(&f->loc, loc, key);
    if (f->index) {
        ts_hmap_put(f->index, key, (void *)(uintptr_t)f->loc.n);
    } else if (f->loc.n >= INDEX_AT) {
        f->index = ts_xmalloc(sizeof(*f->index));
        ts_hmap_init(f->index);
        for (size_t i = 0; i < f->loc.n; i++)
            ts_hmap_put(f->index, f->loc.kids[i].key, (void *)(uintptr_t)(i + 1));
    }
}

static void frame_release(struct frame *f)
{
    if (f->index) {
        ts_hmap_release(f->index);
        free(f->index);
    }
    free(f->anchor);
    free(f->key);
}

/* Copies the members of src that dst lacks into dst, marked as merged. */
static void merge_one(struct frame *dst, const cJSON *src, const struct ts__yaml_loc *srcloc)
{
    size_t i = 0;

    for (const cJSON *c = src->child; c; c = c->next, i++) {
        struct ts__yaml_loc l;

        if (find_member(dst, c->string) != SIZE_MAX)
            continue;
        ts__yaml_loc_copy(&l, &srcloc->kids[i]);
        l.merged = 1;
        add_member(dst, c->string, cJSON_Duplicate(c, 1), &l);
    }
}

static int merge(struct dec *d, struct frame *f, const cJSON *v, const struct ts__yaml_loc *loc)
{
    int maps = cJSON_IsArray(v);
    size_t i = 0;

    if (cJSON_IsObject(v)) {
        merge_one(f, v, loc);
        return 0;
    }
    for (const cJSON *c = maps ? v->child : NULL; c; c = c->next)
        maps = maps && cJSON_IsObject(c);
    if (!maps)
        return fail(d, &f->key_mark, TS_EPARSE,
                    "map merge requires a map or a sequence of maps as the value");
    for (const cJSON *c = v->child; c; c = c->next, i++)
        merge_one(f, c, &loc->kids[i]);
    return 0;
}

/* Adds key: v to the mapping of frame f.  A key set by a merge is
 * overridden; any other repeated key is an error.  Ownership: v and loc
 * are consumed. */
static int put_member(struct dec *d, struct frame *f, const char *key, cJSON *v,
                      struct ts__yaml_loc *loc)
{
    size_t i = find_member(f, key);

    loc->line = (int)f->key_mark.line + 1;
    if (i == SIZE_MAX) {
        add_member(f, key, v, loc);
        return 0;
    }
    if (!f->loc.kids[i].merged) {
        cJSON_Delete(v);
        ts__yaml_loc_release(loc);
        return fail(d, &f->key_mark, TS_EPARSE, "key \"%s\" already set in map", key);
    }
    cJSON_ReplaceItemInObjectCaseSensitive(f->node, key, v);
    ts__yaml_loc_replace(&f->loc, i, loc);
    return 0;
}

/* Attaches a finished node to the innermost collection (or makes it the
 * document root).  Ownership: v and loc are consumed. */
static int add_value(struct dec *d, cJSON *v, struct ts__yaml_loc *loc)
{
    struct frame *f = top_frame(d);
    char *key;
    int rc;

    if (!f) {
        d->root = v;
        d->root_loc = *loc;
        return 0;
    }
    if (cJSON_IsArray(f->node)) {
        cJSON_AddItemToArray(f->node, v);
        ts__yaml_loc_add(&f->loc, loc, NULL);
        return 0;
    }
    key = f->key;
    f->key = NULL;
    if (!f->merge)
        rc = put_member(d, f, key, v, loc);
    else {
        rc = merge(d, f, v, loc);
        cJSON_Delete(v);
        ts__yaml_loc_release(loc);
    }
    free(key);
    return rc;
}

static int set_key(struct dec *d, const yaml_event_t *ev, const struct ts__yaml_scalar *sc)
{
    struct frame *f = top_frame(d);
    const char *s = (const char *)ev->data.scalar.value;
    const char *tag = (const char *)ev->data.scalar.tag;

    TS_BUG_ON(!f); /* a key is only expected inside a mapping */
    f->key_mark = ev->start_mark;
    f->merge = tag ? !strcmp(tag, TAG_PREFIX "merge")
                   : ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && !strcmp(s, "<<");
    f->key = f->merge ? ts_xstrdup("<<") : scalar_key(sc, s);
    if (!f->key)
        return fail(d, &ev->start_mark, TS_EPARSE, "null is not a valid map key");
    return 0;
}

static int on_scalar(struct dec *d, const yaml_event_t *ev)
{
    const char *s = (const char *)ev->data.scalar.value;
    const char *anchor = (const char *)ev->data.scalar.anchor;
    struct ts__yaml_loc loc = {0};
    struct ts__yaml_scalar sc;
    cJSON *v;
    int rc = type_scalar(d, ev, &sc);

    if (rc)
        return rc;
    d->nodes++;
    loc.line = (int)ev->start_mark.line + 1;
    v = scalar_json(&sc, s);
    if (anchor)
        add_anchor(d, anchor, v, &loc, 1, scalar_key(&sc, s));
    if (key_expected(d)) {
        cJSON_Delete(v);
        return set_key(d, ev, &sc);
    }
    if (!v)
        return fail(d, &ev->start_mark, TS_EPARSE,
                    "%s is not representable in JSON (infinity or NaN)", s);
    return add_value(d, v, &loc);
}

static int on_alias(struct dec *d, const yaml_event_t *ev)
{
    const char *name = (const char *)ev->data.alias.anchor;
    const struct anchor *a = find_anchor(d, name);
    struct ts__yaml_loc loc;

    if (!a)
        return fail(d, &ev->start_mark, TS_EPARSE, "unknown anchor '%s' referenced", name);
    if (key_expected(d)) {
        if (!a->key)
            return fail(d, &ev->start_mark, TS_EPARSE, "alias *%s cannot be a map key", name);
        struct frame *f = top_frame(d);

        TS_BUG_ON(!f); /* a key is only expected inside a mapping */
        f->key = ts_xstrdup(a->key);
        f->key_mark = ev->start_mark;
        f->merge = 0;
        return 0;
    }
    if (!a->value)
        return fail(d, &ev->start_mark, TS_EPARSE, "alias *%s is not representable in JSON", name);
    if (d->alias_nodes + a->nodes > ALIAS_BASE + ALIAS_RATIO * (d->nodes - d->alias_nodes) ||
        d->depth + (size_t)a->height > TS_YAML_MAX_DEPTH)
        return fail(d, &ev->start_mark, TS_EOVERFLOW, "alias *%s expands the document too much",
                    name);
    d->alias_nodes += a->nodes;
    d->nodes += a->nodes;
    ts__yaml_loc_copy(&loc, &a->loc);
    loc.line = (int)ev->start_mark.line + 1;
    return add_value(d, cJSON_Duplicate(a->value, 1), &loc);
}

static int on_start(struct dec *d, const yaml_event_t *ev, int is_map, const yaml_char_t *anchor)
{
    struct frame *f;

    if (key_expected(d))
        return fail(d, &ev->start_mark, TS_EPARSE, "a %s cannot be a map key",
                    is_map ? "mapping" : "sequence");
    if (d->depth >= TS_YAML_MAX_DEPTH)
        return fail(d, &ev->start_mark, TS_EOVERFLOW, "nesting deeper than %d levels",
                    TS_YAML_MAX_DEPTH);
    TS_GROW(d->stack, d->cap, d->depth + 1);
    f = &d->stack[d->depth++];
    memset(f, 0, sizeof(*f));
    f->node = is_map ? cJSON_CreateObject() : cJSON_CreateArray();
    f->loc.line = (int)ev->start_mark.line + 1;
    f->loc.is_array = !is_map;
    f->anchor = anchor ? ts_xstrdup((const char *)anchor) : NULL;
    f->nodes_at_start = d->nodes++;
    return 0;
}

static int on_end(struct dec *d)
{
    struct frame f = d->stack[--d->depth];

    if (f.anchor)
        add_anchor(d, f.anchor, f.node, &f.loc, d->nodes - f.nodes_at_start, NULL);
    frame_release(&f);
    return add_value(d, f.node, &f.loc);
}

/* Keeps the finished document unless it is null (empty). */
static void on_document_end(struct dec *d)
{
    struct ts_yaml_stream *s = d->out;
    struct ts_yaml_doc *doc;

    clear_anchors(d);
    if (!d->root || cJSON_IsNull(d->root)) {
        cJSON_Delete(d->root);
        ts__yaml_loc_release(&d->root_loc);
        d->root = NULL;
        return;
    }
    TS_GROW(s->docs, s->cap, s->n + 1);
    doc = &s->docs[s->n++];
    doc->root = d->root;
    doc->line = d->root_loc.line;
    doc->name = d->name ? ts_xstrdup(d->name) : NULL;
    doc->locs = ts_xmalloc(sizeof(*doc->locs));
    *doc->locs = d->root_loc;
    memset(&d->root_loc, 0, sizeof(d->root_loc));
    d->root = NULL;
}

static int dispatch(struct dec *d, const yaml_event_t *ev)
{
    switch (ev->type) {
    case YAML_SCALAR_EVENT:
        return on_scalar(d, ev);
    case YAML_ALIAS_EVENT:
        return on_alias(d, ev);
    case YAML_SEQUENCE_START_EVENT:
        return on_start(d, ev, 0, ev->data.sequence_start.anchor);
    case YAML_MAPPING_START_EVENT:
        return on_start(d, ev, 1, ev->data.mapping_start.anchor);
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT:
        return on_end(d);
    case YAML_DOCUMENT_END_EVENT:
        on_document_end(d);
        return 0;
    default:
        return 0;
    }
}

static int run(struct dec *d)
{
    yaml_event_t ev;
    int rc = 0;
    int done = 0;

    while (!rc && !done) {
        if (!yaml_parser_parse(&d->parser, &ev))
            return parser_fail(d);
        done = ev.type == YAML_STREAM_END_EVENT;
        rc = dispatch(d, &ev);
        yaml_event_delete(&ev);
    }
    return rc;
}

static void dec_release(struct dec *d)
{
    while (d->depth) {
        struct frame *f = &d->stack[--d->depth];

        cJSON_Delete(f->node);
        ts__yaml_loc_release(&f->loc);
        frame_release(f);
    }
    free(d->stack);
    clear_anchors(d);
    free(d->anchors);
    cJSON_Delete(d->root);
    ts__yaml_loc_release(&d->root_loc);
    yaml_parser_delete(&d->parser);
}

int ts_yaml_decode(const char *data, size_t len, const char *name, struct ts_yaml_stream *out,
                   struct ts_err *err)
{
    size_t first = out->n;
    struct dec d;
    int rc;

    memset(&d, 0, sizeof(d));
    d.name = name;
    d.data = data ? data : "";
    d.len = data ? len : 0;
    d.out = out;
    d.err = err;
    out->err_line = 0;
    out->err_col = 0;
    if (!yaml_parser_initialize(&d.parser))
        return ts_err_set(err, TS_ENOMEM, "yaml: cannot initialise the parser");
    yaml_parser_set_input_string(&d.parser, (const unsigned char *)d.data, d.len);
    rc = run(&d);
    dec_release(&d);
    if (rc)
        ts__yaml_stream_truncate(out, first);
    return rc;
}

int ts_yaml_decode_file(const char *path, struct ts_yaml_stream *out, struct ts_err *err)
{
    struct ts_buf b;
    char chunk[65536];
    size_t n;
    FILE *f = fopen(path, "rb");
    int rc = 0;

    if (!f)
        return ts_err_set(err, TS_EIO, "open '%s': %s", path, strerror(errno));
    ts_buf_init(&b, 64u << 20);
    while (!rc && (n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        rc = ts_buf_add(&b, chunk, n);
    if (!rc && ferror(f))
        rc = ts_err_set(err, TS_EIO, "read '%s': %s", path, strerror(errno));
    else if (rc)
        ts_err_set(err, rc, "read '%s': file larger than 64 MiB", path);
    fclose(f);
    if (!rc)
        rc = ts_yaml_decode(b.ptr, b.len, path, out, err);
    ts_buf_release(&b);
    return rc;
}

int ts_yaml_decode_one(const char *data, size_t len, cJSON **out, struct ts_err *err)
{
    struct ts_yaml_stream s = TS_YAML_STREAM_INIT;
    int rc = ts_yaml_decode(data, len, NULL, &s, err);

    *out = NULL;
    if (!rc && s.n != 1)
        rc = ts_err_set(err, TS_EINVAL, "expected one YAML document, found %zu", s.n);
    if (!rc)
        *out = ts_yaml_doc_take(&s.docs[0]);
    ts_yaml_stream_release(&s);
    return rc;
}
