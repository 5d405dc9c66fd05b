/*
 * events.h - an event recorder writing core/v1 Events about objects,
 * aggregated as client-go's EventCorrelator does: an event that repeats
 * (same object, type, reason, message and source) is not created again;
 * the existing Event's count and lastTimestamp are patched instead.  A
 * per-object token bucket (burst 25, one more every 5 minutes, client-go's
 * spam filter) drops floods.
 *
 * Events go to the involved object's namespace ("default" for
 * cluster-scoped objects) with the name "<object>.<hex nanoseconds>".
 * Repeats arriving while the first create is still in flight are folded
 * into one patch when it completes.  A repeat whose Event has expired on
 * the server (404 on patch) is created anew.  Recording never blocks and
 * never fails the caller: write errors are logged at debug level.  With
 * 1000 Events waiting for the client's budget, new ones are dropped
 * (counted in stats.dropped), as client-go's broadcaster drops them.
 * (client-go's "combined from similar events" grouping of events that
 * differ only in their message is not done.)
 *
 * Thread rule: loop thread only.  Ownership: the recorder borrows the
 * client; free it before the client.  Objects passed in are borrowed.
 */
#ifndef TS_KUBE_EVENTS_H
#define TS_KUBE_EVENTS_H

#include <cJSON.h>
#include <stdint.h>

#include "kube/client.h"

struct ts_recorder;

struct ts_recorder_stats {
    uint64_t created, patched, dropped, failed;
};

/* Creates a recorder reporting as `component` (e.g. "turnstile") from
 * `host` (may be NULL).  Strings are copied. */
struct ts_recorder *ts_recorder_new(struct ts_kube_client *c, const char *component,
                                    const char *host);

/* Frees the recorder; events still in flight finish without it.  NULL ok. */
void ts_recorder_free(struct ts_recorder *r);

/* Records an event about obj (needs apiVersion, kind, metadata.name; uid,
 * namespace and resourceVersion are used when present).  type is
 * "Normal" or "Warning"; reason is CamelCase ("Admitted"). */
void ts_recorder_event(struct ts_recorder *r, const cJSON *obj, const char *type,
                       const char *reason, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

void ts_recorder_stats(const struct ts_recorder *r, struct ts_recorder_stats *out);

#endif
