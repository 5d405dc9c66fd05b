#include "cli/validate.h"

#include "api/kueue_default.h"
#include "api/object.h"
#include "cli/crdcheck.h"
#include "cli/load.h"
#include "json/json.h"
#include "util/buf.h"

#include <string.h>

#define USAGE "usage: turnstilectl validate -f FILE [--crds DIR] [-o text|json]\n"

static const char *sget(const cJSON *obj, const char *path)
{
    const char *s = ts_json_get_string(obj, path);

    return s ? s : "";
}

/* The kinds Turnstile's Kueue webhooks serve. */
static int is_kueue_kind(enum ts_kind k)
{
    return k == TS_KIND_RESOURCE_FLAVOR || k == TS_KIND_CLUSTER_QUEUE || k == TS_KIND_COHORT ||
           k == TS_KIND_LOCAL_QUEUE || k == TS_KIND_WORKLOAD ||
           k == TS_KIND_WORKLOAD_PRIORITY_CLASS;
}

/* Owned result; NULL for a kind without an encoder here. */
static cJSON *encode(const struct ts_object *o)
{
    switch (o->kind) {
    case TS_KIND_RESOURCE_FLAVOR:
        return ts_resource_flavor_encode(&o->u.rf);
    case TS_KIND_CLUSTER_QUEUE:
        return ts_cluster_queue_encode(&o->u.cq);
    case TS_KIND_COHORT:
        return ts_cohort_encode(&o->u.cohort);
    case TS_KIND_LOCAL_QUEUE:
        return ts_local_queue_encode(&o->u.lq);
    case TS_KIND_WORKLOAD:
        return ts_workload_encode(&o->u.wl);
    case TS_KIND_WORKLOAD_PRIORITY_CLASS:
        return ts_workload_priority_class_encode(&o->u.wpc);
    default:
        return NULL;
    }
}

static void add_errors(cJSON *res, const struct ts_field_errors *errs)
{
    cJSON *list = cJSON_AddArrayToObject(res, "errors");
    struct ts_buf msg = TS_BUF_INIT;

    for (size_t i = 0; i < errs->n; i++) {
        cJSON *e = cJSON_CreateObject();

        ts_buf_reset(&msg);
        ts_field_error_format(&errs->items[i], &msg);
        cJSON_AddStringToObject(e, "type", ts_field_error_reason(errs->items[i].type));
        cJSON_AddStringToObject(e, "field", errs->items[i].field);
        cJSON_AddStringToObject(e, "message", msg.ptr ? msg.ptr : "");
        cJSON_AddItemToArray(list, e);
    }
    ts_buf_release(&msg);
}

/* kubectl sends a namespaced object without a namespace with its
 * context's, "default" here; kube-apiserver drops the namespace of a
 * cluster-scoped one (k8s.io/apiserver pkg/registry/rest/meta.go). */
static void default_namespace(cJSON *obj, enum ts_kind kind)
{
    cJSON *md = cJSON_GetObjectItemCaseSensitive(obj, "metadata");

    if (!cJSON_IsObject(md))
        return;
    if (kind != TS_KIND_LOCAL_QUEUE && kind != TS_KIND_WORKLOAD)
        cJSON_DeleteItemFromObjectCaseSensitive(md, "namespace");
    else if (!*sget(obj, "metadata.namespace"))
        ts_json_set_string(obj, "metadata.namespace", "default", NULL);
}

cJSON *ts_cli_validate_doc(const cJSON *doc, const struct ts_cli_crds *crds, int partial_admission)
{
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_err err = {0};
    struct ts_object o;
    enum ts_kind kind = ts_object_kind(doc);
    cJSON *res = cJSON_CreateObject(), *obj;

    cJSON_AddStringToObject(res, "apiVersion", sget(doc, "apiVersion"));
    cJSON_AddStringToObject(res, "kind", sget(doc, "kind"));
    if (!is_kueue_kind(kind)) {
        struct ts_buf m = TS_BUF_INIT;

        ts_buf_addf(&m, "unsupported object: apiVersion \"%s\", kind \"%s\"",
                    sget(doc, "apiVersion"), sget(doc, "kind"));
        cJSON_AddStringToObject(res, "error", m.ptr);
        ts_buf_release(&m);
        return res;
    }
    obj = cJSON_Duplicate(doc, 1);
    default_namespace(obj, kind);
    cJSON_AddStringToObject(res, "name", sget(obj, "metadata.name"));
    if (*sget(obj, "metadata.namespace"))
        cJSON_AddStringToObject(res, "namespace", sget(obj, "metadata.namespace"));
    if (crds && ts_cli_crds_check(crds, obj, &errs) == 0 && errs.n) {
        /* refused before any validating webhook is asked */
        cJSON_AddFalseToObject(res, "allowed");
        add_errors(res, &errs);
        ts_field_errors_release(&errs);
        cJSON_Delete(obj);
        return res;
    }
    ts_kueue_default(obj, partial_admission);
    if (ts_object_decode(obj, &o, &errs, &err) != 0) {
        cJSON_AddFalseToObject(res, "allowed");
        add_errors(res, &errs);
        cJSON_AddStringToObject(res, "error", err.msg);
    } else {
        ts_object_validate(&o, &errs);
        cJSON_AddBoolToObject(res, "allowed", errs.n == 0);
        add_errors(res, &errs);
        cJSON_AddItemToObject(res, "object", encode(&o));
        ts_object_release(&o);
    }
    ts_field_errors_release(&errs);
    cJSON_Delete(obj);
    return res;
}

static void print_text(const cJSON *res, FILE *out)
{
    const cJSON *e;
    const char *sep = ": refused: ";

    fprintf(out, "%s/%s", sget(res, "kind"), sget(res, "name"));
    if (*sget(res, "error")) {
        fprintf(out, ": %s\n", sget(res, "error"));
        return;
    }
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(res, "allowed"))) {
        fputs(": accepted\n", out);
        return;
    }
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(res, "errors"))
    {
        fprintf(out, "%s%s", sep, sget(e, "message"));
        sep = ", ";
    }
    fputc('\n', out);
}

static void print_json(const cJSON *res, FILE *out)
{
    struct ts_buf b = TS_BUF_INIT;

    if (ts_json_print(res, TS_JSON_COMPACT, &b, NULL) == 0)
        fprintf(out, "%s\n", b.ptr);
    ts_buf_release(&b);
}

int ts_cli_validate(int argc, char **argv, FILE *out, FILE *err)
{
    struct ts_yaml_stream st = TS_YAML_STREAM_INIT;
    struct ts_err e = {0};
    const char *file = NULL, *crds_dir = NULL;
    struct ts_cli_crds *crds = NULL;
    int json = 0, rc = 0;

    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

        if (!strcmp(a, "-f") && v && !file)
            file = argv[++i];
        else if (!strcmp(a, "--crds") && v && !crds_dir)
            crds_dir = argv[++i];
        else if (!strcmp(a, "-o") && v && (!strcmp(v, "json") || !strcmp(v, "text")))
            json = !strcmp(argv[++i], "json");
        else {
            fprintf(err, "turnstilectl validate: bad argument '%s'\n" USAGE, a);
            return 2;
        }
    }
    if (!file) {
        fputs("turnstilectl validate: -f FILE is required\n" USAGE, err);
        return 2;
    }
    if (crds_dir && !(crds = ts_cli_crds_load(crds_dir, &e))) {
        fprintf(err, "turnstilectl validate: %s\n", e.msg);
        return 1;
    }
    if (ts_cli_read_stream(file, &st, &e) != 0) {
        ts_cli_crds_free(crds);
        fprintf(err, "turnstilectl validate: %s\n", e.msg);
        return 1;
    }
    for (size_t i = 0; i < st.n; i++) {
        cJSON *res = ts_cli_validate_doc(st.docs[i].root, crds, 1);

        if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(res, "allowed")))
            rc = 1;
        if (json)
            print_json(res, out);
        else
            print_text(res, out);
        cJSON_Delete(res);
    }
    ts_yaml_stream_release(&st);
    ts_cli_crds_free(crds);
    return rc;
}
