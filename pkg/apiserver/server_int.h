/*
 * server_int.h - private shared state of turnstile-apiserver (the
 * ts__as_* symbols cross files inside pkg/apiserver only).
 *
 * Invariants:
 *  - every field of struct ts_apiserver below `mu` is read or written only
 *    with `mu` held (see the threading note in apiserver.h);
 *  - stored objects (struct ts__as_obj) are immutable once stored: a write
 *    builds a new tree and swaps it in, so the event history can share the
 *    same objects by reference count;
 *  - `rv` is the one global resourceVersion; it only grows;
 *  - resource types (struct ts__as_res) are never freed before the server:
 *    a deleted CRD marks its type `dead` so open watches end cleanly.
 */
#ifndef TS_APISERVER_SERVER_INT_H
#define TS_APISERVER_SERVER_INT_H

#include <cJSON.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

#include "api/field.h"
#include "apiserver/apiserver.h"
#include "api/cel_rules.h"
#include "api/schema.h"
#include "util/buf.h"
#include "util/hmap.h"
#include "util/strlist.h"
#include "util/strmap.h"
#include "util/time.h"

#define TS__AS_BODY_MAX (16u << 20)

/* Built-in kinds with behaviour of their own. */
enum ts__as_kindid {
    TS__AS_GENERIC = 0,
    TS__AS_NAMESPACE,
    TS__AS_JOB,
    TS__AS_CRD,
    TS__AS_EVENT,
    TS__AS_CONFIGMAP,
    TS__AS_SECRET,
    TS__AS_CR,
    TS__AS_LIMITRANGE,
};

/* One served version of a resource. */
struct ts__as_ver {
    char *name;
    int served;
    int storage;
    int deprecated;
    char *warning;                       /* deprecationWarning or NULL */
    cJSON *schema;                       /* openAPIV3Schema (owned) or NULL */
    struct ts_schema_patterns *patterns; /* schema's, compiled (owned) or NULL */
    struct ts_cel_rules *cel;            /* schema's CEL rules (owned) or NULL */
    cJSON *columns;                      /* additionalPrinterColumns (owned) or NULL */
    cJSON *selectable;                   /* selectableFields (owned) or NULL */
    int has_status;                      /* status subresource */
};

/* Built-in Table column: JSONPath cell or a computed one. */
struct ts__as_col {
    const char *name;
    const char *type; /* string, integer, date, boolean, number */
    const char *path; /* JSONPath, or "#<fn>" for computed cells */
    int priority;
};

struct ts__as_res {
    char *group; /* "" for core */
    char *resource;
    char *singular;
    char *kind;
    char *list_kind;
    int namespaced;
    int kindid;
    int generation; /* keeps metadata.generation */
    int dead;
    /* kueue.x-k8s.io CRD with conversion strategy Webhook: objects are
     * stored in the storage version and converted with Kueue's converter
     * (the same code the conversion webhook serves) on the way in and out */
    int convert_kueue;
    int conv_webhook; /* conversion strategy Webhook */
    cJSON *conv_cc;   /* its clientConfig when it has an address, else NULL */
    struct ts_strlist short_names;
    struct ts_strlist categories;
    struct ts__as_ver *vers;
    size_t n_vers;
    const struct ts__as_col *cols; /* built-in table columns or NULL */
    size_t n_cols;
    struct ts_hmap objs; /* "ns/name" -> struct ts__as_obj * */
};

struct ts__as_obj {
    int refs;
    int64_t rv;
    cJSON *json;
    char *text; /* compact JSON, made on first use */
    size_t len;
};

enum ts__as_evtype {
    TS__AS_ADDED = 0,
    TS__AS_MODIFIED,
    TS__AS_DELETED,
};

struct ts__as_event {
    int64_t rv;
    int type;
    struct ts__as_res *res;
    struct ts__as_obj *obj; /* new state (last state for DELETED) */
    struct ts__as_obj *old; /* previous state or NULL */
};

struct ts_apiserver {
    struct ts_apiserver_opts opts;
    char *listen, *cert_file, *key_file, *token, *kubeconfig, *minor, *data_dir;
    struct MHD_Daemon *mhd;
    int port;
    int tls;
    char *url;
    char *cert_pem, *key_pem, *ca_pem;

    pthread_mutex_t mu;
    pthread_cond_t cond;
    int stopping;
    int64_t rv;
    uint64_t rand;
    uint64_t gen; /* bumps when served resources change */
    struct ts__as_res **res;
    size_t n_res, cap_res;
    struct ts__as_event *ring;
    size_t ring_cap, ring_head, ring_n;
    int64_t ring_floor;      /* events with rv <= floor are gone */
    struct ts_hmap oa_cache; /* "gv" -> char * OpenAPI doc */
    uint64_t oa_gen;
    struct ts__as_wal *wal;       /* --data-dir, or NULL (memory only) */
    struct ts__as_jobsim *jobsim; /* --simulate-job-runtime, or NULL */
    struct ts_strlist svc_map;    /* "ns/name:port=host:port" (--webhook-service) */
    struct ts_faults *faults;     /* --faults, or NULL */
    ts_time faults_t0;            /* monotonic start, for pause=D@T */
};

/* Parsed request path. */
struct ts__as_route {
    int is_resource;
    char *group, *version, *resource, *ns, *name, *sub; /* owned copies */
};

struct ts__as_watch;
struct ts__as_wal;
struct ts__as_jobsim;

struct ts__as_adm;
struct ts_faults;
struct MHD_Response;

struct ts__as_req {
    struct ts_apiserver *s;
    struct ts__as_adm *adm; /* admission webhook state across rounds, or NULL */
    const char *method;
    const char *path;
    struct ts_strmap query;
    const char *accept;
    const char *ctype;
    const char *user_agent;
    int is_apply; /* server-side apply: managedFields already worked out */
    int faulty;   /* --faults apply to this request */
    int expire;   /* --faults: answer this watch resume with 410 Expired */
    struct ts_buf body;
    cJSON *parsed; /* body parsed before the lock, or NULL; owned */
    ts_time now;
    struct ts__as_route rt;
    struct ts__as_res *res; /* resolved resource, or NULL */
    struct ts__as_ver *ver;
};

struct ts__as_resp {
    int code;
    const char *ctype;
    struct ts_buf body;
    struct ts_strlist warnings;
    struct ts__as_watch *watch; /* streamed reply when set */
    int64_t retry_after;        /* > 0: Retry-After header (seconds) */
};

/* --- faults_hook.c: --faults acting on requests (decisions: faults.h) --- */
/* Parses spec (NULL: faults off) into s->faults; 0 or TS_EINVAL. */
int ts__as_faults_enable(struct ts_apiserver *s, const char *spec, struct ts_err *err);
/* Logs the counters and frees the fault state. */
void ts__as_faults_release(struct ts_apiserver *s);
/* Whether faults apply to a request for path with the X-Turnstile-Faults
 * header value (NULL when absent). */
int ts__as_faults_apply(const struct ts_apiserver *s, const char *path, const char *header);
/* Before serving, mutex NOT held: waits through a pause and the latency,
 * then returns 1 after replying on r (failed write, expired list), else 0;
 * *cut says whether to cut the reply (0 or a TS_FAULT_CUT_* of faults.h). */
int ts__as_faults_before(struct ts__as_req *q, struct ts__as_resp *r, int *cut);
/* Holds the calling thread while the server is paused (mutex NOT held). */
void ts__as_faults_wait_pause(struct ts_apiserver *s);
/* Holds a watch stream's thread for watch-lag=D before it sends. */
void ts__as_faults_watch_lag(struct ts_apiserver *s);
/* A response of r's body that ends halfway with a dropped connection;
 * takes the body.  Ownership: caller destroys it. */
struct MHD_Response *ts__as_faults_cut_response(struct ts__as_resp *r);
/* GET /debug/faults (mutex held): 1 when path was that and r filled. */
int ts__as_faults_endpoint(struct ts__as_req *q, struct ts__as_resp *r);

/* --- status.c: metav1.Status replies ------------------------------------ */
void ts__as_resp_init(struct ts__as_resp *r);
void ts__as_resp_release(struct ts__as_resp *r);
/* Serialises v (borrowed) as the body with HTTP `code`. */
void ts__as_reply_json(struct ts__as_resp *r, int code, const cJSON *v);
/* Status reply; details consumed (may be NULL). */
void ts__as_reply_status(struct ts__as_resp *r, int code, const char *reason, const char *msg,
                         cJSON *details);
void ts__as_reply_badreq(struct ts__as_resp *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void ts__as_reply_notfound(struct ts__as_resp *r, const struct ts__as_res *res, const char *name);
void ts__as_reply_exists(struct ts__as_resp *r, const struct ts__as_res *res, const char *name);
void ts__as_reply_conflict(struct ts__as_resp *r, const struct ts__as_res *res, const char *name);
void ts__as_reply_invalid(struct ts__as_resp *r, const struct ts__as_res *res, const char *name,
                          const struct ts_field_errors *errs);
void ts__as_reply_nopath(struct ts__as_resp *r);
/* "jobs.batch" / "namespaces" into out. */
void ts__as_qualified(const struct ts__as_res *res, struct ts_buf *out);

/* --- registry.c: resource types ------------------------------------------ */
struct ts__as_res *ts__as_res_new(const char *group, const char *resource, const char *kind,
                                  int namespaced);
void ts__as_res_add_version(struct ts__as_res *res, const char *version);
void ts__as_res_register(struct ts_apiserver *s, struct ts__as_res *res);
void ts__as_res_free(struct ts__as_res *res);
void ts__as_ver_release(struct ts__as_ver *v);
/* Served resource by group/version/plural, or NULL.  *ver set on success. */
struct ts__as_res *ts__as_res_find(struct ts_apiserver *s, const char *group, const char *version,
                                   const char *resource, struct ts__as_ver **ver);
struct ts__as_res *ts__as_res_by_kind(struct ts_apiserver *s, const char *group, const char *kind);
struct ts__as_ver *ts__as_res_version(struct ts__as_res *res, const char *version);
/* Kubernetes version priority: <0 when a sorts before b (v1 > v1beta2 > v1alpha1 > x). */
int ts__as_version_cmp(const char *a, const char *b);
/* The preferred (highest priority served) version of a group, or NULL. */
const char *ts__as_group_preferred(struct ts_apiserver *s, const char *group);

/* --- builtins.c --------------------------------------------------------- */
void ts__as_builtins_register(struct ts_apiserver *s);
void ts__as_builtins_seed(struct ts_apiserver *s, ts_time now);
/* Job defaults per the batch/v1 registry (uid from metadata). */
void ts__as_job_default(cJSON *job);
/* kube-apiserver's SetDefaults_LimitRangeItem on every item of a core/v1
 * LimitRange, quantities in canonical form (builtins.c). */
void ts__as_limitrange_default(cJSON *lr);

/* --- job_validate.c ----------------------------------------------------- */
/* Appends what kube-apiserver refuses in a Job (create and update):
 * negative counts, missing or invalid containers, a restart policy other
 * than OnFailure or Never. */
void ts__as_job_validate(const cJSON *job, struct ts_field_errors *errs);
/* The field path an update from old to obj may not change in a Job's pod
 * template ("spec.template" or "spec.template.spec"), or NULL when the
 * update is allowed.  Ownership: a static string. */
const char *ts__as_job_template_refused(const cJSON *old, const cJSON *obj);
/* Computed built-in cell ("#jobstatus", ...); returns a new cJSON or NULL. */
cJSON *ts__as_builtin_cell(const char *fn, const cJSON *obj, ts_time now);

/* --- store.c ------------------------------------------------------------ */
struct ts__as_obj *ts__as_obj_new(cJSON *json);
void ts__as_obj_ref(struct ts__as_obj *o);
void ts__as_obj_unref(struct ts__as_obj *o);
/* Compact JSON text of o (cached).  Borrowed. */
const char *ts__as_obj_text(struct ts__as_obj *o, size_t *len);
void ts__as_key(const char *ns, const char *name, struct ts_buf *out);
struct ts__as_obj *ts__as_store_get(struct ts__as_res *res, const char *ns, const char *name);
/* Stores json (consumed) as a new revision; sets metadata.resourceVersion,
 * records the event.  Returns the stored object (borrowed). */
struct ts__as_obj *ts__as_store_put(struct ts_apiserver *s, struct ts__as_res *res, cJSON *json);
/* Removes the object, records DELETED with a new RV. */
void ts__as_store_del(struct ts_apiserver *s, struct ts__as_res *res, struct ts__as_obj *o);
/* Objects of res in namespace ns (NULL = all) sorted by key; caller frees
 * the array (objects borrowed). */
struct ts__as_obj **ts__as_store_list(struct ts__as_res *res, const char *ns, size_t *n);
void ts__as_ring_init(struct ts_apiserver *s, size_t cap);
void ts__as_ring_release(struct ts_apiserver *s);
/* Index of the first event with rv > after; returns ring_n when none. */
size_t ts__as_ring_seek(struct ts_apiserver *s, int64_t after);
struct ts__as_event *ts__as_ring_at(struct ts_apiserver *s, size_t i);
/* Random lowercase suffix for generateName / uids. */
void ts__as_rand_chars(struct ts_apiserver *s, const char *alphabet, char *out, size_t n);
void ts__as_new_uid(struct ts_apiserver *s, char out[37]);

/* --- routes.c ----------------------------------------------------------- */
int ts__as_route_parse(const char *path, struct ts__as_route *rt);
void ts__as_route_release(struct ts__as_route *rt);
/* Go strconv.ParseBool; returns 1/0 or -1 when malformed. */
int ts__as_parse_bool(const char *s);
const char *ts__as_query(const struct ts__as_req *q, const char *key);
int ts__as_query_bool(const struct ts__as_req *q, const char *key);
/* Whether the Accept header asks for media type `as` (e.g. "Table"). */
int ts__as_accept_has(const char *accept, const char *g, const char *v, const char *as);

/* --- handler.c / h_*.c -------------------------------------------------- */
void ts__as_handle(struct ts__as_req *q, struct ts__as_resp *r);
void ts__as_handle_get(struct ts__as_req *q, struct ts__as_resp *r);
void ts__as_handle_list(struct ts__as_req *q, struct ts__as_resp *r);
void ts__as_handle_create(struct ts__as_req *q, struct ts__as_resp *r);
/* Parses a POST or PUT body that is JSON into q->parsed, without the
 * server mutex: one parse less under the lock every write waits for.  A
 * body that fails is parsed again under it, for the error reply. */
void ts__as_body_preparse(struct ts__as_req *q);
void ts__as_handle_update(struct ts__as_req *q, struct ts__as_resp *r);
void ts__as_handle_patch(struct ts__as_req *q, struct ts__as_resp *r);
void ts__as_handle_delete(struct ts__as_req *q, struct ts__as_resp *r);
void ts__as_handle_delete_collection(struct ts__as_req *q, struct ts__as_resp *r);
void ts__as_handle_watch(struct ts__as_req *q, struct ts__as_resp *r);
/* Serves object o at the requested version: a copy with apiVersion set
 * (converted when the resource has convert_kueue). */
cJSON *ts__as_present(const struct ts__as_req *q, struct ts__as_res *res, const cJSON *o);
/* Appends stored object o as served at the request's version (q->ver
 * set): its cached text when the versions match, else a presented copy. */
void ts__as_add_obj(const struct ts__as_req *q, struct ts__as_obj *o, struct ts_buf *out);
/* Converts obj in place to the storage version of res when res converts
 * (strategy Webhook); otherwise leaves it. */
void ts__as_to_storage(struct ts_apiserver *s, const struct ts__as_res *res, cJSON *obj);
/* convert_hook.c: obj converted in place to apiVersion av (webhook when
 * configured and reachable, else in-process; see the file comment). */
void ts__as_convert(struct ts_apiserver *s, const struct ts__as_res *res, cJSON *obj,
                    const char *av);
/* Reads the CRD's conversion settings into res. */
void ts__as_crd_conversion(struct ts__as_res *res, const cJSON *crd, const struct ts_strlist *map);
/* Common write pipeline (h_write.c): validates and stores `obj` (consumed)
 * as the new state of `old` (NULL = create).  Replies on r. */
void ts__as_commit(struct ts__as_req *q, struct ts__as_resp *r, struct ts__as_obj *old, cJSON *obj,
                   int status_only);
/* Removes o now, or marks it deleting when it has finalizers; cascades
 * namespaces and CRDs.  Returns the object state after (borrowed, may be
 * NULL when removed). */
struct ts__as_obj *ts__as_delete_obj(struct ts_apiserver *s, struct ts__as_res *res,
                                     struct ts__as_obj *o, ts_time now);
void ts__as_finish_namespace(struct ts_apiserver *s, const char *ns);
enum ts__as_propagation {
    TS__AS_BACKGROUND = 0,
    TS__AS_FOREGROUND,
    TS__AS_ORPHAN,
};
/* ts__as_delete_obj() with a propagation policy. */
struct ts__as_obj *ts__as_delete_policy(struct ts_apiserver *s, struct ts__as_res *res,
                                        struct ts__as_obj *o, ts_time now, int policy);
/* Sets deletionTimestamp (first time only); returns the stored state. */
struct ts__as_obj *ts__as_mark_deleting(struct ts_apiserver *s, struct ts__as_res *res,
                                        struct ts__as_obj *o, ts_time now);
/* h_delete.c: o was just created with ownerReferences none of whose owners
 * exists (its owner was deleted before it came): the collector deletes it
 * (background), as kube's does with dangling references. */
void ts__as_gc_dangling(struct ts_apiserver *s, struct ts__as_res *res, struct ts__as_obj *o,
                        ts_time now);
/* gc.c: foreground deletion of o; returns its state after (NULL when
 * removed). */
struct ts__as_obj *ts__as_gc_foreground(struct ts_apiserver *s, struct ts__as_res *res,
                                        struct ts__as_obj *o, ts_time now);
/* gc.c: a dependent (last state) was removed: owners in foreground
 * deletion that it blocked may go now. */
void ts__as_gc_dependent_gone(struct ts_apiserver *s, const cJSON *last, ts_time now);

/* --- selectors for lists and watches (h_read.c) ------------------------- */
struct ts__as_filter;
int ts__as_filter_new(const struct ts__as_req *q, struct ts__as_resp *r,
                      struct ts__as_filter **out);
int ts__as_filter_match(const struct ts__as_filter *f, const struct ts__as_res *res,
                        const cJSON *obj);
void ts__as_filter_free(struct ts__as_filter *f);

/* --- table.c ------------------------------------------------------------ */
/* Whether the request asks for a meta.k8s.io Table. */
int ts__as_want_table(const struct ts__as_req *q);
/* New Table (consumed by caller) for objects; with_columns adds the column
 * definitions. */
cJSON *ts__as_table(const struct ts__as_req *q, struct ts__as_res *res, struct ts__as_obj **objs,
                    size_t n, int with_columns);

/* --- discovery.c / openapi.c -------------------------------------------- */
int ts__as_discovery(struct ts__as_req *q, struct ts__as_resp *r);
int ts__as_discovery_group(struct ts__as_req *q, struct ts__as_resp *r);
int ts__as_openapi(struct ts__as_req *q, struct ts__as_resp *r);

/* --- crd.c -------------------------------------------------------------- */
/* Validates a CRD (errs) and fills its status; 0 or -1. */
int ts__as_crd_prepare(struct ts_apiserver *s, cJSON *crd, const cJSON *old, ts_time now,
                       struct ts_field_errors *errs);
/* (Re)registers the served resource of a stored CRD. */
void ts__as_crd_apply(struct ts_apiserver *s, const cJSON *crd);
/* Unregisters the resource of a removed CRD and deletes its objects. */
void ts__as_crd_remove(struct ts_apiserver *s, const cJSON *crd);
/* Prunes, defaults and validates a custom resource (schema, then the CEL
 * rules; old is the stored object on update, NULL on create); returns 0,
 * or 400/422 already replied on r (returns -1). */
int ts__as_cr_prepare(struct ts__as_req *q, struct ts__as_resp *r, const cJSON *old, cJSON *obj);

/* --- watch.c ------------------------------------------------------------ */
/* Content-reader callback and destructor for streamed replies (http.c). */
ssize_t ts__as_watch_read(void *cls, uint64_t pos, char *buf, size_t max);
void ts__as_watch_free(void *cls);

/* --- tls.c / kubeconfig.c ----------------------------------------------- */
int ts__as_tls_generate(struct ts_apiserver *s, struct ts_err *err);
int ts__as_tls_load(struct ts_apiserver *s, struct ts_err *err);
int ts__as_kubeconfig_write(const struct ts_apiserver *s, const char *path, struct ts_err *err);

/* --- admission.c / admission_call.c: admission webhooks --------------------
 * A write that matches webhooks is worked out in rounds (http.c): the
 * handler runs under the lock until a point where webhooks must be called,
 * records what to send in q->adm and returns without replying; the calls
 * run without the lock; the handler then runs again and picks the results
 * up at the same point, provided the old object is unchanged (else it
 * starts over, as GuaranteedUpdate retries). */
enum ts__as_adm_phase {
    TS__AS_ADM_IDLE = 0,
    TS__AS_ADM_MUTATE,   /* mutating webhooks to call */
    TS__AS_ADM_VALIDATE, /* validating webhooks to call */
    TS__AS_ADM_RESTART,  /* the old object changed meanwhile: run again */
};
/* Mutation point (create/update): *obj may be replaced by the mutated
 * object.  Returns 0 to go on, 1 when the handler must stop (webhooks
 * pending or an error replied).  old: NULL on create. */
int ts__as_admit_mutate(struct ts__as_req *q, struct ts__as_resp *r, cJSON **obj,
                        const struct ts__as_obj *old);
/* Validation point, just before storing: *obj may be replaced by the
 * object the validating webhooks saw.  Same returns. */
int ts__as_admit_validate(struct ts__as_req *q, struct ts__as_resp *r, cJSON **obj,
                          const struct ts__as_obj *old);
/* DELETE: validating (and mutating) webhooks with oldObject = o. */
int ts__as_admit_delete(struct ts__as_req *q, struct ts__as_resp *r, const struct ts__as_obj *o);
/* Pending phase of q->adm, or IDLE. */
int ts__as_admit_pending(const struct ts__as_req *q);
/* Calls the pending webhooks (no lock held).  On a denial or a failed
 * call the reply is set on r and 1 is returned; else 0. */
int ts__as_admit_run(struct ts__as_req *q, struct ts__as_resp *r);
/* Moves collected webhook warnings to r; frees q->adm. */
void ts__as_admit_finish(struct ts__as_req *q, struct ts__as_resp *r);

/* --- aggregate.c: APIService proxying ----------------------------------- */
struct ts__as_proxy {
    cJSON *cc; /* {service, caBundle} as a webhook clientConfig; owned */
    int insecure;
};
/* 1 when q->path belongs to an APIService with a service (px filled),
 * else 0.  Call with the server mutex held. */
int ts__as_aggregated(struct ts_apiserver *s, const struct ts__as_req *q, struct ts__as_proxy *px);
/* Proxies q to the service; call without the server mutex. */
void ts__as_proxy(struct ts_apiserver *s, const struct ts__as_proxy *px, const struct ts__as_req *q,
                  struct ts__as_resp *r);
void ts__as_proxy_release(struct ts__as_proxy *px);
/* /apis/GROUP for a group served only through APIServices: the APIGroup
 * the aggregator makes of them (versions by versionPriority).  Under the
 * mutex; 1 when answered. */
int ts__as_aggregated_group(struct ts__as_req *q, struct ts__as_resp *r);

/* --- hookcall.c: outgoing webhook HTTPS --------------------------------- */
/* URL for clientConfig cc (and a CURLOPT_CONNECT_TO entry for mapped
 * services, "" otherwise).  TS_EINVAL, TS_EUNAVAILABLE (unmapped). */
int ts__as_hook_url(const struct ts_strlist *map, const cJSON *cc, char *url, size_t len,
                    char *connect_to, size_t clen, struct ts_err *err);
/* POSTs body to the webhook; the 200 reply body is appended to out (an
 * initialised buffer).  TS_EIO, TS_ETIMEDOUT, TS_EINVAL, TS_EUNAVAILABLE. */
int ts__as_hook_post(const struct ts_strlist *map, const cJSON *cc, int timeout_s,
                     const struct ts_buf *body, struct ts_buf *out, struct ts_err *err);

/* --- ssa.c glue (h_write.c) ------------------------------------------------ */
/* managedFields bookkeeping of an ordinary write (commit.c). */
void ts__as_track_fields(struct ts__as_req *q, const cJSON *old, cJSON *obj);

/* --- wal.c: --data-dir durability --------------------------------------- */
/* Recovers DIR (snapshot + log, torn tail cut off) into the store, or
 * writes the first snapshot; then logs every store write.  TS_EIO. */
int ts__as_wal_open(struct ts_apiserver *s, const char *dir, struct ts_err *err);
/* Log hooks called by store.c (no-ops without a log or during replay). */
void ts__as_wal_put(struct ts_apiserver *s, struct ts__as_res *res, struct ts__as_obj *o);
void ts__as_wal_del(struct ts_apiserver *s, struct ts__as_res *res, const cJSON *last, int64_t rv);
/* fdatasyncs what was logged since the last call (before a reply), and
 * compacts into a snapshot every opts.snapshot_every records. */
void ts__as_wal_sync(struct ts_apiserver *s);
/* Final snapshot and close. */
void ts__as_wal_close(struct ts_apiserver *s);

/* --- jobsim.c: --simulate-job-runtime ------------------------------------ */
int ts__as_jobsim_start(struct ts_apiserver *s, struct ts_err *err);
/* Joins the simulator thread (after ts__as_http_stop set `stopping`). */
void ts__as_jobsim_stop(struct ts_apiserver *s);

/* --- jobsim_ray.c: the KubeRay operator's part of the simulator ---------- */
enum ts__as_ray {
    TS__AS_RAY_NONE = 0,
    TS__AS_RAY_JOB,
    TS__AS_RAY_CLUSTER,
};
/* Which KubeRay kind res stores. */
enum ts__as_ray ts__as_ray_kind(const struct ts__as_res *res);
/* Whether the operator has started obj (RayJob: status.startTime;
 * RayCluster: state ready), and whether obj finished (RayJob Complete or
 * Failed; a RayCluster never). */
int ts__as_ray_started(enum ts__as_ray k, const cJSON *obj);
int ts__as_ray_finished(enum ts__as_ray k, const cJSON *obj);
/* The operator's status writes into obj (a copy of the stored object),
 * `now` an RFC 3339 time.  _complete does nothing for a RayCluster. */
void ts__as_ray_start(enum ts__as_ray k, cJSON *obj, const char *now);
void ts__as_ray_complete(enum ts__as_ray k, cJSON *obj, const char *now);
void ts__as_ray_suspend(enum ts__as_ray k, cJSON *obj, const char *now);

/* --- http.c ------------------------------------------------------------- */
int ts__as_http_start(struct ts_apiserver *s, const char *host, int port, struct ts_err *err);
void ts__as_http_stop(struct ts_apiserver *s);

#endif
