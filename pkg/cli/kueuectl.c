/*
 * kueuectl.c - `kubectl kueue` (see kueuectl.h): the command line as
 * cobra/pflag parse it for kueuectl (cmd/kueuectl/app), the kube client,
 * and the printers every command shares.
 */
#include "cli/kueuectl.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/kueuectl_int.h"
#include "json/json.h"
#include "kube/client.h"
#include "kube/kubeconfig.h"
#include "kube/loop.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "yaml/yaml.h"

#define USAGE                                                                                      \
    "kubectl kueue controls Kueue queueing manager (Turnstile's kueuectl)\n"                       \
    "\n"                                                                                           \
    "Usage:\n"                                                                                     \
    "  kubectl kueue [command]\n"                                                                  \
    "\n"                                                                                           \
    "Available Commands:\n"                                                                        \
    "  completion  Generate the autocompletion script for the specified shell\n"                   \
    "  create      Create a resource (clusterqueue, localqueue, resourceflavor)\n"                 \
    "  delete      Delete a resource (workload: its Job too; others through kubectl)\n"            \
    "  describe    Show details of a resource (through kubectl)\n"                                 \
    "  edit        Edit a resource on the server (through kubectl)\n"                              \
    "  get         Display a resource (through kubectl)\n"                                         \
    "  list        Display resources (clusterqueue, localqueue, workload, resourceflavor, pods)\n" \
    "  patch       Update fields of a resource (through kubectl)\n"                                \
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
    C_CREATE_CQ = 1 << 10,
    C_DELETE_WL = 1 << 11,
    C_LIST_PODS = 1 << 12,
    C_COMPLETION = 1 << 13,
    C_LIST = C_LIST_CQ | C_LIST_LQ | C_LIST_WL | C_LIST_RF,
    C_CREATE = C_CREATE_LQ | C_CREATE_RF | C_CREATE_CQ,
    C_WRITE = C_STOP_WL | C_STOP_Q | C_RESUME | C_CREATE,
    C_ALL = C_LIST | C_WRITE | C_VERSION | C_DELETE_WL | C_LIST_PODS | C_COMPLETION,
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
    {"output", 'o', F_STR, C_LIST | C_WRITE | C_LIST_PODS},
    {"all-namespaces", 'A', F_BOOL, C_LIST_LQ | C_LIST_WL | C_LIST_PODS | C_DELETE_WL},
    {"selector", 'l', F_STR, C_LIST | C_LIST_PODS},
    {"field-selector", 0, F_STR, C_LIST | C_LIST_PODS},
    {"clusterqueue", 'c', F_STR, C_LIST_LQ | C_LIST_WL | C_CREATE_LQ},
    {"localqueue", 'q', F_STR, C_LIST_WL},
    {"status", 0, F_ARR, C_LIST_WL},
    {"for", 0, F_STR, C_LIST_WL | C_LIST_PODS},
    {"active", 0, F_ARR, C_LIST_CQ},
    {"dry-run", 0, F_STR, C_WRITE | C_DELETE_WL},
    {"keep-already-running", 0, F_BOOL, C_STOP_Q},
    {"ignore-unknown-cq", 'i', F_BOOL, C_CREATE_LQ},
    {"node-labels", 0, F_ARR, C_CREATE_RF},
    {"node-taints", 0, F_ARR, C_CREATE_RF},
    {"tolerations", 0, F_ARR, C_CREATE_RF},
    {"cohort", 0, F_STR, C_CREATE_CQ},
    {"queuing-strategy", 0, F_STR, C_CREATE_CQ},
    {"namespace-selector", 0, F_ARR, C_CREATE_CQ},
    {"reclaim-within-cohort", 0, F_STR, C_CREATE_CQ},
    {"preemption-within-cluster-queue", 0, F_STR, C_CREATE_CQ},
    {"nominal-quota", 0, F_ARR, C_CREATE_CQ},
    {"borrowing-limit", 0, F_ARR, C_CREATE_CQ},
    {"lending-limit", 0, F_ARR, C_CREATE_CQ},
    {"yes", 'y', F_BOOL, C_DELETE_WL},
    {"all", 0, F_BOOL, C_DELETE_WL},
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
    else if (IS("cohort"))
        o->cohort = v;
    else if (IS("queuing-strategy"))
        o->queuing_strategy = v;
    else if (IS("namespace-selector"))
        append(o->ns_selector, &o->n_ns_selector, 16, v);
    else if (IS("reclaim-within-cohort"))
        o->reclaim = v;
    else if (IS("preemption-within-cluster-queue"))
        o->within_cq = v;
    else if (IS("nominal-quota"))
        append(o->nominal, &o->n_nominal, 16, v);
    else if (IS("borrowing-limit"))
        append(o->borrowing, &o->n_borrowing, 16, v);
    else if (IS("lending-limit"))
        append(o->lending, &o->n_lending, 16, v);
    else if (IS("yes"))
        o->yes = strcmp(v, "false") != 0;
    else if (IS("all"))
        o->all = strcmp(v, "false") != 0;
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
            append(o->args, &o->n_args, 64, a);
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

int ts__kctl_flag_takes_value(const char *arg)
{
    const char *v;
    const struct flag *f = arg[0] == '-' ? find_flag(arg, &v) : NULL;

    return f && f->type != F_BOOL;
}

void ts__kctl_lenient_parse(int argc, char **argv, struct ts__kctl_opts *o)
{
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v;
        const struct flag *f = a[0] == '-' && a[1] ? find_flag(a, &v) : NULL;

        if (!f)
            continue;
        if (!v && f->type != F_BOOL && i + 1 < argc)
            v = argv[++i];
        store(o, f, v ? v : "true");
    }
}

static int is(const char *s, const char *names)
{
    char key[64];

    snprintf(key, sizeof(key), " %s ", s);
    return strstr(names, key) != NULL;
}

int ts__kctl_kind_of(const char *s, enum ts__kctl_kind *k)
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

/* The command bit of verb + kind, or 0 when kueuectl has no such command. */
static unsigned command(const char *verb, const char *kind_s, enum ts__kctl_kind kind)
{
    static const unsigned list[] = {C_LIST_CQ, C_LIST_LQ, C_LIST_WL, C_LIST_RF};
    static const unsigned create[] = {C_CREATE_CQ, C_CREATE_LQ, 0, C_CREATE_RF};

    if (!strcmp(verb, "list"))
        return list[kind];
    if (!strcmp(verb, "stop") && kind != TS__KCTL_RF)
        return kind == TS__KCTL_WL ? C_STOP_WL : C_STOP_Q;
    if (!strcmp(verb, "resume") && kind != TS__KCTL_RF)
        return C_RESUME;
    if (!strcmp(verb, "create") && strcmp(kind_s, "kwl"))
        return create[kind];
    if (!strcmp(verb, "delete") && kind == TS__KCTL_WL)
        return C_DELETE_WL;
    return 0;
}

int ts__kctl_complete_flags(const char *verb, const char *kind_s, const char *prefix, FILE *out)
{
    enum ts__kctl_kind kind = TS__KCTL_CQ;
    unsigned cmd = 0;

    if (!strcmp(verb, "version"))
        cmd = C_VERSION;
    else if (!strcmp(verb, "list") && is(kind_s, " pods pod po "))
        cmd = C_LIST_PODS;
    else if (*kind_s && !ts__kctl_kind_of(kind_s, &kind))
        cmd = command(verb, kind_s, kind);
    for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
        char name[64];

        snprintf(name, sizeof(name), "--%s", flags[i].name);
        if ((flags[i].cmds & cmd || flags[i].cmds == C_ALL) &&
            !strncmp(name, prefix, strlen(prefix)))
            fprintf(out, "%s\n", name);
    }
    return 4; /* ShellCompDirectiveNoFileComp */
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

static int run(struct ts__kctl *k, unsigned cmd, enum ts__kctl_kind kind)
{
    const char *verb = k->o.args[0];

    if (cmd == C_VERSION)
        return version(k);
    if (cmd == C_DELETE_WL)
        return ts__kctl_delete_workloads(k);
    if (cmd == C_LIST_PODS)
        return ts__kctl_list_pods(k);
    if (!strcmp(verb, "list"))
        return ts__kctl_list(k, kind);
    if (!strcmp(verb, "create"))
        return ts__kctl_create(k, kind);
    return ts__kctl_stop_resume(k, kind, !strcmp(verb, "stop"));
}

int ts__kctl_connect(struct ts__kctl *k)
{
    struct ts_kubeconfig_opts ko = {0};
    struct ts_kube_client_opts co = {0};
    struct ts_err e = {0};

    memset(&k->cfg, 0, sizeof(k->cfg));
    ko.path = k->o.kubeconfig;
    ko.context = k->o.context;
    co.qps = -1;
    if (ts_kubeconfig_load(&ko, &k->cfg, &e) || !(k->loop = ts_loop_new()) ||
        !(k->c = ts_kube_client_new(k->loop, &k->cfg, &co, &e))) {
        snprintf(k->conn_err, sizeof(k->conn_err), "%s",
                 e.msg[0] ? e.msg : "cannot create the event loop");
        return -1;
    }
    k->ns = k->o.ns ? k->o.ns : k->cfg.namespace;
    return 0;
}

void ts__kctl_disconnect(struct ts__kctl *k)
{
    ts_kube_client_free(k->c);
    ts_loop_free(k->loop);
    ts_kubeconfig_release(&k->cfg);
    k->c = NULL;
    k->loop = NULL;
}

/* Loads the kubeconfig, connects and runs the command. */
static int connect_and_run(struct ts__kctl *k, unsigned cmd, enum ts__kctl_kind kind)
{
    int rc = ts__kctl_connect(k) ? ts__kctl_fail(k, "%s", k->conn_err) : run(k, cmd, kind);

    ts__kctl_disconnect(k);
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

/* The verb and kind words of argv: the first two words that are neither
 * flags nor the values of flags that take one. */
static void words(int argc, char **argv, const char **verb, const char **kind)
{
    *verb = *kind = NULL;
    for (int i = 0; i < argc && !*kind; i++) {
        const char *a = argv[i], *v;
        const struct flag *f;

        if (!strcmp(a, "--"))
            break;
        if (a[0] == '-' && a[1]) {
            if ((f = find_flag(a, &v)) && f->type != F_BOOL && !v)
                i++;
            continue;
        }
        if (!*verb)
            *verb = a;
        else
            *kind = a;
    }
}

/* The full resource name of a Kueue kind word of passthrough.go, or NULL. */
static const char *passthrough_resource(const char *verb, const char *kind_s)
{
    static const char *const full[] = {"clusterqueues.kueue.x-k8s.io", "localqueues.kueue.x-k8s.io",
                                       "workloads.kueue.x-k8s.io",
                                       "resourceflavors.kueue.x-k8s.io"};
    enum ts__kctl_kind kind;

    if (!verb || !kind_s || !is(verb, " get describe edit patch delete ") ||
        ts__kctl_kind_of(kind_s, &kind))
        return NULL;
    if (!strcmp(verb, "delete") && kind == TS__KCTL_WL)
        return NULL;
    return full[kind];
}

/* passthrough.go: get|describe|edit|patch|delete KIND ... run as kubectl
 * with the same words, the kind given by its full resource name so that
 * no other API group's kind of the same name is picked.  Returns only on
 * failure. */
static int passthrough(struct ts__kctl *k, int argc, char **argv, const char *kind_s,
                       const char *full)
{
    char **args = ts_xcalloc((size_t)argc + 2, sizeof(*args));
    char kubectl[] = "kubectl", resource[64];
    const char *path = getenv("PATH");

    snprintf(resource, sizeof(resource), "%s", full);
    args[0] = kubectl;
    for (int i = 0; i < argc; i++)
        args[i + 1] = argv[i] == kind_s ? resource : argv[i];
    fflush(k->out);
    fflush(k->err);
    execvp("kubectl", args);
    free(args);
    return ts__kctl_fail(k,
                         "pass-through command are not available: exec: \"kubectl\": executable "
                         "file not found in $PATH, PATH=\"%s\"",
                         path ? path : "");
}

/* The command of the parsed words, 0 with the message printed (or the
 * usage) when there is none. */
static int resolve(struct ts__kctl *k, unsigned *cmd, enum ts__kctl_kind *kind)
{
    const char *verb = k->o.n_args ? k->o.args[0] : "", *kind_s = k->o.args[1];

    if (!strcmp(verb, "version"))
        return *cmd = C_VERSION, 0;
    if (!strcmp(verb, "completion"))
        return *cmd = C_COMPLETION, 0;
    if (!is(verb, " list stop resume create delete get describe edit patch "))
        return ts__kctl_fail(k, "unknown command \"%s\" for \"kueuectl\"", verb);
    if (k->o.n_args >= 2 && !strcmp(verb, "list") && is(kind_s, " pods pod po "))
        return *cmd = C_LIST_PODS, 0;
    if (k->o.n_args < 2 || ts__kctl_kind_of(kind_s, kind) ||
        !(*cmd = command(verb, kind_s, *kind))) {
        if (k->o.n_args < 2 || is(verb, " delete get describe edit patch "))
            return fputs(USAGE, k->out), 1;
        return ts__kctl_fail(k, "unknown command \"%s\" for \"kueuectl %s\"", kind_s, verb);
    }
    return 0;
}

/* The argument counts each command takes (cobra's Args). */
static int check_args(struct ts__kctl *k, unsigned cmd)
{
    size_t n = k->o.n_args;

    if (cmd & C_WRITE && n != 3)
        return ts__kctl_fail(k, "accepts 1 arg(s), received %zu", n - 2);
    if (cmd & (C_LIST | C_VERSION | C_LIST_PODS) && n > (cmd == C_VERSION ? 1u : 2u))
        return ts__kctl_fail(k, "unknown command \"%s\" for \"kueuectl %s%s%s\"",
                             k->o.args[cmd == C_VERSION ? 1 : 2], k->o.args[0],
                             cmd == C_VERSION ? "" : " ", cmd == C_VERSION ? "" : k->o.args[1]);
    if (cmd == C_CREATE_CQ && !*k->o.args[2])
        return ts__kctl_fail(k, "name must be specified");
    return 0;
}

int ts_cli_kueuectl(int argc, char **argv, FILE *out, FILE *err)
{
    struct ts__kctl k = {.out = out, .err = err};
    const struct flag *used[32];
    enum ts__kctl_kind kind = TS__KCTL_CQ;
    struct ts_err e = {0};
    const char *verb, *kind_s, *full;
    unsigned cmd = 0;
    size_t n_used;

    words(argc, argv, &verb, &kind_s);
    if ((full = passthrough_resource(verb, kind_s)))
        return passthrough(&k, argc, argv, kind_s, full);
    if (verb && (!strcmp(verb, "__complete") || !strcmp(verb, "__completeNoDesc")))
        return ts__kctl_complete(&k, argc - 1, argv + 1, !strcmp(verb, "__complete"));
    if (parse(argc, argv, &k.o, used, &n_used, &e))
        return ts__kctl_fail(&k, "%s", e.msg);
    if (!k.o.n_args || !strcmp(k.o.args[0], "help"))
        return fputs(USAGE, out), 0;
    if (resolve(&k, &cmd, &kind))
        return strcmp(k.o.args[0], "list") && k.o.n_args < 2 ? 0 : 1;
    if (check_flags(&k, cmd, used, n_used) || check_args(&k, cmd))
        return 1;
    if (cmd == C_COMPLETION)
        return ts__kctl_completion_script(&k, k.o.n_args > 1 ? k.o.args[1] : NULL);
    if (!k.o.dry_run)
        k.o.dry_run = "none";
    if (strcmp(k.o.dry_run, "none") && strcmp(k.o.dry_run, "client") &&
        strcmp(k.o.dry_run, "server"))
        return ts__kctl_fail(
            &k, "invalid dry-run value (%s). Must be \"none\", \"server\", or \"client\"",
            k.o.dry_run);
    return connect_and_run(&k, cmd, kind);
}

int ts_cli_kueuectl_argv0(const char *argv0)
{
    const char *base = strrchr(argv0 ? argv0 : "", '/');

    base = base ? base + 1 : argv0 ? argv0 : "";
    if (!strcmp(base, "kubectl_complete-kueue"))
        return 2;
    return !strcmp(base, "kubectl-kueue") || !strcmp(base, "kueuectl");
}

int ts_cli_kueuectl_complete(int argc, char **argv, FILE *out, FILE *err)
{
    struct ts__kctl k = {.out = out, .err = err};

    return ts__kctl_complete(&k, argc, argv, 1);
}
