/*
 * http.c - libcurl multi driven by ts_loop (see http.h).
 *
 * Cancelling inside a curl callback is deferred: libcurl forbids removing
 * a handle from within its own callbacks, so such requests are marked,
 * their data is no longer delivered, and they are removed right after
 * curl_multi_socket_action() returns.
 */
#include "kube/http.h"

#include <curl/curl.h>
#include <openssl/ssl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "util/alloc.h"
#include "util/log.h"
#include "util/parse.h"

#define DEFAULT_MAX_BODY        ((size_t)256 << 20)
#define TS_HTTP_MAX_CONNECTIONS 64L /* per server: the keep-alive pool */
/* Finished easy handles kept for the next requests: creating one (a large
 * zeroed struct and its buffers) and destroying it for every request
 * costs more than reusing it. */
#define IDLE_EASY_MAX 32

struct ts_http {
    struct ts_loop *loop;
    CURLM *multi;
    uint64_t timer;
    int in_curl;
    int http2;
    size_t pending;
    long connections;
    struct ts_http_req *deferred; /* cancelled inside a callback */
    struct ts_http_req *all;      /* every request not yet freed */
    struct ts_http_req *to_add;   /* created inside a callback, not yet added */
    CURL *idle[IDLE_EASY_MAX];    /* reset, off the multi handle */
    int n_idle;
};

struct ts_http_req {
    struct ts_http *h;
    CURL *easy;
    struct curl_slist *headers;
    struct curl_slist *connect_to;
    char *body;
    struct ts_buf resp;
    char content_type[128];
    long retry_after;
    ts_http_data_fn on_data;
    ts_http_done_fn on_done;
    void *data;
    int cancelled;
    int added; /* on the multi handle */
    struct ts_http_req *next_deferred;
    struct ts_http_req *prev, *next; /* h->all */
    char errbuf[CURL_ERROR_SIZE];
};

/* --- allocation through ts_x* ------------------------------------------- */

static void *x_malloc(size_t n)
{
    return ts_xmalloc(n);
}

static void *x_realloc(void *p, size_t n)
{
    return ts_xrealloc(p, n);
}

static char *x_strdup(const char *s)
{
    return ts_xstrdup(s);
}

static void *x_calloc(size_t n, size_t sz)
{
    return ts_xcalloc(n, sz);
}

/* --- loop glue ----------------------------------------------------------- */

static void check_done(struct ts_http *h);

static void flush_deferred(struct ts_http *h)
{
    while (h->deferred) {
        struct ts_http_req *r = h->deferred;

        h->deferred = r->next_deferred;
        r->next_deferred = NULL;
        r->cancelled = 2; /* now removable */
        ts_http_cancel(r);
    }
}

static int add(struct ts_http *h, struct ts_http_req *r);
static void req_free(struct ts_http_req *r);

/* Adds the requests created inside curl callbacks (libcurl refuses
 * recursive API calls), oldest first. */
static void flush_adds(struct ts_http *h)
{
    struct ts_http_req *list = NULL;

    while (h->to_add) { /* reverse into creation order */
        struct ts_http_req *r = h->to_add;

        h->to_add = r->next_deferred;
        r->next_deferred = list;
        list = r;
    }
    while (list) {
        struct ts_http_req *r = list;

        list = r->next_deferred;
        r->next_deferred = NULL;
        if (add(h, r)) {
            ts_log_error("http", "cannot start a deferred transfer");
            h->pending--;
            req_free(r);
        }
    }
}

static void action(struct ts_http *h, curl_socket_t fd, int ev)
{
    int running;

    h->in_curl++;
    curl_multi_socket_action(h->multi, fd, ev, &running);
    h->in_curl--;
    if (!h->in_curl) {
        flush_deferred(h);
        flush_adds(h);
    }
    check_done(h);
}

static void on_io(struct ts_loop *loop, int fd, unsigned events, void *data)
{
    int ev = 0;

    (void)loop;
    ev |= (events & TS_LOOP_READ) ? CURL_CSELECT_IN : 0;
    ev |= (events & TS_LOOP_WRITE) ? CURL_CSELECT_OUT : 0;
    ev |= (events & TS_LOOP_ERROR) ? CURL_CSELECT_ERR : 0;
    action(data, fd, ev);
}

static int sock_cb(CURL *e, curl_socket_t s, int what, void *userp, void *socketp)
{
    struct ts_http *h = userp;
    unsigned ev = 0;

    (void)e;
    (void)socketp;
    if (what == CURL_POLL_REMOVE) {
        ts_loop_unwatch(h->loop, s);
        return 0;
    }
    ev |= (what & CURL_POLL_IN) ? TS_LOOP_READ : 0;
    ev |= (what & CURL_POLL_OUT) ? TS_LOOP_WRITE : 0;
    return ts_loop_watch(h->loop, s, ev, on_io, h) ? -1 : 0;
}

static void on_timer(struct ts_loop *loop, void *data)
{
    struct ts_http *h = data;

    (void)loop;
    h->timer = 0;
    action(h, CURL_SOCKET_TIMEOUT, 0);
}

static int timer_cb(CURLM *m, long timeout_ms, void *userp)
{
    struct ts_http *h = userp;

    (void)m;
    ts_loop_timer_cancel(h->loop, h->timer);
    h->timer = 0;
    if (timeout_ms >= 0)
        h->timer = ts_loop_timer_add(h->loop, (int64_t)timeout_ms * 1000000, on_timer, h);
    return 0;
}

/* --- lifecycle ------------------------------------------------------------ */

struct ts_http *ts_http_new(struct ts_loop *loop, int http2)
{
    struct ts_http *h;

    if (curl_global_init_mem(CURL_GLOBAL_DEFAULT, x_malloc, free, x_realloc, x_strdup, x_calloc) !=
        CURLE_OK)
        return NULL;
    h = ts_xcalloc(1, sizeof(*h));
    h->loop = loop;
    h->http2 = http2;
    h->multi = curl_multi_init();
    curl_multi_setopt(h->multi, CURLMOPT_SOCKETFUNCTION, sock_cb);
    curl_multi_setopt(h->multi, CURLMOPT_SOCKETDATA, h);
    curl_multi_setopt(h->multi, CURLMOPT_TIMERFUNCTION, timer_cb);
    curl_multi_setopt(h->multi, CURLMOPT_TIMERDATA, h);
    curl_multi_setopt(h->multi, CURLMOPT_PIPELINING, (long)CURLPIPE_MULTIPLEX);
    curl_multi_setopt(h->multi, CURLMOPT_MAX_HOST_CONNECTIONS, TS_HTTP_MAX_CONNECTIONS);
    /* libcurl keeps 4 idle connections per easy handle in use by default:
     * after each burst the pool shrank and the next one reconnected (TLS
     * handshake, and a thread on a thread-per-connection server), 140
     * connections a second in a live benchmark */
    curl_multi_setopt(h->multi, CURLMOPT_MAXCONNECTS, TS_HTTP_MAX_CONNECTIONS);
    return h;
}

/* Frees r; its easy handle goes back to the idle list when `reuse` says
 * it is off the multi handle and the list has room. */
static void req_release(struct ts_http_req *r, int reuse)
{
    struct ts_http *h = r->h;

    if (r->prev)
        r->prev->next = r->next;
    else
        h->all = r->next;
    if (r->next)
        r->next->prev = r->prev;
    if (reuse && h->n_idle < IDLE_EASY_MAX) {
        curl_easy_reset(r->easy); /* every option is set again by the next request */
        h->idle[h->n_idle++] = r->easy;
    } else {
        curl_easy_cleanup(r->easy);
    }
    curl_slist_free_all(r->headers);
    curl_slist_free_all(r->connect_to);
    free(r->body);
    ts_buf_release(&r->resp);
    free(r);
}

static void req_free(struct ts_http_req *r)
{
    req_release(r, 0);
}

void ts_http_free(struct ts_http *h)
{
    if (!h)
        return;
    while (h->all) {
        if (h->all->added)
            curl_multi_remove_handle(h->multi, h->all->easy);
        req_free(h->all);
    }
    while (h->n_idle)
        curl_easy_cleanup(h->idle[--h->n_idle]);
    ts_loop_timer_cancel(h->loop, h->timer);
    curl_multi_cleanup(h->multi);
    free(h);
    curl_global_cleanup();
}

size_t ts_http_pending(const struct ts_http *h)
{
    return h->pending;
}

long ts_http_connections(const struct ts_http *h)
{
    return h->connections;
}

int ts_http_req_tls_buffers_kept(struct ts_http_req *req)
{
    struct curl_tlssessioninfo *info = NULL;

    if (curl_easy_getinfo(req->easy, CURLINFO_TLS_SSL_PTR, &info) != CURLE_OK || !info ||
        info->backend != CURLSSLBACKEND_OPENSSL || !info->internals)
        return -1;
    return !(SSL_get_mode((SSL *)info->internals) & SSL_MODE_RELEASE_BUFFERS);
}

/* --- completion ----------------------------------------------------------- */

static int transport_code(CURLcode c)
{
    switch (c) {
    case CURLE_OPERATION_TIMEDOUT:
        return TS_ETIMEDOUT;
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
        return TS_ETLS;
    default:
        return TS_EIO;
    }
}

static int never_sent(CURLcode c)
{
    return c == CURLE_COULDNT_CONNECT || c == CURLE_COULDNT_RESOLVE_HOST ||
           c == CURLE_COULDNT_RESOLVE_PROXY;
}

static void finish(struct ts_http *h, struct ts_http_req *r, CURLcode cc)
{
    struct ts_http_result res = {0};
    long ver = 0, conns = 0;

    curl_easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &res.status);
    curl_easy_getinfo(r->easy, CURLINFO_HTTP_VERSION, &ver);
    curl_easy_getinfo(r->easy, CURLINFO_NUM_CONNECTS, &conns);
    h->connections += conns;
    res.code = cc == CURLE_OK ? 0 : transport_code(cc);
    res.sent = !never_sent(cc);
    res.http_version = ver == CURL_HTTP_VERSION_2_0 ? 2 : 1;
    res.body = &r->resp;
    res.content_type = r->content_type;
    res.retry_after = r->retry_after;
    res.error = cc == CURLE_OK ? "" : (r->errbuf[0] ? r->errbuf : curl_easy_strerror(cc));
    r->on_done(r, &res, r->data);
    req_release(r, 1); /* check_done took it off the multi handle */
}

static void check_done(struct ts_http *h)
{
    CURLMsg *m;
    int left;

    while ((m = curl_multi_info_read(h->multi, &left))) {
        struct ts_http_req *r = NULL;
        CURLcode cc = m->data.result;

        if (m->msg != CURLMSG_DONE)
            continue;
        curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&r);
        curl_multi_remove_handle(h->multi, m->easy_handle);
        h->pending--;
        if (r->cancelled) {
            if (r->cancelled == 1)
                r->cancelled = 3; /* still on the deferred list: freed there */
            else
                req_free(r);
            continue;
        }
        finish(h, r, cc);
    }
}

void ts_http_cancel(struct ts_http_req *r)
{
    struct ts_http *h;

    if (!r)
        return;
    h = r->h;
    if (!r->added) { /* still on h->to_add */
        struct ts_http_req **pp = &h->to_add;

        while (*pp && *pp != r)
            pp = &(*pp)->next_deferred;
        if (*pp)
            *pp = r->next_deferred;
        h->pending--;
        req_free(r);
        return;
    }
    if (r->cancelled == 3) { /* completed while waiting on the deferred list */
        req_free(r);
        return;
    }
    if (h->in_curl && r->cancelled != 2) {
        if (!r->cancelled) {
            r->cancelled = 1;
            r->next_deferred = h->deferred;
            h->deferred = r;
        }
        return;
    }
    curl_multi_remove_handle(h->multi, r->easy);
    h->pending--;
    req_free(r);
}

/* --- transfer callbacks --------------------------------------------------- */

static size_t on_write(char *p, size_t sz, size_t n, void *userp)
{
    struct ts_http_req *r = userp;
    long status = 0;

    if (r->cancelled)
        return 0;
    if (r->on_data) {
        curl_easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &status);
        return r->on_data(r, status, p, n * sz, r->data) ? 0 : n * sz;
    }
    return ts_buf_add(&r->resp, p, n * sz) ? 0 : n * sz;
}

static void header_value(const char *p, size_t len, size_t name_len, char *out, size_t cap)
{
    size_t i = name_len;

    while (i < len && (p[i] == ' ' || p[i] == '\t'))
        i++;
    while (len > i && (p[len - 1] == '\r' || p[len - 1] == '\n' || p[len - 1] == ' '))
        len--;
    if (len - i >= cap)
        len = i + cap - 1;
    memcpy(out, p + i, len - i);
    out[len - i] = '\0';
}

static size_t on_header(char *p, size_t sz, size_t n, void *userp)
{
    struct ts_http_req *r = userp;
    size_t len = sz * n;
    char v[128];
    int64_t secs;

    if (len > 13 && !strncasecmp(p, "content-type:", 13)) {
        header_value(p, len, 13, r->content_type, sizeof(r->content_type));
    } else if (len > 12 && !strncasecmp(p, "retry-after:", 12)) {
        header_value(p, len, 12, v, sizeof(v));
        if (!ts_parse_i64_c(v, &secs) && secs >= 0)
            r->retry_after = (long)secs;
        else if ((secs = curl_getdate(v, NULL)) > 0)
            r->retry_after = secs > time(NULL) ? (long)(secs - time(NULL)) : 0;
    }
    return len;
}

/* --- setup ---------------------------------------------------------------- */

static void set_blob(CURL *e, CURLoption opt, const char *pem, size_t len)
{
    struct curl_blob b = {(void *)(uintptr_t)pem, len, CURL_BLOB_COPY};

    curl_easy_setopt(e, opt, &b);
}

/*
 * libcurl turns on SSL_MODE_RELEASE_BUFFERS, so OpenSSL frees a
 * connection's 16 KB read buffer whenever it is drained and allocates it
 * again for the next record: on a watch that is every event, and each
 * such large allocation makes glibc consolidate its fastbins.  A kept
 * pair of buffers costs about 34 KB per connection (at most
 * TS_HTTP_MAX_CONNECTIONS).
 */
static CURLcode keep_tls_buffers(CURL *e, void *ssl_ctx, void *data)
{
    (void)e;
    (void)data;
    SSL_CTX_clear_mode((SSL_CTX *)ssl_ctx, SSL_MODE_RELEASE_BUFFERS);
    return CURLE_OK;
}

static void set_tls(struct ts_http_req *r, const struct ts_http_tls *t)
{
    CURL *e = r->easy;

    /* CURLE_NOT_BUILT_IN with a libcurl not built on OpenSSL: fine */
    curl_easy_setopt(e, CURLOPT_SSL_CTX_FUNCTION, keep_tls_buffers);
    if (!t)
        return;
    if (t->ca_pem)
        set_blob(e, CURLOPT_CAINFO_BLOB, t->ca_pem, t->ca_pem_len);
    else if (t->ca_file)
        curl_easy_setopt(e, CURLOPT_CAINFO, t->ca_file);
    if (t->insecure) {
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    if (t->cert_pem)
        set_blob(e, CURLOPT_SSLCERT_BLOB, t->cert_pem, t->cert_pem_len);
    else if (t->cert_file)
        curl_easy_setopt(e, CURLOPT_SSLCERT, t->cert_file);
    if (t->key_pem)
        set_blob(e, CURLOPT_SSLKEY_BLOB, t->key_pem, t->key_pem_len);
    else if (t->key_file)
        curl_easy_setopt(e, CURLOPT_SSLKEY, t->key_file);
    if (t->proxy)
        curl_easy_setopt(e, CURLOPT_PROXY, t->proxy);
    if (t->username) {
        curl_easy_setopt(e, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
        curl_easy_setopt(e, CURLOPT_USERNAME, t->username);
        curl_easy_setopt(e, CURLOPT_PASSWORD, t->password ? t->password : "");
    }
    if (t->connect_to) {
        /* curl keeps a pointer to the list: freed with the request */
        r->connect_to = curl_slist_append(NULL, t->connect_to);
        curl_easy_setopt(e, CURLOPT_CONNECT_TO, r->connect_to);
    }
}

static void set_method(struct ts_http_req *r, const struct ts_http_opts *o)
{
    CURL *e = r->easy;

    if (!strcmp(o->method, "GET"))
        curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
    else
        curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, o->method);
    if (o->body) {
        r->body = ts_xmalloc(o->body_len + 1);
        memcpy(r->body, o->body, o->body_len);
        r->body[o->body_len] = '\0';
        curl_easy_setopt(e, CURLOPT_POSTFIELDS, r->body);
        curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)o->body_len);
    } else if (strcmp(o->method, "GET") && strcmp(o->method, "HEAD")) {
        curl_easy_setopt(e, CURLOPT_POSTFIELDS, "");
        curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)0);
    }
}

static void set_transfer(struct ts_http_req *r, const struct ts_http_opts *o)
{
    CURL *e = r->easy;

    curl_easy_setopt(e, CURLOPT_URL, o->url);
    curl_easy_setopt(e, CURLOPT_PRIVATE, r);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, r->errbuf);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_write);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, r);
    curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(e, CURLOPT_TCP_NODELAY, 1L);
    curl_easy_setopt(e, CURLOPT_PIPEWAIT, 1L);
    curl_easy_setopt(e, CURLOPT_HTTP_VERSION,
                     r->h->http2 ? (long)CURL_HTTP_VERSION_2TLS : (long)CURL_HTTP_VERSION_1_1);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS,
                     o->connect_timeout_ns > 0 ? (long)(o->connect_timeout_ns / 1000000) : 10000L);
    if (o->timeout_ns > 0)
        curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)(o->timeout_ns / 1000000));
    if (o->user_agent)
        curl_easy_setopt(e, CURLOPT_USERAGENT, o->user_agent);
    for (size_t i = 0; o->headers && o->headers[i]; i++)
        r->headers = curl_slist_append(r->headers, o->headers[i]);
    /* no "Expect: 100-continue" round trip on large bodies */
    r->headers = curl_slist_append(r->headers, "Expect:");
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, r->headers);
}

int ts_http_request(struct ts_http *h, const struct ts_http_opts *o, struct ts_http_req **out,
                    struct ts_err *err)
{
    struct ts_http_req *r;

    if (!o->method || !o->url || !o->on_done)
        return ts_err_set(err, TS_EINVAL, "http request needs a method, a URL and a callback");
    r = ts_xcalloc(1, sizeof(*r));
    r->h = h;
    r->easy = h->n_idle ? h->idle[--h->n_idle] : curl_easy_init();
    r->retry_after = -1;
    r->on_data = o->on_data;
    r->on_done = o->on_done;
    r->data = o->data;
    ts_buf_init(&r->resp, o->max_body ? o->max_body : DEFAULT_MAX_BODY);
    set_transfer(r, o);
    set_method(r, o);
    set_tls(r, o->tls);
    r->next = h->all;
    if (h->all)
        h->all->prev = r;
    h->all = r;
    if (h->in_curl) {
        r->next_deferred = h->to_add;
        h->to_add = r;
    } else if (add(h, r)) {
        req_free(r);
        return ts_err_set(err, TS_EIO, "%s %s: cannot start transfer", o->method, o->url);
    }
    h->pending++;
    if (out)
        *out = r;
    return 0;
}

static int add(struct ts_http *h, struct ts_http_req *r)
{
    if (curl_multi_add_handle(h->multi, r->easy) != CURLM_OK)
        return TS_EIO;
    r->added = 1;
    return 0;
}
