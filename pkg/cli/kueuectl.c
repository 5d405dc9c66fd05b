/*
 * kueuectl.c - `kubectl kueue` (see kueuectl.h): the command line as
 * cobra/pflag parse it for kueuectl (cmd/kueuectl/app), the kube client,
 * and the printers every command shares.
 */
#include "cli/kueuectl.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli/kueuectl_int.h"
#include "json/json.h"
#include "kube/client.h"
#include "kube/kubeconfig.h"
#include "kube/loop.h"
#include "util/buf.h"
#include "yaml/yaml.h"

#define USAGE                                                                                      \
    "kubectl kueue controls Kueue queueing manager (Turnstile's kueuectl)\n"                       \
    "\n"                                                                                           \
    "Usage:\n"                                                                                     \
    "  kubectl kueue [command]\n"                                                                  \
    "\n"                                                                                           \
    "Available Commands:\n"                                                                        \
    "  create      Create a resource (localqueue, resourceflavor)\n"                               \
    "  list        Display resources (clusterqueue, localqueue, workload, resourceflavor)\n"       \
    "  resume      Resume the resource (workload, localqueue, clusterqueue)\n"                     \
    "  stop        Stop the resource (workload, localqueue, clusterqueue)\n"                       \
    "  version     Prints the client version and the kueue controller manager image, if "          \
    "installed\n"                                                                                  \
    "\n"                                                                                           \
    "Flags: --kubeconfig FILE, --context NAME, -n/--namespace NS\n"

/* The flags; `cmds` says which commands take each one. */
enum {
    C_LIST_CQ = 1 << 0,
    C_LIST_LQ = 1 << 1,
    C_LIST_WL = 1 << 2,
    C_LIST_RF = 1 << 3,
    C_STOP_WL = 1 << 4,
    C_STOP_Q = 1 << 5, /* stop localqueue|clusterqueue */
    C_RESUME = 1 << 6,
    C_CREATE_LQ = 1 << 7,
    C_CREATE_RF = 1 << 8,
    C_VERSION = 1 << 9,
    C_LIST = C_LIST_CQ | C_LIST_LQ | C_LIST_WL | C_LIST_RF,
    C_WRITE = C_STOP_WL | C_STOP_Q | C_RESUME | C_CREATE_LQ | C_CREATE_RF,
    C_ALL = C_LIST | C_WRITE | C_VERSION,
};

enum ftype { F_BOOL = 0, F_STR, F_ARR };

struct flag {
    const char *name;
    char shorthand;
    enum ftype type;
    unsigned cmds;
};

static const struct flag flags[] = {
    {"kubeconfig", 0, F_STR, C_ALL},
    {"context", 0, F_STR, C_ALL},
    {"namespace", 'n', F_STR, C_ALL},
    {"output", 'o', F_STR, C_LIST | C_WRITE},
    {"all-namespaces", 'A', F_BOOL, C_LIST_LQ | C_LIST_WL},
    {"selector", 'l', F_STR, C_LIST},
    {"field-selector", 0, F_STR, C_LIST},
    {"clusterqueue", 'c', F_STR, C_LIST_LQ | C_LIST_WL | C_CREATE_LQ},
    {"localqueue", 'q', F_STR, C_LIST_WL},
    {"status", 0, F_ARR, C_LIST_WL},
    {"for", 0, F_STR, C_LIST_WL},
    {"active", 0, F_ARR, C_LIST_CQ},
    {"dry-run", 0, F_STR, C_WRITE},
    {"keep-already-running", 0, F_BOOL, C_STOP_Q},
    {"ignore-unknown-cq", 'i', F_BOOL, C_CREATE_LQ},
    {"node-labels", 0, F_ARR, C_CREATE_RF},
    {"node-taints", 0, F_ARR, C_CREATE_RF},
    {"tolerations", 0, F_ARR, C_CREATE_RF},
};

static void append(const char **arr, size_t *n, size_t cap, const char *v)
{
    if (*n < cap)
        arr[(*n)++] = v;
}

/* Stores one flag's value in o. */
static void store(struct ts__kctl_opts *o, const struct flag *f, const char *v)
{
    const char *name = f->name;

#define IS(s) (!strcmp(name, s))
    if (IS("kubeconfig"))
        o->kubeconfig = v;
    else if (IS("context"))
        o->context = v;
    else if (IS("namespace"))
        o->ns = v;
    else if (IS("output"))
        o->output = v;
    else if (IS("all-namespaces"))
        o->all_ns = strcmp(v, "false") != 0;
    else if (IS("selector"))
        o->selector = v;
    else if (IS("field-selector"))
        o->field_selector = v;
    else if (IS("clusterqueue"))
        o->cq = v;
    else if (IS("localqueue"))
        o->lq = v;
    else if (IS("status"))
        append(o->status, &o->n_status, 8, v);
    else if (IS("for"))
        o->for_obj = v;
    else if (IS("active"))
        append(o->active, &o->n_active, 4, v);
    else if (IS("dry-run"))
        o->dry_run = v;
    else if (IS("keep-already-running"))
        o->keep_running = strcmp(v, "false") != 0;
    else if (IS("ignore-unknown-cq"))
        o->ignore_unknown_cq = strcmp(v, "false") != 0;
    else if (IS("node-labels"))
        append(o->node_labels, &o->n_node_labels, 16, v);
    else if (IS("node-taints"))
        append(o->node_taints, &o->n_node_taints, 16, v);
    else if (IS("tolerations"))
        append(o->tolerations, &o->n_tolerations, 16, v);
#undef IS
}

static const struct flag *find_flag(const char *a, const char **inline_val)
{
    *inline_val = NULL;
    for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
        size_t n = strlen(flags[i].name);

        if (a[1] == '-' && !strncmp(a + 2, flags[i].name, n) && (!a[2 + n] || a[2 + n] == '=')) {
            *inline_val = a[2 + n] ? a + 3 + n : NULL;
            return &flags[i];
        }
        if (a[1] != '-' && flags[i].shorthand && a[1] == flags[i].shorthand) {
            *inline_val = a[2] ? a + 2 + (a[2] == '=') : NULL;
            return &flags[i];
        }
    }
    return NULL;
}

/* pflag's parse: flags anywhere, "--f v", "--f=v", "-fv", "-f=v", "--"
 * ends them.  Unknown flags are errors; `used` collects the flags seen. */
static int parse(int argc, char **argv, struct ts__kctl_opts *o, const struct flag **used,
                 size_t *n_used, struct ts_err *err)
{
    int dashdash = 0;

    memset(o, 0, sizeof(*o));
    *n_used = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v;
        const struct flag *f;

        if (dashdash || a[0] != '-' || !a[1]) {
            append(o->args, &o->n_args, 4, a);
            continue;
        }
        if (!strcmp(a, "--")) {
            dashdash = 1;
            continue;
        }
        if (!(f = find_flag(a, &v)))
            return ts_err_set(err, TS_EINVAL, "unknown %s: %s",
                              a[1] == '-' ? "flag" : "shorthand flag", a);
        if (!v && f->type != F_BOOL) {
            if (i + 1 >= argc)
                return ts_err_set(err, TS_EINVAL, "flag needs an argument: %s", a);
            v = argv[++i];
        }
        store(o, f, v ? v : "true");
        if (*n_used < 32)
            used[(*n_used)++] = f;
    }
    return 0;
}

static int is(const char *s, const char *names)
{
    char key[64];

    snprintf(key, sizeof(key), " %s ", s);
    return strstr(names, key) != NULL;
}

static int kind_of(const char *s, enum ts__kctl_kind *k)
{
    if (is(s, " clusterqueue cq "))
        *k = TS__KCTL_CQ;
    else if (is(s, " localqueue lq "))
        *k = TS__KCTL_LQ;
    else if (is(s, " workload kwl kueueworkload kueueworkloads "))
        *k = TS__KCTL_WL;
    else if (is(s, " resourceflavor rf "))
        *k = TS__KCTL_RF;
    else
        return -1;
    return 0;
}

/* The command bit of verb + kind, or 0 when kueuectl has no such command
 * (or Turnstile does not have it yet: *missing then names it). */
static unsigned command(const char *verb, const char *kind_s, enum ts__kctl_kind kind)
{
    static const unsigned list[] = {C_LIST_CQ, C_LIST_LQ, C_LIST_WL, C_LIST_RF};

    if (!strcmp(verb, "list"))
        return list[kind];
    if (!strcmp(verb, "stop") && kind != TS__KCTL_RF)
        return kind == TS__KCTL_WL ? C_STOP_WL : C_STOP_Q;
    if (!strcmp(verb, "resume") && kind != TS__KCTL_RF)
        return C_RESUME;
    if (!strcmp(verb, "create") && (kind == TS__KCTL_LQ || kind == TS__KCTL_RF) &&
        strcmp(kind_s, "kwl"))
        return kind == TS__KCTL_LQ ? C_CREATE_LQ : C_CREATE_RF;
    return 0;
}

int ts__kctl_fail(struct ts__kctl *k, const char *fmt, ...)
{
    va_list ap;

    fputs("Error: ", k->err);
    va_start(ap, fmt);
    vfprintf(k->err, fmt, ap);
    va_end(ap);
    fputc('\n', k->err);
    return 1;
}

struct call {
    int done, code;
    cJSON *obj;
    char *msg;
    size_t len;
};

static void call_done(struct ts_kube_client *c, struct ts_kube_result *res, void *data)
{
    struct call *s = data;

    (void)c;
    s->done = 1;
    s->code = res->code;
    s->obj = res->obj;
    res->obj = NULL;
    if (res->code && s->msg)
        snprintf(s->msg, s->len, "%s",
                 res->status.message && *res->status.message ? res->status.message : res->err.msg);
}

int ts__kctl_call(struct ts__kctl *k, const struct ts_kube_req *r, cJSON **out, char *msg,
                  size_t len)
{
    struct call s = {0, 0, NULL, msg, len};
    struct ts_kube_call *call = NULL;
    struct ts_loop *loop = ts_kube_client_loop(k->c);
    struct ts_err e = {0};
    int rc = r->verb == TS_KUBE_LIST ? ts_kube_list_all(k->c, r, call_done, &s, &call, &e)
                                     : ts_kube_submit(k->c, r, call_done, &s, &call, &e);

    if (out)
        *out = NULL;
    if (rc)
        return snprintf(msg, len, "%s", e.msg), rc;
    while (!s.done && !ts_loop_stopped(loop))
        ts_loop_run_once(loop, -1);
    if (!s.done) {
        ts_kube_cancel(call);
        return snprintf(msg, len, "interrupted"), TS_ECANCELED;
    }
    if (out)
        *out = s.obj;
    else
        cJSON_Delete(s.obj);
    return s.code;
}

/* kubectl's template printers, in the order its error lists them. */
#define TEMPLATE_FORMATS                                                                           \
    "go-template,go-template-file,template,templatefile,jsonpath,jsonpath-as-json,jsonpath-file"

static int is_template(const char *o)
{
    const char *p = TEMPLATE_FORMATS;
    size_t n = strlen(o);

    for (; p; p = strchr(p, ','), p = p ? p + 1 : NULL)
        if (!strncmp(p, o, n) && (p[n] == ',' || !p[n]))
            return 1;
    return 0;
}

int ts__kctl_print_obj(struct ts__kctl *k, const cJSON *obj, const char *kind,
                       const char *operation)
{
    const char *o = k->o.output ? k->o.output : "";
    struct ts_buf b = TS_BUF_INIT;

    if (!strcmp(o, "yaml") || !strcmp(o, "json")) {
        cJSON *copy = cJSON_Duplicate(obj, 1), *it;

        /* kubectl's printers leave managedFields out (--show-managed-fields) */
        cJSON_DeleteItemFromObjectCaseSensitive(ts_json_get(copy, "metadata"), "managedFields");
        cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(copy, "items"))
        {
            cJSON_DeleteItemFromObjectCaseSensitive(ts_json_get(it, "metadata"), "managedFields");
        }
        if (*o == 'y')
            ts_yaml_encode(copy, TS_YAML_SORT_KEYS, &b, NULL);
        else
            ts_json_print(copy, TS_JSON_PRETTY, &b, NULL), ts_buf_addc(&b, '\n');
        cJSON_Delete(copy);
    } else if (!*o || !strcmp(o, "name"))
        ts_buf_addf(&b, "%s.kueue.x-k8s.io/%s%s%s\n", kind,
                    ts_json_get_string(obj, "metadata.name"), *o || !*operation ? "" : " ",
                    *o ? "" : operation);
    else if (is_template(o)) {
        ts_buf_release(&b);
        return ts__kctl_fail(k, "turnstile: -o %s is not implemented yet", o);
    } else {
        ts_buf_release(&b);
        return ts__kctl_fail(k,
                             "unable to match a printer suitable for the output format \"%s\", "
                             "allowed formats are: json,yaml,name,%s",
                             o, TEMPLATE_FORMATS);
    }
    fputs(b.ptr, k->out);
    ts_buf_release(&b);
    return 0;
}

static const struct ts_kube_resource deployments = {"apps", "v1", "deployments", "Deployment", 1};

/* version: the client's version and, when Kueue's Deployment is there,
 * its manager image (cmd/kueuectl/app/version/version.go). */
static int version(struct ts__kctl *k)
{
    struct ts_kube_req r = {.verb = TS_KUBE_GET,
                            .res = &deployments,
                            .ns = "kueue-system",
                            .name = "kueue-controller-manager"};
    const cJSON *c;
    cJSON *d = NULL;
    char msg[512];
    int rc;

    fprintf(k->out, "Client Version: v%s\n", TS_VERSION);
    rc = ts__kctl_call(k, &r, &d, msg, sizeof(msg));
    if (rc && rc != TS_ENOTFOUND)
        return ts__kctl_fail(k, "%s", msg);
    cJSON_ArrayForEach(c, ts_json_get(d, "spec.template.spec.containers"))
    {
        const char *name = ts_json_get_string(c, "name"), *image = ts_json_get_string(c, "image");

        if (name && !strcmp(name, "manager")) {
            fprintf(k->out, "Kueue Controller Manager Image: %s\n", image ? image : "");
            break;
        }
    }
    cJSON_Delete(d);
    return 0;
}

static int run(struct ts__kctl *k, const char *verb, enum ts__kctl_kind kind)
{
    if (!strcmp(verb, "version"))
        return version(k);
    if (!strcmp(verb, "list"))
        return ts__kctl_list(k, kind);
    if (!strcmp(verb, "create"))
        return ts__kctl_create(k, kind);
    return ts__kctl_stop_resume(k, kind, !strcmp(verb, "stop"));
}

/* Loads the kubeconfig, connects and runs the command. */
static int connect_and_run(struct ts__kctl *k, const char *verb, enum ts__kctl_kind kind)
{
    struct ts_kubeconfig_opts ko = {0};
    struct ts_kube_client_opts co = {0};
    struct ts_kubeconfig cfg;
    struct ts_loop *loop = NULL;
    struct ts_err e = {0};
    int rc = 1;

    memset(&cfg, 0, sizeof(cfg));
    ko.path = k->o.kubeconfig;
    ko.context = k->o.context;
    co.qps = -1;
    if (ts_kubeconfig_load(&ko, &cfg, &e) || !(loop = ts_loop_new()) ||
        !(k->c = ts_kube_client_new(loop, &cfg, &co, &e))) {
        ts__kctl_fail(k, "%s", e.msg[0] ? e.msg : "cannot create the event loop");
    } else {
        k->ns = k->o.ns ? k->o.ns : cfg.namespace;
        rc = run(k, verb, kind);
    }
    ts_kube_client_free(k->c);
    ts_loop_free(loop);
    ts_kubeconfig_release(&cfg);
    return rc;
}

/* Checks that every flag given belongs to the command. */
static int check_flags(struct ts__kctl *k, unsigned cmd, const struct flag **used, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!(used[i]->cmds & cmd))
            return ts__kctl_fail(k, "unknown flag: --%s", used[i]->name);
    return 0;
}

int ts_cli_kueuectl(int argc, char **argv, FILE *out, FILE *err)
{
    struct ts__kctl k = {.out = out, .err = err};
    const struct flag *used[32];
    enum ts__kctl_kind kind = TS__KCTL_CQ;
    struct ts_err e = {0};
    const char *verb;
    unsigned cmd;
    size_t n_used;

    if (parse(argc, argv, &k.o, used, &n_used, &e))
        return ts__kctl_fail(&k, "%s", e.msg);
    verb = k.o.n_args ? k.o.args[0] : "";
    if (!*verb || !strcmp(verb, "help"))
        return fputs(USAGE, out), 0;
    if (!strcmp(verb, "version")) {
        cmd = C_VERSION;
    } else if (!is(verb, " list stop resume create ")) {
        return ts__kctl_fail(&k, "unknown command \"%s\" for \"kueuectl\"", verb);
    } else if (k.o.n_args < 2 || kind_of(k.o.args[1], &kind)) {
        if (k.o.n_args >= 2 && (!strcmp(k.o.args[1], "pods") || !strcmp(k.o.args[1], "pod")))
            return ts__kctl_fail(&k, "turnstile: `%s pods` is not implemented yet", verb);
        if (k.o.n_args < 2)
            return fputs(USAGE, out), 0;
        return ts__kctl_fail(&k, "unknown command \"%s\" for \"kueuectl %s\"", k.o.args[1], verb);
    } else if (!(cmd = command(verb, k.o.args[1], kind))) {
        return ts__kctl_fail(&k, "turnstile: `%s %s` is not implemented yet", verb, k.o.args[1]);
    }
    if (check_flags(&k, cmd, used, n_used))
        return 1;
    if (cmd & C_WRITE && k.o.n_args != 3)
        return ts__kctl_fail(&k, "accepts 1 arg(s), received %zu", k.o.n_args - 2);
    if (cmd & (C_LIST | C_VERSION) && k.o.n_args > (cmd == C_VERSION ? 1u : 2u))
        return ts__kctl_fail(&k, "unknown command \"%s\" for \"kueuectl %s%s%s\"",
                             k.o.args[cmd == C_VERSION ? 1 : 2], verb, cmd == C_VERSION ? "" : " ",
                             cmd == C_VERSION ? "" : k.o.args[1]);
    if (!k.o.dry_run)
        k.o.dry_run = "none";
    if (strcmp(k.o.dry_run, "none") && strcmp(k.o.dry_run, "client") &&
        strcmp(k.o.dry_run, "server"))
        return ts__kctl_fail(
            &k, "invalid dry-run value (%s). Must be \"none\", \"server\", or \"client\"",
            k.o.dry_run);
    return connect_and_run(&k, verb, kind);
}

int ts_cli_kueuectl_argv0(const char *argv0)
{
    const char *base = strrchr(argv0 ? argv0 : "", '/');

    base = base ? base + 1 : argv0 ? argv0 : "";
    return !strcmp(base, "kubectl-kueue") || !strcmp(base, "kueuectl");
}
