/* json_patch.c - JSON patch, RFC 6902 (apply, create), JSON pointer, RFC 6901. */
#include "json/patch.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/json.h"
#include "util/alloc.h"

/* Where an error happened, for messages naming the operation. */
struct op_ctx {
    size_t index;
    const char *op;
    const char *path;
    struct ts_err *err;
};

static int fail(const struct op_ctx *c, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(const struct op_ctx *c, int code, const char *fmt, ...)
{
    char why[TS_ERR_MSG_MAX];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    if (!c->op)
        return ts_err_set(c->err, code, "JSON pointer '%s': %s", c->path, why);
    return ts_err_set(c->err, code, "operation %zu (%s) path '%s': %s", c->index, c->op,
                      c->path ? c->path : "", why);
}

/* Decodes one reference token [p, end) ("~1" -> '/', "~0" -> '~').
 * Returns an owned string, or NULL when an escape is invalid. */
static char *unescape(const char *p, const char *end)
{
    char *tok = ts_xmalloc((size_t)(end - p) + 1);
    size_t n = 0;

    for (; p < end; p++) {
        if (*p == '~') {
            if (p + 1 == end || (p[1] != '0' && p[1] != '1')) {
                free(tok);
                return NULL;
            }
            tok[n++] = p[1] == '0' ? '~' : '/';
            p++;
            continue;
        }
        tok[n++] = *p;
    }
    tok[n] = '\0';
    return tok;
}

/* Array index token: "0" or digits without a leading zero. */
static int parse_index(const char *tok, size_t *out)
{
    size_t v = 0;
    size_t n = strlen(tok);

    if (n == 0 || n > 9 || (n > 1 && tok[0] == '0'))
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (tok[i] < '0' || tok[i] > '9')
            return -1;
        v = v * 10 + (size_t)(tok[i] - '0');
    }
    *out = v;
    return 0;
}

static cJSON *child_of(const cJSON *node, const char *tok)
{
    size_t idx;

    if (cJSON_IsObject(node))
        return cJSON_GetObjectItemCaseSensitive(node, tok);
    if (!cJSON_IsArray(node) || parse_index(tok, &idx) || idx >= (size_t)cJSON_GetArraySize(node))
        return NULL;
    return cJSON_GetArrayItem(node, (int)idx);
}

/* Walks ptr from root.  With `last` non-NULL it stops before the final
 * token, stores the parent in *node and the decoded token in *last
 * (owned); a pointer "" then yields *last == NULL. */
static int walk(cJSON *root, const char *ptr, cJSON **node, char **last, const struct op_ctx *c)
{
    const char *p = ptr;
    cJSON *cur = root;

    if (last)
        *last = NULL;
    if (*p && *p != '/')
        return fail(c, TS_EINVAL, "invalid JSON pointer (must start with '/')");
    while (*p) {
        const char *q = strchr(p + 1, '/');
        char *tok;

        q = q ? q : p + strlen(p);
        if (!(tok = unescape(p + 1, q)))
            return fail(c, TS_EINVAL, "invalid '~' escape in JSON pointer");
        if (last && !*q) {
            *last = tok;
            break;
        }
        cur = child_of(cur, tok);
        free(tok);
        if (!cur)
            return fail(c, TS_ENOTFOUND, "path not found");
        p = q;
    }
    *node = cur;
    return 0;
}

int ts_json_pointer_get(const cJSON *doc, const char *ptr, cJSON **out, struct ts_err *err)
{
    struct op_ctx c = {0, NULL, ptr, err};

    *out = NULL;
    return walk((cJSON *)(uintptr_t)doc, ptr, out, NULL, &c);
}

int ts_json_pointer_append(struct ts_buf *out, const char *token)
{
    int rc = ts_buf_addc(out, '/');

    for (const char *p = token; *p && !rc; p++) {
        if (*p == '~')
            rc = ts_buf_add(out, "~0", 2);
        else if (*p == '/')
            rc = ts_buf_add(out, "~1", 2);
        else
            rc = ts_buf_addc(out, *p);
    }
    return rc;
}

/* Inserts value before element idx (idx == size appends).  Not
 * cJSON_InsertItemInArray(): Debian's 1.7.15+deb12u4 refuses inserts in
 * the middle of an array (returns false and keeps nothing). */
static void array_insert(cJSON *arr, size_t idx, cJSON *value)
{
    cJSON *tail = cJSON_CreateArray();
    size_t n = (size_t)cJSON_GetArraySize(arr);
    cJSON *c;

    for (; n > idx; n--)
        cJSON_AddItemToArray(tail, cJSON_DetachItemFromArray(arr, (int)idx));
    cJSON_AddItemToArray(arr, value);
    while ((c = cJSON_DetachItemFromArray(tail, 0)))
        cJSON_AddItemToArray(arr, c);
    cJSON_Delete(tail);
}

/* Puts value (consumed) at ptr: appends/inserts into arrays, adds or
 * replaces object members, replaces the root for "".  With `replace`
 * the target must already exist (RFC 6902 "replace"). */
static int put(cJSON **doc, const char *ptr, cJSON *value, int replace, const struct op_ctx *c)
{
    cJSON *parent;
    char *tok;
    size_t idx, size;
    int rc = walk(*doc, ptr, &parent, &tok, c);

    if (rc == 0 && !tok) {
        cJSON_Delete(*doc);
        *doc = value;
        return 0;
    }
    if (rc == 0 && cJSON_IsArray(parent)) {
        size = (size_t)cJSON_GetArraySize(parent);
        if (!replace && !strcmp(tok, "-"))
            idx = size;
        else if (parse_index(tok, &idx) || idx > size || (replace && idx == size))
            rc = fail(c, TS_EINVAL, "array index '%s' out of range (size %zu)", tok, size);
        if (rc == 0 && replace)
            cJSON_ReplaceItemInArray(parent, (int)idx, value);
        else if (rc == 0)
            array_insert(parent, idx, value);
    } else if (rc == 0 && cJSON_IsObject(parent)) {
        if (cJSON_GetObjectItemCaseSensitive(parent, tok))
            cJSON_ReplaceItemInObjectCaseSensitive(parent, tok, value);
        else if (replace)
            rc = fail(c, TS_EINVAL, "path not found");
        else
            cJSON_AddItemToObject(parent, tok, value);
    } else if (rc == 0) {
        rc = fail(c, TS_EINVAL, "parent is not an object or array");
    }
    if (rc)
        cJSON_Delete(value);
    free(tok);
    return rc;
}

/* Detaches the node at ptr and returns it in *out (owned). */
static int take(cJSON *doc, const char *ptr, cJSON **out, const struct op_ctx *c)
{
    cJSON *parent;
    cJSON *node = NULL;
    char *tok;
    int rc = walk(doc, ptr, &parent, &tok, c);

    if (rc)
        return rc;
    if (!tok)
        return fail(c, TS_EINVAL, "cannot remove the whole document");
    node = child_of(parent, tok);
    free(tok);
    if (!node)
        return fail(c, TS_EINVAL, "path not found");
    *out = cJSON_DetachItemViaPointer(parent, node);
    return 0;
}

static int op_move(cJSON **doc, const char *from, const char *path, const struct op_ctx *c)
{
    size_t n = strlen(from);
    cJSON *v;
    int rc;

    if (!strcmp(from, path))
        return walk(*doc, from, &v, NULL, c);
    if (!strncmp(path, from, n) && path[n] == '/')
        return fail(c, TS_EINVAL, "cannot move '%s' into itself", from);
    if ((rc = take(*doc, from, &v, c)))
        return rc;
    return put(doc, path, v, 0, c);
}

static int op_copy(cJSON **doc, const char *from, const char *path, const struct op_ctx *c)
{
    cJSON *v;
    int rc = walk(*doc, from, &v, NULL, c);

    return rc ? rc : put(doc, path, cJSON_Duplicate(v, 1), 0, c);
}

static int op_test(cJSON *doc, const char *path, const cJSON *want, const struct op_ctx *c)
{
    cJSON *v;
    int rc = walk(doc, path, &v, NULL, c);

    if (rc)
        return rc;
    return ts_json_equal(v, want) ? 0 : fail(c, TS_ECONFLICT, "test failed: value differs");
}

/* Checks that no member name appears twice (RFC 6902 A.13). */
static int has_duplicate_member(const cJSON *op)
{
    for (const cJSON *a = op->child; a; a = a->next)
        for (const cJSON *b = a->next; b; b = b->next)
            if (a->string && b->string && !strcmp(a->string, b->string))
                return 1;
    return 0;
}

/* The string member `name` of op, or NULL with an error set. */
static const char *member_str(const cJSON *op, const char *name, const struct op_ctx *c)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(op, name);

    if (!cJSON_IsString(v)) {
        fail(c, TS_EINVAL, "missing or non-string '%s'", name);
        return NULL;
    }
    return v->valuestring;
}

static int run_op(cJSON **doc, const char *op, const cJSON *o, const struct op_ctx *c)
{
    const cJSON *value = cJSON_GetObjectItemCaseSensitive(o, "value");
    const char *from = NULL;
    cJSON *removed;
    int rc;

    if (!strcmp(op, "move") || !strcmp(op, "copy"))
        if (!(from = member_str(o, "from", c)))
            return TS_EINVAL;
    if (!value && (!strcmp(op, "add") || !strcmp(op, "replace") || !strcmp(op, "test")))
        return fail(c, TS_EINVAL, "missing 'value'");
    if (!strcmp(op, "add") || !strcmp(op, "replace"))
        return put(doc, c->path, cJSON_Duplicate(value, 1), op[0] == 'r', c);
    if (!strcmp(op, "remove")) {
        if ((rc = take(*doc, c->path, &removed, c)) == 0)
            cJSON_Delete(removed);
        return rc;
    }
    if (!strcmp(op, "move"))
        return op_move(doc, from, c->path, c);
    if (!strcmp(op, "copy"))
        return op_copy(doc, from, c->path, c);
    if (!strcmp(op, "test"))
        return op_test(*doc, c->path, value, c);
    return fail(c, TS_EINVAL, "unknown operation");
}

static int apply_one(cJSON **doc, const cJSON *o, size_t index, struct ts_err *err)
{
    struct op_ctx c = {index, "?", NULL, err};
    const char *op;
    int rc;

    if (!cJSON_IsObject(o))
        return fail(&c, TS_EINVAL, "operation is not an object");
    if (has_duplicate_member(o))
        return fail(&c, TS_EINVAL, "operation has a duplicate member");
    if (!(op = member_str(o, "op", &c)))
        return TS_EINVAL;
    c.op = op;
    if (!(c.path = member_str(o, "path", &c)))
        return TS_EINVAL;
    rc = run_op(doc, op, o, &c);
    /* RFC 6902: a pointer to a missing target is an invalid patch */
    if (rc == TS_ENOTFOUND && err)
        err->code = TS_EINVAL;
    return rc == TS_ENOTFOUND ? TS_EINVAL : rc;
}

int ts_json_patch_apply(const cJSON *doc, const cJSON *patch, cJSON **out, struct ts_err *err)
{
    cJSON *work;
    size_t i = 0;
    int rc;

    *out = NULL;
    if (!doc || !cJSON_IsArray(patch))
        return ts_err_set(err, TS_EINVAL, "JSON patch must be an array of operations");
    work = cJSON_Duplicate(doc, 1);
    for (const cJSON *o = patch->child; o; o = o->next, i++) {
        if ((rc = apply_one(&work, o, i, err))) {
            cJSON_Delete(work);
            return rc;
        }
    }
    *out = work;
    return 0;
}

/* --- creation ----------------------------------------------------------- */

static void add_op(cJSON *ops, const char *op, const struct ts_buf *path, const cJSON *value)
{
    cJSON *o = cJSON_CreateObject();

    cJSON_AddStringToObject(o, "op", op);
    cJSON_AddStringToObject(o, "path", path->ptr);
    if (value)
        cJSON_AddItemToObject(o, "value", cJSON_Duplicate(value, 1));
    cJSON_AddItemToArray(ops, o);
}

static void truncate_to(struct ts_buf *b, size_t len)
{
    if (b->cap) {
        b->len = len;
        b->ptr[len] = '\0';
    }
}

static void diff(const cJSON *a, const cJSON *b, struct ts_buf *path, cJSON *ops);

static void diff_object(const cJSON *a, const cJSON *b, struct ts_buf *path, cJSON *ops)
{
    size_t save = path->len;

    for (const cJSON *x = a->child; x; x = x->next) {
        if (cJSON_GetObjectItemCaseSensitive(b, x->string))
            continue;
        ts_json_pointer_append(path, x->string);
        add_op(ops, "remove", path, NULL);
        truncate_to(path, save);
    }
    for (const cJSON *y = b->child; y; y = y->next) {
        const cJSON *x = cJSON_GetObjectItemCaseSensitive(a, y->string);

        ts_json_pointer_append(path, y->string);
        if (x)
            diff(x, y, path, ops);
        else
            add_op(ops, "add", path, y);
        truncate_to(path, save);
    }
}

static void diff_array(const cJSON *a, const cJSON *b, struct ts_buf *path, cJSON *ops)
{
    size_t save = path->len;
    int n = cJSON_GetArraySize(a);
    int m = cJSON_GetArraySize(b);
    const cJSON *x = a->child;
    const cJSON *y = b->child;
    int i = 0;

    for (; x && y; x = x->next, y = y->next, i++) {
        ts_buf_addf(path, "/%d", i);
        diff(x, y, path, ops);
        truncate_to(path, save);
    }
    for (; y; y = y->next, i++) {
        ts_buf_addf(path, "/%d", i);
        add_op(ops, "add", path, y);
        truncate_to(path, save);
    }
    for (i = n - 1; i >= m; i--) {
        ts_buf_addf(path, "/%d", i);
        add_op(ops, "remove", path, NULL);
        truncate_to(path, save);
    }
}

static void diff(const cJSON *a, const cJSON *b, struct ts_buf *path, cJSON *ops)
{
    if (ts_json_equal(a, b))
        return;
    if (cJSON_IsObject(a) && cJSON_IsObject(b))
        diff_object(a, b, path, ops);
    else if (cJSON_IsArray(a) && cJSON_IsArray(b))
        diff_array(a, b, path, ops);
    else
        add_op(ops, "replace", path, b);
}

int ts_json_patch_create(const cJSON *from, const cJSON *to, cJSON **out, struct ts_err *err)
{
    struct ts_buf path;

    *out = NULL;
    if (!from || !to)
        return ts_err_set(err, TS_EINVAL, "JSON patch: missing document");
    ts_buf_init(&path, 0);
    *out = cJSON_CreateArray();
    diff(from, to, &path, *out);
    ts_buf_release(&path);
    return 0;
}
