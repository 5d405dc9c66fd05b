/* Fuzz target: the webhook's AdmissionReview and ConversionReview
 * decoders behind ts_webhook_handle().  Input: one byte choosing the path
 * (every served path, an unknown one), then the request body.
 * Properties: the status is 200, 404 or 413 and the body is JSON; an
 * allowed admission's JSONPatch applies to the request's object and gives
 * valid JSON; a successful ConversionReview returns one object per object
 * sent. */
#include "fuzz.h"

#include <string.h>

#include "json/json.h"
#include "json/patch.h"
#include "kube/kubeconfig.h"
#include "util/buf.h"
#include "webhook/webhook.h"

static const char *const paths[] = {
    "/mutate-kueue-x-k8s-io-v1beta2-clusterqueue",
    "/mutate-kueue-x-k8s-io-v1beta2-resourceflavor",
    "/mutate-kueue-x-k8s-io-v1beta2-workload",
    "/validate-kueue-x-k8s-io-v1beta2-clusterqueue",
    "/validate-kueue-x-k8s-io-v1beta2-localqueue",
    "/validate-kueue-x-k8s-io-v1beta2-resourceflavor",
    "/validate-kueue-x-k8s-io-v1beta2-cohort",
    "/validate-kueue-x-k8s-io-v1beta2-workload",
    "/validate-kueue-x-k8s-io-v1beta2-workloadpriorityclass",
    "/mutate-kueue-x-k8s-io-v1beta1-workload",
    "/validate-kueue-x-k8s-io-v1beta1-clusterqueue",
    "/mutate-batch-v1-job",
    "/validate-batch-v1-job",
    "/mutate-kubeflow-org-v1-pytorchjob",
    "/validate-kubeflow-org-v1-pytorchjob",
    "/convert",
    "/convert?timeout=10s",
    "/nowhere",
};
#define NPATHS (sizeof(paths) / sizeof(paths[0]))

static int lq_exists(void *ctx, const char *ns, const char *name)
{
    (void)ctx;
    return strcmp(ns, "team-a") == 0 && strcmp(name, "default") == 0;
}

static int wpc_exists(void *ctx, const char *name)
{
    (void)ctx;
    return strcmp(name, "default") == 0;
}

/* An allowed mutation's patch must apply to the object it was made for. */
static void check_patch(const cJSON *review, const cJSON *resp)
{
    const char *b64 = ts_json_get_string(resp, "response.patch");
    const cJSON *obj = ts_json_get(review, "request.object");
    cJSON *patch = NULL, *out = NULL;
    struct ts_err err;
    char *text = NULL;
    size_t len = 0;

    if (!b64 || !cJSON_IsTrue(ts_json_get(resp, "response.allowed")))
        return;
    TS_FUZZ_CHECK(ts_kube_b64_decode(b64, &text, &len) == 0);
    TS_FUZZ_CHECK(ts_json_parse(text, len, &patch, &err) == 0);
    TS_FUZZ_CHECK(obj && ts_json_patch_apply(obj, patch, &out, &err) == 0);
    cJSON_Delete(out);
    cJSON_Delete(patch);
    free(text);
}

static void check_conversion(const cJSON *review, const cJSON *resp)
{
    const cJSON *sent = ts_json_get(review, "request.objects");
    const cJSON *got = ts_json_get(resp, "response.convertedObjects");
    const char *status = ts_json_get_string(resp, "response.result.status");

    if (status && strcmp(status, "Success") == 0 && cJSON_IsArray(sent))
        TS_FUZZ_CHECK(cJSON_GetArraySize(got) == cJSON_GetArraySize(sent));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct ts_webhook *wh;
    struct ts_buf out = TS_BUF_INIT;
    cJSON *review = NULL, *resp = NULL;
    const char *path, *body = (const char *)data + 1;
    struct ts_err err;
    int code;

    if (!wh) { /* built once, kept for the process (as the server does) */
        struct ts_webhook_options o;

        ts_webhook_options_init(&o);
        o.lookup.local_queue_exists = lq_exists;
        o.lookup.wpc_exists = wpc_exists;
        wh = ts_webhook_new(&o);
    }
    if (size < 1 || size > TS_FUZZ_MAX_INPUT)
        return 0;
    path = paths[data[0] % NPATHS];
    code = ts_webhook_handle(wh, path, body, size - 1, &out);
    TS_FUZZ_CHECK(code == 200 || code == 404 || code == 413);
    TS_FUZZ_CHECK(ts_json_parse(out.ptr, out.len, &resp, &err) == 0);
    if (code == 200 && ts_json_parse(body, size - 1, &review, &err) == 0) {
        if (strncmp(path, "/convert", 8) == 0)
            check_conversion(review, resp);
        else
            check_patch(review, resp);
    }
    cJSON_Delete(review);
    cJSON_Delete(resp);
    ts_buf_release(&out);
    return 0;
}
