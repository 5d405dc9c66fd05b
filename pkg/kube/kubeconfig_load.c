/*
 * kubeconfig_load.c - the search order of kubeconfig.h and the in-cluster
 * configuration (service account token, CA, namespace).
 */
#include "kube/kubeconfig.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/buf.h"

static int read_small(const char *path, char **out, size_t *len)
{
    struct ts_buf b;
    char chunk[4096];
    size_t n;
    FILE *f = fopen(path, "r");

    if (!f)
        return TS_EIO;
    ts_buf_init(&b, 1 << 20);
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
        if (ts_buf_add(&b, chunk, n)) {
            fclose(f);
            ts_buf_release(&b);
            return TS_EOVERFLOW;
        }
    }
    fclose(f);
    if (len)
        *len = b.len;
    *out = ts_buf_take(&b);
    return 0;
}

static char *trimmed(char *s)
{
    size_t n = strlen(s);

    while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' '))
        s[--n] = '\0';
    return s;
}

static int sa_file(const char *dir, const char *name, struct ts_buf *path)
{
    ts_buf_reset(path);
    ts_buf_addf(path, "%s/%s", dir, name);
    return access(path->ptr, R_OK);
}

int ts_kubeconfig_in_cluster(const char *sa_dir, const char *host, const char *port,
                             struct ts_kubeconfig *out, struct ts_err *err)
{
    struct ts_buf p = TS_BUF_INIT;
    char *ns = NULL;
    int rc = 0;

    memset(out, 0, sizeof(*out));
    if (!host || !host[0] || !port || !port[0])
        return ts_err_set(err, TS_ENOTFOUND,
                          "not in a cluster: KUBERNETES_SERVICE_HOST and "
                          "KUBERNETES_SERVICE_PORT must be set");
    if (sa_file(sa_dir, "token", &p)) {
        rc = ts_err_set(err, TS_EIO, "in-cluster: cannot read '%s': %s", p.ptr, strerror(errno));
        goto out;
    }
    out->token_file = ts_xstrdup(p.ptr);
    if (!sa_file(sa_dir, "ca.crt", &p))
        out->ca_file = ts_xstrdup(p.ptr);
    if (!sa_file(sa_dir, "namespace", &p) && !read_small(p.ptr, &ns, NULL))
        out->namespace = ts_xstrdup(trimmed(ns));
    if (!out->namespace || !out->namespace[0]) {
        free(out->namespace);
        out->namespace = ts_xstrdup("default");
    }
    ts_buf_reset(&p);
    /* an IPv6 service host needs brackets in a URL */
    ts_buf_addf(&p, strchr(host, ':') ? "https://[%s]:%s" : "https://%s:%s", host, port);
    out->server = ts_buf_take(&p);
    out->source = ts_xstrdup("in-cluster");
    out->context = ts_xstrdup("");
    out->in_cluster = 1;
out:
    free(ns);
    ts_buf_release(&p);
    return rc;
}

static const char *env_or(const char *override, const char *name)
{
    return override ? override : getenv(name);
}

/* Splits $KUBECONFIG on ':' into files that exist, without duplicates. */
static void split_env(const char *v, struct ts_strlist *files)
{
    const char *p = v;

    while (p && *p) {
        const char *end = strchr(p, ':');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        char *f = ts_xstrndup(p, n);

        if (n && access(f, F_OK) == 0 && ts_strlist_index(files, f) < 0)
            ts_strlist_push(files, f);
        free(f);
        p = end ? end + 1 : NULL;
    }
}

static int load_list(const struct ts_strlist *files, const char *ctx, struct ts_kubeconfig *out,
                     struct ts_err *err)
{
    return ts_kubeconfig_load_files((const char *const *)files->items, files->n, ctx, out, err);
}

static int load_home(const struct ts_kubeconfig_opts *o, struct ts_kubeconfig *out,
                     struct ts_err *err)
{
    const char *home = env_or(o->home, "HOME");
    struct ts_buf path = TS_BUF_INIT;
    const char *files[1];
    int rc;

    ts_buf_addf(&path, "%s/.kube/config", home ? home : "");
    if (!home || access(path.ptr, F_OK) != 0) {
        rc = ts_err_set(err, TS_ENOTFOUND,
                        "no configuration: no --kubeconfig, $KUBECONFIG, in-cluster service "
                        "account or '%s'",
                        path.ptr);
    } else {
        files[0] = path.ptr;
        rc = ts_kubeconfig_load_files(files, 1, o->context, out, err);
    }
    ts_buf_release(&path);
    return rc;
}

int ts_kubeconfig_load(const struct ts_kubeconfig_opts *o, struct ts_kubeconfig *out,
                       struct ts_err *err)
{
    struct ts_strlist files = TS_STRLIST_INIT;
    const char *env = env_or(o->env_kubeconfig, "KUBECONFIG");
    const char *host = env_or(o->service_host, "KUBERNETES_SERVICE_HOST");
    const char *sa = o->sa_dir ? o->sa_dir : TS_KUBECONFIG_SA_DIR;
    struct ts_buf tok = TS_BUF_INIT;
    int rc;

    memset(out, 0, sizeof(*out));
    if (o->path) {
        if (access(o->path, F_OK) != 0)
            return ts_err_set(err, TS_EIO, "kubeconfig '%s': %s", o->path, strerror(errno));
        return ts_kubeconfig_load_files(&o->path, 1, o->context, out, err);
    }
    split_env(env, &files);
    ts_buf_addf(&tok, "%s/token", sa);
    if (files.n)
        rc = load_list(&files, o->context, out, err);
    else if (host && host[0] && access(tok.ptr, F_OK) == 0 && !o->context)
        rc = ts_kubeconfig_in_cluster(sa, host, env_or(o->service_port, "KUBERNETES_SERVICE_PORT"),
                                      out, err);
    else
        rc = load_home(o, out, err);
    ts_strlist_release(&files);
    ts_buf_release(&tok);
    return rc;
}

static void exec_free(struct ts_kube_exec *x)
{
    if (!x)
        return;
    free(x->api_version);
    free(x->command);
    ts_strlist_release(&x->args);
    ts_strlist_release(&x->env);
    free(x->interactive_mode);
    free(x->install_hint);
    free(x);
}

void ts_kubeconfig_release(struct ts_kubeconfig *c)
{
    char **strs[] = {&c->source,          &c->context,   &c->cluster_name, &c->user_name,
                     &c->namespace,       &c->server,    &c->ca_file,      &c->ca_data,
                     &c->tls_server_name, &c->proxy_url, &c->token,        &c->token_file,
                     &c->cert_file,       &c->key_file,  &c->cert_data,    &c->key_data,
                     &c->username,        &c->password};

    if (!c)
        return;
    for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
        free(*strs[i]);
    exec_free(c->exec);
    memset(c, 0, sizeof(*c));
}
