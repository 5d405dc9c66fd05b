/*
 * server.c - libmicrohttpd daemons for the HTTPS server and the health
 * listener (plain), the per-connection request reader and the certificate
 * swap (see server.h for the design).
 */
#include "httpd/server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "httpd/cert.h"
#include "httpd/fdlimit.h"
#include "util/alloc.h"
#include "util/log.h"
#include "util/parse.h"

/* the most connections a server sizes itself to from the file limit */
#define CONN_MAX 65536u

#define TLS_PRIORITIES "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2"
#define HEADER_MEMORY  (64u * 1024u)
#define DRAIN_MS       1000

struct ts_httpd_server {
    struct ts_httpd_server_options opts; /* name and host copied below; immutable */
    char *name, *host;
    int listen_fd;
    int port;
    int health_port;
    pthread_mutex_t mu; /* guards d, cert, key, generation */
    struct MHD_Daemon *d;
    char *cert, *key;
    unsigned generation;
    struct MHD_Daemon *health;
};

/* Per-request state, created on the first callback of a request. */
struct conn {
    struct ts_buf body;
    size_t seen;
    int too_large;
    struct timespec start;
};

void ts_httpd_server_options_init(struct ts_httpd_server_options *o)
{
    memset(o, 0, sizeof(*o));
    o->name = "httpd";
    o->port = 0;
    o->health_port = -1;
    o->threads = 4;
    o->conn_limit = 0;
    o->per_ip_limit = 64;
    o->timeout_s = 10;
    o->header_timeout_s = 3;
    o->deadline_s = 10;
    o->max_body = TS_HTTPD_SERVER_DEFAULT_MAX_BODY;
}

static double elapsed_s(const struct timespec *since)
{
    struct timespec now;

    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - since->tv_sec) + (double)(now.tv_nsec - since->tv_nsec) / 1e9;
}

static enum MHD_Result respond(struct MHD_Connection *c, int status, struct ts_buf *body,
                               const char *type)
{
    size_t len = body->len;
    char *data = ts_buf_take(body);
    struct MHD_Response *r = MHD_create_response_from_buffer(len, data, MHD_RESPMEM_MUST_FREE);
    enum MHD_Result ret;

    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    ret = MHD_queue_response(c, (unsigned)status, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result respond_status(struct MHD_Connection *c, int code, const char *reason,
                                      const char *msg)
{
    struct ts_buf b = TS_BUF_INIT;

    ts_buf_addf(&b,
                "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":"
                "\"Failure\",\"message\":\"%s\",\"reason\":\"%s\",\"code\":%d}",
                msg, reason, code);
    return respond(c, code, &b, "application/json");
}

static int is_health(const char *url)
{
    return strcmp(url, "/healthz") == 0 || strcmp(url, "/readyz") == 0;
}

static enum MHD_Result too_large(const struct ts_httpd_server *s, struct MHD_Connection *c)
{
    char msg[96];

    snprintf(msg, sizeof(msg), "request entity is too large; limit is %zu bytes", s->opts.max_body);
    return respond_status(c, 413, "RequestEntityTooLarge", msg);
}

/* Runs the handler on a complete request. */
static enum MHD_Result finish(struct ts_httpd_server *s, struct MHD_Connection *c, const char *url,
                              struct conn *k)
{
    struct ts_buf out = TS_BUF_INIT;
    int status;

    if (k->too_large)
        return too_large(s, c);
    status = s->opts.post(s->opts.post_ud, url, k->body.ptr, k->body.len, &out);
    return respond(c, status, &out,
                   status == 200 && is_health(url) ? "text/plain" : "application/json");
}

/* First callback of a request: method, path and Content-Length checks. */
static enum MHD_Result add_arg(void *cls, enum MHD_ValueKind kind, const char *key,
                               const char *value)
{
    (void)kind;
    ts_strmap_set(cls, key, value ? value : "");
    return MHD_YES;
}

static enum MHD_Result serve_get(struct ts_httpd_server *s, struct MHD_Connection *c,
                                 const char *url)
{
    struct ts_strmap query;
    struct ts_buf out = TS_BUF_INIT;
    int status;

    ts_strmap_init(&query);
    MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, add_arg, &query);
    status = s->opts.get(s->opts.get_ud, url, &query, &out);
    ts_strmap_release(&query);
    return respond(c, status, &out, "application/json");
}

static enum MHD_Result begin(struct ts_httpd_server *s, struct MHD_Connection *c, const char *url,
                             const char *method, void **con_cls)
{
    const char *cl =
        MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
    struct conn *k;
    int64_t n = 0;

    if (strcmp(method, "GET") == 0 && is_health(url)) {
        struct ts_buf ok = TS_BUF_INIT;

        ts_buf_adds(&ok, "ok");
        return respond(c, 200, &ok, "text/plain");
    }
    if (strcmp(method, "GET") == 0 && s->opts.get)
        return serve_get(s, c, url);
    if (strcmp(method, "POST") != 0 || !s->opts.post)
        return respond_status(c, 405, "MethodNotAllowed",
                              s->opts.post ? "only POST is served here"
                                           : "only GET is served here");
    if (s->opts.post_path && !s->opts.post_path(s->opts.post_ud, url))
        return respond_status(c, 404, "NotFound",
                              "the server could not find the requested resource");
    if (cl && (ts_parse_i64_c(cl, &n) != 0 || n < 0 || (uint64_t)n > s->opts.max_body))
        return too_large(s, c);
    k = ts_xcalloc(1, sizeof(*k));
    ts_buf_init(&k->body, s->opts.max_body);
    clock_gettime(CLOCK_MONOTONIC, &k->start);
    *con_cls = k;
    return MHD_YES;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **con_cls)
{
    struct ts_httpd_server *s = cls;
    struct conn *k = *con_cls;

    (void)version;
    if (!k) {
        /* it got a request through: the keep-alive idle timeout applies */
        MHD_set_connection_option(c, MHD_CONNECTION_OPTION_TIMEOUT, (unsigned)s->opts.timeout_s);
        return begin(s, c, url, method, con_cls);
    }
    if (*upload_data_size == 0)
        return finish(s, c, url, k);
    k->seen += *upload_data_size;
    if (elapsed_s(&k->start) > s->opts.deadline_s || k->seen > 2 * s->opts.max_body) {
        ts_log_warn(s->name, "dropping request path=%s: body too slow or too large", url);
        return MHD_NO;
    }
    if (!k->too_large && ts_buf_add(&k->body, upload_data, *upload_data_size) != 0) {
        k->too_large = 1;
        ts_buf_release(&k->body);
    }
    *upload_data_size = 0;
    return MHD_YES;
}

/* The health listener: GET /healthz and /readyz only. */
static enum MHD_Result on_health(void *cls, struct MHD_Connection *c, const char *url,
                                 const char *method, const char *version, const char *upload_data,
                                 size_t *upload_data_size, void **con_cls)
{
    struct ts_buf ok = TS_BUF_INIT;

    (void)cls, (void)version, (void)upload_data, (void)upload_data_size, (void)con_cls;
    if (strcmp(method, "GET") != 0 || !is_health(url))
        return respond_status(c, 404, "NotFound",
                              "the server could not find the requested resource");
    ts_buf_adds(&ok, "ok");
    return respond(c, 200, &ok, "text/plain");
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    struct conn *k = *con_cls;

    (void)cls, (void)c, (void)toe;
    if (!k)
        return;
    ts_buf_release(&k->body);
    free(k);
    *con_cls = NULL;
}

__attribute__((format(printf, 2, 0))) static void on_log(void *cls, const char *fmt, va_list ap)
{
    const struct ts_httpd_server *s = cls;
    char line[512];
    size_t n;

    vsnprintf(line, sizeof(line), fmt, ap);
    n = strlen(line);
    while (n && line[n - 1] == '\n')
        line[--n] = '\0';
    ts_log_debug(s->name, "libmicrohttpd: %s", line);
}

/* --- sockets ----------------------------------------------------------------- */

static int bound_port(int fd)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);

    if (getsockname(fd, (struct sockaddr *)&ss, &len) != 0)
        return -1;
    if (ss.ss_family == AF_INET6)
        return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
    return ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

/* Fills ss for host:port; 0 or -1 when host is not an address. */
static int make_addr(const char *host, int port, struct sockaddr_storage *ss, socklen_t *len)
{
    struct sockaddr_in *v4 = (struct sockaddr_in *)ss;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)ss;

    memset(ss, 0, sizeof(*ss));
    if (!host || !*host)
        host = "::";
    if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons((uint16_t)port);
        *len = sizeof(*v4);
        return 0;
    }
    if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons((uint16_t)port);
        *len = sizeof(*v6);
        return 0;
    }
    return -1;
}

static int try_listen(const struct sockaddr_storage *ss, socklen_t len)
{
    int one = 1, zero = 0;
    int fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);

    if (fd < 0)
        return -1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (ss->ss_family == AF_INET6)
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
    /* a deep backlog: a burst of connections waits to be accepted instead
     * of being refused by the kernel */
    if (bind(fd, (const struct sockaddr *)ss, len) != 0 || listen(fd, 4096) != 0) {
        int e = errno;

        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

/* A listening socket on host:port ("" = all: "::" dual stack, else
 * 0.0.0.0).  Returns the fd or TS_EIO. */
static int open_listener(const char *host, int port, struct ts_err *err)
{
    struct sockaddr_storage ss;
    socklen_t len;
    int fd;

    if (make_addr(host, port, &ss, &len) != 0)
        return ts_err_set(err, TS_EIO, "invalid listen address '%s'", host);
    fd = try_listen(&ss, len);
    if (fd < 0 && (!host || !*host)) {
        make_addr("0.0.0.0", port, &ss, &len);
        fd = try_listen(&ss, len);
    }
    if (fd < 0)
        return ts_err_set(err, TS_EIO, "listen on %s:%d: %s", host && *host ? host : "*", port,
                          strerror(errno));
    return fd;
}

/* --- daemons ------------------------------------------------------------------ */

static const unsigned base_flags =
    MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ITC | MHD_USE_ERROR_LOG;

static unsigned conn_limit(const struct ts_httpd_server *s)
{
    return s->opts.conn_limit ? s->opts.conn_limit : ts_httpd_conn_budget(CONN_MAX);
}

/* The timeout of a connection until it sends a request. */
static unsigned first_timeout(const struct ts_httpd_server *s)
{
    unsigned h = s->opts.header_timeout_s ? s->opts.header_timeout_s : s->opts.timeout_s;

    return h < s->opts.timeout_s ? h : (unsigned)s->opts.timeout_s;
}

/* Starts a TLS daemon on a dup() of the listening socket. */
static struct MHD_Daemon *start_tls(struct ts_httpd_server *s, const char *cert, const char *key)
{
    int fd = dup(s->listen_fd);
    struct MHD_Daemon *d;

    if (fd < 0)
        return NULL;
    d = MHD_start_daemon(
        base_flags | MHD_USE_TLS, 0, NULL, NULL, on_request, s, MHD_OPTION_EXTERNAL_LOGGER, on_log,
        s, MHD_OPTION_LISTEN_SOCKET, (MHD_socket)fd, MHD_OPTION_HTTPS_MEM_CERT, cert,
        MHD_OPTION_HTTPS_MEM_KEY, key, MHD_OPTION_HTTPS_PRIORITIES, TLS_PRIORITIES,
        MHD_OPTION_THREAD_POOL_SIZE, (unsigned)s->opts.threads, MHD_OPTION_CONNECTION_LIMIT,
        conn_limit(s), MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)s->opts.per_ip_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, first_timeout(s), MHD_OPTION_CONNECTION_MEMORY_LIMIT,
        (size_t)HEADER_MEMORY, MHD_OPTION_NOTIFY_COMPLETED, on_completed, s, MHD_OPTION_END);
    if (!d)
        close(fd);
    return d;
}

static int start_health(struct ts_httpd_server *s, struct ts_err *err)
{
    int fd;

    if (s->opts.health_port < 0)
        return 0;
    fd = open_listener(s->host, s->opts.health_port, err);
    if (fd < 0)
        return fd;
    s->health_port = bound_port(fd);
    s->health = MHD_start_daemon(base_flags, 0, NULL, NULL, on_health, s,
                                 MHD_OPTION_EXTERNAL_LOGGER, on_log, s, MHD_OPTION_LISTEN_SOCKET,
                                 (MHD_socket)fd, MHD_OPTION_CONNECTION_LIMIT, conn_limit(s),
                                 MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)s->opts.per_ip_limit,
                                 MHD_OPTION_CONNECTION_TIMEOUT, first_timeout(s), MHD_OPTION_END);
    if (!s->health) {
        close(fd);
        return ts_err_set(err, TS_EIO, "cannot start the health listener");
    }
    return 0;
}

int ts_httpd_server_start(const struct ts_httpd_server_options *o, const char *cert_pem,
                          const char *key_pem, struct ts_httpd_server **out, struct ts_err *err)
{
    struct ts_httpd_server *s = ts_xcalloc(1, sizeof(*s));
    int rc;

    s->opts = *o;
    s->name = ts_xstrdup(o->name && *o->name ? o->name : "httpd");
    s->host = ts_xstrdup(o->host ? o->host : "");
    s->opts.name = s->name;
    s->opts.host = s->host;
    s->opts.threads = o->threads > 2 ? o->threads : 2; /* a pool of 1 is refused */
    s->health_port = -1;
    s->listen_fd = -1;
    pthread_mutex_init(&s->mu, NULL);
    *out = NULL;
    s->listen_fd = open_listener(s->host, o->port, err);
    if (s->listen_fd < 0) {
        rc = s->listen_fd;
        ts_httpd_server_free(s);
        return rc;
    }
    s->port = bound_port(s->listen_fd);
    rc = ts_httpd_server_reload(s, cert_pem, key_pem, err);
    if (!rc)
        rc = start_health(s, err);
    if (rc) {
        ts_httpd_server_free(s);
        return rc;
    }
    *out = s;
    return 0;
}

/* Stops a daemon that has been swapped out: no new connections, up to
 * DRAIN_MS for open ones, then stop. */
static void retire(struct MHD_Daemon *d)
{
    MHD_socket fd;

    if (!d)
        return;
    fd = MHD_quiesce_daemon(d);
    if (fd != MHD_INVALID_SOCKET)
        close(fd);
    for (int waited = 0; waited < DRAIN_MS; waited += 10) {
        const union MHD_DaemonInfo *info =
            MHD_get_daemon_info(d, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);

        if (!info || info->num_connections == 0)
            break;
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    }
    MHD_stop_daemon(d);
}

int ts_httpd_server_reload(struct ts_httpd_server *s, const char *cert_pem, const char *key_pem,
                           struct ts_err *err)
{
    char *cert, *key, *old_cert, *old_key;
    struct MHD_Daemon *d, *old;
    int rc = ts_httpd_cert_check_pair(cert_pem, key_pem, err);

    if (rc) {
        char why[TS_ERR_MSG_MAX];

        snprintf(why, sizeof(why), "%s", err ? err->msg : ts_strerror(rc));
        return ts_err_set(err, TS_ETLS, "%s certificate not loaded: %s", s->name, why);
    }
    cert = ts_xstrdup(cert_pem);
    key = ts_xstrdup(key_pem);
    if (!(d = start_tls(s, cert, key))) {
        free(cert);
        free(key);
        return ts_err_set(err, TS_ETLS, "%s TLS daemon did not start with the certificate",
                          s->name);
    }
    pthread_mutex_lock(&s->mu);
    old = s->d, old_cert = s->cert, old_key = s->key;
    s->d = d, s->cert = cert, s->key = key;
    s->generation++;
    pthread_mutex_unlock(&s->mu);
    retire(old);
    free(old_cert);
    free(old_key);
    return 0;
}

int ts_httpd_server_port(const struct ts_httpd_server *s)
{
    return s ? s->port : -1;
}

int ts_httpd_server_health_port(const struct ts_httpd_server *s)
{
    return s ? s->health_port : -1;
}

unsigned ts_httpd_server_generation(struct ts_httpd_server *s)
{
    unsigned g;

    pthread_mutex_lock(&s->mu);
    g = s->generation;
    pthread_mutex_unlock(&s->mu);
    return g;
}

void ts_httpd_server_free(struct ts_httpd_server *s)
{
    if (!s)
        return;
    if (s->health)
        MHD_stop_daemon(s->health);
    if (s->d)
        MHD_stop_daemon(s->d);
    if (s->listen_fd >= 0)
        close(s->listen_fd);
    free(s->cert);
    free(s->key);
    free(s->name);
    free(s->host);
    pthread_mutex_destroy(&s->mu);
    free(s);
}
