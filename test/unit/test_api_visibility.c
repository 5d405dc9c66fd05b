/* Kueue's visibility API on the wire: which paths and options are served
 * (defaults and caps as Kueue's), the discovery documents and the
 * PendingWorkloadsSummary shape. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/visibility.h"
#include "json/json.h"

#define VIS "/apis/visibility.kueue.x-k8s.io"

struct parse_case {
    const char *path, *limit, *offset;
    int rc;
    enum ts_visibility_target target;
    const char *version, *cq, *ns, *lq;
    size_t lim, off;
    const char *msg; /* substring of the error */
};

static const struct parse_case cases[] = {
    {VIS, NULL, NULL, 0, TS_VISIBILITY_GROUP_DOC, "", "", "", "", 0, 0, NULL},
    {VIS "/v1beta1", NULL, NULL, 0, TS_VISIBILITY_RESOURCES, "v1beta1", "", "", "", 0, 0, NULL},
    {VIS "/v1beta2/", NULL, NULL, 0, TS_VISIBILITY_RESOURCES, "v1beta2", "", "", "", 0, 0, NULL},
    {VIS "/v1alpha1", NULL, NULL, TS_ENOTFOUND, 0, "", "", "", "", 0, 0, "v1alpha1"},
    {VIS "/v1beta1/clusterqueues/cq/pendingworkloads", NULL, NULL, 0, TS_VISIBILITY_CQ_PENDING,
     "v1beta1", "cq", "", "", 1000, 0, NULL},
    {VIS "/v1beta2/clusterqueues/cq/pendingworkloads", "5", "2", 0, TS_VISIBILITY_CQ_PENDING,
     "v1beta2", "cq", "", "", 5, 2, NULL},
    {VIS "/v1beta1/clusterqueues/cq/pendingworkloads", "0", NULL, 0, TS_VISIBILITY_CQ_PENDING,
     "v1beta1", "cq", "", "", 1000, 0, NULL},
    {VIS "/v1beta1/clusterqueues/cq/pendingworkloads", "-3", NULL, 0, TS_VISIBILITY_CQ_PENDING,
     "v1beta1", "cq", "", "", 0, 0, NULL},
    {VIS "/v1beta1/clusterqueues/cq/pendingworkloads", "9223372036854775807", NULL, 0,
     TS_VISIBILITY_CQ_PENDING, "v1beta1", "cq", "", "", 100000, 0, NULL},
    {VIS "/v1beta1/clusterqueues/cq/pendingworkloads", "ten", NULL, TS_EINVAL, 0, "", "", "", "", 0,
     0, "\"limit\""},
    {VIS "/v1beta1/clusterqueues/cq/pendingworkloads", "99999999999999999999", NULL, TS_EINVAL, 0,
     "", "", "", "", 0, 0, "\"limit\""},
    {VIS "/v1beta1/clusterqueues/cq/pendingworkloads", NULL, "-1", TS_EINVAL, 0, "", "", "", "", 0,
     0, "\"offset\""},
    {VIS "/v1beta1/namespaces/team-a/localqueues/lq/pendingworkloads", "10", "0", 0,
     TS_VISIBILITY_LQ_PENDING, "v1beta1", "", "team-a", "lq", 10, 0, NULL},
    {VIS "/v1beta1/namespaces/team-a/localqueues/lq", NULL, NULL, TS_ENOTFOUND, 0, "", "", "", "",
     0, 0, NULL},
    {VIS "/v1beta1/clusterqueues//pendingworkloads", NULL, NULL, TS_ENOTFOUND, 0, "", "", "", "", 0,
     0, NULL},
    {VIS "/v1beta1/clusterqueues/cq/pendingworkloads/extra", NULL, NULL, TS_ENOTFOUND, 0, "", "",
     "", "", 0, 0, NULL},
    {"/apis/kueue.x-k8s.io/v1beta2/clusterqueues", NULL, NULL, TS_ENOTFOUND, 0, "", "", "", "", 0,
     0, NULL},
    {"", NULL, NULL, TS_ENOTFOUND, 0, "", "", "", "", 0, 0, NULL},
};

static void test_parse_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct parse_case *c = &cases[i];
        struct ts_visibility_req r;
        struct ts_err err = {0};
        int rc = ts_visibility_parse(c->path, c->limit, c->offset, &r, &err);

        if (rc != c->rc)
            fail_msg("case %zu %s: rc %d, want %d (%s)", i, c->path, rc, c->rc, err.msg);
        if (c->msg && !strstr(err.msg, c->msg))
            fail_msg("case %zu: message '%s' lacks '%s'", i, err.msg, c->msg);
        if (rc)
            continue;
        assert_int_equal(r.target, c->target);
        assert_string_equal(r.version, c->version);
        assert_string_equal(r.cluster_queue, c->cq);
        assert_string_equal(r.ns, c->ns);
        assert_string_equal(r.local_queue, c->lq);
        assert_int_equal(r.limit, c->lim);
        assert_int_equal(r.offset, c->off);
    }
}

static void test_long_names_are_not_found(void **state)
{
    char path[1200];
    char name[400];
    struct ts_visibility_req r;
    struct ts_err err = {0};

    (void)state;
    memset(name, 'a', sizeof(name) - 1);
    name[sizeof(name) - 1] = '\0';
    snprintf(path, sizeof(path), VIS "/v1beta1/clusterqueues/%s/pendingworkloads", name);
    assert_int_equal(ts_visibility_parse(path, NULL, NULL, &r, &err), TS_ENOTFOUND);
}

static char *dump(const cJSON *v)
{
    return ts_json_dumps(v, 0);
}

static void test_documents(void **state)
{
    cJSON *g = ts_visibility_group_doc(), *l = ts_visibility_resources_doc("v1beta1");
    char *gs = dump(g), *ls = dump(l);

    (void)state;
    assert_string_equal(ts_json_get_string(g, "preferredVersion.groupVersion"),
                        "visibility.kueue.x-k8s.io/v1beta2");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(g, "versions")), 2);
    assert_string_equal(ts_json_get_string(l, "groupVersion"), "visibility.kueue.x-k8s.io/v1beta1");
    assert_non_null(strstr(ls, "\"name\":\"clusterqueues/pendingworkloads\""));
    assert_non_null(strstr(ls, "\"name\":\"localqueues/pendingworkloads\""));
    assert_non_null(strstr(gs, "\"kind\":\"APIGroup\""));
    free(gs);
    free(ls);
    cJSON_Delete(g);
    cJSON_Delete(l);
}

static void test_summary_items(void **state)
{
    cJSON *owners = cJSON_Parse("[{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"name\":\"j\","
                                "\"uid\":\"u-1\",\"controller\":true}]");
    cJSON *s = ts_visibility_summary_new("v1beta2");
    struct ts_visibility_item a = {
        "team-a", "job-j-1", "lq", 100, 0, 0, 0, owners, "2026-11-22T01:02:03Z"};
    struct ts_visibility_item b = {
        "team-b", "wl-2", NULL, -5, 1, 0, INT64_C(1795222800) * TS_TIME_SECOND, NULL, NULL};
    char *out;

    (void)state;
    ts_visibility_add_item(s, &a);
    ts_visibility_add_item(s, &b);
    out = dump(s);
    assert_string_equal(
        out, "{\"kind\":\"PendingWorkloadsSummary\",\"apiVersion\":\"visibility.kueue.x-k8s.io/"
             "v1beta2\",\"metadata\":{\"creationTimestamp\":null},\"items\":[{\"metadata\":{"
             "\"name\":\"job-j-1\",\"namespace\":\"team-a\",\"creationTimestamp\":\"2026-11-22T01:"
             "02:03Z\",\"ownerReferences\":[{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\","
             "\"name\":\"j\",\"uid\":\"u-1\",\"controller\":true}]},\"priority\":100,"
             "\"localQueueName\":\"lq\",\"positionInClusterQueue\":0,\"positionInLocalQueue\":0},"
             "{\"metadata\":{\"name\":\"wl-2\",\"namespace\":\"team-b\",\"creationTimestamp\":"
             "\"2026-11-21T01:00:00Z\"},\"priority\":-5,\"localQueueName\":\"\","
             "\"positionInClusterQueue\":1,\"positionInLocalQueue\":0}]}");
    free(out);
    cJSON_Delete(s);
    cJSON_Delete(owners);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_table),
        cmocka_unit_test(test_long_names_are_not_found),
        cmocka_unit_test(test_documents),
        cmocka_unit_test(test_summary_items),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
