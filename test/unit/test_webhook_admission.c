/* The admission webhooks for Kueue's kinds through ts_webhook_handle():
 * the table in test/data/webhook/kueue.json (AdmissionReview in, response
 * out: allowed, status code, message gist, JSONPatch), path routing for
 * both API versions, and malformed, oversized and hostile bodies, which
 * must be answered with an error and never crash. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>

#include "webhook_test.h"

static void kueue_table(void **state)
{
    (void)state;
    wt_run_table("test/data/webhook/kueue.json");
}

static const char *const valid_review =
    "{'apiVersion':'admission.k8s.io/v1','kind':'AdmissionReview','request':{'uid':'u-1',"
    "'operation':'CREATE','object':{'apiVersion':'kueue.x-k8s.io/v1beta2','kind':"
    "'ResourceFlavor','metadata':{'name':'rf'}}}}";

/* Every webhook path answers a review (200 + response.uid). */
static void paths(void **state)
{
    static const char *const known[] = {
        "/mutate-kueue-x-k8s-io-v1beta2-clusterqueue",
        "/mutate-kueue-x-k8s-io-v1beta1-resourceflavor",
        "/mutate-kueue-x-k8s-io-v1beta2-workload",
        "/validate-kueue-x-k8s-io-v1beta2-clusterqueue",
        "/validate-kueue-x-k8s-io-v1beta1-localqueue",
        "/validate-kueue-x-k8s-io-v1beta2-resourceflavor?timeout=10s",
        "/validate-kueue-x-k8s-io-v1beta2-cohort",
        "/validate-kueue-x-k8s-io-v1beta1-workload",
        "/validate-kueue-x-k8s-io-v1beta2-workloadpriorityclass",
        "/mutate-batch-v1-job",
        "/validate-batch-v1-job",
        "/mutate-kubeflow-org-v1-pytorchjob",
        "/validate-kubeflow-org-v1-pytorchjob",
    };
    static const char *const unknown[] = {
        "/",
        "",
        "/mutate-kueue-x-k8s-io-v1alpha1-clusterqueue",
        "/validate-kueue-x-k8s-io-v1beta2-clusterqueues",
        "/mutate-batch-v1-jobs",
        "/validate-kueue-x-k8s-io-v1beta2-",
        "/mutate-kueue-x-k8s-io-v1beta2-localqueue",
    };
    struct ts_webhook_options o;
    struct ts_webhook *wh;
    cJSON *body = wt_json(valid_review);
    char *text = cJSON_PrintUnformatted(body);
    struct wt_resp r;

    (void)state;
    ts_webhook_options_init(&o);
    wh = ts_webhook_new(&o);
    for (size_t i = 0; i < N_ELEMS(known); i++) {
        wt_call(wh, known[i], text, strlen(text), &r);
        if (r.http != 200 || !r.resp)
            fail_msg("%s: http %d %s", known[i], r.http, r.text.ptr);
        assert_string_equal(ts_json_get_string(r.resp, "uid"), "u-1");
        assert_string_equal(ts_json_get_string(r.root, "kind"), "AdmissionReview");
        assert_true(ts_webhook_path_known(known[i]));
        wt_resp_release(&r);
    }
    for (size_t i = 0; i < N_ELEMS(unknown); i++) {
        wt_call(wh, unknown[i], text, strlen(text), &r);
        if (r.http != 404)
            fail_msg("%s: want 404, got %d", unknown[i], r.http);
        assert_string_equal(ts_json_get_string(r.root, "reason"), "NotFound");
        wt_resp_release(&r);
    }
    wt_call(wh, "/healthz", NULL, 0, &r);
    assert_int_equal(r.http, 200);
    assert_string_equal(r.text.ptr, "ok");
    wt_resp_release(&r);
    free(text);
    cJSON_Delete(body);
    ts_webhook_free(wh);
}

/* Bodies that are not usable reviews: 200 with allowed=false, code 400. */
static void malformed(void **state)
{
    static const struct {
        const char *name, *body, *want_msg, *want_uid;
    } cases[] = {
        {"empty", "", "cannot decode AdmissionReview", ""},
        {"not json", "hello", "cannot decode AdmissionReview: invalid JSON", ""},
        {"truncated", "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"Adm",
         "cannot decode AdmissionReview", ""},
        {"array", "[1,2]", "not a JSON object", ""},
        {"wrong apiVersion",
         "{'apiVersion':'admission.k8s.io/v2','kind':'AdmissionReview','request':{'uid':'u'}}",
         "unsupported review: apiVersion \"admission.k8s.io/v2\"", "u"},
        {"wrong kind", "{'apiVersion':'admission.k8s.io/v1','kind':'ConversionReview'}",
         "kind \"ConversionReview\"", ""},
        {"no request", "{'apiVersion':'admission.k8s.io/v1','kind':'AdmissionReview'}",
         "has no request", ""},
        {"request not an object",
         "{'apiVersion':'admission.k8s.io/v1','kind':'AdmissionReview','request':7}",
         "has no request", ""},
        {"missing uid",
         "{'apiVersion':'admission.k8s.io/v1','kind':'AdmissionReview','request':{"
         "'operation':'CREATE','object':{}}}",
         "request.uid is missing", ""},
        {"uid not a string",
         "{'apiVersion':'admission.k8s.io/v1','kind':'AdmissionReview','request':{'uid':5}}",
         "request.uid is missing", ""},
        {"unknown operation",
         "{'apiVersion':'admission.k8s.io/v1','kind':'AdmissionReview','request':{'uid':'u',"
         "'operation':'PATCH','object':{}}}",
         "unknown operation \"PATCH\"", "u"},
        {"create without object",
         "{'apiVersion':'admission.k8s.io/v1','kind':'AdmissionReview','request':{'uid':'u',"
         "'operation':'CREATE','object':null}}",
         "CREATE request without an object", "u"},
        {"update without oldObject",
         "{'apiVersion':'admission.k8s.io/v1','kind':'AdmissionReview','request':{'uid':'u',"
         "'operation':'UPDATE','object':{'apiVersion':'kueue.x-k8s.io/v1beta2','kind':"
         "'ResourceFlavor','metadata':{'name':'rf'}}}}",
         "UPDATE request without an oldObject", "u"},
        {"object of an unknown kind",
         "{'apiVersion':'admission.k8s.io/v1','kind':'AdmissionReview','request':{'uid':'u',"
         "'operation':'CREATE','object':{'apiVersion':'v1','kind':'Pod'}}}",
         "expected a ResourceFlavor", "u"},
        {"object with a bad v1beta1 apiVersion",
         "{'apiVersion':'admission.k8s.io/v1','kind':'AdmissionReview','request':{'uid':'u',"
         "'operation':'CREATE','object':{'apiVersion':'kueue.x-k8s.io/v9','kind':"
         "'ResourceFlavor','metadata':{'name':'rf'}}}}",
         "", "u"},
        {"wrong field types",
         "{'apiVersion':'admission.k8s.io/v1','kind':'AdmissionReview','request':{'uid':'u',"
         "'operation':'CREATE','object':{'apiVersion':'kueue.x-k8s.io/v1beta2','kind':"
         "'ResourceFlavor','metadata':{'name':7},'spec':{'nodeLabels':[]}}}}",
         "metadata.name", "u"},
    };
    struct ts_webhook_options o;
    struct ts_webhook *wh;

    (void)state;
    ts_webhook_options_init(&o);
    wh = ts_webhook_new(&o);
    for (size_t i = 0; i < N_ELEMS(cases); i++) {
        char *body = ts_xstrdup(cases[i].body);
        struct wt_resp r;

        for (char *p = body; *p; p++)
            *p = *p == '\'' ? '"' : *p;
        wt_call(wh, "/validate-kueue-x-k8s-io-v1beta2-resourceflavor", body, strlen(body), &r);
        if (r.http != 200 || !r.resp)
            fail_msg("%s: http %d %s", cases[i].name, r.http, r.text.ptr);
        if (cJSON_IsTrue(cJSON_GetObjectItem(r.resp, "allowed")))
            fail_msg("%s: allowed: %s", cases[i].name, r.text.ptr);
        if (!strstr(ts_json_get_string(r.resp, "status.message"), cases[i].want_msg))
            fail_msg("%s: message: %s", cases[i].name, r.text.ptr);
        assert_string_equal(ts_json_get_string(r.resp, "uid"), cases[i].want_uid);
        wt_resp_release(&r);
        free(body);
    }
    ts_webhook_free(wh);
}

/* > 3 MiB: 413 without parsing; bytes that are not text: an answer. */
static void oversized_and_binary(void **state)
{
    struct ts_webhook_options o;
    struct ts_webhook *wh;
    size_t big = TS_WEBHOOK_MAX_BODY + 1;
    char *body = ts_xmalloc(big);
    struct wt_resp r;

    (void)state;
    ts_webhook_options_init(&o);
    wh = ts_webhook_new(&o);
    memset(body, ' ', big);
    wt_call(wh, "/validate-batch-v1-job", body, big, &r);
    assert_int_equal(r.http, 413);
    assert_string_equal(ts_json_get_string(r.root, "reason"), "RequestEntityTooLarge");
    wt_resp_release(&r);
    wt_call(wh, "/convert", body, big, &r);
    assert_int_equal(r.http, 413);
    wt_resp_release(&r);
    /* exactly the limit is read (and is not JSON) */
    wt_call(wh, "/validate-batch-v1-job", body, big - 1, &r);
    assert_int_equal(r.http, 200);
    wt_resp_release(&r);
    for (size_t i = 0; i < 4096; i++)
        body[i] = (char)(i * 131 + 7);
    wt_call(wh, "/mutate-batch-v1-job", body, 4096, &r);
    assert_int_equal(r.http, 200);
    assert_false(cJSON_IsTrue(cJSON_GetObjectItem(r.resp, "allowed")));
    wt_resp_release(&r);
    free(body);
    ts_webhook_free(wh);
}

/* Every prefix of a valid review is answered (truncated requests). */
static void every_prefix(void **state)
{
    struct ts_webhook_options o;
    struct ts_webhook *wh;
    cJSON *j = wt_load("test/data/api/job-full.json");
    char *body = wt_review("UPDATE", "team-a", NULL, j, j);
    size_t n = strlen(body);

    (void)state;
    ts_webhook_options_init(&o);
    wh = ts_webhook_new(&o);
    for (size_t len = 0; len <= n; len += (len < 200 ? 1 : 37)) {
        struct wt_resp r;

        wt_call(wh, "/validate-batch-v1-job", body, len, &r);
        assert_int_equal(r.http, 200);
        assert_non_null(r.resp);
        wt_resp_release(&r);
    }
    free(body);
    cJSON_Delete(j);
    ts_webhook_free(wh);
}

struct worker {
    const struct ts_webhook *wh;
    const char *body;
    int failures;
};

static void *hammer(void *arg)
{
    struct worker *w = arg;

    for (int i = 0; i < 200; i++) {
        struct ts_buf out = TS_BUF_INIT;

        if (ts_webhook_handle(w->wh, "/mutate-batch-v1-job", w->body, strlen(w->body), &out) !=
                200 ||
            !strstr(out.ptr, "\"patch\""))
            w->failures++;
        ts_buf_release(&out);
    }
    return NULL;
}

/* One struct ts_webhook serves several threads at once. */
static void concurrent(void **state)
{
    struct ts_webhook_options o;
    struct ts_webhook *wh;
    cJSON *job = wt_load("test/data/webhook/job.json");
    char *body = wt_review("CREATE", "team-a", NULL, job, NULL);
    pthread_t t[4];
    struct worker w[4];

    (void)state;
    ts_webhook_options_init(&o);
    wh = ts_webhook_new(&o);
    for (int i = 0; i < 4; i++) {
        w[i] = (struct worker){wh, body, 0};
        pthread_create(&t[i], NULL, hammer, &w[i]);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        assert_int_equal(w[i].failures, 0);
    }
    free(body);
    cJSON_Delete(job);
    ts_webhook_free(wh);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(kueue_table),  cmocka_unit_test(paths),
        cmocka_unit_test(malformed),    cmocka_unit_test(oversized_and_binary),
        cmocka_unit_test(every_prefix), cmocka_unit_test(concurrent),
    };

    ts_alloc_init();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
