#include "cli/crdcheck.h"

#include "api/cel_rules.h"
#include "api/meta_validate.h"
#include "api/schema.h"
#include "json/json.h"
#include "util/alloc.h"
#include "yaml/yaml.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One served version of one CRD. */
struct crd_version {
    char *group, *kind, *version;
    int namespaced;
    int has_status; /* serves the /status subresource */
    cJSON *schema;  /* owned copy of openAPIV3Schema */
    struct ts_schema_patterns *patterns;
    struct ts_cel_rules *cel; /* NULL: no rules */
};

struct ts_cli_crds {
    struct crd_version *v;
    size_t n, cap;
};

static void add_versions(struct ts_cli_crds *c, const cJSON *crd)
{
    const char *group = ts_json_get_string(crd, "spec.group");
    const char *kind = ts_json_get_string(crd, "spec.names.kind");
    const char *scope = ts_json_get_string(crd, "spec.scope");
    const char *crd_name = ts_json_get_string(crd, "metadata.name");
    const cJSON *v;

    if (!group || !kind)
        return;
    cJSON_ArrayForEach(v, ts_json_get(crd, "spec.versions"))
    {
        const char *name = ts_json_get_string(v, "name");
        const cJSON *schema = ts_json_get(v, "schema.openAPIV3Schema");
        struct crd_version *cv;
        char what[600];

        if (!name || !schema)
            continue;
        if (c->n == c->cap) {
            c->cap = c->cap ? 2 * c->cap : 16;
            c->v = ts_xrealloc(c->v, c->cap * sizeof(*c->v));
        }
        cv = &c->v[c->n++];
        cv->group = ts_xstrdup(group);
        cv->kind = ts_xstrdup(kind);
        cv->version = ts_xstrdup(name);
        cv->namespaced = !scope || strcmp(scope, "Cluster") != 0;
        cv->has_status = ts_json_get(v, "subresources.status") != NULL;
        cv->schema = cJSON_Duplicate(schema, 1);
        cv->patterns = ts_schema_patterns_new(cv->schema);
        snprintf(what, sizeof(what), "%s/%s", crd_name ? crd_name : kind, name);
        cv->cel = ts_cel_rules_new(cv->schema, what);
    }
}

static int yaml_file(const char *name)
{
    size_t n = strlen(name);

    return name[0] != '.' &&
           ((n > 5 && !strcmp(name + n - 5, ".yaml")) || (n > 4 && !strcmp(name + n - 4, ".yml")));
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

struct ts_cli_crds *ts_cli_crds_load(const char *dir, struct ts_err *err)
{
    struct ts_cli_crds *c = ts_xcalloc(1, sizeof(*c));
    DIR *d = opendir(dir);
    struct dirent *de;
    char **names = NULL;
    size_t n = 0, cap = 0;
    int failed = 0;

    if (!d) {
        ts_err_set(err, TS_EIO, "--crds %s: cannot read the directory", dir);
        free(c);
        return NULL;
    }
    while ((de = readdir(d))) {
        if (!yaml_file(de->d_name))
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            names = ts_xrealloc(names, cap * sizeof(*names));
        }
        names[n++] = ts_xstrdup(de->d_name);
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof(*names), cmp_names); /* a stable order of messages */
    for (size_t i = 0; i < n; i++) {
        struct ts_yaml_stream st = TS_YAML_STREAM_INIT;
        size_t len = strlen(dir) + strlen(names[i]) + 2;
        char *path = ts_xmalloc(len);

        snprintf(path, len, "%s/%s", dir, names[i]);
        if (!failed && ts_yaml_decode_file(path, &st, err) != 0) {
            ts_err_prefix(err, "--crds %s", path);
            failed = 1;
        }
        for (size_t j = 0; !failed && j < st.n; j++) {
            const char *kind = ts_json_get_string(st.docs[j].root, "kind");

            if (kind && !strcmp(kind, "CustomResourceDefinition"))
                add_versions(c, st.docs[j].root);
        }
        ts_yaml_stream_release(&st);
        free(path);
        free(names[i]);
    }
    free(names);
    if (!failed && c->n == 0) {
        ts_err_set(err, TS_EINVAL, "--crds %s: no CustomResourceDefinition in its *.yaml files",
                   dir);
        failed = 1;
    }
    if (failed) {
        ts_cli_crds_free(c);
        return NULL;
    }
    return c;
}

void ts_cli_crds_free(struct ts_cli_crds *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n; i++) {
        free(c->v[i].group);
        free(c->v[i].kind);
        free(c->v[i].version);
        ts_cel_rules_free(c->v[i].cel);
        ts_schema_patterns_free(c->v[i].patterns);
        cJSON_Delete(c->v[i].schema);
    }
    free(c->v);
    free(c);
}

static const struct crd_version *find(const struct ts_cli_crds *c, const char *api_version,
                                      const char *kind)
{
    const char *slash = api_version ? strchr(api_version, '/') : NULL;

    if (!slash || !kind)
        return NULL;
    for (size_t i = 0; i < c->n; i++) {
        const struct crd_version *v = &c->v[i];

        if (!strcmp(v->kind, kind) && strlen(v->group) == (size_t)(slash - api_version) &&
            !strncmp(v->group, api_version, (size_t)(slash - api_version)) &&
            !strcmp(v->version, slash + 1))
            return v;
    }
    return NULL;
}

/* What the API server does to an object it reads: the namespace of a
 * cluster-scoped object dropped (k8s.io/apiserver pkg/registry/rest/meta.go
 * EnsureObjectNamespaceMatchesRequestNamespace), unknown fields pruned,
 * defaults applied. */
static void decode_as_stored(const struct crd_version *v, cJSON *obj)
{
    cJSON *md = cJSON_GetObjectItemCaseSensitive(obj, "metadata");

    if (!v->namespaced && cJSON_IsObject(md))
        cJSON_DeleteItemFromObjectCaseSensitive(md, "namespace");
    ts_schema_prune(v->schema, obj, 1, NULL);
    ts_schema_default(v->schema, obj);
}

int ts_cli_crds_check(const struct ts_cli_crds *c, cJSON *obj, struct ts_field_errors *errs)
{
    const struct crd_version *v =
        find(c, ts_json_get_string(obj, "apiVersion"), ts_json_get_string(obj, "kind"));

    if (!v)
        return -1;
    decode_as_stored(v, obj);
    ts_meta_validate(obj, TS_META_NAME_SUBDOMAIN, v->namespaced, errs);
    ts_schema_validate_with(v->schema, v->patterns, obj, "", errs);
    ts_cel_rules_check(v->cel, obj, NULL, errs, NULL);
    return 0;
}

/* The custom resource strategies' PrepareForUpdate
 * (k8s.io/apiextensions-apiserver pkg/registry/customresource): an update
 * of the object keeps the stored status; one of /status keeps everything
 * but the status. */
static void prepare_for_update(cJSON *obj, const cJSON *old, int status)
{
    const cJSON *c;

    if (!status) {
        cJSON_DeleteItemFromObjectCaseSensitive(obj, "status");
        c = cJSON_GetObjectItemCaseSensitive(old, "status");
        if (c)
            cJSON_AddItemToObject(obj, "status", cJSON_Duplicate(c, 1));
        return;
    }
    for (cJSON *it = obj->child, *next; it; it = next) {
        next = it->next;
        if (!it->string || strcmp(it->string, "status"))
            cJSON_Delete(cJSON_DetachItemViaPointer(obj, it));
    }
    cJSON_ArrayForEach(c, old)
    {
        if (strcmp(c->string, "status"))
            cJSON_AddItemToObject(obj, c->string, cJSON_Duplicate(c, 1));
    }
}

/* A /status update is checked against the status schema alone
 * (k8s.io/apiextensions-apiserver pkg/apiserver/customresource_handler.go
 * builds its validator from properties.status): the messages name the
 * field from the status ("pendingWorkloads in body ..."), the paths from
 * the object ("status.pendingWorkloads"). */
static void validate_status(const struct crd_version *v, const cJSON *st,
                            struct ts_field_errors *errs)
{
    struct ts_field_errors own = TS_FIELD_ERRORS_INIT;
    struct ts_buf path = TS_BUF_INIT;

    ts_schema_validate_with(ts_json_get(v->schema, "properties.status"), v->patterns, st, "", &own);
    for (size_t i = 0; i < own.n; i++) {
        const struct ts_field_error *e = &own.items[i];

        ts_buf_reset(&path);
        ts_buf_addf(&path, "status%s%s", e->field[0] && e->field[0] != '[' ? "." : "", e->field);
        ts_field_errors_add(errs, e->type, path.ptr, e->value, 0, e->detail ? "%s" : NULL,
                            e->detail);
    }
    ts_buf_release(&path);
    ts_field_errors_release(&own);
}

int ts_cli_crds_check_update(const struct ts_cli_crds *c, cJSON *obj, cJSON *old, int status,
                             struct ts_field_errors *errs)
{
    const struct crd_version *v =
        find(c, ts_json_get_string(obj, "apiVersion"), ts_json_get_string(obj, "kind"));
    const cJSON *st;

    if (!v)
        return -1;
    if (status && !v->has_status)
        return TS_ENOTFOUND;
    decode_as_stored(v, old);
    decode_as_stored(v, obj);
    if (v->has_status)
        prepare_for_update(obj, old, status);
    /* ObjectMeta's update rules check the new labels, annotations and
     * finalizers as on create; name and namespace come from the stored
     * object's URL, so they cannot differ */
    ts_meta_validate(obj, TS_META_NAME_SUBDOMAIN, v->namespaced, errs);
    st = cJSON_GetObjectItemCaseSensitive(obj, "status");
    if (!status)
        ts_schema_validate_with(v->schema, v->patterns, obj, "", errs);
    else if (st)
        validate_status(v, st, errs);
    ts_cel_rules_check(v->cel, obj, old, errs, NULL);
    return 0;
}
