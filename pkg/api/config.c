#include "api/config.h"

#include "api/dec.h"
#include "util/buf.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

void ts_config_init(struct ts_config *c)
{
    memset(c, 0, sizeof(*c));
    c->partial_admission = 1;
    c->qps = 300;
    c->burst = 500;
    c->wait_for_pods_ready = 1;
    c->pods_ready_timeout_s = 30 * 60;
    c->pods_ready_recovery_timeout_s = 30 * 60;
    c->backoff_base_s = 60;
    c->backoff_max_s = 3600;
}

/* integrations.frameworks: a listed framework is managed, others not;
 * frameworks Turnstile does not integrate are accepted and ignored (the
 * controller only looks up the names of its kinds). */
static void decode_integrations(struct ts_dec *d, const cJSON *obj, struct ts_config *c)
{
    const cJSON *in = ts_dec_object(d, obj, "integrations"), *list, *e;
    size_t mark;

    if (!in)
        return;
    mark = ts_path_push(&d->path, "integrations");
    ts_strlist_release(&c->label_keys_to_copy);
    ts_dec_strlist(d, in, "labelKeysToCopy", &c->label_keys_to_copy);
    list = ts_dec_array(d, in, "frameworks");
    if (list) {
        ts_strlist_release(&c->frameworks);
        c->frameworks_set = 1;
        cJSON_ArrayForEach(e, list)
        {
            if (!cJSON_IsString(e))
                ts_dec_error(d, TS_FIELD_TYPE_INVALID, "frameworks", NULL, "must be strings");
            else
                ts_strlist_push(&c->frameworks, e->valuestring);
        }
    }
    ts_strlist_release(&c->external_frameworks);
    ts_dec_strlist(d, in, "externalFrameworks", &c->external_frameworks);
    ts_path_pop(&d->path, mark);
}

/* "90s", "5m", "1h30m", "1.5h" (Go's time.ParseDuration, whole seconds). */
static int parse_duration_s(const char *s, int64_t *out)
{
    double total = 0;

    if (!*s)
        return -1;
    while (*s) {
        char *end;
        double v = strtod(s, &end);
        double unit;

        if (end == s)
            return -1;
        s = end;
        if (!strncmp(s, "ms", 2))
            unit = 1e-3, s += 2;
        else if (*s == 'h')
            unit = 3600, s++;
        else if (*s == 'm')
            unit = 60, s++;
        else if (*s == 's')
            unit = 1, s++;
        else
            return -1;
        total += v * unit;
    }
    *out = (int64_t)total;
    return 0;
}

static void decode_wait_for_pods_ready(struct ts_dec *d, const cJSON *obj, int v1beta1,
                                       struct ts_config *c)
{
    const cJSON *w = ts_dec_object(d, obj, "waitForPodsReady"), *rs;
    char *timeout = NULL, *recovery = NULL;
    size_t mark;

    if (v1beta1) {
        c->wait_for_pods_ready = 0;
        c->pods_ready_timeout_s = c->pods_ready_recovery_timeout_s = 5 * 60;
    }
    if (!w)
        return;
    mark = ts_path_push(&d->path, "waitForPodsReady");
    if (v1beta1) {
        ts_dec_bool(d, w, "enable", &c->wait_for_pods_ready);
        c->block_admission = c->wait_for_pods_ready; /* defaults to enable */
    }
    ts_dec_bool(d, w, "blockAdmission", &c->block_admission);
    if (ts_dec_string(d, w, "timeout", &timeout) == 1 &&
        (parse_duration_s(timeout, &c->pods_ready_timeout_s) || c->pods_ready_timeout_s <= 0))
        ts_dec_error(d, TS_FIELD_INVALID, "timeout", timeout, "must be a positive duration");
    c->pods_ready_recovery_timeout_s = c->pods_ready_timeout_s; /* unless given */
    if (ts_dec_string(d, w, "recoveryTimeout", &recovery) == 1 &&
        (parse_duration_s(recovery, &c->pods_ready_recovery_timeout_s) ||
         c->pods_ready_recovery_timeout_s <= 0))
        ts_dec_error(d, TS_FIELD_INVALID, "recoveryTimeout", recovery,
                     "must be a positive duration");
    free(timeout);
    free(recovery);
    rs = ts_dec_object(d, w, "requeuingStrategy");
    if (rs) {
        size_t m2 = ts_path_push(&d->path, "requeuingStrategy");

        ts_dec_i32(d, rs, "backoffBaseSeconds", &c->backoff_base_s);
        ts_dec_i32(d, rs, "backoffMaxSeconds", &c->backoff_max_s);
        ts_dec_opt_i32(d, rs, "backoffLimitCount", &c->backoff_limit_count);
        if (c->backoff_limit_count.set && c->backoff_limit_count.v < 0)
            ts_dec_error(d, TS_FIELD_INVALID, "backoffLimitCount", NULL,
                         "must be greater than or equal to 0");
        ts_path_pop(&d->path, m2);
    }
    ts_path_pop(&d->path, mark);
}

int ts_config_framework_on(const struct ts_config *c, const char *name)
{
    return !c->frameworks_set || ts_strlist_index(&c->frameworks, name) >= 0;
}

int ts_config_external_framework(const struct ts_strlist *external, const char *api_version,
                                 const char *kind)
{
    const char *slash = api_version ? strchr(api_version, '/') : NULL;
    char gvk[512];

    if (!external || !external->n || !api_version || !kind)
        return 0;
    if (slash) /* "group/version" -> "Kind.version.group" */
        snprintf(gvk, sizeof(gvk), "%s.%s.%.*s", kind, slash + 1, (int)(slash - api_version),
                 api_version);
    else
        snprintf(gvk, sizeof(gvk), "%s.%s", kind, api_version);
    return ts_strlist_index(external, gvk) >= 0;
}

void ts_config_release(struct ts_config *c)
{
    ts_label_selector_release(&c->metrics_lq_selector);
    ts_strlist_release(&c->label_keys_to_copy);
    ts_strlist_release(&c->frameworks);
    ts_strlist_release(&c->external_frameworks);
    ts_strlist_release(&c->feature_gates_ignored);
    free(c->metrics_bind_address);
    free(c->health_probe_bind_address);
    free(c->lease_namespace);
    free(c->lease_name);
    free(c->namespace_);
    free(c->webhook_service_name);
    free(c->webhook_secret_name);
    ts_resource_transforms_release(&c->resources);
    ts_config_init(c);
}

/* metrics, health, webhook: the knobs of Kueue's ControllerManager part. */
static void decode_manager(struct ts_dec *d, const cJSON *obj, struct ts_config *c)
{
    const cJSON *m = ts_dec_object(d, obj, "metrics");
    const cJSON *h = ts_dec_object(d, obj, "health");
    const cJSON *w = ts_dec_object(d, obj, "webhook");
    const cJSON *le = ts_dec_object(d, obj, "leaderElection");
    const cJSON *vis = ts_dec_object(d, obj, "visibilityServer");
    size_t mark = ts_path_push(&d->path, "metrics");

    ts_dec_string(d, m, "bindAddress", &c->metrics_bind_address);
    ts_dec_bool(d, m, "enableClusterQueueResources", &c->metrics_cq_resources);
    if ((m = ts_dec_object(d, m, "localQueueMetrics"))) {
        ts_path_push(&d->path, "localQueueMetrics");
        ts_dec_bool(d, m, "enable", &c->metrics_lq);
        ts_label_selector_release(&c->metrics_lq_selector);
        ts_label_selector_decode(d, m, "localQueueSelector", &c->metrics_lq_selector);
    }
    ts_path_pop(&d->path, mark);
    mark = ts_path_push(&d->path, "health");
    ts_dec_string(d, h, "healthProbeBindAddress", &c->health_probe_bind_address);
    ts_path_pop(&d->path, mark);
    mark = ts_path_push(&d->path, "webhook");
    if (ts_dec_i32(d, w, "port", &c->webhook_port) == 1 &&
        (c->webhook_port < 1 || c->webhook_port > 65535))
        ts_dec_error(d, TS_FIELD_INVALID, "port", NULL, "must be between 1 and 65535");
    ts_path_pop(&d->path, mark);
    mark = ts_path_push(&d->path, "visibilityServer");
    if (ts_dec_i32(d, vis, "bindPort", &c->visibility_port) == 1 &&
        (c->visibility_port < 1 || c->visibility_port > 65535))
        ts_dec_error(d, TS_FIELD_INVALID, "bindPort", NULL, "must be between 1 and 65535");
    ts_path_pop(&d->path, mark);
    mark = ts_path_push(&d->path, "leaderElection");
    ts_dec_opt_bool(d, le, "leaderElect", &c->leader_elect);
    ts_dec_string(d, le, "resourceNamespace", &c->lease_namespace);
    ts_dec_string(d, le, "resourceName", &c->lease_name);
    ts_path_pop(&d->path, mark);
}

/* featureGates (name: bool): PartialAdmission and PriorityBoost act; the
 * names of the others set are kept, to be told (docs/compatibility.md). */
static void decode_feature_gates(struct ts_dec *d, const cJSON *obj, struct ts_config *c)
{
    const cJSON *fg = ts_dec_object(d, obj, "featureGates"), *e;
    size_t mark;

    if (!fg)
        return;
    mark = ts_path_push(&d->path, "featureGates");
    cJSON_ArrayForEach(e, fg)
    {
        if (!cJSON_IsBool(e)) {
            ts_dec_error(d, TS_FIELD_TYPE_INVALID, e->string, NULL, "must be a boolean");
        } else if (!strcmp(e->string, "PartialAdmission")) {
            c->partial_admission = cJSON_IsTrue(e);
        } else if (!strcmp(e->string, "PriorityBoost")) {
            c->priority_boost = cJSON_IsTrue(e);
        } else {
            ts_strlist_push(&c->feature_gates_ignored, e->string);
        }
    }
    ts_path_pop(&d->path, mark);
}

static const char *const strategies[] = {"LessThanOrEqualToFinalShare", "LessThanInitialShare",
                                         NULL};

/* Kueue's validateFairSharing (pkg/config/validation.go), after its
 * defaulting (v1beta1's enable: true without strategies gets both): the
 * strategies are required, and only these orders are supported. */
static void check_strategy_set(struct ts_dec *d, const cJSON *list, int v1beta1,
                               const struct ts_config *c)
{
    static const char supported[] = "supported values: \"LessThanOrEqualToFinalShare\", "
                                    "\"LessThanInitialShare\", "
                                    "\"LessThanOrEqualToFinalShare,LessThanInitialShare\"";
    int n = cJSON_GetArraySize(list), ok;
    struct ts_buf v = TS_BUF_INIT;
    const cJSON *e;

    if (n == 0 && v1beta1)
        return;
    if (n == 0) {
        ts_dec_error(d, TS_FIELD_REQUIRED, "preemptionStrategies", NULL, "must be specified");
        return;
    }
    ok = (size_t)n == c->n_strategies &&
         (n == 1 || (c->strategies[0] == TS_CONFIG_FS_LESS_THAN_OR_EQUAL_TO_FINAL_SHARE &&
                     c->strategies[1] == TS_CONFIG_FS_LESS_THAN_INITIAL_SHARE));
    if (ok)
        return;
    cJSON_ArrayForEach(e, list)
    {
        ts_buf_addf(&v, "%s%s", v.len ? "," : "", cJSON_IsString(e) ? e->valuestring : "?");
    }
    ts_dec_error(d, TS_FIELD_NOT_SUPPORTED, "preemptionStrategies", v.ptr ? v.ptr : "", "%s",
                 supported);
    ts_buf_release(&v);
}

static void decode_fair_sharing(struct ts_dec *d, const cJSON *obj, int v1beta1,
                                struct ts_config *c)
{
    const cJSON *fs = ts_dec_object(d, obj, "fairSharing");
    const cJSON *list, *e;
    size_t mark, i = 0;
    int enable = 1;

    if (!fs)
        return;
    mark = ts_path_push(&d->path, "fairSharing");
    if (v1beta1) { /* v1beta1 had an explicit switch; v1beta2 enables by presence */
        enable = 0;
        ts_dec_bool(d, fs, "enable", &enable);
    }
    c->fair_sharing = enable;
    list = ts_dec_array(d, fs, "preemptionStrategies");
    if (list) {
        size_t m2 = ts_path_push(&d->path, "preemptionStrategies");

        cJSON_ArrayForEach(e, list)
        {
            int v = 0;
            size_t m3 = ts_path_push_index(&d->path, i++);

            if (cJSON_IsString(e) && c->n_strategies < 2) {
                for (v = 0; strategies[v] && strcmp(strategies[v], e->valuestring); v++)
                    ;
                if (strategies[v])
                    c->strategies[c->n_strategies++] = (enum ts_config_fs_strategy)v;
                else
                    ts_dec_error(d, TS_FIELD_NOT_SUPPORTED, NULL, e->valuestring,
                                 "supported values: \"%s\", \"%s\"", strategies[0], strategies[1]);
            } else if (!cJSON_IsString(e)) {
                ts_dec_error(d, TS_FIELD_TYPE_INVALID, NULL, NULL, "must be a string");
            }
            ts_path_pop(&d->path, m3);
        }
        ts_path_pop(&d->path, m2);
    }
    if (enable)
        check_strategy_set(d, list, v1beta1, c);
    ts_path_pop(&d->path, mark);
}

void ts_config_decode(const cJSON *obj, struct ts_config *c, struct ts_field_errors *errs)
{
    const cJSON *av = cJSON_GetObjectItemCaseSensitive(obj, "apiVersion");
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(obj, "kind");
    const cJSON *cc;
    struct ts_dec d;
    int v1beta1 = cJSON_IsString(av) && !strcmp(av->valuestring, "config.kueue.x-k8s.io/v1beta1");

    ts_dec_init(&d, errs);
    if (!cJSON_IsString(kind) || strcmp(kind->valuestring, "Configuration") ||
        !cJSON_IsString(av) || strncmp(av->valuestring, "config.kueue.x-k8s.io/", 22)) {
        ts_dec_error(&d, TS_FIELD_INVALID, "kind", cJSON_IsString(kind) ? kind->valuestring : "",
                     "want kind Configuration of config.kueue.x-k8s.io/v1beta2 or v1beta1");
        return;
    }
    if (v1beta1) { /* v1beta1 defaults: 20 QPS / 30 burst */
        c->qps = 20;
        c->burst = 30;
    }
    decode_fair_sharing(&d, obj, v1beta1, c);
    decode_feature_gates(&d, obj, c);
    decode_wait_for_pods_ready(&d, obj, v1beta1, c);
    decode_integrations(&d, obj, c);
    decode_manager(&d, obj, c);
    ts_resource_transforms_decode(&d, obj, &c->resources);
    ts_dec_bool(&d, obj, "manageJobsWithoutQueueName", &c->manage_jobs_without_queue_name);
    ts_dec_string(&d, obj, "namespace", &c->namespace_);
    {
        const cJSON *icm = ts_dec_object(&d, obj, "internalCertManagement");
        size_t mark = ts_path_push(&d.path, "internalCertManagement");

        ts_dec_opt_bool(&d, icm, "enable", &c->internal_certs);
        ts_dec_string(&d, icm, "webhookServiceName", &c->webhook_service_name);
        ts_dec_string(&d, icm, "webhookSecretName", &c->webhook_secret_name);
        ts_path_pop(&d.path, mark);
    }
    cc = ts_dec_object(&d, obj, "clientConnection");
    if (cc) {
        size_t mark = ts_path_push(&d.path, "clientConnection");
        const cJSON *q = cJSON_GetObjectItemCaseSensitive(cc, "qps");

        if (cJSON_IsNumber(q))
            c->qps = q->valuedouble;
        else if (q)
            ts_dec_error(&d, TS_FIELD_TYPE_INVALID, "qps", NULL, "must be a number");
        ts_dec_i32(&d, cc, "burst", &c->burst);
        ts_path_pop(&d.path, mark);
    }
}
