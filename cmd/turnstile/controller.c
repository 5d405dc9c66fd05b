/* controller.c - `turnstile` without --webhook-only: the controller
 * manager (pkg/controller/manager.h).  Flags follow Kueue's manager:
 * --config FILE (a Kueue Configuration), --kubeconfig, --context,
 * --leader-elect.  The Configuration's metrics.bindAddress,
 * health.healthProbeBindAddress and leaderElection apply unless a flag
 * says otherwise; the fields Turnstile does not honour yet are logged. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/unhonoured.h"
#include "cmd_turnstile.h"
#include "controller/manager.h"
#include "util/buf.h"
#include "util/log.h"
#include "yaml/yaml.h"

#define CTL_USAGE                                                                                  \
    "usage: turnstile [--config FILE] [--kubeconfig FILE] [--context NAME]\n"                      \
    "  [--leader-elect[=true|false]] [--lease-namespace NS] [--identity ID]\n"                     \
    "  [--metrics-bind-address HOST:PORT (default :8443; port 0 picks one; 0 = off)]\n"            \
    "  [--visibility-bind-address HOST:PORT (Kueue's visibility API, TLS; default :8082; 0 = "     \
    "off)]\n"                                                                                      \
    "  [--health-probe-bind-address HOST:PORT (/healthz /readyz; default: the metrics port)]\n"    \
    "  [--log-level LEVEL]\n"                                                                      \
    "  [--queue-status-max-wait SECONDS (a changed queue status waits at most this long for\n"     \
    "   spare client budget; default 30)]\n"                                                       \
    "       turnstile --webhook-only ...   (the webhook server; see --webhook-only --help)\n"

/* Each field of the file Turnstile does not honour yet, in the log. */
static void warn_unhonoured(const char *path, const cJSON *cfg)
{
    struct ts_strlist fields = TS_STRLIST_INIT;

    ts_unhonoured_config_fields(cfg, &fields);
    for (size_t i = 0; i < fields.n; i++)
        ts_log_warn("config", "file=%s field=%s" TS_UNHONOURED_SUFFIX, path, fields.items[i]);
    ts_strlist_release(&fields);
}

int ts__turnstile_load_config(const char *path, struct ts_config *c)
{
    struct ts_yaml_stream st = TS_YAML_STREAM_INIT;
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_err e = {0};
    int rc = 0;

    if (ts_yaml_decode_file(path, &st, &e)) {
        fprintf(stderr, "turnstile: %s\n", e.msg);
        rc = -1;
    } else if (st.n) {
        ts_config_decode(st.docs[0].root, c, &errs);
        if (errs.n) {
            struct ts_buf b = TS_BUF_INIT;

            ts_field_errors_format(&errs, &b);
            fprintf(stderr, "turnstile: %s:%d: %s\n", path,
                    ts_yaml_doc_line(&st.docs[0], errs.items[0].field), b.ptr);
            ts_buf_release(&b);
            rc = -1;
        } else {
            warn_unhonoured(path, st.docs[0].root);
        }
    }
    ts_field_errors_release(&errs);
    ts_yaml_stream_release(&st);
    return rc;
}

/* The Configuration's addresses and leader election, where no flag set
 * them (flags may come before or after --config). */
static void apply_config(struct ts_ctl_opts *o, const struct ts_ctl_opts *flags)
{
    const struct ts_config *c = &o->config;

    if (!flags->metrics_addr && c->metrics_bind_address)
        o->metrics_addr = c->metrics_bind_address;
    if (!flags->health_addr && c->health_probe_bind_address)
        o->health_addr = c->health_probe_bind_address;
    if (!flags->visibility_addr && c->visibility_port) {
        static char vis[16]; /* o keeps a pointer; one configuration per process */

        snprintf(vis, sizeof(vis), ":%d", (int)c->visibility_port);
        o->visibility_addr = vis;
    }
    if (!flags->leader_elect && c->leader_elect.set)
        o->leader_elect = c->leader_elect.v;
    if (!flags->lease_ns && (c->lease_namespace || c->namespace_))
        o->lease_ns = c->lease_namespace ? c->lease_namespace : c->namespace_;
    if (c->lease_name)
        o->lease_name = c->lease_name;
}

static int parse(int argc, char **argv, struct ts_ctl_opts *o)
{
    struct ts_ctl_opts flags = {0}; /* which flags were given */

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *eq = strchr(a, '=');
        size_t n = eq ? (size_t)(eq - a) : strlen(a);
        const char *v = eq ? eq + 1 : (i + 1 < argc ? argv[i + 1] : NULL);

#define IS(name) (n == strlen(name) && strncmp(a, name, n) == 0)
        if (IS("--leader-elect")) {
            o->leader_elect = !eq || strcmp(v, "false") != 0;
            flags.leader_elect = 1;
            continue;
        }
        if (IS("-h") || IS("--help"))
            return fputs(CTL_USAGE, stdout), 1;
        if (!v)
            goto bad;
        if (IS("--config")) {
            if (ts__turnstile_load_config(v, &o->config))
                return -1;
        } else if (IS("--kubeconfig"))
            o->kubeconfig = v;
        else if (IS("--context"))
            o->context = v;
        else if (IS("--lease-namespace"))
            o->lease_ns = flags.lease_ns = v;
        else if (IS("--identity"))
            o->identity = v;
        else if (IS("--metrics-bind-address"))
            o->metrics_addr = flags.metrics_addr = v;
        else if (IS("--health-probe-bind-address"))
            o->health_addr = flags.health_addr = v;
        else if (IS("--visibility-bind-address"))
            o->visibility_addr = flags.visibility_addr = v;
        else if (IS("--queue-status-max-wait")) {
            char *end;
            long s = strtol(v, &end, 10);

            if (end == v || (*end && strcmp(end, "s")) || s <= 0 || s > 86400)
                goto bad;
            o->status_max_wait_ns = (int64_t)s * 1000000000;
        } else if (IS("--log-level")) {
            enum ts_log_level l;

            if (ts_log_parse_level(v, &l))
                goto bad;
            ts_log_set_level(l);
        } else
            goto bad;
#undef IS
        if (!eq)
            i++;
        continue;
    bad:
        fprintf(stderr, "turnstile: bad flag '%s'\n%s", a, CTL_USAGE);
        return -1;
    }
    apply_config(o, &flags);
    return 0;
}

int ts__turnstile_controller_main(int argc, char **argv)
{
    struct ts_ctl_opts o;
    struct ts_err err = {0};
    struct ts_ctl *c;
    int rc;

    ts_ctl_opts_init(&o);
    rc = parse(argc, argv, &o);
    if (rc) {
        ts_config_release(&o.config);
        return rc < 0 ? 2 : 0;
    }
    c = ts_ctl_new(&o, &err);
    if (!c) {
        fprintf(stderr, "turnstile: %s\n", err.msg);
        ts_config_release(&o.config);
        return 1;
    }
    rc = ts_ctl_run(c, &err);
    if (rc)
        fprintf(stderr, "turnstile: %s\n", err.msg);
    ts_ctl_free(c);
    ts_config_release(&o.config);
    ts_log_info("main", "stopped");
    return rc ? 1 : 0;
}
