/*
 * faults.h - the decision half of turnstile-apiserver --faults SPEC: the
 * spec language, a seeded PRNG, and "should this request fail, and how".
 * Pure: no I/O, no clock (times are passed in), no globals; the hooks
 * that act on a decision live in faults_hook.c.
 *
 * SPEC is comma-separated KEY=VALUE (README "Fault injection"):
 *   seed=N               PRNG seed (default 1): same seed, same sequence
 *   write-409=P          fraction of writes answered 409 Conflict
 *   write-429=P          ... 429 TooManyRequests with Retry-After
 *   write-500=P          ... 500 InternalError
 *   write-503=P          ... 503 ServiceUnavailable
 *   retry-after=N        seconds in the 429's Retry-After (default 1)
 *   latency=A-B          uniform extra latency per request ("0-20ms", "5ms")
 *   gone=P               fraction of watch resumes (resourceVersion set) and
 *                        list continues answered 410 Expired
 *   cut=P                fraction of replies closed mid-body (after the
 *                        request was carried out)
 *   write-cut=P          the same for writes carried out (2xx) only
 *   watch-drop=P         per watch event: close the stream after it
 *   watch-drop-after=N   close every watch stream after N events
 *   watch-lag=D          each watch write waits D before it is sent (a
 *                        client's watch behind its writes)
 *   pause=D@T[+E]        stop answering for D, T after start (every E)
 * A failed write (409/429/500/503) is never performed.  P is in [0,1].
 */
#ifndef TS_APISERVER_FAULTS_H
#define TS_APISERVER_FAULTS_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"
#include "util/err.h"

enum ts_fault_kind {
    TS_FAULT_NONE = 0,
    TS_FAULT_WRITE_409,
    TS_FAULT_WRITE_429,
    TS_FAULT_WRITE_500,
    TS_FAULT_WRITE_503,
    TS_FAULT_LATENCY,
    TS_FAULT_GONE,
    TS_FAULT_CUT,
    TS_FAULT_WATCH_DROP,
    TS_FAULT_PAUSE,
    TS_FAULT_WRITE_CUT,
    TS_FAULT_WATCH_LAG,
    TS_FAULT__N,
};

/* What a request is, for the decision. */
enum ts_fault_req {
    TS_FAULT_REQ_READ = 0, /* get, list from the start, discovery */
    TS_FAULT_REQ_WRITE,    /* POST, PUT, PATCH, DELETE */
    TS_FAULT_REQ_RESUME,   /* watch with a resourceVersion, list with continue */
    TS_FAULT_REQ_WATCH,    /* watch from now (no resourceVersion) */
};

struct ts_faults_spec {
    uint64_t seed;
    double p[TS_FAULT__N]; /* probabilities of the random kinds */
    int64_t retry_after;   /* seconds */
    int64_t lat_min, lat_max;
    int64_t watch_drop_after; /* 0: never */
    int64_t watch_lag;        /* ns; 0: none */
    int64_t pause_len, pause_at, pause_every;
};

struct ts_faults {
    struct ts_faults_spec spec;
    uint64_t rng;
    uint64_t count[TS_FAULT__N];
};

/* A decision for one request.  fail is a TS_FAULT_WRITE_* or
 * TS_FAULT_GONE (reply that instead of serving) or NONE. */
enum { TS_FAULT_CUT_ALWAYS = 1, TS_FAULT_CUT_IF_DONE };

struct ts_fault_decision {
    int fail;
    int cut;         /* serve, then close the connection mid-body: always, or
                        (TS_FAULT_CUT_IF_DONE) only a 2xx reply */
    int64_t latency; /* ns to wait before serving */
};

/* Parses SPEC into out.  Returns 0, or TS_EINVAL with a message naming
 * the bad key (or value). */
int ts_faults_parse(const char *spec, struct ts_faults_spec *out, struct ts_err *err);

/* Starts the PRNG from spec->seed; counters at 0. */
void ts_faults_init(struct ts_faults *f, const struct ts_faults_spec *spec);

/* Decides for one request of class req and counts what it injects. */
void ts_faults_decide(struct ts_faults *f, enum ts_fault_req req, struct ts_fault_decision *d);

/* Whether a watch stream that has just sent its `sent`-th event (1-based)
 * is closed now; counts the drop. */
int ts_faults_watch_drop(struct ts_faults *f, uint64_t sent);

/* How long the server stays paused at `since_start` ns after start (0 when
 * not paused). */
int64_t ts_faults_pause_left(const struct ts_faults_spec *spec, int64_t since_start);

/* Counts one pause a request waited through. */
void ts_faults_count_pause(struct ts_faults *f);

/* "write-409" etc.; "" for NONE. */
const char *ts_faults_name(int kind);

/* {"seed":N,"injected":{"write-409":N,...},"total":N} appended to out. */
void ts_faults_json(const struct ts_faults *f, struct ts_buf *out);

#endif
