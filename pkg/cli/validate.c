#include "cli/validate.h"

#include "api/kueue_default.h"
#include "api/object.h"
#include "cli/crdcheck.h"
#include "cli/load.h"
#include "json/json.h"
#include "util/buf.h"

#include <string.h>

#define USAGE                                                                                      \
    "usage: turnstilectl validate -f FILE [--crds DIR] [--old FILE [--subresource status]] "       \
    "[-o text|json]\n"

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

/* A result that names doc's apiVersion and kind; with a kind Turnstile's
 * webhooks do not serve, also the error saying so (and 0 is returned). */
static cJSON *new_result(const cJSON *doc, enum ts_kind kind, int *ok)
{
    cJSON *res = cJSON_CreateObject();
    struct ts_buf m = TS_BUF_INIT;

    cJSON_AddStringToObject(res, "apiVersion", sget(doc, "apiVersion"));
    cJSON_AddStringToObject(res, "kind", sget(doc, "kind"));
    *ok = is_kueue_kind(kind);
    if (!*ok) {
        ts_buf_addf(&m, "unsupported object: apiVersion \"%s\", kind \"%s\"",
                    sget(doc, "apiVersion"), sget(doc, "kind"));
        cJSON_AddStringToObject(res, "error", m.ptr);
        ts_buf_release(&m);
    }
    return res;
}

static void add_name(cJSON *res, const cJSON *obj)
{
    cJSON_AddStringToObject(res, "name", sget(obj, "metadata.name"));
    if (*sget(obj, "metadata.namespace"))
        cJSON_AddStringToObject(res, "namespace", sget(obj, "metadata.namespace"));
}

cJSON *ts_cli_validate_doc(const cJSON *doc, const struct ts_cli_crds *crds, int partial_admission)
{
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_err err = {0};
    struct ts_object o;
    enum ts_kind kind = ts_object_kind(doc);
    int ok;
    cJSON *res = new_result(doc, kind, &ok), *obj;

    if (!ok)
        return res;
    obj = cJSON_Duplicate(doc, 1);
    default_namespace(obj, kind);
    add_name(res, obj);
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

/* The webhook's answer on UPDATE, once the API server's checks passed:
 * obj decoded and checked against old by the kind's update rules (a
 * stored object that does not decode cleanly is not the requester's
 * fault: its problems are ignored, as the webhook does). */
static void webhook_update(cJSON *res, const cJSON *obj, const cJSON *old, int status)
{
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT, old_errs = TS_FIELD_ERRORS_INIT;
    struct ts_err err = {0};
    struct ts_object o, oo;

    if (ts_object_decode(obj, &o, &errs, &err) != 0) {
        cJSON_AddFalseToObject(res, "allowed");
        add_errors(res, &errs);
        cJSON_AddStringToObject(res, "error", err.msg);
        ts_field_errors_release(&errs);
        return;
    }
    /* Turnstile's validating webhook serves /status of Workloads only
     * (config/webhook/manifests.yaml), as Kueue's */
    if (!status || o.kind == TS_KIND_WORKLOAD) {
        if (ts_object_decode(old, &oo, &old_errs, &err) == 0) {
            ts_object_validate_update(&oo, &o, &errs);
            ts_object_release(&oo);
        }
    }
    cJSON_AddBoolToObject(res, "allowed", errs.n == 0);
    add_errors(res, &errs);
    cJSON_AddItemToObject(res, "object", encode(&o));
    ts_object_release(&o);
    ts_field_errors_release(&errs);
    ts_field_errors_release(&old_errs);
}

cJSON *ts_cli_validate_update_doc(const cJSON *doc, const cJSON *old_doc,
                                  const struct ts_cli_crds *crds, int status)
{
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    enum ts_kind kind = ts_object_kind(doc);
    int ok, rc = 0;
    cJSON *res = new_result(doc, kind, &ok), *obj, *old;

    if (!ok)
        return res;
    if (strcmp(sget(old_doc, "apiVersion"), sget(doc, "apiVersion")) ||
        strcmp(sget(old_doc, "kind"), sget(doc, "kind"))) {
        cJSON_AddStringToObject(res, "error",
                                "old object: not of the new object's apiVersion "
                                "and kind");
        return res;
    }
    obj = cJSON_Duplicate(doc, 1);
    old = cJSON_Duplicate(old_doc, 1);
    default_namespace(obj, kind);
    default_namespace(old, kind);
    add_name(res, obj);
    if (crds)
        rc = ts_cli_crds_check_update(crds, obj, old, status, &errs);
    if (rc == TS_ENOTFOUND) {
        cJSON_AddStringToObject(res, "error", "no status subresource");
    } else if (errs.n) {
        /* refused before any validating webhook is asked */
        cJSON_AddFalseToObject(res, "allowed");
        add_errors(res, &errs);
    } else {
        webhook_update(res, obj, old, status);
    }
    ts_field_errors_release(&errs);
    cJSON_Delete(obj);
    cJSON_Delete(old);
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

struct opts {
    const char *file, *crds_dir, *old_file;
    int json, status;
};

/* 0, or 2 after printing the usage to err. */
static int parse_args(int argc, char **argv, struct opts *o, FILE *err)
{
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

        if (!strcmp(a, "-f") && v && !o->file)
            o->file = argv[++i];
        else if (!strcmp(a, "--crds") && v && !o->crds_dir)
            o->crds_dir = argv[++i];
        else if (!strcmp(a, "--old") && v && !o->old_file)
            o->old_file = argv[++i];
        else if (!strcmp(a, "--subresource") && v && !strcmp(v, "status") && !o->status)
            o->status = ++i > 0;
        else if (!strcmp(a, "-o") && v && (!strcmp(v, "json") || !strcmp(v, "text")))
            o->json = !strcmp(argv[++i], "json");
        else {
            fprintf(err, "turnstilectl validate: bad argument '%s'\n" USAGE, a);
            return 2;
        }
    }
    if (!o->file || (o->status && !o->old_file)) {
        fputs(o->file ? "turnstilectl validate: --subresource needs --old FILE\n" USAGE
                      : "turnstilectl validate: -f FILE is required\n" USAGE,
              err);
        return 2;
    }
    return 0;
}

/* Reads -f's documents and --old's, which must be as many. */
static int read_inputs(const struct opts *o, struct ts_yaml_stream *st, struct ts_yaml_stream *old,
                       struct ts_err *e)
{
    if (ts_cli_read_stream(o->file, st, e) != 0)
        return -1;
    if (o->old_file && ts_cli_read_stream(o->old_file, old, e) != 0)
        return -1;
    if (o->old_file && old->n != st->n)
        return ts_err_set(e, TS_EINVAL, "--old %s: %zu documents for %zu in %s", o->old_file,
                          old->n, st->n, o->file);
    return 0;
}

int ts_cli_validate(int argc, char **argv, FILE *out, FILE *err)
{
    struct ts_yaml_stream st = TS_YAML_STREAM_INIT, old = TS_YAML_STREAM_INIT;
    struct ts_err e = {0};
    struct ts_cli_crds *crds = NULL;
    struct opts o = {0};
    int rc = parse_args(argc, argv, &o, err);

    if (rc)
        return rc;
    if ((o.crds_dir && !(crds = ts_cli_crds_load(o.crds_dir, &e))) ||
        read_inputs(&o, &st, &old, &e) != 0) {
        fprintf(err, "turnstilectl validate: %s\n", e.msg);
        rc = 1;
    }
    for (size_t i = 0; !e.code && i < st.n; i++) {
        cJSON *res = o.old_file ? ts_cli_validate_update_doc(st.docs[i].root, old.docs[i].root,
                                                             crds, o.status)
                                : ts_cli_validate_doc(st.docs[i].root, crds, 1);

        if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(res, "allowed")))
            rc = 1;
        if (o.json)
            print_json(res, out);
        else
            print_text(res, out);
        cJSON_Delete(res);
    }
    ts_yaml_stream_release(&st);
    ts_yaml_stream_release(&old);
    ts_cli_crds_free(crds);
    return rc;
}
