/* json_path.c - field paths ("spec.groups[0].name"): lookup and creation. */
#include "json/json.h"

#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

static int bracket(const char **cursor, struct ts_str *seg)
{
    const char *p = *cursor + 1;
    const char *e = strchr(p, ']');

    if (!e || e == p)
        return TS_EINVAL;
    if (e[1] != '\0' && e[1] != '.' && e[1] != '[')
        return TS_EINVAL;
    seg->ptr = p;
    seg->len = (size_t)(e - p);
    if (seg->len >= 2 && (p[0] == '\'' || p[0] == '"') && e[-1] == p[0]) {
        seg->ptr++;
        seg->len -= 2;
    }
    *cursor = e + 1;
    return 1;
}

int ts_json_path_next(const char **cursor, struct ts_str *seg)
{
    const char *p = *cursor;
    const char *q;

    if (*p == '\0')
        return 0;
    if (*p == '[')
        return bracket(cursor, seg);
    if (*p == '.')
        p++;
    for (q = p; *q && *q != '.' && *q != '['; q++)
        ;
    if (q == p)
        return TS_EINVAL;
    seg->ptr = p;
    seg->len = (size_t)(q - p);
    *cursor = q;
    return 1;
}

int ts_json_path_index(struct ts_str seg, size_t *out)
{
    size_t v = 0;

    if (seg.len == 0 || seg.len > 9)
        return TS_EINVAL;
    for (size_t i = 0; i < seg.len; i++) {
        if (seg.ptr[i] < '0' || seg.ptr[i] > '9')
            return TS_EINVAL;
        v = v * 10 + (size_t)(seg.ptr[i] - '0');
    }
    *out = v;
    return 0;
}

/* The child of node named by seg: an element of an array, a member of an
 * object, NULL otherwise. */
static cJSON *child(const cJSON *node, struct ts_str seg)
{
    size_t idx;
    cJSON *c;

    if (cJSON_IsArray(node)) {
        if (ts_json_path_index(seg, &idx))
            return NULL;
        for (c = node->child; c && idx; c = c->next)
            idx--;
        return c;
    }
    if (!cJSON_IsObject(node))
        return NULL;
    for (c = node->child; c; c = c->next)
        if (c->string && strlen(c->string) == seg.len && !memcmp(c->string, seg.ptr, seg.len))
            return c;
    return NULL;
}

cJSON *ts_json_get(const cJSON *root, const char *path)
{
    const char *cur = path ? path : "";
    struct ts_str seg;
    cJSON *node;
    int rc;

    if (!root)
        return NULL;
    /* cJSON's getters take const and return non-const; so do we. */
    node = (cJSON *)(uintptr_t)root;
    while ((rc = ts_json_path_next(&cur, &seg)) == 1)
        if (!(node = child(node, seg)))
            return NULL;
    return rc < 0 ? NULL : node;
}

const char *ts_json_get_string(const cJSON *root, const char *path)
{
    const cJSON *v = ts_json_get(root, path);

    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* Walks root along path until the cursor reaches `stop` (NULL: the end),
 * creating missing object members.  Returns the node reached or NULL. */
static cJSON *walk_create(cJSON *root, const char *path, const char *stop, struct ts_err *err)
{
    const char *cur = path;
    struct ts_str seg;
    cJSON *node = root;
    int rc = 0;

    while (cur != stop && (rc = ts_json_path_next(&cur, &seg)) == 1) {
        cJSON *next = child(node, seg);

        if (!next && cJSON_IsObject(node)) {
            char *key = ts_xstrndup(seg.ptr, seg.len);

            next = cJSON_AddObjectToObject(node, key);
            free(key);
        }
        if (!next || (!cJSON_IsObject(next) && !cJSON_IsArray(next))) {
            ts_err_set(err, TS_EINVAL, "path '%s': '%.*s' %s", path, (int)seg.len, seg.ptr,
                       next ? "is not an object or array" : "does not exist");
            return NULL;
        }
        node = next;
    }
    if (cur != stop && rc < 0) {
        ts_err_set(err, TS_EINVAL, "path '%s': malformed", path);
        return NULL;
    }
    return node;
}

cJSON *ts_json_mkpath(cJSON *root, const char *path, struct ts_err *err)
{
    cJSON *node;

    if (!cJSON_IsObject(root) && !cJSON_IsArray(root)) {
        ts_err_set(err, TS_EINVAL, "path '%s': root is not an object", path);
        return NULL;
    }
    node = walk_create(root, path, NULL, err);
    if (node && !cJSON_IsObject(node)) {
        ts_err_set(err, TS_EINVAL, "path '%s': not an object", path);
        return NULL;
    }
    return node;
}

/* Finds the start of the last segment of path; returns NULL when the path
 * is empty or malformed. */
static const char *last_segment(const char *path, struct ts_str *seg)
{
    const char *cur = path;
    const char *last = NULL;
    const char *before = path;
    int rc;

    while ((rc = ts_json_path_next(&cur, seg)) == 1) {
        last = before;
        before = cur;
    }
    if (rc < 0 || !last)
        return NULL;
    cur = last;
    ts_json_path_next(&cur, seg);
    return last;
}

static int put(cJSON *parent, struct ts_str seg, cJSON *value, const char *path, struct ts_err *err)
{
    size_t idx;
    char *key;

    if (cJSON_IsArray(parent)) {
        if (ts_json_path_index(seg, &idx) || idx >= (size_t)cJSON_GetArraySize(parent)) {
            cJSON_Delete(value);
            return ts_err_set(err, TS_EINVAL, "path '%s': no such array element", path);
        }
        cJSON_ReplaceItemInArray(parent, (int)idx, value);
        return 0;
    }
    key = ts_xstrndup(seg.ptr, seg.len);
    if (cJSON_GetObjectItemCaseSensitive(parent, key))
        cJSON_ReplaceItemInObjectCaseSensitive(parent, key, value);
    else
        cJSON_AddItemToObject(parent, key, value);
    free(key);
    return 0;
}

int ts_json_set(cJSON *root, const char *path, cJSON *value, struct ts_err *err)
{
    struct ts_str seg;
    const char *last = last_segment(path, &seg);
    cJSON *parent;

    if (!last) {
        cJSON_Delete(value);
        return ts_err_set(err, TS_EINVAL, "path '%s': empty or malformed", path);
    }
    if (!cJSON_IsObject(root) && !cJSON_IsArray(root)) {
        cJSON_Delete(value);
        return ts_err_set(err, TS_EINVAL, "path '%s': root is not an object", path);
    }
    parent = walk_create(root, path, last, err);
    if (!parent) {
        cJSON_Delete(value);
        return TS_EINVAL;
    }
    return put(parent, seg, value, path, err);
}

int ts_json_set_string(cJSON *root, const char *path, const char *s, struct ts_err *err)
{
    return ts_json_set(root, path, cJSON_CreateString(s), err);
}
