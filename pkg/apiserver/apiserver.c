/*
 * apiserver.c - server lifecycle: state, built-ins and seeded namespaces,
 * TLS material, listening, kubeconfig, shutdown.
 */
#include "apiserver/apiserver.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "apiserver/server_int.h"
#include "util/alloc.h"
#include "util/parse.h"

static char *dup_or_null(const char *s)
{
    return s ? ts_xstrdup(s) : NULL;
}

struct ts_apiserver *ts_apiserver_new(const struct ts_apiserver_opts *opts)
{
    struct ts_apiserver *s = ts_xcalloc(1, sizeof(*s));
    struct timespec ts;

    curl_global_init(CURL_GLOBAL_DEFAULT); /* webhook calls */
    s->opts = *opts;
    s->listen = ts_xstrdup(opts->listen ? opts->listen : "127.0.0.1:6443");
    s->cert_file = dup_or_null(opts->tls_cert_file);
    s->key_file = dup_or_null(opts->tls_key_file);
    s->token = dup_or_null(opts->token);
    s->kubeconfig = dup_or_null(opts->kubeconfig_out);
    s->data_dir = dup_or_null(opts->data_dir);
    s->minor = ts_xstrdup(opts->version_minor ? opts->version_minor : "32");
    s->tls = !opts->insecure_http;
    if (!s->opts.snapshot_every)
        s->opts.snapshot_every = 100000;
    ts_strlist_init(&s->svc_map);
    for (size_t i = 0; i < opts->n_webhook_services; i++)
        ts_strlist_push(&s->svc_map, opts->webhook_services[i]);
    s->opts.webhook_services = NULL;
    s->opts.n_webhook_services = 0;
    s->opts.data_dir = NULL;
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cond, NULL);
    clock_gettime(CLOCK_REALTIME, &ts);
    s->rand = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^ (uint64_t)getpid();
    ts_hmap_init(&s->oa_cache);
    ts__as_ring_init(s, opts->event_history ? opts->event_history : 10000);
    ts__as_builtins_register(s);
    ts__as_builtins_seed(s, (ts_time)ts.tv_sec * TS_TIME_SECOND + ts.tv_nsec);
    return s;
}

static int split_listen(const char *listen, char *host, size_t hlen, int *port, struct ts_err *err)
{
    const char *colon = strrchr(listen, ':');
    int64_t p;

    if (!colon || (size_t)(colon - listen) >= hlen || ts_parse_i64_c(colon + 1, &p) || p < 0 ||
        p > 65535)
        return ts_err_set(err, TS_EINVAL, "--listen '%s': want HOST:PORT", listen);
    memcpy(host, listen, (size_t)(colon - listen));
    host[colon - listen] = '\0';
    *port = (int)p;
    return 0;
}

int ts_apiserver_start(struct ts_apiserver *s, struct ts_err *err)
{
    char host[128], url[256];
    int port = 0, rc = 0;

    if ((rc = split_listen(s->listen, host, sizeof(host), &port, err)))
        return rc;
    if ((rc = ts__as_faults_enable(s, s->opts.faults, err)))
        return rc;
    s->opts.faults = NULL; /* borrowed; parsed */
    if (s->data_dir && (rc = ts__as_wal_open(s, s->data_dir, err)))
        return rc;
    if (s->opts.simulate_job_runtime > 0 && (rc = ts__as_jobsim_start(s, err)))
        return rc;
    if (s->tls && s->cert_file && s->key_file)
        rc = ts__as_tls_load(s, err);
    else if (s->tls)
        rc = ts__as_tls_generate(s, err);
    if (rc || (rc = ts__as_http_start(s, host, port, err)))
        return rc;
    snprintf(url, sizeof(url), "%s://%s:%d", s->tls ? "https" : "http", host, s->port);
    s->url = ts_xstrdup(url);
    if (s->kubeconfig)
        return ts__as_kubeconfig_write(s, s->kubeconfig, err);
    return 0;
}

int ts_apiserver_port(const struct ts_apiserver *s)
{
    return s->port;
}

const char *ts_apiserver_url(const struct ts_apiserver *s)
{
    return s->url ? s->url : "";
}

void ts_apiserver_free(struct ts_apiserver *s)
{
    if (!s)
        return;
    ts__as_http_stop(s);
    if (s->jobsim) {
        pthread_mutex_lock(&s->mu);
        s->stopping = 1;
        pthread_cond_broadcast(&s->cond);
        pthread_mutex_unlock(&s->mu);
        ts__as_jobsim_stop(s);
    }
    ts__as_wal_close(s);
    ts__as_faults_release(s);
    ts_strlist_release(&s->svc_map);
    free(s->data_dir);
    ts__as_ring_release(s);
    for (size_t i = 0; i < s->n_res; i++)
        ts__as_res_free(s->res[i]);
    free(s->res);
    ts_hmap_release_free(&s->oa_cache);
    pthread_cond_destroy(&s->cond);
    pthread_mutex_destroy(&s->mu);
    free(s->listen);
    free(s->cert_file);
    free(s->key_file);
    free(s->token);
    free(s->kubeconfig);
    free(s->minor);
    free(s->url);
    free(s->cert_pem);
    free(s->key_pem);
    free(s->ca_pem);
    free(s);
    curl_global_cleanup();
}
