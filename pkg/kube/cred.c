/*
 * cred.c - static tokens, rotating token files and exec credential
 * plugins (see cred.h).
 */
#include "kube/cred.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "json/json.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/time.h"

extern char **environ;

#define PLUGIN_TIMEOUT_MS 60000
#define PLUGIN_MAX_OUTPUT (1 << 20)

struct ts_kube_cred {
    const struct ts_kubeconfig *cfg;
    char *file_token; /* token file content */
    struct stat file_st;
    char *exec_token, *exec_cert, *exec_key;
    size_t exec_cert_len, exec_key_len;
    int64_t exec_expiry; /* ns; 0 = none */
    int exec_valid;
    unsigned exec_runs;
};

struct ts_kube_cred *ts_kube_cred_new(const struct ts_kubeconfig *cfg)
{
    struct ts_kube_cred *c = ts_xcalloc(1, sizeof(*c));

    c->cfg = cfg;
    return c;
}

static void clear_exec(struct ts_kube_cred *c)
{
    free(c->exec_token);
    free(c->exec_cert);
    free(c->exec_key);
    c->exec_token = c->exec_cert = c->exec_key = NULL;
    c->exec_valid = 0;
}

void ts_kube_cred_free(struct ts_kube_cred *c)
{
    if (!c)
        return;
    clear_exec(c);
    free(c->file_token);
    free(c);
}

unsigned ts_kube_cred_exec_runs(const struct ts_kube_cred *c)
{
    return c->exec_runs;
}

int ts_kube_cred_invalidate(struct ts_kube_cred *c)
{
    if (c->cfg->exec) {
        clear_exec(c);
        return 1;
    }
    if (c->cfg->token_file && !c->cfg->token) {
        free(c->file_token);
        c->file_token = NULL;
        return 1;
    }
    return 0;
}

/* --- token file ------------------------------------------------------------ */

static int same_file(const struct stat *a, const struct stat *b)
{
    return a->st_ino == b->st_ino && a->st_dev == b->st_dev && a->st_size == b->st_size &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

static int read_token_file(struct ts_kube_cred *c, struct ts_err *err)
{
    const char *path = c->cfg->token_file;
    struct ts_buf b;
    struct stat st;
    char chunk[4096];
    size_t n;
    FILE *f;

    if (stat(path, &st) != 0 || !(f = fopen(path, "r")))
        return ts_err_set(err, TS_EIO, "token file '%s': %s", path, strerror(errno));
    if (c->file_token && same_file(&st, &c->file_st)) {
        fclose(f);
        return 0;
    }
    ts_buf_init(&b, 1 << 20);
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0 && !ts_buf_add(&b, chunk, n))
        ;
    fclose(f);
    while (b.len &&
           (b.ptr[b.len - 1] == '\n' || b.ptr[b.len - 1] == '\r' || b.ptr[b.len - 1] == ' '))
        b.ptr[--b.len] = '\0';
    free(c->file_token);
    c->file_token = ts_buf_take(&b);
    c->file_st = st;
    return 0;
}

/* --- exec plugin ------------------------------------------------------------ */

static char *exec_info(const struct ts_kubeconfig *cfg)
{
    cJSON *j = cJSON_CreateObject(), *spec, *cl;
    char *s;

    cJSON_AddStringToObject(j, "apiVersion", cfg->exec->api_version);
    cJSON_AddStringToObject(j, "kind", "ExecCredential");
    spec = cJSON_AddObjectToObject(j, "spec");
    cJSON_AddBoolToObject(spec, "interactive", 0);
    if (cfg->exec->provide_cluster_info) {
        cl = cJSON_AddObjectToObject(spec, "cluster");
        cJSON_AddStringToObject(cl, "server", cfg->server);
        if (cfg->tls_server_name)
            cJSON_AddStringToObject(cl, "tls-server-name", cfg->tls_server_name);
        if (cfg->insecure)
            cJSON_AddBoolToObject(cl, "insecure-skip-tls-verify", 1);
        if (cfg->proxy_url)
            cJSON_AddStringToObject(cl, "proxy-url", cfg->proxy_url);
    }
    s = ts_json_dumps(j, TS_JSON_COMPACT);
    cJSON_Delete(j);
    return s;
}

/* environ, minus names the plugin config overrides, plus its env and
 * KUBERNETES_EXEC_INFO.  Ownership: the caller frees the array (the
 * strings are borrowed from environ, cfg and `info`). */
static char **plugin_env(const struct ts_kube_exec *x, const char *info)
{
    size_t n = 0, k = 0;
    char **env;

    while (environ[n])
        n++;
    env = ts_xcalloc(n + x->env.n + 2, sizeof(*env));
    for (size_t i = 0; i < n; i++) {
        size_t len = strcspn(environ[i], "=");
        int skip = !strncmp(environ[i], "KUBERNETES_EXEC_INFO=", 21);

        for (size_t j = 0; j < x->env.n && !skip; j++)
            skip = !strncmp(environ[i], x->env.items[j], len + 1);
        if (!skip)
            env[k++] = environ[i];
    }
    for (size_t j = 0; j < x->env.n; j++)
        env[k++] = x->env.items[j];
    env[k++] = (char *)(uintptr_t)info;
    return env;
}

static char **plugin_argv(const struct ts_kube_exec *x)
{
    char **argv = ts_xcalloc(x->args.n + 2, sizeof(*argv));

    argv[0] = x->command;
    for (size_t i = 0; i < x->args.n; i++)
        argv[i + 1] = x->args.items[i];
    return argv;
}

static int spawn(const struct ts_kubeconfig *cfg, int out_fd, pid_t *pid)
{
    posix_spawn_file_actions_t fa;
    char *info_json = exec_info(cfg);
    struct ts_buf info = TS_BUF_INIT;
    char **argv = plugin_argv(cfg->exec), **envp;
    int rc;

    ts_buf_addf(&info, "KUBERNETES_EXEC_INFO=%s", info_json);
    envp = plugin_env(cfg->exec, info.ptr);
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
    rc = posix_spawnp(pid, cfg->exec->command, &fa, NULL, argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    free(argv);
    free(envp);
    free(info_json);
    ts_buf_release(&info);
    return rc;
}

/* Reads the plugin's stdout until EOF or the deadline. */
static int collect(int fd, struct ts_buf *out)
{
    struct timespec t0, t;
    char chunk[4096];

    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        struct pollfd p = {fd, POLLIN, 0};
        long left;
        ssize_t n;

        clock_gettime(CLOCK_MONOTONIC, &t);
        left =
            PLUGIN_TIMEOUT_MS - (t.tv_sec - t0.tv_sec) * 1000 - (t.tv_nsec - t0.tv_nsec) / 1000000;
        if (left <= 0 || poll(&p, 1, (int)left) == 0)
            return TS_ETIMEDOUT;
        n = read(fd, chunk, sizeof(chunk));
        if (n == 0)
            return 0;
        if (n < 0 && errno != EINTR)
            return TS_EIO;
        if (n > 0 && ts_buf_add(out, chunk, (size_t)n))
            return TS_EOVERFLOW;
    }
}

static int run_plugin(const struct ts_kubeconfig *cfg, struct ts_buf *out, struct ts_err *err)
{
    const struct ts_kube_exec *x = cfg->exec;
    int fds[2], rc, status = 0;
    pid_t pid;

    if (pipe(fds) != 0 || fcntl(fds[0], F_SETFD, FD_CLOEXEC) || fcntl(fds[1], F_SETFD, FD_CLOEXEC))
        return ts_err_set(err, TS_EIO, "exec plugin '%s': pipe: %s", x->command, strerror(errno));
    rc = spawn(cfg, fds[1], &pid);
    close(fds[1]);
    if (rc) {
        close(fds[0]);
        return ts_err_set(err, TS_EIO, "exec plugin '%s': %s%s%s", x->command, strerror(rc),
                          x->install_hint ? "; " : "", x->install_hint ? x->install_hint : "");
    }
    rc = collect(fds[0], out);
    close(fds[0]);
    if (rc)
        kill(pid, SIGKILL);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (rc)
        return ts_err_set(err, rc, "exec plugin '%s': %s", x->command, ts_strerror(rc));
    /* 127: the shell's "command not found"; posix_spawnp reports a missing
     * program this way when it cannot fail before the fork (valgrind) */
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        return ts_err_set(err, TS_EIO, "exec plugin '%s': not found or not executable%s%s",
                          x->command, x->install_hint ? "; " : "",
                          x->install_hint ? x->install_hint : "");
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return ts_err_set(err, TS_EIO, "exec plugin '%s' failed with exit status %d", x->command,
                          WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
    return 0;
}

static int parse_status(struct ts_kube_cred *c, const cJSON *st, struct ts_err *err)
{
    const char *tok = ts_json_get_string(st, "token");
    const char *cert = ts_json_get_string(st, "clientCertificateData");
    const char *key = ts_json_get_string(st, "clientKeyData");
    const char *exp = ts_json_get_string(st, "expirationTimestamp");
    const char *cmd = c->cfg->exec->command;

    if (!cJSON_IsObject(st))
        return ts_err_set(err, TS_EPARSE, "exec plugin '%s': ExecCredential has no status", cmd);
    if (!!cert != !!key)
        return ts_err_set(err, TS_EPARSE,
                          "exec plugin '%s': status.clientCertificateData and "
                          "status.clientKeyData must come together",
                          cmd);
    if (!tok && !cert)
        return ts_err_set(err, TS_EPARSE,
                          "exec plugin '%s': status has neither a token nor a client key pair",
                          cmd);
    c->exec_expiry = 0;
    if (exp && ts_time_parse(exp, &c->exec_expiry))
        return ts_err_set(err, TS_EPARSE, "exec plugin '%s': bad status.expirationTimestamp '%s'",
                          cmd, exp);
    c->exec_token = tok ? ts_xstrdup(tok) : NULL;
    c->exec_cert = cert ? ts_xstrdup(cert) : NULL;
    c->exec_key = key ? ts_xstrdup(key) : NULL;
    c->exec_cert_len = cert ? strlen(cert) : 0;
    c->exec_key_len = key ? strlen(key) : 0;
    c->exec_valid = 1;
    return 0;
}

static int parse_credential(struct ts_kube_cred *c, const struct ts_buf *out, struct ts_err *err)
{
    const char *cmd = c->cfg->exec->command;
    const char *av, *kind;
    cJSON *j = NULL;
    int rc;

    if (ts_json_parse(out->ptr, out->len, &j, err))
        return ts_err_prefix(err, "exec plugin '%s': output is not an ExecCredential", cmd);
    av = ts_json_get_string(j, "apiVersion");
    kind = ts_json_get_string(j, "kind");
    if (!kind || strcmp(kind, "ExecCredential"))
        rc = ts_err_set(err, TS_EPARSE, "exec plugin '%s': kind is not ExecCredential", cmd);
    else if (!av || strcmp(av, c->cfg->exec->api_version))
        rc = ts_err_set(err, TS_EPARSE,
                        "exec plugin '%s': apiVersion '%s' differs from the "
                        "configured '%s'",
                        cmd, av ? av : "", c->cfg->exec->api_version);
    else
        rc = parse_status(c, cJSON_GetObjectItemCaseSensitive(j, "status"), err);
    cJSON_Delete(j);
    return rc;
}

static int refresh_exec(struct ts_kube_cred *c, struct ts_err *err)
{
    struct ts_buf out;
    int rc;

    clear_exec(c);
    ts_buf_init(&out, PLUGIN_MAX_OUTPUT);
    c->exec_runs++;
    if (!(rc = run_plugin(c->cfg, &out, err)))
        rc = parse_credential(c, &out, err);
    ts_buf_release(&out);
    return rc;
}

int ts_kube_cred_get(struct ts_kube_cred *c, int64_t now, struct ts_kube_auth *out,
                     struct ts_err *err)
{
    const struct ts_kubeconfig *cfg = c->cfg;
    int rc;

    memset(out, 0, sizeof(*out));
    if (cfg->exec) {
        if ((!c->exec_valid || (c->exec_expiry && now >= c->exec_expiry)) &&
            (rc = refresh_exec(c, err)))
            return rc;
        out->token = c->exec_token;
        out->cert_pem = c->exec_cert;
        out->key_pem = c->exec_key;
        out->cert_pem_len = c->exec_cert_len;
        out->key_pem_len = c->exec_key_len;
        if (out->token || out->cert_pem)
            return 0;
    }
    if (cfg->token) {
        out->token = cfg->token;
    } else if (cfg->token_file) {
        if ((rc = read_token_file(c, err)))
            return rc;
        out->token = c->file_token;
    }
    return 0;
}
