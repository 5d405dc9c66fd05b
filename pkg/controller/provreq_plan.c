/* provreq_plan.c - ProvisioningRequestConfig, AdmissionCheck Active, names
 * and the objects built for a Workload (provreq.h; Kueue's
 * pkg/controller/admissionchecks/provisioning/{admissioncheck_reconciler,
 * provisioning,controller}.go and pkg/util/admissioncheck). */
#include "controller/provreq.h"

#include "json/json.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/parse.h"

#include <openssl/evp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GROUP        "kueue.x-k8s.io"
#define NAME_MAX_PFX 247 /* 252 - the hash's length (Kueue's objNameMaxPrefixLength) */

static void read_retry(const cJSON *rs, struct ts_provreq_config *cfg, struct ts_err *err)
{
    static const struct {
        const char *key;
        size_t off;
    } f[] = {
        {"backoffLimitCount", offsetof(struct ts_provreq_config, limit_count)},
        {"backoffBaseSeconds", offsetof(struct ts_provreq_config, base_s)},
        {"backoffMaxSeconds", offsetof(struct ts_provreq_config, max_s)},
    };

    for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(rs, f[i].key);
        int64_t n;

        if (!v || cJSON_IsNull(v))
            continue;
        if (ts_json_get_i64(v, &n) || n < INT32_MIN || n > INT32_MAX) {
            ts_err_set(err, TS_EINVAL, "spec.retryStrategy.%s: not an int32", f[i].key);
            continue;
        }
        *(int32_t *)(void *)((char *)cfg + f[i].off) = (int32_t)n;
    }
}

static void read_updates(const cJSON *psu, struct ts_provreq_config *cfg, struct ts_err *err)
{
    const cJSON *ns;

    cfg->has_podset_updates = 1;
    cJSON_ArrayForEach(ns, cJSON_GetObjectItemCaseSensitive(psu, "nodeSelector"))
    {
        const char *k = ts_json_get_string(ns, "key");
        const char *v = ts_json_get_string(ns, "valueFromProvisioningClassDetail");

        if (!k || !v)
            ts_err_set(err, TS_EINVAL,
                       "spec.podSetUpdates.nodeSelector[]: key and "
                       "valueFromProvisioningClassDetail are required");
        else
            ts_strmap_set(&cfg->node_selector, k, v);
    }
}

int ts_provreq_config_read(const cJSON *obj, struct ts_provreq_config *cfg, struct ts_err *err)
{
    const cJSON *spec = ts_json_get(obj, "spec"), *it;
    const char *name = ts_json_get_string(obj, "metadata.name");
    const char *cls = ts_json_get_string(spec, "provisioningClassName");
    const char *merge = ts_json_get_string(spec, "podSetMergePolicy");
    struct ts_err e = {0};

    memset(cfg, 0, sizeof(*cfg));
    ts_strmap_init(&cfg->parameters);
    ts_strmap_init(&cfg->node_selector);
    ts_strlist_init(&cfg->managed);
    cfg->limit_count = 3, cfg->base_s = 60, cfg->max_s = 1800;
    cfg->name = ts_xstrdup(name ? name : "");
    cfg->class_name = ts_xstrdup(cls ? cls : "");
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(spec, "parameters"))
    {
        if (cJSON_IsString(it))
            ts_strmap_set(&cfg->parameters, it->string, it->valuestring);
        else
            ts_err_set(&e, TS_EINVAL, "spec.parameters.%s: not a string", it->string);
    }
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(spec, "managedResources"))
    {
        if (cJSON_IsString(it))
            ts_strlist_push(&cfg->managed, it->valuestring);
    }
    if ((it = cJSON_GetObjectItemCaseSensitive(spec, "retryStrategy")) && cJSON_IsObject(it))
        read_retry(it, cfg, &e);
    if ((it = cJSON_GetObjectItemCaseSensitive(spec, "podSetUpdates")) && cJSON_IsObject(it))
        read_updates(it, cfg, &e);
    if (merge && !strcmp(merge, "IdenticalPodTemplates"))
        cfg->merge = TS_PROVREQ_MERGE_IDENTICAL_TEMPLATES;
    else if (merge && !strcmp(merge, "IdenticalWorkloadSchedulingRequirements"))
        cfg->merge = TS_PROVREQ_MERGE_IDENTICAL_SCHEDULING;
    else if (merge)
        ts_err_set(&e, TS_EINVAL, "spec.podSetMergePolicy: unsupported value \"%s\"", merge);
    if (!cls || !*cls)
        ts_err_set(&e, TS_EINVAL, "spec.provisioningClassName: Required value");
    if (e.code)
        return ts_err_set(err, e.code, "%s %s: %s", TS_PROVREQ_CONFIG_KIND, cfg->name, e.msg);
    return 0;
}

void ts_provreq_config_release(struct ts_provreq_config *cfg)
{
    free(cfg->name);
    free(cfg->class_name);
    ts_strmap_release(&cfg->parameters);
    ts_strmap_release(&cfg->node_selector);
    ts_strlist_release(&cfg->managed);
    memset(cfg, 0, sizeof(*cfg));
}

const char *ts_provreq_config_ref(const cJSON *ac, char *why, size_t len)
{
    const cJSON *ref = ts_json_get(ac, "spec.parameters");
    const char *name = ts_json_get_string(ref, "name");
    const char *group = ts_json_get_string(ref, "apiGroup");
    const char *kind = ts_json_get_string(ref, "kind");

    if (!ref || cJSON_IsNull(ref))
        snprintf(why, len, "missing parameters reference");
    else if (!name || !*name)
        snprintf(why, len, "empty name: bad parameters reference");
    else if (strcmp(group ? group : "", GROUP))
        snprintf(why, len, "wrong group \"%s\", expecting \"%s\": bad parameters reference",
                 group ? group : "", GROUP);
    else if (strcmp(kind ? kind : "", TS_PROVREQ_CONFIG_KIND))
        snprintf(why, len, "wrong kind \"%s\", expecting \"%s\": bad parameters reference",
                 kind ? kind : "", TS_PROVREQ_CONFIG_KIND);
    else
        return name;
    return NULL;
}

static cJSON *condition_of(const cJSON *obj, const char *type)
{
    cJSON *c;

    cJSON_ArrayForEach(c, ts_json_get(obj, "status.conditions"))
    {
        const char *t = ts_json_get_string(c, "type");

        if (t && !strcmp(t, type))
            return c;
    }
    return NULL;
}

cJSON *ts_provreq_ac_status(const cJSON *ac, const cJSON *cfg, ts_time now)
{
    const char *status = "True", *reason = "Active", *cur;
    char msg[512] = "The admission check is active", ts[40];
    const char *name = ts_provreq_config_ref(ac, msg + 256, 256);
    const cJSON *gen = ts_json_get(ac, "metadata.generation");
    cJSON *out, *conds, *c;

    if (!name || !cfg) {
        status = "False", reason = "BadParametersRef";
        if (name) /* the API server's NotFound message, as Kueue's Get returns it */
            snprintf(msg, 256, "provisioningrequestconfigs.%s \"%s\" not found", GROUP, name);
        else
            memmove(msg, msg + 256, 256);
    }
    cur = ts_json_get_string(condition_of(ac, "Active"), "status");
    if (cur && !strcmp(cur, status))
        return NULL;
    out = cJSON_Duplicate(ac, 1);
    c = condition_of(out, "Active");
    if (!c) {
        conds = ts_json_mkpath(out, "status.conditions", NULL);
        if (!cJSON_IsArray(conds)) {
            cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(out, "status"),
                                                    "conditions");
            conds = cJSON_AddArrayToObject(cJSON_GetObjectItemCaseSensitive(out, "status"),
                                           "conditions");
        }
        c = cJSON_CreateObject();
        cJSON_AddItemToArray(conds, c);
    }
    while (c->child)
        cJSON_Delete(cJSON_DetachItemViaPointer(c, c->child));
    cJSON_AddStringToObject(c, "type", "Active");
    cJSON_AddStringToObject(c, "status", status);
    cJSON_AddNumberToObject(c, "observedGeneration", cJSON_IsNumber(gen) ? gen->valuedouble : 0);
    cJSON_AddStringToObject(c, "lastTransitionTime", ts_time_format(now, ts, sizeof(ts)));
    cJSON_AddStringToObject(c, "reason", reason);
    cJSON_AddStringToObject(c, "message", msg);
    return out;
}

/* Kueue's limitObjectName. */
static char *limit_name(struct ts_buf *b)
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;

    if (b->len > NAME_MAX_PFX) {
        EVP_Digest(b->ptr, b->len, md, &mdlen, EVP_sha1(), NULL);
        b->len = NAME_MAX_PFX;
        b->ptr[b->len] = 0;
        ts_buf_addf(b, "-%02x%02x%x", md[0], md[1], md[2] >> 4);
    }
    return ts_buf_take(b);
}

static char *name_of(const char *fmt_a, const char *a, const char *b, const char *c)
{
    struct ts_buf buf;

    ts_buf_init(&buf, 0);
    ts_buf_addf(&buf, "%s%s-%s%s%s", fmt_a, a, b, c ? "-" : "", c ? c : "");
    return limit_name(&buf);
}

char *ts_provreq_name(const char *wl, const char *check, int32_t attempt)
{
    char n[16];

    snprintf(n, sizeof(n), "%d", (int)attempt);
    return name_of("", wl, check, n);
}

char *ts_provreq_template_name(const char *request, const char *podset)
{
    return name_of("ppt-", request, podset, NULL);
}

int32_t ts_provreq_attempt(const char *pr, const char *wl, const char *check)
{
    char *prefix = name_of("", wl, check, "");
    size_t n = strlen(prefix);
    const char *d = pr + n;
    int64_t v;
    int ok = !strncmp(pr, prefix, n) && *d;

    free(prefix);
    for (const char *p = d; ok && *p; p++)
        ok = *p >= '0' && *p <= '9';
    if (!ok)
        return 0;
    if (ts_parse_i64_c(d, &v) || v > INT32_MAX)
        return 1;
    return (int32_t)v;
}

static int uses(const struct ts_container *cs, size_t n, const struct ts_strlist *managed)
{
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < managed->n; j++) {
            if (ts_resource_list_get(&cs[i].requests, managed->items[j]) ||
                ts_resource_list_get(&cs[i].limits, managed->items[j]))
                return 1;
        }
    }
    return 0;
}

int ts_provreq_podset_needed(const struct ts_podset *ps, const struct ts_provreq_config *cfg)
{
    const struct ts_pod_template *t = &ps->template;

    return !cfg->managed.n || uses(t->init_containers, t->n_init_containers, &cfg->managed) ||
           uses(t->containers, t->n_containers, &cfg->managed);
}

int ts_provreq_needed(const struct ts_workload *wl, const struct ts_provreq_config *cfg)
{
    for (size_t i = 0; i < wl->spec.n_podsets; i++) {
        if (ts_provreq_podset_needed(&wl->spec.podsets[i], cfg))
            return 1;
    }
    return 0;
}

int ts_provreq_synced(const cJSON *pr, const struct ts_provreq_config *cfg)
{
    const char *cls = ts_json_get_string(pr, "spec.provisioningClassName");

    if (strcmp(cls ? cls : "", cfg->class_name))
        return 0;
    for (size_t i = 0; i < cfg->parameters.n; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(ts_json_get(pr, "spec.parameters"),
                                                          cfg->parameters.items[i].key);

        if (!cJSON_IsString(v) || strcmp(v->valuestring, cfg->parameters.items[i].value))
            return 0;
    }
    return 1;
}
