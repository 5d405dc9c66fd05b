/*
 * smp.c - strategic merge patch (see smp.h).
 */
#include "json/smp.h"

#include <string.h>

#include "json/json.h"

#define SEO  "$setElementOrder/"
#define DFPL "$deleteFromPrimitiveList/"

static const struct {
    const char *field, *key;
} merge_keys[] = {
    {"containers", "name"},
    {"initContainers", "name"},
    {"ephemeralContainers", "name"},
    {"env", "name"},
    {"volumes", "name"},
    {"imagePullSecrets", "name"},
    {"resourceClaims", "name"},
    {"schedulingGates", "name"},
    {"ports", "containerPort"},
    {"volumeMounts", "mountPath"},
    {"volumeDevices", "devicePath"},
    {"hostAliases", "ip"},
    {"conditions", "type"},
    {"ownerReferences", "uid"},
    {"topologySpreadConstraints", "topologyKey"},
};

static const char *merge_key(const char *field)
{
    for (size_t i = 0; i < sizeof(merge_keys) / sizeof(merge_keys[0]); i++)
        if (!strcmp(merge_keys[i].field, field))
            return merge_keys[i].key;
    return NULL;
}

static int is_directive(const char *k)
{
    return k[0] == '$' && (!strcmp(k, "$patch") || !strcmp(k, "$retainKeys") ||
                           !strncmp(k, SEO, strlen(SEO)) || !strncmp(k, DFPL, strlen(DFPL)));
}

/* A copy of v without directive members (recursively). */
static cJSON *strip(const cJSON *v)
{
    cJSON *c = cJSON_Duplicate(v, 1), *m, *nx;

    if (cJSON_IsObject(c))
        for (m = c->child; m; m = nx) {
            nx = m->next;
            if (is_directive(m->string)) {
                cJSON_Delete(cJSON_DetachItemViaPointer(c, m));
            } else {
                cJSON_ReplaceItemViaPointer(c, m, strip(m));
            }
        }
    else if (cJSON_IsArray(c))
        for (m = c->child; m; m = nx) {
            nx = m->next;
            cJSON_ReplaceItemViaPointer(c, m, strip(m));
        }
    return c;
}

static const char *patch_directive(const cJSON *v)
{
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(v, "$patch"));
}

static cJSON *find_keyed(cJSON *list, const char *key, const cJSON *val)
{
    cJSON *e;

    cJSON_ArrayForEach(
        e, list) if (ts_json_equal(cJSON_GetObjectItemCaseSensitive(e, key), val)) return e;
    return NULL;
}

static int merge_map(cJSON *orig, const cJSON *patch, struct ts_err *err);

static int merge_list(cJSON *olist, const cJSON *plist, const char *key, struct ts_err *err)
{
    const cJSON *pe;

    cJSON_ArrayForEach(pe, plist)
    {
        const cJSON *kv = cJSON_GetObjectItemCaseSensitive(pe, key);
        const char *d = patch_directive(pe);
        cJSON *oe = kv ? find_keyed(olist, key, kv) : NULL;

        if (!cJSON_IsObject(pe) || !kv)
            return ts_err_set(err, TS_EINVAL, "map: %s does not contain declared merge key: %s",
                              "element", key);
        if (d && !strcmp(d, "delete")) {
            if (oe)
                cJSON_Delete(cJSON_DetachItemViaPointer(olist, oe));
        } else if (oe && !(d && !strcmp(d, "replace"))) {
            if (merge_map(oe, pe, err))
                return TS_EINVAL;
        } else if (oe) {
            cJSON_ReplaceItemViaPointer(olist, oe, strip(pe));
        } else {
            cJSON_AddItemToArray(olist, strip(pe));
        }
    }
    return 0;
}

static void union_list(cJSON *olist, const cJSON *plist)
{
    const cJSON *pe, *oe;

    cJSON_ArrayForEach(pe, plist)
    {
        int found = 0;

        cJSON_ArrayForEach(oe, olist) found |= ts_json_equal(oe, pe);
        if (!found)
            cJSON_AddItemToArray(olist, cJSON_Duplicate(pe, 1));
    }
}

/* A list patch holding {"$patch": "replace"} replaces the whole list. */
static int list_replace(const cJSON *plist)
{
    const cJSON *pe;

    cJSON_ArrayForEach(pe, plist)
    {
        const char *d = patch_directive(pe);

        if (d && !strcmp(d, "replace"))
            return 1;
    }
    return 0;
}

static cJSON *replaced_list(const cJSON *plist)
{
    cJSON *out = cJSON_CreateArray();
    const cJSON *pe;

    cJSON_ArrayForEach(pe, plist) if (!patch_directive(pe)) cJSON_AddItemToArray(out, strip(pe));
    return out;
}

static int patch_member(cJSON *orig, const char *k, const cJSON *pv, struct ts_err *err)
{
    cJSON *ov = cJSON_GetObjectItemCaseSensitive(orig, k);
    const char *mk = merge_key(k), *d;

    if (cJSON_IsNull(pv)) {
        cJSON_DeleteItemFromObjectCaseSensitive(orig, k);
    } else if (cJSON_IsObject(pv) && cJSON_IsObject(ov) &&
               !((d = patch_directive(pv)) && !strcmp(d, "replace"))) {
        if ((d = patch_directive(pv)) && !strcmp(d, "delete"))
            cJSON_DeleteItemFromObjectCaseSensitive(orig, k);
        else
            return merge_map(ov, pv, err);
    } else if (cJSON_IsArray(pv) && cJSON_IsArray(ov) && list_replace(pv)) {
        cJSON_ReplaceItemInObjectCaseSensitive(orig, k, replaced_list(pv));
    } else if (cJSON_IsArray(pv) && cJSON_IsArray(ov) && mk) {
        return merge_list(ov, pv, mk, err);
    } else if (cJSON_IsArray(pv) && cJSON_IsArray(ov) && !strcmp(k, "finalizers")) {
        union_list(ov, pv);
    } else if (ov) {
        cJSON_ReplaceItemViaPointer(orig, ov, strip(pv));
    } else {
        cJSON_AddItemToObject(orig, k, strip(pv));
    }
    return 0;
}

static void delete_primitives(cJSON *orig, const char *k, const cJSON *values)
{
    cJSON *list = cJSON_GetObjectItemCaseSensitive(orig, k), *e, *nx;
    const cJSON *v;

    if (!cJSON_IsArray(list))
        return;
    for (e = list->child; e; e = nx) {
        int del = 0;

        nx = e->next;
        cJSON_ArrayForEach(v, values) del |= ts_json_equal(v, e);
        if (del)
            cJSON_Delete(cJSON_DetachItemViaPointer(list, e));
    }
}

static void set_order(cJSON *orig, const char *k, const cJSON *order)
{
    cJSON *list = cJSON_GetObjectItemCaseSensitive(orig, k), *out, *e;
    const char *mk = merge_key(k);
    const cJSON *o;

    if (!cJSON_IsArray(list))
        return;
    out = cJSON_CreateArray();
    cJSON_ArrayForEach(o, order)
    {
        const cJSON *want = mk ? cJSON_GetObjectItemCaseSensitive(o, mk) : o;

        e = mk ? find_keyed(list, mk, want) : NULL;
        if (!mk)
            cJSON_ArrayForEach(e, list) if (ts_json_equal(e, want)) break;
        if (e)
            cJSON_AddItemToArray(out, cJSON_DetachItemViaPointer(list, e));
    }
    while (list->child)
        cJSON_AddItemToArray(out, cJSON_DetachItemViaPointer(list, list->child));
    cJSON_ReplaceItemInObjectCaseSensitive(orig, k, out);
}

static void retain(cJSON *orig, const cJSON *keys)
{
    cJSON *m, *nx;
    const cJSON *k;

    if (!cJSON_IsArray(keys))
        return;
    for (m = orig->child; m; m = nx) {
        int keep = 0;

        nx = m->next;
        cJSON_ArrayForEach(k, keys) keep |= cJSON_IsString(k) && !strcmp(k->valuestring, m->string);
        if (!keep)
            cJSON_Delete(cJSON_DetachItemViaPointer(orig, m));
    }
}

static int merge_map(cJSON *orig, const cJSON *patch, struct ts_err *err)
{
    const cJSON *m;

    cJSON_ArrayForEach(m, patch) if (!is_directive(m->string) &&
                                     patch_member(orig, m->string, m, err)) return TS_EINVAL;
    cJSON_ArrayForEach(m, patch)
    {
        if (!strncmp(m->string, DFPL, strlen(DFPL)))
            delete_primitives(orig, m->string + strlen(DFPL), m);
        else if (!strncmp(m->string, SEO, strlen(SEO)))
            set_order(orig, m->string + strlen(SEO), m);
    }
    retain(orig, cJSON_GetObjectItemCaseSensitive(patch, "$retainKeys"));
    return 0;
}

int ts_smp_apply(const cJSON *orig, const cJSON *patch, cJSON **out, struct ts_err *err)
{
    cJSON *res;
    const char *d;

    *out = NULL;
    if (!cJSON_IsObject(patch))
        return ts_err_set(err, TS_EINVAL, "strategic merge patch must be a JSON object");
    if ((d = patch_directive(patch)) && !strcmp(d, "replace")) {
        *out = strip(patch);
        return 0;
    }
    res = cJSON_IsObject(orig) ? cJSON_Duplicate(orig, 1) : cJSON_CreateObject();
    if (merge_map(res, patch, err)) {
        cJSON_Delete(res);
        return TS_EINVAL;
    }
    *out = res;
    return 0;
}
