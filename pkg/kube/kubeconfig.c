/*
 * kubeconfig.c - kubeconfig files: merge, select the context, read the
 * cluster and user (see kubeconfig.h).  In-cluster configuration and the
 * search order live in kubeconfig_load.c.
 */
#include "kube/kubeconfig.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json/json.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "yaml/yaml.h"

struct kfile {
    const char *path;
    char *dir;
    struct ts_yaml_stream s;
    const cJSON *root; /* NULL for an empty file */
};

/* Where a field lives: a file and the path of the object read. */
struct src {
    const struct kfile *f;
    const cJSON *obj;
    char base[64]; /* "users[2].user" */
};

static int field_err(const struct src *s, const char *key, struct ts_err *err, int code,
                     const char *msg)
{
    char path[128];

    snprintf(path, sizeof(path), "%s%s%s", s->base, key ? "." : "", key ? key : "");
    if (!s->f->s.n)
        return ts_err_set(err, code, "%s: %s: %s", s->f->path, path, msg);
    return ts_yaml_doc_err(&s->f->s.docs[0], path, err, code, "%s", msg);
}

static const cJSON *member(const struct src *s, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(s->obj, key);
}

static int get_str(const struct src *s, const char *key, char **out, struct ts_err *err)
{
    const cJSON *v = member(s, key);

    if (!v || cJSON_IsNull(v))
        return 0;
    if (!cJSON_IsString(v))
        return field_err(s, key, err, TS_EINVAL, "must be a string");
    free(*out);
    *out = v->valuestring[0] ? ts_xstrdup(v->valuestring) : NULL;
    return 0;
}

static int get_bool(const struct src *s, const char *key, int *out, struct ts_err *err)
{
    const cJSON *v = member(s, key);

    if (!v || cJSON_IsNull(v))
        return 0;
    if (!cJSON_IsBool(v))
        return field_err(s, key, err, TS_EINVAL, "must be true or false");
    *out = cJSON_IsTrue(v);
    return 0;
}

/* A file reference: resolved against the kubeconfig's directory and
 * checked for readability now, so the error names the field. */
static int get_path(const struct src *s, const char *key, char **out, struct ts_err *err)
{
    struct ts_buf b = TS_BUF_INIT;
    char msg[200];
    int rc;

    if ((rc = get_str(s, key, out, err)) || !*out)
        return rc;
    if ((*out)[0] != '/' && s->f->dir) {
        const char *rel = *out;

        while (rel[0] == '.' && rel[1] == '/')
            rel += 2;
        ts_buf_addf(&b, "%s/%s", s->f->dir, rel);
        free(*out);
        *out = ts_buf_take(&b);
    }
    if (access(*out, R_OK) != 0) {
        snprintf(msg, sizeof(msg), "cannot read '%s': %s", *out, strerror(errno));
        return field_err(s, key, err, TS_EIO, msg);
    }
    return 0;
}

static int get_b64(const struct src *s, const char *key, char **out, size_t *len,
                   struct ts_err *err)
{
    char *text = NULL;
    int rc;

    if ((rc = get_str(s, key, &text, err)) || !text)
        return rc;
    free(*out);
    *out = NULL;
    rc = ts_kube_b64_decode(text, out, len);
    free(text);
    if (rc)
        return field_err(s, key, err, TS_EPARSE, "invalid base64 data");
    return 0;
}

/* --- files and named entries ---------------------------------------------- */

/* The absolute directory of path (client-go resolves references against
 * filepath.Abs(filepath.Dir(file))).  Ownership: caller frees. */
static char *abs_dir(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir =
        slash ? ts_xstrndup(path, (size_t)(slash - path + (slash == path))) : ts_xstrdup(".");
    char *abs = realpath(dir, NULL);

    if (!abs)
        return dir;
    free(dir);
    dir = ts_xstrdup(abs); /* realpath's buffer is not from ts_xmalloc */
    free(abs);
    return dir;
}

static int read_file(struct kfile *f, const char *path, struct ts_err *err)
{
    int rc;

    f->path = path;
    f->dir = abs_dir(path);
    if ((rc = ts_yaml_decode_file(path, &f->s, err)))
        return ts_err_prefix(err, "kubeconfig");
    if (f->s.n > 1)
        return ts_err_set(err, TS_EPARSE, "%s: a kubeconfig holds one YAML document", path);
    if (f->s.n && !cJSON_IsObject(f->s.docs[0].root))
        return ts_yaml_doc_err(&f->s.docs[0], "", err, TS_EPARSE, "not a kubeconfig (no mapping)");
    f->root = f->s.n ? f->s.docs[0].root : NULL;
    return 0;
}

/* Finds the entry `name` of list `key` (clusters, users, contexts) in the
 * first file that has it; fills *s with the entry's inner object. */
static int find_named(const struct kfile *fs, size_t n, const char *key, const char *inner,
                      const char *name, struct src *s)
{
    for (size_t i = 0; i < n; i++) {
        const cJSON *list = cJSON_GetObjectItemCaseSensitive(fs[i].root, key), *e;
        int idx = 0;

        cJSON_ArrayForEach(e, list)
        {
            const char *nm = ts_json_get_string(e, "name");

            if (nm && !strcmp(nm, name)) {
                s->f = &fs[i];
                s->obj = cJSON_GetObjectItemCaseSensitive(e, inner);
                snprintf(s->base, sizeof(s->base), "%s[%d].%s", key, idx, inner);
                return 0;
            }
            idx++;
        }
    }
    return TS_ENOTFOUND;
}

static const char *current_context(const struct kfile *fs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const char *cc = ts_json_get_string(fs[i].root, "current-context");

        if (cc && cc[0])
            return cc;
    }
    return NULL;
}

/* --- cluster ------------------------------------------------------------- */

static int normalize_server(const struct src *s, struct ts_kubeconfig *c, struct ts_err *err)
{
    struct ts_buf b = TS_BUF_INIT;
    size_t len;

    if (!c->server)
        return field_err(s, "server", err, TS_EINVAL, "no server found for the cluster");
    if (strncmp(c->server, "https://", 8) && strncmp(c->server, "http://", 7)) {
        ts_buf_addf(&b, "https://%s", c->server);
        free(c->server);
        c->server = ts_buf_take(&b);
    }
    len = strlen(c->server);
    while (len > 8 && c->server[len - 1] == '/')
        c->server[--len] = '\0';
    return 0;
}

static int load_cluster(const struct src *s, struct ts_kubeconfig *c, struct ts_err *err)
{
    int rc;

    if (!cJSON_IsObject(s->obj))
        return field_err(s, NULL, err, TS_EINVAL, "must be a mapping");
    if ((rc = get_str(s, "server", &c->server, err)) ||
        (rc = get_path(s, "certificate-authority", &c->ca_file, err)) ||
        (rc = get_b64(s, "certificate-authority-data", &c->ca_data, &c->ca_data_len, err)) ||
        (rc = get_bool(s, "insecure-skip-tls-verify", &c->insecure, err)) ||
        (rc = get_str(s, "tls-server-name", &c->tls_server_name, err)) ||
        (rc = get_str(s, "proxy-url", &c->proxy_url, err)))
        return rc;
    if (c->ca_file && c->ca_data)
        return field_err(s, "certificate-authority-data", err, TS_EINVAL,
                         "certificate-authority and certificate-authority-data are both set");
    if (c->insecure && (c->ca_file || c->ca_data))
        return field_err(s, "insecure-skip-tls-verify", err, TS_EINVAL,
                         "a certificate authority and insecure-skip-tls-verify are both set");
    return normalize_server(s, c, err);
}

/* --- user and exec plugin -------------------------------------------------- */

static int get_strlist(const struct src *s, const char *key, struct ts_strlist *out,
                       struct ts_err *err)
{
    const cJSON *v = member(s, key), *e;

    if (!v || cJSON_IsNull(v))
        return 0;
    if (!cJSON_IsArray(v))
        return field_err(s, key, err, TS_EINVAL, "must be a list of strings");
    cJSON_ArrayForEach(e, v)
    {
        if (!cJSON_IsString(e))
            return field_err(s, key, err, TS_EINVAL, "must be a list of strings");
        ts_strlist_push(out, e->valuestring);
    }
    return 0;
}

static int get_env(const struct src *s, struct ts_strlist *out, struct ts_err *err)
{
    const cJSON *v = member(s, "env"), *e;
    struct ts_buf b = TS_BUF_INIT;

    if (!v || cJSON_IsNull(v))
        return 0;
    if (!cJSON_IsArray(v))
        return field_err(s, "env", err, TS_EINVAL, "must be a list of {name, value}");
    cJSON_ArrayForEach(e, v)
    {
        const char *name = ts_json_get_string(e, "name"), *val = ts_json_get_string(e, "value");

        if (!name || !name[0] || strchr(name, '='))
            return field_err(s, "env", err, TS_EINVAL, "every entry needs a valid name");
        ts_buf_reset(&b);
        ts_buf_addf(&b, "%s=%s", name, val ? val : "");
        ts_strlist_push(out, b.ptr);
    }
    ts_buf_release(&b);
    return 0;
}

static int check_exec(const struct src *s, struct ts_kube_exec *x, struct ts_err *err)
{
    const char *im = x->interactive_mode;

    if (!x->command)
        return field_err(s, "command", err, TS_EINVAL, "exec plugin needs a command");
    if (!x->api_version)
        return field_err(s, "apiVersion", err, TS_EINVAL, "exec plugin needs an apiVersion");
    if (strcmp(x->api_version, "client.authentication.k8s.io/v1") &&
        strcmp(x->api_version, "client.authentication.k8s.io/v1beta1"))
        return field_err(s, "apiVersion", err, TS_EUNSUPPORTED,
                         "exec plugin apiVersion must be client.authentication.k8s.io/v1 or "
                         "v1beta1");
    if (!im && !strcmp(x->api_version, "client.authentication.k8s.io/v1"))
        return field_err(s, "interactiveMode", err, TS_EINVAL,
                         "interactiveMode must be set for client.authentication.k8s.io/v1");
    if (im && strcmp(im, "Never") && strcmp(im, "IfAvailable") && strcmp(im, "Always"))
        return field_err(s, "interactiveMode", err, TS_EINVAL,
                         "interactiveMode must be Never, IfAvailable or Always");
    if (im && !strcmp(im, "Always"))
        return field_err(s, "interactiveMode", err, TS_EUNSUPPORTED,
                         "exec plugin needs a terminal (interactiveMode Always) but "
                         "turnstile runs without one");
    return 0;
}

static int load_exec(const struct src *user, struct ts_kubeconfig *c, struct ts_err *err)
{
    struct src s = *user;
    struct ts_kube_exec *x;
    int rc;

    s.obj = member(user, "exec");
    snprintf(s.base, sizeof(s.base), "%.50s.exec", user->base);
    if (!cJSON_IsObject(s.obj))
        return field_err(&s, NULL, err, TS_EINVAL, "must be a mapping");
    c->exec = x = ts_xcalloc(1, sizeof(*x));
    if ((rc = get_str(&s, "apiVersion", &x->api_version, err)) ||
        (rc = get_str(&s, "command", &x->command, err)) ||
        (rc = get_strlist(&s, "args", &x->args, err)) || (rc = get_env(&s, &x->env, err)) ||
        (rc = get_str(&s, "interactiveMode", &x->interactive_mode, err)) ||
        (rc = get_bool(&s, "provideClusterInfo", &x->provide_cluster_info, err)) ||
        (rc = get_str(&s, "installHint", &x->install_hint, err)) || (rc = check_exec(&s, x, err)))
        return rc;
    if (strchr(x->command, '/'))
        return get_path(&s, "command", &x->command, err);
    return 0;
}

static int check_user(const struct src *s, const struct ts_kubeconfig *c, struct ts_err *err)
{
    if (c->cert_file && c->cert_data)
        return field_err(s, "client-certificate-data", err, TS_EINVAL,
                         "client-certificate and client-certificate-data are both set");
    if (c->key_file && c->key_data)
        return field_err(s, "client-key-data", err, TS_EINVAL,
                         "client-key and client-key-data are both set");
    if (!(c->cert_file || c->cert_data) != !(c->key_file || c->key_data))
        return field_err(s, NULL, err, TS_EINVAL,
                         "a client certificate needs a client key and the other way round");
    if ((c->token || c->token_file) && (c->username || c->password))
        return field_err(s, NULL, err, TS_EINVAL,
                         "username/password or bearer token may be set, but not both");
    if (c->password && !c->username)
        return field_err(s, "password", err, TS_EINVAL, "password without username");
    return 0;
}

static int load_user(const struct src *s, struct ts_kubeconfig *c, struct ts_err *err)
{
    int rc;

    if (!s->obj || cJSON_IsNull(s->obj))
        return 0; /* a user with no credentials */
    if (!cJSON_IsObject(s->obj))
        return field_err(s, NULL, err, TS_EINVAL, "must be a mapping");
    if (member(s, "auth-provider"))
        return field_err(s, "auth-provider", err, TS_EUNSUPPORTED,
                         "auth-provider plugins were removed from kubectl; use an exec plugin");
    if ((rc = get_str(s, "token", &c->token, err)) ||
        (rc = get_path(s, "tokenFile", &c->token_file, err)) ||
        (rc = get_path(s, "client-certificate", &c->cert_file, err)) ||
        (rc = get_path(s, "client-key", &c->key_file, err)) ||
        (rc = get_b64(s, "client-certificate-data", &c->cert_data, &c->cert_data_len, err)) ||
        (rc = get_b64(s, "client-key-data", &c->key_data, &c->key_data_len, err)) ||
        (rc = get_str(s, "username", &c->username, err)) ||
        (rc = get_str(s, "password", &c->password, err)))
        return rc;
    if (member(s, "exec") && !cJSON_IsNull(member(s, "exec")) && (rc = load_exec(s, c, err)))
        return rc;
    return check_user(s, c, err);
}

/* --- context -------------------------------------------------------------- */

static int load_ref(const struct kfile *fs, size_t n, const struct src *ctx, const char *kind,
                    struct ts_kubeconfig *c, struct ts_err *err)
{
    const char *key = !strcmp(kind, "cluster") ? "clusters" : "users";
    char *name = NULL, msg[160];
    struct src s;
    int rc;

    if ((rc = get_str(ctx, kind, &name, err)))
        return rc;
    if (!name) {
        snprintf(msg, sizeof(msg), "context has no %s", kind);
        return field_err(ctx, kind, err, TS_EINVAL, msg);
    }
    if (find_named(fs, n, key, kind, name, &s)) {
        snprintf(msg, sizeof(msg), "%s \"%s\" not found", kind, name);
        free(name);
        return field_err(ctx, kind, err, TS_ENOTFOUND, msg);
    }
    if (!strcmp(kind, "cluster")) {
        c->cluster_name = name;
        return load_cluster(&s, c, err);
    }
    c->user_name = name;
    return load_user(&s, c, err);
}

static int load_context_body(const struct kfile *fs, size_t n, const struct src *ctx,
                             struct ts_kubeconfig *c, struct ts_err *err)
{
    int rc;

    if (!cJSON_IsObject(ctx->obj))
        return field_err(ctx, NULL, err, TS_EINVAL, "must be a mapping");
    if ((rc = get_str(ctx, "namespace", &c->namespace, err)) ||
        (rc = load_ref(fs, n, ctx, "cluster", c, err)) ||
        (rc = load_ref(fs, n, ctx, "user", c, err)))
        return rc;
    if (!c->namespace)
        c->namespace = ts_xstrdup("default");
    return 0;
}

static int load_context(const struct kfile *fs, size_t n, const char *name, struct ts_kubeconfig *c,
                        struct ts_err *err)
{
    struct src ctx;
    int rc;

    if (find_named(fs, n, "contexts", "context", name, &ctx))
        return ts_err_set(err, TS_ENOTFOUND, "context \"%s\" not found in kubeconfig '%s'%s", name,
                          fs[0].path, n > 1 ? " and the other $KUBECONFIG files" : "");
    c->context = ts_xstrdup(name);
    c->source = ts_xstrdup(ctx.f->path);
    if ((rc = load_context_body(fs, n, &ctx, c, err)))
        ts_err_prefix(err, "context \"%s\"", name);
    return rc;
}

int ts_kubeconfig_load_files(const char *const *files, size_t n, const char *context,
                             struct ts_kubeconfig *out, struct ts_err *err)
{
    struct kfile *fs = ts_xcalloc(n ? n : 1, sizeof(*fs));
    int rc = 0;

    memset(out, 0, sizeof(*out));
    for (size_t i = 0; i < n && !rc; i++)
        rc = read_file(&fs[i], files[i], err);
    if (!rc && !n)
        rc = ts_err_set(err, TS_ENOTFOUND, "no kubeconfig file given");
    if (!rc && !context && !(context = current_context(fs, n)))
        rc = ts_err_set(err, TS_ENOTFOUND, "kubeconfig '%s': current-context is not set", files[0]);
    if (!rc)
        rc = load_context(fs, n, context, out, err);
    for (size_t i = 0; i < n; i++) {
        ts_yaml_stream_release(&fs[i].s);
        free(fs[i].dir);
    }
    free(fs);
    return rc;
}

/* --- base64 --------------------------------------------------------------- */

static int b64_val(char ch)
{
    if (ch >= 'A' && ch <= 'Z')
        return ch - 'A';
    if (ch >= 'a' && ch <= 'z')
        return ch - 'a' + 26;
    if (ch >= '0' && ch <= '9')
        return ch - '0' + 52;
    return ch == '+' ? 62 : ch == '/' ? 63 : -1;
}

int ts_kube_b64_decode(const char *s, char **out, size_t *len)
{
    size_t n = strlen(s), o = 0, pad = 0;
    char *buf = ts_xmalloc(n / 4 * 3 + 4);
    unsigned acc = 0, bits = 0;

    for (size_t i = 0; i < n; i++) {
        int v = b64_val(s[i]);

        if (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t')
            continue;
        if (s[i] == '=' && ++pad <= 2)
            continue;
        if (v < 0 || pad) {
            free(buf);
            return TS_EPARSE;
        }
        acc = (acc << 6) | (unsigned)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            buf[o++] = (char)((acc >> bits) & 0xff);
        }
    }
    buf[o] = '\0';
    *out = buf;
    *len = o;
    return 0;
}
