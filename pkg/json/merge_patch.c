/* merge_patch.c - JSON merge patch, RFC 7386: apply and create. */
#include "json/patch.h"

#include "json/json.h"

/* RFC 7386 MergePatch(target, patch).  Works in place: returns target
 * itself when it was patched in place, otherwise a new node the caller
 * puts where target was (and frees target). */
static cJSON *merge(cJSON *target, const cJSON *patch)
{
    if (!cJSON_IsObject(patch))
        return cJSON_Duplicate(patch, 1);
    if (!cJSON_IsObject(target))
        target = cJSON_CreateObject();
    for (const cJSON *p = patch->child; p; p = p->next) {
        cJSON *old = cJSON_GetObjectItemCaseSensitive(target, p->string);
        cJSON *nv;

        if (cJSON_IsNull(p)) {
            cJSON_DeleteItemFromObjectCaseSensitive(target, p->string);
            continue;
        }
        nv = merge(old, p);
        if (!old)
            cJSON_AddItemToObject(target, p->string, nv);
        else if (nv != old)
            cJSON_ReplaceItemInObjectCaseSensitive(target, p->string, nv);
    }
    return target;
}

int ts_json_merge_patch_apply(const cJSON *target, const cJSON *patch, cJSON **out,
                              struct ts_err *err)
{
    cJSON *doc;
    cJSON *res;

    *out = NULL;
    if (!patch)
        return ts_err_set(err, TS_EINVAL, "merge patch: missing patch document");
    doc = target ? cJSON_Duplicate(target, 1) : NULL;
    res = merge(doc, patch);
    if (res != doc)
        cJSON_Delete(doc);
    *out = res;
    return 0;
}

/* Name of the first member holding null in v, descending into objects
 * only (arrays are replaced whole by a merge patch). */
static const char *null_member(const cJSON *v)
{
    if (!cJSON_IsObject(v))
        return NULL;
    for (const cJSON *c = v->child; c; c = c->next) {
        const char *inner;

        if (cJSON_IsNull(c))
            return c->string;
        if ((inner = null_member(c)))
            return inner;
    }
    return NULL;
}

static int unsupported(const char *key, struct ts_err *err)
{
    return ts_err_set(err, TS_EUNSUPPORTED, "merge patch cannot set member '%s' to null", key);
}

static int diff(const cJSON *from, const cJSON *to, cJSON **out, struct ts_err *err);

/* One member of `to` against the same member of `from` (may be NULL). */
static int diff_member(const cJSON *f, const cJSON *t, cJSON *patch, struct ts_err *err)
{
    cJSON *sub;
    const char *bad;
    int rc;

    if (f && ts_json_equal(f, t))
        return 0;
    if (cJSON_IsNull(t))
        return unsupported(t->string, err);
    if (f && cJSON_IsObject(f) && cJSON_IsObject(t)) {
        if ((rc = diff(f, t, &sub, err)))
            return rc;
        cJSON_AddItemToObject(patch, t->string, sub);
        return 0;
    }
    if ((bad = null_member(t)))
        return unsupported(bad, err);
    cJSON_AddItemToObject(patch, t->string, cJSON_Duplicate(t, 1));
    return 0;
}

static int diff(const cJSON *from, const cJSON *to, cJSON **out, struct ts_err *err)
{
    const char *bad;
    cJSON *patch;
    int rc = 0;

    *out = NULL;
    if (!cJSON_IsObject(from) || !cJSON_IsObject(to)) {
        if ((bad = null_member(to)))
            return unsupported(bad, err);
        *out = cJSON_Duplicate(to, 1);
        return 0;
    }
    patch = cJSON_CreateObject();
    for (const cJSON *f = from->child; f; f = f->next)
        if (!cJSON_GetObjectItemCaseSensitive(to, f->string))
            cJSON_AddNullToObject(patch, f->string);
    for (const cJSON *t = to->child; t && !rc; t = t->next)
        rc = diff_member(cJSON_GetObjectItemCaseSensitive(from, t->string), t, patch, err);
    if (rc) {
        cJSON_Delete(patch);
        return rc;
    }
    *out = patch;
    return 0;
}

int ts_json_merge_patch_create(const cJSON *from, const cJSON *to, cJSON **out, struct ts_err *err)
{
    *out = NULL;
    if (!from || !to)
        return ts_err_set(err, TS_EINVAL, "merge patch: missing document");
    return diff(from, to, out, err);
}
