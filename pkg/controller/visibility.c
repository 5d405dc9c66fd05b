/*
 * visibility.c - Kueue's on-demand visibility API (api/visibility.h),
 * served by the controller from the engine that makes the decisions, so a
 * position can never disagree with the scheduler.
 *
 * Threads: the HTTPS server (httpd/server.h, its own small thread pool)
 * parses a request and answers discovery itself; a pending-workloads
 * request needs the engine, which belongs to the loop's thread.  So the
 * server thread queues the call, wakes the loop through an eventfd and
 * waits (at most WAIT_S) for the loop to fill in the answer.  The loop
 * answers every queued call in one pass under the mutex, which the
 * server threads hold only to queue and to wait.  A slow client costs a
 * socket, never the loop.
 *
 * TLS: a self-signed certificate generated at start, as Kueue's visibility
 * server has; its APIService sets insecureSkipTLSVerify as Kueue's does.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "api/meta.h"
#include "api/visibility.h"
#include "controller/manager_int.h"
#include "engine/explain.h"
#include "httpd/cert.h"
#include "httpd/server.h"
#include "json/json.h"
#include "util/alloc.h"
#include "util/log.h"

#define WAIT_S 10

struct call {
    const struct ts_visibility_req *req;
    struct ts_buf *out;
    int status;
    int done;
    struct call *next;
};

struct ts__ctl_vis {
    struct ts_ctl *c;
    pthread_mutex_t mu; /* guards queue, closing, and each call until done */
    pthread_cond_t cv;
    struct call *queue;
    int closing;
    int efd;
    struct ts_httpd_server *srv;
};

static int json_body(struct ts_buf *out, cJSON *doc)
{
    char *s = ts_json_dumps(doc, 0);

    ts_buf_adds(out, s);
    free(s);
    cJSON_Delete(doc);
    return 200;
}

static int status_body(struct ts_buf *out, int code, const char *reason, const char *msg)
{
    json_body(out, ts_status_new(code, reason, msg, NULL));
    return code;
}

/* On the loop's thread: the summary for one request. */
static int answer(struct ts_ctl *c, const struct ts_visibility_req *q, struct ts_buf *out)
{
    int lq = q->target == TS_VISIBILITY_LQ_PENDING;
    struct ts_pending_list l;
    cJSON *sum;
    char msg[600];

    if (ts_engine_pending(c->engine, lq ? NULL : q->cluster_queue, lq ? q->ns : NULL,
                          lq ? q->local_queue : NULL, q->offset, q->limit, &l)) {
        snprintf(msg, sizeof(msg), "%s.%s \"%s\" not found", lq ? "localqueue" : "clusterqueue",
                 TS_VISIBILITY_GROUP, lq ? q->local_queue : q->cluster_queue);
        return status_body(out, 404, "NotFound", msg);
    }
    sum = ts_visibility_summary_new(q->version);
    for (size_t i = 0; i < l.n; i++) {
        const struct ts_pending_item *p = &l.items[i];
        cJSON *wl =
            c->inf[TS__CTL_WL] ? ts_informer_fetch(c->inf[TS__CTL_WL], p->ns, p->name) : NULL;
        struct ts_visibility_item it = {0};

        it.ns = p->ns;
        it.name = p->name;
        it.local_queue = p->local_queue;
        it.priority = p->priority;
        it.position_in_cq = p->position_in_cq;
        it.position_in_lq = p->position_in_lq;
        it.created = p->created;
        it.owner_refs = ts_json_get(wl, "metadata.ownerReferences");
        it.creation_stamp = ts_json_get_string(wl, "metadata.creationTimestamp");
        ts_visibility_add_item(sum, &it);
        cJSON_Delete(wl);
    }
    ts_pending_list_release(&l);
    return json_body(out, sum);
}

/* The loop: answers every queued call. */
static void on_wake(struct ts_loop *loop, int fd, unsigned events, void *data)
{
    struct ts__ctl_vis *v = data;
    uint64_t n;

    (void)loop, (void)events;
    while (read(fd, &n, sizeof(n)) > 0)
        ;
    pthread_mutex_lock(&v->mu);
    while (v->queue) {
        struct call *k = v->queue;

        v->queue = k->next;
        k->status = answer(v->c, k->req, k->out);
        k->done = 1;
    }
    pthread_cond_broadcast(&v->cv);
    pthread_mutex_unlock(&v->mu);
}

static void unlink_call(struct ts__ctl_vis *v, struct call *k)
{
    for (struct call **p = &v->queue; *p; p = &(*p)->next) {
        if (*p == k) {
            *p = k->next;
            return;
        }
    }
}

/* A server thread: hands the call to the loop and waits for it. */
static int ask_loop(struct ts__ctl_vis *v, const struct ts_visibility_req *q, struct ts_buf *out)
{
    struct call k = {q, out, 0, 0, NULL};
    struct timespec until;
    uint64_t one = 1;
    int rc = 0;

    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += WAIT_S;
    pthread_mutex_lock(&v->mu);
    if (v->closing) {
        pthread_mutex_unlock(&v->mu);
        return status_body(out, 503, "ServiceUnavailable", "the controller is shutting down");
    }
    k.next = v->queue;
    /* k lives on this stack until it is unlinked below or answered */
    v->queue = &k; // cppcheck-suppress autoVariables
    if (write(v->efd, &one, sizeof(one)) < 0 && errno != EAGAIN)
        ts_log_warn("visibility", "cannot wake the loop: %s", strerror(errno));
    while (!k.done && !v->closing && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait(&v->cv, &v->mu, &until);
    if (!k.done)
        unlink_call(v, &k);
    pthread_mutex_unlock(&v->mu);
    if (!k.done)
        return status_body(out, 503, "ServiceUnavailable",
                           v->closing ? "the controller is shutting down"
                                      : "the controller did not answer in time; retry");
    return k.status;
}

static int on_get(void *ud, const char *path, const struct ts_strmap *query, struct ts_buf *out)
{
    struct ts__ctl_vis *v = ud;
    struct ts_visibility_req q;
    struct ts_err err = {0};
    int rc = ts_visibility_parse(path, ts_strmap_get(query, "limit"),
                                 ts_strmap_get(query, "offset"), &q, &err);

    if (rc == TS_ENOTFOUND)
        return status_body(out, 404, "NotFound", err.msg);
    if (rc)
        return status_body(out, 400, "BadRequest", err.msg);
    if (q.target == TS_VISIBILITY_GROUP_DOC)
        return json_body(out, ts_visibility_group_doc());
    if (q.target == TS_VISIBILITY_RESOURCES)
        return json_body(out, ts_visibility_resources_doc(q.version));
    /* before the informers synced the engine does not know the queues yet */
    if (!__atomic_load_n(&v->c->ready, __ATOMIC_ACQUIRE))
        return status_body(out, 503, "ServiceUnavailable", "the controller has not synced yet");
    return ask_loop(v, &q, out);
}

static struct ts__ctl_vis *vis_new(struct ts_ctl *c)
{
    struct ts__ctl_vis *v = ts_xcalloc(1, sizeof(*v));

    v->c = c;
    v->efd = -1;
    pthread_mutex_init(&v->mu, NULL);
    pthread_cond_init(&v->cv, NULL);
    return v;
}

int ts__ctl_vis_start(struct ts_ctl *c, struct ts_err *err)
{
    struct ts_httpd_cert_options co;
    struct ts_httpd_cert_bundle cert;
    struct ts_httpd_server_options so;
    struct ts__ctl_vis *v;
    char host[256];
    int port, rc;

    if (!c->opts.visibility_addr || !strcmp(c->opts.visibility_addr, "0"))
        return 0;
    if (ts__ctl_split_addr("visibility", c->opts.visibility_addr, host, sizeof(host), &port, err))
        return err->code;
    v = c->vis = vis_new(c);
    v->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (v->efd < 0)
        return ts_err_set(err, TS_EIO, "visibility: eventfd: %s", strerror(errno));
    if (ts_loop_watch(c->loop, v->efd, TS_LOOP_READ, on_wake, v))
        return ts_err_set(err, TS_EIO, "visibility: cannot watch the eventfd");
    ts_httpd_cert_options_init(&co, "turnstile-visibility-server", c->opts.lease_ns);
    ts_httpd_cert_bundle_init(&cert);
    if ((rc = ts_httpd_cert_generate(&co, ts__ctl_now(c), &cert, err)))
        return rc;
    ts_httpd_server_options_init(&so);
    so.name = "visibility";
    so.host = host;
    so.port = port;
    so.threads = 2;
    so.get = on_get;
    so.get_ud = v;
    rc = ts_httpd_server_start(&so, cert.cert_pem, cert.key_pem, &v->srv, err);
    ts_httpd_cert_bundle_release(&cert);
    if (rc)
        return rc;
    ts_log_info("controller", "visibility API serving on %s:%d (%s, TLS)", host[0] ? host : "*",
                ts_httpd_server_port(v->srv), TS_VISIBILITY_GROUP);
    return 0;
}

void ts__ctl_vis_stop(struct ts_ctl *c)
{
    struct ts__ctl_vis *v = c->vis;

    if (!v)
        return;
    pthread_mutex_lock(&v->mu);
    v->closing = 1; /* waiting server threads give up, so the server can stop */
    pthread_cond_broadcast(&v->cv);
    pthread_mutex_unlock(&v->mu);
    ts_httpd_server_free(v->srv);
    if (v->efd >= 0) {
        ts_loop_unwatch(c->loop, v->efd);
        close(v->efd);
    }
    pthread_cond_destroy(&v->cv);
    pthread_mutex_destroy(&v->mu);
    free(v);
    c->vis = NULL;
}
