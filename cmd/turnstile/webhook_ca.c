/* webhook_ca.c - keeps the API server trusting the webhook's internally
 * managed certificate (pkg/webhook/cainject.h): injects the CA at start,
 * after each rotation, and again every 10 s while an injection fails.
 * Only with an explicit --kubeconfig or inside a cluster: a developer's
 * ~/.kube/config is never touched by a local webhook. */
#include <stdlib.h>
#include <string.h>

#include "cmd_turnstile.h"
#include "kube/client.h"
#include "kube/kubeconfig.h"
#include "kube/loop.h"
#include "util/alloc.h"
#include "util/log.h"
#include "webhook/cainject.h"

#define RETRY_NS (10 * TS_TIME_SECOND)

struct ts__ca_injector {
    struct ts_kubeconfig kc;
    struct ts_loop *loop;
    struct ts_kube_client *client;
    char *injected; /* the CA the cluster has, or NULL */
    ts_time next_try;
};

struct ts__ca_injector *ts__ca_injector_new(const char *kubeconfig)
{
    struct ts_kubeconfig_opts ko = {0};
    struct ts__ca_injector *in;
    struct ts_err err = {0};
    const char *host = getenv("KUBERNETES_SERVICE_HOST");

    if (!kubeconfig && !(host && *host))
        return NULL;
    in = ts_xcalloc(1, sizeof(*in));
    ko.path = kubeconfig;
    if (ts_kubeconfig_load(&ko, &in->kc, &err) || !(in->loop = ts_loop_new()) ||
        !(in->client = ts_kube_client_new(in->loop, &in->kc, NULL, &err))) {
        ts_log_warn("webhook", "no CA injection: %s", err.msg[0] ? err.msg : "no event loop");
        ts__ca_injector_free(in);
        return NULL;
    }
    return in;
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
