/* Tests for pkg/api/limitrange: a pod set's requests with the namespace's
 * LimitRange defaults and the RuntimeClass overhead (Kueue's
 * AdjustResources), the summary of several LimitRanges (Summarize) and
 * the scheduler's LimitRange check (ValidateLimitRange) with Kueue's
 * messages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/dec.h"
#include "api/limitrange.h"
#include "api/workload.h"
#include "json/json.h"
#include "util/alloc.h"
#include "util/buf.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

/* JSON written with ' for " (readable tables). */
static cJSON *parse(const char *s)
{
    struct ts_err err = {0};
    cJSON *out = NULL;
    char *t = ts_xstrdup(s);

    for (char *p = t; *p; p++)
        if (*p == '\'')
            *p = '"';
    if (ts_json_parse(t, strlen(t), &out, &err))
        fail_msg("bad test JSON: %s: %s", err.msg, t);
    free(t);
    return out;
}

/* A Workload in namespace "ns" with one pod set of the given spec. */
static void workload_of(const char *podspec, struct ts_workload *wl)
{
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_buf b = TS_BUF_INIT;
    struct ts_dec d;
    cJSON *obj;

    ts_buf_addf(&b,
                "{'apiVersion':'kueue.x-k8s.io/v1beta2','kind':'Workload',"
                "'metadata':{'name':'w','namespace':'ns'},'spec':{'queueName':'lq',"
                "'podSets':[{'name':'main','count':2,'template':{'spec':%s}}]}}",
                podspec);
    obj = parse(b.ptr);
    ts_dec_init(&d, &errs);
    ts_workload_init(wl);
    ts_workload_decode(&d, obj, wl);
    assert_int_equal(errs.n, 0);
    cJSON_Delete(obj);
    ts_buf_release(&b);
}

static void summary_of(const char *ranges, struct ts_limitrange_summary *s)
{
    cJSON *arr = parse(ranges ? ranges : "[]"), *lr;

    ts_limitrange_summary_init(s);
    cJSON_ArrayForEach(lr, arr) ts_limitrange_summary_add(s, lr);
    cJSON_Delete(arr);
}

/* "cpu=500m,memory=1Gi" */
static char *list_str(const struct ts_resource_list *l)
{
    struct ts_buf b = TS_BUF_INIT;

    ts_buf_adds(&b, "");
    for (size_t i = 0; i < l->n; i++) {
        char q[TS_QUANTITY_STR_MAX];

        ts_buf_addf(&b, "%s%s=%s", i ? "," : "", l->items[i].name,
                    ts_quantity_format(&l->items[i].q, q, sizeof(q)));
    }
    return ts_buf_take(&b);
}

/* The RuntimeClasses the tests know: "kata" with overhead, "plain" without. */
static const cJSON *runtime_class(void *ctx, const char *name)
{
    const cJSON *const *rcs = ctx;

    for (size_t i = 0; rcs[i]; i++) {
        const char *n = ts_json_get_string(rcs[i], "metadata.name");

        if (n && !strcmp(n, name))
            return rcs[i];
    }
    return NULL;
}

#define LR_CONTAINER(items)                                                                        \
    "[{'metadata':{'name':'a','namespace':'ns'},'spec':{'limits':[{'type':'Container'," items      \
    "}]}}]"

static const struct {
    const char *name;
    const char *ranges;   /* JSON array of LimitRanges, NULL: none */
    const char *podspec;  /* the pod set's template spec */
    const char *want;     /* the pod's requests after adjustment */
    const char *want_msg; /* LimitRange message, NULL: none */
} cases[] = {
    {"no limitrange: limits stand in for requests", NULL,
     "{'containers':[{'name':'c','resources':{'limits':{'cpu':'2'}}}]}", "cpu=2", NULL},
    {"default requests fill a container without any",
     LR_CONTAINER("'defaultRequest':{'cpu':'500m','memory':'1Gi'}"),
     "{'containers':[{'name':'c'}]}", "cpu=500m,memory=1Gi", NULL},
    {"own requests win over the defaults",
     LR_CONTAINER("'defaultRequest':{'cpu':'500m','memory':'1Gi'}"),
     "{'containers':[{'name':'c','resources':{'requests':{'cpu':'2'}}}]}", "cpu=2,memory=1Gi",
     NULL},
    {"a default limit becomes the request when no default request",
     LR_CONTAINER("'default':{'cpu':'3'}"), "{'containers':[{'name':'c'}]}", "cpu=3", NULL},
    {"every container and init container gets the defaults",
     LR_CONTAINER("'defaultRequest':{'cpu':'1'}"),
     "{'initContainers':[{'name':'i'}],'containers':[{'name':'a'},{'name':'b'}]}", "cpu=2", NULL},
    {"Pod type ranges give no defaults",
     "[{'metadata':{'name':'a'},'spec':{'limits':[{'type':'Pod','max':{'cpu':'10'}}]}}]",
     "{'containers':[{'name':'c'}]}", "", NULL},
    {"runtime class overhead is added", NULL,
     "{'runtimeClassName':'kata','containers':[{'name':'c','resources':{'requests':{'cpu':'1'}}}]}",
     "cpu=1250m,memory=64Mi", NULL},
    {"the template's own overhead wins", NULL,
     "{'runtimeClassName':'kata','overhead':{'cpu':'100m'},"
     "'containers':[{'name':'c','resources':{'requests':{'cpu':'1'}}}]}",
     "cpu=1100m", NULL},
    {"a class without overhead or an unknown class adds nothing", NULL,
     "{'runtimeClassName':'plain','initContainers':[{'name':'i','resources':{'requests':{'cpu':'1'}"
     "}}],"
     "'containers':[{'name':'c','resources':{'requests':{'cpu':'1'}}}]}",
     "cpu=1", NULL},
    {"above the container max", LR_CONTAINER("'max':{'cpu':'300m'}"),
     "{'containers':[{'name':'c','resources':{'requests':{'cpu':'500m'}}}]}", "cpu=500m",
     "resources didn't satisfy LimitRange constraints: "
     "spec.podSets[0].template.spec.containers[0]: Invalid value: [\"cpu\"]: "
     "requests must not be above the limitRange max"},
    {"the max limit is checked too, the limit defaulted from max is not over",
     LR_CONTAINER("'max':{'cpu':'1'}"),
     "{'containers':[{'name':'c','resources':{'requests':{'cpu':'500m'}}},"
     "{'name':'d','resources':{'limits':{'cpu':'2'}}}]}",
     "cpu=2500m",
     "resources didn't satisfy LimitRange constraints: "
     "spec.podSets[0].template.spec.containers[1]: Invalid value: [\"cpu\"]: "
     "requests must not be above the limitRange max"},
    {"below the container min, init container", LR_CONTAINER("'min':{'cpu':'1','memory':'1Gi'}"),
     "{'initContainers':[{'name':'i','resources':{'requests':{'cpu':'100m','memory':'10Mi'}}}],"
     "'containers':[{'name':'c','resources':{'requests':{'cpu':'2','memory':'2Gi'}}}]}",
     "cpu=2,memory=2Gi",
     "resources didn't satisfy LimitRange constraints: "
     "spec.podSets[0].template.spec.initContainers[0]: Invalid value: [\"cpu\",\"memory\"]: "
     "requests must not be below the limitRange min"},
    {"pod max counts the overhead",
     "[{'metadata':{'name':'a'},'spec':{'limits':[{'type':'Pod','max':{'cpu':'1'}}]}}]",
     "{'runtimeClassName':'kata','containers':[{'name':'c','resources':{'requests':{'cpu':'1'}}}]}",
     "cpu=1250m,memory=64Mi",
     "resources didn't satisfy LimitRange constraints: spec.podSets[0].template.spec: "
     "Invalid value: [\"cpu\"]: requests must not be above the limitRange max"},
    {"pod min and container max together",
     "[{'metadata':{'name':'a'},'spec':{'limits':[{'type':'Pod','min':{'memory':'1Gi'}},"
     "{'type':'Container','max':{'cpu':'1'}}]}}]",
     "{'containers':[{'name':'c','resources':{'requests':{'cpu':'2','memory':'1Mi'}}}]}",
     "cpu=2,memory=1Mi",
     "resources didn't satisfy LimitRange constraints: "
     "[spec.podSets[0].template.spec.containers[0]: Invalid value: [\"cpu\"]: "
     "requests must not be above the limitRange max, spec.podSets[0].template.spec: "
     "Invalid value: [\"memory\"]: requests must not be below the limitRange min]"},
    {"within bounds", LR_CONTAINER("'min':{'cpu':'100m'},'max':{'cpu':'2'}"),
     "{'containers':[{'name':'c','resources':{'requests':{'cpu':'1'}}}]}", "cpu=1", NULL},
    {"a resource the range does not name is not checked", LR_CONTAINER("'max':{'memory':'1Gi'}"),
     "{'containers':[{'name':'c','resources':{'requests':{'cpu':'100'}}}]}", "cpu=100", NULL},
};

static void test_adjust_and_validate_table(void **state)
{
    cJSON *kata = parse("{'metadata':{'name':'kata'},'handler':'kata',"
                        "'overhead':{'podFixed':{'cpu':'250m','memory':'64Mi'}}}");
    cJSON *plain = parse("{'metadata':{'name':'plain'},'handler':'runc'}");
    const cJSON *rcs[] = {kata, plain, NULL};

    (void)state;
    for (size_t i = 0; i < N_ELEMS(cases); i++) {
        struct ts_limitrange_summary s;
        struct ts_workload wl;
        struct ts_resource_list req = TS_RESOURCE_LIST_INIT;
        char *got, *msg;

        summary_of(cases[i].ranges, &s);
        workload_of(cases[i].podspec, &wl);
        ts_limitrange_adjust_workload(&wl, &s, runtime_class, rcs);
        assert_int_equal(ts_pod_template_requests(&wl.spec.podsets[0].template, &req), 0);
        got = list_str(&req);
        msg = ts_limitrange_workload_message(&wl, &s);
        if (strcmp(got, cases[i].want))
            fail_msg("%s: requests %s, want %s", cases[i].name, got, cases[i].want);
        if (!cases[i].want_msg != !msg || (msg && strcmp(msg, cases[i].want_msg)))
            fail_msg("%s: message\n  %s\nwant\n  %s", cases[i].name, msg ? msg : "(none)",
                     cases[i].want_msg ? cases[i].want_msg : "(none)");
        free(got);
        free(msg);
        ts_resource_list_release(&req);
        ts_workload_release(&wl);
        ts_limitrange_summary_release(&s);
    }
    cJSON_Delete(kata);
    cJSON_Delete(plain);
}

/* Summarize: the lowest max, the highest min, the first default seen. */
static void test_summarize(void **state)
{
    struct ts_limitrange_summary s;
    char *max, *min, *def, *req;

    (void)state;
    summary_of("[{'metadata':{'name':'a'},'spec':{'limits':["
               "{'type':'Container','max':{'cpu':'2'},'min':{'cpu':'500m'},"
               "'default':{'cpu':'1'},'defaultRequest':{'memory':'1Gi'}},"
               "{'type':'PersistentVolumeClaim','max':{'storage':'1Gi'}}]}},"
               "{'metadata':{'name':'b'},'spec':{'limits':["
               "{'type':'Container','max':{'cpu':'1500m','memory':'4Gi'},'min':{'cpu':'100m'},"
               "'default':{'cpu':'3','memory':'2Gi'},'defaultRequest':{'memory':'5Gi'}}]}}]",
               &s);
    assert_true(s.container.set);
    assert_false(s.pod.set);
    max = list_str(&s.container.max);
    min = list_str(&s.container.min);
    def = list_str(&s.container.def);
    req = list_str(&s.container.def_request);
    assert_string_equal(max, "cpu=1500m,memory=4Gi");
    assert_string_equal(min, "cpu=500m");
    assert_string_equal(def, "cpu=1,memory=2Gi");
    assert_string_equal(req, "memory=1Gi");
    free(max);
    free(min);
    free(def);
    free(req);
    assert_false(ts_limitrange_summary_empty(&s));
    ts_limitrange_summary_release(&s);
    summary_of("[{'metadata':{'name':'a'},'spec':{'limits':[{'type':'Container',"
               "'max':{'cpu':'x'}}]}}]",
               &s);
    assert_int_equal(s.container.max.n, 0); /* a bad quantity is left out */
    ts_limitrange_summary_release(&s);
    summary_of(NULL, &s);
    assert_true(ts_limitrange_summary_empty(&s));
    ts_limitrange_summary_release(&s);
}

/* Defaults that make requests exceed limits are caught by the existing
 * requests-vs-limits check, as Kueue's ValidateResources does after
 * AdjustResources. */
static void test_default_request_over_own_limit(void **state)
{
    struct ts_limitrange_summary s;
    struct ts_workload wl;
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;

    (void)state;
    summary_of(LR_CONTAINER("'defaultRequest':{'cpu':'2'}"), &s);
    workload_of("{'containers':[{'name':'c','resources':{'limits':{'cpu':'1'}}}]}", &wl);
    assert_int_equal(ts_pod_template_validate_limits(&wl.spec.podsets[0].template, "p", &errs), 0);
    ts_limitrange_adjust_workload(&wl, &s, NULL, NULL);
    assert_int_equal(ts_pod_template_validate_limits(&wl.spec.podsets[0].template, "p", &errs), 1);
    ts_field_errors_release(&errs);
    ts_workload_release(&wl);
    ts_limitrange_summary_release(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_adjust_and_validate_table),
        cmocka_unit_test(test_summarize),
        cmocka_unit_test(test_default_request_over_own_limit),
    };

    ts_alloc_init();
    return cmocka_run_group_tests_name("api_limitrange", tests, NULL, NULL);
}
