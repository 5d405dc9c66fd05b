/*
 * ssa.c - server-side apply: field sets as path lists, FieldsV1, the
 * merge, conflicts and managedFields entries (see ssa.h).
 */
#include "apiserver/ssa.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/json.h"
#include "util/alloc.h"
#include "util/hmap.h"

/* --- schema lookups ------------------------------------------------------- */

static const cJSON *sch_member(const cJSON *sch, const char *name)
{
    const cJSON *p = ts_json_get(sch, "properties");
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(p, name);

    if (m)
        return m;
    m = cJSON_GetObjectItemCaseSensitive(sch, "additionalProperties");
    return cJSON_IsObject(m) ? m : NULL;
}

/* The map keys of a list-type map list, or NULL (atomic). */
static const cJSON *map_keys(const cJSON *sch)
{
    const char *lt = ts_json_get_string(sch, "x-kubernetes-list-type");
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(sch, "x-kubernetes-list-map-keys");

    return lt && !strcmp(lt, "map") && cJSON_GetArraySize(k) > 0 ? k : NULL;
}

static char *key_token(const cJSON *item, const cJSON *keys)
{
    cJSON *k = cJSON_CreateObject();
    const cJSON *e;
    char *txt, *tok;
    size_t n;

    /* references, not copies: the object only lives to be printed */
    cJSON_ArrayForEach(e, keys)
    {
        cJSON *v =
            cJSON_IsString(e) ? cJSON_GetObjectItemCaseSensitive(item, e->valuestring) : NULL;
        if (v)
            cJSON_AddItemReferenceToObject(k, e->valuestring, v);
    }
    txt = ts_json_dumps(k, TS_JSON_COMPACT);
    cJSON_Delete(k);
    n = strlen(txt);
    tok = ts_xmalloc(n + 3);
    memcpy(tok, "k:", 2);
    memcpy(tok + 2, txt, n + 1);
    free(txt);
    return tok;
}

/* --- paths ------------------------------------------------------------------ */

static void push_path(struct ts_strlist *out, const char *prefix, const char *tok)
{
    struct ts_buf b = TS_BUF_INIT;

    ts_buf_addf(&b, "%s%s%s", prefix, prefix[0] ? TS_SSA_SEP : "", tok);
    ts_strlist_push(out, b.ptr);
    ts_buf_release(&b);
}

/*
 * One walk serves both the path list of an object and the comparison with
 * another version of it: each path is visited with its node in the walked
 * object and its counterpart in the other (NULL when absent), found by
 * descending both at once.  `nav` is the node the path leads to in the
 * walked object, as ts_ssa_get() finds it: the walked node itself, except
 * below the second of two list items with the same key.  Looking every
 * path up again from the root in both objects would cost a walk per path,
 * under the server's lock.
 */
struct pair_walk {
    struct ts_strlist *all;   /* every path, or NULL */
    struct ts_strlist *moved; /* changed paths, or NULL */
    int gone;                 /* walking the old object: moved are the paths the new one lacks */
};

static void emit(const struct pair_walk *pw, const char *path, const cJSON *self,
                 const cJSON *other)
{
    if (pw->all)
        ts_strlist_push(pw->all, path);
    if (pw->moved && (pw->gone ? !other : !other || !ts_json_equal(other, self)))
        ts_strlist_push(pw->moved, path);
}

/* The item of arr that item's key token names (the first object whose
 * key fields equal item's), as step() finds it. */
static const cJSON *find_item(const cJSON *arr, const cJSON *item, const cJSON *keys)
{
    const cJSON *it, *e;

    if (!cJSON_IsArray(arr))
        return NULL;
    cJSON_ArrayForEach(it, arr)
    {
        int ok = cJSON_IsObject(it);

        cJSON_ArrayForEach(e, keys)
        {
            const cJSON *v;

            if (!ok)
                break;
            v = cJSON_IsString(e) ? cJSON_GetObjectItemCaseSensitive(item, e->valuestring) : NULL;
            if (v)
                ok = ts_json_equal(v, cJSON_GetObjectItemCaseSensitive(it, e->valuestring));
        }
        if (ok)
            return it;
    }
    return NULL;
}

static const cJSON *member_of(const cJSON *obj, const char *name)
{
    return cJSON_IsObject(obj) ? cJSON_GetObjectItemCaseSensitive(obj, name) : NULL;
}

static void walk(const cJSON *node, const cJSON *nav, const cJSON *other, const cJSON *sch,
                 const char *prefix, const struct pair_walk *pw);

static void walk_list(const cJSON *arr, const cJSON *nav, const cJSON *oarr, const cJSON *sch,
                      const cJSON *keys, const char *prefix, const struct pair_walk *pw)
{
    const cJSON *it;

    cJSON_ArrayForEach(it, arr)
    {
        char *tok = key_token(it, keys);
        const cJSON *other = find_item(oarr, it, keys), *at = find_item(nav, it, keys);
        struct ts_buf p = TS_BUF_INIT;

        ts_buf_adds(&p, prefix);
        ts_buf_adds(&p, TS_SSA_SEP);
        ts_buf_adds(&p, tok);
        ts_buf_adds(&p, TS_SSA_SEP ".");
        emit(pw, p.ptr, at, other); /* the item itself */
        p.len -= 2;                 /* its members' prefix */
        p.ptr[p.len] = '\0';
        if (cJSON_IsObject(it))
            walk(it, at, other, cJSON_GetObjectItemCaseSensitive(sch, "items"), p.ptr, pw);
        ts_buf_release(&p);
        free(tok);
    }
}

static void walk_member(const cJSON *m, const cJSON *nav, const cJSON *other, const cJSON *sch,
                        const char *prefix, const struct pair_walk *pw)
{
    const cJSON *msch = sch_member(sch, m->string), *keys = map_keys(msch);
    struct ts_buf p = TS_BUF_INIT;

    /* no printf: this runs for every field of every write */
    ts_buf_adds(&p, prefix);
    if (prefix[0])
        ts_buf_adds(&p, TS_SSA_SEP);
    ts_buf_adds(&p, "f:");
    ts_buf_adds(&p, m->string);
    if (cJSON_IsObject(m) && m->child)
        walk(m, nav, other, msch, p.ptr, pw);
    else if (cJSON_IsArray(m) && keys && m->child)
        walk_list(m, nav, other, msch, keys, p.ptr, pw);
    else
        emit(pw, p.ptr, nav, other);
    ts_buf_release(&p);
}

static void walk(const cJSON *node, const cJSON *nav, const cJSON *other, const cJSON *sch,
                 const char *prefix, const struct pair_walk *pw)
{
    const cJSON *m;

    cJSON_ArrayForEach(m, node)
        walk_member(m, member_of(nav, m->string), member_of(other, m->string), sch, prefix, pw);
}

static int tracked_meta(const char *k)
{
    return !strcmp(k, "labels") || !strcmp(k, "annotations") || !strcmp(k, "finalizers") ||
           !strcmp(k, "ownerReferences");
}

/* Walks obj's tracked fields with their counterparts in other (NULL ok). */
static void walk_object(const cJSON *obj, const cJSON *other, const struct ts_ssa_ctx *c,
                        const struct pair_walk *pw)
{
    int status = c->subresource && !strcmp(c->subresource, "status");
    const cJSON *m, *x, *omd = member_of(other, "metadata");

    cJSON_ArrayForEach(m, obj)
    {
        if (!strcmp(m->string, "apiVersion") || !strcmp(m->string, "kind") ||
            status != !strcmp(m->string, "status"))
            continue;
        if (strcmp(m->string, "metadata")) {
            walk_member(m, m, member_of(other, m->string), c->schema, "", pw);
            continue;
        }
        cJSON_ArrayForEach(x, m) if (tracked_meta(x->string))
            walk_member(x, x, member_of(omd, x->string), NULL, "f:metadata", pw);
    }
}

void ts_ssa_paths(const cJSON *obj, const struct ts_ssa_ctx *c, struct ts_strlist *out)
{
    struct pair_walk pw = {out, NULL, 0};

    walk_object(obj, NULL, c, &pw);
}

/* --- FieldsV1 ----------------------------------------------------------------- */

/* Splits a path into its tokens (in place copies). */
static size_t tokens(const char *path, char **tok, size_t max, char **store)
{
    char *p = *store = ts_xstrdup(path);
    size_t n = 0;

    while (p && n < max) {
        char *sep = strchr(p, TS_SSA_SEP[0]);

        if (sep)
            *sep = '\0';
        tok[n++] = p;
        p = sep ? sep + 1 : NULL;
    }
    return n;
}

cJSON *ts_ssa_fieldsv1(const struct ts_strlist *paths)
{
    cJSON *root = cJSON_CreateObject();

    for (size_t i = 0; i < paths->n; i++) {
        char *tok[64], *store;
        size_t n = tokens(paths->items[i], tok, 64, &store);
        cJSON *node = root;

        for (size_t j = 0; j < n; j++) {
            cJSON *ch = cJSON_GetObjectItemCaseSensitive(node, tok[j]);
            if (!ch)
                ch = cJSON_AddObjectToObject(node, tok[j]);
            node = ch;
        }
        free(store);
    }
    return root;
}

static void fields_walk(const cJSON *node, const char *prefix, struct ts_strlist *out)
{
    const cJSON *m;

    cJSON_ArrayForEach(m, node)
    {
        if (!cJSON_IsObject(m))
            continue;
        if (!m->child) {
            push_path(out, prefix, m->string);
        } else {
            struct ts_buf p = TS_BUF_INIT;
            ts_buf_addf(&p, "%s%s%s", prefix, prefix[0] ? TS_SSA_SEP : "", m->string);
            fields_walk(m, p.ptr, out);
            ts_buf_release(&p);
        }
    }
}

void ts_ssa_fieldsv1_paths(const cJSON *fields, struct ts_strlist *out)
{
    fields_walk(fields, "", out);
}

/* Child of node for one token (NULL when absent). */
static cJSON *step(cJSON *node, const char *tok)
{
    cJSON *keys = NULL, *it;

    if (!strcmp(tok, "."))
        return node;
    if (!strncmp(tok, "f:", 2))
        return cJSON_IsObject(node) ? cJSON_GetObjectItemCaseSensitive(node, tok + 2) : NULL;
    if (strncmp(tok, "k:", 2) || !cJSON_IsArray(node) ||
        ts_json_parse(tok + 2, strlen(tok + 2), &keys, NULL))
        return NULL;
    cJSON_ArrayForEach(it, node)
    {
        const cJSON *k;
        int ok = cJSON_IsObject(it);

        cJSON_ArrayForEach(k, keys) ok &=
            ts_json_equal(k, cJSON_GetObjectItemCaseSensitive(it, k->string));
        if (ok)
            break;
    }
    cJSON_Delete(keys);
    return it;
}

const cJSON *ts_ssa_get(const cJSON *obj, const char *path)
{
    char *tok[64], *store;
    size_t n = tokens(path, tok, 64, &store);
    union {
        const cJSON *c;
        cJSON *m;
    } node = {obj}; /* step() does not modify; it serves ts_ssa_remove() too */

    for (size_t i = 0; i < n && node.m; i++)
        node.m = step(node.m, tok[i]);
    free(store);
    return node.c;
}

int ts_ssa_remove(cJSON *obj, const char *path)
{
    char *tok[64], *store;
    size_t n = tokens(path, tok, 64, &store);
    cJSON *parent = obj, *target;
    int done = 0;

    if (n && !strcmp(tok[n - 1], "."))
        n--;
    for (size_t i = 0; n && i + 1 < n && parent; i++)
        parent = step(parent, tok[i]);
    if (n && parent && (target = step(parent, tok[n - 1])) && target != parent) {
        cJSON_Delete(cJSON_DetachItemViaPointer(parent, target));
        done = 1;
    }
    free(store);
    return done;
}

/* --- merge ------------------------------------------------------------------ */

static cJSON *merge(const cJSON *live, const cJSON *cfg, const cJSON *sch);

static void merge_list(cJSON *dst, const cJSON *cfg, const cJSON *sch, const cJSON *keys)
{
    const cJSON *it;

    cJSON_ArrayForEach(it, cfg)
    {
        char *tok = key_token(it, keys);
        cJSON *cur = step(dst, tok);

        if (cur && cJSON_IsObject(it)) {
            cJSON *m = merge(cur, it, cJSON_GetObjectItemCaseSensitive(sch, "items"));
            cJSON_ReplaceItemViaPointer(dst, cur, m);
        } else {
            cJSON_AddItemToArray(dst, cJSON_Duplicate(it, 1));
        }
        free(tok);
    }
}

static cJSON *merge(const cJSON *live, const cJSON *cfg, const cJSON *sch)
{
    cJSON *out = cJSON_IsObject(live) ? cJSON_Duplicate(live, 1) : cJSON_CreateObject();
    const cJSON *m;

    cJSON_ArrayForEach(m, cfg)
    {
        cJSON *cur = cJSON_GetObjectItemCaseSensitive(out, m->string), *nv;
        const cJSON *msch = sch_member(sch, m->string), *keys = map_keys(msch);

        if (cJSON_IsObject(m) && cJSON_IsObject(cur))
            nv = merge(cur, m, msch);
        else if (cJSON_IsArray(m) && cJSON_IsArray(cur) && keys) {
            nv = cJSON_Duplicate(cur, 1);
            merge_list(nv, m, msch, keys);
        } else
            nv = cJSON_Duplicate(m, 1);
        if (cur)
            cJSON_ReplaceItemViaPointer(out, cur, nv);
        else
            cJSON_AddItemToObject(out, m->string, nv);
    }
    return out;
}

/* --- managedFields ------------------------------------------------------------ */

struct set {
    struct ts_strlist list;
    struct ts_hmap idx;
};

static void set_init(struct set *s)
{
    ts_strlist_init(&s->list);
    ts_hmap_init(&s->idx);
}

static void set_index(struct set *s)
{
    for (size_t i = 0; i < s->list.n; i++)
        ts_hmap_put(&s->idx, s->list.items[i], s);
}

static int set_has(const struct set *s, const char *p)
{
    return ts_hmap_get(&s->idx, p) != NULL;
}

static void set_release(struct set *s)
{
    ts_strlist_release(&s->list);
    ts_hmap_release(&s->idx);
}

static void entry_set(const cJSON *e, struct set *s)
{
    set_init(s);
    ts_ssa_fieldsv1_paths(cJSON_GetObjectItemCaseSensitive(e, "fieldsV1"), &s->list);
    set_index(s);
}

static int is_entry(const cJSON *e, const char *manager, const char *op, const char *sub)
{
    const char *m = ts_json_get_string(e, "manager"), *o = ts_json_get_string(e, "operation");
    const char *es = ts_json_get_string(e, "subresource");

    return m && o && !strcmp(m, manager) && !strcmp(o, op) && !strcmp(es ? es : "", sub ? sub : "");
}

static cJSON *new_entry(const struct ts_ssa_ctx *c, const char *op, const struct ts_strlist *paths)
{
    cJSON *e = cJSON_CreateObject();

    cJSON_AddStringToObject(e, "manager", c->manager);
    cJSON_AddStringToObject(e, "operation", op);
    cJSON_AddStringToObject(e, "apiVersion", c->api_version);
    cJSON_AddStringToObject(e, "time", c->time);
    cJSON_AddStringToObject(e, "fieldsType", "FieldsV1");
    cJSON_AddItemToObject(e, "fieldsV1", ts_ssa_fieldsv1(paths));
    if (c->subresource)
        cJSON_AddStringToObject(e, "subresource", c->subresource);
    return e;
}

/* Copy of entry e without the paths in drop (NULL when nothing is left). */
static cJSON *entry_minus(const cJSON *e, const struct set *drop)
{
    struct set have;
    struct ts_strlist keep = TS_STRLIST_INIT;
    cJSON *out = NULL;

    entry_set(e, &have);
    for (size_t i = 0; i < have.list.n; i++)
        if (!set_has(drop, have.list.items[i]))
            ts_strlist_push(&keep, have.list.items[i]);
    if (keep.n) {
        out = cJSON_Duplicate(e, 1);
        cJSON_ReplaceItemInObjectCaseSensitive(out, "fieldsV1", ts_ssa_fieldsv1(&keep));
    }
    ts_strlist_release(&keep);
    set_release(&have);
    return out;
}

static void set_managed(cJSON *obj, cJSON *mf)
{
    cJSON *md = cJSON_GetObjectItemCaseSensitive(obj, "metadata");

    if (!cJSON_IsObject(md)) {
        cJSON_DeleteItemFromObjectCaseSensitive(obj, "metadata");
        md = cJSON_AddObjectToObject(obj, "metadata");
    }
    cJSON_DeleteItemFromObjectCaseSensitive(md, "managedFields");
    if (cJSON_GetArraySize(mf))
        cJSON_AddItemToObject(md, "managedFields", mf);
    else
        cJSON_Delete(mf);
}

/* A managedFields entry named as kube-apiserver's conflicts name it: an
 * Update's apiVersion is part of the name, an Apply's is not (the time of
 * neither: the manager's identity leaves it out). */
static char *manager_name(const cJSON *e)
{
    const char *m = ts_json_get_string(e, "manager"), *sub = ts_json_get_string(e, "subresource");
    const char *op = ts_json_get_string(e, "operation"), *av = ts_json_get_string(e, "apiVersion");
    struct ts_buf b = TS_BUF_INIT;

    ts_buf_addf(&b, "\"%s\"", m ? m : "");
    if (sub && *sub)
        ts_buf_addf(&b, " with subresource \"%s\"", sub);
    if (op && !strcmp(op, "Update"))
        ts_buf_addf(&b, " using %s", av ? av : "");
    return ts_buf_take(&b);
}

static void add_conflict(struct ts_ssa_conflicts *cf, const cJSON *e, const char *path)
{
    struct ts_buf f = TS_BUF_INIT;
    char *tok[64], *store;
    size_t n = tokens(path, tok, 64, &store);

    for (size_t i = 0; i < n; i++) {
        if (!strncmp(tok[i], "f:", 2))
            ts_buf_addf(&f, ".%s", tok[i] + 2);
        else if (!strncmp(tok[i], "k:", 2))
            ts_buf_addf(&f, "[%s]", tok[i] + 2);
    }
    free(store);
    TS_GROW(cf->items, cf->cap, cf->n + 1);
    cf->items[cf->n].manager = ts_xstrdup(ts_json_get_string(e, "manager"));
    cf->items[cf->n].who = manager_name(e);
    cf->items[cf->n++].field = ts_buf_take(&f);
}

/* Fields of other managers that cfg sets to another value; the paths go
 * to forced. */
static void find_conflicts(const cJSON *live, const cJSON *cfg, const struct set *applied,
                           const struct ts_ssa_ctx *c, struct ts_ssa_conflicts *cf,
                           struct set *forced)
{
    const cJSON *e;

    cJSON_ArrayForEach(e, ts_json_get(live, "metadata.managedFields"))
    {
        struct set owned;

        if (is_entry(e, c->manager, "Apply", c->subresource))
            continue;
        entry_set(e, &owned);
        for (size_t i = 0; i < owned.list.n; i++) {
            const char *p = owned.list.items[i];
            size_t pl = strlen(p);

            const cJSON *want = ts_ssa_get(cfg, p), *have = ts_ssa_get(live, p);

            if (!set_has(applied, p) || (pl && p[pl - 1] == '.') || ts_json_equal(want, have) ||
                (cJSON_IsObject(want) && cJSON_IsObject(have)))
                continue;
            add_conflict(cf, e, p);
            ts_strlist_push(&forced->list, p);
        }
        set_release(&owned);
    }
    set_index(forced);
}

/* Whether the set has p or a path below it. */
static int covers(const struct set *s, const char *p)
{
    size_t n = strlen(p);

    if (set_has(s, p))
        return 1;
    for (size_t i = 0; i < s->list.n; i++)
        if (!strncmp(s->list.items[i], p, n) && s->list.items[i][n] == TS_SSA_SEP[0])
            return 1;
    return 0;
}

/* Whether an entry of mf other than skip owns path p (or below it). */
static int owned_by_other(const cJSON *mf, const cJSON *skip, const char *p)
{
    const cJSON *e;
    int found = 0;

    cJSON_ArrayForEach(e, mf)
    {
        struct set s;

        if (e == skip)
            continue;
        entry_set(e, &s);
        found = covers(&s, p);
        set_release(&s);
        if (found)
            return 1;
    }
    return 0;
}

static const cJSON *find_entry(const cJSON *mf, const char *manager, const char *op,
                               const char *sub)
{
    const cJSON *e;

    cJSON_ArrayForEach(e, mf) if (is_entry(e, manager, op, sub)) return e;
    return NULL;
}

/* After p was removed: parent maps left empty go too, unless someone
 * still applies or owns them. */
static void prune_parents(cJSON *obj, const cJSON *mf, const cJSON *own, const struct set *applied,
                          const char *p)
{
    char *q = ts_xstrdup(p), *sep;

    while ((sep = strrchr(q, TS_SSA_SEP[0]))) {
        const cJSON *node;

        *sep = '\0';
        node = ts_ssa_get(obj, q);
        if (!cJSON_IsObject(node) || node->child || covers(applied, q) ||
            owned_by_other(mf, own, q) || strncmp(q, "f:", 2))
            break;
        ts_ssa_remove(obj, q);
    }
    free(q);
}

/* Removes fields this manager applied before and no longer applies. */
static void drop_unapplied(cJSON *obj, const cJSON *mf, const cJSON *own, const struct set *applied)
{
    struct set prev;

    if (!own)
        return;
    entry_set(own, &prev);
    for (size_t i = 0; i < prev.list.n; i++) {
        const char *p = prev.list.items[i];
        if (!covers(applied, p) && !owned_by_other(mf, own, p) && ts_ssa_remove(obj, p))
            prune_parents(obj, mf, own, applied, p);
    }
    set_release(&prev);
}

int ts_ssa_apply(const cJSON *live, const cJSON *cfg, int force, const struct ts_ssa_ctx *c,
                 cJSON **out, struct ts_ssa_conflicts *cf)
{
    const cJSON *mf = ts_json_get(live, "metadata.managedFields"), *own, *e;
    struct set applied, forced;
    cJSON *obj, *nmf;

    set_init(&applied);
    set_init(&forced);
    ts_ssa_paths(cfg, c, &applied.list);
    set_index(&applied);
    if (live)
        find_conflicts(live, cfg, &applied, c, cf, &forced);
    if (cf->n && !force) {
        set_release(&applied);
        set_release(&forced);
        return 1;
    }
    own = find_entry(mf, c->manager, "Apply", c->subresource);
    obj = merge(live, cfg, c->schema);
    drop_unapplied(obj, mf, own, &applied);
    nmf = cJSON_CreateArray();
    cJSON_ArrayForEach(e, mf)
    {
        cJSON *k = e == own ? NULL : entry_minus(e, &forced);
        if (k)
            cJSON_AddItemToArray(nmf, k);
    }
    if (applied.list.n)
        cJSON_AddItemToArray(nmf, new_entry(c, "Apply", &applied.list));
    set_managed(obj, nmf);
    set_release(&applied);
    set_release(&forced);
    *out = obj;
    return 0;
}

/* now: tracked paths of obj; moved: those that changed since old, plus
 * the ones old had and obj lost. */
static void changes(const cJSON *old, const cJSON *obj, const struct ts_ssa_ctx *c, struct set *now,
                    struct set *moved)
{
    struct pair_walk fresh = {&now->list, &moved->list, 0}, gone = {NULL, &moved->list, 1};

    walk_object(obj, old, c, &fresh);
    if (old)
        walk_object(old, obj, c, &gone);
    set_index(moved);
    set_index(now);
}

/* The writer's new "Update" entry: what it owned and still exists, plus
 * what it changed; NULL when empty. */
static cJSON *own_update(const cJSON *own, const struct set *now, const struct set *moved,
                         const struct ts_ssa_ctx *c)
{
    struct set mine;
    struct ts_strlist keep = TS_STRLIST_INIT;
    cJSON *e = NULL;

    set_init(&mine);
    if (own)
        entry_set(own, &mine);
    for (size_t i = 0; i < mine.list.n; i++)
        if (set_has(now, mine.list.items[i]))
            ts_strlist_push(&keep, mine.list.items[i]);
    for (size_t i = 0; i < moved->list.n; i++)
        if (set_has(now, moved->list.items[i]) && !set_has(&mine, moved->list.items[i]))
            ts_strlist_push(&keep, moved->list.items[i]);
    if (keep.n)
        e = new_entry(c, "Update", &keep);
    ts_strlist_release(&keep);
    set_release(&mine);
    return e;
}

void ts_ssa_track(const cJSON *old, cJSON *obj, const struct ts_ssa_ctx *c)
{
    const cJSON *mf = ts_json_get(obj, "metadata.managedFields"), *e, *own;
    struct set now, moved;
    cJSON *nmf = cJSON_CreateArray(), *mine;

    if (!cJSON_IsArray(mf))
        mf = ts_json_get(old, "metadata.managedFields");
    set_init(&now);
    set_init(&moved);
    changes(old, obj, c, &now, &moved);
    own = find_entry(mf, c->manager, "Update", c->subresource);
    cJSON_ArrayForEach(e, mf)
    {
        cJSON *k = e == own ? NULL : entry_minus(e, &moved);
        if (k)
            cJSON_AddItemToArray(nmf, k);
    }
    if ((mine = own_update(own, &now, &moved, c)))
        cJSON_AddItemToArray(nmf, mine);
    set_managed(obj, nmf);
    set_release(&now);
    set_release(&moved);
}

static int by_who(const void *a, const void *b)
{
    const struct ts_ssa_conflict *x = *(const struct ts_ssa_conflict *const *)a;
    const struct ts_ssa_conflict *y = *(const struct ts_ssa_conflict *const *)b;
    int c = strcmp(x->who, y->who);

    /* stable: a manager's fields in the order they were found */
    return c ? c : (x < y ? -1 : x > y);
}

void ts_ssa_conflicts_message(const struct ts_ssa_conflicts *cf, struct ts_buf *out)
{
    const struct ts_ssa_conflict **sorted;

    if (cf->n == 1) {
        ts_buf_addf(out, "Apply failed with 1 conflict: conflict with %s: %s", cf->items[0].who,
                    cf->items[0].field);
        return;
    }
    /* kube-apiserver groups the fields by manager, managers sorted */
    sorted = ts_xcalloc(cf->n ? cf->n : 1, sizeof(*sorted));
    for (size_t i = 0; i < cf->n; i++)
        sorted[i] = &cf->items[i];
    qsort(sorted, cf->n, sizeof(*sorted), by_who);
    ts_buf_addf(out, "Apply failed with %zu conflicts: ", cf->n);
    for (size_t i = 0; i < cf->n; i++) {
        if (!i || strcmp(sorted[i]->who, sorted[i - 1]->who))
            ts_buf_addf(out, "%sconflicts with %s:", i ? "\n" : "", sorted[i]->who);
        ts_buf_addf(out, "\n- %s", sorted[i]->field);
    }
    free(sorted);
}

void ts_ssa_conflicts_release(struct ts_ssa_conflicts *cf)
{
    for (size_t i = 0; i < cf->n; i++) {
        free(cf->items[i].manager);
        free(cf->items[i].who);
        free(cf->items[i].field);
    }
    free(cf->items);
    memset(cf, 0, sizeof(*cf));
}
