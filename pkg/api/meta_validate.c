#include "api/meta_validate.h"

#include "api/names.h"
#include "util/alloc.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void validate_name(const cJSON *md, enum ts_meta_name_rule rule,
                          struct ts_field_errors *errs)
{
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(md, "name");
    const char *name = cJSON_IsString(n) ? n->valuestring : NULL;

    if (!name || !name[0]) {
        ts_field_errors_add(errs, TS_FIELD_REQUIRED, "metadata.name", NULL, 0,
                            "name or generateName is required");
        return;
    }
    if (rule == TS_META_NAME_LABEL)
        ts_names_dns1123_label(name, "metadata.name", errs);
    else if (rule == TS_META_NAME_SUBDOMAIN)
        ts_names_dns1123_subdomain(name, "metadata.name", errs);
}

static void validate_namespace(const cJSON *md, int namespaced, struct ts_field_errors *errs)
{
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(md, "namespace");
    const char *ns = cJSON_IsString(n) ? n->valuestring : "";

    if (!namespaced) {
        if (ns[0])
            ts_field_errors_add(errs, TS_FIELD_FORBIDDEN, "metadata.namespace", NULL, 0,
                                "not allowed on this type");
    } else if (!ns[0]) {
        ts_field_errors_add(errs, TS_FIELD_REQUIRED, "metadata.namespace", NULL, 0, NULL);
    } else {
        ts_names_dns1123_label(ns, "metadata.namespace", errs);
    }
}

static void validate_labels(const cJSON *md, struct ts_field_errors *errs)
{
    const cJSON *l;

    cJSON_ArrayForEach(l, cJSON_GetObjectItemCaseSensitive(md, "labels"))
    {
        ts_names_qualified(l->string, "metadata.labels", errs);
        if (cJSON_IsString(l))
            ts_names_label_value(l->valuestring, "metadata.labels", errs);
        else
            ts_field_errors_add(errs, TS_FIELD_INVALID, "metadata.labels", l->string, 1,
                                "must be a string");
    }
}

/* Annotation keys are qualified names compared in lower case; the error
 * shows the key as written. */
static void validate_annotation_key(const char *key, struct ts_field_errors *errs)
{
    struct ts_field_errors found = TS_FIELD_ERRORS_INIT;
    size_t n = strlen(key);
    char *lower = ts_xmalloc(n + 1);

    for (size_t i = 0; i <= n; i++)
        lower[i] = (char)tolower((unsigned char)key[i]);
    ts_names_qualified(lower, "metadata.annotations", &found);
    for (size_t i = 0; i < found.n; i++)
        ts_field_errors_add(errs, found.items[i].type, "metadata.annotations", key, 1, "%s",
                            found.items[i].detail ? found.items[i].detail : "");
    ts_field_errors_release(&found);
    free(lower);
}

static void validate_annotations(const cJSON *md, struct ts_field_errors *errs)
{
    const cJSON *a;
    size_t total = 0;

    cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(md, "annotations"))
    {
        total += strlen(a->string) + (cJSON_IsString(a) ? strlen(a->valuestring) : 0);
        validate_annotation_key(a->string, errs);
    }
    if (total > TS_META_ANNOTATIONS_MAX)
        ts_field_errors_add(errs, TS_FIELD_TOO_LONG, "metadata.annotations", NULL, 0,
                            "may not be more than %d bytes", TS_META_ANNOTATIONS_MAX);
}

static void validate_finalizers(const cJSON *md, struct ts_field_errors *errs)
{
    const cJSON *f;

    cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(md, "finalizers"))
    {
        if (cJSON_IsString(f))
            ts_names_qualified(f->valuestring, "metadata.finalizers", errs);
    }
}

void ts_meta_validate(const cJSON *obj, enum ts_meta_name_rule rule, int namespaced,
                      struct ts_field_errors *errs)
{
    const cJSON *md = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(md, "generation");

    validate_name(md, rule, errs);
    validate_namespace(md, namespaced, errs);
    if (cJSON_IsNumber(g) && g->valuedouble < 0) {
        char v[32];

        snprintf(v, sizeof(v), "%.0f", g->valuedouble);
        ts_field_errors_add(errs, TS_FIELD_INVALID, "metadata.generation", v, 0,
                            "must be greater than or equal to 0");
    }
    validate_labels(md, errs);
    validate_annotations(md, errs);
    validate_finalizers(md, errs);
}
