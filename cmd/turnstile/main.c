/* turnstile - the controller manager binary.  With --webhook-only it is the
 * webhook server: parses flags, builds the webhook, the certificate source
 * and the server, then waits on a signalfd, refreshing the certificate once
 * a second (rotation or changed files).  Otherwise controller.c runs. */
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "cmd_turnstile.h"
#include "httpd/fdlimit.h"
#include "httpd/server.h"
#include "json/json.h"
#include "util/alloc.h"
#include "util/log.h"
#include "util/parse.h"
#include "webhook/certsrc.h"
#include "webhook/whconfig.h"
#include "webhook/whserver.h"

#define USAGE                                                                                      \
    "usage: turnstile --webhook-only [--webhook-port N] [--webhook-host ADDR] [--health-port N]\n" \
    "  [--cert-dir DIR] [--internal-cert-management=false] [--namespace NS] [--service-name S]\n"  \
    "  [--manage-jobs-without-queue-name] [--webhook-url URL --webhook-configs-out FILE]\n"        \
    "  [--threads N] [--idle-timeout S] [--header-timeout S] [--request-deadline S]\n"             \
    "  [--log-level LEVEL]\n"                                                                      \
    "  [--kubeconfig FILE (inject the CA into the cluster; automatic in-cluster)]\n"               \
    "  [--secret-name NAME (share the certificate between replicas; \"\" = off;\n"                 \
    "   default turnstile-webhook-server-cert)] [--secret-sync-period S (default 10)]\n"           \
    "  [--config FILE (a Kueue Configuration: webhook.port, health.healthProbeBindAddress,\n"      \
    "   manageJobsWithoutQueueName; the flags above win)]\n"

struct flags {
    int webhook_only;
    const char *cert_dir, *url, *configs_out, *kubeconfig, *secret;
    int secret_sync_s;
    struct ts_httpd_server_options srv;
    struct ts_certsrc_options certs;
    struct ts_webhook_options wh;
    struct ts_config config;
    /* given as flags: the Configuration does not override them */
    int port_set, health_set, ns_set, service_set, secret_set, internal_set;
};

static int int_arg(const char *s, int64_t lo, int64_t hi, int *out)
{
    int64_t v;

    if (ts_parse_i64_c(s, &v) != 0 || v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

/* Parses one "--name value" or "--name=value" pair; returns args used or -1. */
static int parse_one(struct flags *f, const char *name, const char *val)
{
    int n = 0;

    if (strcmp(name, "--webhook-port") == 0) {
        f->port_set = 1;
        return val && !int_arg(val, 0, 65535, &f->srv.port) ? 2 : -1;
    }
    if (strcmp(name, "--health-port") == 0) {
        f->health_set = 1;
        return val && !int_arg(val, -1, 65535, &f->srv.health_port) ? 2 : -1;
    }
    if (strcmp(name, "--config") == 0)
        return val && !ts__turnstile_load_config(val, &f->config) ? 2 : -1;
    if (strcmp(name, "--threads") == 0 || strcmp(name, "--idle-timeout") == 0 ||
        strcmp(name, "--request-deadline") == 0 || strcmp(name, "--header-timeout") == 0) {
        if (!val || int_arg(val, 1, 1024, &n))
            return -1;
        *(name[2] == 't'   ? &f->srv.threads
          : name[2] == 'i' ? &f->srv.timeout_s
          : name[2] == 'h' ? &f->srv.header_timeout_s
                           : &f->srv.deadline_s) = (unsigned)n;
        return 2;
    }
    if (strcmp(name, "--secret-sync-period") == 0)
        return val && !int_arg(val, 1, 86400, &f->secret_sync_s) ? 2 : -1;
    if (strcmp(name, "--internal-cert-management") == 0 && val)
        return (f->internal_set = 1), (f->certs.internal = strcmp(val, "false") != 0), 2;
    if (!val)
        return -1;
    if (strcmp(name, "--webhook-host") == 0)
        f->srv.host = val;
    else if (strcmp(name, "--cert-dir") == 0)
        f->certs.dir = val;
    else if (strcmp(name, "--namespace") == 0)
        f->ns_set = 1, f->certs.cert.namespace_ = f->wh.system_namespace = val;
    else if (strcmp(name, "--service-name") == 0)
        f->service_set = 1, f->certs.cert.service = val;
    else if (strcmp(name, "--webhook-url") == 0)
        f->url = val;
    else if (strcmp(name, "--webhook-configs-out") == 0)
        f->configs_out = val;
    else if (strcmp(name, "--kubeconfig") == 0)
        f->kubeconfig = val;
    else if (strcmp(name, "--secret-name") == 0)
        f->secret_set = 1, f->secret = val;
    else if (strcmp(name, "--log-level") == 0) {
        enum ts_log_level l;

        if (ts_log_parse_level(val, &l))
            return -1;
        ts_log_set_level(l);
    } else
        return -1;
    return 2;
}

/* The Configuration's webhook port, health probe port, namespace,
 * internalCertManagement and manageJobsWithoutQueueName, where no flag set
 * them. */
static int apply_config(struct flags *f)
{
    const struct ts_config *c = &f->config;

    if (!f->ns_set && c->namespace_)
        f->certs.cert.namespace_ = f->wh.system_namespace = c->namespace_;
    if (!f->service_set && c->webhook_service_name)
        f->certs.cert.service = c->webhook_service_name;
    if (!f->secret_set && c->webhook_secret_name)
        f->secret = c->webhook_secret_name;
    if (!f->internal_set && c->internal_certs.set)
        f->certs.internal = c->internal_certs.v;
    const char *h = f->config.health_probe_bind_address, *colon = h ? strrchr(h, ':') : NULL;

    if (!f->port_set && f->config.webhook_port)
        f->srv.port = f->config.webhook_port;
    if (!f->health_set && h && (!colon || int_arg(colon + 1, 0, 65535, &f->srv.health_port))) {
        fprintf(stderr, "turnstile: health.healthProbeBindAddress '%s': want host:port\n", h);
        return -1;
    }
    f->wh.manage_jobs_without_queue_name |= f->config.manage_jobs_without_queue_name;
    f->wh.partial_admission = c->partial_admission;
    f->wh.priority_boost = c->priority_boost;
    f->wh.manage_pods = ts_config_framework_on(c, "pod");
    f->wh.manage_deployments = ts_config_framework_on(c, "deployment");
    f->wh.manage_statefulsets = ts_config_framework_on(c, "statefulset");
    f->wh.external_frameworks = &c->external_frameworks;
    return 0;
}

static int parse_flags(int argc, char **argv, struct flags *f)
{
    for (int i = 1; i < argc;) {
        char name[64];
        const char *eq = strchr(argv[i], '=');
        int used;

        if (strcmp(argv[i], "--webhook-only") == 0 ||
            strcmp(argv[i], "--manage-jobs-without-queue-name") == 0) {
            *(argv[i][2] == 'w' ? &f->webhook_only : &f->wh.manage_jobs_without_queue_name) = 1;
            i++;
            continue;
        }
        snprintf(name, sizeof(name), "%.*s", eq ? (int)(eq - argv[i]) : 63, argv[i]);
        used = parse_one(f, name, eq ? eq + 1 : (i + 1 < argc ? argv[i + 1] : NULL));
        if (used < 0)
            return fprintf(stderr, "turnstile: bad flag '%s'\n%s", argv[i], USAGE), -1;
        i += eq ? 1 : used;
    }
    return apply_config(f);
}

static ts_time now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (ts_time)ts.tv_sec * TS_TIME_SECOND + ts.tv_nsec;
}

/* Local mode: writes both webhook configurations, CA included. */
static int write_configs(const struct flags *f, const struct ts_certsrc *src, int port)
{
    struct ts_whconfig_options o;
    char url[256];
    cJSON *list;
    char *text;
    FILE *out;
    int rc;

    snprintf(url, sizeof(url), "https://127.0.0.1:%d", port);
    ts_whconfig_options_init(&o);
    o.url = f->url ? f->url : url;
    o.ca_pem = ts_certsrc_bundle(src)->ca_cert_pem;
    o.namespace_ = f->wh.system_namespace;
    o.wide_job_scope = f->wh.manage_jobs_without_queue_name;
    list = ts_whconfig_list(&o);
    text = ts_json_dumps(list, TS_JSON_PRETTY);
    cJSON_Delete(list);
    out = fopen(f->configs_out, "w");
    rc = !out || fprintf(out, "%s\n", text) < 0;
    rc = (out && fclose(out)) || rc;
    free(text);
    return rc ? -1 : 0;
}

/* Serves until SIGTERM/SIGINT; SIGHUP forces a certificate check. */
static void run(int sfd, struct ts_certsrc *src, struct ts_httpd_server *srv,
                struct ts__ca_injector *ca)
{
    struct pollfd p = {sfd, POLLIN, 0};

    for (;;) {
        struct signalfd_siginfo si;
        struct ts_err err = {0};

        if (poll(&p, 1, 1000) > 0 && read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
            if (si.ssi_signo != SIGHUP)
                return;
        }
        int rotated = 0;

        ts_certsrc_refresh(src, srv, now_ns(), &rotated, &err);
        ts__ca_sync(ca, src, srv, rotated, now_ns()); /* a rotation is written at once */
        ts__ca_inject(ca, ts_certsrc_bundle(src)->ca_cert_pem, now_ns());
    }
}

static int has_flag(int argc, char **argv, const char *flag)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], flag) == 0)
            return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    struct flags f = {0};
    struct ts_err err = {0};
    struct ts_certsrc *src = NULL;
    struct ts_httpd_server *srv = NULL;
    struct ts_webhook *wh;
    struct ts__ca_injector *ca;
    sigset_t mask;
    int sfd;

    ts_alloc_init();
    ts_httpd_raise_file_limit();
    if (!has_flag(argc, argv, "--webhook-only"))
        return ts__turnstile_controller_main(argc, argv);
    ts_whserver_options_init(&f.srv);
    ts_certsrc_options_init(&f.certs);
    ts_webhook_options_init(&f.wh);
    f.srv.health_port = TS_WHSERVER_DEFAULT_HEALTH_PORT;
    f.secret = TS_CERT_DEFAULT_SECRET;
    f.secret_sync_s = 10;
    f.certs.cert.namespace_ = f.wh.system_namespace;
    ts_config_init(&f.config);
    if (parse_flags(argc, argv, &f)) {
        ts_config_release(&f.config);
        return 2;
    }
    sigemptyset(&mask);
    sigaddset(&mask, SIGTERM), sigaddset(&mask, SIGINT), sigaddset(&mask, SIGHUP);
    sigprocmask(SIG_BLOCK, &mask, NULL);
    sfd = signalfd(-1, &mask, SFD_CLOEXEC);
    wh = ts_webhook_new(&f.wh);
    if (ts_certsrc_open(&f.certs, now_ns(), &src, &err))
        ts_fatal("main", "%s", err.msg);
    ca = f.certs.internal
             ? ts__ca_injector_new(f.kubeconfig, f.certs.cert.namespace_, f.secret, f.secret_sync_s)
             : NULL;
    ts__ca_sync(ca, src, NULL, 1, now_ns()); /* serve the replicas' shared certificate */
    if (ts_whserver_start(wh, &f.srv, ts_certsrc_bundle(src)->cert_pem,
                          ts_certsrc_bundle(src)->key_pem, &srv, &err))
        ts_fatal("main", "%s", err.msg);
    if (f.configs_out && write_configs(&f, src, ts_httpd_server_port(srv)))
        ts_fatal("main", "cannot write '%s'", f.configs_out);
    ts_log_info("main", "webhook serving port=%d health_port=%d internal_certs=%d",
                ts_httpd_server_port(srv), ts_httpd_server_health_port(srv), f.certs.internal);
    ts__ca_inject(ca, ts_certsrc_bundle(src)->ca_cert_pem, now_ns());
    run(sfd, src, srv, ca);
    ts__ca_injector_free(ca);
    ts_log_info("main", "shutting down");
    ts_httpd_server_free(srv);
    ts_certsrc_free(src);
    ts_webhook_free(wh);
    ts_config_release(&f.config);
    close(sfd);
    return 0;
}
