/*
 * schema.c - structural schema pruning, defaulting and validation (see
 * schema.h).
 */
#include "api/schema.h"

#include <string.h>

static const char *const object_meta[] = {
    "name",
    "generateName",
    "namespace",
    "selfLink",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "labels",
    "annotations",
    "ownerReferences",
    "finalizers",
    "managedFields",
};

static const cJSON *get(const cJSON *schema, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(schema, key);
}

static int flag(const cJSON *schema, const char *key)
{
    return cJSON_IsTrue(get(schema, key));
}

static void note(struct ts_strlist *pruned, struct ts_path *p, const char *key)
{
    size_t l = ts_path_push(p, key);

    if (pruned)
        ts_strlist_push(pruned, ts_path_str(p));
    ts_path_pop(p, l);
}

static void prune_at(const cJSON *schema, cJSON *obj, struct ts_path *p, struct ts_strlist *pruned);

static void prune_meta(cJSON *md, struct ts_path *p, struct ts_strlist *pruned)
{
    cJSON *c = md ? md->child : NULL;

    while (c) {
        cJSON *nx = c->next;
        size_t i, n = sizeof(object_meta) / sizeof(object_meta[0]);

        for (i = 0; i < n && strcmp(object_meta[i], c->string); i++)
            ;
        if (i == n) {
            size_t l = ts_path_push(p, "metadata");
            note(pruned, p, c->string);
            ts_path_pop(p, l);
            cJSON_Delete(cJSON_DetachItemViaPointer(md, c));
        }
        c = nx;
    }
}

static int keep_root_member(const char *k)
{
    return !strcmp(k, "apiVersion") || !strcmp(k, "kind") || !strcmp(k, "metadata");
}

static void prune_object(const cJSON *schema, cJSON *obj, struct ts_path *p, int keep_meta,
                         struct ts_strlist *pruned)
{
    const cJSON *props = get(schema, "properties"), *addl = get(schema, "additionalProperties");
    int preserve = flag(schema, "x-kubernetes-preserve-unknown-fields");
    cJSON *c = obj->child;

    while (c) {
        cJSON *nx = c->next;
        const cJSON *sub = props ? get(props, c->string) : NULL;
        size_t l;

        if (keep_meta && keep_root_member(c->string)) {
            c = nx;
            continue;
        }
        if (!sub && cJSON_IsObject(addl))
            sub = addl;
        if (sub && cJSON_IsNull(c) && !flag(sub, "nullable")) {
            cJSON_Delete(cJSON_DetachItemViaPointer(obj, c));
        } else if (sub) {
            l = ts_path_push(p, c->string);
            prune_at(sub, c, p, pruned);
            ts_path_pop(p, l);
        } else if (!preserve && !cJSON_IsTrue(addl)) {
            note(pruned, p, c->string);
            cJSON_Delete(cJSON_DetachItemViaPointer(obj, c));
        }
        c = nx;
    }
}

static void prune_at(const cJSON *schema, cJSON *obj, struct ts_path *p, struct ts_strlist *pruned)
{
    if (flag(schema, "x-kubernetes-int-or-string"))
        return;
    if (cJSON_IsObject(obj)) {
        int emb = flag(schema, "x-kubernetes-embedded-resource");

        prune_object(schema, obj, p, emb, pruned);
        if (emb)
            prune_meta(cJSON_GetObjectItemCaseSensitive(obj, "metadata"), p, pruned);
    } else if (cJSON_IsArray(obj) && get(schema, "items")) {
        size_t i = 0;
        cJSON *c;

        cJSON_ArrayForEach(c, obj)
        {
            size_t l = ts_path_push_index(p, i++);
            prune_at(get(schema, "items"), c, p, pruned);
            ts_path_pop(p, l);
        }
    }
}

void ts_schema_prune(const cJSON *schema, cJSON *obj, int root, struct ts_strlist *pruned)
{
    struct ts_path p;

    ts_path_init(&p, "");
    if (!schema || !cJSON_IsObject(obj))
        return;
    if (!root) {
        prune_at(schema, obj, &p, pruned);
        return;
    }
    prune_object(schema, obj, &p, 1, pruned);
    prune_meta(cJSON_GetObjectItemCaseSensitive(obj, "metadata"), &p, pruned);
}

void ts_schema_default(const cJSON *schema, cJSON *obj)
{
    const cJSON *props = get(schema, "properties"), *addl = get(schema, "additionalProperties");
    const cJSON *s;
    cJSON *c;

    if (!schema)
        return;
    if (cJSON_IsObject(obj)) {
        cJSON_ArrayForEach(s, props)
        {
            const cJSON *def = get(s, "default");

            if (def && !cJSON_GetObjectItemCaseSensitive(obj, s->string))
                cJSON_AddItemToObject(obj, s->string, cJSON_Duplicate(def, 1));
        }
        cJSON_ArrayForEach(c, obj)
        {
            const cJSON *sub = props ? get(props, c->string) : NULL;

            ts_schema_default(sub ? sub : (cJSON_IsObject(addl) ? addl : NULL), c);
        }
    } else if (cJSON_IsArray(obj) && (s = get(schema, "items"))) {
        cJSON_ArrayForEach(c, obj) ts_schema_default(s, c);
    }
}
