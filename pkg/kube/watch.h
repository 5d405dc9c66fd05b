/*
 * watch.h - watch streams: a parser for the newline-delimited JSON events
 * of a watch body, and a driver that keeps one watch alive.
 *
 * Parser (pure): bytes arrive in chunks cut anywhere, even inside a UTF-8
 * sequence or between "\r" and "\n"; each complete line is one event
 * {"type":"ADDED|MODIFIED|DELETED|BOOKMARK|ERROR","object":{…}}.  Events
 * may be of any size up to a cap (default 64 MiB).
 *
 * Driver: GET …?watch=true&resourceVersion=RV&allowWatchBookmarks=true&
 * timeoutSeconds=T (T random in 5–10 min, as client-go's reflector picks
 * it).  It remembers the resourceVersion of the last event or bookmark
 * and, when the stream ends (server timeout, dropped connection, garbage
 * on the wire), watches again from there, with jittered backoff after
 * failures, so no event is lost or repeated.  A 410 (an ERROR event with
 * code 410, or an HTTP 410) means the RV is too old: the driver stops and
 * calls on_gone; the owner lists again and calls ts_watch_resume() with
 * the new list's RV (the informer does this).  Bookmarks only move the RV.
 *
 * Thread rule: loop thread only.
 * Ownership: events' objects are handed to on_event, which consumes them.
 * A watch is freed by ts_watch_stop(), also from inside on_event.
 */
#ifndef TS_KUBE_WATCH_H
#define TS_KUBE_WATCH_H

#include <cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "kube/client.h"
#include "util/buf.h"
#include "util/err.h"

#define TS_WATCH_MAX_EVENT ((size_t)64 << 20)

enum ts_watch_type {
    TS_WATCH_ADDED = 0,
    TS_WATCH_MODIFIED,
    TS_WATCH_DELETED,
    TS_WATCH_BOOKMARK,
    TS_WATCH_ERROR,
};

/* Receives one event.  Ownership: obj is consumed (free it with
 * cJSON_Delete() or keep it).  Return nonzero to stop parsing. */
typedef int (*ts_watch_event_fn)(enum ts_watch_type type, cJSON *obj, void *data);

/* "ADDED", … ("UNKNOWN" when out of range).  Static string. */
const char *ts_watch_type_name(enum ts_watch_type t);

/* --- parser ---------------------------------------------------------------- */

struct ts_arena;

struct ts_watch_parser {
    struct ts_buf line; /* carry-over of a line cut by a chunk boundary */
    ts_watch_event_fn fn;
    void *data;
    size_t events; /* events delivered */
    /* set after init: objects arrive without metadata.managedFields,
     * cut from the text before parsing (a large part of a Workload's) */
    int strip_managed_fields;
    struct ts_buf cut; /* a line without them */
    /* set by ts_watch_parser_transient(): events are parsed into it */
    struct ts_arena *arena;
};

/* max_event 0 = TS_WATCH_MAX_EVENT. */
void ts_watch_parser_init(struct ts_watch_parser *p, size_t max_event, ts_watch_event_fn fn,
                          void *data);
void ts_watch_parser_release(struct ts_watch_parser *p);
/* Parses each event into one block of memory reused for the next: for a
 * callback that keeps nothing of obj once it returns (it may still
 * cJSON_Delete() it).  Call after init, on the thread that feeds. */
void ts_watch_parser_transient(struct ts_watch_parser *p);
/* Drops a partial line (after a cut connection). */
void ts_watch_parser_reset(struct ts_watch_parser *p);

/* Feeds bytes; calls fn for every complete event.  Returns 0, TS_EPARSE
 * (a line that is not JSON, or lacks a known type or an object),
 * TS_EOVERFLOW (an event larger than the cap) or fn's nonzero result.
 * Blank lines are skipped. */
int ts_watch_parser_feed(struct ts_watch_parser *p, const char *buf, size_t len,
                         struct ts_err *err);

/* End of a complete stream: parses a last line that lacks its newline.
 * Returns as ts_watch_parser_feed(). */
int ts_watch_parser_finish(struct ts_watch_parser *p, struct ts_err *err);

/* --- driver ---------------------------------------------------------------- */

struct ts_watch;

struct ts_watch_opts {
    const struct ts_kube_resource *res;
    const char *ns; /* NULL: all namespaces / cluster-scoped */
    const char *label_selector, *field_selector;
    const char *resource_version;      /* where to start (a list's RV) */
    long timeout_seconds;              /* 0: random 300..600 per request */
    int64_t backoff_base, backoff_cap; /* 0: 800 ms, 30 s (client-go) */
    size_t max_event;
    int strip_managed_fields;   /* see ts_watch_parser */
    int transient;              /* on_event keeps nothing of obj: ts_watch_parser_transient() */
    ts_watch_event_fn on_event; /* ADDED, MODIFIED, DELETED */
    void (*on_gone)(struct ts_watch *w, void *data); /* relist needed */
    void *data;
};

struct ts_watch_stats {
    uint64_t events, bookmarks, streams, failures, gone;
};

/* Starts watching.  Returns NULL with err set (TS_EINVAL).
 * Ownership: the watch borrows the client; stop it before freeing it. */
struct ts_watch *ts_watch_start(struct ts_kube_client *c, const struct ts_watch_opts *o,
                                struct ts_err *err);

/* Stops and frees the watch; no callback runs afterwards.  NULL ok. */
void ts_watch_stop(struct ts_watch *w);

/* Watches again from `rv` after on_gone (or at any time). */
void ts_watch_resume(struct ts_watch *w, const char *rv);

/* The last resourceVersion seen.  Borrowed until the next event. */
const char *ts_watch_rv(const struct ts_watch *w);

void ts_watch_stats(const struct ts_watch *w, struct ts_watch_stats *out);

#endif
