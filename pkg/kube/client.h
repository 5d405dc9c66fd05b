/*
 * client.h - the Kubernetes API client: get, list, create, update, patch
 * (merge, JSON, strategic, server-side apply), delete and watch on any
 * group/version/resource, including subresources such as status.
 *
 * Requests are asynchronous: ts_kube_submit() queues one and its callback
 * runs on the loop thread when it is done.  On the way every request
 *   - waits for a token of its lane's rate limiter (token bucket, QPS
 *     and burst; Kueue's defaults 20/30), in submission order within the
 *     lane.  Each resource has two lanes, as each kind has two REST
 *     clients in Kueue's controller-runtime: lists and watches (the
 *     informers), and every other verb;
 *   - carries the credentials of the kubeconfig (bearer token, rotating
 *     token file, client certificate, basic auth, exec plugin; a 401
 *     refreshes plugin or file credentials once and retries);
 *   - has a timeout (60 s by default; watches: timeoutSeconds + 30 s);
 *   - is retried with jittered exponential backoff when that is safe:
 *     connection failures before anything was sent and 429 (honouring
 *     Retry-After) for every verb; other transport errors and 5xx for
 *     idempotent verbs only (GET, LIST, PUT, DELETE);
 *   - shares connections through one curl multi (HTTP/2 when offered).
 * Failures arrive as TS_E* codes with the decoded metav1.Status
 * (status.h): NotFound -> TS_ENOTFOUND, Conflict -> TS_ECONFLICT, …
 *
 * Writes can be gated (leader election): while the gate says no, every
 * create/update/patch/delete fails at once with TS_EFORBIDDEN, also those
 * already queued, except requests flagged TS_KUBE_REQ_UNGATED.
 *
 * ts_kube_do() and the *_sync helpers run the loop until their request is
 * done, for command-line tools; controllers use the callbacks.
 *
 * Thread rule: loop thread only.
 * Ownership: ts_kube_client_new() borrows the loop and the kubeconfig,
 * which must outlive the client; ts_kube_client_free() cancels pending
 * calls without running their callbacks.  Requests are copied at submit.
 */
#ifndef TS_KUBE_CLIENT_H
#define TS_KUBE_CLIENT_H

#include <cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "kube/kubeconfig.h"
#include "kube/loop.h"
#include "kube/status.h"
#include "util/buf.h"
#include "util/err.h"

#ifndef TS_VERSION
#define TS_VERSION "0.1.0"
#endif
#define TS_KUBE_USER_AGENT "turnstile/" TS_VERSION

struct ts_kube_client;
struct ts_kube_call;

/* A resource: group ("" = core), version, plural, kind, scope. */
struct ts_kube_resource {
    const char *group;
    const char *version;
    const char *resource;
    const char *kind;
    int namespaced;
};

/* Resources Turnstile uses; Kueue's kinds at their storage version,
 * kueue.x-k8s.io/v1beta2 (v1beta1 is served through conversion). */
extern const struct ts_kube_resource ts_kube_res_namespaces, ts_kube_res_pods, ts_kube_res_events,
    ts_kube_res_configmaps, ts_kube_res_jobs, ts_kube_res_leases, ts_kube_res_workloads,
    ts_kube_res_clusterqueues, ts_kube_res_localqueues, ts_kube_res_resourceflavors,
    ts_kube_res_cohorts, ts_kube_res_workloadpriorityclasses, ts_kube_res_admissionchecks,
    ts_kube_res_priorityclasses, ts_kube_res_crds, ts_kube_res_limitranges,
    ts_kube_res_runtimeclasses, ts_kube_res_provisioningrequestconfigs,
    ts_kube_res_provisioningrequests, ts_kube_res_podtemplates, ts_kube_res_trainingruntimes,
    ts_kube_res_clustertrainingruntimes;

enum ts_kube_verb {
    TS_KUBE_GET = 0,
    TS_KUBE_LIST,
    TS_KUBE_CREATE,
    TS_KUBE_UPDATE,
    TS_KUBE_PATCH,
    TS_KUBE_DELETE,
    TS_KUBE_WATCH,
    /* DELETE of a whole collection (deletecollection), narrowed by
     * label_selector/field_selector: a verb of its own so that a missing
     * name can never widen a delete */
    TS_KUBE_DELETE_COLLECTION,
};

enum ts_kube_patch {
    TS_KUBE_PATCH_MERGE = 0, /* application/merge-patch+json (RFC 7386) */
    TS_KUBE_PATCH_JSON,      /* application/json-patch+json (RFC 6902) */
    TS_KUBE_PATCH_STRATEGIC, /* application/strategic-merge-patch+json (built-ins only) */
    TS_KUBE_PATCH_APPLY,     /* application/apply-patch+yaml: server-side apply */
};

enum ts_kube_req_flags {
    TS_KUBE_REQ_NO_RETRY = 1 << 0, /* never retry */
    TS_KUBE_REQ_UNGATED = 1 << 1,  /* a write allowed while the gate is closed (the Lease) */
    /* the caller reads only the outcome: a 2xx reply body is not decoded
     * (result obj NULL, body still set); saves a parse per write whose
     * reply nobody reads (Events) or reads one field of */
    TS_KUBE_REQ_NO_REPLY = 1 << 2,
};

/* Streams a watch body (TS_KUBE_WATCH only).  Return nonzero to stop the
 * watch (it then completes with that code). */
typedef int (*ts_kube_stream_fn)(const char *p, size_t n, void *data);

/* One request.  Strings and body are copied by ts_kube_submit(). */
struct ts_kube_req {
    enum ts_kube_verb verb;
    const struct ts_kube_resource *res;
    const char *ns; /* namespace; NULL: cluster-scoped, or all namespaces */
    const char *name;
    const char *subresource; /* "status", "scale", … */
    const cJSON *body;       /* create/update object, patch document */
    /* ...or the same as JSON text, body_len bytes, when body is NULL:
     * for a document written as text (an Event), with no tree built */
    const char *body_text;
    size_t body_len;
    enum ts_kube_patch patch;
    const char *field_manager; /* required for TS_KUBE_PATCH_APPLY */
    int force;                 /* apply: take over conflicting fields */
    const char *dry_run;       /* "All" or NULL */
    /* list and watch */
    const char *label_selector, *field_selector;
    const char *resource_version;
    long limit; /* list page size; 0 = everything */
    /* list_all: each page's items as they arrive (consumed; the result
     * then has no items), or NULL when the list starts over (an expired
     * continue token).  NULL: the items are gathered into the result.
     * Gathered, a relist of many Workloads is held whole as cJSON. */
    void (*on_page)(cJSON *items, void *data);
    const char *cont;            /* continue token */
    long timeout_seconds;        /* watch: server-side timeoutSeconds */
    int bookmarks;               /* watch: allowWatchBookmarks */
    ts_kube_stream_fn on_stream; /* watch: body bytes as they arrive */
    /* delete */
    const char *propagation; /* "Background", "Foreground", "Orphan" or NULL */
    const char *precondition_uid, *precondition_rv;
    long grace_seconds; /* used when has_grace */
    int has_grace;
    int64_t timeout_ns; /* 0: the client's default */
    unsigned flags;     /* enum ts_kube_req_flags */
    void *stream_data;  /* passed to on_stream */
    /* Runs with the callback's data when the callback never will: the call
     * cancelled, or the client freed first (not when ts_kube_submit()
     * fails).  For a caller whose data would otherwise leak. NULL: none. */
    void (*release)(void *data);
    /* Runs with the callback's data when the call's token has come, just
     * before each attempt is sent.  Nonzero: the call is not sent and
     * fails with that TS_E* code, and its token goes back to its lane.
     * For a write built on a version the caller has since seen replaced:
     * it would only conflict.  NULL: always sent. */
    int (*check)(void *data);
};

struct ts_kube_result {
    int code;         /* 0 or a TS_E* code */
    long http_status; /* 0 when no reply was received */
    cJSON *obj;       /* decoded reply body, or NULL */
    const char *body; /* a 2xx reply's bytes (borrowed), or NULL */
    size_t body_len;
    struct ts_kube_status status; /* the server's Status when the API refused */
    struct ts_err err;            /* message for code != 0 */
    unsigned attempts;            /* HTTP attempts made */
    /* A failed write that may have been carried out all the same: an
     * attempt reached the server and got no answer that says it was not
     * (the connection dropped mid-reply, a timeout, 500, 502 or 504).  A
     * later attempt's 409 may then be the first attempt's own doing. */
    int unsure;
};

/* Ownership: res is borrowed for the callback; the callback may take
 * res->obj (set it to NULL and free it later with cJSON_Delete()). */
typedef void (*ts_kube_done_fn)(struct ts_kube_client *c, struct ts_kube_result *res, void *data);

/* Whether writes may go out now (leader election). */
typedef int (*ts_kube_gate_fn)(void *data);

struct ts_kube_client_opts {
    double qps;             /* 0: 20 (Kueue); < 0: no limit */
    int burst;              /* 0: 30 (Kueue) */
    int64_t timeout_ns;     /* 0: 60 s */
    int max_retries;        /* 0: 10; < 0: none */
    int64_t backoff_base;   /* 0: 100 ms */
    int64_t backoff_cap;    /* 0: 10 s */
    int no_http2;           /* stay on HTTP/1.1 */
    const char *user_agent; /* NULL: TS_KUBE_USER_AGENT */
    uint64_t seed;          /* jitter seed (0: from the clock) */
    /* > 0: throttled requests start on a grid of this step, together
     * (see arm_queue() in client.c); 0: each at its token's time. */
    int64_t throttle_tick;
};

struct ts_kube_stats {
    uint64_t requests, retries, throttled, http2_replies;
    int64_t throttled_ns; /* total time spent waiting for the rate limiter */
    long connections;     /* TCP/TLS connections opened */
    size_t active_peak;   /* most requests on the wire at once (watches aside) */
    uint64_t unsent;      /* calls whose check said not to send them */
};

/* Creates a client.  Returns NULL with err set (TS_EIO: libcurl failed to
 * initialise).  Ownership: caller frees with ts_kube_client_free(). */
struct ts_kube_client *ts_kube_client_new(struct ts_loop *loop, const struct ts_kubeconfig *cfg,
                                          const struct ts_kube_client_opts *opts,
                                          struct ts_err *err);

/* Cancels pending calls (callbacks not run; their release, if any, does)
 * and frees.  NULL ok. */
void ts_kube_client_free(struct ts_kube_client *c);

/* The loop, the kubeconfig and the default namespace.  Borrowed. */
struct ts_loop *ts_kube_client_loop(const struct ts_kube_client *c);
const struct ts_kubeconfig *ts_kube_client_config(const struct ts_kube_client *c);

/* Installs the write gate (NULL removes it). */
void ts_kube_client_set_gate(struct ts_kube_client *c, ts_kube_gate_fn fn, void *data);

/* Whether a write of resource `res` submitted now would go out at once
 * and leave at least `fraction` of the burst in its lane's bucket (0: at
 * least one token): no request of the lane waits for a token.  Writes
 * that only inform (pending reasons) go out when this holds, so they
 * never delay the writes that decide (admissions, evictions); cycles run
 * when it holds at 0, so decisions do not wait either.  Always 1 without
 * a rate limit. */
int ts_kube_client_spare(struct ts_kube_client *c, const struct ts_kube_resource *res,
                         double fraction);

/* Whether the writes of `res` the budget grants over the next `window`
 * ns could all go out now: as many tokens at hand (at least 1, at most
 * the burst) and no call of the lane waiting.  A saturated controller
 * decides when this holds, so its writes leave in small batches, one
 * wakeup each, and a decision waits at most `window` for the batch.
 * Always 1 without a rate limit. */
int ts_kube_client_batch_ready(struct ts_kube_client *c, const struct ts_kube_resource *res,
                               int64_t window);

/* Counters since creation. */
void ts_kube_client_stats(const struct ts_kube_client *c, struct ts_kube_stats *out);

/* Queues a request; fn runs exactly once unless the call is cancelled or
 * the client freed first.  Returns 0 or TS_EINVAL (malformed request: no
 * resource, missing name, apply without a field manager, …).
 * Ownership: *out (may be NULL) is borrowed until fn runs. */
int ts_kube_submit(struct ts_kube_client *c, const struct ts_kube_req *r, ts_kube_done_fn fn,
                   void *data, struct ts_kube_call **out, struct ts_err *err);

/* Cancels a call; its callback will not run, its release does.  NULL
 * does nothing. */
void ts_kube_cancel(struct ts_kube_call *call);

/* Runs the loop until the request is done.  Returns its code; on success
 * *out (may be NULL) receives the reply object.
 * Ownership: caller frees *out with cJSON_Delete(). */
int ts_kube_do(struct ts_kube_client *c, const struct ts_kube_req *r, cJSON **out,
               struct ts_err *err);

/* Lists every page (limit/continue; after an expired continue token it
 * starts over without paging, as client-go's pager does) and calls fn
 * with one list object holding all items and the last page's
 * metadata.resourceVersion.  Returns 0 or TS_EINVAL. */
int ts_kube_list_all(struct ts_kube_client *c, const struct ts_kube_req *r, ts_kube_done_fn fn,
                     void *data, struct ts_kube_call **out, struct ts_err *err);

/* Blocking helpers for tools.  Ownership: *out as ts_kube_do(). */
int ts_kube_get_sync(struct ts_kube_client *c, const struct ts_kube_resource *res, const char *ns,
                     const char *name, cJSON **out, struct ts_err *err);
int ts_kube_list_sync(struct ts_kube_client *c, const struct ts_kube_req *r, cJSON **out,
                      struct ts_err *err);
int ts_kube_create_sync(struct ts_kube_client *c, const struct ts_kube_resource *res,
                        const char *ns, const cJSON *obj, cJSON **out, struct ts_err *err);
int ts_kube_delete_sync(struct ts_kube_client *c, const struct ts_kube_resource *res,
                        const char *ns, const char *name, struct ts_err *err);

/* Appends the URL path of a request ("/apis/g/v/namespaces/ns/r/name/sub")
 * to out.  Returns 0 or TS_EINVAL. */
int ts_kube_path(const struct ts_kube_req *r, struct ts_buf *out, struct ts_err *err);

/* "apiVersion" of a resource ("v1", "batch/v1").  Writes into buf. */
const char *ts_kube_api_version(const struct ts_kube_resource *res, char *buf, size_t len);

/* Whether a verb changes state (subject to the write gate). */
int ts_kube_verb_writes(enum ts_kube_verb v);

#endif
