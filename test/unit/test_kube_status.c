/* Tests for pkg/kube/status: metav1.Status bodies to typed errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "kube/status.h"
#include "util/alloc.h"

static void test_status_table(void **state)
{
    static const struct {
        const char *name;
        long http;
        const char *body;
        int want;
        enum ts_kube_reason reason;
        const char *msg;
    } cases[] = {
        {"not found", 404,
         "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
         "\"message\":\"clusterqueues.kueue.x-k8s.io \\\"nope\\\" not found\",\"reason\":"
         "\"NotFound\",\"details\":{\"name\":\"nope\",\"group\":\"kueue.x-k8s.io\",\"kind\":"
         "\"clusterqueues\"},\"code\":404}",
         TS_ENOTFOUND, TS_KUBE_REASON_NOT_FOUND, "clusterqueues.kueue.x-k8s.io \"nope\" not found"},
        {"already exists", 409,
         "{\"kind\":\"Status\",\"status\":\"Failure\",\"message\":\"x already exists\","
         "\"reason\":\"AlreadyExists\",\"code\":409}",
         TS_EEXIST, TS_KUBE_REASON_ALREADY_EXISTS, "x already exists"},
        {"conflict", 409,
         "{\"kind\":\"Status\",\"message\":\"the object has been modified\",\"reason\":"
         "\"Conflict\",\"code\":409}",
         TS_ECONFLICT, TS_KUBE_REASON_CONFLICT, "the object has been modified"},
        {"invalid", 422,
         "{\"kind\":\"Status\",\"message\":\"bad\",\"reason\":\"Invalid\",\"details\":{\"causes\":"
         "[{\"reason\":\"FieldValueNotSupported\",\"message\":\"Unsupported value\",\"field\":"
         "\"spec.queueingStrategy\"}]},\"code\":422}",
         TS_EINVAL, TS_KUBE_REASON_INVALID, "bad"},
        {"expired", 410,
         "{\"kind\":\"Status\",\"message\":\"too old resource version: 1 (108)\",\"reason\":"
         "\"Expired\",\"code\":410}",
         TS_EGONE, TS_KUBE_REASON_EXPIRED, "too old resource version: 1 (108)"},
        {"gone without reason", 410, "{\"kind\":\"Status\",\"code\":410}", TS_EGONE,
         TS_KUBE_REASON_GONE, "the server responded with the status code 410"},
        {"too many requests", 429,
         "{\"kind\":\"Status\",\"message\":\"slow down\",\"reason\":\"TooManyRequests\","
         "\"details\":{\"retryAfterSeconds\":3},\"code\":429}",
         TS_ETOOMANY, TS_KUBE_REASON_TOO_MANY_REQUESTS, "slow down"},
        {"unavailable", 503, "", TS_EUNAVAILABLE, TS_KUBE_REASON_SERVICE_UNAVAILABLE,
         "the server responded with the status code 503"},
        {"forbidden", 403, "{\"kind\":\"Status\",\"message\":\"no\",\"reason\":\"Forbidden\"}",
         TS_EFORBIDDEN, TS_KUBE_REASON_FORBIDDEN, "no"},
        {"unauthorized plain text", 401, "Unauthorized\n", TS_EUNAUTHORIZED,
         TS_KUBE_REASON_UNAUTHORIZED, "Unauthorized"},
        {"unsupported media type", 415,
         "{\"kind\":\"Status\",\"message\":\"m\",\"reason\":\"UnsupportedMediaType\",\"code\":415}",
         TS_EUNSUPPORTED, TS_KUBE_REASON_UNSUPPORTED_MEDIA_TYPE, "m"},
        {"bad request", 400, "{\"kind\":\"Status\",\"message\":\"sel\",\"reason\":\"BadRequest\"}",
         TS_EINVAL, TS_KUBE_REASON_BAD_REQUEST, "sel"},
        {"timeout", 504, "{\"kind\":\"Status\",\"message\":\"t\",\"reason\":\"Timeout\"}",
         TS_ETIMEDOUT, TS_KUBE_REASON_TIMEOUT, "t"},
        {"internal", 500,
         "{\"kind\":\"Status\",\"message\":\"webhook\",\"reason\":\"InternalError\"}", TS_EINTERNAL,
         TS_KUBE_REASON_INTERNAL_ERROR, "webhook"},
        {"bad gateway", 502, "<html>", TS_EINTERNAL, TS_KUBE_REASON_UNKNOWN, "<html>"},
        {"too large", 413, "", TS_EOVERFLOW, TS_KUBE_REASON_REQUEST_ENTITY_TOO_LARGE,
         "the server responded with the status code 413"},
        {"code from body wins", 200,
         "{\"kind\":\"Status\",\"message\":\"n\",\"reason\":\"NotFound\",\"code\":404}",
         TS_ENOTFOUND, TS_KUBE_REASON_NOT_FOUND, "n"},
        {"unknown reason, code decides", 409,
         "{\"kind\":\"Status\",\"message\":\"x\",\"reason\":\"SomethingNew\",\"code\":409}",
         TS_ECONFLICT, TS_KUBE_REASON_CONFLICT, "x"},
        {"not a status object", 404, "{\"kind\":\"Pod\"}", TS_ENOTFOUND, TS_KUBE_REASON_NOT_FOUND,
         "{\"kind\":\"Pod\"}"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct ts_kube_status st;
        struct ts_err e = {0};

        ts_kube_status_decode(cases[i].http, cases[i].body, strlen(cases[i].body), &st);
        if (ts_kube_status_err(&st, &e) != cases[i].want || st.reason != cases[i].reason ||
            strcmp(st.message, cases[i].msg))
            fail_msg("case '%s': got %s reason %d message '%s'", cases[i].name, ts_err_name(e.code),
                     (int)st.reason, st.message);
        ts_kube_status_release(&st);
    }
}

static void test_status_details(void **state)
{
    const char *body =
        "{\"kind\":\"Status\",\"message\":\"Apply failed\",\"reason\":\"Conflict\",\"details\":"
        "{\"name\":\"cq\",\"group\":\"kueue.x-k8s.io\",\"kind\":\"ClusterQueue\",\"causes\":["
        "{\"reason\":\"FieldManagerConflict\",\"message\":\"conflict with kubectl\",\"field\":"
        "\".spec.cohort\"},{\"reason\":\"FieldValueRequired\"}],\"retryAfterSeconds\":7},"
        "\"code\":409}";
    struct ts_kube_status st;

    (void)state;
    ts_kube_status_decode(409, body, strlen(body), &st);
    assert_int_equal(st.code, 409);
    assert_string_equal(st.reason_text, "Conflict");
    assert_string_equal(st.name, "cq");
    assert_string_equal(st.group, "kueue.x-k8s.io");
    assert_string_equal(st.kind, "ClusterQueue");
    assert_int_equal(st.n_causes, 2);
    assert_string_equal(st.causes[0].reason, "FieldManagerConflict");
    assert_string_equal(st.causes[0].field, ".spec.cohort");
    assert_null(st.causes[1].field);
    assert_int_equal(st.retry_after, 7);
    ts_kube_status_release(&st);
    assert_null(st.message);
    ts_kube_status_release(&st);
}

static void test_reason_names(void **state)
{
    (void)state;
    assert_int_equal(ts_kube_reason_parse("Expired"), TS_KUBE_REASON_EXPIRED);
    assert_int_equal(ts_kube_reason_parse(""), TS_KUBE_REASON_UNKNOWN);
    assert_int_equal(ts_kube_reason_parse(NULL), TS_KUBE_REASON_UNKNOWN);
    assert_string_equal(ts_kube_reason_name(TS_KUBE_REASON_ALREADY_EXISTS), "AlreadyExists");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_status_table),
        cmocka_unit_test(test_status_details),
        cmocka_unit_test(test_reason_names),
    };

    ts_alloc_init();
    return cmocka_run_group_tests_name("kube_status", tests, NULL, NULL);
}
