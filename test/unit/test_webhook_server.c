/* The webhook on the HTTPS server (pkg/webhook/whserver.c over
 * pkg/httpd/server.c) in process, driven with libcurl over TLS on a
 * loopback port: reviews answered, health paths, 404/405/413, and a
 * certificate reload that new connections see while the socket stays
 * open. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <curl/curl.h>
#include <time.h>

#include "webhook/whserver.h"
#include "webhook_test.h"

struct fixture {
    struct ts_webhook *wh;
    struct ts_httpd_server *srv;
    struct ts_httpd_cert_bundle certs;
};

static size_t sink(char *p, size_t size, size_t n, void *ud)
{
    ts_buf_add(ud, p, size * n);
    return size * n;
}

/* One request on a fresh connection; returns the HTTP status or -curl code. */
static long request(int port, const char *ca, const char *method, const char *path,
                    const char *body, struct ts_buf *out)
{
    CURL *c = curl_easy_init();
    struct curl_blob blob = {(void *)(uintptr_t)ca, strlen(ca), CURL_BLOB_COPY};
    struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
    char url[256];
    long status = 0;
    CURLcode rc;

    snprintf(url, sizeof(url), "https://127.0.0.1:%d%s", port, path);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_CAINFO_BLOB, &blob);
    curl_easy_setopt(c, CURLOPT_SSLVERSION, (long)CURL_SSLVERSION_TLSv1_2);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    if (body)
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, sink);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, out);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 10L);
    rc = curl_easy_perform(c);
    if (rc == CURLE_OK)
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    else
        status = -(long)rc;
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    return status;
}

static int setup(void **state)
{
    struct fixture *f = ts_xcalloc(1, sizeof(*f));
    struct ts_webhook_options wo;
    struct ts_httpd_server_options so;
    struct ts_httpd_cert_options co;
    struct ts_err err = {0};

    ts_alloc_init();
    curl_global_init(CURL_GLOBAL_DEFAULT);
    ts_webhook_options_init(&wo);
    f->wh = ts_webhook_new(&wo);
    ts_httpd_cert_options_init(&co, TS_CERT_DEFAULT_SERVICE, TS_WEBHOOK_DEFAULT_NAMESPACE);
    ts_httpd_cert_bundle_init(&f->certs);
    if (ts_httpd_cert_generate(&co, (ts_time)time(NULL) * TS_TIME_SECOND, &f->certs, &err))
        fail_msg("%s", err.msg);
    ts_whserver_options_init(&so);
    so.host = "127.0.0.1";
    so.port = 0;
    so.health_port = 0;
    if (ts_whserver_start(f->wh, &so, f->certs.cert_pem, f->certs.key_pem, &f->srv, &err))
        fail_msg("%s", err.msg);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;

    ts_httpd_server_free(f->srv);
    ts_webhook_free(f->wh);
    ts_httpd_cert_bundle_release(&f->certs);
    free(f);
    curl_global_cleanup();
    return 0;
}

static void serves_reviews(void **state)
{
    struct fixture *f = *state;
    cJSON *job = wt_load("test/data/webhook/job.json");
    char *body = wt_review("CREATE", "team-a", NULL, job, NULL);
    struct ts_buf out = TS_BUF_INIT;
    int port = ts_httpd_server_port(f->srv);

    assert_true(port > 0);
    assert_int_equal(
        request(port, f->certs.ca_cert_pem, "POST", "/mutate-batch-v1-job?timeout=10s", body, &out),
        200);
    assert_non_null(strstr(out.ptr, "\"patchType\":\"JSONPatch\""));
    ts_buf_reset(&out);
    assert_int_equal(request(port, f->certs.ca_cert_pem, "GET", "/healthz", NULL, &out), 200);
    assert_string_equal(out.ptr, "ok");
    ts_buf_reset(&out);
    assert_int_equal(request(port, f->certs.ca_cert_pem, "POST", "/nope", "{}", &out), 404);
    assert_int_equal(request(port, f->certs.ca_cert_pem, "PUT", "/convert", "{}", &out), 405);
    assert_int_equal(request(port, f->certs.ca_cert_pem, "GET", "/convert", NULL, &out), 405);
    ts_buf_reset(&out);
    assert_int_equal(
        request(port, f->certs.ca_cert_pem, "POST", "/validate-batch-v1-job", "not json", &out),
        200);
    assert_non_null(strstr(out.ptr, "\"code\":400"));
    ts_buf_release(&out);
    free(body);
    cJSON_Delete(job);
}

static void too_large(void **state)
{
    struct fixture *f = *state;
    size_t n = TS_WEBHOOK_MAX_BODY + 10;
    char *big = ts_xmalloc(n + 1);
    struct ts_buf out = TS_BUF_INIT;

    memset(big, 'x', n);
    big[n] = '\0';
    assert_int_equal(request(ts_httpd_server_port(f->srv), f->certs.ca_cert_pem, "POST",
                             "/validate-batch-v1-job", big, &out),
                     413);
    assert_non_null(strstr(out.ptr, "RequestEntityTooLarge"));
    ts_buf_release(&out);
    free(big);
}

static void health_listener(void **state)
{
    struct fixture *f = *state;
    CURL *c = curl_easy_init();
    struct ts_buf out = TS_BUF_INIT;
    char url[128];
    long status = 0;

    snprintf(url, sizeof(url), "http://127.0.0.1:%d/readyz", ts_httpd_server_health_port(f->srv));
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, sink);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &out);
    assert_int_equal(curl_easy_perform(c), CURLE_OK);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    assert_int_equal(status, 200);
    assert_string_equal(out.ptr, "ok");
    curl_easy_cleanup(c);
    ts_buf_release(&out);
}

static void reload(void **state)
{
    struct fixture *f = *state;
    struct ts_httpd_cert_bundle next;
    struct ts_httpd_cert_options co;
    struct ts_err err = {0};
    struct ts_buf out = TS_BUF_INIT;
    int port = ts_httpd_server_port(f->srv);
    unsigned gen = ts_httpd_server_generation(f->srv);

    ts_httpd_cert_options_init(&co, TS_CERT_DEFAULT_SERVICE, TS_WEBHOOK_DEFAULT_NAMESPACE);
    ts_httpd_cert_bundle_init(&next);
    assert_int_equal(ts_httpd_cert_generate(&co, (ts_time)time(NULL) * TS_TIME_SECOND, &next, &err),
                     0);
    /* a mismatched pair is refused; the old certificate keeps serving */
    assert_int_equal(ts_httpd_server_reload(f->srv, next.cert_pem, f->certs.key_pem, &err),
                     TS_ETLS);
    assert_int_equal(request(port, f->certs.ca_cert_pem, "GET", "/healthz", NULL, &out), 200);
    assert_int_equal(ts_httpd_server_reload(f->srv, next.cert_pem, next.key_pem, &err), 0);
    assert_int_equal(ts_httpd_server_generation(f->srv), gen + 1);
    assert_int_equal(ts_httpd_server_port(f->srv), port);
    /* new connections present the new certificate */
    assert_true(request(port, f->certs.ca_cert_pem, "GET", "/healthz", NULL, &out) < 0);
    assert_int_equal(request(port, next.ca_cert_pem, "GET", "/healthz", NULL, &out), 200);
    ts_httpd_cert_bundle_release(&f->certs);
    f->certs = next;
    ts_buf_release(&out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(serves_reviews),
        cmocka_unit_test(too_large),
        cmocka_unit_test(health_listener),
        cmocka_unit_test(reload),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
