/*
 * server.c - the metrics/health HTTP endpoint on libmicrohttpd's own
 * thread (see server.h).
 */
#include "metrics/server.h"

#include <errno.h>
#include <microhttpd.h>
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/log.h"

#define COMPONENT     "metrics"
#define METRICS_TYPE  "text/plain; version=0.0.4; charset=utf-8"
#define TEXT_TYPE     "text/plain; charset=utf-8"
#define RENDER_MAX    (256u * 1024u * 1024u) /* runaway cardinality fails, not OOMs */
#define HEADER_MEMORY (32u * 1024u)

struct ts_metrics_server {
    struct ts_metrics_registry *reg;
    ts_metrics_ready_fn ready;
    void *ready_ud;
    struct MHD_Daemon *d;
    int port;
    int probes_only;
};

void ts_metrics_server_options_init(struct ts_metrics_server_options *o)
{
    memset(o, 0, sizeof(*o));
    o->port = TS_METRICS_SERVER_DEFAULT_PORT;
    o->timeout_s = 10;
    o->conn_limit = 64;
}

/* Queues body (moved out of b) with status and content type. */
static enum MHD_Result respond(struct MHD_Connection *c, unsigned status, struct ts_buf *b,
                               const char *type)
{
    size_t len = b->len;
    struct MHD_Response *r =
        MHD_create_response_from_buffer(len, ts_buf_take(b), MHD_RESPMEM_MUST_FREE);
    enum MHD_Result ret;

    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
        MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
    ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result respond_text(struct MHD_Connection *c, unsigned status, const char *text)
{
    struct ts_buf b = TS_BUF_INIT;

    ts_buf_adds(&b, text);
    return respond(c, status, &b, TEXT_TYPE);
}

static enum MHD_Result serve_metrics(struct ts_metrics_server *s, struct MHD_Connection *c)
{
    struct ts_buf b;
    int rc;

    ts_buf_init(&b, RENDER_MAX);
    rc = ts_metrics_render(s->reg, &b);
    if (rc) {
        ts_log_error(COMPONENT, "rendering /metrics failed: %s", ts_strerror(rc));
        ts_buf_release(&b);
        return respond_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "metrics too large\n");
    }
    return respond(c, MHD_HTTP_OK, &b, METRICS_TYPE);
}

static enum MHD_Result serve_readyz(struct ts_metrics_server *s, struct MHD_Connection *c)
{
    struct ts_buf why = TS_BUF_INIT;

    if (!s->ready || s->ready(s->ready_ud, &why)) {
        ts_buf_release(&why);
        return respond_text(c, MHD_HTTP_OK, "ok");
    }
    if (why.len == 0)
        ts_buf_adds(&why, "not ready");
    return respond(c, MHD_HTTP_SERVICE_UNAVAILABLE, &why, TEXT_TYPE);
}

/* Answers on the first callback: no path here reads a request body. */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **con_cls)
{
    struct ts_metrics_server *s = cls;

    (void)version, (void)upload_data, (void)upload_data_size, (void)con_cls;
    if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
        return respond_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed\n");
    if (!s->probes_only && strcmp(url, "/metrics") == 0)
        return serve_metrics(s, c);
    if (strcmp(url, "/healthz") == 0)
        return respond_text(c, MHD_HTTP_OK, "ok");
    if (strcmp(url, "/readyz") == 0)
        return serve_readyz(s, c);
    return respond_text(c, MHD_HTTP_NOT_FOUND, "404 page not found\n");
}

__attribute__((format(printf, 2, 0))) static void on_log(void *cls, const char *fmt, va_list ap)
{
    char line[512];
    size_t n;

    (void)cls;
    vsnprintf(line, sizeof(line), fmt, ap);
    n = strlen(line);
    while (n && line[n - 1] == '\n')
        line[--n] = '\0';
    ts_log_debug(COMPONENT, "libmicrohttpd: %s", line);
}

/* --- listening socket ---------------------------------------------------------- */

static int listen_on(const struct addrinfo *ai)
{
    int one = 1, zero = 0, e;
    int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);

    if (fd < 0)
        return -1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (ai->ai_family == AF_INET6) /* "::" serves IPv4 too */
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
    if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, 1024) == 0)
        return fd;
    e = errno;
    close(fd);
    errno = e;
    return -1;
}

/* Binds host:port, trying each address host resolves to; "" tries "::"
 * (dual stack), then 0.0.0.0.  Returns the fd, TS_EINVAL or TS_EIO. */
static int open_listener(const char *host, int port, struct ts_err *err)
{
    const char *any[] = {"::", "0.0.0.0"}, *one[] = {host};
    const char *const *cands = host && *host ? one : any;
    size_t n = host && *host ? 1 : 2;
    struct addrinfo hints = {0};
    char svc[16];
    int fd = -1, e = EADDRNOTAVAIL;

    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    snprintf(svc, sizeof(svc), "%d", port);
    for (size_t i = 0; i < n && fd < 0; i++) {
        struct addrinfo *res = NULL;

        if (getaddrinfo(cands[i], svc, &hints, &res) != 0) {
            if (n == 1)
                return ts_err_set(err, TS_EINVAL, "metrics: cannot resolve '%s'", host);
            continue;
        }
        for (const struct addrinfo *ai = res; ai && fd < 0; ai = ai->ai_next)
            if ((fd = listen_on(ai)) < 0)
                e = errno;
        freeaddrinfo(res);
    }
    if (fd < 0)
        return ts_err_set(err, TS_EIO, "metrics: listen on %s:%d: %s", host && *host ? host : "*",
                          port, strerror(e));
    return fd;
}

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

/* --- lifecycle -------------------------------------------------------------------- */

int ts_metrics_server_start(struct ts_metrics_registry *reg,
                            const struct ts_metrics_server_options *o,
                            struct ts_metrics_server **out, struct ts_err *err)
{
    struct ts_metrics_server *s;
    int fd = open_listener(o->host, o->port, err);

    *out = NULL;
    if (fd < 0)
        return fd;
    s = ts_xcalloc(1, sizeof(*s));
    s->reg = reg;
    s->ready = o->ready;
    s->ready_ud = o->ready_ud;
    s->probes_only = o->probes_only;
    s->port = bound_port(fd);
    s->d = MHD_start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_ITC | MHD_USE_ERROR_LOG, 0, NULL,
        NULL, on_request, s, MHD_OPTION_EXTERNAL_LOGGER, on_log, s, MHD_OPTION_LISTEN_SOCKET,
        (MHD_socket)fd, MHD_OPTION_CONNECTION_LIMIT, o->conn_limit ? o->conn_limit : 64u,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, o->per_ip_limit ? o->per_ip_limit : 64u,
        MHD_OPTION_CONNECTION_TIMEOUT, o->timeout_s ? o->timeout_s : 10u,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)HEADER_MEMORY, MHD_OPTION_END);
    if (!s->d) {
        close(fd);
        free(s);
        return ts_err_set(err, TS_EIO, "metrics: cannot start the HTTP server on port %d", o->port);
    }
    ts_log_info(COMPONENT, "serving %s port=%d", o->probes_only ? "/healthz /readyz" : "/metrics",
                s->port);
    *out = s;
    return 0;
}

int ts_metrics_server_port(const struct ts_metrics_server *s)
{
    return s ? s->port : -1;
}

void ts_metrics_server_free(struct ts_metrics_server *s)
{
    if (!s)
        return;
    MHD_stop_daemon(s->d); /* joins the thread and closes the listening socket */
    free(s);
}
