/* turnstile-apiserver - a local Kubernetes API server for kubectl, the
 * Python client and Turnstile's controller.  Thin main: flags, start,
 * wait for SIGINT/SIGTERM, stop. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "apiserver/apiserver.h"
#include "httpd/fdlimit.h"
#include "util/alloc.h"
#include "util/log.h"
#include "util/parse.h"

#define USAGE                                                                                      \
    "usage: turnstile-apiserver [flags]\n"                                                         \
    "  --listen HOST:PORT            address to serve on (default 127.0.0.1:6443; port 0 picks\n"  \
    "                                a free port, printed on stdout)\n"                            \
    "  --tls-cert-file F             PEM serving certificate\n"                                    \
    "  --tls-private-key-file F      PEM private key\n"                                            \
    "  --self-signed                 generate a CA and serving certificate (the default)\n"        \
    "  --insecure-http               serve plain HTTP instead of HTTPS\n"                          \
    "  --token TOKEN                 require 'Authorization: Bearer TOKEN'\n"                      \
    "  --kubeconfig-out FILE         write a kubeconfig for this server\n"                         \
    "  --version-minor N             minor version /version reports (default 32)\n"                \
    "  --event-history N             watch events kept for resuming (default 10000)\n"             \
    "  --data-dir DIR                keep objects in DIR (write-ahead log fsynced before each\n"   \
    "                                reply, snapshots); without it everything is in memory\n"      \
    "  --snapshot-every N            compact the log after N records (default 100000)\n"           \
    "  --simulate-job-runtime D      play the job controller: Jobs/Kubeflow jobs run for D\n"      \
    "                                (e.g. 30s; annotation turnstile.dev/simulated-runtime)\n"     \
    "  --webhook-service NS/NAME[:PORT]=HOST:PORT\n"                                               \
    "                                reach webhook clientConfig.service NAME.NS at HOST:PORT\n"    \
    "                                (TLS still verified as NAME.NS.svc; repeatable)\n"            \
    "  --faults SPEC                 inject faults, seeded (README \"Fault injection\"); SPEC "    \
    "is\n"                                                                                         \
    "                                KEY=VALUE,...: seed=N write-409=P write-429=P write-500=P\n"  \
    "                                write-503=P retry-after=SECS latency=0-20ms gone=P cut=P\n"   \
    "                                write-cut=P watch-drop=P watch-drop-after=N watch-lag=D\n"    \
    "                                pause=D@T[+EVERY]; counts\n"                                  \
    "                                at GET /debug/faults; header X-Turnstile-Faults: off "        \
    "exempts\n"                                                                                    \
    "  --no-access-log               do not log one line per request\n"                            \
    "  --log-level debug|info|warn|error\n"

static int need(int argc, char **argv, int i)
{
    if (i + 1 >= argc) {
        fprintf(stderr, "turnstile-apiserver: %s needs a value\n%s", argv[i], USAGE);
        return 0;
    }
    return 1;
}

#define MAX_SERVICES 64

/* The flags added for durability, the job simulator and webhooks.
 * services: main's array that --webhook-service values are collected in. */
static int parse_more(struct ts_apiserver_opts *o, const char *flag, const char *v,
                      const char **services)
{
    int64_t n;

    if (!strcmp(flag, "--data-dir"))
        o->data_dir = v;
    else if (!strcmp(flag, "--snapshot-every") && !ts_parse_i64_c(v, &n) && n > 0)
        o->snapshot_every = (uint64_t)n;
    else if (!strcmp(flag, "--simulate-job-runtime") &&
             !ts_apiserver_parse_duration(v, &o->simulate_job_runtime))
        ;
    else if (!strcmp(flag, "--faults"))
        o->faults = v;
    else if (!strcmp(flag, "--webhook-service") && strchr(v, '=') && strchr(v, '/') &&
             o->n_webhook_services < MAX_SERVICES)
        services[o->n_webhook_services++] = v;
    else
        return -1;
    o->webhook_services = services;
    return 0;
}

static int parse_value(struct ts_apiserver_opts *o, const char *flag, const char *v,
                       const char **services)
{
    int64_t n;
    enum ts_log_level lvl;

    if (!strcmp(flag, "--listen"))
        o->listen = v;
    else if (!strcmp(flag, "--tls-cert-file"))
        o->tls_cert_file = v;
    else if (!strcmp(flag, "--tls-private-key-file"))
        o->tls_key_file = v;
    else if (!strcmp(flag, "--token"))
        o->token = v;
    else if (!strcmp(flag, "--kubeconfig-out"))
        o->kubeconfig_out = v;
    else if (!strcmp(flag, "--version-minor"))
        o->version_minor = v;
    else if (!strcmp(flag, "--event-history") && !ts_parse_i64_c(v, &n) && n > 0)
        o->event_history = (size_t)n;
    else if (!strcmp(flag, "--log-level") && !ts_log_parse_level(v, &lvl))
        ts_log_set_level(lvl);
    else
        return parse_more(o, flag, v, services);
    return 0;
}

static int parse(int argc, char **argv, struct ts_apiserver_opts *o, const char **services)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];

        if (!strcmp(a, "--insecure-http")) {
            o->insecure_http = 1;
        } else if (!strcmp(a, "--self-signed")) {
            o->insecure_http = 0;
        } else if (!strcmp(a, "--no-access-log")) {
            o->access_log = 0;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(USAGE, stdout);
            return 1;
        } else if (!strncmp(a, "--", 2) && need(argc, argv, i)) {
            if (parse_value(o, a, argv[++i], services)) {
                fprintf(stderr, "turnstile-apiserver: bad flag %s %s\n%s", a, argv[i], USAGE);
                return 2;
            }
        } else {
            if (strncmp(a, "--", 2))
                fprintf(stderr, "turnstile-apiserver: unexpected argument '%s'\n%s", a, USAGE);
            return 2;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    struct ts_apiserver_opts opts = {.access_log = 1};
    const char *services[MAX_SERVICES];
    struct ts_err err = {0};
    struct ts_apiserver *s;
    sigset_t set;
    int rc, sig;

    ts_alloc_init();
    if ((rc = parse(argc, argv, &opts, services)))
        return rc == 1 ? 0 : rc;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);
    ts_httpd_raise_file_limit(); /* every connection is a file (httpd/fdlimit.h) */
    s = ts_apiserver_new(&opts);
    if (ts_apiserver_start(s, &err)) {
        ts_apiserver_free(s);
        ts_fatal("apiserver", "%s", err.msg);
    }
    printf("turnstile-apiserver: serving on %s\n", ts_apiserver_url(s));
    fflush(stdout);
    ts_log_info("apiserver", "serving url=%s", ts_apiserver_url(s));
    sigwait(&set, &sig);
    ts_log_info("apiserver", "stopping signal=%d", sig);
    ts_apiserver_free(s);
    return 0;
}
