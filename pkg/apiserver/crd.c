/*
 * crd.c - CustomResourceDefinitions: validation and status (acceptedNames,
 * storedVersions, NamesAccepted/Established), registration of the served
 * resource, removal with its objects, and the custom-resource write step
 * (pruning per fieldValidation, defaulting, schema validation, CEL rules).
 */
#include "apiserver/server_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/names.h"
#include "api/meta_validate.h"
#include "api/schema.h"
#include "json/json.h"
#include "util/alloc.h"

static void req_str(const cJSON *crd, const char *path, struct ts_field_errors *errs)
{
    const char *v = ts_json_get_string(crd, path);

    if (!v || !v[0])
        ts_field_errors_add(errs, TS_FIELD_REQUIRED, path, NULL, 0, NULL);
}

static void validate_versions(const cJSON *crd, struct ts_field_errors *errs)
{
    const cJSON *vs = ts_json_get(crd, "spec.versions"), *v;
    int storage = 0;

    if (!cJSON_IsArray(vs) || !cJSON_GetArraySize(vs)) {
        ts_field_errors_add(errs, TS_FIELD_REQUIRED, "spec.versions", NULL, 0,
                            "must have exactly one version marked as storage version");
        return;
    }
    cJSON_ArrayForEach(v, vs)
    {
        if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(v, "name")))
            ts_field_errors_add(errs, TS_FIELD_REQUIRED, "spec.versions.name", NULL, 0, NULL);
        storage += cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(v, "storage"));
    }
    if (storage != 1)
        ts_field_errors_add(errs, TS_FIELD_INVALID, "spec.versions", "[...]", 0,
                            "must have exactly one version marked as storage version");
}

static void validate(const cJSON *crd, struct ts_field_errors *errs)
{
    const char *name = ts_json_get_string(crd, "metadata.name");
    const char *g = ts_json_get_string(crd, "spec.group");
    const char *pl = ts_json_get_string(crd, "spec.names.plural");
    const char *scope = ts_json_get_string(crd, "spec.scope");
    char want[512];

    req_str(crd, "spec.group", errs);
    req_str(crd, "spec.names.plural", errs);
    req_str(crd, "spec.names.kind", errs);
    if (!scope || (strcmp(scope, "Namespaced") && strcmp(scope, "Cluster")))
        ts_field_errors_add(errs, TS_FIELD_NOT_SUPPORTED, "spec.scope", scope ? scope : "", 1,
                            "supported values: \"Cluster\", \"Namespaced\"");
    validate_versions(crd, errs);
    if (g && pl && name) {
        snprintf(want, sizeof(want), "%s.%s", pl, g);
        if (strcmp(want, name))
            ts_field_errors_add(errs, TS_FIELD_INVALID, "metadata.name", name, 1,
                                "must be spec.names.plural+\".\"+spec.group");
    }
}

static cJSON *condition(const char *type, const char *st, const char *reason, const char *msg,
                        const cJSON *old, const char *now)
{
    cJSON *c = cJSON_CreateObject();
    const cJSON *oc;
    const char *ltt = now;

    cJSON_ArrayForEach(oc, ts_json_get(old, "status.conditions"))
    {
        const char *t = ts_json_get_string(oc, "type"), *s = ts_json_get_string(oc, "status");

        if (t && s && !strcmp(t, type) && !strcmp(s, st) &&
            ts_json_get_string(oc, "lastTransitionTime"))
            ltt = ts_json_get_string(oc, "lastTransitionTime");
    }
    cJSON_AddStringToObject(c, "type", type);
    cJSON_AddStringToObject(c, "status", st);
    cJSON_AddStringToObject(c, "lastTransitionTime", ltt);
    cJSON_AddStringToObject(c, "reason", reason);
    cJSON_AddStringToObject(c, "message", msg);
    return c;
}

static void default_names(cJSON *crd)
{
    cJSON *names = ts_json_get(crd, "spec.names");
    const char *kind = ts_json_get_string(crd, "spec.names.kind");
    char buf[300];
    size_t i;

    if (!cJSON_IsObject(names) || !kind)
        return;
    if (!cJSON_GetObjectItemCaseSensitive(names, "singular")) {
        snprintf(buf, sizeof(buf), "%s", kind);
        for (i = 0; buf[i]; i++)
            buf[i] = (char)(buf[i] >= 'A' && buf[i] <= 'Z' ? buf[i] + 32 : buf[i]);
        cJSON_AddStringToObject(names, "singular", buf);
    }
    if (!cJSON_GetObjectItemCaseSensitive(names, "listKind")) {
        snprintf(buf, sizeof(buf), "%sList", kind);
        cJSON_AddStringToObject(names, "listKind", buf);
    }
    if (!ts_json_get(crd, "spec.conversion"))
        ts_json_set_string(crd, "spec.conversion.strategy", "None", NULL);
}

/* Another live CRD already serves group/plural. */
static int conflicts(struct ts_apiserver *s, const cJSON *crd)
{
    struct ts__as_res *res =
        ts__as_res_by_kind(s, "apiextensions.k8s.io", "CustomResourceDefinition");
    const char *g = ts_json_get_string(crd, "spec.group");
    const char *pl = ts_json_get_string(crd, "spec.names.plural");
    const char *name = ts_json_get_string(crd, "metadata.name");
    size_t it = 0;
    const char *k;
    void *v;

    while (ts_hmap_next(&res->objs, &it, &k, &v)) {
        const cJSON *o = ((struct ts__as_obj *)v)->json;
        const char *og = ts_json_get_string(o, "spec.group");
        const char *okind = ts_json_get_string(o, "spec.names.kind");

        if (strcmp(ts_json_get_string(o, "metadata.name"), name) && og && !strcmp(og, g) && okind &&
            !strcmp(okind, ts_json_get_string(crd, "spec.names.kind")))
            return 1;
        (void)pl;
    }
    return 0;
}

static void stored_versions(cJSON *st, const cJSON *crd, const cJSON *old)
{
    cJSON *sv = cJSON_AddArrayToObject(st, "storedVersions"), *v;
    const cJSON *o;

    cJSON_ArrayForEach(o, ts_json_get(old, "status.storedVersions"))
        cJSON_AddItemToArray(sv, cJSON_Duplicate(o, 1));
    cJSON_ArrayForEach(v, ts_json_get(crd, "spec.versions"))
    {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(v, "name"), *e;
        int have = 0;

        if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(v, "storage")))
            continue;
        cJSON_ArrayForEach(e, sv) have |= ts_json_equal(e, name);
        if (!have)
            cJSON_AddItemToArray(sv, cJSON_Duplicate(name, 1));
    }
}

int ts__as_crd_prepare(struct ts_apiserver *s, cJSON *crd, const cJSON *old, ts_time now,
                       struct ts_field_errors *errs)
{
    char ts[TS_TIME_STR_MAX];
    cJSON *st, *conds;
    int clash;

    validate(crd, errs);
    if (errs->n)
        return -1;
    default_names(crd);
    ts_time_format(now, ts, sizeof(ts));
    clash = conflicts(s, crd);
    cJSON_DeleteItemFromObjectCaseSensitive(crd, "status");
    st = cJSON_AddObjectToObject(crd, "status");
    if (!clash)
        cJSON_AddItemToObject(st, "acceptedNames",
                              cJSON_Duplicate(ts_json_get(crd, "spec.names"), 1));
    conds = cJSON_AddArrayToObject(st, "conditions");
    cJSON_AddItemToArray(conds, condition("NamesAccepted", clash ? "False" : "True",
                                          clash ? "KindConflict" : "NoConflicts",
                                          clash ? "kind is already in use" : "no conflicts found",
                                          old, ts));
    cJSON_AddItemToArray(conds, condition("Established", clash ? "False" : "True",
                                          clash ? "NotAccepted" : "InitialNamesAccepted",
                                          clash ? "not all names are accepted"
                                                : "the initial names have been accepted",
                                          old, ts));
    stored_versions(st, crd, old);
    return 0;
}

static struct ts__as_res *find_crd_res(struct ts_apiserver *s, const char *group,
                                       const char *plural)
{
    for (size_t i = 0; i < s->n_res; i++)
        if (!s->res[i]->dead && s->res[i]->kindid == TS__AS_CR &&
            !strcmp(s->res[i]->group, group) && !strcmp(s->res[i]->resource, plural))
            return s->res[i];
    return NULL;
}

static void load_versions(struct ts__as_res *res, const cJSON *crd)
{
    const cJSON *v;

    for (size_t i = 0; i < res->n_vers; i++)
        ts__as_ver_release(&res->vers[i]);
    free(res->vers);
    res->vers = NULL;
    res->n_vers = 0;
    cJSON_ArrayForEach(v, ts_json_get(crd, "spec.versions"))
    {
        const char *name = ts_json_get_string(v, "name"), *w;
        const cJSON *x;
        struct ts__as_ver *ver;

        if (!name)
            continue;
        ts__as_res_add_version(res, name);
        ver = &res->vers[res->n_vers - 1];
        ver->served = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(v, "served"));
        ver->storage = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(v, "storage"));
        ver->deprecated = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(v, "deprecated"));
        if ((w = ts_json_get_string(v, "deprecationWarning")))
            ver->warning = ts_xstrdup(w);
        if ((x = ts_json_get(v, "schema.openAPIV3Schema"))) {
            const char *crd_name = ts_json_get_string(crd, "metadata.name");
            char what[600];

            ver->schema = cJSON_Duplicate(x, 1);
            ver->patterns = ts_schema_patterns_new(ver->schema);
            snprintf(what, sizeof(what), "%s/%s", crd_name ? crd_name : "?", name);
            ver->cel = ts_cel_rules_new(ver->schema, what); /* rules that do not compile: logged */
        }
        if ((x = cJSON_GetObjectItemCaseSensitive(v, "additionalPrinterColumns")))
            ver->columns = cJSON_Duplicate(x, 1);
        if ((x = cJSON_GetObjectItemCaseSensitive(v, "selectableFields")))
            ver->selectable = cJSON_Duplicate(x, 1);
        ver->has_status = ts_json_get(v, "subresources.status") != NULL;
    }
}

static void load_names(struct ts__as_res *res, const cJSON *crd)
{
    const cJSON *c;

    free(res->singular);
    free(res->list_kind);
    res->singular = ts_xstrdup(ts_json_get_string(crd, "spec.names.singular"));
    res->list_kind = ts_xstrdup(ts_json_get_string(crd, "spec.names.listKind"));
    ts_strlist_release(&res->short_names);
    ts_strlist_release(&res->categories);
    cJSON_ArrayForEach(c, ts_json_get(crd, "spec.names.shortNames")) if (cJSON_IsString(c))
        ts_strlist_push(&res->short_names, c->valuestring);
    cJSON_ArrayForEach(c, ts_json_get(crd, "spec.names.categories")) if (cJSON_IsString(c))
        ts_strlist_push(&res->categories, c->valuestring);
}

void ts__as_crd_apply(struct ts_apiserver *s, const cJSON *crd)
{
    const char *g = ts_json_get_string(crd, "spec.group");
    const char *pl = ts_json_get_string(crd, "spec.names.plural");
    const char *kind = ts_json_get_string(crd, "spec.names.kind");
    const char *scope = ts_json_get_string(crd, "spec.scope");
    const char *est = ts_json_get_string(crd, "status.conditions[1].status");
    struct ts__as_res *res;

    if (!g || !pl || !kind || !scope || !est || strcmp(est, "True"))
        return;
    if (!(res = find_crd_res(s, g, pl))) {
        res = ts__as_res_new(g, pl, kind, !strcmp(scope, "Namespaced"));
        res->kindid = TS__AS_CR;
        res->generation = 1;
        ts__as_res_register(s, res);
    }
    free(res->kind);
    res->kind = ts_xstrdup(kind);
    res->namespaced = !strcmp(scope, "Namespaced");
    load_names(res, crd);
    load_versions(res, crd);
    res->convert_kueue = !strcmp(g, "kueue.x-k8s.io") &&
                         ts_json_get_string(crd, "spec.conversion.strategy") &&
                         !strcmp(ts_json_get_string(crd, "spec.conversion.strategy"), "Webhook");
    ts__as_crd_conversion(res, crd, &s->svc_map);
    s->gen++;
}

void ts__as_crd_remove(struct ts_apiserver *s, const cJSON *crd)
{
    const char *g = ts_json_get_string(crd, "spec.group");
    const char *pl = ts_json_get_string(crd, "spec.names.plural");
    struct ts__as_res *res = g && pl ? find_crd_res(s, g, pl) : NULL;
    struct ts__as_obj **objs;
    size_t n;

    if (!res)
        return;
    objs = ts__as_store_list(res, NULL, &n);
    for (size_t i = 0; i < n; i++)
        ts__as_store_del(s, res, objs[i]);
    free(objs);
    res->dead = 1;
    s->gen++;
    pthread_cond_broadcast(&s->cond);
}

static void strict_error(struct ts__as_req *q, struct ts__as_resp *r,
                         const struct ts_strlist *pruned)
{
    struct ts_buf msg = TS_BUF_INIT;

    ts_buf_addf(&msg, "%s in version \"%s\" cannot be handled as a %s: strict decoding error: ",
                q->res->kind, q->ver->name, q->res->kind);
    for (size_t i = 0; i < pruned->n; i++)
        ts_buf_addf(&msg, "%sunknown field \"%s\"", i ? ", " : "", pruned->items[i]);
    ts__as_reply_status(r, 400, "BadRequest", msg.ptr, NULL);
    ts_buf_release(&msg);
}

/* Go's JSON name of v's type, as encoding/json's UnmarshalTypeError says. */
static const char *go_json_type(const cJSON *v)
{
    if (cJSON_IsNumber(v) || cJSON_IsRaw(v))
        return "number";
    if (cJSON_IsBool(v))
        return "bool";
    if (cJSON_IsArray(v))
        return "array";
    if (cJSON_IsObject(v))
        return "object";
    return "string";
}

/* kube-apiserver decodes a custom resource's metadata into ObjectMeta
 * before anything else: a string field of another type is a 400.  0, or
 * -1 after replying. */
static int metadata_types(struct ts__as_req *q, struct ts__as_resp *r, const cJSON *obj)
{
    static const char *const strings[] = {"name", "generateName", "namespace", NULL};
    const cJSON *md = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    char msg[512];

    for (size_t i = 0; strings[i]; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(md, strings[i]);

        if (!v || cJSON_IsString(v) || cJSON_IsNull(v))
            continue;
        snprintf(msg, sizeof(msg),
                 "%s in version \"%s\" cannot be handled as a %s: json: cannot unmarshal %s into "
                 "Go struct field ObjectMeta.%s of type string",
                 q->res->kind, q->ver->name, q->res->kind, go_json_type(v), strings[i]);
        ts__as_reply_status(r, 400, "BadRequest", msg, NULL);
        return -1;
    }
    return 0;
}

int ts__as_cr_prepare(struct ts__as_req *q, struct ts__as_resp *r, const cJSON *old, cJSON *obj)
{
    const char *fv = ts__as_query(q, "fieldValidation");
    struct ts_strlist pruned = TS_STRLIST_INIT;
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    const cJSON *schema = q->ver->schema;
    char w[600];

    if (fv && strcmp(fv, "Strict") && strcmp(fv, "Warn") && strcmp(fv, "Ignore")) {
        ts__as_reply_badreq(r, "fieldValidation must be one of Ignore, Warn, or Strict");
        return -1;
    }
    if (metadata_types(q, r, obj))
        return -1;
    ts_schema_prune(schema, obj, 1, &pruned);
    if (pruned.n && fv && !strcmp(fv, "Strict")) {
        strict_error(q, r, &pruned);
        ts_strlist_release(&pruned);
        return -1;
    }
    for (size_t i = 0; pruned.n && (!fv || !strcmp(fv, "Warn")) && i < pruned.n; i++) {
        snprintf(w, sizeof(w), "unknown field \"%s\"", pruned.items[i]);
        ts_strlist_push(&r->warnings, w);
    }
    ts_strlist_release(&pruned);
    ts_schema_default(schema, obj);
    /* ObjectMeta's errors count before the CEL rules, as in kube-apiserver's
     * custom resource strategy */
    ts_meta_validate(obj, TS_META_NAME_SUBDOMAIN, q->res->namespaced, &errs);
    ts_schema_validate_with(schema, q->ver->patterns, obj, "", &errs);
    ts_cel_rules_check(q->ver->cel, obj, old, &errs, &r->warnings);
    if (errs.n) {
        ts__as_reply_invalid(r, q->res, ts_json_get_string(obj, "metadata.name"), &errs);
        ts_field_errors_release(&errs);
        return -1;
    }
    return 0;
}
