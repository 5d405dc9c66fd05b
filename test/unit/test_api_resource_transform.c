/* The Configuration's resources.excludeResourcePrefixes and
 * resources.transformations: decoding with Kueue's validation messages
 * (pkg/config/validation.go), and what they make of a pod's requests
 * (pkg/workload/workload.go; the first cases are Kueue's own
 * "transformResources" and "filterResources" cases of workload_test.go). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "api/config.h"
#include "api/dec.h"
#include "api/resource_transform.h"
#include "util/buf.h"
#include "yaml/yaml.h"

#define CFG "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"

/* Kueue's workload_test.go transformations */
#define KUEUE_XFORMS                                                                               \
    "resources:\n  transformations:\n"                                                             \
    "  - input: nvidia.com/mig-1g.5gb\n    strategy: Replace\n"                                    \
    "    outputs: {example.com/accelerator-memory: 5Ki, example.com/credits: 10}\n"                \
    "  - input: nvidia.com/mig-2g.10gb\n    strategy: Replace\n"                                   \
    "    outputs: {example.com/accelerator-memory: 10Ki, example.com/credits: 15}\n"               \
    "  - input: nvidia.com/gpu\n    strategy: Retain\n"                                            \
    "    outputs: {example.com/accelerator-memory: 40Ki, example.com/credits: 100}\n"              \
    "  - input: nvidia.com/vgpucores\n    strategy: Replace\n    multiplyBy: nvidia.com/vgpu\n"    \
    "    outputs: {nvidia.com/total-vgpucores: 1}\n"                                               \
    "  - input: nvidia.com/vgpumem\n    strategy: Replace\n    multiplyBy: nvidia.com/vgpu\n"      \
    "    outputs: {nvidia.com/total-vgpumem: 1}\n"

static const struct apply_case {
    const char *name;
    const char *config; /* appended to CFG */
    const char *requests;
    const char *want; /* "name=quantity,..." in name order */
    int want_rc;
} apply_cases[] = {
    {"no resources block: unchanged", "", "{cpu: 1, nvidia.com/gpu: 2}", "cpu=1,nvidia.com/gpu=2",
     0},
    {"Kueue a: two Replace transformations add their outputs", KUEUE_XFORMS,
     "{nvidia.com/mig-1g.5gb: 2, nvidia.com/mig-2g.10gb: 1, cpu: 1}",
     "cpu=1,example.com/accelerator-memory=20Ki,example.com/credits=35", 0},
    {"Kueue b: Retain keeps the input", KUEUE_XFORMS, "{nvidia.com/gpu: 1, cpu: 2}",
     "cpu=2,example.com/accelerator-memory=40Ki,example.com/credits=100,nvidia.com/gpu=1", 0},
    {"Kueue c: multiplyBy", KUEUE_XFORMS,
     "{nvidia.com/vgpu: 2, nvidia.com/vgpucores: 20, nvidia.com/vgpumem: 1024}",
     "nvidia.com/total-vgpucores=40,nvidia.com/total-vgpumem=2048,nvidia.com/vgpu=2", 0},
    {"no request is an input: unchanged", KUEUE_XFORMS, "{cpu: 1, example.com/credits: 3}",
     "cpu=1,example.com/credits=3", 0},
    {"Retain with multiplyBy keeps the multiplied input",
     "resources:\n  transformations:\n  - input: nvidia.com/vgpucores\n"
     "    multiplyBy: nvidia.com/vgpu\n    outputs: {example.com/cores: 1}\n",
     "{nvidia.com/vgpu: 2, nvidia.com/vgpucores: 20}",
     "example.com/cores=40,nvidia.com/vgpu=2,nvidia.com/vgpucores=40", 0},
    {"multiplyBy not requested: not multiplied",
     "resources:\n  transformations:\n  - input: nvidia.com/vgpucores\n    strategy: Replace\n"
     "    multiplyBy: nvidia.com/vgpu\n    outputs: {example.com/cores: 1}\n",
     "{nvidia.com/vgpucores: 20}", "example.com/cores=20", 0},
    {"multiplyBy and outputs use the amount rounded up",
     "resources:\n  transformations:\n  - input: cpu\n    multiplyBy: example.com/x\n"
     "    outputs: {example.com/credits: 3}\n",
     "{cpu: 500m, example.com/x: 1500m}", "cpu=1,example.com/credits=3,example.com/x=1500m", 0},
    {"fractional input: outputs count it rounded up, Retain keeps it exact",
     "resources:\n  transformations:\n  - input: cpu\n    strategy: \"\"\n"
     "    outputs: {example.com/credits: 2}\n",
     "{cpu: 500m}", "cpu=500m,example.com/credits=2", 0},
    {"Replace without outputs ignores the input",
     "resources:\n  transformations:\n  - {input: example.com/nic, strategy: Replace}\n",
     "{cpu: 1, example.com/nic: 4}", "cpu=1", 0},
    {"Kueue filterResources: excluded prefixes are dropped",
     "resources:\n  excludeResourcePrefixes: [dummyPrefix, networking.example.com/]\n",
     "{cpu: 10m, memory: 512Ki, networking.example.com/vpc1: 1}", "cpu=10m,memory=512Ki", 0},
    {"an excluded input is not transformed",
     "resources:\n  excludeResourcePrefixes: [nvidia.com/]\n  transformations:\n"
     "  - {input: nvidia.com/gpu, outputs: {example.com/credits: 10}}\n",
     "{cpu: 1, nvidia.com/gpu: 2}", "cpu=1", 0},
    {"an excluded multiplyBy does not multiply",
     "resources:\n  excludeResourcePrefixes: [example.com/x]\n  transformations:\n"
     "  - {input: cpu, multiplyBy: example.com/x, outputs: {example.com/credits: 1}}\n",
     "{cpu: 2, example.com/x: 5}", "cpu=2,example.com/credits=2", 0},
    {"outputs add to a request of the same name",
     "resources:\n  transformations:\n"
     "  - {input: nvidia.com/gpu, strategy: Replace, outputs: {example.com/credits: 10}}\n"
     "  - {input: nvidia.com/mig, strategy: Replace, outputs: {example.com/credits: 1}}\n",
     "{example.com/credits: 5, nvidia.com/gpu: 2, nvidia.com/mig: 3}", "example.com/credits=28", 0},
    {"Retain: an output named as the input is overwritten by the input",
     "resources:\n  transformations:\n"
     "  - {input: nvidia.com/gpu, outputs: {nvidia.com/gpu: 3, example.com/credits: 1}}\n",
     "{nvidia.com/gpu: 2}", "example.com/credits=2,nvidia.com/gpu=2", 0},
    {"Replace: an output named as the input counts",
     "resources:\n  transformations:\n"
     "  - {input: nvidia.com/gpu, strategy: Replace, outputs: {nvidia.com/gpu: 3}}\n",
     "{nvidia.com/gpu: 2}", "nvidia.com/gpu=6", 0},
    {"a product beyond int64 saturates",
     "resources:\n  transformations:\n"
     "  - {input: nvidia.com/gpu, strategy: Replace, outputs: {example.com/c: "
     "\"9223372036854775807\"}}\n",
     "{nvidia.com/gpu: 2}", "example.com/c=9223372036854775807", -1},
    {"a sum beyond int64 saturates",
     "resources:\n  transformations:\n"
     "  - {input: a.com/x, strategy: Replace, outputs: {example.com/c: \"9223372036854775807\"}}\n"
     "  - {input: a.com/y, strategy: Replace, outputs: {example.com/c: \"9223372036854775807\"}}\n",
     "{a.com/x: 1, a.com/y: 1}", "example.com/c=9223372036854775807", -1},
    {"a multiplier beyond int64 saturates",
     "resources:\n  transformations:\n"
     "  - {input: a.com/x, strategy: Replace, multiplyBy: a.com/n, outputs: {example.com/c: 1}}\n",
     "{a.com/x: 2, a.com/n: 10E}", "a.com/n=10E,example.com/c=9223372036854775807", -1},
};

static cJSON *yaml(const char *name, const char *text)
{
    struct ts_err e = {0};
    cJSON *obj = NULL;

    if (ts_yaml_decode_one(text, strlen(text), &obj, &e))
        fail_msg("%s: %s", name, e.msg);
    return obj;
}

static void decode_config(const char *name, const char *resources, struct ts_config *c)
{
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_buf text = TS_BUF_INIT;
    cJSON *obj;

    ts_buf_addf(&text, "%s%s", CFG, resources);
    obj = yaml(name, text.ptr);
    ts_config_init(c);
    ts_config_decode(obj, c, &errs);
    if (errs.n)
        fail_msg("%s: %zu errors, first on %s", name, errs.n, errs.items[0].field);
    ts_field_errors_release(&errs);
    cJSON_Delete(obj);
    ts_buf_release(&text);
}

static void requests_of(const char *name, const char *text, struct ts_resource_list *out)
{
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    cJSON *wrap = cJSON_CreateObject();
    struct ts_dec d;

    cJSON_AddItemToObject(wrap, "r", yaml(name, text));
    ts_dec_init(&d, &errs);
    ts_dec_resource_list(&d, wrap, "r", out);
    assert_int_equal(errs.n, 0);
    ts_field_errors_release(&errs);
    cJSON_Delete(wrap);
}

static void format_list(const struct ts_resource_list *l, struct ts_buf *out)
{
    char q[TS_QUANTITY_STR_MAX];

    for (size_t i = 0; i < l->n; i++)
        ts_buf_addf(out, "%s%s=%s", i ? "," : "", l->items[i].name,
                    ts_quantity_format(&l->items[i].q, q, sizeof(q)));
}

static void test_apply(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(apply_cases) / sizeof(apply_cases[0]); i++) {
        const struct apply_case *t = &apply_cases[i];
        struct ts_resource_list req = TS_RESOURCE_LIST_INIT;
        struct ts_buf got = TS_BUF_INIT;
        struct ts_config c;
        int rc;

        decode_config(t->name, t->config, &c);
        requests_of(t->name, t->requests, &req);
        rc = ts_resource_transforms_apply(&c.resources, &req);
        format_list(&req, &got);
        if (strcmp(got.ptr, t->want) || (rc != 0) != (t->want_rc != 0))
            fail_msg("%s:\n  got  %s (rc %d)\n  want %s (rc %s)", t->name, got.ptr, rc, t->want,
                     t->want_rc ? "TS_EOVERFLOW" : "0");
        ts_buf_release(&got);
        ts_resource_list_release(&req);
        ts_config_release(&c);
    }
}

static const struct decode_case {
    const char *name;
    const char *yaml;
    const char *want; /* formatted errors, "" for none */
} decode_cases[] = {
    {"valid: every strategy, the default, \"\"",
     CFG "resources:\n  excludeResourcePrefixes: [a.com/]\n  transformations:\n"
         "  - {input: cpu, strategy: Retain}\n  - {input: memory, strategy: Replace}\n"
         "  - {input: a.com/x}\n  - {input: a.com/y, strategy: \"\"}\n",
     ""},
    {"v1beta1 reads the same block",
     "apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\n"
     "resources: {transformations: [{input: cpu, strategy: Bad}]}\n",
     "resources.transformations[0].strategy: Unsupported value: \"Bad\": supported values: "
     "\"Retain\", \"Replace\""},
    {"duplicate input",
     CFG "resources:\n  transformations:\n  - {input: cpu}\n  - {input: memory}\n"
         "  - {input: cpu, strategy: Replace}\n",
     "resources.transformations[2].input: Duplicate value: \"cpu\""},
    {"both errors of one item, in Kueue's order",
     CFG "resources:\n  transformations:\n  - {input: cpu}\n  - {input: cpu, strategy: retain}\n",
     "[resources.transformations[1].strategy: Unsupported value: \"retain\": supported values: "
     "\"Retain\", \"Replace\", resources.transformations[1].input: Duplicate value: \"cpu\"]"},
    {"two without input are duplicates", CFG "resources:\n  transformations: [{}, {}]\n",
     "resources.transformations[1].input: Duplicate value: \"\""},
};

static void test_decode(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(decode_cases) / sizeof(decode_cases[0]); i++) {
        const struct decode_case *t = &decode_cases[i];
        struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
        struct ts_buf got = TS_BUF_INIT;
        cJSON *obj = yaml(t->name, t->yaml);
        struct ts_config c;

        ts_config_init(&c);
        ts_config_decode(obj, &c, &errs);
        ts_field_errors_format(&errs, &got);
        if (strcmp(got.ptr, t->want))
            fail_msg("%s:\n  got  %s\n  want %s", t->name, got.ptr, t->want);
        ts_buf_release(&got);
        ts_field_errors_release(&errs);
        ts_config_release(&c);
        cJSON_Delete(obj);
    }
}

/* What the decoder keeps, and the copy the engine config takes. */
static void test_decoded_fields_and_copy(void **state)
{
    struct ts_resource_transforms copy;
    struct ts_config c;

    (void)state;
    decode_config("fields",
                  "resources:\n  excludeResourcePrefixes: [a.com/, b.com/]\n  transformations:\n"
                  "  - {input: cpu, strategy: Replace, multiplyBy: \"\", outputs: {c: 2}}\n"
                  "  - {input: gpu, multiplyBy: example.com/n}\n",
                  &c);
    ts_resource_transforms_init(&copy);
    ts_resource_transforms_copy(&copy, &c.resources);
    ts_config_release(&c); /* the copy owns its own */
    assert_int_equal(copy.exclude_prefixes.n, 2);
    assert_string_equal(copy.exclude_prefixes.items[1], "b.com/");
    assert_int_equal(copy.n, 2);
    assert_string_equal(copy.items[0].input, "cpu");
    assert_int_equal(copy.items[0].strategy, TS_RESOURCE_TRANSFORM_REPLACE);
    assert_null(copy.items[0].multiply_by); /* "" is none */
    assert_int_equal(copy.items[0].outputs.n, 1);
    assert_int_equal(copy.items[1].strategy, TS_RESOURCE_TRANSFORM_RETAIN);
    assert_string_equal(copy.items[1].multiply_by, "example.com/n");
    assert_false(ts_resource_transforms_empty(&copy));
    ts_resource_transforms_release(&copy);
    assert_true(ts_resource_transforms_empty(&copy));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_apply),
        cmocka_unit_test(test_decode),
        cmocka_unit_test(test_decoded_fields_and_copy),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
