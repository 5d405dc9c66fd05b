/*
 * webhook_test.h - helpers shared by test_webhook_*.c (header-only, static
 * inline, so each test binary stands alone): JSON files, AdmissionReview
 * bodies, calling ts_webhook_handle() and decoding its answer (the base64
 * JSONPatch included), and the table runner for the test/data/webhook tables.
 *
 * Table case fields (see test/data/webhook/README.md):
 *   name, path, operation (CREATE), namespace, subResource,
 *   object: file name under test/data/ or an inline object,
 *   patch / old_patch: RFC 6902 edits giving the new and (UPDATE) old object,
 *   options: {manageJobsWithoutQueueName, partialAdmission, priorityBoost,
 *             defaultLocalQueue (namespaces having LocalQueue "default"),
 *             defaultWPC, managePods (integrations.frameworks "pod", default on),
 *             externalFrameworks},
 *   want: {allowed, code, message (substring or list of substrings),
 *          patch (exact ops, or null for none), mutated ({pointer: value}),
 *          warnings (the response's exact warnings; [] for none)}.
 *
 * Include after <cmocka.h>.
 */
#ifndef TS_TEST_WEBHOOK_TEST_H
#define TS_TEST_WEBHOOK_TEST_H

#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/json.h"
#include "json/patch.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/strlist.h"
#include "webhook/cert.h"
#include "webhook/webhook.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

/* Parses a JSON file.  Ownership: caller deletes. */
static inline cJSON *wt_load(const char *path)
{
    FILE *f = fopen(path, "rb");
    struct ts_buf b = TS_BUF_INIT;
    struct ts_err err = {0};
    char chunk[4096];
    size_t n;
    cJSON *out = NULL;

    if (!f)
        fail_msg("cannot open %s", path);
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        ts_buf_add(&b, chunk, n);
    fclose(f);
    if (ts_json_parse(b.ptr, b.len, &out, &err))
        fail_msg("%s: %s", path, err.msg);
    ts_buf_release(&b);
    return out;
}

/* Parses JSON text written with ' for ".  Ownership: caller deletes. */
static inline cJSON *wt_json(const char *text)
{
    char *s = ts_xstrdup(text);
    cJSON *j;

    for (char *p = s; *p; p++) {
        if (*p == '\'')
            *p = '"';
    }
    j = cJSON_Parse(s);
    if (!j)
        fail_msg("test JSON does not parse: %s", s);
    free(s);
    return j;
}

/* An AdmissionReview v1 body.  Ownership: caller frees. */
static inline char *wt_review(const char *op, const char *ns, const char *sub, const cJSON *obj,
                              const cJSON *old)
{
    cJSON *rv = cJSON_CreateObject();
    cJSON *rq;
    char *text;

    cJSON_AddStringToObject(rv, "apiVersion", "admission.k8s.io/v1");
    cJSON_AddStringToObject(rv, "kind", "AdmissionReview");
    rq = cJSON_AddObjectToObject(rv, "request");
    cJSON_AddStringToObject(rq, "uid", "705ab4f5-6393-11e8-b7cc-42010a800002");
    cJSON_AddStringToObject(rq, "operation", op);
    cJSON_AddStringToObject(rq, "namespace", ns ? ns : "");
    if (sub && *sub)
        cJSON_AddStringToObject(rq, "subResource", sub);
    cJSON_AddItemToObject(rq, "object", obj ? cJSON_Duplicate(obj, 1) : cJSON_CreateNull());
    cJSON_AddItemToObject(rq, "oldObject", old ? cJSON_Duplicate(old, 1) : cJSON_CreateNull());
    cJSON_AddFalseToObject(rq, "dryRun");
    text = cJSON_PrintUnformatted(rv);
    cJSON_Delete(rv);
    return text;
}

struct wt_resp {
    int http;
    cJSON *root;        /* whole answer (NULL when not JSON) */
    const cJSON *resp;  /* root.response (borrowed) */
    cJSON *patch;       /* decoded JSONPatch ops, NULL when none */
    struct ts_buf text; /* raw answer */
};

static inline void wt_resp_release(struct wt_resp *r)
{
    cJSON_Delete(r->root);
    cJSON_Delete(r->patch);
    ts_buf_release(&r->text);
    memset(r, 0, sizeof(*r));
}

/* Calls the handler and decodes the answer. */
static inline void wt_call(const struct ts_webhook *wh, const char *path, const char *body,
                           size_t len, struct wt_resp *r)
{
    const char *p64;

    memset(r, 0, sizeof(*r));
    ts_buf_init(&r->text, 0);
    r->http = ts_webhook_handle(wh, path, body, len, &r->text);
    r->root = cJSON_Parse(r->text.ptr);
    r->resp = r->root ? cJSON_GetObjectItem(r->root, "response") : NULL;
    p64 = r->resp ? ts_json_get_string(r->resp, "patch") : NULL;
    if (p64) {
        struct ts_buf raw = TS_BUF_INIT;

        assert_int_equal(ts_cert_unbase64(p64, strlen(p64), &raw), 0);
        assert_string_equal(ts_json_get_string(r->resp, "patchType"), "JSONPatch");
        r->patch = cJSON_Parse(raw.ptr);
        assert_non_null(r->patch);
        ts_buf_release(&raw);
    }
}

/* --- lookups for the table ------------------------------------------------- */

struct wt_lookup {
    const cJSON *lq_namespaces; /* array of namespaces with LocalQueue "default" */
    int default_wpc;
    struct ts_strlist external; /* externalFrameworks; released by the runner */
};

static inline int wt_lq_exists(void *ctx, const char *ns, const char *name)
{
    const struct wt_lookup *l = ctx;
    const cJSON *n;

    if (strcmp(name, "default") != 0)
        return 0;
    cJSON_ArrayForEach(n, l->lq_namespaces)
    {
        if (cJSON_IsString(n) && strcmp(n->valuestring, ns) == 0)
            return 1;
    }
    return 0;
}

static inline int wt_wpc_exists(void *ctx, const char *name)
{
    const struct wt_lookup *l = ctx;

    return l->default_wpc && strcmp(name, "default") == 0;
}

static inline struct ts_webhook *wt_webhook(const cJSON *opts, struct wt_lookup *l)
{
    struct ts_webhook_options o;
    const cJSON *pa = cJSON_GetObjectItem(opts, "partialAdmission");

    ts_webhook_options_init(&o);
    ts_strlist_init(&l->external);
    l->lq_namespaces = cJSON_GetObjectItem(opts, "defaultLocalQueue");
    l->default_wpc = cJSON_IsTrue(cJSON_GetObjectItem(opts, "defaultWPC"));
    o.manage_jobs_without_queue_name =
        cJSON_IsTrue(cJSON_GetObjectItem(opts, "manageJobsWithoutQueueName"));
    if (pa)
        o.partial_admission = cJSON_IsTrue(pa);
    o.priority_boost = cJSON_IsTrue(cJSON_GetObjectItem(opts, "priorityBoost"));
    {
        const cJSON *e;

        cJSON_ArrayForEach(e, cJSON_GetObjectItem(opts, "externalFrameworks"))
            ts_strlist_push(&l->external, e->valuestring);
        o.external_frameworks = &l->external;
    }
    if (cJSON_GetObjectItem(opts, "managePods"))
        o.manage_pods = cJSON_IsTrue(cJSON_GetObjectItem(opts, "managePods"));
    o.lookup.local_queue_exists = wt_lq_exists;
    o.lookup.wpc_exists = wt_wpc_exists;
    o.lookup.ctx = l;
    return ts_webhook_new(&o);
}

/* --- the table runner ------------------------------------------------------- */

static inline cJSON *wt_object(const cJSON *spec)
{
    char path[256];

    if (cJSON_IsString(spec)) {
        snprintf(path, sizeof(path), "test/data/%s", spec->valuestring);
        return wt_load(path);
    }
    return spec ? cJSON_Duplicate(spec, 1) : NULL;
}

static inline cJSON *wt_patched(const char *name, const cJSON *doc, const cJSON *ops)
{
    struct ts_err err = {0};
    cJSON *out = NULL;

    if (!doc)
        return NULL;
    if (!ops || cJSON_IsNull(ops))
        return cJSON_Duplicate(doc, 1);
    if (ts_json_patch_apply(doc, ops, &out, &err))
        fail_msg("%s: bad test patch: %s", name, err.msg);
    return out;
}

static inline void wt_check_message(const char *name, const cJSON *want, const char *got)
{
    const cJSON *m;

    if (cJSON_IsString(want)) {
        if (!strstr(got, want->valuestring))
            fail_msg("%s: message\n  %s\nlacks\n  %s", name, got, want->valuestring);
        return;
    }
    cJSON_ArrayForEach(m, want) wt_check_message(name, m, got);
}

static inline void wt_check_mutated(const char *name, const cJSON *obj, const cJSON *patch,
                                    const cJSON *want)
{
    struct ts_err err = {0};
    cJSON *out = NULL, *none = cJSON_CreateArray();
    const cJSON *w;

    if (ts_json_patch_apply(obj, patch ? patch : none, &out, &err))
        fail_msg("%s: response patch does not apply: %s", name, err.msg);
    cJSON_Delete(none);
    cJSON_ArrayForEach(w, want)
    {
        cJSON *got = NULL;

        ts_json_pointer_get(out, w->string, &got, NULL);
        if (!ts_json_equal(got, cJSON_IsNull(w) ? NULL : w)) {
            char *g = got ? cJSON_PrintUnformatted(got) : ts_xstrdup("(absent)");

            fail_msg("%s: %s is %s", name, w->string, g);
        }
    }
    cJSON_Delete(out);
}

/* response.warnings is exactly `want` (absent counts as []). */
static inline void wt_check_warnings(const char *name, const cJSON *want, const struct wt_resp *r)
{
    const cJSON *got = cJSON_GetObjectItem(r->resp, "warnings");
    cJSON *none = cJSON_CreateArray();

    if (!ts_json_equal(want, got ? got : none))
        fail_msg("%s: warnings differ: %s", name, r->text.ptr);
    cJSON_Delete(none);
}

static inline void wt_check(const char *name, const cJSON *want, const cJSON *obj,
                            const struct wt_resp *r)
{
    const cJSON *allowed = cJSON_GetObjectItem(want, "allowed");
    const cJSON *code = cJSON_GetObjectItem(want, "code");
    const cJSON *patch = cJSON_GetObjectItem(want, "patch");
    const char *msg = ts_json_get_string(r->resp, "status.message");

    if (!r->resp)
        fail_msg("%s: no response in %s", name, r->text.ptr);
    if (allowed && cJSON_IsTrue(allowed) != cJSON_IsTrue(cJSON_GetObjectItem(r->resp, "allowed")))
        fail_msg("%s: allowed differs: %s", name, r->text.ptr);
    if (code && ts_json_get(r->resp, "status.code") &&
        code->valueint != ts_json_get(r->resp, "status.code")->valueint)
        fail_msg("%s: code differs: %s", name, r->text.ptr);
    if (cJSON_GetObjectItem(want, "message"))
        wt_check_message(name, cJSON_GetObjectItem(want, "message"), msg ? msg : "");
    if (patch && !ts_json_equal(cJSON_IsNull(patch) ? NULL : patch, r->patch))
        fail_msg("%s: patch differs: %s", name,
                 r->patch ? cJSON_PrintUnformatted(r->patch) : "(none)");
    if (cJSON_GetObjectItem(want, "mutated"))
        wt_check_mutated(name, obj, r->patch, cJSON_GetObjectItem(want, "mutated"));
    if (cJSON_GetObjectItem(want, "warnings"))
        wt_check_warnings(name, cJSON_GetObjectItem(want, "warnings"), r);
}

static inline void wt_run_case(const cJSON *c)
{
    const char *name = ts_json_get_string(c, "name");
    const char *op = ts_json_get_string(c, "operation");
    struct wt_lookup l;
    struct ts_webhook *wh = wt_webhook(cJSON_GetObjectItem(c, "options"), &l);
    cJSON *base = wt_object(cJSON_GetObjectItem(c, "object"));
    cJSON *nw = wt_patched(name, base, cJSON_GetObjectItem(c, "patch"));
    cJSON *old = NULL;
    struct wt_resp r;
    char *body;

    op = op ? op : "CREATE";
    if (strcmp(op, "CREATE") != 0)
        old = wt_patched(name, base, cJSON_GetObjectItem(c, "old_patch"));
    if (strcmp(op, "DELETE") == 0)
        cJSON_Delete(nw), nw = NULL;
    body = wt_review(op, ts_json_get_string(c, "namespace"), ts_json_get_string(c, "subResource"),
                     nw, old);
    wt_call(wh, ts_json_get_string(c, "path"), body, strlen(body), &r);
    assert_int_equal(r.http, 200);
    assert_string_equal(ts_json_get_string(r.resp, "uid"), "705ab4f5-6393-11e8-b7cc-42010a800002");
    wt_check(name, cJSON_GetObjectItem(c, "want"), nw, &r);
    wt_resp_release(&r);
    free(body);
    cJSON_Delete(base), cJSON_Delete(nw), cJSON_Delete(old);
    ts_webhook_free(wh);
    ts_strlist_release(&l.external);
}

/* Runs every case of a table file; prints the count. */
static inline void wt_run_table(const char *file)
{
    cJSON *cases = wt_load(file);
    const cJSON *c;
    int n = 0;

    cJSON_ArrayForEach(c, cases)
    {
        wt_run_case(c);
        n++;
    }
    print_message("%s: %d cases\n", file, n);
    cJSON_Delete(cases);
}

#endif
