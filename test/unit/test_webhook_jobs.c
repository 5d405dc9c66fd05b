/* The job webhooks (batch/v1 Job, kubeflow.org/v1 PyTorchJob) through
 * ts_webhook_handle(): defaulting (suspend for the queue-name label and
 * the legacy annotation, no patch without a queue name, LocalQueue and
 * WorkloadPriorityClass "default", managed owners, namespaces) and the
 * validation rules (label syntax, immutability while the job runs,
 * priority-class rules, partial admission), table-driven from
 * test/data/webhook/jobs.json; plus the lookup interface being optional. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "webhook_test.h"

static void jobs_table(void **state)
{
    (void)state;
    wt_run_table("test/data/webhook/jobs.json");
}

/* Kueue's pod webhook: managed marking, pod-group metadata, updates. */
static void pods_table(void **state)
{
    (void)state;
    wt_run_table("test/data/webhook/pods.json");
}

/* RayJob and RayCluster: Kueue's Ray webhooks (test/data/webhook/ray.json). */
static void ray_table(void **state)
{
    (void)state;
    wt_run_table("test/data/webhook/ray.json");
}

/* TrainJob: Kueue's trainjob webhook (test/data/webhook/trainer.json). */
static void trainer_table(void **state)
{
    (void)state;
    wt_run_table("test/data/webhook/trainer.json");
}

/* Without lookups nothing is defaulted but suspend, and the default
 * namespace exclusions apply. */
static void no_lookups(void **state)
{
    struct ts_webhook_options o;
    struct ts_webhook *wh;
    cJSON *job = wt_load("test/data/webhook/job.json");
    char *body;
    struct wt_resp r;

    (void)state;
    ts_webhook_options_init(&o);
    o.system_namespace = "queue-system";
    wh = ts_webhook_new(&o);
    body = wt_review("CREATE", "queue-system", NULL, job, NULL);
    wt_call(wh, "/mutate-batch-v1-job", body, strlen(body), &r);
    assert_null(r.patch);
    wt_resp_release(&r);
    free(body);
    body = wt_review("CREATE", "turnstile-system", NULL, job, NULL);
    wt_call(wh, "/mutate-batch-v1-job", body, strlen(body), &r);
    assert_non_null(r.patch);
    assert_string_equal(ts_json_get_string(cJSON_GetArrayItem(r.patch, 0), "path"),
                        "/spec/suspend");
    assert_int_equal(cJSON_GetArraySize(r.patch), 1);
    wt_resp_release(&r);
    free(body);
    cJSON_Delete(job);
    ts_webhook_free(wh);
}

static int never_managed(void *ctx, const char *ns)
{
    (void)ctx, (void)ns;
    return 0;
}

/* The namespace callback decides (managedJobsNamespaceSelector). */
static void namespace_callback(void **state)
{
    struct ts_webhook_options o;
    struct ts_webhook *wh;
    cJSON *job = wt_load("test/data/webhook/job.json");
    char *body = wt_review("CREATE", "team-a", NULL, job, NULL);
    struct wt_resp r;

    (void)state;
    ts_webhook_options_init(&o);
    o.lookup.namespace_managed = never_managed;
    wh = ts_webhook_new(&o);
    wt_call(wh, "/mutate-batch-v1-job", body, strlen(body), &r);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(r.resp, "allowed")));
    assert_null(r.patch);
    wt_resp_release(&r);
    free(body);
    cJSON_Delete(job);
    ts_webhook_free(wh);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(jobs_table), cmocka_unit_test(pods_table),
        cmocka_unit_test(ray_table),  cmocka_unit_test(trainer_table),
        cmocka_unit_test(no_lookups), cmocka_unit_test(namespace_callback),
    };

    ts_alloc_init();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
