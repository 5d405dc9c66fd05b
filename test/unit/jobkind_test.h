/*
 * jobkind_test.h - helpers shared by the job kind tests (test_controller_
 * ray.c, test_controller_trainjob.c; header-only, static inline, so each
 * test binary stands alone): JSON written with ' for ", the ResourceFlavor
 * "gpu" (node label pool=gpu) and its lookup, and a Workload admitted with
 * it for every pod set.
 *
 * Include after <cmocka.h>.
 */
#ifndef TS_TEST_JOBKIND_TEST_H
#define TS_TEST_JOBKIND_TEST_H

#include <cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "api/resourceflavor.h"
#include "api/workload.h"
#include "util/alloc.h"

/* Parses JSON written with ' for ".  Ownership: caller deletes. */
static inline cJSON *jk_json(const char *text)
{
    char *s = ts_xstrdup(text);
    cJSON *j;

    for (char *p = s; *p; p++)
        *p = *p == '\'' ? '"' : *p;
    j = cJSON_Parse(s);
    if (!j)
        fail_msg("test JSON does not parse: %s", s);
    free(s);
    return j;
}

static struct ts_resource_flavor jk_gpu;

static inline const struct ts_resource_flavor *jk_lookup(void *ctx, const char *name)
{
    (void)ctx;
    return !strcmp(name, "gpu") ? &jk_gpu : NULL;
}

/* wl admitted to cq with flavor gpu for every pod set. */
static inline void jk_admit(struct ts_workload *wl)
{
    wl->status.admission = ts_admission_new();
    free(wl->status.admission->cluster_queue);
    wl->status.admission->cluster_queue = ts_xstrdup("cq");
    for (size_t i = 0; i < wl->spec.n_podsets; i++)
        ts_strmap_set(&ts_admission_add(wl->status.admission, wl->spec.podsets[i].name)->flavors,
                      "cpu", "gpu");
}

/* Group setup and teardown: the flavor gpu. */
static inline int jk_setup(void **state)
{
    cJSON *o = jk_json("{'apiVersion':'kueue.x-k8s.io/v1beta2','kind':'ResourceFlavor',"
                       "'metadata':{'name':'gpu'},'spec':{'nodeLabels':{'pool':'gpu'}}}");
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_dec d;

    (void)state;
    ts_dec_init(&d, &errs);
    ts_resource_flavor_init(&jk_gpu);
    ts_resource_flavor_decode(&d, o, &jk_gpu);
    cJSON_Delete(o);
    return errs.n ? -1 : 0;
}

static inline int jk_teardown(void **state)
{
    (void)state;
    ts_resource_flavor_release(&jk_gpu);
    return 0;
}

#endif
