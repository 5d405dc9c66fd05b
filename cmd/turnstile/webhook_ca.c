/* webhook_ca.c - keeps the API server trusting the webhook's internally
 * managed certificate: shares it with the other replicas through the
 * Secret (pkg/webhook/certsync.h) before serving and every sync period,
 * and injects the CA (pkg/webhook/cainject.h) at start, after each change,
 * and again every 10 s while an injection fails.  Only with an explicit
 * --kubeconfig or inside a cluster: a developer's ~/.kube/config is never
 * touched by a local webhook. */
#include <stdlib.h>
#include <string.h>

#include "cmd_turnstile.h"
#include "httpd/server.h"
#include "kube/client.h"
#include "kube/kubeconfig.h"
#include "kube/loop.h"
#include "util/alloc.h"
#include "util/log.h"
#include "webhook/cainject.h"
#include "webhook/certsync.h"

#define RETRY_NS (10 * TS_TIME_SECOND)

struct ts__ca_injector {
    struct ts_kubeconfig kc;
    struct ts_loop *loop;
    struct ts_kube_client *client;
    char *injected; /* the CA the cluster has, or NULL */
    ts_time next_try;
    const char *ns, *secret; /* borrowed (argv / constants) */
    int64_t sync_period_ns;  /* 0: no Secret */
    ts_time next_sync;
};

struct ts__ca_injector *ts__ca_injector_new(const char *kubeconfig, const char *ns,
                                            const char *secret, int sync_period_s)
{
    struct ts_kubeconfig_opts ko = {0};
    /* short calls, few retries: the process checks for SIGTERM between
     * them, and an unreachable API server is simply tried again later */
    struct ts_kube_client_opts co = {
        .timeout_ns = 10 * TS_TIME_SECOND, .max_retries = 2, .backoff_cap = TS_TIME_SECOND};
    struct ts__ca_injector *in;
    struct ts_err err = {0};
    const char *host = getenv("KUBERNETES_SERVICE_HOST");

    if (!kubeconfig && !(host && *host))
        return NULL;
    in = ts_xcalloc(1, sizeof(*in));
    ko.path = kubeconfig;
    if (ts_kubeconfig_load(&ko, &in->kc, &err) || !(in->loop = ts_loop_new()) ||
        !(in->client = ts_kube_client_new(in->loop, &in->kc, &co, &err))) {
        ts_log_warn("webhook", "no CA injection: %s", err.msg[0] ? err.msg : "no event loop");
        ts__ca_injector_free(in);
        return NULL;
    }
    in->ns = ns;
    in->secret = secret;
    in->sync_period_ns = secret && *secret ? (int64_t)sync_period_s * TS_TIME_SECOND : 0;
    return in;
}

int ts__ca_sync(struct ts__ca_injector *in, struct ts_certsrc *src, struct ts_httpd_server *srv,
                int force, ts_time now)
{
    struct ts_err err = {0};
    int changed = 0;

    if (!in || !in->sync_period_ns || (!force && now < in->next_sync))
        return 0;
    in->next_sync = now + in->sync_period_ns;
    if (ts_certsync_run(in->client, src, in->ns, in->secret, now, &changed, &err)) {
        ts_log_warn("webhook", "certificate secret %s/%s not synced (retrying): %s", in->ns,
                    in->secret, err.msg);
        return 0;
    }
    if (changed && srv &&
        ts_httpd_server_reload(srv, ts_certsrc_bundle(src)->cert_pem,
                               ts_certsrc_bundle(src)->key_pem, &err))
        ts_log_warn("webhook", "adopted certificate does not load: %s", err.msg);
    return changed;
}

void ts__ca_inject(struct ts__ca_injector *in, const char *ca_pem, ts_time now)
{
    struct ts_err err = {0};

    if (!in || (in->injected && !strcmp(in->injected, ca_pem)) || now < in->next_try)
        return;
    if (ts_cainject_run(in->client, ca_pem, &err) < 0) {
        ts_log_warn("webhook", "CA injection failed (retrying in 10 s): %s", err.msg);
        in->next_try = now + RETRY_NS;
        return;
    }
    free(in->injected);
    in->injected = ts_xstrdup(ca_pem);
}

void ts__ca_injector_free(struct ts__ca_injector *in)
{
    if (!in)
        return;
    ts_kube_client_free(in->client);
    ts_loop_free(in->loop);
    ts_kubeconfig_release(&in->kc);
    free(in->injected);
    free(in);
}
