/*
 * http.c - libmicrohttpd glue: one thread per connection (see apiserver.h
 * for why), request bodies gathered up to a cap, bearer-token checks,
 * the handler called under the server mutex, replies with Content-Type
 * and Warning headers, streamed watch replies, and the access log.
 */
#include "apiserver/server_int.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "apiserver/faults.h"
#include "httpd/fdlimit.h"
#include "util/alloc.h"
#include "util/log.h"

/* connections at most: each is a file and a thread of the server */
#define AS_CONN_MAX 16384u

#define TS__AS_HEADER_TIMEOUT_S 10

struct conn {
    struct ts_buf body;
    int too_big;
};

static ts_time clock_ns(clockid_t id)
{
    struct timespec ts;

    clock_gettime(id, &ts);
    return (ts_time)ts.tv_sec * TS_TIME_SECOND + ts.tv_nsec;
}

static enum MHD_Result add_arg(void *cls, enum MHD_ValueKind kind, const char *key,
                               const char *value)
{
    (void)kind;
    ts_strmap_set(cls, key, value ? value : "");
    return MHD_YES;
}

static int public_path(const char *p)
{
    return !strcmp(p, "/version") || !strncmp(p, "/healthz", 8) || !strncmp(p, "/readyz", 7) ||
           !strncmp(p, "/livez", 6);
}

static int authorized(struct ts_apiserver *s, struct MHD_Connection *c, const char *path)
{
    const char *h;

    if (!s->token || public_path(path))
        return 1;
    h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
    return h && !strncmp(h, "Bearer ", 7) && !strcmp(h + 7, s->token);
}

static void add_warning(struct MHD_Response *resp, const char *text)
{
    struct ts_buf b = TS_BUF_INIT;

    ts_buf_adds(&b, "299 - \"");
    for (const char *p = text; *p; p++) {
        if (*p == '"' || *p == '\\')
            ts_buf_addc(&b, '\\');
        ts_buf_addc(&b, (*p == '\n' || *p == '\r') ? ' ' : *p);
    }
    ts_buf_addc(&b, '"');
    MHD_add_response_header(resp, "Warning", b.ptr);
    ts_buf_release(&b);
}

static struct MHD_Response *make_response(struct ts__as_resp *r, int cut)
{
    struct MHD_Response *resp;
    char ra[24];

    if (cut && !r->watch) {
        resp = ts__as_faults_cut_response(r);
    } else if (r->watch) {
        resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 32 * 1024, ts__as_watch_read,
                                                 r->watch, ts__as_watch_free);
    } else {
        size_t len = r->body.len;
        char *body = ts_buf_take(&r->body);

        resp = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
    }
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, r->ctype);
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache, private");
    for (size_t i = 0; i < r->warnings.n; i++)
        add_warning(resp, r->warnings.items[i]);
    if (r->retry_after > 0) {
        snprintf(ra, sizeof(ra), "%lld", (long long)r->retry_after);
        MHD_add_response_header(resp, "Retry-After", ra);
    }
    return resp;
}

static void fill_req(struct ts__as_req *q, struct ts_apiserver *s, struct MHD_Connection *c,
                     const char *url, const char *method, struct conn *st)
{
    memset(q, 0, sizeof(*q));
    q->s = s;
    q->method = method;
    q->path = url;
    ts_strmap_init(&q->query);
    MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, add_arg, &q->query);
    q->accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
    q->ctype = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE);
    q->user_agent = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_USER_AGENT);
    q->body = st->body;
    q->now = clock_ns(CLOCK_REALTIME);
    q->faulty = ts__as_faults_apply(
        s, url, MHD_lookup_connection_value(c, MHD_HEADER_KIND, "X-Turnstile-Faults"));
}

/* Whether the client closed its connection (EOF waiting on the socket). */
static int client_gone(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    char b;

    return ci && recv(ci->connect_fd, &b, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}

/* Serves q under the store lock, unless it writes and its client has
 * gone: kube-apiserver cancels a request's context when its client
 * disconnects, and a cancelled write never reaches storage.  Checked under
 * the lock, a write either lands before its client's death is visible or
 * not at all, so a successor's first write after starting (the start
 * fence, pkg/controller/fence.c) is ordered after every write of a dead
 * predecessor. */
static void handle_live(struct ts__as_req *q, struct ts__as_resp *r, struct MHD_Connection *c)
{
    if (strcmp(q->method, "GET") && strcmp(q->method, "HEAD") && client_gone(c))
        ts__as_reply_status(r, 503, "ServiceUnavailable", "the client went away", NULL);
    else
        ts__as_handle(q, r);
}

static void serve(struct ts_apiserver *s, struct ts__as_req *q, struct ts__as_resp *r,
                  struct conn *st, struct MHD_Connection *c)
{
    struct ts__as_proxy px;

    if (st->too_big) {
        ts__as_reply_status(r, 413, "RequestEntityTooLarge", "the request is too large", NULL);
    } else if (!authorized(s, c, q->path)) {
        ts__as_reply_status(r, 401, "Unauthorized", "Unauthorized", NULL);
    } else {
        /* one acquisition of the lock per request: every write waits for
         * it, and taking it twice doubled the queue under load */
        ts__as_body_preparse(q);
        pthread_mutex_lock(&s->mu);
        if (ts__as_aggregated(s, q, &px)) {
            pthread_mutex_unlock(&s->mu);
            ts__as_proxy(s, &px, q, r);
            ts__as_proxy_release(&px);
            return;
        }
        handle_live(q, r, c);
        while (ts__as_admit_pending(q)) {
            int stop;

            pthread_mutex_unlock(&s->mu); /* webhooks may call us back */
            stop = ts__as_admit_run(q, r);
            pthread_mutex_lock(&s->mu);
            if (stop)
                break;
            ts__as_resp_release(r);
            ts__as_resp_init(r);
            ts__as_route_release(&q->rt);
            q->res = NULL;
            q->ver = NULL;
            handle_live(q, r, c);
        }
        ts__as_wal_sync(s); /* every acknowledged write is on disk first */
        pthread_mutex_unlock(&s->mu);
        ts__as_admit_finish(q, r);
    }
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_size, void **con_cls)
{
    struct ts_apiserver *s = cls;
    struct conn *st = *con_cls;
    struct ts__as_req q;
    struct ts__as_resp r;
    struct MHD_Response *resp;
    enum MHD_Result ret;
    ts_time t0;
    int cut = 0;

    (void)version;
    if (!st) {
        /* a request got through: no timeout from here on (a watch may be
         * quiet for minutes), as kube-apiserver */
        MHD_set_connection_option(c, MHD_CONNECTION_OPTION_TIMEOUT, 0u);
        st = ts_xcalloc(1, sizeof(*st));
        ts_buf_init(&st->body, TS__AS_BODY_MAX);
        *con_cls = st;
        return MHD_YES;
    }
    if (*upload_size) {
        if (ts_buf_add(&st->body, upload, *upload_size))
            st->too_big = 1;
        *upload_size = 0;
        return MHD_YES;
    }
    t0 = clock_ns(CLOCK_MONOTONIC);
    fill_req(&q, s, c, url, method, st);
    ts__as_resp_init(&r);
    /* A request whose client went away while --faults held it (a pause,
     * latency) is not served: kube-apiserver cancels a request's context
     * when its client disconnects, and a write that has not reached
     * storage then is not applied.  Applied late, a killed controller's
     * admission could land after its successor had listed the Workloads
     * and admitted into the same quota. */
    if (!q.faulty || !ts__as_faults_before(&q, &r, &cut)) {
        if (q.faulty && client_gone(c))
            ts__as_reply_status(&r, 503, "ServiceUnavailable", "the client went away", NULL);
        else
            serve(s, &q, &r, st, c);
    }
    if (s->opts.access_log)
        ts_log_info("apiserver", "method=%s path=%s code=%d bytes=%zu watch=%d dur_us=%lld", method,
                    url, r.code, r.body.len, r.watch != NULL,
                    (long long)((clock_ns(CLOCK_MONOTONIC) - t0) / 1000));
    if (cut == TS_FAULT_CUT_IF_DONE && (r.code < 200 || r.code >= 300))
        cut = 0; /* write-cut: a refused write's reply is sent whole */
    resp = make_response(&r, cut);
    ret = MHD_queue_response(c, (unsigned)r.code, resp);
    MHD_destroy_response(resp);
    ts__as_resp_release(&r);
    ts__as_route_release(&q.rt);
    ts_strmap_release(&q.query);
    cJSON_Delete(q.parsed);
    return ret;
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    struct conn *st = *con_cls;

    (void)cls;
    (void)c;
    (void)toe;
    if (!st)
        return;
    ts_buf_release(&st->body);
    free(st);
    *con_cls = NULL;
}

int ts__as_http_start(struct ts_apiserver *s, const char *host, int port, struct ts_err *err)
{
    struct sockaddr_in addr;
    unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
                     MHD_USE_POLL | MHD_USE_ERROR_LOG;
    const union MHD_DaemonInfo *info;

    memset(&addr, 0, sizeof(addr));
    addr.sin_family = AF_INET;
    addr.sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, host, &addr.sin_addr) != 1)
        return ts_err_set(err, TS_EINVAL, "listen address '%s' is not an IPv4 address", host);
    struct MHD_OptionItem tls[] = {
        {MHD_OPTION_HTTPS_MEM_KEY, 0, s->key_pem},
        {MHD_OPTION_HTTPS_MEM_CERT, 0, s->cert_pem},
        {MHD_OPTION_END, 0, NULL},
    };
    if (s->tls)
        flags |= MHD_USE_TLS;
    else
        tls[0].option = MHD_OPTION_END;
    /* a connection must finish its TLS handshake and request headers
     * without idling TS__AS_HEADER_TIMEOUT_S: half-open handshakes (a
     * cutting proxy, a scanner) are closed instead of holding a thread and
     * a connection slot for ever */
    s->mhd = MHD_start_daemon(flags, 0, NULL, NULL, on_request, s, MHD_OPTION_SOCK_ADDR,
                              (struct sockaddr *)&addr, MHD_OPTION_NOTIFY_COMPLETED, on_completed,
                              s, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)TS__AS_HEADER_TIMEOUT_S,
                              MHD_OPTION_CONNECTION_LIMIT, ts_httpd_conn_budget(AS_CONN_MAX),
                              MHD_OPTION_LISTEN_BACKLOG_SIZE, 4096u, MHD_OPTION_ARRAY, tls,
                              MHD_OPTION_END);
    if (!s->mhd)
        return ts_err_set(err, TS_EIO, "cannot listen on %s:%d", host, port);
    info = MHD_get_daemon_info(s->mhd, MHD_DAEMON_INFO_BIND_PORT);
    s->port = info ? info->port : port;
    return 0;
}

void ts__as_http_stop(struct ts_apiserver *s)
{
    if (!s->mhd)
        return;
    pthread_mutex_lock(&s->mu);
    s->stopping = 1;
    pthread_cond_broadcast(&s->cond);
    pthread_mutex_unlock(&s->mu);
    MHD_stop_daemon(s->mhd);
    s->mhd = NULL;
}
