/*
 * client_int.h - private structures of the client, shared by client.c
 * (queueing, sending, retries, completion) and client_req.c (URLs,
 * bodies, resources, blocking helpers).
 */
#ifndef TS_KUBE_CLIENT_INT_H
#define TS_KUBE_CLIENT_INT_H

#include "kube/backoff.h"
#include "kube/client.h"
#include "kube/cred.h"
#include "kube/http.h"
#include "kube/ratelimit.h"
#include "util/buf.h"
#include "util/hmap.h"

/* A rate-limit lane: one token bucket and the FIFO of the calls waiting
 * for its tokens (see lane_of() in client.c). */
struct ts__kube_lane {
    struct ts_ratelimit rl;
    struct ts_kube_call *qhead, *qtail;
};

struct ts_kube_client {
    struct ts_loop *loop;
    struct ts_http *http;
    const struct ts_kubeconfig *cfg;
    struct ts_kube_cred *cred;
    struct ts_kube_client_opts o;
    struct ts_hmap lane_of;      /* lane key -> lane index + 1 */
    struct ts__kube_lane *lanes; /* lanes[0..nlanes) */
    size_t nlanes;
    struct ts_backoff rng;    /* jitter source for retry delays */
    char *base;               /* server URL (host replaced for tls-server-name) */
    char *connect_to;         /* "name:port:host:port" or NULL */
    struct ts_kube_call *all; /* every live call */
    uint64_t qtimer;          /* the next start: see arm_queue() */
    int64_t qtimer_at;
    size_t active; /* calls other than watches with a request on the wire */
    ts_kube_gate_fn gate;
    void *gate_data;
    struct ts_kube_stats stats;
};

struct ts_kube_call {
    struct ts_kube_client *c;
    struct ts_kube_call *prev, *next; /* c->all */
    struct ts_kube_call *qnext;
    size_t lane; /* index into c->lanes */
    int queued;  /* in its lane's queue (qhead..qtail) */
    int active;  /* counted in c->active */
    enum ts_kube_verb verb;
    unsigned flags;
    const char *method, *content_type;
    char *path; /* URL path and fixed query part ("?a=b&" form) */
    char *body;
    size_t body_len;
    int64_t timeout_ns;
    ts_kube_stream_fn on_stream;
    void *stream_data;
    ts_kube_done_fn fn;
    void (*release)(void *data); /* runs in call_free() unless fn ran */
    int (*check)(void *data);    /* see ts_kube_req.check */
    void *data;
    int64_t ready_at, queued_at;
    uint64_t timer;
    struct ts_http_req *http;
    unsigned attempts;
    int unsure; /* see ts_kube_result.unsure */
    int auth_retried;
    struct ts_buf err_body; /* a failed watch's reply */
    int stream_rc;
    /* list_all paging */
    int paging, paged, restarted;
    long limit;
    char *cont;
    void (*on_page)(cJSON *items, void *data);
    cJSON *items;
};

/* Builds method, content type, path+query and body of a call from r.
 * Returns 0 or TS_EINVAL. */
int ts__kube_build(struct ts_kube_client *c, const struct ts_kube_req *r, struct ts_kube_call *call,
                   struct ts_err *err);

/* The full URL of the call's next attempt.  Ownership: caller frees. */
char *ts__kube_url(const struct ts_kube_call *call);

/* Appends s to b, percent-encoded as a query value. */
void ts__kube_escape(struct ts_buf *b, const char *s);

#endif
