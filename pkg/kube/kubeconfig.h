/*
 * kubeconfig.h - where the client connects and how it authenticates,
 * found the way kubectl and controller-runtime find it.
 *
 * Sources, first match wins (controller-runtime's GetConfig order):
 *   1. an explicit path (--kubeconfig): that one file, which must exist;
 *   2. $KUBECONFIG: a ':'-separated list; missing files are skipped,
 *      duplicates read once;
 *   3. in-cluster: $KUBERNETES_SERVICE_HOST/_PORT with the service account
 *      token, CA and namespace under /var/run/secrets/kubernetes.io/
 *      serviceaccount;
 *   4. ~/.kube/config.
 * Merging several files follows client-go's loader: a cluster, user or
 * context is taken whole from the first file that names it, and
 * current-context from the first file that sets it.  --context overrides
 * current-context.  Relative file references (certificate-authority,
 * client-certificate, client-key, tokenFile, and an exec command holding a
 * '/') are resolved against the directory of the file that holds them.
 *
 * Supported: cluster server, certificate-authority(-data),
 * insecure-skip-tls-verify, tls-server-name, proxy-url; user token,
 * tokenFile, client-certificate/-key(-data), username/password, and exec
 * credential plugins (client.authentication.k8s.io/v1 and v1beta1).
 * auth-provider (removed from kubectl in 1.26) is refused.
 *
 * Errors name the context, the file, the line and the field, e.g.
 *   context "prod": /home/u/.kube/config:14: users[0].user.client-key:
 *   cannot read '/etc/k/key.pem': No such file or directory
 *
 * Thread rule: none.  Ownership: struct ts_kubeconfig owns every string
 * in it; release with ts_kubeconfig_release().  Secrets (token, password,
 * key data) are never logged.
 */
#ifndef TS_KUBE_KUBECONFIG_H
#define TS_KUBE_KUBECONFIG_H

#include <stddef.h>

#include "util/err.h"
#include "util/strlist.h"

#define TS_KUBECONFIG_SA_DIR "/var/run/secrets/kubernetes.io/serviceaccount"

struct ts_kube_exec {
    char *api_version; /* client.authentication.k8s.io/v1 or v1beta1 */
    char *command;
    struct ts_strlist args;
    struct ts_strlist env;  /* "NAME=value" */
    char *interactive_mode; /* Never, IfAvailable, Always ("" if unset) */
    int provide_cluster_info;
    char *install_hint; /* may be NULL */
};

struct ts_kubeconfig {
    char *source;  /* file the context came from, or "in-cluster" */
    char *context; /* context name ("" in-cluster) */
    char *cluster_name, *user_name;
    char *namespace; /* context namespace, "default" when unset */
    char *server;    /* "https://host:port", no trailing '/' */
    char *ca_file;   /* absolute path or NULL */
    char *ca_data;   /* decoded PEM or NULL */
    size_t ca_data_len;
    int insecure;
    char *tls_server_name;
    char *proxy_url;
    char *token;      /* static bearer token or NULL */
    char *token_file; /* re-read when it changes (rotation) */
    char *cert_file, *key_file;
    char *cert_data, *key_data; /* decoded PEM */
    size_t cert_data_len, key_data_len;
    char *username, *password;
    struct ts_kube_exec *exec; /* NULL when no plugin */
    int in_cluster;
};

struct ts_kubeconfig_opts {
    const char *path;    /* --kubeconfig, or NULL */
    const char *context; /* --context, or NULL */
    /* Test seams; NULL means the real environment: */
    const char *env_kubeconfig; /* instead of $KUBECONFIG ("" = unset) */
    const char *home;           /* instead of $HOME */
    const char *sa_dir;         /* instead of TS_KUBECONFIG_SA_DIR */
    const char *service_host;   /* instead of $KUBERNETES_SERVICE_HOST ("" = unset) */
    const char *service_port;   /* instead of $KUBERNETES_SERVICE_PORT */
};

/* Finds and loads the configuration as described above.  Returns 0,
 * TS_ENOTFOUND (no source at all, or a named context, cluster or user
 * missing), TS_EIO (unreadable file), TS_EPARSE (bad YAML or base64) or
 * TS_EINVAL (contradicting or missing fields).
 * Ownership: caller releases *out (also on failure). */
int ts_kubeconfig_load(const struct ts_kubeconfig_opts *o, struct ts_kubeconfig *out,
                       struct ts_err *err);

/* Merges `files[0..n)` (all must exist) and selects `context` (NULL: the
 * merged current-context).  Codes as ts_kubeconfig_load(). */
int ts_kubeconfig_load_files(const char *const *files, size_t n, const char *context,
                             struct ts_kubeconfig *out, struct ts_err *err);

/* Builds the in-cluster configuration from a service account directory
 * (token, ca.crt, namespace) and the service host and port.  Returns 0,
 * TS_ENOTFOUND or TS_EIO. */
int ts_kubeconfig_in_cluster(const char *sa_dir, const char *host, const char *port,
                             struct ts_kubeconfig *out, struct ts_err *err);

/* Frees everything and zeroes c.  NULL does nothing. */
void ts_kubeconfig_release(struct ts_kubeconfig *c);

/* Decodes standard base64 (padding optional, whitespace skipped).
 * Returns 0 or TS_EPARSE.  Ownership: caller frees *out (NUL-terminated;
 * *len excludes the NUL). */
int ts_kube_b64_decode(const char *s, char **out, size_t *len);

#endif
